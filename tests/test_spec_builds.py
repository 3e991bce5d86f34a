"""Specs a fresh user wrote that load and must also generate and compile (regressions of specs that used to
pass validation and then fail in the C++ compiler)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from codegen.paths import project_paths

EXP_OF_DEFAULT = """\
op: ExpScaleBackward
op_type: ExpScaleGrad
kernel: exp_scale_grad
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
    tiling = (out / "exp_scale_backward" / "op_host" / "exp_scale_grad_tiling.cpp").read_text()
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
