"""The elementwise output-shape rule (``like`` an input or the ``broadcast`` of inputs) and the L2 shape
check the aclnn API and the docs derive from it."""

from __future__ import annotations

from codegen.families.elementwise.plan.view_records import ShapeCheck, ShapeStep
from codegen.spec.expr import Call, Name
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
