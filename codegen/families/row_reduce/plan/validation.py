"""Plan-time validation of a row-reduce spec: device carriers of inputs and the dim, dtype lists and
combinations, products that share an NpuArch, output shape rules, and that one chunk fits UB."""

from __future__ import annotations

from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, device_rows, row_outputs
from codegen.families.row_reduce.plan.tiling import CHUNK_ALIGN, tiling_decision
from codegen.plan.products import spec_products
from codegen.spec.errors import SpecError
from codegen.spec.model import Catalogue, DType, OpSpec


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation: the spec is of this family, every device input carries an aclnn input, the
    reduced dim reaches the device as an ``int`` or ``list_int`` attr, its inputs and outputs share the dtype
    list, at most 10 dtypes.

    Raises:
        TypeError: not of this family.
        ValueError: a device input without source, a dim not carried by an int/list_int device attr,
            tensors with different dtype lists or more than 10 dtypes.
        SpecError: a dtype combination or device column with a tensor of neither the first input's dtype nor
            FLOAT, an output whose dtype varies other than with the first input (at the combination's line;
            with device columns the L0 API allocates each output in its column's dtype), an output whose
            shape rule gives another shape than the kernel writes (at the output's line): faults the same on
            every product, so reported once.
    """
    spec = spec.launched()  # the device op's inputs: a host input is checked by the L2 API only
    comp = compute_of(spec)
    dev = spec.device_interface
    for carrier in dev.inputs:
        if carrier.source is None:
            raise ValueError(
                f"{spec.op}: device input '{carrier.name}' has no aclnn source; a row-reduce kernel reads every input"
            )
    for da in dev.attrs:
        if da.source is not None and spec.attr(da.source).type in ("float", "double") and da.type != "float":
            raise ValueError(f"{spec.op}: the float attr '{da.source}' must reach the device as a float device attr")
    carriers = [a for a in dev.attrs if a.source == comp.dim]
    if comp.rows_attr and not device_rows(spec):
        raise ValueError(
            f"{spec.op}: the int_array attr '{comp.rows_attr}' giving the reduced dims must reach the device as "
            f"an input ({{name, from: {comp.rows_attr}, dtype: INT32}}), or the first input broadcast over the "
            "rows be a fill: true device input: the tiling reads the row's rank from it"
        )
    if comp.rows:
        if comp.dim:
            raise ValueError(f"{spec.op}: give dim or rows, not both")
    elif not carriers or carriers[0].type not in ("int", "list_int"):
        raise ValueError(
            f"{spec.op}: the reduced dim '{comp.dim}' must reach the device as an int or list_int device attr"
        )
    first = spec.inputs[0].dtypes
    if not spec.dtype_combos:
        for t in (*spec.inputs, *spec.outputs):
            if t.dtypes != first:
                raise ValueError(
                    f"{spec.op}: every tensor of a row-reduce op takes the same dtypes unless the spec lists "
                    f"dtype_combos; '{t.name}' differs"
                )
    first_name = spec.inputs[0].name
    listed = "dtype_combos" if spec.dtype_combos else "device.dtype_columns" if dev.columns else ""
    positions = [col.combo for col in dev.columns]  # a launched column's entry among every listed column
    for k, c in enumerate(combos(spec)):
        i = positions.index(c) if dev.columns else k
        for n, d in c.dtypes:
            if d is not c.dtype(first_name) and d is not DType.FLOAT:
                # a spec fault, the same on every product: at the combination's line, reported once
                raise SpecError(
                    c.loc if listed else spec.loc,
                    f"{listed}[{i}].{n}" if listed else "inputs",
                    f"in the dtype combination ({c.text}) '{n}' is {d.name}; a row-reduce tensor has the dtype "
                    f"of '{first_name}' or FLOAT",
                )
    for j, t in enumerate(spec.outputs if not dev.columns else ()):  # columns: the L0 API picks the column's
        if len({c.dtype(t.name) for c in combos(spec)}) > 1 and any(
            c.dtype(t.name) is not c.dtype(first_name) for c in combos(spec)
        ):
            raise SpecError(
                spec.dtype_combos[0].loc if spec.dtype_combos else t.loc,
                "dtype_combos" if spec.dtype_combos else f"outputs[{j}].dtypes",
                f"output '{t.name}' has the dtype of '{first_name}' in every dtype combination or one fixed dtype "
                "in all of them (the L0 API allocates it so)",
            )
    prods = spec_products(spec, catalogue)
    for c in spec.dtype_combos:
        for p in prods:
            twins = [q for q in prods if q.npu_arch == p.npu_arch and c.allowed_on(q) != c.allowed_on(p)]
            if twins:
                yes, no = (p, twins[0]) if c.allowed_on(p) else (twins[0], p)
                raise ValueError(
                    f"{spec.op}: the dtype combination ({c.text}) is allowed on {yes.name} but not on {no.name}, "
                    f"which shares its NpuArch {p.npu_arch}; the generated check selects products by NpuArch"
                )
    if len(combos(spec)) > 10:
        raise ValueError(f"{spec.op}: at most 10 dtype combinations fit the tiling key")
    _validate_output_shapes(spec)
    for p in spec_products(spec, catalogue):
        for c in combos(spec):
            if c.allowed_on(p):
                # one 64-element chunk of a last-dim row and one 16-wide line of a strided row must fit, and a
                # row of one chunk (it cannot be cut, and whole it keeps its subformulas)
                tiling_decision(spec, p, (1, 10**9), -1, c)
                tiling_decision(spec, p, (1, CHUNK_ALIGN), -1, c)
                if not comp.rows:
                    tiling_decision(spec, p, (1, 10**9, 2), 1, c)


def _validate_output_shapes(spec: OpSpec) -> None:
    """Every output's ``shape`` rule states what the kernel writes: the first input's shape, or for an output
    with one value per row (:func:`tensors.row_outputs`, ``rows`` form only) the first input's shape with the reduced
    trailing dims set to 1 (e.g. ``reduced(x, rank(gamma))``), for a column sum (:func:`tensors.column_outputs`)
    the reduced trailing dims' shape (e.g. ``gamma``). Checked on a sample call (x ``[2, 3, 5]``,
    the rows input ``[3, 5]``).

    Raises:
        ValueError: a per-row output in the ``dim`` form.
        SpecError: a shape rule giving another shape, or one that cannot be evaluated (at the output's line).
    """
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate

    comp = compute_of(spec)
    per_row = set(row_outputs(spec))
    cols = set(column_outputs(spec))
    if per_row and not comp.rows:
        raise ValueError(
            f"{spec.op}: outputs with one value per row ({', '.join(sorted(per_row))}) need the rows form "
            "(compute.rows)"
        )
    x = (2, 3, 5)
    env: dict[str, object] = {n: x for n in spec.input_names}
    for n in comp.row_inputs:
        env[n] = x[1:]
    for n in comp.per_row_inputs:
        env[n] = (2, 1, 1)
    env.update({a.name: a.default if a.default is not None else 0 for a in spec.attrs})
    if comp.rows_attr:
        env[comp.rows_attr] = x[1:]
    for j, t in enumerate(spec.outputs):
        want = (2, 1, 1) if t.name in per_row else x[1:] if t.name in cols else x
        try:
            got = as_shape(evaluate(t.shape, env)) if t.shape is not None else x
        except ExprEvalError as exc:
            raise SpecError(
                t.loc, f"outputs[{j}].shape", f"the shape of '{t.name}' cannot be evaluated: {exc}"
            ) from exc
        if got != want:
            what = (
                "one value per row"
                if t.name in per_row
                else "the shape of the reduced dims (a colsum)"
                if t.name in cols
                else f"the shape of '{spec.inputs[0].name}'"
            )
            raise SpecError(
                t.loc,
                f"outputs[{j}].shape",
                f"output '{t.name}' has {what} ({list(want)} for {spec.inputs[0].name} {list(x)}"
                + (f", {comp.rows} {list(x[1:])}" if comp.rows else "")
                + f"), but its shape rule gives {list(got)}",
            )
