"""Specs a fresh user wrote that load and must also generate and compile (regressions of specs that used to
pass validation and then fail in the C++ compiler)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.paths import project_paths

pytestmark = pytest.mark.heavy(20)  # builds of spec copies: about 20 s alone

EXP_OF_DEFAULT = """\
op: ExpScaleBackward
op_type: ExpScaleGrad
kernel: exp_scale_grad
category: activation
family: elementwise
summary: An optional input with a default under exp and log (host scalars call std::exp and std::log).
products: [Ascend910B]
deterministic: true
inputs:
  - name: gradOutput
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: Gradient.
  - name: self
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: Optional input.
    optional: true
    default: 2.0
outputs:
  - name: out
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    shape: gradOutput
    description: Result.
compute:
  promote: [gradOutput, self]
  out: "gradOutput * exp(self) + log(abs(self) + 1)"
tiling:
  buffer_num: 2
  ub_reserved_bytes: 0
  min_bytes_per_core: 32768
example:
  inputs:
    gradOutput: {shape: [2, 2], dtype: FLOAT, values: [1, 2, 3, 4]}
  attrs: {}
  output: {shape: [2, 2], dtype: FLOAT}
"""


def _opgen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args], capture_output=True, text=True, check=False, timeout=1200
    )


def test_default_of_an_optional_input_under_exp_and_log_compiles(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    (specs / "exp_scale_backward.yaml").write_text(EXP_OF_DEFAULT)
    out = tmp_path / "generated"
    gen = _opgen("--specs", str(specs), "generate", "--out", str(out))
    assert gen.returncode == 0, gen.stderr
    tiling = (out / "activation" / "exp_scale_grad" / "op_host" / "exp_scale_grad_tiling.cpp").read_text()
    assert "#include <cmath>" in tiling and "std::exp(" in tiling and "std::log(" in tiling
    built = _opgen(
        "--specs", str(specs), "build", "exp_scale_backward", "--product", "Ascend910B", "--generated", str(out)
    )
    assert built.returncode == 0, built.stderr[-3000:]


def test_a_product_whose_ub_cannot_hold_one_repeat_is_a_clean_catalogue_error(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    catalogue = (project_paths().specs / "products.yaml").read_text()
    lines = catalogue.splitlines(keepends=True)
    entry = next(i for i, line in enumerate(lines) if line.strip() == "- name: Ascend910B")
    ub = next(i for i in range(entry, len(lines)) if lines[i].strip().startswith("ub_bytes:"))
    lines[ub] = lines[ub].split("ub_bytes:")[0] + "ub_bytes: 1024\n"
    (specs / "products.yaml").write_text("".join(lines))
    index = sum(1 for line in lines[:entry] if line.strip().startswith("- name: "))
    (specs / "exp_scale_backward.yaml").write_text(EXP_OF_DEFAULT)
    out = tmp_path / "generated"
    gen = _opgen("--specs", str(specs), "generate", "--out", str(out))
    assert gen.returncode == 2
    assert gen.stderr == (
        f"{specs / 'products.yaml'}:{entry + 1}: products[{index}].ub_bytes: UB of Ascend910B (1024 bytes) cannot "
        "hold one repeat (64 elements) of every buffer of ExpScaleBackward "
        f"({specs / 'exp_scale_backward.yaml'}): it needs at least 1792 bytes (ub_reserved_bytes 0 included); "
        "raise ub_bytes or drop Ascend910B from the op's products\n1 spec error(s); nothing was written\n"
    )
    assert not out.exists()


def _small_ub_catalogue(specs: Path, products: tuple[str, ...], ub_bytes: int) -> dict[str, int]:
    """Writes the project's catalogue into ``specs`` with ``ub_bytes`` for ``products``; returns the 1-based
    line of each of their entries (``- name: ...``)."""
    lines = (project_paths().specs / "products.yaml").read_text().splitlines(keepends=True)
    entries: dict[str, int] = {}
    current = None
    for i, line in enumerate(lines):
        if line.strip().startswith("- name: "):
            current = line.split("- name: ")[1].strip()
            if current in products:
                entries[current] = i + 1
        elif current in products and line.strip().startswith("ub_bytes:"):
            lines[i] = line.split("ub_bytes:")[0] + f"ub_bytes: {ub_bytes}\n"
    (specs / "products.yaml").write_text("".join(lines))
    assert set(entries) == set(products)
    return entries


def test_a_catalogue_too_small_for_several_ops_reports_every_op_on_every_product(tmp_path: Path) -> None:
    """Two products with 1024 bytes of UB and three ops (two families) listing both: six errors, each at its
    product's catalogue entry and naming its op (not the first op per product only), ordered by line."""
    specs = tmp_path / "specs"
    specs.mkdir()
    ops = {"softmax": "Softmax", "log_softmax": "LogSoftmax", "gelu_backward": "GeluBackward"}
    for op in ops:
        shutil.copy(project_paths().specs / f"{op}.yaml", specs)
    entries = _small_ub_catalogue(specs, ("Ascend910B", "Ascend910_93"), 1024)
    out = tmp_path / "generated"
    gen = _opgen("--specs", str(specs), "generate", "--out", str(out))
    assert gen.returncode == 2
    lines = gen.stderr.splitlines()
    assert lines[-1] == "6 spec error(s); nothing was written"
    found = []
    for line in lines[:-1]:
        product = next(p for p in entries if f"UB of {p} (1024 bytes)" in line)
        op = next(name for name in ops.values() if f" of {name} (" in line)
        assert line.startswith(f"{specs / 'products.yaml'}:{entries[product]}: products["), line
        found.append((entries[product], product, op))
    assert sorted(found) == found  # ordered by line
    assert sorted(found) == sorted((entries[p], p, op) for p in entries for op in ops.values())
    assert not out.exists()


def test_a_catalogue_too_small_for_many_ops_reports_ten_and_counts_the_rest(tmp_path: Path) -> None:
    """Every project op on three products of 1024 bytes of UB: ten errors shown, the others counted."""
    specs = tmp_path / "specs"
    shutil.copytree(project_paths().specs, specs)
    for path in specs.glob("*.yaml"):  # a reservation beyond the UB is the spec's own error (the test below)
        found = re.search(r"^  ub_reserved_bytes: (\d+)", path.read_text(), re.M)
        if found is not None and int(found.group(1)) >= 1024:
            path.unlink()
    products = ("Ascend910B", "Ascend910_93", "Ascend950")
    entries = _small_ub_catalogue(specs, products, 1024)
    # every (op, product) pair of these products, counted from the spec files' `products:` lines, but the
    # foreach family's: its list kernel runs in two double-buffered 32-byte tiles and a cast block, which 1024
    # bytes hold
    expected = 0
    for path in sorted(specs.glob("*.yaml")):
        listed = [line for line in path.read_text().splitlines() if line.startswith("products:")]
        if "family: foreach" in path.read_text():
            continue
        if path.name != "products.yaml":
            assert len(listed) == 1, path
            expected += sum(f"{p}," in listed[0] or f"{p}]" in listed[0] for p in products)
    assert expected > 10
    gen = _opgen("--specs", str(specs), "generate", "--out", str(tmp_path / "generated"))
    assert gen.returncode == 2
    lines = gen.stderr.splitlines()
    assert lines[-2:] == [f"... and {expected - 10} more (not shown)", f"{expected} spec error(s); nothing was written"]
    assert len(lines) == 12
    first = entries["Ascend910B"]
    assert all(line.startswith(f"{specs / 'products.yaml'}:{first}: products[") for line in lines[:10]), lines
    named = {re.search(rf"\({re.escape(str(specs))}/(\w+)\.yaml\)", line) for line in lines[:10]}
    assert len({m.group(1) for m in named if m is not None}) == 10  # ten different ops
    assert not (tmp_path / "generated").exists()


def test_a_reservation_that_leaves_too_little_ub_is_the_spec_s_error(tmp_path: Path) -> None:
    """Where the buffers fit the product's UB and the op's ``ub_reserved_bytes`` takes the rest, the error is
    at the spec's tiling entry and says how much may be reserved, not at the product's (a hardware fact)."""
    specs = tmp_path / "specs"
    specs.mkdir()
    catalogue = (project_paths().specs / "products.yaml").read_text()
    (specs / "products.yaml").write_text(catalogue)
    assert EXP_OF_DEFAULT.count("ub_reserved_bytes: 0\n") == 1
    (specs / "exp_scale_backward.yaml").write_text(
        EXP_OF_DEFAULT.replace("ub_reserved_bytes: 0\n", "ub_reserved_bytes: 196000\n")
    )
    gen = _opgen("--specs", str(specs), "generate", "--out", str(tmp_path / "generated"))
    assert gen.returncode == 2
    errors = gen.stderr.splitlines()[:-1]
    assert errors and all(
        ": tiling.ub_reserved_bytes: ub_reserved_bytes 196000 leaves " in e and "reserve at most " in e for e in errors
    ), gen.stderr
    assert (
        "Ascend910B (196608 bytes of UB) too little for one repeat (64 elements) of every buffer (1792 bytes); "
        "reserve at most 194816 bytes" in gen.stderr
    )
