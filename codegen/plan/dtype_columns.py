"""What the generated code does with a spec's ``device.dtype_columns``: the constant device attrs a column sets
(the L0 API takes them as parameters), and the rules giving the device op's output dtypes from its inputs'
dtypes and those attrs, as the L2 API (which column to launch), the L0 API (which dtype to allocate) and
InferDataType (which dtype to infer) state them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codegen.spec.model import DeviceAttr, DeviceColumn, DType, OpSpec, Product


@dataclass(frozen=True)
class ColumnAttr:
    """A constant device attr some column sets: the L0 API takes it as the parameter ``decl`` (``bool
    half_to_float``); the L2 API passes ``default`` (its ``value``, a C++ literal) unless the aclnn tensors'
    dtypes are those of a column in ``sets`` (``(L2 condition, literal)``) on a product that registers it.
    ``uses_arch``: a condition tests the L2 API's ``npuArch`` (a column narrowed to some NpuArchs)."""

    name: str
    decl: str
    default: str
    sets: tuple[tuple[str, str], ...]
    uses_arch: bool = False


@dataclass(frozen=True)
class OutputRule:
    """Where a column's output dtypes differ from what the inputs' dtypes give by default: the condition
    (its input dtypes and the attrs it sets) as the L0 API (``l0_condition``, over the aclnn inputs and the
    attr parameters) and InferDataType (``infer_condition``, over the context) state it, and ``outputs``,
    ``(device output index, ge::DT_* name)`` of each output it changes. ``text`` names the column."""

    text: str
    l0_condition: str
    infer_condition: str
    outputs: tuple[tuple[int, str], ...]


def literal(attr: DeviceAttr, value: int | bool) -> str:
    """The C++ literal of ``value`` of the bool or int device attr ``attr``."""
    return str(value).lower() if attr.type == "bool" else str(value)


def column_attrs(spec: OpSpec, l2_tensor: Callable[[str], str], products: Sequence[Product]) -> list[ColumnAttr]:
    """The constant device attrs some column of ``spec`` sets (OpDef order), with the L2 API's choice of value:
    ``l2_tensor(name)`` is the C++ tensor expression of aclnn tensor ``name`` whose dtype the L2 API compares
    (``selfContiguous``, ``out``); ``products`` are the op's catalogue products. A column narrowed to products
    of some of their NpuArchs is chosen only on those (``npuArch``, ``GetCurNpuArch()``): elsewhere the
    OpDef does not register it, and the L2 API launches the first input's one-dtype column instead."""
    dev = spec.device_interface
    out = []
    for a in dev.attrs:
        setting = [c for c in dev.launched_columns if a.name in dict(c.attrs)]
        if a.source is not None or a.value is None or not setting:
            continue
        sets = tuple((l2_condition(c, l2_tensor, products), literal(a, dict(c.attrs)[a.name])) for c in setting)
        c_type = "bool" if a.type == "bool" else "int64_t"
        uses_arch = any(column_archs(c, products) for c in setting)
        out.append(ColumnAttr(a.name, f"{c_type} {a.name}", literal(a, a.value), sets, uses_arch))  # type: ignore[arg-type]
    return out


def column_archs(c: DeviceColumn, products: Sequence[Product]) -> tuple[int, ...]:
    """The NpuArchs (ascending) of the ``products`` column ``c`` lists, or ``()`` when it lists every NpuArch
    of ``products`` (no test needed; the loader holds a column to all or none of the products of an NpuArch)."""
    archs = sorted({p.npu_arch for p in products if p.name in c.combo.products})
    return () if archs == sorted({p.npu_arch for p in products}) else tuple(archs)


def l2_condition(c: DeviceColumn, l2_tensor: Callable[[str], str], products: Sequence[Product] = ()) -> str:
    """The C++ condition that the aclnn tensors (inputs and outputs) have column ``c``'s dtypes, preceded
    where the column is narrowed (:func:`column_archs` of ``products``) by the test that the L2 API's
    ``npuArch`` is one of its NpuArchs."""
    dtypes = " && ".join(f"{l2_tensor(n)}->GetDataType() == op::DataType::{d.ge_name}" for n, d in c.combo.dtypes)
    archs = column_archs(c, products) if products else ()
    if not archs:
        return dtypes
    return f"({' || '.join(f'npuArch == {a}U' for a in archs)}) && {dtypes}"


def output_rules(spec: OpSpec, default: Callable[[DeviceColumn, str], DType]) -> list[OutputRule]:
    """One :class:`OutputRule` per column (spec order) where an output's dtype is not ``default(column,
    output name)``, the dtype the L0 API gives that aclnn output without rules. An output twin
    (:attr:`codegen.spec.model.DeviceColumn.twin`) gives none: the L0 API allocates the earlier column's
    outputs."""
    dev = spec.device_interface
    attr_index = {a.name: k for k, a in enumerate(dev.attrs)}
    attr_type = {a.name: a.type for a in dev.attrs}
    rules = []
    for c in dev.launched_columns:
        if c.twin:
            continue  # an output twin of an earlier column: never what the L0 API allocates
        changed = tuple(
            (k, c.combo.dtype(d.source).ge_name)
            for k, d in enumerate(dev.outputs)
            if d.source is not None and c.combo.dtype(d.source) is not default(c, d.source)
        )
        if not changed:
            continue
        l0 = [f"{n}->GetDataType() == op::DataType::{c.combo.dtype(n).ge_name}" for n in spec.input_names]
        infer = [
            f"context->GetInputDataType({dev.input_index(n)}) == ge::{c.combo.dtype(n).ge_name}"
            for n in spec.input_names
        ]
        for name, v in c.attrs:
            lit = str(v).lower() if attr_type[name] == "bool" else str(v)
            l0.append(f"{name} == {lit}")
            c_type = "bool" if attr_type[name] == "bool" else "int64_t"
            k = attr_index[name]
            infer.append(
                f"attrs != nullptr && attrs->GetAttrPointer<{c_type}>({k}) != nullptr && "
                f"*attrs->GetAttrPointer<{c_type}>({k}) == {lit}"
            )
        rules.append(OutputRule(c.combo.text, " && ".join(l0), " && ".join(infer), changed))
    return rules
