"""The elementwise aclnn view entries (the L2 API and the L0 wrapper): the dtype promotion, the string attrs'
value names, and the L0 API's inputs, attrs and launch arguments."""

from __future__ import annotations

from typing import Any

from codegen.families.elementwise.plan.columns import mixed_columns
from codegen.families.elementwise.plan.variants import compute_of, dtype_input
from codegen.families.elementwise.plan.view_records import ColumnLaunch, L0Input, L0Launch, StringAttr
from codegen.plan.dtype_columns import l2_condition, output_rules
from codegen.plan.signature import L0Attr, L0ListAttr, StringValue, l0_constant_attr, l0_params
from codegen.spec.model import OpSpec, Product
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO


def _promote_expr(spec: OpSpec) -> str:
    """C++ of the common dtype of the promoted inputs (null optional inputs take no part)."""
    optional = {t.name for t in spec.inputs if t.optional}
    promote = list(compute_of(spec).promote) or [dtype_input(spec).name]
    required = [n for n in promote if n not in optional]
    expr = f"{required[-1]}->GetDataType()"
    for name in reversed(promote):
        if name == required[-1]:
            continue
        step = f"op::PromoteType({name}->GetDataType(), {expr})"
        expr = f"({name} == nullptr ? {expr} : {step})" if name in optional else step
    return expr


def l0_attrs(spec: OpSpec) -> tuple[list[L0Attr], list[L0ListAttr]]:
    """The L0 API's attrs (device order: a constant, a string attr's value name, or the aclnn attr) and the
    one-element lists of its ``list_int`` device attrs."""
    dev = spec.device_interface
    attrs: list[L0Attr] = []
    lists: list[L0ListAttr] = []
    for da in dev.attrs:
        if da.source is None:
            attrs.append(l0_constant_attr(da))
            continue
        a = spec.attr(da.source)
        if da.type == "string":
            suffix = "Value" if a.type == "string" else ""  # a char * attr's index, computed in phase 1
            attrs.append(
                L0Attr(
                    name=da.name,
                    decl=f"const std::string &{da.name}",
                    arg=f"{a.name[:1].upper()}{a.name[1:]}ValueName({a.name}{suffix})",
                )
            )
        elif DEVICE_ATTR_TYPE_INFO[da.type].is_list:  # the L0 API sends the integer as the list {value}
            attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[a.type].c_type} {da.name}", a.name))
            lists.append(L0ListAttr(da.name, da.name, f"{da.name}List"))
        else:
            arg = f"static_cast<float>({a.name}Value)" if a.type == "scalar" else a.name
            attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[a.type].c_type} {da.name}", arg))
    return attrs, lists


def string_attrs(spec: OpSpec) -> list[StringAttr]:
    """The string device attrs fed by an aclnn attr, with the L2 helper naming each listed value."""
    dev = spec.device_interface
    return [
        StringAttr(
            name=a.name,
            func=f"{a.name[:1].upper()}{a.name[1:]}ValueName",
            c_type=ATTR_TYPE_INFO[a.type].c_type,
            values=tuple(StringValue(v, n) for v, n in (a.values or ())),
        )
        for a in (spec.attr(da.source) for da in dev.attrs if da.type == "string" and da.source is not None)
    ]


def aclnn_parts(spec: OpSpec) -> dict[str, Any]:
    """The view entries of the aclnn source (parameter checks, L2 plan) and the L0 wrapper."""
    dev = spec.device_interface
    attrs, lists = l0_attrs(spec)
    return {
        "l0_attrs": attrs,
        "launch": L0Launch(
            inputs=tuple(L0Input(d.name, d.source or "nullptr") for d in dev.inputs),
            attrs=tuple(next((x.var for x in lists if x.name == a.name), a.name) for a in attrs),
            lists=tuple(lists),
        ),
        # L0 parameters in aclnn order (as CANN's L0 APIs take them); the launch is in device order
        "l0_params": l0_params(spec, (a.decl for a in attrs)),
        "l0_output": dev.outputs[0].name,
        "string_attrs": string_attrs(spec),
        "promote_expr": _promote_expr(spec),
        "dfx_in": ", ".join([*(t.name for t in spec.inputs), *(a.name for a in spec.attrs)]),
    }


def column_parts(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """The view entries of the mixed dtype columns (:mod:`.columns`; empty tuples without them):
    ``column_launches``, each column's L2 condition (its NpuArchs where the OpDef registers it on some products
    only, and its tensors' dtypes), on which the L2 API launches the inputs uncast, and ``dtype_rules``, the
    columns whose output dtype is not the dtype input's (the L0 API's allocation and InferDataType)."""
    first = dtype_input(spec).name
    return {
        "column_launches": tuple(
            ColumnLaunch(m.text, l2_condition(m.column, lambda n: n, products)) for m in mixed_columns(spec)
        ),
        "dtype_rules": tuple(output_rules(spec, lambda c, _: c.combo.dtype(first))) if mixed_columns(spec) else (),
    }
