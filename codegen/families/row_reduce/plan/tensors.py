"""The op's tensors as the row-reduce planner sees them: its compute model, dtype combinations (one
tiling key each), inputs broadcast over the rows, outputs with one value per row, and float attrs."""

from __future__ import annotations

from codegen.families.row_reduce.compute import RowReduceCompute
from codegen.families.row_reduce.plan.formulas import substitute
from codegen.spec.expr import Expr, Name, walk
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product, fixed_input_dtype, fixed_inputs, fixed_outputs


def compute_of(spec: OpSpec) -> RowReduceCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the row_reduce family.
    """
    return spec.compute_as(RowReduceCompute)


def device_rows(spec: OpSpec) -> str:
    """The aclnn parameter whose device input gives the tiling and InferShape the reduced dims: ``compute.rows``
    (an input, or an int_array attr a device input carries as a 1-d tensor); for an int_array attr the device op
    does not take (``device.host_attrs``, LayerNormGradV3 has no normalized_shape) the first input broadcast over
    the rows when its device input is ``fill: true`` (always launched, of the reduced dims' shape: the L2 API
    checked it against the attr); "" in the dim form or when neither reaches the device."""
    comp = compute_of(spec)
    dev = spec.device_interface
    if not comp.rows:
        return ""
    if not comp.rows_attr or any(d.source == comp.rows_attr and d.dtype is not None for d in dev.inputs):
        return comp.rows
    first = comp.row_inputs[0] if comp.row_inputs else ""
    return first if any(d.source == first and d.fill for d in dev.inputs) else ""


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the first input in spec order, each once (the dtypes the value cases and explain select)."""
    return list(dict.fromkeys(c.dtype(spec.inputs[0].name) for c in combos(spec)))


def combos(spec: OpSpec) -> list[DtypeCombo]:
    """The dtype combinations of the op's tensors, one tiling key each (the key is the position): the spec's
    ``dtype_combos``, its ``device.dtype_columns`` the L2 API launches (keyed by the aclnn tensors), or one per
    dtype of the first input with every tensor of that dtype."""
    if spec.dtype_combos:
        return list(spec.dtype_combos)
    if spec.device_interface.columns:
        return [c.combo for c in spec.device_interface.launched_columns]
    names = [t.name for t in (*spec.inputs, *spec.outputs)]
    return [DtypeCombo(tuple((n, d) for n in names), spec.products) for d in spec.inputs[0].dtypes]


def callable_combos(spec: OpSpec, product: Product) -> list[DtypeCombo]:
    """The dtype combinations a call on ``product`` may have (spec order): those allowed there, and the device
    dtype columns narrowed to other products whose dtypes ``product`` supports (the L2 API takes their
    dtypes there too, launching the first input's one-dtype column and casting the outputs). With
    ``dtype_combos`` the L2 API refuses a combination not allowed on the product: none is added."""
    if spec.dtype_combos:
        return [c for c in spec.dtype_combos if c.allowed_on(product)]
    out = [c for c in combos(spec) if c.allowed_on(product) or all(product.supports(d) for _, d in c.dtypes)]
    return out + _fixed_input_calls(spec, out)


def _fixed_input_calls(spec: OpSpec, callable_: list[DtypeCombo]) -> list[DtypeCombo]:
    """For each first-input dtype ``d`` of ``callable_`` (its first combination), that combination with every
    fixed input (:func:`codegen.spec.model.fixed_inputs`) of ``d`` where the input takes ``d`` and the columns
    give it another: a call the L2 API casts before launching the column (:func:`launched_combo`)."""
    fixed = fixed_inputs(spec.device_interface.launched_columns, spec.inputs)
    first = spec.inputs[0].name
    out: list[DtypeCombo] = []
    seen: set[DType] = set()
    for c in callable_:
        d = c.dtype(first)
        if d in seen:
            continue
        seen.add(d)
        moved = {t.name for t in spec.inputs if t.name in fixed and d in t.dtypes and c.dtype(t.name) is not d}
        if moved:
            out.append(DtypeCombo(tuple((n, d if n in moved else x) for n, x in c.dtypes), c.products, c.loc))
    return out


def launched_combo(spec: OpSpec, combo: DtypeCombo) -> DtypeCombo:
    """The combination (one of :func:`combos`, a tiling key) the L2 API launches for a call of ``combo``'s
    dtypes: with each fixed input (:func:`codegen.spec.model.fixed_inputs`) cast to its dtype, the first device
    column of those input dtypes (an output twin's earlier column, whose outputs the L0 API allocates);
    ``combo`` itself without device columns."""
    columns = spec.device_interface.launched_columns
    if not columns or spec.dtype_combos:
        return combo
    fixed = fixed_inputs(columns, spec.inputs)
    want = [fixed_input_dtype(columns, n) if n in fixed else combo.dtype(n) for n in spec.input_names]
    attrs = next((c.attrs for c in columns if c.combo == combo), ())  # a column's attrs tell it apart too
    for c in columns:
        if [c.combo.dtype(n) for n in spec.input_names] == want and c.attrs == attrs:
            return c.combo
    return combo


def fallback_rounding(spec: OpSpec, product: Product, combo: DtypeCombo) -> dict[str, str]:
    """For a call of ``combo``'s dtypes on ``product``, the outputs (by name) the L2 API computes in the first
    input's dtype (spec dtype name) and casts to theirs: every output of another dtype when ``combo`` is a
    device column ``product`` does not register (its one-dtype column runs instead), else none; an output of
    one dtype in every column (:func:`codegen.spec.model.fixed_outputs`) never."""
    if combo.allowed_on(product) or spec.dtype_combos:
        return {}
    first = combo.dtype(spec.inputs[0].name)
    fixed = fixed_outputs(spec.device_interface.launched_columns, spec.outputs)  # of one dtype in every column
    return {n: first.name for n in spec.output_names if combo.dtype(n) is not first and n not in fixed}


def default_combo(spec: OpSpec, dtype: DType, product: Product | None = None) -> DtypeCombo:
    """The first combination whose first input is ``dtype`` (allowed on ``product`` when given).

    Raises:
        ValueError: no such combination.
    """
    first = spec.inputs[0].name
    for c in combos(spec):
        if c.dtype(first) is dtype and (product is None or c.allowed_on(product)):
            return c
    raise ValueError(f"{spec.op} takes {', '.join(d.name for d in row_dtypes(spec))}; got {dtype.name}")


def row_outputs(spec: OpSpec) -> list[str]:
    """The outputs with one value per row (their formula reads no input, only reductions, float attrs and
    literals): of the first input's shape with the reduced dims set to 1, written once per row."""
    prog_outs = {n: e for n, e in _output_formulas(spec)}
    inputs = set(spec.input_names) - set(per_row_inputs(spec))
    return [n for n in spec.output_names if not any(isinstance(x, Name) and x.id in inputs for x in walk(prog_outs[n]))]


def per_row_inputs(spec: OpSpec) -> list[str]:
    """The inputs with one value per row (``compute.per_row``; spec order of that list): of the first input's
    shape with the reduced dims set to 1, each row's value loaded into the row's scalar slot."""
    return list(compute_of(spec).per_row_inputs)


def column_outputs(spec: OpSpec) -> list[str]:
    """The outputs summed over the rows (``colsum(expr)`` steps; spec output order): of the row's shape, each
    core's rows summed into an fp32 partial, the partials combined over the cores in core order."""
    cols = {s.name for s in compute_of(spec).steps if s.column}
    return [n for n in spec.output_names if n in cols]


def _output_formulas(spec: OpSpec) -> list[tuple[str, Expr]]:
    """Each output's formula with the elementwise steps (outputs included) it reads substituted."""
    env: dict[str, Expr] = {}
    outs: list[tuple[str, Expr]] = []
    for st in compute_of(spec).steps:
        e = substitute(st.expr, env)
        if st.reduction is None:
            env[st.name] = e
            if st.name in spec.output_names:
                outs.append((st.name, e))
    return outs


def row_inputs(spec: OpSpec) -> list[str]:
    """The inputs broadcast over the rows (``compute.rows``, the one giving the reduced dims first; empty for the
    ``dim`` form)."""
    return list(compute_of(spec).row_inputs)


def optional_inputs(spec: OpSpec) -> list[tuple[int, str, float]]:
    """``(input index, name, default)`` of each optional input the kernel may find absent (spec order): an input
    broadcast over the rows that the caller may pass as null, every element then ``default`` (the kernel fills a
    row of it); not one a ``fill: true`` device input carries (REQUIRED: the L2 API passes a tensor of the
    default for a null one, so the kernel always reads it from GM)."""
    filled = {d.source for d in spec.device_interface.inputs if d.fill}
    return [
        (k, t.name, float(t.default or 0.0)) for k, t in enumerate(spec.inputs) if t.optional and t.name not in filled
    ]


def float_attrs_of(spec: OpSpec) -> list[str]:
    """The float and double attrs (spec order): the kernel reads them as fp32 tiling fields ``attr<k>``."""
    return [a.name for a in spec.attrs if a.type in ("float", "double")]
