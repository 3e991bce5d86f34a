"""A spec's ``device.dtype_columns`` as the generated device op honours them (row_reduce family, through
SoftmaxV2's half_to_float column: x FLOAT16, y FLOAT, half_to_float true).

* InferDataType gives the column's output dtype where the inputs' dtypes and the attrs are the column's, and
  the first input's dtype otherwise (ops-nn's softmax_v2_infershape.cpp: y is FLOAT only for a FLOAT16 x
  with half_to_float).
* The tiling picks the column's key (its position in the OpDef) from the tensors' dtypes.
* The L0 API launches the column when the L2 API passes its attr value: aclnnSoftmax with a FLOAT16 self and
  a FLOAT out is computed without a FLOAT16 rounding of the result.
* A column narrowed to some products is launched only on their NpuArchs: elsewhere the same call runs the
  FLOAT16 column and casts its result (a spec copy whose half_to_float column is Ascend950's only), and the
  check matrix runs the column's dtypes on every product, compared there as the FLOAT16 values they are.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen import registry
from codegen.check.case_run import _narrowed, _Verdict
from codegen.check.cases import Case
from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.catalogue import load_catalogue
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType

PRODUCT = "Ascend950"


@pytest.mark.parametrize(
    ("x", "half_to_float", "y"),
    [
        ("FLOAT16", True, "DT_FLOAT"),
        ("FLOAT16", False, "DT_FLOAT16"),
        ("FLOAT", True, "DT_FLOAT"),
        ("BF16", True, "DT_BF16"),
    ],
)
def test_infer_data_type_follows_the_column_of_the_dtypes_and_attrs(
    built_op: Callable[[str, str], OpCallable], x: str, half_to_float: bool, y: str
) -> None:
    got = built_op("softmax", PRODUCT).run_infershape(
        {"inputs": [{"shape": [4, 33], "dtype": x}], "attrs": {"axes": [-1], "half_to_float": half_to_float}}
    )
    assert got["status"] == 0, got
    assert got["outputs"] == [{"shape": [4, 33], "dtype": y}]


@pytest.mark.parametrize(("x", "y", "key"), [("FLOAT", "FLOAT", 0), ("FLOAT16", "FLOAT16", 1), ("FLOAT16", "FLOAT", 3)])
def test_the_tiling_key_is_the_columns_position(
    built_op: Callable[[str, str], OpCallable], x: str, y: str, key: int
) -> None:
    got = built_op("softmax", PRODUCT).run_tiling(
        {
            "inputs": [{"shape": [4, 33], "dtype": x}],
            "outputs": [{"shape": [4, 33], "dtype": y}],
            "attrs": {"axes": [-1], "half_to_float": x != y},
        }
    )
    assert got["status"] == 0, got
    assert got["tiling_key"] == key


def test_a_float16_self_with_a_float_out_runs_the_column_unrounded(built_op: Callable[[str, str], OpCallable]) -> None:
    """Rows of two elements whose softmax is not a FLOAT16 value: the result is the fp32 value (a FLOAT16
    result cast to FLOAT would be the FLOAT16 rounding). exp(1) / (exp(0) + exp(1)) = 0.7310585786300049."""
    x = np.array([[0.0, 1.0], [1.0, 0.0]], np.float16)
    got = built_op("softmax", PRODUCT)(self=x, dim=1, out=np.zeros((2, 2), np.float32))
    want = np.array([[0.2689414213699951, 0.7310585786300049], [0.7310585786300049, 0.2689414213699951]])
    assert got.dtype == np.float32
    assert np.max(np.abs(got - want)) < 2e-7
    assert np.max(np.abs(want.astype(np.float16) - want)) > 1e-4  # the FLOAT16 rounding is 1e-4 away


#: exp(0) / (exp(0) + exp(1)) and exp(1) / (exp(0) + exp(1)) for rows [0, 1] and [1, 0]
_ROWS = np.array([[0.0, 1.0], [1.0, 0.0]], np.float16)
_SOFTMAX = np.array([[0.2689414213699951, 0.7310585786300049], [0.7310585786300049, 0.2689414213699951]])


_COLUMN = "{x: FLOAT16, y: FLOAT, half_to_float: true}"


def _narrowed_softmax(root: Path) -> Path:
    """A specs folder under ``root`` holding the catalogue and softmax with its half_to_float column narrowed
    to Ascend950; returns the folder."""
    project = project_paths().specs
    text = (project / "softmax.yaml").read_text()
    assert _COLUMN in text
    specs = root / "specs"
    specs.mkdir()
    (specs / "softmax.yaml").write_text(text.replace(_COLUMN, _COLUMN[:-1] + ", products: [Ascend950]}"))
    shutil.copy(project / "products.yaml", specs / "products.yaml")
    return specs


def test_the_matrix_runs_a_narrowed_columns_dtypes_on_every_product(tmp_path: Path) -> None:
    """The self FLOAT16 / out FLOAT cases run on Ascend910B (no such column: its out is the FLOAT16 result
    cast, so compared as FLOAT16) as on Ascend950 (the column: compared as FLOAT)."""
    specs = _narrowed_softmax(tmp_path)
    catalogue = load_catalogue(specs / "products.yaml")
    spec = load_op_spec(specs / "softmax.yaml", catalogue)
    for product, rounded in (("Ascend910B", {"out": "FLOAT16"}), ("Ascend950", {})):
        cases = registry.family(spec.family).check_cases(spec, catalogue.get(product), [DType.FLOAT16], True)
        mixed = [c for c in cases if "[self FLOAT16, out FLOAT]" in c.name]
        assert [c.name for c in mixed] == [
            "rows of 10 [self FLOAT16, out FLOAT] (dim 1)",
            "R one above the UB limit (chunked) [self FLOAT16, out FLOAT] (dim -1)",
            "inner 5 (non-last dim) [self FLOAT16, out FLOAT] (dim 1)",
        ], product
        assert all(c.params["out"].dtype == np.float32 and c.rounded_to == rounded for c in mixed), product


def test_an_output_rounded_to_float16_must_hold_float16_values() -> None:
    """A FLOAT output the L2 API computes in FLOAT16 is compared as FLOAT16; a value FLOAT16 cannot hold
    (0.1 in fp32) fails the case."""
    spec = load_op_spec(project_paths().specs / "softmax.yaml", load_catalogue(project_paths().specs / "products.yaml"))
    case = Case("softmax", "Ascend910B", "FLOAT16", "[2]", "c", {}, rounded_to={"out": "FLOAT16"})
    (got,) = _narrowed(spec, case, (np.array([0.25, 0.5], np.float32),))
    assert got is not None and got.dtype == np.float16 and got.tolist() == [0.25, 0.5]
    with pytest.raises(_Verdict, match=r"out at \(1,\) is .*, not a FLOAT16 value"):
        _narrowed(spec, case, (np.array([0.25, 0.1], np.float32),))


@pytest.mark.heavy(30)  # one generation of the spec copy and two builds
def test_a_narrowed_column_runs_only_on_its_npu_arch_and_the_fallback_elsewhere(tmp_path: Path) -> None:
    """softmax's half_to_float column narrowed to Ascend950 (NpuArch 3510): a FLOAT16 self with a FLOAT out
    gives the fp32 softmax there, and on Ascend910B (2201, no such column) the FLOAT16 column's result cast
    to FLOAT (each value a FLOAT16 one, within FLOAT16 rounding of the softmax) instead of status 561103."""
    specs = _narrowed_softmax(tmp_path)
    gen = tmp_path / "gen"
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "softmax", "--out", str(gen)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)

    on = compile_op("softmax", "Ascend950", generated=gen, specs_dir=specs)
    got = on(self=_ROWS, dim=1, out=np.zeros((2, 2), np.float32))
    assert got.dtype == np.float32
    assert np.max(np.abs(got - _SOFTMAX)) < 2e-7

    off = compile_op("softmax", "Ascend910B", generated=gen, specs_dir=specs)
    got = off(self=_ROWS, dim=1, out=np.zeros((2, 2), np.float32))
    assert got.dtype == np.float32
    assert np.array_equal(got.astype(np.float16).astype(np.float32), got)  # a FLOAT16 result, cast
    assert np.max(np.abs(got - _SOFTMAX)) < 2.5e-4  # FLOAT16 rounding of values below 1: at most 2**-12
    assert np.max(np.abs(got - _SOFTMAX)) > 1e-5  # not the fp32 value
