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

from codegen.spec.expr.cpp import DEFAULT_CPP_FUNCTIONS, CppFunction, to_cpp
from codegen.spec.expr.evaluation import evaluate
from codegen.spec.expr.fp32_range import FLOAT32_MAX, constant_beyond_fp32, fp32_constant_message
from codegen.spec.expr.functions import DEFAULT_FUNCTIONS, NUMERIC_FUNCTIONS, TENSOR_FUNCTIONS, as_shape
from codegen.spec.expr.nodes import (
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    IfElse,
    Name,
    Num,
    Unary,
    calls,
    names,
    to_source,
    unparse,
    walk,
)
from codegen.spec.expr.parse import ALLOWED_SYNTAX, parse_expr
from codegen.spec.expr.static_types import (
    HOST_NUMERIC_SIGNATURES,
    PRESENCE_SIGNATURES,
    SHAPE_SIGNATURES,
    TENSOR_SIGNATURES,
    VECTOR_SIGNATURES,
    Checked,
    ExprType,
    Scope,
    Signature,
    check,
)
from codegen.spec.expr.values import INT64_MAX, INT64_MIN, ExprEvalError

__all__ = [
    "ALLOWED_SYNTAX",
    "DEFAULT_CPP_FUNCTIONS",
    "DEFAULT_FUNCTIONS",
    "FLOAT32_MAX",
    "HOST_NUMERIC_SIGNATURES",
    "INT64_MAX",
    "INT64_MIN",
    "NUMERIC_FUNCTIONS",
    "PRESENCE_SIGNATURES",
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
    "constant_beyond_fp32",
    "evaluate",
    "fp32_constant_message",
    "names",
    "parse_expr",
    "to_cpp",
    "to_source",
    "unparse",
    "walk",
]
