"""The foreach family: one formula applied element by element to every tensor of a tensor list
(``aclTensorList``), as ops-nn's ``foreach/`` APIs (aclnnForeachSqrt). The list's tensors are read as one
stream split over the cores across tensor boundaries (:func:`codegen.plan.tensor_lists.split_list`); see
:mod:`codegen.registry` for the package layout and docs/families.md ("Tensor lists") for the design."""

from codegen.registry import Family

FAMILY = Family(
    name="foreach",
    summary=(
        "one formula element by element over every tensor of a tensor list (aclTensorList), the list split over "
        "the cores across tensor boundaries"
    ),
    device_section=True,
    tensor_lists=True,
)
