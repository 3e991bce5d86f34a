"""The ops-nn build files of an op: the per-SoC binary configs (``<kernel>_binary.json``), the SoC config names
of ``CMakeLists.txt`` and the IR registration (``op_graph/<kernel>_proto.h``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codegen.plan.opdef import OpDefConfig, OpDefParam, OpDefRegistration, OpDefTensors
from codegen.spec.generated_names import op_files
from codegen.spec.model import DType, GraphProto, GraphTensor, OpSpec, Product
from codegen.types import DEVICE_ATTR_TYPE_INFO

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

            def params(entries: Sequence[OpDefParam], column: int = col) -> list[Any]:
                # a DYNAMIC (tensor list) parameter is a list of its one entry, as the binary configs of ops-nn's
                # tensor-list ops write it (their op_host/config/ascend910b/*_binary.json)
                return [
                    [entry] if e.param_type == "DYNAMIC" else entry
                    for i, e in enumerate(entries)
                    for entry in [
                        {
                            "name": e.name,
                            "index": i,
                            "dtype": DType[split(e)[column].removeprefix("DT_")].binary_name,
                            "format": "ND",
                            "paramType": e.param_type.lower(),
                            "shape": [-2],
                        }
                    ]
                ]

            ins, outs = params(tensors.inputs), params(tensors.outputs)
            tag = "_".join(dict.fromkeys((t[0] if isinstance(t, list) else t)["dtype"] for t in (*ins, *outs)))
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
    """A tensor of the IR registration (``op_graph/<kernel>_proto.h``): name, whether optional, its type
    argument as the proto writes it (``TensorType({DT_FLOAT, DT_FLOAT16})``, ``"T"`` for a ``DATATYPE``
    name, ``TensorType(UnaryDataType)``), the dtypes in words for the comment, and whether it is a tensor
    list (``dynamic``: ``DYNAMIC_INPUT`` / ``DYNAMIC_OUTPUT``, metadef ``graph/operator_reg.h``)."""

    name: str
    optional: bool
    type_arg: str
    dtypes: str
    dynamic: bool = False


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
    #: ``DATATYPE(name, TensorType({...}))`` entries: (name, type argument).
    datatypes: tuple[tuple[str, str], ...] = ()


def graph_proto(graph: GraphProto) -> Proto:
    """The IR registration a spec's ``graph`` section writes: each tensor's type argument as ops-nn's proto
    has it (a dtype list in its order, a ``DATATYPE`` name in quotes, or a metadef dtype class name)."""
    ties = dict(graph.datatypes)

    def tensor(t: GraphTensor) -> ProtoTensor:
        if t.dtypes:
            listed = ", ".join(t.dtypes)
            return ProtoTensor(t.name, t.optional, f"TensorType({{{listed}}})", listed)
        if t.symbol in ties:
            words = f"{', '.join(ties[t.symbol])} (one dtype for every tensor of type {t.symbol})"
            return ProtoTensor(t.name, t.optional, f'"{t.symbol}"', words)
        return ProtoTensor(t.name, t.optional, f"TensorType({t.symbol})", f"the {t.symbol} class")

    return Proto(
        inputs=tuple(tensor(t) for t in graph.inputs),
        outputs=tuple(tensor(t) for t in graph.outputs),
        attrs=tuple(ProtoAttr(a.name, a.type, a.required, a.value) for a in graph.attrs),
        datatypes=tuple((name, f"TensorType({{{', '.join(dts)}}})") for name, dts in graph.datatypes),
    )


def ops_nn_view(spec: OpSpec, products: list[Product], opdef: OpDefRegistration) -> dict[str, Any]:
    """View entries of the ops-nn build files: the file list with the per-SoC binary configs (``files``), the
    binary config texts (``binary_configs``), the SoC config names for ``CMakeLists.txt``
    (``compute_units``) and the IR registration (``proto``)."""

    def proto_tensors(entries: Sequence[OpDefParam]) -> tuple[ProtoTensor, ...]:
        out = []
        for e in entries:
            dts = ", ".join(dict.fromkeys(d.strip().removeprefix("ge::") for d in e.dtypes.split(",") if d.strip()))
            out.append(
                ProtoTensor(
                    e.name, e.param_type == "OPTIONAL", f"TensorType({{{dts}}})", dts, e.param_type == "DYNAMIC"
                )
            )
        return tuple(out)

    graph = spec.graph
    if graph is None:
        proto = Proto(
            inputs=proto_tensors(opdef.default.inputs),
            outputs=proto_tensors(opdef.default.outputs),
            attrs=tuple(ProtoAttr(a.name, a.setter, a.attr_type == "REQUIRED", a.value) for a in opdef.attrs),
        )
    else:
        proto = graph_proto(graph)
    return {
        "files": op_files(spec, products),
        "binary_configs": binary_configs(spec, products, opdef),
        "compute_units": [p.config_name for p in products],
        "proto": proto,
    }
