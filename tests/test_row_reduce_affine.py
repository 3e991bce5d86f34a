"""The row_reduce family's ``rows`` form with several inputs broadcast over the rows, end to end, on the test op
of ``tests/data/rows_affine_op``.

``AffineRowNorm`` (not a CANN API) computes ``y = (x - mean(x)) / sqrt(var(x) + epsilon) * weight + bias``
over the trailing dims the int_array ``normalizedShape`` gives (``compute.rows: [normalizedShape, weight,
bias]``; the device op gets it as an INT32 input made with ``ConvertToTensor``, whose length the tiling
reads): two row-shaped inputs read by every row, the variance a second reduction over the centred values;
weight and bias are optional (``default: 1`` and ``0``): a null bias is an absent OPTIONAL device input the
kernel reads as its default, a null weight (the device input says ``fill: true``, REQUIRED in the OpDef, as
LayerNormGradV3's gamma) a tensor of ones the L2 API makes (``AllocHostTensor`` and ``l0op::BroadcastTo``); the
per-row ``meanOut`` is FLOAT on the device for every x dtype (device dtype columns: FLOAT16 x with FLOAT16 or
FLOAT weight and bias), cast by the L2 API to the caller's tensor. The
unmutated op passes ``opgen check`` on Ascend910B in FLOAT and FLOAT16 (its cases include normalizedShape
not the trailing dims and bias of another shape: 161002, and calls with a null weight and bias); a kernel that
reads bias as a tensor of x's shape instead of one row must fail it, so must one that reads a null bias
from GM instead of its default (the emulator faults: the tensor has no GM buffer), an L2 API filling a null
weight with zeros, and a tiling that takes one reduced dim whatever normalizedShape's length.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.paths import project_paths
from codegen.runner import AclnnError, compile_op
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(30)  # about 20 s alone: the builds of the test op and its mutants

OP = "affine_row_norm"
FOLDER = "norm/affine_row_norm"
KERNEL = "op_kernel/affine_row_norm.cpp"
DATA = Path(__file__).parent / "data" / "rows_affine_op"
SPEC_TEXT = (DATA / "specs" / f"{OP}.yaml").read_text()
CATALOGUE, _ = load_project()


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
    root = tmp_path_factory.mktemp("rows_affine_op")
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    gen = _opgen(root / "specs", "generate", "--out", str(root / "generated"))
    assert gen.returncode == 0, gen.stderr
    return root / "specs", root / "generated"


def _check(specs: Path, generated: Path, report: Path, case: str = "") -> tuple[int, list[dict[str, object]]]:
    only = ("--case", case) if case else ()
    proc = _opgen(
        specs,
        "check",
        OP,
        "--quick",
        "--product",
        "Ascend910B",
        "--generated",
        str(generated),
        "--json",
        str(report),
        *only,
    )
    return proc.returncode, json.loads(report.read_text())["cases"]


def test_two_row_inputs_pass_the_check_and_a_kernel_reading_bias_per_row_fails(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    specs, generated = project
    kernel = (generated / FOLDER / KERNEL).read_text()
    assert "constexpr bool ROW_IN[NUM_IN] = {false, true, true};" in kernel
    l2 = (generated / FOLDER / "op_api/aclnn_affine_row_norm.cpp").read_text()
    assert "if (bias != nullptr && bias->GetViewShape() != rowShape) {" in l2
    l0 = (generated / FOLDER / "op_api/affine_row_norm.cpp").read_text()  # as ops-nn's l0op::LayerNormV4
    assert "executor->ConvertToTensor(normalizedShape, op::DataType::DT_INT32);" in l0
    code, cases = _check(specs, generated, tmp_path / "check.json")
    assert code == 0, [c for c in cases if not c["passed"]][:3]
    status = {c["name"]: c["status"] for c in cases}
    for name in (
        "bias not of normalizedShape's shape",
        "normalizedShape not the last dim",
        "normalizedShape holding 0",
    ):
        assert status[f"{name} -> 161002"] == 161002
    assert status["null bias: rows of 33"] == 0
    assert status["null weight, bias: rank 4"] == 0
    assert any(str(c["name"]).startswith("row of 2 dims (normalizedShape of 2 dim(s))") for c in cases)
    assert any("FLOAT16" in str(c["dtype"]) and c["status"] == 0 for c in cases)
    # the mutant: bias is a tile input (x's shape), not one row every row reads
    cases = _mutant_check(specs, generated, tmp_path, "{false, true, true};", "{false, true, false};")
    assert any(not c["passed"] and c["status"] == 0 for c in cases)


def _mutant_check(
    specs: Path, generated: Path, tmp_path: Path, old: str, new: str, file: str = KERNEL, case: str = ""
) -> list[dict[str, object]]:
    """Every result of `opgen check OP --quick --product Ascend910B --generated <mutant>` on a copy of the tree
    with ``old`` -> ``new`` in ``file``: a kernel mutant runs in-process with the kernel at -O0 for the launched
    keys (tests/generated_mutant.py); a host-file mutant through the command (``case``: its --case filter), whose
    exit status must be 1."""
    tree = tmp_path / "mutant"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / file
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))
    if file == KERNEL and not case:
        return kernel_mutant_results(tree, OP, None, "Ascend910B", base=generated, specs_dir=specs)
    code, cases = _check(specs, tree, tmp_path / "mutant.json", case)
    assert code == 1
    return cases


def test_a_null_optional_row_input_is_read_as_its_default_never_from_gm(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    specs, generated = project
    kernel = (generated / FOLDER / KERNEL).read_text()
    # bias's default 0; the weight the L2 API fills (REQUIRED on the device) is never absent: no default of its own
    assert "constexpr float IN_DEFAULT[NUM_IN] = {0.0f, 0.0f, 0.0f};" in kernel
    assert "if (Absent(2))" in kernel and "if (Absent(1))" not in kernel
    tiling = (generated / FOLDER / "op_host/affine_row_norm_tiling.cpp").read_text()
    assert "if (context->GetOptionalInputShape(3) == nullptr) {" in tiling  # bias, device input 3
    l2 = (generated / FOLDER / "op_api/aclnn_affine_row_norm.cpp").read_text()
    assert "const aclTensor *biasContiguous = nullptr;" in l2
    # the unmutated op's null-input calls pass (the first test's check); the mutant reads them from GM
    cases = _mutant_check(
        specs, generated, tmp_path, "if (Absent(i)) {  // passed as null", "if (false) {  // passed as null"
    )
    failed = [str(c["name"]) + " " + str(c["message"]) for c in cases if not c["passed"]]
    assert failed and all(f.startswith("null ") and "GM bounds" in f for f in failed), failed[:3]
    # a null weight is a tensor of ones the L2 API made (REQUIRED on the device): read from GM, as it should be
    assert any(f.startswith("null bias:") for f in failed) and not any(f.startswith("null weight:") for f in failed)


def test_a_null_weight_the_device_op_requires_is_filled_with_its_default_by_the_l2_api(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    specs, generated = project
    opdef = (generated / FOLDER / "op_host/affine_row_norm_def.cpp").read_text()
    assert 'this->Input("weight")\n        .ParamType(REQUIRED)' in opdef
    assert 'this->Input("bias")\n        .ParamType(OPTIONAL)' in opdef
    tiling = (generated / FOLDER / "op_host/affine_row_norm_tiling.cpp").read_text()
    assert "GetOptionalInputShape(2)" not in tiling  # weight (device input 2) is never absent
    # the mutant fills a null weight with zeros
    cases = _mutant_check(
        specs,
        generated,
        tmp_path,
        "const float weightDefault = 1.0f;",
        "const float weightDefault = 0.0f;",
        "op_api/aclnn_affine_row_norm.cpp",
        "*/null weight*",
    )
    failed = {str(c["name"]) for c in cases if not c["passed"]}
    assert {"null weight: rows of 33", "null weight, bias: rank 4"} <= failed, failed


def test_the_row_rank_comes_from_the_int_arrays_tensor(project: tuple[Path, Path], tmp_path: Path) -> None:
    specs, generated = project
    # the mutant tiling reduces one trailing dim whatever normalizedShape's length
    tree = tmp_path / "mutant"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / "op_host/affine_row_norm_tiling.cpp"
    old = "const int64_t rowRank = rowShape.GetDimNum() == 1 ? rowShape.GetDim(0) : -1;"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, "const int64_t rowRank = rowShape.GetDimNum() == 1 ? 1 : -1;"))
    code, cases = _check(specs, tree, tmp_path / "mutant.json")
    assert code == 1
    failed = [str(c["name"]) for c in cases if not c["passed"]]
    assert any("normalizedShape of 2 dim(s)" in f for f in failed), failed[:5]
    assert not any("normalizedShape of 1 dim(s)" in f for f in failed), failed[:5]


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ("  rows: [weight, weight]\n", "'weight' is named twice in rows"),
        ("  rows: [weight, x]\n", "'x' is not an input after the first"),
        ("  rows: []\n", "rows is an empty list"),
        ("  rows: [bias, weight]\n", "input 'bias' is optional; in the row_reduce family only an input"),
        ("  rows: [weight, normalizedShape]\n", "'normalizedShape' is not an input after the first"),
    ],
)
def test_a_bad_rows_list_names_the_line(tmp_path: Path, new: str, message: str) -> None:
    _assert_spec_error(tmp_path, "  rows: [normalizedShape, weight, bias]\n", new, message)


def test_fill_needs_an_optional_input_with_a_default(tmp_path: Path) -> None:
    _assert_spec_error(
        tmp_path,
        "    - {name: x, from: x}\n",
        "    - {name: x, from: x, fill: true}\n",
        "fill: true needs an optional aclnn input with a default; 'x' is required",
    )


def test_an_optional_row_input_needs_a_default(tmp_path: Path) -> None:
    _assert_spec_error(tmp_path, "    default: 0\n", "", "inputs[2].default: optional input 'bias' needs a default")


def _assert_spec_error(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert SPEC_TEXT.count(old) == 1
    path = tmp_path / f"{OP}.yaml"
    path.write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text and f"{OP}.yaml:" in text, text


def test_a_float_device_output_beside_a_float16_input_is_cast_to_the_callers_dtype(
    project: tuple[Path, Path],
) -> None:
    specs, generated = project
    l0 = (generated / FOLDER / "op_api/affine_row_norm.cpp").read_text()
    assert "executor->AllocTensor(meanResultShape, op::DataType::DT_FLOAT)" in l0
    l2 = (generated / FOLDER / "op_api/aclnn_affine_row_norm.cpp").read_text()
    assert "bool DtypeComboSupported(op::DataType xDtype, op::DataType weightDtype, op::DataType biasDtype)" in l2
    fn = compile_op(OP, "Ascend910B", generated=generated, specs_dir=specs)
    # rows [1, 2, 3, 6] and [-1, 1, -1, 1]: means 3 and 0, variances 3.5 and 1; FLOAT weight and bias with a
    # FLOAT16 x (a column of its own), meanOut FLOAT16 (the device's FLOAT mean cast) and FLOAT (none)
    x = np.array([[1, 2, 3, 6], [-1, 1, -1, 1]], np.float16)
    w = np.array([1, 2, 1, 0.5], np.float32)
    b = np.array([0, 0, 1, 0], np.float32)
    r0, r1 = 1 / np.sqrt(3.5 + float(np.float32(1e-5))), 1 / np.sqrt(1 + float(np.float32(1e-5)))
    want_y = np.array([[-2 * r0, -2 * r0, 1, 1.5 * r0], [-r1, 2 * r1, 1 - r1, 0.5 * r1]])
    for mean_dt in (np.float16, np.float32):
        y, mean = fn(x=x, normalizedShape=(4,), weight=w, bias=b, meanOut=np.zeros((2, 1), mean_dt), epsilon=1e-5)
        assert mean.dtype == mean_dt and mean.tolist() == [[3.0], [0.0]]
        assert y.dtype == np.float16
        np.testing.assert_allclose(y.astype(np.float64), want_y, rtol=2e-3, atol=1e-3)
    # no row (M = 0): empty outputs, nothing launched
    y, mean = fn(x=np.zeros((0, 3, 4), np.float16), normalizedShape=(3, 4), weight=np.ones((3, 4), np.float32))
    assert (y.shape, mean.shape, fn.last_stats["launches"]) == ((0, 3, 4), (0, 1, 1), [])
    with pytest.raises(AclnnError) as err:  # FLOAT16 weight with a FLOAT bias: no column has them
        fn(x=x, normalizedShape=(4,), weight=w.astype(np.float16), bias=b)
    assert err.value.status == 161002


def test_a_device_input_carrying_an_int_array_needs_its_dtype(tmp_path: Path) -> None:
    old = "    - {name: normalized_shape, from: normalizedShape, dtype: INT32}\n"
    _assert_spec_error(tmp_path, old, old.replace(", dtype: INT32", ""), "needs 'dtype' (INT32 or INT64")
    _assert_spec_error(tmp_path, old, old.replace("INT32", "FLOAT"), "is INT32 or INT64, not FLOAT")
