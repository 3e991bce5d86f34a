"""The OpDef registration of the device interface: dtype lists per product (one column per dtype combination
where the spec has them), REQUIRED/OPTIONAL, attr setters and defaults."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.spec.model import DeviceColumn, DeviceTensor, DType, DtypeCombo, OpSpec, Product, TensorSpec
from codegen.types import DEVICE_ATTR_TYPE_INFO


def device_dtypes(spec: OpSpec, tensor: TensorSpec, product: Product | None) -> tuple[DType, ...]:
    """The dtype list the device op registers for the aclnn ``tensor`` on ``product`` (None: every product):
    the tensor's list on the product (:meth:`TensorSpec.dtypes_for`; every product: each dtype some product
    takes, :attr:`TensorSpec.all_dtypes`) in the ``device.dtypes`` order when the spec gives one."""
    order = spec.device_interface.dtypes
    own = tensor.all_dtypes if product is None else tensor.dtypes_for(product)
    return tuple(d for d in order if d in own) if order else own


def device_attr_value(spec: OpSpec, attr: Any) -> str:
    """The C++ literal of a device attr's default as the OpDef setter takes it (``"mean"``, ``1``,
    ``false``, ``1.0``)."""
    v = attr.default
    if isinstance(v, tuple):  # a list default: the brace list ListInt({-1}) / ListBool({true}) and REG_OP's ATTR take
        return "{" + ", ".join(str(x).lower() if isinstance(x, bool) else str(int(x)) for x in v) + "}"
    if attr.type == "string":
        return json.dumps(v)
    if isinstance(v, bool):
        return str(v).lower()
    if attr.type == "float":
        # OpAttrDef::Float takes a float: a double literal fp32 cannot hold exactly (1/6) would be a
        # narrowing conversion (-Wfloat-conversion), so such a value is written as a float literal
        exact = float(np.float32(v)) == float(v)
        return repr(float(v)) + ("" if exact else "F")
    return repr(v)


def device_tensor_specs(spec: OpSpec, tensors: tuple[DeviceTensor, ...]) -> list[tuple[DeviceTensor, TensorSpec]]:
    """Each device tensor and the aclnn tensor giving its dtypes and REQUIRED/OPTIONAL: its source, or for
    an optional device input no aclnn tensor feeds, the first aclnn input's dtypes as an optional tensor (a
    family whose specs may have a ``device`` section gives every tensor one dtype list); a device input
    carrying an int_array attr is a required 1-d tensor of its one dtype; one carrying a scalar attr takes the
    dtypes of the aclnn tensor it is ``like`` (in the OpDef mapped by its ``like_map``), as a REQUIRED tensor
    even when that tensor is a list."""
    out = []
    for d in tensors:
        if d.like is not None:
            out.append((d, dataclasses.replace(spec.tensor(d.like), name=d.name, is_list=False)))
        elif d.dtype is not None:
            out.append((d, TensorSpec(d.name, (d.dtype,), (1, 1), "", False, None, d.loc)))
        elif d.source is None:
            out.append((d, dataclasses.replace(spec.inputs[0], name=d.name, optional=True)))
        else:
            out.append((d, spec.tensor(d.source)))
    return out


@dataclass(frozen=True)
class OpDefParam:
    """An input or output of the OpDef registration: name, ``REQUIRED``/``OPTIONAL``/``DYNAMIC`` (a tensor
    list: ``list: true``), its dtypes
    (``ge::DT_*``, comma-separated, one per dtype column), as many ``ge::FORMAT_ND``, and for an output the
    ``InitValue`` the launch fills it with first (None: none), and whether it is declared
    ``AutoContiguous()``."""

    name: str
    param_type: str
    dtypes: str
    formats: str
    init_value: int | None = None
    auto_contiguous: bool = False


@dataclass(frozen=True)
class OpDefTensors:
    """The inputs and outputs of an OpDef registration, OpDef order."""

    inputs: tuple[OpDefParam, ...]
    outputs: tuple[OpDefParam, ...]


@dataclass(frozen=True)
class OpDefConfig:
    """A product's SoC config: its ``config_name``, the C++ variable ``var`` of its ``OpAICoreConfig``, and
    whether its dtype lists differ from the default (``custom``; then ``inputs``/``outputs`` are its own)."""

    config_name: str
    var: str
    custom: bool
    inputs: tuple[OpDefParam, ...]
    outputs: tuple[OpDefParam, ...]


@dataclass(frozen=True)
class OpDefAttr:
    """An attr of the OpDef registration: name, ``REQUIRED``/``OPTIONAL``, setter (``Int``, ``Bool``,
    ``Float``, ``String``, ``ListInt``) and the value as the setter takes it (``{-1}`` for a list; empty
    when none is given, which only a REQUIRED attr may omit)."""

    name: str
    attr_type: str
    setter: str
    value: str


@dataclass(frozen=True)
class OpDefRegistration:
    """The OpDef registration: the default dtype lists, one config per product, the attrs."""

    default: OpDefTensors
    configs: tuple[OpDefConfig, ...]
    attrs: tuple[OpDefAttr, ...]


def opdef_view(spec: OpSpec, products: list[Product]) -> OpDefRegistration:
    """OpDef registration of the device interface (:attr:`OpSpec.device_interface`): the default dtype
    lists (every product's dtypes) and per-product configs where they differ; attrs with their setter
    (``Int``/``Bool``/``Float``/``String``) and default (OPTIONAL) or none (REQUIRED)."""
    dev = spec.device_interface

    def param(d: DeviceTensor, t: TensorSpec, dts: tuple[DType, ...]) -> OpDefParam:
        return OpDefParam(
            name=d.name,
            param_type="DYNAMIC" if t.is_list else "OPTIONAL" if t.optional and not d.fill else "REQUIRED",
            dtypes=", ".join(f"ge::{d.ge_name}" for d in dts),
            formats=", ".join("ge::FORMAT_ND" for _ in dts),
            auto_contiguous=d.auto_contiguous,
        )

    dev_in = device_tensor_specs(spec, dev.inputs)
    dev_out = device_tensor_specs(spec, dev.outputs)
    if spec.dtype_combos or dev.columns:
        return _combo_opdef(spec, products, dev_in, dev_out, param)
    # an int_array carrier has one dtype: it repeats it in every column (as many as the first other tensor's)
    lead = next((t for n, t in [*dev_in, *dev_out] if n.dtype is None), None)

    def dtypes(d: DeviceTensor, t: TensorSpec, p: Product | None) -> tuple[DType, ...]:
        if d.like is not None:  # a scalar carrier: its like tensor's column dtypes, mapped where it differs
            return tuple(d.like_dtype(x) for x in device_dtypes(spec, t, p))
        if d.dtype is not None and lead is not None:
            return (d.dtype,) * len(device_dtypes(spec, lead, p))
        return device_dtypes(spec, t, p)

    default = OpDefTensors(
        inputs=tuple(param(n, t, dtypes(n, t, None)) for n, t in dev_in),
        outputs=tuple(param(n, t, dtypes(n, t, None)) for n, t in dev_out),
    )
    configs = []
    for p in products:
        differs = any(dtypes(n, t, p) != dtypes(n, t, None) for n, t in [*dev_in, *dev_out])
        configs.append(
            OpDefConfig(
                config_name=p.config_name,
                var=f"{p.config_name}Config",
                custom=differs,
                inputs=tuple(param(n, t, dtypes(n, t, p)) for n, t in dev_in),
                outputs=tuple(param(n, t, dtypes(n, t, p)) for n, t in dev_out),
            )
        )
    return OpDefRegistration(default, tuple(configs), opdef_attrs(spec))


def opdef_attrs(spec: OpSpec) -> tuple[OpDefAttr, ...]:
    """The OpDef attrs of the device interface: each with its ``AttrType`` (:attr:`DeviceAttr.attr_type`),
    setter and the value its setter gets (the default, empty when it has none)."""
    return tuple(
        OpDefAttr(
            a.name,
            a.attr_type,
            DEVICE_ATTR_TYPE_INFO[a.type].opdef_setter,
            "" if a.default is None else device_attr_value(spec, a),
        )
        for a in spec.device_interface.attrs
    )


def _combo_opdef(
    spec: OpSpec,
    products: list[Product],
    dev_in: list[tuple[DeviceTensor, TensorSpec]],
    dev_out: list[tuple[DeviceTensor, TensorSpec]],
    param: Callable[[DeviceTensor, TensorSpec, tuple[DType, ...]], OpDefParam],
) -> OpDefRegistration:
    """The OpDef of a spec with ``dtype_combos`` or ``device.dtype_columns``: one dtype column per combination
    (the doc's dtype table) or listed column, the default holding every column some product takes, each
    product's config its own."""
    dev = spec.device_interface
    listed = [(c, DeviceColumn(c)) for c in spec.dtype_combos] or [(c.combo, c) for c in dev.columns]

    def columns(p: Product | None) -> list[tuple[DtypeCombo, DeviceColumn]]:
        return [(c, col) for c, col in listed if any(c.allowed_on(q) for q in ([p] if p else products))]

    def tensors(cols: list[tuple[DtypeCombo, DeviceColumn]]) -> tuple[tuple[OpDefParam, ...], tuple[OpDefParam, ...]]:
        return (
            tuple(param(n, t, tuple(col.array_dtype(n) or c.dtype(t.name) for c, col in cols)) for n, t in dev_in),
            tuple(param(n, t, tuple(c.dtype(t.name) for c, _ in cols)) for n, t in dev_out),
        )

    ins, outs = tensors(columns(None))
    configs = []
    for p in products:
        p_ins, p_outs = tensors(columns(p))
        configs.append(
            OpDefConfig(p.config_name, f"{p.config_name}Config", (p_ins, p_outs) != (ins, outs), p_ins, p_outs)
        )
    return OpDefRegistration(OpDefTensors(ins, outs), tuple(configs), opdef_attrs(spec))
