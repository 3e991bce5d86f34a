"""The ``graph`` section: the device op's IR registration (``op_graph/<kernel>_proto.h``) where ops-nn's
proto differs from what the OpDef gives (tensor names, dtype lists and their order, attrs, a ``DATATYPE``
tie).

The proto's text is part of the graph contract: CANN's ``INPUT``/``OUTPUT`` macros store the text of their
type argument as the tensor's dtype symbol (``Operator::InputRegister(#x, #t)`` in hicann/ge
``inc/graph_metadef/external/graph/operator_reg.h``), and a ``DATATYPE(T, ...)`` name ties every tensor
that names it to one dtype. So a folder that replaces ops-nn's keeps its proto as ops-nn writes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.errors import SourceLoc


@dataclass(frozen=True)
class GraphTensor:
    """One input or output of the IR registration.

    Attributes:
        name: the IR name (``gradients``).
        optional: an ``OPTIONAL_INPUT`` (inputs only).
        dtypes: the ``DT_*`` enumerators of its ``TensorType({...})`` list, in the proto's order; empty when
            ``symbol`` is set.
        symbol: a ``DATATYPE`` name of the section (rendered ``"T"``) or a TensorType class name of the
            proto (rendered ``TensorType(UnaryDataType)``); empty when ``dtypes`` is set.
    """

    name: str
    optional: bool
    dtypes: tuple[str, ...]
    symbol: str


@dataclass(frozen=True)
class GraphAttr:
    """One attr of the IR registration: name, REG_OP type (``Int``, ``Float``, ``Bool``, ``String``,
    ``ListInt``, ``ListFloat``, ``ListBool``), whether ``REQUIRED_ATTR``, and its default as a C++ literal
    (empty when required)."""

    name: str
    type: str
    required: bool
    value: str


@dataclass(frozen=True)
class GraphProto:
    """The ``graph`` section: the IR registration of the device op as ops-nn writes it.

    Attributes:
        inputs, outputs, attrs: in registration order.
        datatypes: the ``DATATYPE(name, TensorType({...}))`` entries, ``(name, DT_* enumerators)``.
        source: the ops-nn file the registration mirrors (``activation/x/op_graph/x_proto.h``).
        loc: where the section starts in the spec.
    """

    inputs: tuple[GraphTensor, ...]
    outputs: tuple[GraphTensor, ...]
    attrs: tuple[GraphAttr, ...]
    datatypes: tuple[tuple[str, tuple[str, ...]], ...]
    source: str
    loc: SourceLoc
