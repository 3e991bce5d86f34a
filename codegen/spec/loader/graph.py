"""The ``graph`` section: the device op's IR registration as ops-nn's ``op_graph/<kernel>_proto.h`` writes
it, where that differs from what the OpDef gives (see :mod:`codegen.spec.model.graph`)."""

from __future__ import annotations

from codegen.spec.loader.state import ParseState
from codegen.spec.model import DeviceInterface, TensorSpec
from codegen.spec.model.graph import GraphAttr, GraphProto, GraphTensor
from codegen.spec.yaml_reader import YNode, YSeq
from codegen.types import GRAPH_ATTR_TYPES, GRAPH_DATA_TYPES, GRAPH_TENSOR_TYPE_CLASSES


def _dtype_list(st: ParseState, node: YNode) -> tuple[str, ...]:
    """A non-empty list of ``ge::DataType`` names (without ``DT_``), in the proto's order; problems recorded,
    bad items skipped. A name may repeat, as a proto's text may (ops-nn's RmsNorm writes ``rstd`` as
    ``TensorType({DT_FLOAT, DT_FLOAT, DT_FLOAT})``). Returns the ``DT_*`` enumerators."""
    r = st.r
    items = r.seq(node)
    if items is None:
        return ()
    if not items:
        r.error(node, "empty dtype list; give at least one ge::DataType name (FLOAT, FLOAT16, BF16, ...)")
        return ()
    out: list[str] = []
    for item in items:
        name = r.string(item)
        if name is None:
            continue
        if name not in GRAPH_DATA_TYPES:
            r.error(item, f"unknown ge::DataType '{name}'; allowed: {', '.join(GRAPH_DATA_TYPES)}")
        else:
            out.append(f"DT_{name}")
    return tuple(out)


def _attr_default(st: ParseState, node: YNode, kind: str) -> str | None:
    """The C++ literal of a default of REG_OP attr type ``kind``, or None (recorded)."""
    r = st.r
    if kind in ("ListInt", "ListFloat", "ListBool"):
        if not isinstance(node, YSeq):
            r.error(node, f"a {kind} default is a list")
            return None
        parts = [_attr_default(st, item, kind[4:]) for item in node.items]
        return None if any(p is None for p in parts) else "{" + ", ".join(p for p in parts if p is not None) + "}"
    if kind == "Bool":
        value = r.boolean(node)
        return None if value is None else ("true" if value else "false")
    if kind == "Int":
        i = r.integer(node, -(1 << 63), (1 << 63) - 1)
        return None if i is None else str(i)
    if kind == "Float":
        v = r.number(node)
        if v is None:
            return None
        if abs(v) > 3.4028234663852886e38:
            r.error(node, f"{v} does not fit a float attr (largest finite fp32 3.4028235e+38)")
            return None
        return repr(float(v))
    text = r.line(node, "a String default of the IR registration")
    if text is None:
        return None
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_graph(st: ParseState, node: YNode) -> GraphProto | None:
    """The ``graph`` section: ``source`` (the ops-nn proto it mirrors), ``inputs``/``outputs`` (``{name,
    dtypes}`` or ``{name, symbol}``, inputs also ``optional``), ``attrs`` (``{name, type, default}`` or
    ``{name, type, required: true}``) and ``datatypes`` (``{name, dtypes}``: a ``DATATYPE`` tie that tensors
    name as their ``symbol``). Returns None when the section has an error (recorded), so that nothing later
    judges a partly read section."""
    r = st.r
    before = len(r.errors)
    m = r.mapping(node, ("source", "inputs", "outputs"), ("attrs", "datatypes"))
    if m is None:
        return None
    source = r.line(m["source"], "the ops-nn proto path") if "source" in m else None
    datatypes: list[tuple[str, tuple[str, ...]]] = []
    declared_at: dict[str, YNode] = {}
    for item in (r.seq(m["datatypes"]) or []) if "datatypes" in m else []:
        e = r.mapping(item, ("name", "dtypes"))
        if not e or "name" not in e or "dtypes" not in e:
            continue
        name = r.name(e["name"], reserved=False)
        dtypes = _dtype_list(st, e["dtypes"])
        if name is None or not dtypes:
            continue
        if any(n == name for n, _ in datatypes) or name in GRAPH_TENSOR_TYPE_CLASSES:
            r.error(e["name"], f"datatype '{name}' is already declared (or names a metadef TensorType class)")
            continue
        datatypes.append((name, dtypes))
        declared_at[name] = e["name"]
    symbols = [n for n, _ in datatypes] + list(GRAPH_TENSOR_TYPE_CLASSES)
    named: set[str] = set()
    seen: set[str] = set()

    def tensors(key: str) -> tuple[GraphTensor, ...]:
        out: list[GraphTensor] = []
        for item in r.seq(m[key]) or []:
            optional_key = ("optional",) if key == "inputs" else ()
            e = r.mapping(item, ("name",), ("dtypes", "symbol", *optional_key))
            if not e or "name" not in e:
                continue
            name = r.name(e["name"], reserved=False)
            optional = r.boolean(e["optional"]) if "optional" in e else False
            if ("dtypes" in e) == ("symbol" in e):
                r.error(item, "give exactly one of 'dtypes' (a list) and 'symbol' (a datatype or TensorType class)")
                continue
            dtypes: tuple[str, ...] = ()
            symbol = ""
            if "dtypes" in e:
                dtypes = _dtype_list(st, e["dtypes"])
                if not dtypes:
                    continue
            else:
                text = r.string(e["symbol"])
                if text is None:
                    continue
                if text not in symbols:
                    r.error(e["symbol"], f"unknown symbol '{text}'; allowed: {', '.join(symbols)}")
                    continue
                symbol = text
                named.add(text)
            if name is None or optional is None:
                continue
            if name in seen:
                r.error(e["name"], f"graph tensor name '{name}' is already used")
                continue
            seen.add(name)
            out.append(GraphTensor(name, optional, dtypes, symbol))
        if not out and r.seq(m[key]) == []:
            r.error(m[key], f"the IR registration has at least one {key[:-1]}")
        return tuple(out)

    inputs = tensors("inputs") if "inputs" in m else ()
    outputs = tensors("outputs") if "outputs" in m else ()
    for name, _ in datatypes:
        if name not in named:
            r.error(declared_at[name], f"datatype '{name}' is declared but no input or output names it as its symbol")
    attrs: list[GraphAttr] = []
    for item in (r.seq(m["attrs"]) or []) if "attrs" in m else []:
        e = r.mapping(item, ("name", "type"), ("default", "required"))
        if not e or "name" not in e or "type" not in e:
            continue
        name = r.name(e["name"], reserved=False)
        kind = r.string(e["type"])
        if kind is not None and kind not in GRAPH_ATTR_TYPES:
            r.error(e["type"], f"unknown REG_OP attr type '{kind}'; allowed: {', '.join(GRAPH_ATTR_TYPES)}")
            continue
        required = r.boolean(e["required"]) if "required" in e else False
        if required is None or name is None or kind is None:
            continue
        if "required" in e and not required:
            r.error(e["required"], "write 'required: true' or leave it out and give a 'default'")
            continue
        if required == ("default" in e):
            r.error(item, "give either a 'default' or 'required: true'")
            continue
        value = "" if required else _attr_default(st, e["default"], kind)
        if value is None:
            continue
        if any(a.name == name for a in attrs):
            r.error(e["name"], f"graph attr '{name}' is already declared")
            continue
        attrs.append(GraphAttr(name, kind, required, value))
    if source is None or len(r.errors) > before:
        return None  # no follow-on errors of a partly read section
    return GraphProto(inputs, outputs, tuple(attrs), tuple(datatypes), source, node.loc)


def graph_vs_device(
    st: ParseState,
    node: YNode,
    graph: GraphProto,
    device: DeviceInterface | None,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
) -> None:
    """Records where the ``graph`` section cannot describe the device op the OpDef registers: another number
    of inputs or outputs, an input optional in one and required in the other (position by position), or a
    tensor whose dtype list shares no dtype with the OpDef's. Names and dtype lists may otherwise differ
    (ops-nn's protos name tensors apart from their OpDefs: ThresholdGradV2D's
    ``gradients`` is the OpDef's ``gradOutput``)."""
    optional_aclnn = {t.name for t in inputs if t.optional}
    by_name = {t.name: t for t in (*inputs, *outputs)}
    if device is not None:
        dev_in = [d.source is None or d.source in optional_aclnn for d in device.inputs]
        dev_out = len(device.outputs)
        carried = [d.source for d in (*device.inputs, *device.outputs)]
    else:
        dev_in = [t.optional for t in inputs]
        dev_out = len(outputs)
        carried = [t.name for t in (*inputs, *outputs)]
    r = st.r
    if len(graph.inputs) != len(dev_in) or len(graph.outputs) != dev_out:
        r.error(
            node,
            f"the IR registration has {len(graph.inputs)} input(s) and {len(graph.outputs)} output(s), the OpDef "
            f"{len(dev_in)} and {dev_out}: the graph section describes the same device op, tensor for tensor",
        )
        return
    for k, (t, optional) in enumerate(zip(graph.inputs, dev_in, strict=True)):
        if t.optional != optional:
            r.error(
                node,
                f"graph input {k} ({t.name}) is {'optional' if t.optional else 'required'}, the OpDef's input "
                f"{k} is {'OPTIONAL' if optional else 'REQUIRED'}",
            )
    ties = dict(graph.datatypes)
    for t, source in zip((*graph.inputs, *graph.outputs), carried, strict=True):
        listed = t.dtypes or ties.get(t.symbol, ())
        spec_tensor = by_name.get(source) if source is not None else None
        if not listed or spec_tensor is None or spec_tensor.name in st.unread_dtypes:
            continue  # a metadef dtype class, an input no aclnn tensor feeds, or a dtype list reported
        opdef = {d.ge_name for d in spec_tensor.dtypes}
        if not opdef & set(listed):
            r.error(
                node,
                f"graph tensor {t.name} lists none of the dtypes the OpDef registers for it "
                f"({', '.join(sorted(n.removeprefix('DT_') for n in opdef))}): no graph could run the device op",
            )
