"""The generated API document's ACLNN_ERR_PARAM_NULLPTR row names every pointer the generated phase 1
answers 161001 for: the tensors, and the ``scalar`` (``const aclScalar *``) and ``string`` (``char *``)
attributes, which the L2 API checks with ``OP_CHECK_NULL``."""

from __future__ import annotations

import re

import pytest

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

CATALOGUE, SPECS = load_project(None, None)


def _nullptr_row(snake: str) -> str:
    spec = SPECS[snake]
    doc = (project_paths().generated / spec.folder / op_files(spec)["doc_md"]).read_text()
    (row,) = [line for line in doc.splitlines() if line.startswith("| ACLNN_ERR_PARAM_NULLPTR | 161001 |")]
    return row


@pytest.mark.parametrize(
    ("snake", "row"),
    [
        ("threshold_backward", "A required tensor, the aclScalar threshold, workspaceSize or executor is null."),
        ("gelu_backward_v2", "A required tensor, the string approximate, workspaceSize or executor is null."),
        (
            "hardtanh_backward",
            "A required tensor, the aclScalar min, the aclScalar max, workspaceSize or executor is null.",
        ),
        ("sigmoid_backward", "A required tensor, workspaceSize or executor is null."),
        ("embedding_dense_backward", "grad, indices, out, workspaceSize or executor is null."),
    ],
)
def test_the_nullptr_row_names_the_pointer_attributes(snake: str, row: str) -> None:
    assert _nullptr_row(snake) == f"| ACLNN_ERR_PARAM_NULLPTR | 161001 | {row} |"


@pytest.mark.parametrize("snake", sorted(SPECS))
def test_every_attribute_the_l2_api_null_checks_is_in_the_row(snake: str) -> None:
    spec = SPECS[snake]
    source = (project_paths().generated / spec.folder / op_files(spec)["op_api_cpp"]).read_text()
    checked = set(re.findall(r"OP_CHECK_NULL\((\w+), return ACLNN_ERR_PARAM_NULLPTR\)", source))
    # a char * has no IsNullptr overload: the L2 API checks it itself
    checked |= set(re.findall(r"if \((\w+) == nullptr\) \{\s*OP_LOGE\(ACLNN_ERR_PARAM_NULLPTR,", source))
    attrs = {a.name for a in spec.attrs}
    row = _nullptr_row(snake)
    for name in sorted(checked & attrs):
        assert re.search(rf"the (aclScalar|string|aclIntArray|aclBoolArray) {name}\b", row), (name, row)
    for a in spec.attrs:  # and no attribute the code does not check
        named = re.search(rf"(aclScalar|string|aclIntArray|aclBoolArray) {a.name}\b", row) is not None
        assert named == (a.name in checked), (a.name, row)
