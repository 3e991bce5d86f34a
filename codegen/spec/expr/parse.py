"""Parsing: spec text to an expression tree through Python's :mod:`ast`, allow-listed node by node."""

from __future__ import annotations

import ast
import math
import warnings

from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr.nodes import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary
from codegen.spec.expr.values import INT64_MAX

#: Longest expression text accepted (characters).
MAX_EXPR_CHARS = 2000
#: Deepest nesting of the tree accepted (keeps every recursive walk far from Python's recursion limit).
MAX_EXPR_DEPTH = 100

#: What the error messages list as allowed.
ALLOWED_SYNTAX = (
    "numbers, True/False, names, unary - + not, binary + - * / // %, comparisons == != < <= > >=, "
    "and, or, 'x if cond else y', calls f(a, b) of the context's functions"
)


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
        text: the expression, Python syntax (see :mod:`codegen.spec.expr`). Line breaks count as spaces.
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
