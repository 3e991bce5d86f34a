"""C++ emission: an expression tree printed as a C++ expression that computes what evaluation does."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from codegen.spec.expr.nodes import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary
from codegen.spec.expr.values import INT64_MIN

#: Prints one function call in C++ from its already printed arguments.
CppFunction = Callable[[list[str]], str]


def _cpp_min(args: list[str]) -> str:
    out = args[0]
    for a in args[1:]:
        out = f"(({a} < {out}) ? {a} : {out})"
    return out


def _cpp_max(args: list[str]) -> str:
    out = args[0]
    for a in args[1:]:
        out = f"(({a} > {out}) ? {a} : {out})"
    return out


#: C++ forms of the numeric functions (need ``<cmath>``/``<cstdlib>``); they agree with
#: :data:`~codegen.spec.expr.NUMERIC_FUNCTIONS`. ``min``/``max`` are ternaries so that mixed int64/double
#: arguments work.
DEFAULT_CPP_FUNCTIONS: Mapping[str, CppFunction] = {
    "abs": lambda a: f"std::abs({a[0]})",
    "min": _cpp_min,
    "max": _cpp_max,
    "sqrt": lambda a: f"std::sqrt(static_cast<double>({a[0]}))",
    "exp": lambda a: f"std::exp(static_cast<double>({a[0]}))",
    "log": lambda a: f"std::log(static_cast<double>({a[0]}))",
    "sigmoid": lambda a: f"(1.0 / (1.0 + std::exp(-static_cast<double>({a[0]}))))",
    "relu": lambda a: f"(({a[0]} > 0) ? {a[0]} : 0)",
    "tanh": lambda a: f"std::tanh(static_cast<double>({a[0]}))",
    "erf": lambda a: f"std::erf(static_cast<double>({a[0]}))",
    "log1p": lambda a: f"std::log1p(static_cast<double>({a[0]}))",
    "rsqrt": lambda a: f"(1.0 / std::sqrt(static_cast<double>({a[0]})))",
    "sign": lambda a: (
        f"((static_cast<double>({a[0]}) > 0.0) ? 1.0 : (static_cast<double>({a[0]}) < 0.0) ? -1.0 "
        f": static_cast<double>({a[0]}))"
    ),
    "clamp": lambda a: (
        f"std::fmin(std::fmax(static_cast<double>({a[0]}), static_cast<double>({a[1]})), static_cast<double>({a[2]}))"
    ),
    "pow": lambda a: f"std::pow(static_cast<double>({a[0]}), static_cast<double>({a[1]}))",
    "where": lambda a: f"(({a[0]}) ? {a[1]} : {a[2]})",
}


def _cpp_number(value: int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value == INT64_MIN:
            return "(-int64_t{9223372036854775807} - int64_t{1})"
        return f"int64_t{{{value}}}"
    text = repr(float(value))
    if not math.isfinite(value):
        raise ValueError(f"to_cpp: float literal {text} is not finite")
    return f"({text})" if value < 0 or text.startswith("-") else text


def to_cpp(
    expr: Expr,
    name: Callable[[str], str],
    functions: Mapping[str, CppFunction] | None = None,
    is_float: Callable[[Expr], bool] | None = None,
) -> str:
    """Prints ``expr`` as a fully parenthesised C++ expression that computes what
    :func:`~codegen.spec.expr.evaluate` does.

    Integer literals print as ``int64_t{N}``, floats with ``repr`` precision (e.g. ``0.1``, ``1e-05``),
    booleans as ``true``/``false``; ``a / b`` as ``(static_cast<double>(a) / static_cast<double>(b))``;
    ``a // b`` as ``(a / b)`` and ``a % b`` as ``(a % b)`` (C truncation on int64_t, the operands must be
    integers); ``and``/``or``/``not`` as ``&&``/``||``/``!``; ``x if c else y`` as ``(c ? x : y)``.
    Guards against division by zero or overflow are the caller's business.

    Args:
        expr: the expression.
        name: the C++ text of each name (e.g. ``lambda n: n`` or a lookup into tiling fields).
        functions: the C++ form of each function, given its printed arguments; merged over
            :data:`DEFAULT_CPP_FUNCTIONS` (numeric functions), so only tensor functions such as ``numel``
            need to be given.
        is_float: whether a subexpression has a floating type; when given, the integer operand of an
            arithmetic operator or a comparison with a floating one is converted explicitly
            (``static_cast<double>``, the conversion C++ would apply implicitly), so the text compiles clean
            under ``-Wconversion``.

    Returns:
        The C++ expression text.

    Raises:
        ValueError: a called function has no C++ form, or a float literal is not finite.
    """
    table: dict[str, CppFunction] = dict(DEFAULT_CPP_FUNCTIONS)
    if functions:
        table.update(functions)

    def promote(a: Expr, a_text: str, b: Expr, b_text: str) -> tuple[str, str]:
        if is_float is None:
            return a_text, b_text
        fa, fb = is_float(a), is_float(b)
        if fa and not fb:
            return a_text, f"static_cast<double>({b_text})"
        if fb and not fa:
            return f"static_cast<double>({a_text})", b_text
        return a_text, b_text

    def go(e: Expr) -> str:
        if isinstance(e, Num):
            return _cpp_number(e.value)
        if isinstance(e, Name):
            return name(e.id)
        if isinstance(e, Unary):
            op = "!" if e.op == "not" else e.op
            return f"({op}{go(e.operand)})"
        if isinstance(e, Binary):
            left, right = go(e.left), go(e.right)
            if e.op == "/":
                return f"(static_cast<double>({left}) / static_cast<double>({right}))"
            if e.op == "//":
                return f"({left} / {right})"
            left, right = promote(e.left, left, e.right, right)
            return f"({left} {e.op} {right})"
        if isinstance(e, Compare):
            left, right = promote(e.left, go(e.left), e.right, go(e.right))
            return f"({left} {e.op} {right})"
        if isinstance(e, BoolOp):
            op = " && " if e.op == "and" else " || "
            return "(" + op.join(go(v) for v in e.values) + ")"
        if isinstance(e, IfElse):
            return f"({go(e.cond)} ? {go(e.then)} : {go(e.orelse)})"
        if isinstance(e, Call):
            if e.func not in table:
                raise ValueError(f"to_cpp: no C++ form for function '{e.func}'; known: {', '.join(sorted(table))}")
            return table[e.func]([go(a) for a in e.args])
        raise TypeError(f"not an expression node: {e!r}")

    return go(expr)
