"""The row-reduce L2 API's view entries (``op_api/aclnn_<op>.cpp``): its parameter checks (tensors, dtype
groups and combinations, shapes) and the L2 plan around the L0 call."""

from __future__ import annotations

from typing import Any

from codegen.families.row_reduce.plan.tensors import (
    callable_combos,
    column_outputs,
    combos,
    compute_of,
    per_row_inputs,
    row_inputs,
    row_outputs,
)
from codegen.families.row_reduce.plan.view_records import ComboCheck
from codegen.spec.model import DtypeCombo, OpSpec, Product, fixed_input_dtype, fixed_inputs
from codegen.types import ACLNN_STATUS_CODES


def aclnn_parts(spec: OpSpec, products: list[Product], host_inputs: tuple[str, ...] = ()) -> dict[str, Any]:
    """The view entries only the L2 API reads (:class:`view_kinds.AclnnSourceView`), by name, for ``spec`` (the
    device op's view, :meth:`OpSpec.launched`) on ``products``; ``host_inputs`` the optional aclnn inputs it
    left out: checked (any of their dtypes; of the rows' shape when given) and never launched."""
    checks, names = _combo_checks(spec, products)
    return {
        # the attrs CheckParams takes but does not check (every one in the rows form; all but dim in the dim form)
        "check_attrs": [a.name for a in spec.attrs if row_inputs(spec) or a.name != compute_of(spec).dim],
        "row_inputs": [*row_inputs(spec), *(host_inputs if row_inputs(spec) else ())],
        "host_inputs": host_inputs,
        "dtype_combos": checks,
        "dtype_combo_names": names,
        "shape_status": ACLNN_STATUS_CODES[spec.shape_status],
        "per_row_outputs": row_outputs(spec),
        "column_outputs": column_outputs(spec),
        "per_row_inputs": per_row_inputs(spec),
        "cast_inputs_first": spec.promote_type == "out",
        "out": spec.output_names[0],
        "nullable_outputs": [t.name for t in spec.outputs if t.nullable],
        "null_ok": [t.name for t in (*spec.inputs, *spec.outputs) if t.nullable or t.optional] + list(host_inputs),
        "fixed_inputs": tuple(_fixed_inputs(spec).items()),
        "output_mask": compute_of(spec).output_mask,
        "output_names": tuple(spec.output_names),
        # an optional input the device op takes as REQUIRED: the L2 API passes a tensor of its default for a null one
        "filled_inputs": tuple(
            (d.source, f"{float(spec.tensor(d.source).default or 0.0)!r}f")
            for d in spec.device_interface.inputs
            if d.fill and d.source
        ),
    }


def _fixed_inputs(spec: OpSpec) -> dict[str, str]:
    """The inputs of one dtype in every device dtype column (:func:`codegen.spec.model.fixed_inputs`), each
    with that dtype's ``DT_*`` name: the L2 API casts the caller's tensor to it before the launch."""
    columns = spec.device_interface.launched_columns
    fixed = fixed_inputs(columns, spec.inputs)
    return {n: fixed_input_dtype(columns, n).ge_name for n in spec.input_names if n in fixed}


def _combo_checks(spec: OpSpec, products: list[Product]) -> tuple[list[ComboCheck], list[str]]:
    """The dtype combinations the L2 API accepts, each with the NpuArchs taking it, and the tensors they name:
    the spec's ``dtype_combos`` (every tensor); else, where ``device.dtype_columns`` give the inputs different
    dtypes (a FLOAT weight beside a FLOAT16 x), the columns' input dtypes a call on a product may have
    (:func:`tensors.callable_combos`; outputs are cast to the caller's dtypes); else none (one dtype for the
    inputs)."""
    if spec.dtype_combos:
        names = [t.name for t in (*spec.inputs, *spec.outputs)]
        allowed = {c: [p for p in products if c.allowed_on(p)] for c in spec.dtype_combos}
    elif any(len({c.dtype(n) for n in spec.input_names}) > 1 for c in combos(spec)):
        # an input of one dtype in every column is cast to it: the caller's may have any of its dtypes
        names = [n for n in spec.input_names if n not in _fixed_inputs(spec)]
        allowed = {}
        for c in combos(spec):
            key = DtypeCombo(tuple((n, c.dtype(n)) for n in names), c.products)
            on = [p for p in products if c in callable_combos(spec, p)]
            same = next((k for k in allowed if k.dtypes == key.dtypes), None)
            if same is None:
                allowed[key] = on
            else:
                allowed[same] += [p for p in on if p not in allowed[same]]
    else:
        return [], [t.name for t in (*spec.inputs, *spec.outputs)]
    checks = [
        ComboCheck(
            archs=tuple(sorted({p.npu_arch for p in on})),
            products=", ".join(p.name for p in products if p in on),
            pairs=tuple((n, d.ge_name) for n, d in c.dtypes),
        )
        for c, on in allowed.items()
        if on
    ]
    return checks, names
