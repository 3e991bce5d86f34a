"""The expression tree: its node classes, their traversal, and their text in spec syntax."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


class Expr:
    """Base class of expression nodes (frozen dataclasses); ``str(expr)`` is its source text."""

    def __str__(self) -> str:
        return to_source(self)


@dataclass(frozen=True, eq=False)
class Num(Expr):
    """A literal: ``int`` (within int64), ``float`` (finite) or ``bool``.

    Equality and hashing distinguish the literal's type (``Num(1) != Num(True) != Num(1.0)``).
    """

    value: int | float | bool

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Num) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((Num, type(self.value), self.value))


@dataclass(frozen=True)
class Name(Expr):
    """A name: a tensor, attr, scalar, let, platform value or dtype constant, resolved by context."""

    id: str


@dataclass(frozen=True)
class Unary(Expr):
    """``-x``, ``+x`` or ``not x``; ``op`` is ``'-'``, ``'+'`` or ``'not'``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """Arithmetic; ``op`` is one of ``+ - * / // %`` (see :mod:`codegen.spec.expr` for C semantics)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    """One comparison; ``op`` is one of ``== != < <= > >=``. Chains become :class:`BoolOp` ``and``."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    """``a and b and ...`` or ``a or b or ...`` (two or more values), short-circuit, boolean result."""

    op: str
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class IfElse(Expr):
    """``then if cond else orelse``; only the chosen branch is evaluated."""

    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class Call(Expr):
    """``func(args...)``; ``func`` is resolved by context (see :class:`~codegen.spec.expr.Scope`)."""

    func: str
    args: tuple[Expr, ...]


# -------------------------------------------------------------------------------------------- walking


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of ``expr``, parents before children, children left to right."""
    yield expr
    if isinstance(expr, Unary):
        yield from walk(expr.operand)
    elif isinstance(expr, (Binary, Compare)):
        yield from walk(expr.left)
        yield from walk(expr.right)
    elif isinstance(expr, BoolOp):
        for v in expr.values:
            yield from walk(v)
    elif isinstance(expr, IfElse):
        yield from walk(expr.cond)
        yield from walk(expr.then)
        yield from walk(expr.orelse)
    elif isinstance(expr, Call):
        for a in expr.args:
            yield from walk(a)


def names(expr: Expr) -> frozenset[str]:
    """The names ``expr`` reads (function names excluded)."""
    return frozenset(n.id for n in walk(expr) if isinstance(n, Name))


def calls(expr: Expr) -> frozenset[str]:
    """The function names ``expr`` calls."""
    return frozenset(n.func for n in walk(expr) if isinstance(n, Call))


# ------------------------------------------------------------------------------------------ printing

_PREC_IF, _PREC_OR, _PREC_AND, _PREC_NOT, _PREC_CMP, _PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_ATOM = range(1, 10)


def _source(e: Expr) -> tuple[str, int]:
    if isinstance(e, Num):
        if isinstance(e.value, bool) or e.value >= 0:
            return repr(e.value), _PREC_ATOM
        return repr(e.value), _PREC_UNARY
    if isinstance(e, Name):
        return e.id, _PREC_ATOM
    if isinstance(e, Unary):
        if e.op == "not":
            return f"not {_wrap(e.operand, _PREC_NOT)}", _PREC_NOT
        return f"{e.op}{_wrap(e.operand, _PREC_UNARY + 1)}", _PREC_UNARY
    if isinstance(e, Binary):
        p = _PREC_ADD if e.op in ("+", "-") else _PREC_MUL
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}", p
    if isinstance(e, Compare):
        return f"{_wrap(e.left, _PREC_CMP + 1)} {e.op} {_wrap(e.right, _PREC_CMP + 1)}", _PREC_CMP
    if isinstance(e, BoolOp):
        p = _PREC_AND if e.op == "and" else _PREC_OR
        return f" {e.op} ".join(_wrap(v, p + 1) for v in e.values), p
    if isinstance(e, IfElse):
        text = f"{_wrap(e.then, _PREC_OR)} if {_wrap(e.cond, _PREC_OR)} else {_wrap(e.orelse, _PREC_IF)}"
        return text, _PREC_IF
    if isinstance(e, Call):
        return f"{e.func}({', '.join(_wrap(a, _PREC_IF) for a in e.args)})", _PREC_ATOM
    raise TypeError(f"not an expression node: {e!r}")


def _wrap(e: Expr, min_prec: int) -> str:
    text, prec = _source(e)
    return text if prec >= min_prec else f"({text})"


def to_source(expr: Expr) -> str:
    """The expression in spec syntax with only the parentheses precedence needs.

    For trees made by :func:`~codegen.spec.expr.parse_expr`, ``parse_expr(to_source(e), ...) == e``.
    """
    return _source(expr)[0]


#: Alias of :func:`to_source`.
unparse = to_source
