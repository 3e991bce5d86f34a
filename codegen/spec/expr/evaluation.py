"""Evaluation: an expression tree computed in Python with int64 and C division semantics."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from codegen.spec.expr.functions import DEFAULT_FUNCTIONS
from codegen.spec.expr.nodes import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary
from codegen.spec.expr.values import ExprEvalError, _int64, _is_number, _normalize, _number, _truth


def _c_div(a: int, b: int) -> int:
    """Quotient truncated toward zero (C semantics)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _arith(op: str, a: int | float, b: int | float) -> int | float:
    if op == "/":
        if b == 0:
            raise ExprEvalError("division by zero in '/'")
        return float(a) / float(b)
    if op in ("//", "%"):
        if isinstance(a, float) or isinstance(b, float):
            raise ExprEvalError(f"'{op}' needs integer operands, got {a!r} and {b!r}")
        if b == 0:
            raise ExprEvalError(f"division by zero in '{op}'")
        q = _int64(_c_div(a, b), f"{a} // {b}")
        return q if op == "//" else a - b * q
    if isinstance(a, float) or isinstance(b, float):
        fa, fb = float(a), float(b)
        return fa + fb if op == "+" else fa - fb if op == "-" else fa * fb
    result = a + b if op == "+" else a - b if op == "-" else a * b
    return _int64(result, f"{a} {op} {b}")


def _compare(op: str, a: object, b: object) -> bool:
    if _is_number(a) and _is_number(b):
        x, y = _number(a, op), _number(b, op)
        if isinstance(x, float) or isinstance(y, float):
            x, y = float(x), float(y)
        if op == "==":
            return x == y
        if op == "!=":
            return x != y
        if op == "<":
            return x < y
        if op == "<=":
            return x <= y
        if op == ">":
            return x > y
        return x >= y
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    raise ExprEvalError(f"'{op}' needs numbers, got {type(a).__name__} and {type(b).__name__}")


def evaluate(
    expr: Expr,
    env: Mapping[str, object],
    functions: Mapping[str, Callable[..., object]] | None = None,
) -> object:
    """Evaluates ``expr`` with the semantics of :mod:`codegen.spec.expr` (int64, C division, double conversion).

    Args:
        expr: the expression.
        env: the value of each name: numbers (Python or NumPy scalars) or opaque objects that only
            functions and ``==``/``!=`` use (tensors, shapes, dtypes).
        functions: the implementation of each function; default :data:`~codegen.spec.expr.DEFAULT_FUNCTIONS` (numeric
            functions and the tensor functions of :data:`~codegen.spec.expr.TENSOR_FUNCTIONS`).

    Returns:
        ``bool``, ``int`` (within int64), ``float``, or whatever a function returned for non-numbers
        (e.g. a shape tuple from ``broadcast``).

    Raises:
        ExprEvalError: int64 overflow, division or remainder by zero, ``//``/``%`` on floats, an unknown
            name or function, an operand of the wrong kind, or a function that raised.
    """
    table = DEFAULT_FUNCTIONS if functions is None else functions

    def go(e: Expr) -> object:
        if isinstance(e, Num):
            return e.value
        if isinstance(e, Name):
            if e.id not in env:
                raise ExprEvalError(f"unknown name '{e.id}'")
            return _normalize(env[e.id], e.id)
        if isinstance(e, Unary):
            v = go(e.operand)
            if e.op == "not":
                return not _truth(v, "'not'")
            x = _number(v, f"unary '{e.op}'")
            if e.op == "+":
                return x
            return -x if isinstance(x, float) else _int64(-x, f"-({x})")
        if isinstance(e, Binary):
            left = _number(go(e.left), f"'{e.op}'")
            right = _number(go(e.right), f"'{e.op}'")
            return _arith(e.op, left, right)
        if isinstance(e, Compare):
            return _compare(e.op, go(e.left), go(e.right))
        if isinstance(e, BoolOp):
            want = e.op == "or"
            for v in e.values:
                if _truth(go(v), f"'{e.op}'") == want:
                    return want
            return not want
        if isinstance(e, IfElse):
            value = go(e.then) if _truth(go(e.cond), "'if' condition") else go(e.orelse)
            # C++'s `c ? x : y` has the common type of both branches: an int64 branch taken beside a
            # double one yields a double (the untaken branch is typed, never evaluated: it may be a guard).
            integral = isinstance(value, int) and not isinstance(value, bool)
            if integral and (_yields_double(e.then, env) or _yields_double(e.orelse, env)):
                return float(value)  # type: ignore[arg-type]
            return value
        if isinstance(e, Call):
            fn = table.get(e.func)
            if fn is None:
                raise ExprEvalError(f"unknown function '{e.func}'")
            args = [go(a) for a in e.args]
            try:
                result = fn(*args)
            except ExprEvalError:
                raise
            except (ArithmeticError, ValueError, TypeError, LookupError) as exc:
                raise ExprEvalError(f"{e.func}(): {exc}") from exc
            return _normalize(result, f"{e.func}()")
        raise TypeError(f"not an expression node: {e!r}")

    return go(expr)


#: Functions whose C++ form is always a double, and those whose result has their arguments' common type.
_DOUBLE_FUNCTIONS = frozenset(
    {"sqrt", "exp", "log", "sigmoid", "tanh", "erf", "log1p", "rsqrt", "sign", "clamp", "pow"}
)
_ARGUMENT_TYPED_FUNCTIONS = frozenset({"abs", "min", "max", "relu", "where"})


def _yields_double(e: Expr, env: Mapping[str, object]) -> bool:
    """Whether the C++ form of ``e`` (see :func:`~codegen.spec.expr.to_cpp`) has type double, from its structure
    and the kinds of the values in ``env`` (a float name is a double, an int or bool name an integer); nothing is
    evaluated, so a branch that would divide by zero can be typed."""
    if isinstance(e, Num):
        return isinstance(e.value, float)
    if isinstance(e, Name):
        return isinstance(_normalize(env.get(e.id), e.id), float)
    if isinstance(e, Unary):
        return e.op != "not" and _yields_double(e.operand, env)
    if isinstance(e, Binary):
        if e.op == "/":
            return True
        if e.op in ("//", "%"):
            return False
        return _yields_double(e.left, env) or _yields_double(e.right, env)
    if isinstance(e, IfElse):
        return _yields_double(e.then, env) or _yields_double(e.orelse, env)
    if isinstance(e, Call):
        if e.func in _DOUBLE_FUNCTIONS:
            return True
        if e.func in _ARGUMENT_TYPED_FUNCTIONS:
            return any(_yields_double(a, env) for a in e.args)
    return False
