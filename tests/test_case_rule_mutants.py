"""Faults that review helpers' mutation hunts left alive, each killed by a general case rule (none names an
op): the combined-attribute case (every float attribute away from its default under each code-path value),
the status matrix's every-tensor-in-one-unlisted-dtype case, accepted calls on a constraint's edge,
reduction none with an out of the right count in other dims, every listed aclScalar dtype, a mean of
nothing written over an ``out`` that held 0.5, and the NaN-in-each-input case (min/max/clamp carry NaN).
Each mutant is one exact edit of a copy of the generated op folder, checked through ``opgen check
--generated`` (``--quick``, one product and dtype)."""

from __future__ import annotations

from pathlib import Path

import pytest
from generated_mutant import check_mutant

_NAN_KEEP = """      Compare(mask0, selfLocal, selfLocal, CMPMODE::EQ, nCmp);
      Select(tmp0, mask0, tmp0, selfLocal, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
"""

#: (id, op, generated file kind, anchor, replacement, dtype, text a failed case's name or message shows)
MUTANTS = [
    (
        "elu-negcoef-without-scale",  # isResult's (y + alpha * scale) computed with alpha alone
        "elu_backward",
        "tiling_cpp",
        "tiling.set_scalar2(static_cast<float>((alpha * scale)));",
        "tiling.set_scalar2(static_cast<float>((alpha)));",
        "FLOAT",
        "combined",
    ),
    (
        "threshold-dtype-checks-voided",  # no tensor's dtype is checked: an all-INT32 call reaches the kernel lookup
        "threshold_backward",
        "op_api_cpp",
        "  OP_CHECK_DTYPE_NOT_SUPPORT(gradOutput, GradOutputDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);\n"
        "  OP_CHECK_DTYPE_NOT_SUPPORT(self, SelfDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);\n"
        "  OP_CHECK_DTYPE_NOT_SUPPORT(out, OutDtypeSupportList(), return ACLNN_ERR_PARAM_INVALID);\n",
        "  (void)GradOutputDtypeSupportList();\n  (void)SelfDtypeSupportList();\n  (void)OutDtypeSupportList();\n",
        "FLOAT",
        "every tensor",
    ),
    (
        "bce-empty-mean-never-written",  # the 0-d mean of no element returned without a launch
        "binary_cross_entropy",
        "op_api_cpp",
        "  if (out->IsEmpty()) {",
        "  if (out->IsEmpty() || (self->IsEmpty() && reduction == 1)) {",
        "FLOAT",
        "out holding 0.5",
    ),
    (
        "leaky-constraint-le-for-lt",  # the documented negativeSlope < 0 checked as <= 0: slope 0 refused
        "leaky_relu_backward",
        "op_api_cpp",
        "(negativeSlope < static_cast<double>(int64_t{0}))",
        "(negativeSlope <= static_cast<double>(int64_t{0}))",
        "FLOAT",
        "at the edge of a constraint",
    ),
    (
        "mse-none-out-checked-by-count",  # reduction none: an out of the right count in other dims accepted
        "mse_loss",
        "op_api_cpp",
        "    if (out->GetViewShape() != broadcastShape) {",
        "    if (out->GetViewShape().GetShapeSize() != broadcastShape.GetShapeSize()) {",
        "FLOAT",
        "(none) with out",
    ),
    (
        "threshold-bool-scalar-refused",  # a listed aclScalar dtype (BOOL) refused by the op_api
        "threshold_backward",
        "op_api_cpp",
        "threshold->GetDataType() != op::DataType::DT_UINT8 && threshold->GetDataType() != op::DataType::DT_BOOL) {",
        "threshold->GetDataType() != op::DataType::DT_UINT8) {",
        "FLOAT",
        "as a BOOL aclScalar",
    ),
    (
        "smooth-l1-grad-clamp-drops-nan",  # the clamp's Maxs without the NaN keep: NaN becomes -1
        "smooth_l1_loss_backward",
        "kernel_cpp",
        _NAN_KEEP,
        "",
        "FLOAT",
        "NaN in",
    ),
]


@pytest.mark.parametrize(
    ("ident", "op", "kind", "anchor", "replacement", "dtype", "expect"), MUTANTS, ids=[m[0] for m in MUTANTS]
)
def test_the_case_rule_kills_the_mutant(
    tmp_path: Path, ident: str, op: str, kind: str, anchor: str, replacement: str, dtype: str, expect: str
) -> None:
    failed = check_mutant(tmp_path, op, kind, ((anchor, replacement),), dtype=dtype)
    shown = " ".join(c["name"] + " " + c["message"] for c in failed)
    assert expect in shown, shown[:2000]
