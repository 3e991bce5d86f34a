"""Expression scopes of spec sections and the context a family's compute parser gets.

Nothing here writes files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codegen.spec.errors import SourceLoc
from codegen.spec.expr import (
    HOST_NUMERIC_SIGNATURES,
    PRESENCE_SIGNATURES,
    SHAPE_SIGNATURES,
    TENSOR_SIGNATURES,
    ExprType,
    Scope,
)
from codegen.spec.model import (
    ATTR_TYPES,
    AttrSpec,
    DType,
    TensorSpec,
)
from codegen.spec.naming import _DTYPE_NAMES, PLATFORM_NAMES
from codegen.spec.yaml_reader import Reader, YNode

# ----------------------------------------------------------------------------------------------- scopes

_TENSOR_FUNCS = ", ".join(sorted(TENSOR_SIGNATURES))


def shape_scope(inputs: Sequence[TensorSpec], attrs: Sequence[AttrSpec]) -> Scope:
    """Scope of output ``shape`` expressions: input tensors (as tensors), attrs (an ``int_array`` as a shape:
    ``rank(normalizedShape)`` is its length), ``broadcast``, ``shape``, ``numel``, ``rank``, ``dim``, ``abs``,
    ``min``, ``max``."""
    functions = {**SHAPE_SIGNATURES, **{k: v for k, v in TENSOR_SIGNATURES.items() if k != "dtype"}}
    functions.update(HOST_NUMERIC_SIGNATURES)
    allowed = {t.name: ExprType.TENSOR for t in inputs}
    allowed.update({a.name: a.expr_type for a in _typed(attrs)})
    allowed.update({a.name: ExprType.SHAPE for a in attrs if a.type == "int_array"})
    groups = (("input tensors", tuple(t.name for t in inputs)), ("attrs", tuple(a.name for a in _typed(attrs))))
    return Scope(allowed, functions, groups, ranks=_ranks(inputs))


def _ranks(tensors: Sequence[TensorSpec]) -> dict[str, tuple[int, int]]:
    """The rank range of each tensor (for the axis check of ``dim``)."""
    return {t.name: t.rank for t in tensors}


def _typed(attrs: Sequence[AttrSpec]) -> list[AttrSpec]:
    """The attrs whose type is valid (others were reported and are left out of scopes)."""
    return [a for a in attrs if a.type in ATTR_TYPES]


def _host_scope(
    tensors: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    extra: Sequence[tuple[str, ExprType]],
    extra_label: str,
    presence: bool = False,
) -> Scope:
    allowed: dict[str, ExprType] = {a.name: a.expr_type for a in _typed(attrs)}
    allowed.update(dict(extra))
    allowed.update({t.name: ExprType.TENSOR for t in tensors})
    allowed.update(PLATFORM_NAMES)
    allowed.update({d: ExprType.DTYPE for d in _DTYPE_NAMES})
    groups = (
        ("attrs", tuple(a.name for a in _typed(attrs))),
        (extra_label, tuple(n for n, _ in extra)),
        (f"tensors (only inside {_TENSOR_FUNCS})", tuple(t.name for t in tensors)),
        ("platform", tuple(PLATFORM_NAMES)),
        ("dtypes", _DTYPE_NAMES),
    )
    functions = {**TENSOR_SIGNATURES, **HOST_NUMERIC_SIGNATURES, **(PRESENCE_SIGNATURES if presence else {})}
    return Scope(allowed, functions, groups, ranks=_ranks(tensors))


def scalar_scope(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    scalars: Sequence[tuple[str, ExprType]] = (),
) -> Scope:
    """Scope of host-evaluated ``compute.scalars``: attrs, earlier scalars, ``coreNum``, ``ubBytes``, dtype
    names, and tensors (inputs and outputs) only as arguments of ``numel``, ``rank``, ``dim``, ``dtype``;
    functions ``numel``, ``rank``, ``dim``, ``dtype``, ``abs``, ``min``, ``max``."""
    return _host_scope((*inputs, *outputs), attrs, scalars, "scalars")


def constraint_scope(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    lets: Sequence[tuple[str, ExprType]] = (),
) -> Scope:
    """Scope of constraint ``when``/``let``/``require``: as :func:`scalar_scope`, with let names (those
    defined so far) instead of scalars, and ``present(tensor)`` (whether the call passed a nullable output or
    an optional input)."""
    return _host_scope((*inputs, *outputs), attrs, lets, "lets", presence=True)


# ------------------------------------------------------------------------------------ compute parsers


@dataclass
class ComputeContext:
    """What a family's compute parser gets besides the ``compute`` node.

    Attributes:
        reader: typed access to nodes; record problems with ``reader.error(node, message)``.
        inputs: the op's inputs (parsed; names may be placeholders where they were invalid).
        outputs: the op's outputs.
        attrs: the op's attrs.
        taken: names already used (tensors, attrs): name -> ``(field path, loc)``; parsers that
            introduce names (scalars) register them with :meth:`claim`.
        unread_dtypes: the tensors whose ``dtypes`` were not read (missing, or naming an unknown dtype; reported
            there): a dtype rule comparing them is not checked (:meth:`dtypes_read`).
        unread_ranks: the tensors whose ``rank`` was not read (missing or invalid; reported there): a rule on
            their rank is not checked (:meth:`ranks_read`).
    """

    reader: Reader
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    attrs: tuple[AttrSpec, ...]
    taken: dict[str, tuple[str, SourceLoc]]
    unread_dtypes: frozenset[str] = frozenset()
    unread_ranks: frozenset[str] = frozenset()

    def dtypes_read(self, *tensors: TensorSpec) -> bool:
        """Whether every one of ``tensors`` has its ``dtypes`` read: a rule comparing their dtypes is checked only
        then (a list that was reported would only make follow-on errors of that one fault)."""
        return not any(t.name in self.unread_dtypes for t in tensors)

    def ranks_read(self, *tensors: TensorSpec) -> bool:
        """Whether every one of ``tensors`` has its ``rank`` read: a rule on their ranks is checked only then (the
        stand-in ``[0, 8]`` of a reported one would only make follow-on errors)."""
        return not any(t.name in self.unread_ranks for t in tensors)

    def claim(self, node: YNode, name: str) -> bool:
        """Registers a new name; records a duplicate-name error and returns False when it is taken."""
        return _claim(self.reader, self.taken, node, name)

    def require_dtypes(self, node: YNode, tensor: TensorSpec, allowed: Sequence[DType], what: str) -> bool:
        """Records one error at ``node`` when ``tensor`` lists a dtype outside ``allowed`` (in ``dtypes`` or a
        product's ``product_dtypes``) and returns False; True when every dtype is allowed. ``what`` says what
        the family does with the tensor (the message reads
        "'<name>' has dtypes A, B; <what>: <allowed>")."""
        bad = [d.name for d in tensor.all_dtypes if d not in allowed]
        if bad:
            self.reader.error(
                node, f"'{tensor.name}' has dtypes {', '.join(bad)}; {what}: {', '.join(d.name for d in allowed)}"
            )
        return not bad


#: A family's compute parser: takes the ``compute`` node and the context, records problems in
#: ``ctx.reader`` and returns the family's compute model (None when it could not be built).
ComputeParser = Callable[[YNode, ComputeContext], object]


def _claim(r: Reader, taken: dict[str, tuple[str, SourceLoc]], node: YNode, name: str) -> bool:
    if name in taken:
        field, loc = taken[name]
        r.error(node, f"duplicate name '{name}' (already used by {field} at line {loc.line}); names must be unique")
        return False
    taken[name] = (node.path, node.loc)
    return True
