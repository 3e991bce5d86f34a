"""The row-reduce family: tensors viewed as ``[outer, R, inner]`` around a reduced ``dim``; the compute section
states reductions along ``dim`` (``sum``, ``max``, ``mean``) and elementwise formulas before and after them
(softmax, log-softmax and their backward ops). See :mod:`codegen.registry` for the package layout."""

from codegen.registry import Family

FAMILY = Family(
    name="row_reduce",
    summary="reductions along one dim (sum, max, mean) with elementwise formulas around them; rows split in chunks",
    device_section=True,
    dtype_combos=True,
    dtype_columns=True,
    fixed_inputs=True,
    output_twins=True,
    output_mask=True,
    fill_inputs=True,
    host_inputs=True,
    shape_keys=("rows",),
    several_outputs=True,
    shape_status=True,
    promote_type=True,
)
