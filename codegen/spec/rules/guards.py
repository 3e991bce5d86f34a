"""What a condition proves about the names it reads: that a name is not 0 (:func:`excludes_zero`), which
values of a finite domain it leaves (:func:`narrow`), which expressions it proves nonzero
(:func:`nonzero_exprs`)."""

from __future__ import annotations

from collections.abc import Mapping

from codegen.spec.expr import (
    BoolOp,
    Compare,
    Expr,
    ExprEvalError,
    Num,
    Unary,
    evaluate,
)
from codegen.spec.expr import names as expr_names


def _only_over(e: Expr, attr: str) -> bool:
    return expr_names(e) <= {attr}


def excludes_zero(cond: Expr, attr: str, truth: bool) -> bool:
    """True when ``cond`` evaluating to ``truth`` implies ``attr != 0``.

    Decided per conjunct (``truth`` True) or disjunct (``truth`` False) that reads only ``attr`` and
    numbers, by evaluating it at ``attr = 0``; other conditions are not assumed to exclude 0.
    """
    if isinstance(cond, Unary) and cond.op == "not":
        return excludes_zero(cond.operand, attr, not truth)
    if isinstance(cond, BoolOp):
        # a and b true: each is true; a or b false: each is false. Either: one excluding part suffices.
        if (cond.op == "and") == truth:
            return any(excludes_zero(v, attr, truth) for v in cond.values)
        return all(excludes_zero(v, attr, truth) for v in cond.values)
    if attr not in expr_names(cond) or not _only_over(cond, attr):
        return False
    try:
        return bool(evaluate(cond, {attr: 0})) != truth
    except ExprEvalError:
        return False


def _parts(cond: Expr, truth: bool) -> list[tuple[Expr, bool]]:
    """The parts of ``cond`` that each hold (with their truth) when ``cond`` evaluates to ``truth``: the
    conjuncts of a true ``and``, the disjuncts of a false ``or``, through ``not``; else ``cond`` itself."""
    if isinstance(cond, Unary) and cond.op == "not":
        return _parts(cond.operand, not truth)
    if isinstance(cond, BoolOp) and (cond.op == "and") == truth:
        return [p for v in cond.values for p in _parts(v, truth)]
    return [(cond, truth)]


def narrow(cond: Expr, truth: bool, allowed: Mapping[str, tuple[object, ...] | None]) -> dict[str, tuple[object, ...]]:
    """The values of finite-domain names that ``cond`` evaluating to ``truth`` leaves: for every part of
    ``cond`` (:func:`_parts`) that reads one such name and numbers, the name's ``allowed`` values at which
    the part has its truth (``reduction != 1`` true leaves reduction 0 and 2 of 0, 1, 2). Names no part
    narrows are not in the result."""
    out: dict[str, tuple[object, ...]] = {}
    for part, want in _parts(cond, truth):
        read = expr_names(part)
        if len(read) != 1:
            continue
        (name,) = read
        values = out.get(name, allowed.get(name))
        if values is None:
            continue
        kept = []
        for v in values:
            try:
                if bool(evaluate(part, {name: v})) == want:
                    kept.append(v)
            except ExprEvalError:
                kept.append(v)  # not decided here: kept
        out[name] = tuple(kept)
    return out


def nonzero_exprs(cond: Expr, truth: bool) -> frozenset[Expr]:
    """Expressions that ``cond`` evaluating to ``truth`` proves nonzero: ``E != 0``, ``E > 0``, ``E < 0``
    (``0 != E``, ...) among its parts (:func:`_parts`), and ``E == 0`` among those that are false."""
    zero = Num(0)
    out: set[Expr] = set()
    for part, want in _parts(cond, truth):
        if not isinstance(part, Compare):
            continue
        op = part.op if want else {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}.get(part.op)
        if part.right == zero and op in ("!=", ">", "<"):
            out.add(part.left)
        elif part.left == zero and op in ("!=", ">", "<"):
            out.add(part.right)
    return frozenset(out)
