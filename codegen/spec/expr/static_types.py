"""Static typing: the type of an expression, the signatures of its functions, what a context allows
(:class:`Scope`), and the checker that resolves names and infers types before anything is evaluated."""

from __future__ import annotations

import dataclasses
import difflib
import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from codegen.spec.expr.nodes import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary, to_source


class ExprType(enum.Enum):
    """Static type of an expression; the value is the noun messages use."""

    INT = "integer"
    FLOAT = "float"
    BOOL = "boolean"
    DTYPE = "dtype"
    TENSOR = "tensor"
    SHAPE = "shape"


_NUMERIC = frozenset({ExprType.INT, ExprType.FLOAT})
_ARTICLE = {ExprType.INT: "an"}


def _describe(types: Collection[ExprType]) -> str:
    order = list(ExprType)
    parts = [f"{_ARTICLE.get(t, 'a')} {t.value}" for t in sorted(types, key=order.index)]
    return " or ".join(parts)


@dataclass(frozen=True)
class Signature:
    """The static signature of an expression function.

    Attributes:
        params: accepted types per argument position; positions past the end take the last entry.
        result: the result type, or None for the join of the numeric argument types (INT, or FLOAT if any
            argument is FLOAT).
        usage: how to call it, for messages, e.g. ``dim(tensor, axis)``.
        min_args: fewest arguments.
        max_args: most arguments, None for no limit.
    """

    params: tuple[frozenset[ExprType], ...]
    result: ExprType | None
    usage: str
    min_args: int
    max_args: int | None


def _sig(
    params: Sequence[Collection[ExprType]], result: ExprType | None, usage: str, lo: int, hi: int | None
) -> Signature:
    return Signature(tuple(frozenset(p) for p in params), result, usage, lo, hi)


_T, _TS, _I = {ExprType.TENSOR}, {ExprType.TENSOR, ExprType.SHAPE}, {ExprType.INT}

#: Tensor queries: ``numel(t)``, ``rank(t)``, ``dim(t, axis)`` (negative axes count from the end), ``dtype(t)``.
TENSOR_SIGNATURES: Mapping[str, Signature] = {
    "numel": _sig([_TS], ExprType.INT, "numel(tensor)", 1, 1),
    "rank": _sig([_TS], ExprType.INT, "rank(tensor)", 1, 1),
    "dim": _sig([_TS, _I], ExprType.INT, "dim(tensor, axis)", 2, 2),
    "dtype": _sig([_T], ExprType.DTYPE, "dtype(tensor)", 1, 1),
}
#: Constraint-only query: ``present(t)``, whether the call passed the tensor (False for a null nullable output
#: or optional input; True for every other tensor).
PRESENCE_SIGNATURES: Mapping[str, Signature] = {
    "present": _sig([_T], ExprType.BOOL, "present(tensor)", 1, 1),
}
#: Shape constructors: ``broadcast(t, ...)`` (NumPy rules), ``shape(d0, d1, ...)`` (``shape()`` is 0-d) and
#: ``reduced(t, k)`` (``t``'s shape with its last ``k`` dims set to 1) and ``replaced(t, axis, n)`` (``t``'s
#: shape with dim ``axis`` set to ``n``; a 0-d ``t`` stays 0-d) and ``inserted(t, axis, s)`` (``t``'s shape with
#: dim ``axis`` replaced by all the dims of ``s``).
SHAPE_SIGNATURES: Mapping[str, Signature] = {
    "broadcast": _sig([_TS], ExprType.SHAPE, "broadcast(tensor, ...)", 1, None),
    "shape": _sig([_I], ExprType.SHAPE, "shape(dim0, dim1, ...)", 0, None),
    "reduced": _sig([_TS, _I], ExprType.SHAPE, "reduced(tensor, k)", 2, 2),
    "replaced": _sig([_TS, _I, _I], ExprType.SHAPE, "replaced(tensor, axis, n)", 3, 3),
    "inserted": _sig([_TS, _I, _TS], ExprType.SHAPE, "inserted(tensor, axis, shape)", 3, 3),
}
#: Numeric functions usable in host expressions (scalars, constraints, shapes).
HOST_NUMERIC_SIGNATURES: Mapping[str, Signature] = {
    "abs": _sig([_NUMERIC], None, "abs(x)", 1, 1),
    "min": _sig([_NUMERIC], None, "min(a, b, ...)", 2, None),
    "max": _sig([_NUMERIC], None, "max(a, b, ...)", 2, None),
}
#: Functions of per-element (vector) formulas (each has a vector-instruction lowering).
VECTOR_SIGNATURES: Mapping[str, Signature] = {
    **HOST_NUMERIC_SIGNATURES,
    "sigmoid": _sig([_NUMERIC], ExprType.FLOAT, "sigmoid(x)", 1, 1),
    "exp": _sig([_NUMERIC], ExprType.FLOAT, "exp(x)", 1, 1),
    "log": _sig([_NUMERIC], ExprType.FLOAT, "log(x)", 1, 1),
    "sqrt": _sig([_NUMERIC], ExprType.FLOAT, "sqrt(x)", 1, 1),
    "relu": _sig([_NUMERIC], None, "relu(x)", 1, 1),
    "tanh": _sig([_NUMERIC], ExprType.FLOAT, "tanh(x)", 1, 1),
    "erf": _sig([_NUMERIC], ExprType.FLOAT, "erf(x)", 1, 1),
    "log1p": _sig([_NUMERIC], ExprType.FLOAT, "log1p(x)", 1, 1),
    "rsqrt": _sig([_NUMERIC], ExprType.FLOAT, "rsqrt(x)", 1, 1),
    "sign": _sig([_NUMERIC], ExprType.FLOAT, "sign(x)", 1, 1),
    "clamp": _sig([_NUMERIC], ExprType.FLOAT, "clamp(x, lo, hi)", 3, 3),
    "pow": _sig([_NUMERIC], ExprType.FLOAT, "pow(x, p)", 2, 2),
    "where": _sig([{ExprType.BOOL}, _NUMERIC, _NUMERIC], None, "where(cond, a, b)", 3, 3),
}


@dataclass(frozen=True)
class Scope:
    """What an expression may use in one context.

    Attributes:
        names: each allowed name and its type.
        functions: each allowed function and its signature.
        groups: ``(label, names)`` used to list the allowed names in messages, e.g.
            ``(("attrs", ("reduction",)), ("platform", ("coreNum", "ubBytes")))``; when empty, the sorted
            names are listed.
        poisoned: names whose definition was already reported as wrong: they are accepted without a type,
            and nothing that depends on them is reported again (one mistake, one error).
        ranks: the inclusive ``(lo, hi)`` rank range of tensor names, where known: ``dim(t, k)`` with a
            literal axis ``k`` that no rank of ``t`` has (``k >= hi`` or ``k < -hi``) is a problem.
    """

    names: Mapping[str, ExprType]
    functions: Mapping[str, Signature]
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    poisoned: frozenset[str] = frozenset()
    ranks: Mapping[str, tuple[int, int]] = dataclasses.field(default_factory=dict)

    def describe_names(self) -> str:
        """The allowed names for an error message."""
        if not self.names:
            return "(none)"
        if self.groups:
            # each name once, in its first place (a spec that declares a name twice has its own error)
            return "; ".join(f"{label}: {', '.join(dict.fromkeys(ns))}" for label, ns in self.groups if ns)
        return ", ".join(sorted(self.names))

    def tensor_functions(self) -> tuple[str, ...]:
        """Functions of this scope that take a tensor argument."""
        return tuple(sorted(f for f, s in self.functions.items() if any(ExprType.TENSOR in p for p in s.params)))


@dataclass(frozen=True)
class Checked:
    """Result of :func:`check`: the type (None when a problem prevented it) and the problems found."""

    type: ExprType | None
    problems: tuple[str, ...]


def _join(a: ExprType, b: ExprType) -> ExprType | None:
    if a in _NUMERIC and b in _NUMERIC:
        return ExprType.FLOAT if ExprType.FLOAT in (a, b) else ExprType.INT
    if a == b:
        return a
    if {a, b} == {ExprType.TENSOR, ExprType.SHAPE}:
        return ExprType.SHAPE
    return None


def _hint(word: str, candidates: Collection[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Checker:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def want(self, e: Expr, allowed: Collection[ExprType], what: str) -> ExprType | None:
        t = self.run(e)
        if t is None or t in allowed:
            return t
        if t is ExprType.TENSOR and isinstance(e, Name):
            funcs = self.scope.tensor_functions()
            where = f"only as an argument of {', '.join(funcs)}" if funcs else "nowhere as a value"
            self.problem(f"tensor '{e.id}' cannot be used as a value here ({what}); tensors may appear {where}")
        elif t is ExprType.BOOL and "where" in self.scope.functions and set(allowed) <= _NUMERIC:
            self.problem(
                f"{what} needs {_describe(allowed)}, got a condition (boolean): {to_source(e)}; a condition "
                "is not a number: pick values with where(cond, a, b)"
            )
        else:
            self.problem(f"{what} needs {_describe(allowed)}, got {t.value}: {to_source(e)}")
        return None

    def run(self, e: Expr) -> ExprType | None:
        if isinstance(e, Num):
            v = e.value
            return ExprType.BOOL if isinstance(v, bool) else ExprType.INT if isinstance(v, int) else ExprType.FLOAT
        if isinstance(e, Name):
            if e.id in self.scope.poisoned:
                return None
            t = self.scope.names.get(e.id)
            if t is None and e.id.startswith('"'):
                self.problem(f"string literal {e.id} is not a value of any string attribute of the op")
                return None
            if t is None:
                hint = _hint(e.id, self.scope.names)
                self.problem(f"unknown name '{e.id}'{hint}; allowed here: {self.scope.describe_names()}")
            return t
        if isinstance(e, Unary):
            if e.op == "not":
                ok = self.want(e.operand, {ExprType.BOOL}, "'not'")
                return None if ok is None else ExprType.BOOL
            return self.want(e.operand, _NUMERIC, f"unary '{e.op}'")
        if isinstance(e, Binary):
            return self.binary(e)
        if isinstance(e, Compare):
            return self.compare(e)
        if isinstance(e, BoolOp):
            checked = [self.want(v, {ExprType.BOOL}, f"'{e.op}'") for v in e.values]
            return None if None in checked else ExprType.BOOL
        if isinstance(e, IfElse):
            cond = self.want(e.cond, {ExprType.BOOL}, "the condition of 'if'")
            a, b = self.run(e.then), self.run(e.orelse)
            if cond is None or a is None or b is None:
                return None
            joined = _join(a, b)
            if joined is None:
                self.problem(f"the branches of 'if' have different types, {a.value} and {b.value}: {to_source(e)}")
            return joined
        if isinstance(e, Call):
            return self.call(e)
        raise TypeError(f"not an expression node: {e!r}")

    def binary(self, e: Binary) -> ExprType | None:
        a = self.want(e.left, _NUMERIC, f"'{e.op}'")
        b = self.want(e.right, _NUMERIC, f"'{e.op}'")
        if a is None or b is None:
            return None
        if e.op == "/":
            return ExprType.FLOAT
        if e.op in ("//", "%") and ExprType.FLOAT in (a, b):
            self.problem(
                f"'{e.op}' needs integer operands (it truncates toward zero as in C), got a float: {to_source(e)}"
            )
            return None
        return _join(a, b)

    def compare(self, e: Compare) -> ExprType | None:
        if e.op in ("==", "!="):
            allowed = _NUMERIC | {ExprType.BOOL, ExprType.DTYPE}
            a, b = self.want(e.left, allowed, f"'{e.op}'"), self.want(e.right, allowed, f"'{e.op}'")
            if a is None or b is None:
                return None
            if not (a == b or (a in _NUMERIC and b in _NUMERIC)):
                self.problem(f"'{e.op}' cannot compare {_describe({a})} with {_describe({b})}: {to_source(e)}")
                return None
            return ExprType.BOOL
        a, b = self.want(e.left, _NUMERIC, f"'{e.op}'"), self.want(e.right, _NUMERIC, f"'{e.op}'")
        return None if a is None or b is None else ExprType.BOOL

    def call(self, e: Call) -> ExprType | None:
        sig = self.scope.functions.get(e.func)
        if sig is None:
            funcs = ", ".join(sorted(self.scope.functions)) or "(none)"
            self.problem(f"unknown function '{e.func}'{_hint(e.func, self.scope.functions)}; allowed here: {funcs}")
            for a in e.args:
                self.run(a)
            return None
        n = len(e.args)
        if n < sig.min_args or (sig.max_args is not None and n > sig.max_args):
            if sig.max_args == sig.min_args:
                need = f"{sig.min_args} argument{'s' if sig.min_args != 1 else ''}"
            elif sig.max_args is None:
                need = f"at least {sig.min_args} argument{'s' if sig.min_args != 1 else ''}"
            else:
                need = f"{sig.min_args} to {sig.max_args} arguments"
            self.problem(f"{e.func}() takes {need}, as in {sig.usage}; got {n}")
            return None
        types = []
        for i, a in enumerate(e.args):
            params = sig.params[min(i, len(sig.params) - 1)]
            types.append(self.want(a, params, f"argument {i + 1} of {e.func}()"))
        if any(t is None for t in types):
            return None
        if e.func == "dim":
            self.dim_axis(e)
        if sig.result is not None:
            return sig.result
        return ExprType.FLOAT if ExprType.FLOAT in types else ExprType.INT

    def dim_axis(self, e: Call) -> None:
        """``dim(t, k)`` with a literal ``k`` (``-k`` too) must name an axis of some rank ``t`` may have."""
        tensor, axis = e.args
        literal = axis
        sign = 1
        if isinstance(literal, Unary) and literal.op in ("-", "+"):
            sign = -1 if literal.op == "-" else 1
            literal = literal.operand
        if not isinstance(tensor, Name) or not isinstance(literal, Num) or isinstance(literal.value, bool):
            return
        if not isinstance(literal.value, int) or tensor.id not in self.scope.ranks:
            return
        k = sign * literal.value
        lo, hi = self.scope.ranks[tensor.id]
        if not -hi <= k < hi:
            valid = f"axes {-hi} to {hi - 1}" if hi > 0 else "no axis (it is always 0-d)"
            self.problem(
                f"{to_source(e)}: axis {k} is out of range for every rank '{tensor.id}' may have "
                f"({lo} to {hi}): {valid}"
            )


def check(expr: Expr, scope: Scope, want: Collection[ExprType], what: str = "the expression") -> Checked:
    """Resolves the names and functions of ``expr`` in ``scope`` and infers its type.

    Rules: arithmetic takes integers and floats (``/`` gives a float; ``//`` and ``%`` need integers);
    ``not``/``and``/``or`` and ``if`` conditions take booleans; ``<``-style comparisons take numbers,
    ``==``/``!=`` also booleans with booleans and dtypes with dtypes; ``if`` branches must agree (int and
    float join to float); tensors appear only where a function parameter accepts them.

    Args:
        expr: the expression.
        scope: the allowed names and functions.
        want: the types the whole expression may have.
        what: how to name the expression in a type mismatch message.

    Returns:
        The type (None when a problem prevented it) and every problem found, each a complete message
        such as ``unknown name 'x'; allowed here: ...``.
    """
    checker = _Checker(scope)
    t = checker.want(expr, want, what)
    return Checked(t, tuple(checker.problems))
