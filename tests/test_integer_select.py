"""Integer dtypes in the elementwise family: a formula that only selects among its inputs and integer literals
by comparing inputs with host values (ThresholdBackward's ``where(self <= threshold, 0, gradOutput)``) runs
on the integer elements themselves, and the check tells an inexact integer path from the exact one.

ops-nn's ThresholdGradV2D kernel casts an INT32 ``self`` to fp32 rounding to nearest before its ``<=``: past
2^24 an integer next to the threshold compares as the threshold. Planted in the generated kernel (the
correction by the rounding error dropped), that path must fail ``opgen check``, and only at the boundary
case the integer cases add past 2^24 (every other case passes, so the failure is not an artefact of the
harness). The emulated Cast refuses the conversions no NpuArch has; the rule's spec errors are loader tests.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.families.elementwise.boundary import boundary_values
from codegen.families.elementwise.cases.value_cases import BEYOND_FP32_INTEGERS
from codegen.paths import project_paths
from codegen.spec.errors import SpecError
from codegen.types import DType

FOLDER = "activation/threshold_grad_v2_d"
KERNEL = f"{FOLDER}/op_kernel/threshold_grad_v2_d.cpp"
#: the INT32 compare's correction by the rounding error of x's fp32 value; without it, x rounded to the
#: nearest fp32 is compared as ops-nn's kernel does
EXACT = "Add(widened, widened, restWide, static_cast<int32_t>(n));"
NEAREST = "(void)0;  // planted: no correction"


def test_integer_boundary_values_are_the_integers_around_the_boundary() -> None:
    assert boundary_values(2.5, DType.INT8).tolist() == [0, 1, 2, 3, 4, 5, 0, -128, 127]
    assert boundary_values(254.0, DType.UINT8).tolist() == [252, 253, 254, 255, 0, 0, 255]
    near = boundary_values(float(BEYOND_FP32_INTEGERS), DType.INT32).tolist()[:5]
    assert near == [33554438, 33554439, 33554440, 33554441, 33554442]
    # fp32 holds none of the boundary's neighbours there: a compare after a rounding cast confuses them with it
    assert [int(np.float32(v)) for v in near] == [33554440, 33554440, 33554440, 33554440, 33554440]


@pytest.mark.parametrize(
    ("dst", "src", "refused"),
    [("float", "int8_t", True), ("uint8_t", "float", True), ("half", "int8_t", False), ("float", "int32_t", False)],
)
def test_the_emulated_cast_refuses_8_bit_integers_to_and_from_float(
    tmp_path: Path, dst: str, src: str, refused: bool
) -> None:
    """No NpuArch of the catalogue converts an 8-bit integer to or from float in one Cast (asc-devkit's vconv
    implementations): the emulation refuses it at compile time, as the hardware has no instruction for it."""
    source = tmp_path / "cast.cpp"
    source.write_text(
        '#include "kernel_operator.h"\nusing namespace AscendC;\n'
        f"void F(const LocalTensor<{dst}> &d, const LocalTensor<{src}> &s) {{\n"
        f"  Cast(d, s, RoundMode::{'CAST_RINT' if src == 'float' else 'CAST_NONE'}, 8);\n}}\n"
    )
    include = project_paths().root / "runtime" / "include"
    proc = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", f"-I{include}", str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (proc.returncode != 0) == refused, proc.stderr[-2000:]
    assert ("no int8_t/uint8_t <-> float conversion" in proc.stderr) == refused


def test_the_threshold_kernel_runs_the_integer_dtypes_on_their_elements() -> None:
    kernel = (project_paths().generated / KERNEL).read_text()
    assert kernel.count(EXACT) == 1
    for t in ("int32_t", "int8_t", "uint8_t"):
        assert f"KernelThresholdGradV2D<{t}> op;" in kernel
    # the int32_t elements are selected as their bits: no fp32 value path
    assert "Select(dst.template ReinterpretCast<float>(), mask, src0.template ReinterpretCast<float>()," in kernel


def test_an_integer_dtype_needs_a_select_formula(tmp_path: Path) -> None:
    """A formula computing with its inputs cannot list an integer dtype: the error names what it runs."""
    from codegen.families.elementwise.plan.products import validate
    from codegen.spec.loader import load_catalogue, load_op_spec

    specs = project_paths().specs
    text = (specs / "threshold_backward.yaml").read_text()
    path = tmp_path / "threshold_backward.yaml"
    catalogue = load_catalogue(specs / "products.yaml")
    for formula, problem in (
        ("where(self <= threshold, 0, 2 * gradOutput)", "this one's 16-bit program runs"),
        ("where(self <= threshold, 0.5, gradOutput)", "the literal 0.5 the formula selects is not a value of INT32"),
        ("where(self <= threshold, 300, gradOutput)", "the literal 300 the formula selects is not a value of INT8"),
    ):
        path.write_text(text.replace('"where(self <= threshold, 0, gradOutput)"', f'"{formula}"'))
        with pytest.raises(SpecError) as err:
            validate(load_op_spec(path, catalogue), catalogue)
        assert err.value.field == "inputs[0].dtypes" and problem in str(err.value), str(err.value)


def test_an_uncorrected_nearest_rounding_int32_compare_fails_the_check_past_2_24(tmp_path: Path) -> None:
    tree = tmp_path / "generated"
    shutil.copytree(project_paths().generated / FOLDER, tree / FOLDER)
    kernel = tree / KERNEL
    text = kernel.read_text()
    assert text.count(EXACT) == 1
    kernel.write_text(text.replace(EXACT, NEAREST))
    # `opgen check threshold_backward --quick --product Ascend910B --dtype INT32 --generated tree`, the kernel at
    # -O0 for the keys the unmutated op launches (tests/generated_mutant.py)
    cases = kernel_mutant_results(tree, "threshold_backward", "INT32", "Ascend910B")
    failed = [c["name"] for c in cases if not c["passed"]]
    assert failed == [f"boundary self <= threshold at self = {BEYOND_FP32_INTEGERS} with threshold=3.35544e+07 [4, 33]"]
    assert len(cases) > 50
