"""The spec expression language: Python syntax, an allow-listed tree, evaluated in Python, printed as C++.

Shape formulas, host scalars, constraints and per-element formulas of op specs are written as Python
expressions. :func:`parse_expr` parses them with :mod:`ast` and converts the syntax tree into the small
node set below, rejecting every other construct with a message naming it; user text is never given to
``eval``, ``exec`` or ``compile``.

Grammar (what is allowed)::

    expr   := number | True | False | name | call
            | -expr | +expr | not expr
            | expr (+ | - | * | / | // | %) expr
            | expr (== | != | < | <= | > | >=) expr     (chains a < b < c mean a < b and b < c)
            | expr and expr | expr or expr
            | expr if expr else expr
    call   := name(expr, ...)                           (positional arguments only)

Semantics, chosen so that :func:`evaluate` and the C++ that :func:`to_cpp` prints agree:

- integers are int64: a result outside ``[-2**63, 2**63 - 1]`` raises :class:`ExprEvalError` (in C++ it
  would be undefined behaviour);
- ``//`` and ``%`` take integers only and truncate toward zero as C does (``-7 // 2 == -3``,
  ``-7 % 2 == -1``), unlike Python's floor division;
- ``/`` is always floating division of the operands converted to double (``7 / 2 == 3.5``);
- an int meeting a float (arithmetic or comparison) is first converted to double, as C++ does;
- ``and``/``or``/``not`` give booleans (``2 and 3`` is ``True``, as ``&&`` in C++);
- division or remainder by zero raises :class:`ExprEvalError`.

Type rules that the loader enforces statically live in :func:`check` and :class:`Scope`.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import enum
import math
import numbers
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from codegen.spec.errors import SourceLoc, SpecError

__all__ = [
    "ALLOWED_SYNTAX",
    "DEFAULT_CPP_FUNCTIONS",
    "DEFAULT_FUNCTIONS",
    "HOST_NUMERIC_SIGNATURES",
    "INT64_MAX",
    "INT64_MIN",
    "NUMERIC_FUNCTIONS",
    "SHAPE_SIGNATURES",
    "TENSOR_FUNCTIONS",
    "TENSOR_SIGNATURES",
    "VECTOR_SIGNATURES",
    "Binary",
    "BoolOp",
    "Call",
    "Checked",
    "Compare",
    "CppFunction",
    "Expr",
    "ExprEvalError",
    "ExprType",
    "IfElse",
    "Name",
    "Num",
    "Scope",
    "Signature",
    "Unary",
    "as_shape",
    "calls",
    "check",
    "evaluate",
    "names",
    "parse_expr",
    "to_cpp",
    "to_source",
    "unparse",
    "walk",
]

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
#: Longest expression text accepted (characters).
MAX_EXPR_CHARS = 2000
#: Deepest nesting of the tree accepted (keeps every recursive walk far from Python's recursion limit).
MAX_EXPR_DEPTH = 100

#: What the error messages list as allowed.
ALLOWED_SYNTAX = (
    "numbers, True/False, names, unary - + not, binary + - * / // %, comparisons == != < <= > >=, "
    "and, or, 'x if cond else y', calls f(a, b) of the context's functions"
)


class ExprEvalError(Exception):
    """Evaluating an expression failed: int64 overflow, division by zero, an unknown name or function, an
    operand of the wrong kind, or a function that raised."""


# ----------------------------------------------------------------------------------------------- nodes


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
    """Arithmetic; ``op`` is one of ``+ - * / // %`` (see the module doc for C semantics)."""

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
    """``func(args...)``; ``func`` is resolved by context (see :class:`Scope`)."""

    func: str
    args: tuple[Expr, ...]


_BINARY_OPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}
_UNARY_OPS: dict[type[ast.unaryop], str] = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not"}
_COMPARE_OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_FORBIDDEN_OPERATORS: dict[type[ast.AST], str] = {
    ast.Pow: "power operator '**'",
    ast.MatMult: "matrix multiplication operator '@'",
    ast.BitAnd: "bitwise operator '&'",
    ast.BitOr: "bitwise operator '|'",
    ast.BitXor: "bitwise operator '^'",
    ast.LShift: "shift operator '<<'",
    ast.RShift: "shift operator '>>'",
    ast.Invert: "bitwise operator '~'",
    ast.In: "membership test 'in'",
    ast.NotIn: "membership test 'not in'",
    ast.Is: "identity test 'is'",
    ast.IsNot: "identity test 'is not'",
}
_FORBIDDEN_NODES: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscript",
    ast.Slice: "slice",
    ast.Lambda: "lambda",
    ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression",
    ast.List: "list literal",
    ast.Tuple: "tuple",
    ast.Dict: "dict literal",
    ast.Set: "set literal",
    ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string",
    ast.NamedExpr: "assignment expression ':='",
    ast.Starred: "starred argument",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


def _constant_kind(value: object) -> str:
    if isinstance(value, str):
        return "string literal"
    if isinstance(value, bytes):
        return "bytes literal"
    if value is None:
        return "None"
    if value is Ellipsis:
        return "'...'"
    if isinstance(value, complex):
        return "complex number"
    return f"constant {value!r}"


class _Converter:
    """Converts a Python ``ast`` expression into :class:`Expr` nodes, rejecting everything else."""

    def __init__(self, loc: SourceLoc, field: str, column_shift: int, strings: bool = False) -> None:
        self.loc = loc
        self.field = field
        self.column_shift = column_shift
        self.strings = strings

    def reject(self, node: ast.AST, what: str) -> SpecError:
        col = getattr(node, "col_offset", 0) + 1 + self.column_shift
        return SpecError(self.loc, self.field, f"{what} is not allowed (column {col}); allowed: {ALLOWED_SYNTAX}")

    def convert(self, node: ast.AST, depth: int) -> Expr:
        if depth > MAX_EXPR_DEPTH:
            raise SpecError(self.loc, self.field, f"expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)")
        d = depth + 1
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                raise self.reject(node, f"name '{node.id}' (names starting with '__')")
            return Name(node.id)
        if isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY_OPS:
                raise self.reject(node, _FORBIDDEN_OPERATORS.get(type(node.op), type(node.op).__name__))
            return Unary(_UNARY_OPS[type(node.op)], self.convert(node.operand, d))
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY_OPS:
                raise self.reject(node, _FORBIDDEN_OPERATORS.get(type(node.op), type(node.op).__name__))
            return Binary(_BINARY_OPS[type(node.op)], self.convert(node.left, d), self.convert(node.right, d))
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return BoolOp(op, tuple(self.convert(v, d) for v in node.values))
        if isinstance(node, ast.Compare):
            return self.compare(node, d)
        if isinstance(node, ast.IfExp):
            return IfElse(self.convert(node.test, d), self.convert(node.body, d), self.convert(node.orelse, d))
        if isinstance(node, ast.Call):
            return self.call(node, d)
        what = _FORBIDDEN_NODES.get(type(node), f"construct '{type(node).__name__}'")
        raise self.reject(node, what)

    def constant(self, node: ast.Constant) -> Expr:
        value = node.value
        if self.strings and isinstance(value, str) and value.isprintable() and '"' not in value and "\\" not in value:
            # A string literal: a placeholder name the spec loader replaces by the index of a string
            # attribute's value (``approximate == "tanh"``); anywhere else it is an unknown name.
            return Name(f'"{value}"')
        if isinstance(value, bool):
            return Num(value)
        if isinstance(value, int):
            if value > INT64_MAX:
                raise SpecError(
                    self.loc, self.field, f"integer literal {value} does not fit in int64 (at most {INT64_MAX})"
                )
            return Num(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                col = node.col_offset + 1 + self.column_shift
                raise SpecError(self.loc, self.field, f"float literal at column {col} overflows a double")
            return Num(value)
        raise self.reject(node, _constant_kind(value))

    def compare(self, node: ast.Compare, depth: int) -> Expr:
        for op in node.ops:
            if type(op) not in _COMPARE_OPS:
                raise self.reject(node, _FORBIDDEN_OPERATORS.get(type(op), type(op).__name__))
        operands = [self.convert(node.left, depth), *(self.convert(c, depth) for c in node.comparators)]
        parts = tuple(Compare(_COMPARE_OPS[type(op)], operands[i], operands[i + 1]) for i, op in enumerate(node.ops))
        return parts[0] if len(parts) == 1 else BoolOp("and", parts)

    def call(self, node: ast.Call, depth: int) -> Call:
        if not isinstance(node.func, ast.Name):
            raise self.reject(node.func, "call of something other than a plain function name")
        if node.func.id.startswith("__"):
            raise self.reject(node.func, f"function '{node.func.id}' (names starting with '__')")
        if node.keywords:
            raise self.reject(node.keywords[0], "keyword argument")
        return Call(node.func.id, tuple(self.convert(a, depth) for a in node.args))


def parse_expr(text: str, loc: SourceLoc, field: str, strings: bool = False) -> Expr:
    """Parses one expression of the spec language.

    Args:
        text: the expression, Python syntax (see the module doc). Line breaks count as spaces.
        loc: where the text is (for errors).
        field: the field path (for errors), e.g. ``compute.out``.
        strings: accept string literals (``"tanh"``) as placeholder names ``Name('"tanh"')``, which the
            spec loader replaces by the index of a string attribute's value; rejected otherwise.

    Returns:
        The expression tree.

    Raises:
        SpecError: ``text`` is not a string, is empty or too long, is not valid Python (the message gives
            the column), uses a construct outside the grammar (the message names it and lists what is
            allowed), has an integer literal beyond int64 or is nested too deeply.
    """
    if not isinstance(text, str):
        raise SpecError(loc, field, f"expected an expression string, got {type(text).__name__}")
    if len(text) > MAX_EXPR_CHARS:
        raise SpecError(loc, field, f"expression is too long ({len(text)} characters; at most {MAX_EXPR_CHARS})")
    flat = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").rstrip()
    body = flat.lstrip()
    shift = len(flat) - len(body)
    if not body:
        raise SpecError(loc, field, "empty expression")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(body, mode="eval")
    except SyntaxError as exc:
        offset = exc.offset if exc.offset else len(body) + 1
        raise SpecError(loc, field, f"syntax error at column {offset + shift}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise SpecError(loc, field, f"cannot parse expression: {exc}") from None
    return _Converter(loc, field, shift, strings).convert(tree.body, 0)


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

    For trees made by :func:`parse_expr`, ``parse_expr(to_source(e), ...) == e``.
    """
    return _source(expr)[0]


#: Alias of :func:`to_source`.
unparse = to_source


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
#: :data:`NUMERIC_FUNCTIONS`. ``min``/``max`` are ternaries so that mixed int64/double arguments work.
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
    """Prints ``expr`` as a fully parenthesised C++ expression that computes what :func:`evaluate` does.

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


# ---------------------------------------------------------------------------------------- evaluation


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
    """Evaluates ``expr`` with the semantics of the module doc (int64, C division, double conversion).

    Args:
        expr: the expression.
        env: the value of each name: numbers (Python or NumPy scalars) or opaque objects that only
            functions and ``==``/``!=`` use (tensors, shapes, dtypes).
        functions: the implementation of each function; default :data:`DEFAULT_FUNCTIONS` (numeric
            functions and the tensor functions of :data:`TENSOR_FUNCTIONS`).

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
    """Whether the C++ form of ``e`` (see :func:`to_cpp`) has type double, from its structure and the kinds
    of the values in ``env`` (a float name is a double, an int or bool name an integer); nothing is
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


def _fn_abs(x: object) -> int | float:
    v = _number(x, "abs()")
    return math.fabs(v) if isinstance(v, float) else _int64(abs(v), f"abs({v})")


def _fn_min(*args: object) -> int | float:
    return _pick(args, "min", lambda cand, cur: cand < cur)


def _fn_max(*args: object) -> int | float:
    return _pick(args, "max", lambda cand, cur: cand > cur)


def _pick(args: Sequence[object], fn: str, better: Callable[[float, float], bool]) -> int | float:
    if len(args) < 2:
        raise ExprEvalError(f"{fn}() needs at least 2 arguments")
    vals = [_number(a, f"{fn}()") for a in args]
    mixed = any(isinstance(v, float) for v in vals)
    best = vals[0]
    for v in vals[1:]:
        if better(float(v), float(best)) if mixed else better(v, best):
            best = v
    return float(best) if mixed else best


def _fn_sqrt(x: object) -> float:
    v = float(_number(x, "sqrt()"))
    return math.nan if v < 0 else math.sqrt(v)


def _fn_exp(x: object) -> float:
    try:
        return math.exp(float(_number(x, "exp()")))
    except OverflowError:
        return math.inf


def _fn_log(x: object) -> float:
    v = float(_number(x, "log()"))
    if v == 0:
        return -math.inf
    return math.nan if v < 0 else math.log(v)


def _fn_sigmoid(x: object) -> float:
    return 1.0 / (1.0 + _fn_exp(-float(_number(x, "sigmoid()"))))


def _fn_tanh(x: object) -> float:
    return math.tanh(float(_number(x, "tanh()")))


def _fn_erf(x: object) -> float:
    return math.erf(float(_number(x, "erf()")))


def _fn_log1p(x: object) -> float:
    v = float(_number(x, "log1p()"))
    if v == -1:
        return -math.inf
    return math.nan if v < -1 else math.log1p(v)


def _fn_rsqrt(x: object) -> float:
    v = float(_number(x, "rsqrt()"))
    if v == 0:
        return math.copysign(math.inf, v)
    return math.nan if v < 0 else 1.0 / math.sqrt(v)


def _fn_sign(x: object) -> float:
    v = float(_number(x, "sign()"))
    return 1.0 if v > 0 else -1.0 if v < 0 else v


def _fn_clamp(x: object, lo: object, hi: object) -> float:
    v = float(_number(x, "clamp()"))
    v = max(v, float(_number(lo, "clamp()")))
    return min(v, float(_number(hi, "clamp()")))


def _fn_pow(x: object, p: object) -> float:
    base, exponent = float(_number(x, "pow()")), float(_number(p, "pow()"))
    try:
        return math.pow(base, exponent)
    except ValueError:
        return math.nan
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _fn_where(cond: object, a: object, b: object) -> int | float:
    if not isinstance(cond, bool):
        raise ExprEvalError(f"where(): the condition must be a boolean, got {cond!r}")
    va, vb = _number(a, "where()"), _number(b, "where()")
    picked = va if cond else vb
    return float(picked) if isinstance(va, float) or isinstance(vb, float) else picked


def _fn_relu(x: object) -> int | float:
    v = _number(x, "relu()")
    if isinstance(v, float):
        return v if v > 0 else 0.0
    return v if v > 0 else 0


#: Python implementations of the numeric functions, C-like at the edges (``log(0) == -inf``,
#: ``sqrt(-1)`` is NaN, ``exp`` overflows to inf, ``sigmoid(-1000) == 0.0``); they match
#: :data:`DEFAULT_CPP_FUNCTIONS`. ``min``/``max`` of mixed ints and floats give a float (C++'s common type).
NUMERIC_FUNCTIONS: Mapping[str, Callable[..., object]] = {
    "abs": _fn_abs,
    "min": _fn_min,
    "max": _fn_max,
    "sqrt": _fn_sqrt,
    "exp": _fn_exp,
    "log": _fn_log,
    "sigmoid": _fn_sigmoid,
    "relu": _fn_relu,
    "tanh": _fn_tanh,
    "erf": _fn_erf,
    "log1p": _fn_log1p,
    "rsqrt": _fn_rsqrt,
    "sign": _fn_sign,
    "clamp": _fn_clamp,
    "pow": _fn_pow,
    "where": _fn_where,
}


def as_shape(value: object) -> tuple[int, ...]:
    """The shape of a tensor-like value: a tuple/list of ints, or any object with a ``shape`` (NumPy array).

    Raises:
        ExprEvalError: ``value`` has no shape or a dimension is not a non-negative int64.
    """
    dims = value if isinstance(value, (tuple, list)) else getattr(value, "shape", None)
    if dims is None:
        raise ExprEvalError(f"expected a tensor or a shape, got {type(value).__name__}")
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or int(d) < 0:
            raise ExprEvalError(f"invalid dimension {d!r} in shape {tuple(dims)!r}")
        out.append(_int64(int(d), "dimension"))
    return tuple(out)


def _fn_numel(t: object) -> int:
    n = 1
    for d in as_shape(t):
        n = _int64(n * d, "numel")
    return n


def _fn_rank(t: object) -> int:
    return len(as_shape(t))


def _fn_dim(t: object, axis: object) -> int:
    shape = as_shape(t)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ExprEvalError(f"dim(): axis must be an integer, got {axis!r}")
    if not -len(shape) <= axis < len(shape):
        raise ExprEvalError(f"dim(): axis {axis} is out of range for rank {len(shape)}")
    return shape[axis]


def _fn_dtype(t: object) -> object:
    if not hasattr(t, "dtype"):
        raise ExprEvalError(f"dtype(): {type(t).__name__} has no dtype")
    return t.dtype


def _fn_broadcast(*tensors: object) -> tuple[int, ...]:
    """NumPy broadcasting of the shapes of ``tensors``."""
    shapes = [as_shape(t) for t in tensors]
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        size = 1
        for s in shapes:
            d = s[i - rank + len(s)] if i - rank + len(s) >= 0 else 1
            if d != 1 and size != 1 and d != size:
                raise ExprEvalError(f"broadcast(): shapes {', '.join(str(list(s)) for s in shapes)} do not broadcast")
            if d != 1:
                size = d
        out.append(size)
    return tuple(out)


def _fn_shape(*dims: object) -> tuple[int, ...]:
    return as_shape(tuple(dims))


def _fn_reduced(t: object, k: object) -> tuple[int, ...]:
    """The shape of ``t`` with its last ``k`` dims set to 1 (a reduction over them, dims kept)."""
    shape = as_shape(t)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(shape):
        raise ExprEvalError(f"reduced(): k must be an integer in [0, {len(shape)}], got {k!r}")
    return shape[: len(shape) - k] + (1,) * k


#: Python implementations of the tensor functions. A tensor value is anything :func:`as_shape` accepts
#: (``dtype(t)`` reads ``t.dtype``). ``broadcast`` and ``shape`` return shape tuples.
TENSOR_FUNCTIONS: Mapping[str, Callable[..., object]] = {
    "numel": _fn_numel,
    "rank": _fn_rank,
    "dim": _fn_dim,
    "dtype": _fn_dtype,
    "broadcast": _fn_broadcast,
    "shape": _fn_shape,
    "reduced": _fn_reduced,
}

#: The default ``functions`` of :func:`evaluate`.
DEFAULT_FUNCTIONS: Mapping[str, Callable[..., object]] = {**NUMERIC_FUNCTIONS, **TENSOR_FUNCTIONS}


# -------------------------------------------------------------------------------------- static types


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
#: Shape constructors: ``broadcast(t, ...)`` (NumPy rules), ``shape(d0, d1, ...)`` (``shape()`` is 0-d) and
#: ``reduced(t, k)`` (``t``'s shape with its last ``k`` dims set to 1).
SHAPE_SIGNATURES: Mapping[str, Signature] = {
    "broadcast": _sig([_TS], ExprType.SHAPE, "broadcast(tensor, ...)", 1, None),
    "shape": _sig([_I], ExprType.SHAPE, "shape(dim0, dim1, ...)", 0, None),
    "reduced": _sig([_TS, _I], ExprType.SHAPE, "reduced(tensor, k)", 2, 2),
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
            return "; ".join(f"{label}: {', '.join(ns)}" for label, ns in self.groups if ns)
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
