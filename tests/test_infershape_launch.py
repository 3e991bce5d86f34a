"""Every AICore launch is held to the op's registered InferShape and InferDataType (runtime/src/host/
launcher.cpp): in graph mode those functions decide the output tensors the kernel writes, so an InferShape
that disagrees with the L0 API's outputs must fail ``opgen check`` although the aclnn call itself would
compute the right values. Found by a review helper's mutant: RmsNorm's rstd inferred with an off-by-one
(one reduced dim left at its size) passed every case."""

from __future__ import annotations

from pathlib import Path

import pytest
from generated_mutant import check_mutant

#: (op, anchor, replacement, a dtype it runs in): faults of the generated InferShape only.
MUTANTS = [
    (
        "rms_norm",
        "for (size_t i = xShape->GetDimNum() - rowShape->GetDimNum(); i < xShape->GetDimNum(); ++i) {",
        "for (size_t i = xShape->GetDimNum() - rowShape->GetDimNum() + 1; i < xShape->GetDimNum(); ++i) {",
    ),
    ("mse_loss", "    outShape->SetDimNum(0);", "    outShape->SetDimNum(1);\n    outShape->SetDim(0, 1);"),
    # a tensor list (DYNAMIC input and output): output instance i inferred from input instance 0
    ("foreach_sqrt", "context->GetDynamicInputShape(0, i);", "context->GetDynamicInputShape(0, 0);"),
]


@pytest.mark.parametrize(("op", "anchor", "replacement"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_an_infershape_that_disagrees_with_the_launch_fails_the_check(
    tmp_path: Path, op: str, anchor: str, replacement: str
) -> None:
    failed = check_mutant(tmp_path, op, "infershape_cpp", ((anchor, replacement),))
    assert any("the registered InferShape/InferDataType give" in c["message"] for c in failed), failed[0]["message"]
