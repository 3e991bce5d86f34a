"""The float32 range rule: a constant part of an expression must fit in float32, where the device computes."""

from __future__ import annotations

from codegen.spec.expr.evaluation import evaluate
from codegen.spec.expr.nodes import Expr, Name, names, to_source, walk
from codegen.spec.expr.values import ExprEvalError

#: The largest finite fp32 (FLT_MAX, ``numpy.finfo(numpy.float32).max``): a constant of a formula or host
#: scalar, a float attr's value or default must be within +-FLOAT32_MAX (the device computes in fp32 and the
#: tiling data holds host scalars as fp32; beyond it a value is an infinity, and a literal ``1e39f`` does not
#: compile).
FLOAT32_MAX = 3.4028234663852886e38


def constant_beyond_fp32(expr: Expr) -> tuple[Expr, float] | None:
    """The first subexpression of ``expr`` (parents first) that reads no name and whose value is a number
    beyond +-:data:`FLOAT32_MAX`, with that value: a literal (``1e39``) or a folded constant (``1e20 * 1e19``,
    each of whose literals fits), wherever it stands. None when every constant part fits; a constant part
    that cannot be evaluated (a division by zero) is left to the rules that report it."""
    for e in walk(expr):
        if isinstance(e, Name) or names(e):
            continue
        try:
            value = evaluate(e, {})
        except ExprEvalError:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > FLOAT32_MAX:
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
    return (
        f"the constant {shown} is beyond float32's range (+-{FLOAT32_MAX:.9g}): the device computes in float32 "
        "and the tiling data holds host scalars as float32, where it is an infinity"
    )
