"""Shape calls as names: :func:`atomize` turns ``numel(...)``, ``rank(...)`` and ``dim(...)`` into names, so
that guards, constraints and domains treat them like attributes."""

from __future__ import annotations

from codegen.spec.expr import (
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    IfElse,
    Name,
    Unary,
)

SHAPE_ATOMS: frozenset[str] = frozenset({"numel", "rank", "dim"})


def atomize(e: Expr) -> Expr:
    """``e`` with every ``numel(...)``, ``rank(...)`` and ``dim(...)`` call replaced by a :class:`Name` whose id
    is the call's source text (``Name("numel(out)")``)."""
    if isinstance(e, Call):
        if e.func in SHAPE_ATOMS:
            return Name(str(e))
        return Call(e.func, tuple(atomize(a) for a in e.args))
    if isinstance(e, Unary):
        return Unary(e.op, atomize(e.operand))
    if isinstance(e, Binary):
        return Binary(e.op, atomize(e.left), atomize(e.right))
    if isinstance(e, Compare):
        return Compare(e.op, atomize(e.left), atomize(e.right))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(atomize(v) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(atomize(e.cond), atomize(e.then), atomize(e.orelse))
    return e
