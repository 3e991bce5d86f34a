"""The int64 rule: a host expression must not hold a constant part that overflows int64 (undefined
behaviour in the generated C++)."""

from __future__ import annotations

import math

from codegen.spec.expr import (
    INT64_MAX,
    INT64_MIN,
    Binary,
    Expr,
    ExprEvalError,
    Name,
    Num,
    evaluate,
    walk,
)
from codegen.spec.expr import names as expr_names


def _factors(e: Expr) -> list[Expr]:
    if isinstance(e, Binary) and e.op == "*":
        return _factors(e.left) + _factors(e.right)
    return [e]


def constant_problem(e: Expr) -> str | None:
    """Why a constant part of host expression ``e`` cannot be computed in int64, or None.

    Every subexpression without names is evaluated (int64 semantics, :func:`codegen.spec.expr.evaluate`),
    and so is the product of the constant factors of every ``*`` chain (``numel(out) * 99999999999 *
    99999999999`` multiplies them in C++ too, whatever the order); an int64 overflow is reported.
    Divisions by a constant 0 are left to :func:`zero_division`.
    """
    for x in walk(e):
        if isinstance(x, (Num, Name)):
            continue
        if not expr_names(x):
            try:
                value = evaluate(x, {})
            except ExprEvalError as exc:
                if "division by zero" in str(exc):
                    continue
                return f"'{x}' cannot be computed in int64 ({exc}); the generated C++ would overflow"
            if isinstance(value, float) and not math.isfinite(value):
                return f"'{x}' is {value} in double precision; the generated C++ would compute {value}"
        if isinstance(x, Binary) and x.op == "*":
            constants = [f for f in _factors(x) if isinstance(f, Num)]
            if len(constants) < 2:
                continue
            if any(type(f.value) is float for f in constants):
                folded = math.prod(float(f.value) for f in constants)
                if not math.isfinite(folded):
                    shown = " * ".join(str(f) for f in constants)
                    return (
                        f"'{x}' multiplies the constants {shown}, beyond double precision (inf); the generated "
                        "C++ would compute inf"
                    )
                continue
            product = 1
            for f in constants:
                product *= int(f.value)
            if not INT64_MIN <= product <= INT64_MAX:
                shown = " * ".join(str(f) for f in constants)
                return (
                    f"'{x}' multiplies the constants {shown} = {product}, beyond int64; the generated C++ "
                    "would overflow"
                )
    return None
