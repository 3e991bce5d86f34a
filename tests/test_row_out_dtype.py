"""The out dtype rule of the row_reduce ops, as CANN has it: ``out`` may take any dtype of its list on the
product, also one other than the input's. Softmax and the two backward ops run the device op in the inputs'
dtype and cast its result to out's (hicann/ops-nn activation/softmax_v2/op_api/aclnn_softmax.cpp checks
``out`` against the dtype support list only and ends with ``l0op::Cast(op_out, out->GetDataType())``;
docs/aclnnSoftmax.md lists no same-dtype rule; aclnn_softmax_backward.cpp and aclnn_logsoftmax_backward.cpp
do the same, requiring one dtype of their two inputs). LogSoftmax instead casts self to out's dtype before
the device op (activation/log_softmax_v2/op_api/aclnn_log_softmax.cpp; the spec's ``promote_type: out``).
The generated check, the generated doc and the case matrix must all say so."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest

from codegen import registry
from codegen.paths import project_paths
from codegen.runner import AclnnError, OpCallable
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()


def _softmax64(x: np.ndarray) -> np.ndarray:
    v = x.astype(np.float64)
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_float16_out_of_a_float_softmax_gets_the_result_cast(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op("softmax", "Ascend910B")
    x = np.random.default_rng(5).standard_normal((5, 37)).astype(np.float32)
    got = np.asarray(fn(self=x, dim=-1, out=np.zeros((5, 37), np.float16)))
    assert got.dtype == np.float16
    # computed in fp32 (a few 2**-24 relative), rounded once to fp16: within half an fp16 ULP and a bit
    np.testing.assert_allclose(got.astype(np.float64), _softmax64(x), rtol=2.0**-11 + 2.0**-18, atol=0)


@pytest.mark.parametrize(
    ("product", "out_dtype"),
    # not a float dtype; BF16 on a product without it
    [("Ascend910B", np.dtype(np.int32)), ("Ascend910", np.dtype(ml_dtypes.bfloat16))],
)
def test_an_out_dtype_outside_the_products_list_is_161002(
    built_op: Callable[[str, str], OpCallable], product: str, out_dtype: np.dtype
) -> None:
    fn = built_op("softmax", product)
    x = np.ones((4, 8), np.float32)
    with pytest.raises(AclnnError) as err:
        fn(self=x, dim=-1, out=np.zeros((4, 8), out_dtype))
    assert err.value.status == 161002


def _doc(op: str) -> str:
    return (project_paths().root / "generated" / SPECS[op].folder / "docs" / f"{SPECS[op].aclnn_name}.md").read_text()


def test_the_generated_docs_state_the_cast_rule_not_a_same_dtype_rule() -> None:
    softmax = _doc("softmax")
    assert "different dtypes" not in softmax
    assert "same shape and dtype" not in softmax
    assert (
        "- All tensors have the same shape; out may take any of its listed dtypes, not only self's: the result, "
        "computed in self's dtype, is cast to it; `dim` is in [-rank, rank)."
    ) in softmax.splitlines()
    backward = _doc("softmax_backward")
    assert (
        "| ACLNN_ERR_PARAM_INVALID | 161002 | A dtype not supported on this product or gradOutput and output of "
        "different dtypes; a rank above 8;"
    ) in backward
    assert (
        "- All tensors have the same shape; the inputs have one dtype; out may take any of its listed "
        "dtypes, not only gradOutput's: the result, computed in gradOutput's dtype, is cast to it;"
    ) in backward


def test_the_case_matrix_covers_the_out_dtype_rule() -> None:
    family = registry.family("row_reduce")
    cases = family.check_cases(SPECS["softmax"], CATALOGUE.get("Ascend910"), [DType.FLOAT], True)
    cast = [
        c
        for c in cases
        if c.expect_status is None and "out" in c.params and c.params["out"].dtype != c.params["self"].dtype
    ]
    assert [(c.params["self"].dtype, c.params["out"].dtype) for c in cast] == [
        (np.dtype(np.float32), np.dtype(np.float16))
    ]
    status = {c.name: c.expect_status for c in cases if c.expect_status is not None}
    assert status["int32 out -> 161002"] == 161002
    assert status["out BF16 (not on Ascend910) -> 161002"] == 161002
    backward = family.check_cases(SPECS["softmax_backward"], CATALOGUE.get("Ascend910B"), [DType.FLOAT], True)
    differ = [
        c
        for c in backward
        if c.name.endswith("-> 161002")
        and c.params.get("gradOutput") is not None
        and c.params.get("output") is not None
        and np.asarray(c.params["gradOutput"]).dtype.kind == "f"
        and np.asarray(c.params["gradOutput"]).dtype != np.asarray(c.params["output"]).dtype
    ]
    assert len(differ) == 1 and differ[0].expect_status == 161002, [c.name for c in differ]
