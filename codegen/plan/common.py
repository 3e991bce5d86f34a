"""View-model pieces every op family shares: file names, the aclnn signature, dtype lists per product,
the OpDef registration and the documentation/example data.

Everything a template prints is computed here; templates only place the strings.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import numpy as np

from codegen.spec.generated_names import op_files
from codegen.spec.model import Catalogue, DeviceAttr, DeviceTensor, DType, OpSpec, Product, TensorSpec
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


def tiling_field_views(fields: tuple[TilingField, ...], **names: str) -> list[dict[str, str]]:
    """The tiling-struct rows the tiling header and function templates print: ``name``, ``c_type``,
    ``comment`` (placeholders filled from ``names``), ``value`` (C++) and ``set_comment`` (empty)."""
    return [
        {
            "name": f.name,
            "c_type": f.c_type,
            "comment": f.comment.format(**names),
            "value": f.value_cpp,
            "set_comment": "",
        }
        for f in fields
    ]


#: ``binary.json`` attr dtype of each OpDef attr setter (the type table's device attr types).
_BINARY_ATTR_TYPES = {i.opdef_setter: i.binary_type for i in DEVICE_ATTR_TYPE_INFO.values()}


def binary_configs(spec: OpSpec, products: list[Product], opdef: dict[str, Any]) -> dict[str, str]:
    """The ``<kernel>_binary.json`` text of every product's SoC config: one ``op_list`` entry per dtype
    column the OpDef registers there (``opdef`` is the view's OpDef, :func:`opdef_view` or a family's), each
    input/output with its name, index, dtype, format ND, paramType and shape ``[-2]`` (any rank), and the
    attrs with their dtype and a null value (one binary serves every attr value). Keyed by config name."""
    out: dict[str, str] = {}
    by_name = {c["config_name"]: c for c in opdef["configs"]}
    for p in products:
        config = by_name[p.config_name]
        tensors = config if config["custom"] else opdef["default"]

        def split(entry: dict[str, Any]) -> list[str]:
            return [d.strip().removeprefix("ge::") for d in entry["dtypes"].split(",") if d.strip()]

        width = len(split(tensors["inputs"][0] if tensors["inputs"] else tensors["outputs"][0]))
        op_list = []
        for col in range(width):

            def params(entries: list[dict[str, Any]], column: int = col) -> list[dict[str, Any]]:
                return [
                    {
                        "name": e["name"],
                        "index": i,
                        "dtype": DType[split(e)[column].removeprefix("DT_")].binary_name,
                        "format": "ND",
                        "paramType": e["param_type"].lower(),
                        "shape": [-2],
                    }
                    for i, e in enumerate(entries)
                ]

            ins, outs = params(tensors["inputs"]), params(tensors["outputs"])
            tag = "_".join(dict.fromkeys(t["dtype"] for t in (*ins, *outs)))
            entry: dict[str, Any] = {"bin_filename": f"{spec.op_type}_{tag}", "inputs": ins, "outputs": outs}
            if opdef["attrs"]:
                entry["attrs"] = [
                    {"name": a["name"], "dtype": _BINARY_ATTR_TYPES[a["setter"]], "value": None} for a in opdef["attrs"]
                ]
            op_list.append(entry)
        out[p.config_name] = json.dumps({"op_type": spec.op_type, "op_list": op_list}, indent=2) + "\n"
    return out


def ops_nn_view(spec: OpSpec, products: list[Product], opdef: dict[str, Any]) -> dict[str, Any]:
    """View entries of the ops-nn build files: the file list with the per-SoC binary configs, the binary
    config texts, and the SoC config names for ``CMakeLists.txt``."""

    def proto_tensors(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for e in entries:
            dts = list(dict.fromkeys(d.strip().removeprefix("ge::") for d in e["dtypes"].split(",") if d.strip()))
            out.append({"name": e["name"], "optional": e["param_type"] == "OPTIONAL", "dtypes": ", ".join(dts)})
        return out

    proto = {
        "inputs": proto_tensors(opdef["default"]["inputs"]),
        "outputs": proto_tensors(opdef["default"]["outputs"]),
        "attrs": [
            {"name": a["name"], "type": a["setter"], "required": a["attr_type"] == "REQUIRED", "value": a["value"]}
            for a in opdef["attrs"]
        ],
    }
    return {
        "files": op_files(spec, products),
        "binary_configs": binary_configs(spec, products, opdef),
        "compute_units": [p.config_name for p in products],
        "proto": proto,
    }


def ut_tensor(shape: tuple[int, ...] | None, dtype: DType | None) -> dict[str, Any]:
    """One tensor of a unit-test tiling case: ``shape`` (elements per axis) and ``dtype``, or None for an
    absent optional input. ``shape`` is the C++ initializer text, ``dtype`` the ``ge::DT_*`` name."""
    if shape is None or dtype is None:
        return {"present": False, "shape": "", "dtype": ""}
    return {"present": True, "shape": "{" + ", ".join(str(d) for d in shape) + "}", "dtype": f"ge::{dtype.ge_name}"}


def ut_attr(device_type: str, value: int | float | bool | str) -> str:
    """The C++ expression of one device attr value of a unit-test tiling case (``opgen_rt::AttrValue``):
    ``device_type`` is the OpDef attr type (``int``, ``bool``, ``float``, ``string``)."""
    if device_type == "string":
        return f'opgen_rt::AttrValue::FromString("{value}")'
    if device_type == "bool":
        return f"opgen_rt::AttrValue::FromBool({'true' if value else 'false'})"
    if device_type == "float":
        return f"opgen_rt::AttrValue::FromFloat({float(value)!r}F)"
    return f"opgen_rt::AttrValue::FromInt({int(value)})"


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
    """The device attrs of ``spec`` in OpDef order as C++ ``AttrValue`` expressions, from ``values`` (by
    aclnn attr name; a string attr carries the name of the integer's value)."""
    out = []
    for da in spec.device_interface.attrs:
        if da.source is None:  # a constant attr
            out.append(ut_attr(da.type, cast(Any, da.value)))
            continue
        value = values[da.source]
        if da.type == "string":
            names = dict(spec.attr(da.source).values or ())
            out.append(ut_attr("string", names[int(value)]))
        else:
            out.append(ut_attr(da.type, value))
    return out


def ut_case_name(product: Product, *parts: object) -> str:
    """A gtest test name (a C identifier) for a case on ``product`` described by ``parts``."""
    text = "_".join([product.name, *(str(p) for p in parts)])
    return "".join(c if c.isalnum() else "_" for c in text)


def ut_infer_case(
    name: str,
    inputs: list[dict[str, Any]],
    attrs: list[str],
    outputs: list[tuple[tuple[int, ...], DType]] | None,
    note: str,
) -> dict[str, Any]:
    """One infershape unit-test case: ``inputs`` (:func:`ut_tensor`, OpDef order), ``attrs`` (:func:`ut_attr`
    expressions), and the expected ``outputs`` (shape, dtype) in OpDef order, or None when the InferShape
    function must fail."""
    return {
        "name": name,
        "note": note,
        "inputs": inputs,
        "attrs": attrs,
        "ok": outputs is not None,
        "outputs": [
            {"dims": "{" + ", ".join(str(d) for d in shape) + "}", "dtype": f"ge::{dt.ge_name}"}
            for shape, dt in outputs or []
        ],
    }


def ut_tiling_view(
    spec: OpSpec, cases: list[dict[str, Any]], infer_cases: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """View entries of the op_host unit test ``tests/ut/op_host/test_<kernel>_tiling.cpp``.

    ``cases``: one dict per test with ``name`` (C identifier), ``product`` (catalogue name the case expects
    the library to be built for), ``inputs``/``outputs`` (:func:`ut_tensor`, OpDef order), ``attrs``
    (:func:`ut_attr` expressions, OpDef order), ``deterministic`` (0/1), the expected ``tiling_key``,
    ``block_dim``, ``workspace`` (bytes, system workspace included) and ``fields`` (``[{"name", "value"}]``,
    integer tiling fields), all computed by the family's planner (``tiling_decision``), and ``note`` (a
    one-line description). ``infer_cases`` (:func:`ut_infer_case`) feed ``test_<kernel>_infershape.cpp``."""
    return {
        "ut": {
            "fixture": f"{spec.op_type}Tiling",
            "cases": cases,
            "infer_fixture": f"{spec.op_type}InferShape",
            "infer_cases": infer_cases or [],
        }
    }


def spec_products(spec: OpSpec, catalogue: Catalogue) -> list[Product]:
    """The catalogue products ``spec`` lists, in the spec's order."""
    return [catalogue.get(name) for name in spec.products]


def in_aclnn_order(spec: OpSpec, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` (dicts with a ``name`` of an aclnn input, attr or output, one each) sorted into the C
    parameter order of :attr:`OpSpec.aclnn_order` (the spec's ``signature`` key, or inputs, attrs, outputs)."""
    position = {name: i for i, name in enumerate(spec.aclnn_order)}
    return sorted(entries, key=lambda e: position[e["name"]])


def signature(spec: OpSpec) -> list[dict[str, Any]]:
    """The phase-1 parameters in aclnn order (:attr:`OpSpec.aclnn_order`: the spec's ``signature`` key, or
    inputs, attributes, outputs), without workspaceSize/executor.

    Each entry has ``name``, ``decl`` (C declaration) and ``kind`` (``input``, ``attr`` or ``output``).
    """
    params: list[dict[str, Any]] = []
    for t in spec.inputs:
        params.append({"name": t.name, "decl": f"const aclTensor *{t.name}", "kind": "input"})
    for a in spec.attrs:
        if a.type == "scalar":
            # The public parameter is the aclScalar; the internal checks see its value as a double.
            params.append(
                {
                    "name": a.name,
                    "decl": f"const aclScalar *{a.name}",
                    "decl_const": f"double {a.name}",
                    "arg": f"{a.name}Value",
                    "kind": "attr",
                    "scalar": "1",
                    "dtype_invalid": " && ".join(
                        f"{a.name}->GetDataType() != op::DataType::DT_{d}" for d in a.scalar_dtypes
                    ),
                    "dtype_text": ", ".join(a.scalar_dtypes),
                }
            )
        elif a.type == "string":
            # The public parameter is the char *; the internal checks see the index of the value (-1: none).
            params.append(
                {
                    "name": a.name,
                    "decl": f"char *{a.name}",
                    "decl_const": f"int64_t {a.name}",
                    "arg": f"{a.name}Value",
                    "kind": "attr",
                    "string": "1",
                    "string_values": [{"index": k, "text": n} for k, n in a.values or ()],
                    "values_text": ", ".join(n for _, n in a.values or ()),
                }
            )
        else:
            params.append({"name": a.name, "decl": f"{ATTR_TYPE_INFO[a.type].c_type} {a.name}", "kind": "attr"})
    for t in spec.outputs:
        const = "const " if getattr(t, "const", False) else ""
        params.append({"name": t.name, "decl": f"{const}aclTensor *{t.name}", "kind": "output"})
    return in_aclnn_order(spec, params)


def arch_groups(products: list[Product]) -> list[dict[str, Any]]:
    """The NpuArchs of ``products`` in first-appearance order, each with the products that have it.

    Generated code selects per-product behaviour by NpuArch (``GetCurNpuArch()`` on the host,
    ``__NPU_ARCH__`` in kernels), never by SoC name, so a catalogue product CANN's enums do not know
    compiles unchanged; products sharing an NpuArch agree on every capability the generated code keys on
    (the catalogue loader enforces it). Returns ``[{"arch": 2201, "products": "Ascend910B, Ascend910_93"}]``.
    """
    groups: dict[int, list[str]] = {}
    for p in products:
        groups.setdefault(p.npu_arch, []).append(p.name)
    return [{"arch": arch, "products": ", ".join(names)} for arch, names in groups.items()]


def dtype_groups(tensor: TensorSpec, products: list[Product]) -> list[dict[str, Any]]:
    """Products grouped by the dtype list ``tensor`` has on them, keyed by NpuArch.

    Returns a list of ``{"archs": [{"arch": int, "products": str}], "products": [names], "dtypes":
    [op::DataType names], "names": [spec dtype names]}``, in first-appearance order. Every NpuArch falls in
    exactly one group (the dtype list depends only on the bf16 capability, which an NpuArch fixes).
    """
    groups: list[dict[str, Any]] = []
    for p in products:
        dts = tensor.dtypes_for(p)
        for g in groups:
            if g["key"] == dts:
                g["members"].append(p)
                g["products"].append(p.name)
                break
        else:
            groups.append(
                {
                    "key": dts,
                    "members": [p],
                    "products": [p.name],
                    "dtypes": [f"op::DataType::{d.ge_name}" for d in dts],
                    "names": [d.name for d in dts],
                }
            )
    for g in groups:
        g["archs"] = arch_groups(g.pop("members"))
    return groups


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


def ut_device_inputs(spec: OpSpec, by_source: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The unit-test tensors of the device inputs in OpDef order: ``by_source`` (the tensor of each aclnn
    input, see :func:`ut_tensor`) for each carried input, an absent tensor for an optional device input that
    no aclnn input feeds."""
    return [ut_tensor(None, None) if d.source is None else by_source[d.source] for d in spec.device_interface.inputs]


def l0_constant_attr(attr: DeviceAttr) -> dict[str, str]:
    """The L0 parameter of a constant device attr (``source`` None): ``name``, ``decl`` (``float alpha``) and
    ``arg``, the C++ literal of its ``value`` the L2 API passes (``0.16666666666666666F``, ``true``,
    ``"mean"``, ``2``)."""
    v = attr.value
    if attr.type == "string":
        return {"name": attr.name, "decl": f"const std::string &{attr.name}", "arg": json.dumps(v)}
    c_type = {"int": "int64_t", "bool": "bool", "float": "float"}[attr.type]
    arg = str(v).lower() if isinstance(v, bool) else f"{float(cast(float, v))!r}F" if attr.type == "float" else str(v)
    return {"name": attr.name, "decl": f"{c_type} {attr.name}", "arg": arg}


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


def opdef_view(spec: OpSpec, products: list[Product]) -> dict[str, Any]:
    """OpDef registration of the device interface (:attr:`OpSpec.device_interface`): the default dtype
    lists (every product's dtypes) and per-product configs where they differ; attrs with their setter
    (``Int``/``Bool``/``Float``/``String``) and default (OPTIONAL) or none (REQUIRED)."""
    dev = spec.device_interface

    def param(name: str, t: TensorSpec, dts: tuple[DType, ...]) -> dict[str, Any]:
        return {
            "name": name,
            "param_type": "OPTIONAL" if t.optional else "REQUIRED",
            "dtypes": ", ".join(f"ge::{d.ge_name}" for d in dts),
            "formats": ", ".join("ge::FORMAT_ND" for _ in dts),
        }

    dev_in = device_tensor_specs(spec, dev.inputs)
    dev_out = device_tensor_specs(spec, dev.outputs)
    default = {
        "inputs": [param(n, t, device_dtypes(spec, t, None)) for n, t in dev_in],
        "outputs": [param(n, t, device_dtypes(spec, t, None)) for n, t in dev_out],
    }
    configs = []
    for p in products:
        differs = any(device_dtypes(spec, t, p) != device_dtypes(spec, t, None) for _, t in [*dev_in, *dev_out])
        configs.append(
            {
                "config_name": p.config_name,
                "var": f"{p.config_name}Config",
                "custom": differs,
                "inputs": [param(n, t, device_dtypes(spec, t, p)) for n, t in dev_in],
                "outputs": [param(n, t, device_dtypes(spec, t, p)) for n, t in dev_out],
            }
        )
    attrs = []
    for a in dev.attrs:
        setter = DEVICE_ATTR_TYPE_INFO[a.type].opdef_setter
        if a.default is None:
            attrs.append({"name": a.name, "attr_type": "REQUIRED", "setter": setter, "value": ""})
        else:
            attrs.append(
                {"name": a.name, "attr_type": "OPTIONAL", "setter": setter, "value": device_attr_value(spec, a)}
            )
    return {"default": default, "configs": configs, "attrs": attrs}


def status_row(status: AclnnStatus, when: str) -> dict[str, Any]:
    """A row of the docs' status table: the ``aclnnStatus`` name, its code and when the API returns it."""
    return {"name": status.name, "value": int(status), "when": when}


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


def example_view(spec: OpSpec) -> dict[str, Any] | None:
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
    tensors.append(_example_tensor(out_name, ex.output.shape, ex.output.dtype, [0] * size, is_output=True))
    attrs = []
    for name, value in ex.attrs:
        a = spec.attr(name)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if a.type == "string":
            attrs.append({"name": name, "c_type": "char", "value": text, "string": "1"})
        elif a.type == "scalar":
            # An aclScalar made from a host value of the attr's first accepted dtype (FLOAT or DOUBLE).
            c_type, acl = ("double", "ACL_DOUBLE") if "FLOAT" not in a.scalar_dtypes[:1] else ("float", "ACL_FLOAT")
            if c_type == "float" and not isinstance(value, bool):
                text = f"{float(value)!r}f"  # a float literal: 0.01 would warn (-Wfloat-conversion) as a double
            attrs.append({"name": name, "c_type": c_type, "value": text, "scalar_acl": acl})
        else:
            attrs.append({"name": name, "c_type": ATTR_TYPE_INFO[a.type].c_type, "value": text})
    given = {name for name, _ in ex.inputs}
    null_inputs = [t.name for t in spec.inputs if t.optional and t.name not in given]
    uses_bf16 = any(t["dtype"] == "BF16" for t in tensors)
    return {
        "tensors": tensors,
        "attrs": attrs,
        "output": tensors[-1],
        "null_inputs": null_inputs,
        "uses_bf16": uses_bf16,
    }


def _example_tensor(
    name: str, shape: tuple[int, ...], dtype: DType, values: list[Any], is_output: bool
) -> dict[str, Any]:
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
    return {
        "name": name,
        "shape": ", ".join(str(d) for d in shape),
        "acl_dtype": dtype.acl_name,
        "host_type": dtype.host_type,
        "data": ", ".join(host_values),
        "is_output": is_output,
        "print_fmt": dtype.printf_format,
        "is_16bit": dtype.is_16bit_float,
        "dtype": dtype.name,
    }


def json_compact(value: object) -> str:
    """Deterministic compact JSON (sorted keys), for hashes and manifests."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def common_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """View-model entries every family's templates use (files, signature, OpDef, doc tables, example)."""
    products = spec_products(spec, catalogue)
    sig = signature(spec)
    for p in sig:
        if "decl_const" not in p:
            p["decl_const"] = (
                p["decl"] if p["decl"].startswith("const ") or p["kind"] == "attr" else "const " + p["decl"]
            )
        p.setdefault("arg", p["name"])
        p.setdefault("scalar", "")
        p.setdefault("string", "")
    tensors = [
        {
            "name": t.name,
            "min_rank": t.rank[0],
            "max_rank": t.rank[1],
            "optional": t.optional,
            # the storage formats the L2 API accepts (every other one is ACLNN_ERR_PARAM_INVALID)
            "format_condition": " && ".join(f"{t.name}->GetStorageFormat() != Format::FORMAT_{f}" for f in t.formats),
            "format_text": ", ".join(t.formats),
        }
        for t in [*spec.inputs, *spec.outputs]
    ]
    attr_params = [{"name": a.name, "decl": f"{ATTR_TYPE_INFO[a.type].c_type} {a.name}"} for a in spec.attrs]
    attr_checks = []
    for a in spec.attrs:
        if a.values and a.type != "string":  # a string's validity is checked on the char * itself
            allowed = [v for v, _ in a.values]
            cond = " && ".join(f"{a.name} != {v}" for v in allowed)
            text = ", ".join(f"{v} ({n})" for v, n in a.values)
            attr_checks.append({"name": a.name, "invalid_condition": cond, "allowed_text": text})
    support = [
        {"name": prod.name, "doc_term": prod.doc_term, "support": "yes" if prod.name in spec.products else "no"}
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
            {
                "name": a.name,
                "direction": "input (host)",
                "description": f"{a.description} Values: {values}." if a.values else a.description,
                "dtypes": (
                    f"aclScalar ({', '.join(a.scalar_dtypes)})"
                    if a.type == "scalar"
                    else f"char * ({', '.join(n for _, n in a.values or ())})"
                    if a.type == "string"
                    else ATTR_TYPE_INFO[a.type].c_type
                ),
                "format": "-",
                "rank": "-",
            }
        )
    for t in spec.outputs:
        param_rows.append(_param_row(t, products, "output"))
    param_rows = in_aclnn_order(spec, param_rows)
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
        "header_doc": [
            f"{r['name']}: {r['dtypes']}; rank {r['rank']}." for r in param_rows if r["direction"] != "input (host)"
        ],
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
        name; input_names: aclnn input names in order; tiling: the tiling parameters.
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

    @classmethod
    def of(cls, spec: OpSpec) -> OpView:
        """The view of ``spec``."""
        t = spec.tiling
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
        )


def format_rule_text(spec: OpSpec) -> str:
    """The status-table wording of the format rule: "a format other than ND" when every tensor takes ND
    only, else the accepted formats per tensor ("a storage format outside grad: ND, NCHW; ...")."""
    tensors = [*spec.inputs, *spec.outputs]
    if all(t.formats == ("ND",) for t in tensors):
        return "a format other than ND"
    return "a storage format outside " + "; ".join(f"{t.name}: {', '.join(t.formats)}" for t in tensors)


def _param_row(t: TensorSpec, products: list[Product], direction: str) -> dict[str, str]:
    groups = dtype_groups(t, products)
    if len(groups) == 1:
        dtypes = ", ".join(groups[0]["names"])
    else:
        dtypes = "; ".join(f"{', '.join(g['products'])}: {', '.join(g['names'])}" for g in groups)
    return {
        "name": t.name,
        "direction": direction,
        "description": t.description + (" May be null." if t.optional else ""),
        "dtypes": dtypes,
        "format": ", ".join(t.formats),
        "rank": f"{t.rank[0]}-{t.rank[1]}",
    }
