"""The row-reduce L2 API's view entries (``op_api/aclnn_<op>.cpp``): its parameter checks (tensors, dtype
groups and combinations, shapes) and the L2 plan around the L0 call."""

from __future__ import annotations

from typing import Any

from codegen.families.row_reduce.plan.tensors import row_inputs, row_outputs
from codegen.families.row_reduce.plan.view_records import ComboCheck
from codegen.spec.model import OpSpec, Product
from codegen.types import ACLNN_STATUS_CODES


def aclnn_parts(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """The view entries only the L2 API reads (:class:`view_kinds.AclnnSourceView`), by name, for ``spec`` on
    ``products``."""
    return {
        "check_attrs": [a.name for a in spec.attrs] if row_inputs(spec) else [],
        "row_inputs": row_inputs(spec),
        "dtype_combos": [
            ComboCheck(
                archs=tuple(sorted({p.npu_arch for p in products if c.allowed_on(p)})),
                products=", ".join(p.name for p in products if c.allowed_on(p)),
                pairs=tuple((n, d.ge_name) for n, d in c.dtypes),
            )
            for c in spec.dtype_combos
            if any(c.allowed_on(p) for p in products)
        ],
        "dtype_combo_names": [t.name for t in (*spec.inputs, *spec.outputs)],
        "shape_status": ACLNN_STATUS_CODES[spec.shape_status],
        "per_row_outputs": row_outputs(spec),
        "cast_inputs_first": spec.promote_type == "out",
        "out": spec.output_names[0],
        "nullable_outputs": [t.name for t in spec.outputs if t.nullable],
        "null_ok": [t.name for t in (*spec.inputs, *spec.outputs) if t.nullable or t.optional],
    }
