"""The elementwise host-side view entries (tiling function, tiling header, InferShape): the tiling keys, the
queue caps per NpuArch, the attrs the tiling function reads, the host scalars as C++ and the InferShape rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.families.elementwise.compiler import CompiledFormula
from codegen.families.elementwise.plan.columns import mixed_columns
from codegen.families.elementwise.plan.shape import shape_rule
from codegen.families.elementwise.plan.tiling import TILING_FIELDS, repeat_elem_bytes
from codegen.families.elementwise.plan.variants import (
    Variant,
    budget_temps,
    column_budget_temps,
    compile_all,
    compute_dtypes,
    dtype_input,
)
from codegen.families.elementwise.plan.view_records import (
    ColumnKey,
    HostScalar,
    InferRule,
    InputView,
    TilingAttr,
    TilingKey,
    TilingKeys,
)
from codegen.plan.dtype_keys import bf16_guard
from codegen.plan.products import archs_condition, queue_caps
from codegen.plan.signature import StringValue
from codegen.plan.tiling_fields import TilingFieldRow, tiling_field_views
from codegen.spec.expr import Call, Name, to_cpp
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO


def _scalar_cpp(spec: OpSpec, expr: Any) -> str:
    out_names = {t.name for t in spec.outputs}
    in_names = {t.name for t in spec.inputs}

    def name(n: str) -> str:
        if n in out_names or n in in_names:
            raise ValueError(f"tensor '{n}' used as a scalar")
        return n

    def numel(args: list[str]) -> str:
        return "totalLength"

    def rank(args: list[str]) -> str:
        return "static_cast<int64_t>(outShape.GetDimNum())"

    funcs = {"numel": numel, "rank": rank}
    # numel(tensor) of any operand is the output's element count: inputs are broadcast before the kernel.
    return to_cpp(_strip_tensor_args(expr), name, funcs)


def _strip_tensor_args(expr: Any) -> Any:
    """Replaces ``numel(t)``'s tensor argument by a placeholder the C++ printer ignores."""
    if isinstance(expr, Call) and expr.func in ("numel", "rank"):
        return Call(expr.func, (Name("totalLength"),))
    for attr in ("operand", "left", "right", "cond", "then", "orelse"):
        if hasattr(expr, attr):
            expr = type(expr)(**{**expr.__dict__, attr: _strip_tensor_args(getattr(expr, attr))})
    if hasattr(expr, "values") and isinstance(expr.values, tuple):
        expr = type(expr)(**{**expr.__dict__, "values": tuple(_strip_tensor_args(v) for v in expr.values)})
    if isinstance(expr, Call):
        expr = Call(expr.func, tuple(_strip_tensor_args(a) for a in expr.args))
    return expr


def host_scalars(spec: OpSpec, compiled: CompiledFormula) -> list[HostScalar]:
    """The host scalars of ``compiled``: tiling field, C++ value (tiling function) and formula text."""
    return [HostScalar(hs.field_name, _scalar_cpp(spec, hs.expr), unparse(hs.expr)) for hs in compiled.scalars]


def tiling_keys(spec: OpSpec, products: list[Product], variants: list[Variant], keys: list[DType]) -> list[TilingKey]:
    """Every tiling key (``dtypeIndex + numDtypes * variant``) of ``variants`` x compute dtypes ``keys``; a
    BF16 key is guarded by the NpuArchs of ``products`` without bf16."""
    result: list[TilingKey] = []
    for v in variants:
        for index, dt in enumerate(keys):
            result.append(
                TilingKey(
                    key=index + len(keys) * v.index,
                    dtype=dt.name,
                    ge_name=dt.ge_name,
                    kernel_type=dt.kernel_type,
                    elem_bytes=dt.itemsize,
                    temps=budget_temps(v.formula, dt),
                    num_inputs=len(v.present),
                    variant=v.index,
                    absent=", ".join(v.absent) or "-",
                    guard=bf16_guard(products, dt is DType.BF16),
                    repeat_elem_bytes=repeat_elem_bytes(v.formula, dt),
                )
            )
    return result


def column_guard(products: list[Product], combo: DtypeCombo) -> str:
    """The preprocessor guard of a mixed column's kernel branch: true on the NpuArchs of ``products`` where no
    product registers the column (it is not in their OpDef, or they lack one of its dtypes), so no launch
    there takes its key; "" when every NpuArch has a product registering it."""
    registered = {p.npu_arch for p in products if combo.allowed_on(p)}
    left_out = {p.npu_arch for p in products} - registered
    return archs_condition(left_out) if left_out else ""


def column_keys(spec: OpSpec, products: list[Product]) -> list[ColumnKey]:
    """The tiling key of each mixed dtype column (:func:`.columns.mixed_columns`), after every one-dtype key
    of every variant; a column's kernel branch is guarded by the NpuArchs of ``products`` where no product
    registers it (:func:`column_guard`: a column with a BF16 tensor is never registered without bf16)."""
    variants = compile_all(spec)
    base = len(compute_dtypes(spec)) * len(variants)
    out = []
    for m in mixed_columns(spec):
        widths = [d.itemsize for d in m.dtypes]
        n_in = len(spec.inputs)
        out.append(
            ColumnKey(
                key=base + m.index,
                index=m.index,
                text=m.text,
                ge_names=tuple(d.ge_name for d in m.dtypes),
                kernel_types=tuple(d.kernel_type for d in m.dtypes),
                elem_bytes=min(widths),
                in_bytes=sum(widths[:n_in]),
                out_bytes=sum(widths[n_in:]),
                temps=column_budget_temps(variants[0].formula, m.index),
                num_inputs=n_in,
                guard=column_guard(products, m.column.combo),
            )
        )
    return out


def tiling_attrs(spec: OpSpec) -> list[TilingAttr]:
    """The device attrs the tiling function reads (a constant device attr the formula cannot name is
    skipped), in OpDef order."""
    dev = spec.device_interface
    attrs: list[TilingAttr] = []
    for i, da in enumerate(dev.attrs):
        if da.source is None:  # a constant the formula cannot name; the kernel does not read it
            continue
        a = spec.attr(da.source)
        attrs.append(
            TilingAttr(
                name=a.name,
                device_name=da.name,
                index=i,
                c_type=ATTR_TYPE_INFO[a.type].tiling_type,
                string_values=tuple(StringValue(v, n) for v, n in (a.values or ())) if da.type == "string" else (),
                is_list=DEVICE_ATTR_TYPE_INFO[da.type].is_list,
            )
        )
    return attrs


def infer_rule(spec: OpSpec, inputs: Mapping[str, InputView]) -> InferRule:
    """The InferShape rule of :func:`codegen.families.elementwise.plan.shape.shape_rule`, its inputs taken from
    ``inputs`` (the aclnn inputs' views by name)."""
    kind, rule_args = shape_rule(spec)
    shape_inputs = [rule_args[0]] if kind == "like" else list(rule_args)
    return InferRule(
        kind=kind,
        inputs=tuple(inputs[n] for n in shape_inputs),
        dtype_input=inputs[dtype_input(spec).name],
    )


def host_parts(
    spec: OpSpec,
    products: list[Product],
    variants: list[Variant],
    keys: list[DType],
    scalars: list[HostScalar],
) -> dict[str, Any]:
    """The view entries of the tiling function and header: ``variants`` and compute dtypes ``keys`` as
    compiled, ``scalars`` the host scalars of variant 0."""
    attrs = tiling_attrs(spec)
    return {
        "queue_caps": queue_caps(products),
        "tiling_keys": TilingKeys(
            tuple(tiling_keys(spec, products, variants, keys)), len(keys), tuple(column_keys(spec, products))
        ),
        "tiling_fields": [
            *tiling_field_views(TILING_FIELDS, output=spec.outputs[0].name),
            *(
                TilingFieldRow(
                    name=sc.field,
                    c_type="float",
                    comment=sc.text,
                    value=f"static_cast<float>({sc.cpp})",
                    set_comment=sc.text,
                )
                for sc in scalars
            ),
        ],
        # std::exp, std::log, std::abs... of host scalars (a default of an optional input folds into them)
        "uses_cmath": any("std::" in sc.cpp for sc in scalars),
        "attrs": attrs,
        "uses_string_attrs": any(a.string_values for a in attrs),
    }
