"""View-model pieces every op family shares: file names, the aclnn signature, dtype lists per product,
the OpDef registration and the documentation/example data.

Everything a template prints is computed here; templates only place the strings.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, TypeVar, cast

import numpy as np

from codegen.spec.generated_names import op_files
from codegen.spec.model import (
    Catalogue,
    DeviceAttr,
    DeviceTensor,
    DType,
    OpSpec,
    Product,
    TensorSpec,
    absent_optional_shapes,
)
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, AclnnStatus


class TilingField(NamedTuple):
    """One field of a family's tiling struct, declared once: the tiling header declares it, the tiling
    function sets it, and the UT test and the family's Python mirror of the tiling read it by name.

    Attributes:
        name: the field name (``TILING_DATA_FIELD_DEF`` / ``set_<name>``).
        c_type: its C++ type (``int64_t``, ``int32_t``, ``float``).
        comment: its meaning (units), with ``{placeholders}`` the family's view fills (e.g. ``{output}``).
        value_cpp: the C++ expression the tiling function sets it to, in that function's local names.
    """

    name: str
    c_type: str
    comment: str
    value_cpp: str


@dataclass(frozen=True)
class TilingFieldRow:
    """A tiling-struct row the tiling header and function templates print: ``name``, ``c_type``, ``comment``
    (the header's), ``value`` (the C++ the tiling function sets it to) and ``set_comment`` (a comment on
    that line, or empty)."""

    name: str
    c_type: str
    comment: str
    value: str
    set_comment: str = ""


def tiling_field_views(fields: tuple[TilingField, ...], **names: str) -> list[TilingFieldRow]:
    """The rows of ``fields`` (their comment placeholders filled from ``names``; no ``set_comment``)."""
    return [TilingFieldRow(f.name, f.c_type, f.comment.format(**names), f.value_cpp) for f in fields]


#: ``binary.json`` attr dtype of each OpDef attr setter (the type table's device attr types).
_BINARY_ATTR_TYPES = {i.opdef_setter: i.binary_type for i in DEVICE_ATTR_TYPE_INFO.values()}


def binary_configs(spec: OpSpec, products: list[Product], opdef: OpDefRegistration) -> dict[str, str]:
    """The ``<kernel>_binary.json`` text of every product's SoC config: one ``op_list`` entry per dtype
    column the OpDef registers there (``opdef`` is the view's OpDef, :func:`opdef_view` or a family's), each
    input/output with its name, index, dtype, format ND, paramType and shape ``[-2]`` (any rank), and the
    attrs with their dtype and a null value (one binary serves every attr value). Keyed by config name."""
    out: dict[str, str] = {}
    by_name = {c.config_name: c for c in opdef.configs}
    for p in products:
        config = by_name[p.config_name]
        tensors: OpDefTensors | OpDefConfig = config if config.custom else opdef.default

        def split(entry: OpDefParam) -> list[str]:
            return [d.strip().removeprefix("ge::") for d in entry.dtypes.split(",") if d.strip()]

        width = len(split(tensors.inputs[0] if tensors.inputs else tensors.outputs[0]))
        op_list = []
        for col in range(width):

            def params(entries: Sequence[OpDefParam], column: int = col) -> list[dict[str, Any]]:
                return [
                    {
                        "name": e.name,
                        "index": i,
                        "dtype": DType[split(e)[column].removeprefix("DT_")].binary_name,
                        "format": "ND",
                        "paramType": e.param_type.lower(),
                        "shape": [-2],
                    }
                    for i, e in enumerate(entries)
                ]

            ins, outs = params(tensors.inputs), params(tensors.outputs)
            tag = "_".join(dict.fromkeys(t["dtype"] for t in (*ins, *outs)))
            entry: dict[str, Any] = {"bin_filename": f"{spec.op_type}_{tag}", "inputs": ins, "outputs": outs}
            if opdef.attrs:
                entry["attrs"] = [
                    {"name": a.name, "dtype": _BINARY_ATTR_TYPES[a.setter], "value": None} for a in opdef.attrs
                ]
            op_list.append(entry)
        out[p.config_name] = json.dumps({"op_type": spec.op_type, "op_list": op_list}, indent=2) + "\n"
    return out


@dataclass(frozen=True)
class ProtoTensor:
    """A tensor of the IR registration (``op_graph/<kernel>_proto.h``): name, whether optional, and its
    dtypes (``DT_*`` names, comma-separated, each once)."""

    name: str
    optional: bool
    dtypes: str


@dataclass(frozen=True)
class ProtoAttr:
    """An attr of the IR registration: name, OpDef type (``Int``/``Bool``/``Float``/``String``), whether
    required, and its default (C++ literal; empty when required)."""

    name: str
    type: str
    required: bool
    value: str


@dataclass(frozen=True)
class Proto:
    """The IR registration of the device op (OpDef order)."""

    inputs: tuple[ProtoTensor, ...]
    outputs: tuple[ProtoTensor, ...]
    attrs: tuple[ProtoAttr, ...]


def ops_nn_view(spec: OpSpec, products: list[Product], opdef: OpDefRegistration) -> dict[str, Any]:
    """View entries of the ops-nn build files: the file list with the per-SoC binary configs (``files``), the
    binary config texts (``binary_configs``), the SoC config names for ``CMakeLists.txt``
    (``compute_units``) and the IR registration (``proto``)."""

    def proto_tensors(entries: Sequence[OpDefParam]) -> tuple[ProtoTensor, ...]:
        out = []
        for e in entries:
            dts = list(dict.fromkeys(d.strip().removeprefix("ge::") for d in e.dtypes.split(",") if d.strip()))
            out.append(ProtoTensor(e.name, e.param_type == "OPTIONAL", ", ".join(dts)))
        return tuple(out)

    proto = Proto(
        inputs=proto_tensors(opdef.default.inputs),
        outputs=proto_tensors(opdef.default.outputs),
        attrs=tuple(ProtoAttr(a.name, a.setter, a.attr_type == "REQUIRED", a.value) for a in opdef.attrs),
    )
    return {
        "files": op_files(spec, products),
        "binary_configs": binary_configs(spec, products, opdef),
        "compute_units": [p.config_name for p in products],
        "proto": proto,
    }


@dataclass(frozen=True)
class UtTensor:
    """One tensor of a unit-test case: ``present`` (False: an absent optional input, shape and dtype empty),
    ``shape`` (C++ initializer text of the elements per axis) and ``dtype`` (``ge::DT_*``)."""

    present: bool
    shape: str
    dtype: str


def ut_tensor(shape: tuple[int, ...] | None, dtype: DType | None) -> UtTensor:
    """One tensor of a unit-test tiling case of ``shape`` (elements per axis) and ``dtype``; None for an
    absent optional input."""
    if shape is None or dtype is None:
        return UtTensor(False, "", "")
    return UtTensor(True, "{" + ", ".join(str(d) for d in shape) + "}", f"ge::{dtype.ge_name}")


def ut_attr(name: str, device_type: str, value: int | float | bool | str) -> str:
    """One device attr of a unit-test case as the C++ element of a context faker's ``NodeAttrs`` list: the
    pair ``{"name", Ops::NN::AnyValue::CreateFrom<T>(value)}`` of ops-nn's ``tests/ut/common/any_value.h``.
    ``device_type`` is the OpDef attr type (``int``, ``bool``, ``float``, ``string``; ``list_int`` gets the
    one-element list ``{value}`` the L0 API sends for an integer aclnn attr)."""
    if device_type == "list_int":
        any_value = f"Ops::NN::AnyValue::CreateFrom<std::vector<int64_t>>({{{int(value)}}})"
    elif device_type == "string":
        any_value = f'Ops::NN::AnyValue::CreateFrom<std::string>("{value}")'
    elif device_type == "bool":
        any_value = f"Ops::NN::AnyValue::CreateFrom<bool>({'true' if value else 'false'})"
    elif device_type == "float":
        any_value = f"Ops::NN::AnyValue::CreateFrom<float>({float(value)!r}F)"
    else:
        any_value = f"Ops::NN::AnyValue::CreateFrom<int64_t>({int(value)})"
    return f'{{"{name}", {any_value}}}'


def ut_attr_value(spec: OpSpec, source: str) -> int | float | bool:
    """A representative value of aclnn attr ``source`` for a unit-test case: its default, else its first
    listed value, else 0 / 1.0 / false by type."""
    a = spec.attr(source)
    if a.default is not None:
        return a.expr_value(a.default)  # type: ignore[return-value]
    if a.values:
        return a.values[0][0]
    return {"bool": False, "double": 1.0, "float": 1.0, "scalar": 1.0}.get(a.type, 0)


def ut_device_attrs(spec: OpSpec, values: dict[str, int | float | bool]) -> list[str]:
    """The device attrs of ``spec`` in OpDef order as :func:`ut_attr` elements, from ``values`` (by aclnn
    attr name; a string attr carries the name of the integer's value)."""
    out = []
    for da in spec.device_interface.attrs:
        if da.source is None:  # a constant attr
            out.append(ut_attr(da.name, da.type, cast(Any, da.value)))
            continue
        value = values[da.source]
        if da.type == "string":
            names = dict(spec.attr(da.source).values or ())
            out.append(ut_attr(da.name, "string", names[int(value)]))
        else:
            out.append(ut_attr(da.name, da.type, value))
    return out


def ut_case_name(product: Product, *parts: object) -> str:
    """A gtest test name (a C identifier) for a case on ``product`` described by ``parts``."""
    text = "_".join([product.name, *(str(p) for p in parts)])
    return "".join(c if c.isalnum() else "_" for c in text)


@dataclass(frozen=True)
class UtOutput:
    """An expected output of an infershape unit-test case: ``dims`` (C++ initializer text), ``dtype``
    (``ge::DT_*``)."""

    dims: str
    dtype: str


@dataclass(frozen=True)
class UtInferCase:
    """One infershape unit-test case (see :func:`ut_infer_case`)."""

    name: str
    note: str
    inputs: tuple[UtTensor, ...]
    attrs: tuple[str, ...]
    ok: bool
    outputs: tuple[UtOutput, ...]

    @property
    def present_inputs(self) -> tuple[UtTensor, ...]:
        """The inputs an InferShapeContextFaker gets tensors for (an absent optional input has none)."""
        return tuple(t for t in self.inputs if t.present)

    @property
    def input_instances(self) -> str:
        """``IrInstanceNum``'s input list: 1 per input, 0 for an absent one."""
        return "{" + ", ".join("1" if t.present else "0" for t in self.inputs) + "}"

    @property
    def input_shape_args(self) -> str:
        """``InputShapes``' arguments: ``&input<k>`` per present input, ``k`` counting present inputs only."""
        return ", ".join(f"&input{k}" for k in range(len(self.present_inputs)))


def ut_infer_case(
    name: str,
    inputs: Sequence[UtTensor],
    attrs: Sequence[str],
    outputs: Sequence[tuple[tuple[int, ...], DType]] | None,
    note: str,
) -> UtInferCase:
    """One infershape unit-test case: ``inputs`` (:func:`ut_tensor`, OpDef order), ``attrs`` (:func:`ut_attr`
    expressions), and the expected ``outputs`` (shape, dtype) in OpDef order, or None when the InferShape
    function must fail (``ok`` False)."""
    return UtInferCase(
        name=name,
        note=note,
        inputs=tuple(inputs),
        attrs=tuple(attrs),
        ok=outputs is not None,
        outputs=tuple(
            UtOutput("{" + ", ".join(str(d) for d in shape) + "}", f"ge::{dt.ge_name}") for shape, dt in outputs or []
        ),
    )


@dataclass(frozen=True)
class UtField:
    """An integer tiling field a unit-test case expects: its ``name`` and ``value``."""

    name: str
    value: int


#: Bytes of each C type a tiling field is declared with (TILING_DATA_FIELD_DEF).
_FIELD_BYTES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
                "float": 4, "int64_t": 8, "uint64_t": 8, "double": 8}  # fmt: skip


@dataclass(frozen=True)
class UtFieldSlot:
    """Where a scalar tiling field lies in the tiling data: its ``c_type`` and ``offset`` (bytes)."""

    c_type: str
    offset: int


def tiling_field_slots(rows: Sequence[TilingFieldRow]) -> dict[str, UtFieldSlot]:
    """The byte offset of each field of a tiling struct (``rows`` in declaration order): CANN's
    BEGIN_TILING_DATA_DEF places the fields in declaration order, each at the next offset that is a multiple
    of its own size (hicann/metadef inc/external/register/tilingdata_base.h FieldHandler and
    base/asc/tilingdata_base_impl.cc CheckAlignAndGenPlaceHolder; a C struct of the same fields has the same
    layout).

    Raises:
        KeyError: a field's C type is not a scalar tiling type.
    """
    slots = {}
    offset = 0
    for row in rows:
        size = _FIELD_BYTES[row.c_type]
        offset = (offset + size - 1) // size * size
        slots[row.name] = UtFieldSlot(row.c_type, offset)
        offset += size
    return slots


@dataclass(frozen=True)
class UtTilingCase:
    """One tiling unit-test case: ``name`` (C identifier), ``product`` (the catalogue product the case was
    computed for), ``note`` (one line), ``inputs``/``outputs`` (OpDef order), ``attrs`` (:func:`ut_attr`
    expressions, OpDef order), ``deterministic`` (0/1) and the expected ``tiling_key``, ``block_dim``,
    ``workspace`` (bytes, system workspace included) and integer tiling ``fields``."""

    name: str
    product: str
    note: str
    inputs: tuple[UtTensor, ...]
    outputs: tuple[UtTensor, ...]
    attrs: tuple[str, ...]
    deterministic: int
    tiling_key: int
    block_dim: int
    workspace: int
    fields: tuple[UtField, ...]

    @property
    def input_instances(self) -> str:
        """``IrInstanceNum``'s input list: 1 per IR input (an absent one is a nullptr shape instead)."""
        return "{" + ", ".join("1" for _ in self.inputs) + "}"

    @property
    def output_instances(self) -> str:
        """``IrInstanceNum``'s output list: 1 per output."""
        return "{" + ", ".join("1" for _ in self.outputs) + "}"

    @property
    def input_shape_args(self) -> str:
        """``InputShapes``' arguments: ``&input<i>`` per IR input ``i``, ``nullptr`` for an absent one."""
        return ", ".join(f"&input{i}" if t.present else "nullptr" for i, t in enumerate(self.inputs))

    @property
    def output_shape_args(self) -> str:
        """``OutputShapes``' arguments: ``&output<i>`` per output."""
        return ", ".join(f"&output{i}" for i in range(len(self.outputs)))

    @classmethod
    def of(cls, case: Mapping[str, Any]) -> UtTilingCase:
        """The case from a family's dict of the same keys (``fields``: ``{"name", "value"}`` dicts or
        :class:`UtField`)."""
        values = dict(case)
        for key in ("inputs", "outputs", "attrs"):
            values[key] = tuple(values[key])
        values["fields"] = tuple(f if isinstance(f, UtField) else UtField(**f) for f in values["fields"])
        return cls(**values)


@dataclass(frozen=True)
class UtTilingSuite:
    """The tiling unit test of an op: the gtest ``fixture`` name and its ``cases``."""

    fixture: str
    cases: tuple[UtTilingCase, ...]


@dataclass(frozen=True)
class UtInferSuite:
    """The infershape unit test of an op: the gtest ``fixture`` name and its ``cases``."""

    fixture: str
    cases: tuple[UtInferCase, ...]


def ut_tiling_view(
    spec: OpSpec,
    cases: Sequence[Mapping[str, Any] | UtTilingCase],
    infer_cases: Sequence[UtInferCase] | None = None,
) -> dict[str, Any]:
    """View entries of the op_host unit tests ``tests/ut/op_host/test_<kernel>_tiling.cpp`` (``ut_tiling``)
    and ``test_<kernel>_infershape.cpp`` (``ut_infer``).

    ``cases``: one :class:`UtTilingCase` (or a dict of its fields) per test, all computed by the family's
    planner (``tiling_decision``). ``infer_cases`` (:func:`ut_infer_case`) feed the infershape test."""
    return {
        "ut_tiling": UtTilingSuite(
            f"{spec.op_type}Tiling", tuple(c if isinstance(c, UtTilingCase) else UtTilingCase.of(c) for c in cases)
        ),
        "ut_infer": UtInferSuite(f"{spec.op_type}InferShape", tuple(infer_cases or ())),
    }


def spec_products(spec: OpSpec, catalogue: Catalogue) -> list[Product]:
    """The catalogue products ``spec`` lists, in the spec's order."""
    return [catalogue.get(name) for name in spec.products]


_Named = TypeVar("_Named")


def in_aclnn_order(spec: OpSpec, entries: Sequence[_Named]) -> list[_Named]:
    """``entries`` (rows or parameters with a ``name`` of an aclnn input, attr or output, one each; dicts or
    objects) sorted into the C parameter order of :attr:`OpSpec.aclnn_order` (the spec's ``signature`` key,
    or inputs, attrs, outputs)."""
    position = {name: i for i, name in enumerate(spec.aclnn_order)}

    def name_of(e: Any) -> str:
        return str(e["name"] if isinstance(e, dict) else e.name)

    return sorted(entries, key=lambda e: position[name_of(e)])


@dataclass(frozen=True)
class StringValue:
    """One accepted value of a ``char *`` attr: its ``index`` (what the checks compare) and its ``text``."""

    index: int
    text: str


@dataclass(frozen=True)
class SignatureParam:
    """One phase-1 parameter of the aclnn API (aclnn order), without workspaceSize/executor.

    Attributes:
        name: the parameter name; kind: ``input``, ``attr`` or ``output``.
        decl: the public C declaration (``const aclTensor *x``, ``const aclScalar *alpha``, ``char *mode``).
        decl_const: the declaration the internal checks take (an aclScalar's value as ``double``, a
            ``char *``'s value index as ``int64_t``, tensors ``const``).
        arg: what phase 1 passes to the checks (``<name>Value`` for an aclScalar or ``char *``, else name).
        scalar: ``"1"`` for an aclScalar attr, else ``""``; string: ``"1"`` for a ``char *`` attr, else ``""``.
        dtype_invalid, dtype_text: an aclScalar's C++ test for a dtype it does not accept, and the accepted
            dtypes as text (``""`` otherwise).
        string_values, values_text: a ``char *`` attr's accepted values, and them as text (empty otherwise).
        header_decl: ``decl`` with the parameter's name in CANN's header (its ``c_name``), what the generated
            header and document declare; the definition in the .cpp may name it ``name``.
    """

    name: str
    decl: str
    decl_const: str
    arg: str
    kind: str
    scalar: str = ""
    string: str = ""
    dtype_invalid: str = ""
    dtype_text: str = ""
    string_values: tuple[StringValue, ...] = ()
    values_text: str = ""
    header_decl: str = ""


def signature(spec: OpSpec) -> tuple[SignatureParam, ...]:
    """The phase-1 parameters in aclnn order (inputs, attributes, outputs), without workspaceSize/executor;
    ``header_decl`` names each parameter as CANN's header does."""
    params = _signature_params(spec)
    c_names = header_names(spec)
    return tuple(dataclasses.replace(p, header_decl=re.sub(rf"\b{p.name}$", c_names[p.name], p.decl)) for p in params)


def header_names(spec: OpSpec) -> dict[str, str]:
    """Each aclnn parameter's spec name -> its name in CANN's header (``c_name``)."""
    names = {t.name: t.c_name for t in (*spec.inputs, *spec.outputs)}
    names.update((a.name, a.c_name) for a in spec.attrs)
    return names


def _signature_params(spec: OpSpec) -> list[SignatureParam]:
    params: list[SignatureParam] = []
    for t in spec.inputs:
        params.append(
            SignatureParam(t.name, f"const aclTensor *{t.name}", f"const aclTensor *{t.name}", t.name, "input")
        )
    for a in spec.attrs:
        if a.type == "scalar":
            # The public parameter is the aclScalar; the internal checks see its value as a double.
            params.append(
                SignatureParam(
                    name=a.name,
                    decl=f"const aclScalar *{a.name}",
                    decl_const=f"double {a.name}",
                    arg=f"{a.name}Value",
                    kind="attr",
                    scalar="1",
                    dtype_invalid=" && ".join(
                        f"{a.name}->GetDataType() != op::DataType::DT_{d}" for d in a.scalar_dtypes
                    ),
                    dtype_text=", ".join(a.scalar_dtypes),
                )
            )
        elif a.type == "string":
            # The public parameter is the char *; the internal checks see the index of the value (-1: none).
            params.append(
                SignatureParam(
                    name=a.name,
                    decl=f"char *{a.name}",
                    decl_const=f"int64_t {a.name}",
                    arg=f"{a.name}Value",
                    kind="attr",
                    string="1",
                    string_values=tuple(StringValue(k, n) for k, n in a.values or ()),
                    values_text=", ".join(n for _, n in a.values or ()),
                )
            )
        else:
            decl = f"{ATTR_TYPE_INFO[a.type].c_type} {a.name}"
            params.append(SignatureParam(a.name, decl, decl, a.name, "attr"))
    for t in spec.outputs:
        decl = f"{'const ' if getattr(t, 'const', False) else ''}aclTensor *{t.name}"
        params.append(
            SignatureParam(t.name, decl, decl if decl.startswith("const ") else "const " + decl, t.name, "output")
        )
    return in_aclnn_order(spec, params)


@dataclass(frozen=True)
class ArchGroup:
    """An NpuArch (``__NPU_ARCH__`` / ``GetCurNpuArch()`` value) and the catalogue products that have it
    (names, comma-separated)."""

    arch: int
    products: str


def arch_groups(products: list[Product]) -> list[ArchGroup]:
    """The NpuArchs of ``products`` in first-appearance order, each with the products that have it.

    Generated code selects per-product behaviour by NpuArch (``GetCurNpuArch()`` on the host,
    ``__NPU_ARCH__`` in kernels), never by SoC name, so a catalogue product CANN's enums do not know
    compiles unchanged; products sharing an NpuArch agree on every capability the generated code keys on
    (the catalogue loader enforces it). E.g. ``[ArchGroup(2201, "Ascend910B, Ascend910_93")]``.
    """
    groups: dict[int, list[str]] = {}
    for p in products:
        groups.setdefault(p.npu_arch, []).append(p.name)
    return [ArchGroup(arch, ", ".join(names)) for arch, names in groups.items()]


@dataclass(frozen=True)
class DtypeGroup:
    """Products on which a tensor has the same dtype list: ``archs`` (their NpuArchs), ``products`` (names),
    ``dtypes`` (``op::DataType::DT_*``) and ``names`` (spec dtype names)."""

    archs: tuple[ArchGroup, ...]
    products: tuple[str, ...]
    dtypes: tuple[str, ...]
    names: tuple[str, ...]


def dtype_groups(tensor: TensorSpec, products: list[Product]) -> tuple[DtypeGroup, ...]:
    """Products grouped by the dtype list ``tensor`` has on them, keyed by NpuArch, in first-appearance
    order. Every NpuArch falls in exactly one group (the dtype list depends only on the bf16 capability,
    which an NpuArch fixes)."""
    members: dict[tuple[DType, ...], list[Product]] = {}
    for p in products:
        members.setdefault(tensor.dtypes_for(p), []).append(p)
    return tuple(
        DtypeGroup(
            archs=tuple(arch_groups(ps)),
            products=tuple(p.name for p in ps),
            dtypes=tuple(f"op::DataType::{d.ge_name}" for d in dts),
            names=tuple(d.name for d in dts),
        )
        for dts, ps in members.items()
    )


def device_dtypes(spec: OpSpec, tensor: TensorSpec, product: Product | None) -> tuple[DType, ...]:
    """The dtype list the device op registers for the aclnn ``tensor`` on ``product`` (None: every product):
    the spec's list in the ``device.dtypes`` order when the spec gives one, without dtypes the product
    lacks (BF16)."""
    order = spec.device_interface.dtypes
    listed = tuple(d for d in order if d in tensor.dtypes) if order else tensor.dtypes
    return tuple(d for d in listed if product is None or product.supports(d))


def device_attr_value(spec: OpSpec, attr: Any) -> str:
    """The C++ literal of a device attr's default as the OpDef setter takes it (``"mean"``, ``1``,
    ``false``, ``1.0``)."""
    v = attr.default
    if isinstance(v, tuple):  # a list_int default: the brace list ListInt({-1}) and REG_OP's ATTR take
        return "{" + ", ".join(str(int(x)) for x in v) + "}"
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


def ut_device_inputs(spec: OpSpec, by_source: Mapping[str, UtTensor]) -> list[UtTensor]:
    """The unit-test tensors of the device inputs in OpDef order: ``by_source`` (the tensor of each aclnn
    input, see :func:`ut_tensor`) for each carried input, an absent tensor for an optional device input that
    no aclnn input feeds."""
    return [ut_tensor(None, None) if d.source is None else by_source[d.source] for d in spec.device_interface.inputs]


def l0_constant_attr(attr: DeviceAttr) -> L0Attr:
    """The L0 parameter of a constant device attr (``source`` None): ``name``, ``decl`` (``float alpha``) and
    ``arg``, the C++ literal of its ``value`` the L2 API passes (``0.16666666666666666F``, ``true``,
    ``"mean"``, ``2``)."""
    v = attr.value
    c_type = DEVICE_ATTR_TYPE_INFO[attr.type].l0_type
    if attr.type == "string":
        return L0Attr(attr.name, f"{c_type}{attr.name}", json.dumps(v))
    arg = str(v).lower() if isinstance(v, bool) else f"{float(cast(float, v))!r}F" if attr.type == "float" else str(v)
    return L0Attr(attr.name, f"{c_type} {attr.name}", arg)


def device_tensor_specs(spec: OpSpec, tensors: tuple[DeviceTensor, ...]) -> list[tuple[str, TensorSpec]]:
    """Each device tensor's OpDef name and the aclnn tensor giving its dtypes and REQUIRED/OPTIONAL: its
    source, or for an optional device input no aclnn tensor feeds, the first aclnn input's dtypes as an
    optional tensor (a family whose specs may have a ``device`` section gives every tensor one dtype list)."""
    out = []
    for d in tensors:
        if d.source is None:
            out.append((d.name, dataclasses.replace(spec.inputs[0], name=d.name, optional=True)))
        else:
            out.append((d.name, spec.tensor(d.source)))
    return out


@dataclass(frozen=True)
class OpDefParam:
    """An input or output of the OpDef registration: name, ``REQUIRED``/``OPTIONAL``, its dtypes
    (``ge::DT_*``, comma-separated, one per dtype column), as many ``ge::FORMAT_ND``, and for an output the
    ``InitValue`` the launch fills it with first (None: none)."""

    name: str
    param_type: str
    dtypes: str
    formats: str
    init_value: int | None = None


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
    ``Float``, ``String``, ``ListInt``) and the default as the setter takes it (``{-1}`` for a list; empty
    when required)."""

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

    def param(name: str, t: TensorSpec, dts: tuple[DType, ...]) -> OpDefParam:
        return OpDefParam(
            name=name,
            param_type="OPTIONAL" if t.optional else "REQUIRED",
            dtypes=", ".join(f"ge::{d.ge_name}" for d in dts),
            formats=", ".join("ge::FORMAT_ND" for _ in dts),
        )

    dev_in = device_tensor_specs(spec, dev.inputs)
    dev_out = device_tensor_specs(spec, dev.outputs)
    if spec.dtype_combos:
        return _combo_opdef(spec, products, dev_in, dev_out, param)
    default = OpDefTensors(
        inputs=tuple(param(n, t, device_dtypes(spec, t, None)) for n, t in dev_in),
        outputs=tuple(param(n, t, device_dtypes(spec, t, None)) for n, t in dev_out),
    )
    configs = []
    for p in products:
        differs = any(device_dtypes(spec, t, p) != device_dtypes(spec, t, None) for _, t in [*dev_in, *dev_out])
        configs.append(
            OpDefConfig(
                config_name=p.config_name,
                var=f"{p.config_name}Config",
                custom=differs,
                inputs=tuple(param(n, t, device_dtypes(spec, t, p)) for n, t in dev_in),
                outputs=tuple(param(n, t, device_dtypes(spec, t, p)) for n, t in dev_out),
            )
        )
    attrs = []
    for a in dev.attrs:
        setter = DEVICE_ATTR_TYPE_INFO[a.type].opdef_setter
        if a.default is None:
            attrs.append(OpDefAttr(a.name, "REQUIRED", setter, ""))
        else:
            attrs.append(OpDefAttr(a.name, "OPTIONAL", setter, device_attr_value(spec, a)))
    return OpDefRegistration(default, tuple(configs), tuple(attrs))


def _combo_opdef(
    spec: OpSpec,
    products: list[Product],
    dev_in: list[tuple[str, TensorSpec]],
    dev_out: list[tuple[str, TensorSpec]],
    param: Callable[[str, TensorSpec, tuple[DType, ...]], OpDefParam],
) -> OpDefRegistration:
    """The OpDef of a spec with ``dtype_combos``: one dtype column per combination (the doc's dtype table),
    the default holding every combination some product takes, each product's config its own."""

    def columns(p: Product | None) -> list[Any]:
        return [c for c in spec.dtype_combos if any(c.allowed_on(q) for q in ([p] if p else products))]

    def tensors(cols: list[Any]) -> tuple[tuple[OpDefParam, ...], tuple[OpDefParam, ...]]:
        return (
            tuple(param(n, t, tuple(c.dtype(t.name) for c in cols)) for n, t in dev_in),
            tuple(param(n, t, tuple(c.dtype(t.name) for c in cols)) for n, t in dev_out),
        )

    ins, outs = tensors(columns(None))
    configs = []
    for p in products:
        p_ins, p_outs = tensors(columns(p))
        configs.append(
            OpDefConfig(p.config_name, f"{p.config_name}Config", (p_ins, p_outs) != (ins, outs), p_ins, p_outs)
        )
    attrs = tuple(
        OpDefAttr(a.name, "REQUIRED", DEVICE_ATTR_TYPE_INFO[a.type].opdef_setter, "")
        if a.default is None
        else OpDefAttr(a.name, "OPTIONAL", DEVICE_ATTR_TYPE_INFO[a.type].opdef_setter, device_attr_value(spec, a))
        for a in spec.device_interface.attrs
    )
    return OpDefRegistration(OpDefTensors(ins, outs), tuple(configs), attrs)


@dataclass(frozen=True)
class StatusRow:
    """A row of the docs' status table: the ``aclnnStatus`` name, its code and when the API returns it."""

    name: str
    value: int
    when: str


def status_row(status: AclnnStatus, when: str) -> StatusRow:
    """The docs' status-table row of ``status``, returned ``when``."""
    return StatusRow(status.name, int(status), when)


def null_pointer_attrs(spec: OpSpec) -> list[str]:
    """The attributes the aclnn API takes as pointers, as the docs name them in the ACLNN_ERR_PARAM_NULLPTR
    row (in spec order): ``the aclScalar <name>`` (``const aclScalar *``) and ``the string <name>``
    (``char *``); phase 1 returns 161001 for a null one (``OP_CHECK_NULL`` in templates/op_api/aclnn.cpp.j2)."""
    kinds = {"scalar": "aclScalar", "string": "string"}
    return [f"the {kinds[a.type]} {a.name}" for a in spec.attrs if a.type in kinds]


@dataclass(frozen=True)
class ParamRow:
    """A row of the docs' parameter table (and the header's doc lines): name, direction (``input``,
    ``input (host)``, ``output``), description, dtypes text, formats text and rank range text (``-`` for
    attrs)."""

    name: str
    direction: str
    description: str
    dtypes: str
    format: str
    rank: str


@dataclass(frozen=True)
class ProductSupportRow:
    """A row of the docs' product table: catalogue product name, its documentation term, ``yes``/``no``."""

    name: str
    doc_term: str
    support: str


def arch_condition(products: list[Product], predicate: str) -> str:
    """A preprocessor condition true on the NpuArchs of ``products`` lacking a capability.

    ``predicate`` is ``"data_copy_pad"`` or ``"bf16"``. Returns e.g. ``"__NPU_ARCH__ == 1001"`` or ``"0"``
    when every product has the capability. Products sharing an NpuArch agree on capabilities (the
    catalogue loader enforces it), so the condition is exact.
    """
    archs = sorted({p.npu_arch for p in products if not getattr(p, predicate)})
    if not archs:
        return "0"
    return " || ".join(f"__NPU_ARCH__ == {a}" for a in archs)


def c_float(value: float) -> str:
    """A C++ float literal that round-trips ``value`` exactly through fp32."""
    text = repr(float(np.float32(value)))
    if "e" not in text and "." not in text and "inf" not in text and "nan" not in text:
        text += ".0"
    return text + "f"


@dataclass(frozen=True)
class ExampleTensor:
    """One tensor of the example program: ``name``; ``shape`` (C++ initializer text); ``acl_dtype``
    (``ACL_*``); ``host_type`` (C++ host element type); ``data`` (initializer text of the host values);
    ``is_output``; ``print_fmt`` (printf format of a value); ``is_16bit`` (printed through a float
    conversion); ``dtype`` (spec dtype name)."""

    name: str
    shape: str
    acl_dtype: str
    host_type: str
    data: str
    is_output: bool
    print_fmt: str
    is_16bit: bool
    dtype: str


@dataclass(frozen=True)
class ExampleAttr:
    """One attr of the example program: ``name``, host ``c_type``, ``value`` (C++ text); ``string`` is
    ``"1"`` for a ``char *`` attr; ``scalar_acl`` is the ``ACL_*`` dtype an aclScalar attr is made with
    (``""`` for other attrs)."""

    name: str
    c_type: str
    value: str
    string: str = ""
    scalar_acl: str = ""


@dataclass(frozen=True)
class ExampleData:
    """The example program's data: ``tensors`` (inputs then the output), ``attrs``, the ``output`` tensor,
    ``null_inputs`` (optional inputs passed as null pointers) and ``uses_bf16`` (the program needs its bf16
    helpers)."""

    tensors: tuple[ExampleTensor, ...]
    attrs: tuple[ExampleAttr, ...]
    output: ExampleTensor
    null_inputs: tuple[str, ...]
    uses_bf16: bool


def example_view(spec: OpSpec) -> ExampleData | None:
    """Host data of the spec's example for the example program, or None when the spec has none.

    Values are written in the host type of each dtype: FLOAT16 as ``aclFloat16`` built with acl's
    ``aclFloatToFloat16``, BF16 as ``uint16_t`` bits built with the program's ``FloatToBf16``; 16-bit
    results are printed as floats (``aclFloat16ToFloat``, ``Bf16ToFloat``). ``uses_bf16`` says whether the
    program needs its bf16 helpers;
    ``null_inputs`` lists the optional inputs the example leaves out (passed as null pointers).
    """
    ex = spec.example
    if ex is None:
        return None
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)

    tensors = []
    for name, et in ex.inputs:
        values = list(et.values or [])
        tensors.append(_example_tensor(name, et.shape, et.dtype, values, is_output=False))
    out_name = spec.outputs[0].name
    size = int(np.prod(ex.output.shape)) if ex.output.shape else 1
    first_out = _example_tensor(out_name, ex.output.shape, ex.output.dtype, [0] * size, is_output=True)
    tensors.append(first_out)
    tensors.extend(_more_example_outputs(spec))
    attrs = []
    for name, value in ex.attrs:
        a = spec.attr(name)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if a.type == "string":
            attrs.append(ExampleAttr(name, "char", text, string="1"))
        elif a.type == "scalar":
            # An aclScalar made from a host value of the attr's first accepted dtype (FLOAT or DOUBLE).
            c_type, acl = ("double", "ACL_DOUBLE") if "FLOAT" not in a.scalar_dtypes[:1] else ("float", "ACL_FLOAT")
            if c_type == "float" and not isinstance(value, bool):
                text = f"{float(value)!r}f"  # a float literal: 0.01 would warn (-Wfloat-conversion) as a double
            attrs.append(ExampleAttr(name, c_type, text, scalar_acl=acl))
        else:
            attrs.append(ExampleAttr(name, ATTR_TYPE_INFO[a.type].c_type, text))
    given = {name for name, _ in ex.inputs}
    null_inputs = [t.name for t in spec.inputs if t.optional and t.name not in given]
    uses_bf16 = any(t.dtype == "BF16" for t in tensors)
    return ExampleData(tuple(tensors), tuple(attrs), first_out, tuple(null_inputs), uses_bf16)


def _more_example_outputs(spec: OpSpec) -> list[ExampleTensor]:
    """The example program's tensors of the outputs after the first (the program prints only the first):
    each of its shape rule on the example's inputs and of the dtype the spec's ``dtype_combos`` give it for
    the example's input dtypes (else its first dtype), zero-filled."""
    from codegen.spec.expr import as_shape, evaluate

    ex = spec.example
    if ex is None or len(spec.outputs) < 2:
        return []
    ins = dict(ex.inputs)
    env: dict[str, object] = {**absent_optional_shapes(spec.inputs, ins), **{n: et.shape for n, et in ins.items()}}
    env.update(dict(ex.attrs))
    combo = next(
        (c for c in spec.dtype_combos if all(n not in ins or c.dtype(n) is ins[n].dtype for n in spec.input_names)),
        None,
    )
    out = []
    for t in spec.outputs[1:]:
        shape = as_shape(evaluate(t.shape, env)) if t.shape is not None else ex.output.shape
        dtype = combo.dtype(t.name) if combo is not None else t.dtypes[0]
        out.append(_example_tensor(t.name, shape, dtype, [0] * int(np.prod(shape, dtype=np.int64)), is_output=True))
    return out


def _example_tensor(
    name: str, shape: tuple[int, ...], dtype: DType, values: list[Any], is_output: bool
) -> ExampleTensor:
    arr = np.asarray(values, dtype=np.float64 if dtype.is_floating else np.int64).astype(dtype.numpy_name)
    if dtype is DType.FLOAT16:
        # As CANN's samples do: fp16 host data through acl's aclFloatToFloat16 (each value is an fp16 value,
        # exact in fp32, so the conversion gives its bits).
        host_values = [f"aclFloatToFloat16({c_float(float(v))})" for v in arr]
    elif dtype is DType.BF16:
        # acl has no bf16 helper: the example's own FloatToBf16 (bf16 is the upper half of an fp32).
        host_values = [f"FloatToBf16({c_float(float(v))})" for v in arr]
    elif dtype is DType.BOOL:
        host_values = ["1" if v else "0" for v in arr]
    elif dtype.is_floating:
        host_values = [repr(float(v)) for v in arr]
    else:
        host_values = [str(int(v)) for v in arr]
    return ExampleTensor(
        name=name,
        shape=", ".join(str(d) for d in shape),
        acl_dtype=dtype.acl_name,
        host_type=dtype.host_type,
        data=", ".join(host_values),
        is_output=is_output,
        print_fmt=dtype.printf_format,
        is_16bit=dtype.is_16bit_float,
        dtype=dtype.name,
    )


def json_compact(value: object) -> str:
    """Deterministic compact JSON (sorted keys), for hashes and manifests."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class L0Attr:
    """A device attr of the L0 call: its device ``name``, the L0 parameter declaration ``decl`` and the
    C++ expression ``arg`` the L2 API passes for it."""

    name: str
    decl: str
    arg: str


@dataclass(frozen=True)
class TensorCheck:
    """The L2 API's checks of one aclnn tensor: ``name``, accepted rank range (``min_rank``..``max_rank``),
    whether it may be null (``optional``), and the C++ condition true for a storage format it does not accept
    (``format_condition``) with the accepted formats as text (``format_text``)."""

    name: str
    min_rank: int
    max_rank: int
    optional: bool
    format_condition: str
    format_text: str


@dataclass(frozen=True)
class AttrCheck:
    """The L2 API's check of an attr with a list of values: ``name``, the C++ condition true for a value
    outside the list (``invalid_condition``) and the list as text (``allowed_text``)."""

    name: str
    invalid_condition: str
    allowed_text: str


def common_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """View-model entries every family's templates use (files, signature, OpDef, doc tables, example)."""
    products = spec_products(spec, catalogue)
    sig = signature(spec)
    tensors = [
        TensorCheck(
            name=t.name,
            min_rank=t.rank[0],
            max_rank=t.rank[1],
            optional=t.optional,
            # the storage formats the L2 API accepts (every other one is ACLNN_ERR_PARAM_INVALID)
            format_condition=" && ".join(f"{t.name}->GetStorageFormat() != Format::FORMAT_{f}" for f in t.formats),
            format_text=", ".join(t.formats),
        )
        for t in [*spec.inputs, *spec.outputs]
    ]
    attr_params = [{"name": a.name, "decl": f"{ATTR_TYPE_INFO[a.type].c_type} {a.name}"} for a in spec.attrs]
    attr_checks = []
    for a in spec.attrs:
        if a.values and a.type != "string":  # a string's validity is checked on the char * itself
            allowed = [v for v, _ in a.values]
            cond = " && ".join(f"{a.name} != {v}" for v in allowed)
            text = ", ".join(f"{v} ({n})" for v, n in a.values)
            attr_checks.append(AttrCheck(a.name, cond, text))
    support = [
        ProductSupportRow(prod.name, prod.doc_term, "yes" if prod.name in spec.products else "no")
        for prod in catalogue.products
    ]
    param_rows = []
    for t in spec.inputs:
        param_rows.append(_param_row(t, products, "input"))
    for a in spec.attrs:
        if a.type == "string":
            values = ", ".join(f'"{n}"' for _, n in a.values or ())
        else:
            values = ", ".join(f"{v} ({n})" for v, n in a.values) if a.values else "-"
        param_rows.append(
            ParamRow(
                name=a.name,
                direction="input (host)",
                description=f"{a.description} Values: {values}." if a.values else a.description,
                dtypes=(
                    f"aclScalar ({', '.join(a.scalar_dtypes)})"
                    if a.type == "scalar"
                    else f"char * ({', '.join(n for _, n in a.values or ())})"
                    if a.type == "string"
                    else ATTR_TYPE_INFO[a.type].c_type
                ),
                format="-",
                rank="-",
            )
        )
    for t in spec.outputs:
        param_rows.append(_param_row(t, products, "output"))
    # the table names each parameter as CANN's header does
    c_names = header_names(spec)
    param_rows = [
        dataclasses.replace(
            r,
            name=c_names[r.name],
            description=r.description + (f" Named `{r.name}` in this document's formulas and messages, and in "
                                         "the Python API." if c_names[r.name] != r.name else ""),
        )
        for r in in_aclnn_order(spec, param_rows)
    ]  # fmt: skip
    return {
        "op": OpView.of(spec),
        "files": op_files(spec),
        "guard": spec.snake.upper(),
        "signature": sig,
        "products": products,
        "opdef": opdef_view(spec, products),
        "tensors": tensors,
        "attr_params": attr_params,
        "attr_checks": attr_checks,
        "max_rank": max(t.rank[1] for t in [*spec.inputs, *spec.outputs]),
        "product_support": support,
        "param_rows": param_rows,
        "example": example_view(spec),
        "kernel_class": "Kernel" + spec.op_type,
        "tiling_type": spec.op_type + "TilingData",
        "header_doc": [f"{r.name}: {r.dtypes}; rank {r.rank}." for r in param_rows if r.direction != "input (host)"],
    }


@dataclass(frozen=True)
class TilingParamsView:
    """The spec's ``tiling`` parameters as templates see them: bytes of UB reserved, bytes of output per core
    started, queue depth."""

    ub_reserved_bytes: int
    min_bytes_per_core: int
    buffer_num: int


@dataclass(frozen=True)
class OpView:
    """The op as every template sees it (view key ``op``; templates never see the spec).

    Attributes:
        op_type: the device OpType; aclnn_name: ``aclnn<Op>``; kernel: the kernel function and file stem;
        snake: the spec file stem; summary: one paragraph; notes: documentation notes; family: the family's
        name; input_names: aclnn input names in order; tiling: the tiling parameters; phase2_decl: phase 2's
        parameter list as CANN's header declares it (``void *workspace, uint64_t workspaceSize, ...``).
    """

    op_type: str
    aclnn_name: str
    kernel: str
    snake: str
    summary: str
    notes: tuple[str, ...]
    family: str
    input_names: tuple[str, ...]
    tiling: TilingParamsView
    phase2_decl: str

    @classmethod
    def of(cls, spec: OpSpec) -> OpView:
        """The view of ``spec``."""
        t = spec.tiling
        workspace, size, executor, stream = spec.phase2_header_names
        return cls(
            op_type=spec.op_type,
            aclnn_name=spec.aclnn_name,
            kernel=spec.kernel,
            snake=spec.snake,
            summary=spec.summary,
            notes=spec.notes,
            family=spec.family,
            input_names=spec.input_names,
            tiling=TilingParamsView(t.ub_reserved_bytes, t.min_bytes_per_core, t.buffer_num),
            phase2_decl=f"void *{workspace}, uint64_t {size}, aclOpExecutor *{executor}, aclrtStream {stream}",
        )


def format_rule_text(spec: OpSpec) -> str:
    """The status-table wording of the format rule: "a format other than ND" when every tensor takes ND
    only, else the accepted formats per tensor ("a storage format outside grad: ND, NCHW; ...")."""
    tensors = [*spec.inputs, *spec.outputs]
    if all(t.formats == ("ND",) for t in tensors):
        return "a format other than ND"
    return "a storage format outside " + "; ".join(f"{t.name}: {', '.join(t.formats)}" for t in tensors)


def _param_row(t: TensorSpec, products: list[Product], direction: str) -> ParamRow:
    groups = dtype_groups(t, products)
    if len(groups) == 1:
        dtypes = ", ".join(groups[0].names)
    else:
        dtypes = "; ".join(f"{', '.join(g.products)}: {', '.join(g.names)}" for g in groups)
    return ParamRow(
        name=t.name,
        direction=direction,
        description=t.description + (" May be null." if t.optional else ""),
        dtypes=dtypes,
        format=", ".join(t.formats),
        rank=f"{t.rank[0]}-{t.rank[1]}",
    )


# -- typed views: one frozen dataclass per template kind ---------------------------------------------------------
#
# The renderer renders the template of every file kind of :func:`op_files` with that kind's view: the fields of
# the view are exactly the names the kind's template (with the templates it extends) reads, so a view carries no
# field its template ignores and a template reads nothing its view lacks (tests/test_views.py checks both, with
# ``jinja2.meta``). Jinja reads a dataclass attribute as it reads a dict key (``{{ x.name }}``, ``x["name"]``).

#: Names the renderer itself passes to every template besides the view's fields: ``file_kind`` (the kind being
#: rendered, ``binary_json:<config_name>`` for a binary config).
RENDERER_NAMES: frozenset[str] = frozenset({"file_kind"})


@dataclass(frozen=True)
class KindView:
    """Base of every per-kind view: a frozen dataclass whose fields are the template's variables.

    Subclasses set :attr:`KIND` to the file kind they render (a key of :func:`op_files`; ``binary_json`` for
    every ``binary_json:<config>``). A family subclasses a shared view to add the fields its own template of that
    kind reads.
    """

    KIND: ClassVar[str] = ""

    op: OpView

    def context(self) -> dict[str, Any]:
        """The template variables: every field by name (values as they are, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def freeze(value: Any) -> Any:
    """``value`` with lists turned into tuples and dicts into read-only mappings, recursively (dataclasses and
    scalars are kept): what a view field holds, so a template cannot change the plan it renders."""
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    return value


V = TypeVar("V", bound=KindView)


def view_from(cls: type[V], parts: Mapping[str, Any], **extra: Any) -> V:
    """An instance of the view ``cls`` taking each field from ``extra`` or, else, from ``parts`` (the family's
    plan entries by name), frozen with :func:`freeze`. Entries of ``parts`` the view does not declare are not
    taken.

    Raises:
        KeyError: a field of ``cls`` is in neither (names the view and the field).
    """
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in extra:
            values[f.name] = freeze(extra[f.name])
        elif f.name in parts:
            values[f.name] = freeze(parts[f.name])
        elif f.default is MISSING:
            raise KeyError(f"{cls.__name__}: no value for field '{f.name}'")
    return cls(**values)


@dataclass(frozen=True)
class AclnnHeaderView(KindView):
    """``op_api/aclnn_<op>.h``: include guard, parameter docs lines, the phase-1 signature."""

    KIND: ClassVar[str] = "op_api_h"
    guard: str
    header_doc: tuple[str, ...]
    signature: tuple[SignatureParam, ...]


@dataclass(frozen=True)
class CMakeView(KindView):
    """``CMakeLists.txt``: the SoC config names the OpDef registers."""

    KIND: ClassVar[str] = "cmake"
    compute_units: tuple[str, ...]


@dataclass(frozen=True)
class TestsCMakeView(KindView):
    """``tests/CMakeLists.txt``: ops-nn's entry into the op's tests, which enters ``ut/`` (no field beyond
    ``op``)."""

    KIND: ClassVar[str] = "tests_cmake"


@dataclass(frozen=True)
class TestsUtCMakeView(KindView):
    """``tests/ut/CMakeLists.txt``: the entry into the op_host unit tests, which enters ``op_host/`` (no field
    beyond ``op``)."""

    KIND: ClassVar[str] = "tests_ut_cmake"


@dataclass(frozen=True)
class UtCMakeView(KindView):
    """``tests/ut/op_host/CMakeLists.txt``: ops-nn's collection of the op_host unit tests (no field beyond
    ``op``)."""

    KIND: ClassVar[str] = "ut_cmake"


@dataclass(frozen=True)
class ProtoView(KindView):
    """``op_graph/<kernel>_proto.h``: the IR registration (``proto``: inputs, outputs, attrs)."""

    KIND: ClassVar[str] = "proto_h"
    proto: Proto


@dataclass(frozen=True)
class BinaryJsonView:
    """``op_host/config/<config>/<kernel>_binary.json``: the texts by SoC config name (the renderer's
    ``file_kind`` names the config). The only view without ``op``."""

    KIND: ClassVar[str] = "binary_json"
    binary_configs: Mapping[str, str]

    def context(self) -> dict[str, Any]:
        """The template variables (see :meth:`KindView.context`)."""
        return {"binary_configs": self.binary_configs}


@dataclass(frozen=True)
class L0HeaderView(KindView):
    """``op_api/<kernel>.h``: the L0 function's parameters (C declarations, aclnn order) and its return type
    (``l0_return``: one ``const aclTensor *``, or a ``std::tuple`` of them for an op with several outputs)."""

    KIND: ClassVar[str] = "l0_h"
    l0_params: tuple[str, ...]
    l0_return: str = "const aclTensor *"


@dataclass(frozen=True)
class TilingHeaderView(KindView):
    """``op_host/<kernel>_tiling.h``: the tiling struct (``tiling_fields``: name, c_type, comment, value,
    set_comment)."""

    KIND: ClassVar[str] = "tiling_h"
    guard: str
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str


@dataclass(frozen=True)
class OpDefView(KindView):
    """``op_host/<kernel>_def.cpp``: the OpDef registration (:func:`opdef_view` or the family's)."""

    KIND: ClassVar[str] = "def_cpp"
    opdef: OpDefRegistration


@dataclass(frozen=True)
class ExampleView(KindView):
    """``examples/test_aclnn_<op>.cpp``: the example data (:func:`example_view`, None without an example)."""

    KIND: ClassVar[str] = "example_cpp"
    example: ExampleData | None
    files: Mapping[str, str]
    signature: tuple[SignatureParam, ...]


@dataclass(frozen=True)
class UtTilingView(KindView):
    """``tests/ut/op_host/test_<kernel>_tiling.cpp``: the unit-test cases (:func:`ut_tiling_view`) and the
    tiling struct's ``tiling_fields`` (whose slots say where a case's fields are read)."""

    KIND: ClassVar[str] = "ut_tiling_cpp"
    ut_tiling: UtTilingSuite
    tiling_fields: tuple[TilingFieldRow, ...]

    def context(self) -> dict[str, Any]:
        """The fields, and ``field_slots``: :func:`tiling_field_slots` of the tiling struct."""
        return {**super().context(), "field_slots": tiling_field_slots(self.tiling_fields)}


@dataclass(frozen=True)
class UtInferShapeView(KindView):
    """``tests/ut/op_host/test_<kernel>_infershape.cpp``: the InferShape unit-test cases and the OpDef
    registration, whose outputs the InferShape context has."""

    KIND: ClassVar[str] = "ut_infershape_cpp"
    ut_infer: UtInferSuite
    opdef: OpDefRegistration

    def context(self) -> dict[str, Any]:
        """The fields, ``num_outputs`` (the OpDef's outputs) and ``output_instances`` (``IrInstanceNum``'s
        output list: 1 per output)."""
        n = len(self.opdef.default.outputs)
        return {**super().context(), "num_outputs": n, "output_instances": "{" + ", ".join(["1"] * n) + "}"}


@dataclass(frozen=True)
class OpViews:
    """Every view of one op: ``files`` (kind -> path relative to the op folder, :func:`op_files` with the
    products) and ``views`` (kind -> its view; ``binary_json`` serves every ``binary_json:<config>``)."""

    files: Mapping[str, str]
    views: Mapping[str, KindView | BinaryJsonView]

    def view_for(self, kind: str) -> KindView | BinaryJsonView:
        """The view rendering file ``kind`` (``binary_json:<config>`` -> the ``binary_json`` view).

        Raises:
            TypeError: no view for the kind, or the view is not the frozen typed view of that kind.
        """
        base = kind.split(":")[0]
        view = self.views.get(base)
        if view is None:
            raise TypeError(f"no view for file kind '{base}' (views: {', '.join(self.views)})")
        if not (isinstance(view, (KindView, BinaryJsonView)) and base == view.KIND):
            raise TypeError(
                f"the view of file kind '{base}' must be a frozen view dataclass with KIND '{base}' "
                f"(a subclass of codegen.plan.common.KindView); got {type(view).__name__}"
            )
        if not getattr(type(view), "__dataclass_params__").frozen:  # noqa: B009 (the dataclass flags)
            raise TypeError(f"the view of file kind '{base}' ({type(view).__name__}) must be a frozen dataclass")
        return view


#: The shared view class of each kind (the template every family uses unless it has its own); a family's own
#: template of a kind reads a subclass of it, or, for a kind without a shared template, its own :class:`KindView`.
SHARED_VIEWS: dict[str, type[KindView] | type[BinaryJsonView]] = {
    c.KIND: c
    for c in (
        AclnnHeaderView,
        CMakeView,
        TestsCMakeView,
        TestsUtCMakeView,
        UtCMakeView,
        ProtoView,
        BinaryJsonView,
        L0HeaderView,
        TilingHeaderView,
        OpDefView,
        ExampleView,
        UtTilingView,
        UtInferShapeView,
    )
}


def op_views(
    spec: OpSpec,
    catalogue: Catalogue,
    parts: Mapping[str, Any],
    own: Mapping[str, type[KindView]],
) -> OpViews:
    """The views of ``spec``: for each kind in ``own`` the family's view class, for every other kind the shared
    view of :data:`SHARED_VIEWS`, each filled from ``parts`` (:func:`common_view` entries, updated with
    :func:`ops_nn_view`, :func:`ut_tiling_view` and the family's own entries) with :func:`view_from`.

    Raises:
        KeyError: a kind of :func:`op_files` has no view class, or ``parts`` lacks a field a view declares.
    """
    files = op_files(spec, spec_products(spec, catalogue))
    views: dict[str, KindView | BinaryJsonView] = {}
    for kind in dict.fromkeys(k.split(":")[0] for k in files):
        cls = own.get(kind) or SHARED_VIEWS.get(kind)
        if cls is None:
            raise KeyError(f"file kind '{kind}' has no shared view: the family must give its own view class")
        if cls is BinaryJsonView:
            views[kind] = BinaryJsonView(freeze(parts["binary_configs"]))
        else:
            views[kind] = view_from(cls, parts)  # type: ignore[type-var]
    return OpViews(MappingProxyType(dict(files)), MappingProxyType(views))
