"""The ``device.dtype_columns`` key: the OpDef's dtype columns one by one, where a column may give its tensors
different dtypes (SoftmaxV2's x FLOAT16 -> y FLOAT) and set constant device attrs (its ``half_to_float``)."""

from __future__ import annotations

from codegen import registry
from codegen.spec.loader.constraints import constraint_arch_groups
from codegen.spec.loader.fields import read_products
from codegen.spec.loader.state import ParseState
from codegen.spec.model import (
    DeviceColumn,
    DeviceInterface,
    DType,
    DtypeCombo,
    TensorSpec,
    fixed_inputs,
    fixed_outputs,
)
from codegen.spec.yaml_reader import YNode, YScalar, YSeq

#: Dtypes of the 1-d tensor an int_array attr becomes (``aclOpExecutor::ConvertToTensor``).
ARRAY_DTYPES = (DType.INT32, DType.INT64)
#: Device attr types a column may set: the L0 API takes them as a parameter and InferDataType compares them.
COLUMN_ATTR_TYPES = ("bool", "int")


def read_dtype_columns(
    st: ParseState,
    node: YNode,
    family: str,
    device: DeviceInterface,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    products: tuple[str, ...],
    attr_entries: tuple[str, ...] = (),
) -> tuple[DeviceColumn, ...]:
    """``device.dtype_columns``: a non-empty list of mappings ``{<device tensor>: DTYPE, ..., <attr>: value,
    products: [...]}``.

    Each names every device input and output that carries an aclnn tensor once, with a dtype of that aclnn
    tensor's ``dtypes`` (device tensors carrying one aclnn tensor get one dtype), and may name a device input
    carrying an int_array attr with INT32 or INT64 (default: the dtype the L0 API sends; another needs an
    earlier column of the same other dtypes and attrs, whose tiling key it shares); it may set a constant device
    attr (``value:``) of type bool or int to a value of that type; ``products`` (optional, default the op's)
    is a subset of the op's holding all or none of its products of each NpuArch. No two columns have the same
    dtypes, and no two the same input dtypes and attr values (an attr a column does not set has its
    ``value``) but other output dtypes: the device op's output dtypes follow from its inputs' dtypes and
    attrs (its InferDataType). For every dtype of the first input, the first column of that dtype is its
    one-dtype column on every product of the op, without attrs (an output, or in a family that casts them an
    input after the first, of one dtype in every column takes no part): the
    column the L2 API launches when the aclnn tensors' dtypes match no column. Only a family that honours
    columns (:attr:`codegen.registry.Family.dtype_columns`) may have the key, and not beside
    ``device.dtypes``. Problems are recorded at their lines; the columns read without a problem are
    returned."""
    r = st.r
    supported = [f.name for f in registry.families() if f.dtype_columns]
    if family and family not in supported:
        r.error(node, f"device.dtype_columns is supported by the {', '.join(supported)} family only, not '{family}'")
        return ()
    if device.dtypes is not None:
        r.error(node, "give device.dtypes (the order of one-dtype columns) or device.dtype_columns, not both")
        return ()
    aclnn = {t.name: t for t in (*inputs, *outputs)}
    carriers = [d for d in (*device.inputs, *device.outputs) if d.source is not None and d.dtype is None]
    # a device input carrying an int_array attr has the dtype the L0 API sends unless a column names another
    arrays = [d for d in device.inputs if d.dtype is not None]
    settable = {a.name: a for a in device.attrs if a.source is None and a.type in COLUMN_ATTR_TYPES}
    other_attrs = [a.name for a in device.attrs if a.name not in settable]
    failed_attrs = [n for n in attr_entries if n not in settable and n not in other_attrs]
    out: list[DeviceColumn] = []
    items = r.seq(node)
    if items is not None and not items:
        r.error(node, "empty dtype_columns list; give at least one column or leave the key out")
    complete = True
    for item in items or []:
        before = len(r.errors)
        m = r.mapping(
            item,
            [d.name for d in carriers],
            ("products", "twin", *[d.name for d in arrays], *settable, *other_attrs, *failed_attrs),
        )
        if m is None or any(n in m for n in failed_attrs):
            complete = False
            continue
        for name in other_attrs:
            if name in m:
                r.error(
                    m[name],
                    f"a column may set a constant device attr of type {' or '.join(COLUMN_ATTR_TYPES)} only; "
                    f"'{name}' is not one",
                )
        dtypes: dict[str, DType] = {}
        for d in carriers:
            if d.name not in m or d.source is None:
                continue
            dt = r.dtype(m[d.name])
            t = aclnn[d.source]
            if dt is None:
                continue
            if t.dtypes and dt not in t.dtypes:
                r.error(
                    m[d.name],
                    f"'{d.name}' carries '{t.name}', which does not take {dt.name}; its dtypes are "
                    f"{', '.join(x.name for x in t.dtypes)}",
                )
                continue
            if d.source in dtypes and dtypes[d.source] is not dt:
                r.error(
                    m[d.name],
                    f"'{d.name}' carries '{t.name}' as another device tensor does, so it has its dtype "
                    f"{dtypes[d.source].name}, not {dt.name}",
                )
                continue
            dtypes[d.source] = dt
        array_dtypes: list[tuple[str, DType]] = []
        for d in arrays:
            dt = r.dtype(m[d.name]) if d.name in m else None
            if dt is not None and dt not in ARRAY_DTYPES:
                r.error(m[d.name], f"'{d.name}' carries an int_array attr: INT32 or INT64, not {dt.name}")
            elif dt is not None and dt is not d.dtype:
                array_dtypes.append((d.name, dt))
        attrs: list[tuple[str, int | bool]] = []
        for name, a in settable.items():
            if name not in m:
                continue
            value_node = m[name]
            v = value_node.value if isinstance(value_node, YScalar) else None
            ok = isinstance(v, bool) if a.type == "bool" else isinstance(v, int) and not isinstance(v, bool)
            if not ok:
                r.error(m[name], f"expected a value of the device attr type '{a.type}', got {v!r}")
                continue
            assert isinstance(v, (bool, int))
            attrs.append((name, v))
        twin = bool(r.boolean(m["twin"])) if "twin" in m else False
        listed = products
        if "products" in m:
            listed = _read_column_products(st, m["products"], products)
        uncarried = [t for t in (*inputs, *outputs) if t.name not in dtypes and t.name not in device.host_inputs]
        if len(r.errors) != before or uncarried:  # an aclnn tensor no device tensor carries was reported
            complete = False
            continue
        combo = DtypeCombo(
            tuple((t.name, dtypes[t.name]) for t in (*inputs, *outputs) if t.name not in device.host_inputs),
            tuple(p for p in listed if p in products),
            item.loc,
        )
        column = DeviceColumn(combo, tuple(attrs), tuple(array_dtypes), twin)
        twins_ok = bool(family) and registry.family(family).output_twins
        clash = _clash(column, out, device, inputs, twins_ok) or _twinless(column, out)
        if clash:
            r.error(m["twin"] if clash.startswith("twin: true") else item, clash)
            complete = False
            continue
        out.append(column)
    # a tensor whose dtypes were reported (missing, unknown) would only make the one-dtype rule fail again
    if complete and out and inputs and not st.unread_dtypes & {t.name for t in (*inputs, *outputs)}:
        launched = [c for c in out if not c.arrays]
        fixed = fixed_outputs(launched, outputs)
        if family and registry.family(family).fixed_inputs:
            fixed |= fixed_inputs(launched, inputs)  # cast to their one dtype by the L2 API
        _one_dtype_columns(st, node, launched, inputs[0], products, fixed)
    return tuple(out)


def _read_column_products(st: ParseState, node: YNode, products: tuple[str, ...]) -> tuple[str, ...]:
    """A column's ``products``: distinct catalogue names among the op's ``products``, all or none of the op's
    products of each NpuArch (the L2 API tells products apart by NpuArch only, as for ``dtype_combos`` and
    ``constraints``). Each problem is recorded once, at its item (a name) or at ``node`` (not a list of
    strings, a missing product of a listed NpuArch); the accepted names are returned."""
    listed = read_products(st, node)
    # read_products recorded a node that is not a list, an item that is not a string and an unknown or
    # repeated name; only the names it kept are checked here, against the op's products
    items = node.items if isinstance(node, YSeq) else []
    for item in items:
        name = item.value if isinstance(item, YScalar) else None
        if isinstance(name, str) and name in listed and name not in products:
            st.r.error(item, f"'{name}' is not a product of the op ({', '.join(products)})")
    kept = tuple(p for p in listed if p in products)
    constraint_arch_groups(st, node, kept, products)
    return kept


def _clash(
    column: DeviceColumn,
    earlier: list[DeviceColumn],
    device: DeviceInterface,
    inputs: tuple[TensorSpec, ...],
    twins_ok: bool = False,
) -> str:
    """Why ``column`` cannot follow ``earlier`` (a duplicate; the inputs' dtypes and attr values of an earlier
    column with other outputs, unless it is marked ``twin: true`` in a family that takes output twins,
    ``twins_ok`` (:attr:`codegen.registry.Family.output_twins`); ``twin: true`` without such an earlier
    column, or in another family), or ``""``."""
    constants = {a.name: a.value for a in device.attrs if a.source is None}
    names = [t.name for t in inputs if t.name not in device.host_inputs]

    def key(c: DeviceColumn) -> tuple[object, ...]:
        values = {**constants, **dict(c.attrs)}
        return (
            tuple(c.combo.dtype(n) for n in names),
            tuple(sorted((k, repr(v)) for k, v in values.items())),
            c.arrays,
        )

    for k, e in enumerate(earlier):
        if e.combo.dtypes == column.combo.dtypes and e.arrays == column.arrays:
            return f"duplicate dtype column ({_text(column)}), as column {k}"
        if key(e) == key(column) and column.twin and twins_ok and not e.twin:
            return ""
        if key(e) == key(column):
            return (
                f"column ({_text(column)}) has the input dtypes and attr values of column {k} "
                f"({_text(e)}) but other output dtypes; the device op's output dtypes follow from its inputs' "
                "dtypes and attrs (InferDataType): set a constant device attr to tell them apart"
                + (", or mark it twin: true (registered, never what the L0 API allocates)" if twins_ok else "")
            )
    if column.twin:
        if not twins_ok:
            return "twin: true (an output twin of an earlier column) is not supported by this family"
        return (
            f"twin: true marks an output twin, but no earlier column has the input dtypes and attr values of "
            f"column ({_text(column)}) with other output dtypes"
        )
    return ""


def _text(c: DeviceColumn) -> str:
    """The column's dtypes for messages: the aclnn tensors' and then any int_array carrier's it names."""
    return ", ".join([c.combo.text, *(f"{n} {d.name}" for n, d in c.arrays)])


def _twinless(column: DeviceColumn, earlier: list[DeviceColumn]) -> str:
    """Why a ``column`` registering an int_array carrier in another dtype than the L0 API sends has no tiling
    key (no earlier column with its dtypes and attrs that the L2 API launches, on each of its products), or
    ``""``."""
    if not column.arrays:
        return ""
    for e in earlier:
        if (
            not e.arrays
            and e.combo.dtypes == column.combo.dtypes
            and e.attrs == column.attrs
            and set(column.combo.products) <= set(e.combo.products)
        ):
            return ""
    names = ", ".join(n for n, _ in column.arrays)
    return (
        f"column ({_text(column)}) registers {names} in another dtype than the L0 API sends; an earlier column "
        "with its other dtypes and attrs, on each of its products, must give its tiling key (the kernel does "
        "not read the array)"
    )


def _one_dtype_columns(
    st: ParseState,
    node: YNode,
    columns: list[DeviceColumn],
    first: TensorSpec,
    products: tuple[str, ...],
    fixed: frozenset[str] = frozenset(),
) -> None:
    """Records each dtype of ``first`` (the first aclnn input) without a one-dtype column: every tensor of that
    dtype but the ``fixed`` outputs (:func:`fixed_outputs`) and, where the family casts them, inputs
    (:func:`fixed_inputs`), no attr set, registered on every product of the op
    (that supports the dtype: the column is dropped where it does not). Columns keep the OpDef's order, so it
    need not be the first of its dtype (LayerNormV4 registers FLOAT16 x with FLOAT gamma before FLOAT16
    gamma)."""
    missing = []
    for d in first.dtypes:
        one = [
            c
            for c in columns
            if c.combo.dtype(first.name) is d
            and not c.attrs
            and all(x is d for n, x in c.combo.dtypes if n not in fixed)
            and set(products) <= set(c.combo.products)
        ]
        if not one:
            missing.append(d.name)
    if missing:
        st.r.error(
            node,
            f"dtype_columns must hold the one-dtype column (every tensor of that dtype, no attr set, on every "
            f"product of the op) of each dtype of '{first.name}': the L2 API launches it when the aclnn tensors' "
            f"dtypes match no column; missing: {', '.join(missing)}",
        )
