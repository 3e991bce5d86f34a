"""Values of the expression language: the int64 range, the evaluation error, and how a Python or NumPy
value is read as a number or a truth value."""

from __future__ import annotations

import numbers

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


class ExprEvalError(Exception):
    """Evaluating an expression failed: int64 overflow, division by zero, an unknown name or function, an
    operand of the wrong kind, or a function that raised."""


def _int64(value: int, what: str) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise ExprEvalError(f"integer overflow: {what} = {value} is outside int64")
    return value


def _normalize(value: object, what: str) -> object:
    """Plain Python bool/int/float for numbers (NumPy scalars included); other objects unchanged."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return _int64(int(value), what)
    if isinstance(value, numbers.Real):
        return float(value)
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind == "b" and getattr(value, "shape", None) == ():
        return bool(value)  # a NumPy bool scalar
    return value


def _is_number(v: object) -> bool:
    return isinstance(v, (bool, int, float))


def _number(v: object, what: str) -> int | float:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    raise ExprEvalError(f"{what} needs a number, got {type(v).__name__} {v!r}")


def _truth(v: object, what: str) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0
    raise ExprEvalError(f"{what} needs a boolean or a number, got {type(v).__name__} {v!r}")
