"""The select path of the formula language, end to end, on the test op of ``tests/data/select_op``.

``ClampSelectBackward`` (not a CANN API) computes ``where(self <= lo or self >= hi, 0, where(gradOutput <
self, 2 * gradOutput, gradOutput))`` with ``lo``/``hi`` ``const aclScalar *`` attributes: ``Compares`` with a
host scalar, ``Compare`` of two tensors, nested ``Select`` in tensor-tensor mode, aclScalar parameters. The
unmutated op passes ``opgen check``; each mutant of the select path (planted in the generated kernel, as
tests/test_mutations.py does for the seed ops) must fail it: a flipped comparison, ``<`` for ``<=`` (only the
boundary cases derived from the formula's comparisons see it), the branches of a ``Select`` swapped, and a
mask buffer one 32-byte block short (the emulator's UB bounds check).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from generated_mutant import kernel_mutant_results

from codegen.paths import project_paths

pytestmark = pytest.mark.heavy(80)  # about 80 s alone: scheduled before lighter files

OP = "clamp_select_backward"
#: its folder in the generated tree (category/kernel)
FOLDER = "activation/clamp_select_grad"
KERNEL = "op_kernel/clamp_select_grad.cpp"
DATA = Path(__file__).parent / "data" / "select_op"
PRODUCT = "Ascend910B"


@dataclass(frozen=True)
class SelectMutant:
    """A fault on the select path: ``old`` -> ``new`` at every occurrence (``count`` of them) in the kernel."""

    ident: str
    old: str
    new: str
    count: int
    kill: str  # "values" or an emulator rule name in the fault message


SELECT_MUTANTS = (
    SelectMutant(
        "select-flipped-comparison",
        "Compares(mask1, selfLocal, scalar1_, CMPMODE::GE, nCmp);",
        "Compares(mask1, selfLocal, scalar1_, CMPMODE::LE, nCmp);",
        1,
        "values",
    ),
    SelectMutant(
        "select-lt-for-le-at-the-boundary",
        "Compares(mask0, selfLocal, scalar0_, CMPMODE::LE, nCmp);",
        "Compares(mask0, selfLocal, scalar0_, CMPMODE::LT, nCmp);",
        1,
        "values",
    ),
    SelectMutant(
        "select-branches-swapped",
        "Select(outLocal, mask0, const0, tmp0, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);",
        "Select(outLocal, mask0, tmp0, const0, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);",
        1,
        "values",
    ),
    SelectMutant(
        "select-mask-one-block-short",
        "pipe_.InitBuffer(mask0_, static_cast<uint32_t>(tileLength_ / 8));",
        "pipe_.InitBuffer(mask0_, static_cast<uint32_t>(tileLength_ / 8 - 32));",
        2,
        "kernel fault [UB bounds]",
    ),
)


def _opgen(specs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), *args],
        env={**os.environ},
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(specs dir, generated dir) of the test op."""
    root = tmp_path_factory.mktemp("select_op")
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    gen = _opgen(root / "specs", "generate", "--out", str(root / "generated"))
    assert gen.returncode == 0, gen.stderr
    return root / "specs", root / "generated"


def test_the_kernel_uses_the_select_instructions(project: tuple[Path, Path]) -> None:
    _, generated = project
    kernel = (generated / FOLDER / KERNEL).read_text()
    for m in SELECT_MUTANTS:
        assert kernel.count(m.old) == m.count, m.ident
    assert "Compare(mask2, gradOutputLocal, selfLocal, CMPMODE::LT, nCmp);" in kernel
    api = (generated / FOLDER / "op_api/aclnn_clamp_select_backward.h").read_text()
    assert "const aclScalar *lo, const aclScalar *hi" in " ".join(api.split())


def test_unmutated_op_passes_with_boundary_and_scalar_status_cases(project: tuple[Path, Path], tmp_path: Path) -> None:
    specs, generated = project
    report = tmp_path / "check.json"
    proc = _opgen(
        specs, "check", OP, "--quick", "--product", PRODUCT, "--generated", str(generated), "--json", str(report)
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    cases = json.loads(report.read_text())["cases"]
    names = [c["name"] for c in cases]
    assert any(n.startswith("boundary self <= lo at self = -1 ") for n in names)
    assert any(n.startswith("boundary self >= hi at self = 1 ") for n in names)
    status = {c["name"]: c["status"] for c in cases}
    assert status["null lo -> 161001"] == 161001 and status["null hi -> 161001"] == 161001
    assert status["lo of dtype UINT64 -> 161002"] == 161002


@pytest.mark.parametrize("mutant", SELECT_MUTANTS, ids=lambda m: m.ident)
def test_select_path_mutant_is_killed(project: tuple[Path, Path], tmp_path: Path, mutant: SelectMutant) -> None:
    specs, generated = project
    tree = tmp_path / "generated"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / KERNEL
    text = path.read_text()
    assert text.count(mutant.old) == mutant.count, f"{mutant.ident}: anchor not found {mutant.count} times"
    path.write_text(text.replace(mutant.old, mutant.new))
    # `opgen check OP --quick --product PRODUCT --dtype FLOAT --generated tree`, as tests/generated_mutant.py
    # runs a kernel mutant: the kernel compiled at -O0 for the keys the unmutated op launches
    results = kernel_mutant_results(tree, OP, "FLOAT", PRODUCT, base=generated, specs_dir=specs)
    failed = [c for c in results if not c["passed"]]
    assert failed, f"{mutant.ident} SURVIVED"
    if mutant.kill == "values":
        assert any(c["status"] == 0 for c in failed), failed[0]["message"]
    else:
        assert any(mutant.kill in c["message"] for c in failed), failed[0]["message"]
    if mutant.ident == "select-lt-for-le-at-the-boundary":
        # only an input exactly at lo tells LT from LE: the derived boundary cases kill it, and the example
        # program, whose inputs hold lo exactly (its bound decides a tie at an attribute fp32 holds)
        others = [
            c["name"]
            for c in failed
            if c["status"] == 0 and not c["name"].startswith("boundary") and c["name"] != "example program"
        ]
        assert not others, others


def test_every_formula_function_passes_opgen_check(project: tuple[Path, Path], tmp_path: Path) -> None:
    """tanh, erf, log1p, sign, pow (literal and scalar exponent), rsqrt, clamp against a float64 reference,
    FLOAT and FLOAT16, with the boundary cases of the comparisons their lowerings introduce."""
    specs, generated = project
    report = tmp_path / "check.json"
    proc = _opgen(
        specs,
        "check",
        "function_mix_backward",
        "--quick",
        "--product",
        PRODUCT,
        "--generated",
        str(generated),
        "--json",
        str(report),
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    cases = json.loads(report.read_text())["cases"]
    names = {c["name"] for c in cases}
    # log1p(u) lowers to u + 1 == 1 and |u| < 0.5 (sign's x > 0 has the same boundary self = 0, kept once);
    # of u = abs(self), |u| is u itself
    assert any(n.startswith("boundary abs(self) + 1 == 1 at self = 0 ") for n in names), sorted(names)[:20]
    assert any(n.startswith("boundary abs(self) < 0.5 at self = 0.5 ") for n in names)
    kernel = (generated / "activation" / "function_mix_grad" / "op_kernel" / "function_mix_grad.cpp").read_text()
    for instruction in ("Rsqrt(", "Exp(", "Ln(", "Select(", "Compares(", "Reciprocal("):
        assert instruction in kernel, instruction


def test_string_and_bool_attributes_and_a_host_condition_pass_opgen_check(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    """``char *approximate`` (values none/tanh) and ``bool negate`` select whole formulas per call."""
    specs, generated = project
    report = tmp_path / "check.json"
    proc = _opgen(
        specs,
        "check",
        "approx_select_backward",
        "--quick",
        "--product",
        PRODUCT,
        "--generated",
        str(generated),
        "--json",
        str(report),
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    status = {c["name"]: c["status"] for c in json.loads(report.read_text())["cases"]}
    assert status["null approximate -> 161001"] == 161001
    assert status["approximate='none_tanh_x' -> 161002"] == 161002
    assert status["approximate=tanh [4, 33]"] == 0 and status["negate=True [4, 33]"] == 0
    api = " ".join(
        (generated / "activation/approx_select_grad/op_api/aclnn_approx_select_backward.h").read_text().split()
    )
    assert "char *approximate, bool negate, aclTensor *gradInput" in api
