"""The float32 range rule: a constant part of an expression must fit in float32, where the device computes (not
beyond its largest value, not a nonzero value it rounds to 0)."""

from __future__ import annotations

from codegen.spec.expr.evaluation import evaluate
from codegen.spec.expr.nodes import Expr, Name, names, to_source, walk
from codegen.spec.expr.values import ExprEvalError

#: The largest finite fp32 (FLT_MAX, ``numpy.finfo(numpy.float32).max``): a constant of a formula or host
#: scalar, a float attr's value or default must be within +-FLOAT32_MAX (the device computes in fp32 and the
#: tiling data holds host scalars as fp32; beyond it a value is an infinity, and a literal ``1e39f`` does not
#: compile).
FLOAT32_MAX = 3.4028234663852886e38
#: The smallest positive fp32 (the least subnormal, 2**-149, ``numpy.finfo(numpy.float32).smallest_subnormal``):
#: a nonzero constant below half of it rounds to 0 in float32, where the device computes.
FLOAT32_TRUE_MIN = 2.0**-149


def constant_beyond_fp32(expr: Expr) -> tuple[Expr, float] | None:
    """The first subexpression of ``expr`` (parents first) that reads no name and whose value is a number
    beyond +-:data:`FLOAT32_MAX`, or nonzero and so small that float32 rounds it to 0 (below half of
    :data:`FLOAT32_TRUE_MIN`), with that value: a literal (``1e39``, ``1e-50``) or a folded constant (``1e20 *
    1e19``, each of whose literals fits), wherever it stands. None when every constant part fits; a constant part
    that cannot be evaluated (a division by zero) is left to the rules that report it."""
    for e in walk(expr):
        if isinstance(e, Name) or names(e):
            continue
        try:
            value = evaluate(e, {})
        except ExprEvalError:
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if abs(value) > FLOAT32_MAX or 0 < abs(value) < FLOAT32_TRUE_MIN / 2:
            return e, float(value)
    return None


def fp32_constant_message(expr: Expr) -> str | None:
    """The one message of the constant rule (:func:`constant_beyond_fp32`) for ``expr``, or None."""
    found = constant_beyond_fp32(expr)
    if found is None:
        return None
    part, value = found
    text = to_source(part)
    shown = text if text == f"{value:g}" else f"{text} = {value:g}"
    if abs(value) <= FLOAT32_MAX:
        return (
            f"the constant {shown} is too small for float32 (its least positive value is {FLOAT32_TRUE_MIN:.9g}): "
            "the device computes in float32 and the tiling data holds host scalars as float32, where it is 0"
        )
    return (
        f"the constant {shown} is beyond float32's range (+-{FLOAT32_MAX:.9g}): the device computes in float32 "
        "and the tiling data holds host scalars as float32, where it is an infinity"
    )
