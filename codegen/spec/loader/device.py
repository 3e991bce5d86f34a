"""The ``device`` section: the device op's (OpDef's) inputs, outputs and attrs, each carrying an aclnn
parameter or a constant, the aclnn attrs only the host reads, and the device dtype order.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Collection, Iterator, Sequence
from typing import cast

from codegen import registry
from codegen.spec.expr import FLOAT32_MAX
from codegen.spec.loader.fields import read_fp32_constant
from codegen.spec.loader.host_only import read_host_attrs, read_host_inputs
from codegen.spec.loader.state import ParseState
from codegen.spec.model import DEVICE_ATTR_TYPES, AttrSpec, DeviceAttr, DeviceInterface, DeviceTensor, DType, TensorSpec
from codegen.spec.naming import a_or_an
from codegen.spec.yaml_reader import Reader, YMap, YNode, YScalar, YSeq
from codegen.spec.yaml_reader.nodes import _join
from codegen.types import DEVICE_ATTR_TYPE_INFO


def _carrier_entries(r: Reader, items: Sequence[YNode], names: Collection[str], carried: set[str]) -> Iterator[YNode]:
    """Yields the entries of a device ``inputs``/``outputs``/``attrs`` list; after each entry that recorded an
    error, its ``from`` (when it names one of ``names``) joins ``carried``, and an entry whose ``from`` names
    none of them is counted in ``carried`` as the marker ``""``: the caller then reports no aclnn name as
    missing (the entry that failed may have been meant to carry it; the failure itself was reported)."""
    for item in items:
        before = len(r.errors)
        yield item
        if len(r.errors) == before:
            continue
        source = None
        if isinstance(item, YMap):
            source = next((v.value for k, v in item.entries if k.value == "from" and isinstance(v, YScalar)), None)
        carried.add(source if isinstance(source, str) and source in names else "")


def read_device(
    st: ParseState,
    node: YNode,
    family: str,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    attrs: tuple[AttrSpec, ...],
) -> DeviceInterface | None:
    """The ``device`` section: the OpDef's inputs/outputs (``{name, from}`` in registration order, every
    aclnn tensor at least once; an aclnn input may feed several device inputs, an output exactly one; a
    device input ``{name, optional: true}`` without ``from`` is an OPTIONAL input the L0 API passes as
    null; ``auto_contiguous: true`` declares a tensor ``AutoContiguous()``), attrs (``{name, from, type,
    default, attr_type}``; ``attr_type: REQUIRED`` with a ``default`` registers a REQUIRED attr whose
    setter gets that value; ``string`` attrs carry the name of an aclnn integer attr's value, so their
    source must have ``values``; ``{name, value, type, default}`` is a constant the L2 API always
    passes), ``host_attrs`` (aclnn attrs the device op does not take; the compute must
    not read them) and the dtype order."""
    r = st.r
    supported = [f.name for f in registry.families() if f.device_section]
    if family and family not in supported:
        r.error(node, f"a device section is supported by the {', '.join(supported)} family only, not '{family}'")
        return None
    # dtype_columns is read once the products are known (:func:`device_columns.read_dtype_columns`)
    m = r.mapping(node, ("inputs", "outputs"), ("attrs", "host_attrs", "host_inputs", "dtypes", "dtype_columns"))
    if m is None:
        return None
    reserved = {"workspace", "tiling", "tilingData", "op"}
    seen: dict[str, str] = {}

    int_arrays = {a.name for a in attrs if a.type == "int_array"}
    scalars = {a.name for a in attrs if a.type == "scalar"}
    scalars_named: set[str] = set()  # scalar attrs a device input names (a failed entry reported its own error)

    host_inputs: tuple[str, ...] = ()
    if "host_inputs" in m and family and not registry.family(family).host_inputs:
        r.error(m["host_inputs"], f"device.host_inputs is not supported by the {family} family")
    elif "host_inputs" in m:
        host_inputs = read_host_inputs(st, m["host_inputs"], inputs)

    def tensors(key: str, aclnn: tuple[TensorSpec, ...]) -> tuple[DeviceTensor, ...]:
        out: list[DeviceTensor] = []
        used: set[str] = set(host_inputs) if key == "inputs" else set()
        for item in _carrier_entries(r, r.seq(m[key]) or [], {t.name for t in aclnn}, used):
            e = r.mapping(
                item,
                ("name",),
                ("from", "optional", "auto_contiguous", "dtype", "fill", "like", "dtype_map")
                if key == "inputs"
                else ("from", "auto_contiguous"),
            )
            if not e or "name" not in e:
                continue
            auto_contiguous = r.boolean(e["auto_contiguous"]) if "auto_contiguous" in e else False
            if auto_contiguous is None:  # reported: expected true or false
                continue
            if "from" not in e:
                if key == "inputs" and "optional" in e and r.boolean(e["optional"]) is True:
                    name = r.name(e["name"], reserved=False)
                    if name is not None and name in seen:
                        r.error(e["name"], f"device name '{name}' is already used by {seen[name]}")
                    elif name is not None and name not in reserved:
                        seen[name] = key
                        out.append(DeviceTensor(name, None, item.loc, auto_contiguous))
                    elif name is not None:
                        r.error(e["name"], f"'{name}' is reserved in the kernel's entry; choose another name")
                elif key == "inputs" and "optional" in e:
                    r.error(e["optional"], "a device input without 'from' must be 'optional: true' (passed null)")
                else:
                    r.error(
                        item,
                        "missing required key 'from'"
                        + ("; only an 'optional: true' device input may omit it" if key == "inputs" else ""),
                        field=_join(item.path, "from"),
                    )
                continue
            if "optional" in e:
                r.error(e["optional"], "only a device input without 'from' is optional (it is passed null)")
                continue
            name = r.name(e["name"], reserved=False)
            source = r.string(e["from"])
            if name is None or source is None:
                continue
            if key == "inputs" and source in int_arrays:
                dtype = _array_input_dtype(st, e, item, source)
                if dtype is not None and name not in reserved and name not in seen:
                    seen[name] = key
                    out.append(DeviceTensor(name, source, item.loc, auto_contiguous, dtype))
                elif dtype is not None:
                    r.error(e["name"], f"device name '{name}' is reserved or already used; choose another name")
                continue
            if key == "inputs" and source in scalars:
                scalars_named.add(source)
                carrier = _scalar_input(st, e, item, name, source, auto_contiguous, inputs)
                if carrier is not None and name not in reserved and name not in seen:
                    seen[name] = key
                    out.append(carrier)
                elif carrier is not None:
                    r.error(e["name"], f"device name '{name}' is reserved or already used; choose another name")
                continue
            for extra in ("like", "dtype_map"):
                if extra in e:
                    r.error(e[extra], f"only a device input carrying a scalar attr has '{extra}'")
            if "like" in e or "dtype_map" in e:
                continue
            if "dtype" in e:
                r.error(e["dtype"], "only a device input carrying an int_array attr has a dtype (its tensor's)")
                continue
            if name in reserved:
                r.error(e["name"], f"'{name}' is reserved in the kernel's entry; choose another name")
                continue
            if key == "outputs" and name in {t.name for t in inputs}:
                r.error(e["name"], f"device output '{name}' would clash with an aclnn input in the L0 API")
                continue
            if name in seen:
                r.error(e["name"], f"device name '{name}' is already used by {seen[name]}")
                continue
            if source not in {t.name for t in aclnn}:
                r.error(
                    e["from"], f"'{source}' is not an aclnn {key[:-1]}; allowed: {', '.join(t.name for t in aclnn)}"
                )
                continue
            if key == "inputs" and source in host_inputs:
                r.error(e["from"], f"aclnn input '{source}' is listed in host_inputs (not sent to the device)")
                continue
            if source in used and key == "outputs":
                r.error(e["from"], f"aclnn {key[:-1]} '{source}' is already carried by another device {key[:-1]}")
                continue
            fill = _fill(st, e, next(t for t in aclnn if t.name == source)) if "fill" in e else False
            if fill is None:
                continue
            seen[name] = f"{key}"
            used.add(source)
            out.append(DeviceTensor(name, source, item.loc, auto_contiguous, fill=fill))
        missing = [t.name for t in aclnn if t.name not in used]
        if missing and "" not in used and r.seq(m[key]) is not None:
            r.error(
                m[key],
                f"every aclnn {key[:-1]} must be carried by one device {key[:-1]}; missing: {', '.join(missing)}",
            )
        return tuple(out)

    dev_inputs = tensors("inputs", inputs) if "inputs" in m else ()
    dev_outputs = tensors("outputs", outputs) if "outputs" in m else ()
    dev_attrs: list[DeviceAttr] = []
    used_attrs: set[str] = set()
    host_attrs = read_host_attrs(st, m["host_attrs"], attrs) if "host_attrs" in m else ()
    attr_items = (r.seq(m["attrs"]) or []) if "attrs" in m else []
    for item in _carrier_entries(r, attr_items, {a.name for a in attrs}, used_attrs):
        e = r.mapping(item, ("name", "type"), ("from", "value", "default", "attr_type"))
        if not e or not {"name", "type"} <= set(e):
            continue
        if ("from" in e) == ("value" in e):
            r.error(item, "a device attr needs exactly one of 'from' (an aclnn attr) and 'value' (a constant)")
            continue
        required = read_attr_type(st, e)
        if required is None:
            continue
        if "value" in e:
            constant = read_constant_device_attr(st, e, item, dev_attrs, inputs, outputs)
            if constant is not None:
                dev_attrs.append(dataclasses.replace(constant, required=required))
            continue
        name = r.name(e["name"], reserved=False)
        source = r.string(e["from"])
        type_ = r.string(e["type"])
        if name is None or source is None or type_ is None:
            continue
        if source in host_attrs:
            r.error(e["from"], f"aclnn attr '{source}' is listed in host_attrs (not sent to the device)")
            continue
        src = next((a for a in attrs if a.name == source), None)
        if src is None:
            r.error(
                e["from"],
                f"'{source}' is not an aclnn attr; allowed: {', '.join(a.name for a in attrs) or '(none)'}",
            )
            continue
        if source in used_attrs:
            r.error(e["from"], f"aclnn attr '{source}' is already carried by another device attr")
            continue
        if source in r.poisoned:  # its definition was reported: no follow-on error about its type
            used_attrs.add(source)
            continue
        if not device_attr_fits(st, e, name, type_, dev_attrs, (*inputs, *outputs)):
            continue
        if type_ == "list_bool" and st.family and not registry.family(st.family).output_mask:
            r.error(e["type"], f"a list_bool device attr (an output mask) is not supported by the {st.family} family")
            continue
        fits = {
            "int": src.type in ("int64", "uint64"),
            "bool": src.type == "bool",
            "float": src.type in ("float", "double", "scalar"),
            "string": (src.type in ("int64", "uint64") and bool(src.values)) or src.type == "string",
            "list_int": src.type == "int64",
            "list_bool": src.type == "bool_array",
        }[type_]
        if not fits:
            r.error(
                e["type"],
                f"{a_or_an(type_)} {type_} device attr cannot carry aclnn attr '{source}' ({src.type}"
                + (", without values" if type_ == "string" else "")
                + "); string needs an integer attr with values, int an integer, float a float/double, bool a bool,"
                " list_int an int64 (sent as the one-element list {value}), list_bool a bool_array; an int_array"
                " attr is checked by the L2 API only: list it in host_attrs",
            )
            continue
        default: int | float | bool | str | tuple[int, ...] | None = None
        if "default" in e and type_ == "list_int":
            default = read_list_int_default(st, e["default"])
            if default is None:
                continue
        elif "default" in e and type_ == "list_bool":
            bools = _list_bool_default(st, e["default"], src.length)
            if bools is None:
                continue
            default = bools
        elif "default" in e:
            d = e["default"]
            v = d.value if isinstance(d, YScalar) else None
            names = [n for _, n in src.values or ()]
            if type_ == "string" and src.type == "string" and src.values is None:
                pass  # the aclnn attr's values were reported: the default cannot be checked against them
            elif type_ == "string" and not (isinstance(v, str) and v in names):
                r.error(d, f"default must be one of the names of '{source}': {', '.join(names)}")
                continue
            if type_ == "bool" and not isinstance(v, bool):
                r.error(d, "default must be true or false for a bool attr")
                continue
            if type_ == "int" and (isinstance(v, bool) or not isinstance(v, int)):
                r.error(d, "default must be an integer for an int attr")
                continue
            if type_ == "float" and (isinstance(v, bool) or not isinstance(v, (int, float))):
                r.error(d, "default must be a number for a float attr")
                continue
            if type_ == "float":
                default = read_fp32_constant(st, d)  # the OpDef's Float(...) default
                if default is None:
                    continue
            else:
                default = v
        used_attrs.add(source)
        dev_attrs.append(DeviceAttr(name, source, type_, default, item.loc, required=required))
    used_attrs |= {d.source for d in dev_inputs if d.dtype is not None and d.source is not None} | scalars_named
    missing_attrs = [a.name for a in attrs if a.name not in used_attrs and a.name not in host_attrs]
    if missing_attrs and "" not in used_attrs:
        arrays = [a.name for a in attrs if a.name in missing_attrs and a.is_array]
        r.error(
            node,
            f"every aclnn attr must be carried by one device attr; missing: {', '.join(missing_attrs)}"
            + (
                f" (an array attr is checked by the L2 API only: list {', '.join(arrays)} in host_attrs)"
                if arrays
                else ""
            ),
            field=_join(node.path, "attrs"),
        )
    dtypes: tuple[DType, ...] | None = None
    if "dtypes" in m:
        dtypes = r.dtypes(m["dtypes"])
        listed = set(inputs[0].dtypes) if inputs else set()
        # An item of either list that names no dtype was reported where it is, and it may have meant any
        # dtype: the lists are compared once both are read whole (the difference would be a follow-on
        # error of that one typo). An empty tensor list (reported there too) is compared with nothing.
        comparable = bool(inputs) and inputs[0].name not in st.unread_dtypes
        comparable = comparable and not r.unread_dtypes(m["dtypes"])
        if dtypes and listed and comparable and set(dtypes) != listed:
            r.error(
                m["dtypes"],
                "the device dtype order must list exactly the tensors' dtypes ("
                + ", ".join(d.name for d in (inputs[0].dtypes if inputs else ()))
                + ")",
            )
    return DeviceInterface(
        dev_inputs, dev_outputs, tuple(dev_attrs), dtypes or None, node.loc, host_attrs, host_inputs=host_inputs
    )


def read_attr_type(st: ParseState, e: dict[str, YNode]) -> bool | None:
    """A device attr entry's ``attr_type``, the OpDef's ``AttrType``: whether it is ``REQUIRED`` although
    ``default`` gives its setter a value (True), or not (False: REQUIRED without a default, else OPTIONAL,
    as when the key is absent). None (recorded at the key) when it is neither ``REQUIRED`` nor ``OPTIONAL``,
    or ``OPTIONAL`` without a ``default``."""
    r = st.r
    if "attr_type" not in e:
        return False
    value = r.string(e["attr_type"])
    if value is None:
        return None
    if value not in ("REQUIRED", "OPTIONAL"):
        r.error(e["attr_type"], f"unknown attr_type '{value}'; allowed: OPTIONAL, REQUIRED")
        return None
    if value == "OPTIONAL" and "default" not in e:
        r.error(e["attr_type"], "an OPTIONAL device attr needs a 'default' (the value the OpDef registers)")
        return None
    return value == "REQUIRED" and "default" in e


def device_attr_fits(
    st: ParseState,
    e: dict[str, YNode],
    name: str,
    type_: str,
    dev_attrs: list[DeviceAttr],
    tensors: tuple[TensorSpec, ...],
) -> bool:
    """Whether the device attr entry ``e`` (read name ``name``, type ``type_``) clashes with no parameter of
    the L0 API (an aclnn tensor of ``tensors``, ``executor``, ``ret``) and no device attr of ``dev_attrs``,
    and names a type of :data:`DEVICE_ATTR_TYPES`. The first problem is recorded at its key."""
    r = st.r
    if name in {t.name for t in tensors} or name in {"executor", "ret"}:
        r.error(e["name"], f"device attr '{name}' would clash with a parameter of the L0 API; choose another name")
        return False
    if name in {a.name for a in dev_attrs}:
        r.error(e["name"], f"duplicate device attr '{name}'")
        return False
    if type_ not in DEVICE_ATTR_TYPES:
        r.error(e["type"], f"unknown device attr type '{type_}'; allowed: {', '.join(DEVICE_ATTR_TYPES)}")
        return False
    return True


def read_list_int_default(st: ParseState, node: YNode) -> tuple[int, ...] | None:
    """The default of a ``list_int`` device attr: a YAML list of one integer within int64 (``[-1]``, the
    OpDef's ``ListInt({-1})``). The attr carries one aclnn integer as the one-element list ``{value}`` and
    every generated tiling reads exactly one element (``GetListInt``, size 1), so a default of another
    length is an error. None (recorded, naming the entry) otherwise."""
    r = st.r
    if not isinstance(node, YSeq):
        got = node.value if isinstance(node, YScalar) else type(node).__name__
        r.error(node, f"default must be a list of integers for a list_int attr (e.g. [-1]), got {got!r}")
        return None
    out: list[int] = []
    for item in node.items:
        v = item.value if isinstance(item, YScalar) else None
        if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
            r.error(item, f"each element of a list_int default must be an int64 integer, got {v!r}")
            return None
        out.append(v)
    if len(out) != 1:
        r.error(
            node,
            f"default must be a one-element list for a list_int attr (it carries one aclnn integer as the list "
            f"{{value}}; the tiling reads one element), got {len(out)} elements {out}",
        )
        return None
    return tuple(out)


def read_constant_device_attr(
    st: ParseState,
    e: dict[str, YNode],
    item: YNode,
    dev_attrs: list[DeviceAttr],
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
) -> DeviceAttr | None:
    """A constant device attr ``{name, value, type, default}``: ``value`` (and ``default``, if given) of
    ``type`` (``int``: an integer, ``float``: a finite number within fp32's range, kept rounded to fp32,
    ``bool``, ``string``: a non-empty string).
    None (recorded) on a problem."""
    r = st.r
    name = r.name(e["name"], reserved=False)
    type_ = r.string(e["type"])
    if name is None or type_ is None:
        return None
    if not device_attr_fits(st, e, name, type_, dev_attrs, (*inputs, *outputs)):
        return None
    if DEVICE_ATTR_TYPE_INFO[type_].is_list:
        r.error(e["value"], f"a constant {type_} device attr is not supported; carry an aclnn attr with 'from'")
        return None

    def typed(node: YNode) -> int | float | bool | str | None:
        v = node.value if isinstance(node, YScalar) else None
        ok = {
            "int": isinstance(v, int) and not isinstance(v, bool),
            "float": isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= FLOAT32_MAX,
            "bool": isinstance(v, bool),
            "string": isinstance(v, str) and bool(v),
        }[type_]
        if not ok:
            r.error(node, f"expected a value of the device attr type '{type_}', got {v!r}")
            return None
        # a float attr holds an fp32: the constant is kept as the fp32 the device op gets (1/6 -> 0.16666667...)
        return float(struct.unpack("f", struct.pack("f", cast(float, v)))[0]) if type_ == "float" else v

    value = typed(e["value"])
    default = typed(e["default"]) if "default" in e else None
    if value is None or ("default" in e and default is None):
        return None
    return DeviceAttr(name, None, type_, default, item.loc, value)


#: Dtypes of a device input carrying an int_array attr (``aclOpExecutor::ConvertToTensor``'s integer tensors).
ARRAY_INPUT_DTYPES = (DType.INT32, DType.INT64)


def _array_input_dtype(st: ParseState, e: dict[str, YNode], item: YNode, source: str) -> DType | None:
    """The ``dtype`` of a device input carrying the int_array attr ``source`` (required: INT32 or INT64), or
    None (recorded)."""
    if "dtype" not in e:
        st.r.error(
            item,
            f"a device input carrying the int_array attr '{source}' needs 'dtype' (INT32 or INT64: the tensor "
            "ConvertToTensor makes of it)",
            field=_join(item.path, "dtype"),
        )
        return None
    dtype = st.r.dtype(e["dtype"])
    if dtype is not None and dtype not in ARRAY_INPUT_DTYPES:
        st.r.error(e["dtype"], f"the dtype of an int_array's tensor is INT32 or INT64, not {dtype.name}")
        return None
    return dtype


def _scalar_input(
    st: ParseState,
    e: dict[str, YNode],
    item: YNode,
    name: str,
    source: str,
    auto_contiguous: bool,
    inputs: tuple[TensorSpec, ...],
) -> DeviceTensor | None:
    """The device input ``name`` carrying the scalar attr ``source`` as a one-element tensor (the L2 API makes
    it with ``ConvertToTensor``): of the dtype of the aclnn input ``like`` (default: the first input) in every
    dtype column, but where ``dtype_map`` (``{<like dtype>: <dtype>}``, e.g. ``{BF16: FLOAT}``) maps it to
    another; None (recorded at the key) when ``like`` names no input or the map names a dtype ``like`` does
    not take, or maps a dtype to itself."""
    r = st.r
    if "dtype" in e:
        r.error(e["dtype"], "a device input carrying a scalar attr takes its dtypes from 'like' and 'dtype_map'")
        return None
    if "fill" in e:
        r.error(e["fill"], "fill: true is for a device input carrying an optional aclnn input, not a scalar attr")
        return None
    like = r.string(e["like"]) if "like" in e else (inputs[0].name if inputs else None)
    tensor = next((t for t in inputs if t.name == like), None)
    if tensor is None:
        at = e.get("like", item)
        r.error(at, f"'like' must name an aclnn input; allowed: {', '.join(t.name for t in inputs) or '(none)'}")
        return None
    pairs: list[tuple[DType, DType]] = []
    if "dtype_map" in e:
        m = r.mapping(e["dtype_map"], (), tuple(d.name for d in DType))
        if m is None:
            return None
        for key, node in m.items():
            dst = r.dtype(node)
            if dst is None:
                return None
            src = DType[key]
            if (src not in tensor.all_dtypes and tensor.name not in st.unread_dtypes) or dst is src:
                r.error(node, f"dtype_map maps a dtype of '{tensor.name}' to another; {key} -> {dst.name} does not")
                return None
            pairs.append((src, dst))
    return DeviceTensor(name, source, item.loc, auto_contiguous, like=tensor.name, like_map=tuple(pairs))


def _list_bool_default(st: ParseState, node: YNode, length: tuple[int, int] | None) -> tuple[bool, ...] | None:
    """The default of a ``list_bool`` device attr: a YAML list of true/false of a length the carried bool_array
    takes (``length``, its inclusive range; None: any). None (recorded at ``node`` or the item) on a problem."""
    r = st.r
    items = node.items if isinstance(node, YSeq) else None
    if items is None:
        r.error(node, "default must be a list of true/false for a list_bool attr (e.g. [true, true, true])")
        return None
    values = []
    for item in items:
        v = item.value if isinstance(item, YScalar) else None
        if not isinstance(v, bool):
            r.error(item, f"each element of a list_bool default must be true or false, got {v!r}")
            return None
        values.append(v)
    if length is not None and not length[0] <= len(values) <= length[1]:
        r.error(node, f"default has {len(values)} elements; the bool_array it carries takes {length[0]} to {length[1]}")
        return None
    return tuple(values)


def _fill(st: ParseState, e: dict[str, YNode], source: TensorSpec) -> bool | None:
    """A device input's ``fill``: true (the OpDef registers it REQUIRED; the L2 API passes a tensor of the aclnn
    input's default in place of a null one) only for an optional aclnn input with a ``default`` in a family that
    fills (:attr:`codegen.registry.Family.fill_inputs`). None (recorded) on a problem."""
    r = st.r
    fill = r.boolean(e["fill"])
    if fill is None:
        return None
    if not fill:
        return False
    if st.family and not registry.family(st.family).fill_inputs:
        r.error(e["fill"], f"fill: true is not supported by the {st.family} family")
        return None
    if not source.optional or source.default is None:
        r.error(
            e["fill"],
            f"fill: true needs an optional aclnn input with a default; '{source.name}' is "
            + ("optional without a default" if source.optional else "required"),
        )
        return None
    return True
