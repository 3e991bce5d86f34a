"""Rewriting a row-reduce formula: substituting elementwise steps, finding the reductions it reads,
and hoisting the subformulas that read no input into per-row values (``__row<j>``)."""

from __future__ import annotations

from codegen.spec.expr import Binary, Call, Expr, Name, Num, Unary, walk


def substitute(expr: Expr, env: dict[str, Expr]) -> Expr:
    """``expr`` with every name bound in ``env`` replaced by its formula (an elementwise step substituted into
    its users)."""
    if isinstance(expr, Name):
        return env.get(expr.id, expr)
    if isinstance(expr, Unary):
        return Unary(expr.op, substitute(expr.operand, env))
    if isinstance(expr, Binary):
        return Binary(expr.op, substitute(expr.left, env), substitute(expr.right, env))
    if isinstance(expr, Call):
        return Call(expr.func, tuple(substitute(a, env) for a in expr.args))
    return expr


def red_uses(expr: Expr, reds: dict[str, int]) -> set[int]:
    """The indices (values of ``reds``, reduction name -> index) of the reductions ``expr`` reads."""
    return {reds[e.id] for e in walk(expr) if isinstance(e, Name) and e.id in reds}


#: Name prefix of a per-row value inside a hoisted formula (not an identifier a spec may use: it starts with
#: an underscore pair and a digit follows).
ROW_PREFIX = "__row"


def reads_input(expr: Expr, inputs: set[str]) -> bool:
    """Whether ``expr`` reads one of ``inputs`` (a per-element formula; else a per-row value)."""
    return any(isinstance(e, Name) and e.id in inputs for e in walk(expr))


def hoist(expr: Expr, inputs: set[str], values: list[Expr]) -> Expr:
    """``expr`` with every largest subformula that reads no input and is not a bare name or literal replaced by
    ``__row<j>`` (``values[j]`` is that subformula; equal subformulas share one ``j``), and ``a / b`` with a
    per-row ``b`` rewritten ``a * (1 / b)`` (one reciprocal per row, one multiply per element)."""

    def value(e: Expr) -> Expr:
        if isinstance(e, (Name, Num)):
            return e
        text = str(e)
        for j, v in enumerate(values):
            if str(v) == text:
                return Name(f"{ROW_PREFIX}{j}")
        values.append(e)
        return Name(f"{ROW_PREFIX}{len(values) - 1}")

    def go(e: Expr) -> Expr:
        if not reads_input(e, inputs):
            return value(e)
        if isinstance(e, Binary):
            if e.op == "/" and not reads_input(e.right, inputs):
                return Binary("*", go(e.left), value(Binary("/", Num(1.0), e.right)))
            return Binary(e.op, go(e.left), go(e.right))
        if isinstance(e, Unary):
            return Unary(e.op, go(e.operand))
        if isinstance(e, Call):
            return Call(e.func, tuple(go(a) for a in e.args))
        return e

    return go(expr)
