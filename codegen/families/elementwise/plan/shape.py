"""The elementwise output-shape rule (``like`` an input or the ``broadcast`` of inputs) and the L2 shape
check the aclnn API and the docs derive from it."""

from __future__ import annotations

from codegen.families.elementwise.plan.view_records import ShapeCheck, ShapeStep
from codegen.spec.expr import BoolOp, Call, Compare, Name
from codegen.spec.model import OpSpec


def shape_rule(spec: OpSpec) -> tuple[str, list[str]]:
    """How the output's shape follows from the inputs: ``("broadcast", args)`` for ``broadcast(a, b, ...)``
    (the output has the broadcast shape of the arguments present in the call), or ``("like", [x])`` for a
    bare input name (the output has the shape of ``x`` and every other input broadcasts to it)."""
    shape = spec.outputs[0].shape
    if isinstance(shape, Name):
        return "like", [shape.id]
    if isinstance(shape, Call) and shape.func == "broadcast":
        return "broadcast", [a.id for a in shape.args if isinstance(a, Name)]
    return "broadcast", [t.name for t in spec.inputs]


def shape_check(spec: OpSpec) -> ShapeCheck:
    """The C++ pieces of the shape check (see :func:`shape_rule`), with null-safe handling of optional inputs."""
    optional = {t.name for t in spec.inputs if t.optional}
    kind, args = shape_rule(spec)
    if kind == "like":
        anchor = args[0]
        others = [t.name for t in spec.inputs if t.name != anchor]
        return ShapeCheck(
            kind=kind,
            anchor=anchor,
            steps=tuple(ShapeStep(n, n in optional) for n in others),
            text=f"{', '.join(others)} broadcast to the shape of {anchor}; "
            f"{spec.outputs[0].name} has the shape of {anchor}.",
        )
    first = next(n for n in args if n not in optional)
    shown = [
        f'({n} == nullptr ? "null" : ToString({n}->GetViewShape()).GetString())'
        if n in optional
        else f"ToString({n}->GetViewShape()).GetString()"
        for n in args
    ]
    return ShapeCheck(
        kind=kind,
        first=first,
        steps=tuple(ShapeStep(n, n in optional) for n in args if n != first),
        message=", ".join(args),
        fmt=", ".join(f"{n} %s" for n in args),
        args=", ".join(shown),
        text=f"{', '.join(args)} broadcast together (NumPy rules); {spec.outputs[0].name} has the broadcast shape.",
    )


def _equal_numels(spec: OpSpec) -> list[tuple[str, str]]:
    """The tensor pairs ``(a, b)`` that every call of ``spec`` on every product holds to one element count: a
    conjunct ``numel(a) == numel(b)`` of the ``require`` of a constraint without ``when`` on all of the op's
    products (a constraint of some products only, or under a condition, leaves other calls free)."""
    pairs: list[tuple[str, str]] = []
    for c in spec.constraints:
        if c.when is not None or set(spec.products) - set(c.products):
            continue
        parts = c.require.values if isinstance(c.require, BoolOp) and c.require.op == "and" else (c.require,)
        for part in parts:
            if isinstance(part, Compare) and part.op == "==":
                sides = [
                    s.args[0].id
                    for s in (part.left, part.right)
                    if isinstance(s, Call) and s.func == "numel" and len(s.args) == 1 and isinstance(s.args[0], Name)
                ]
                if len(sides) == 2:
                    pairs.append((sides[0], sides[1]))
    return pairs


def one_element_inputs(spec: OpSpec) -> frozenset[str]:
    """The inputs a valid call may pass with one element while the output has more (the kernel then reads the
    element once per core: tiling field ``scalarInputs``). Not the input whose shape the output takes (``like``
    rule), nor an input that a constraint on every product holds to that input's element count (conjuncts
    ``numel(a) == numel(b)``, followed through chains): such an input always has the output's shape, so the
    generated code has no one-element path for it."""
    kind, args = shape_rule(spec)
    full = {args[0]} if kind == "like" else set()
    pairs = _equal_numels(spec)
    grown = True
    while grown:
        grown = False
        for a, b in pairs:
            if (a in full) != (b in full):
                full |= {a, b}
                grown = True
    return frozenset(t.name for t in spec.inputs if t.name not in full)
