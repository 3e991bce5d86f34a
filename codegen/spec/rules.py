"""Load-time rules on expressions that type-check but would fail later: at generation or on the device.

* :func:`formula_problem`: an elementwise formula may only combine tensor values with what the formula
  compiler turns into AscendC vector instructions (``+ - * /``, unary minus, ``exp log abs sqrt relu
  sigmoid`` and two-argument ``min``/``max``); subtrees without tensors are host scalars and may use the
  whole host language.
* :func:`zero_divisor`: a host expression (compute scalar, constraint, output shape) must not divide by an
  integer attribute that may be 0 (``//`` and ``%`` by an integer 0 are a ``SIGFPE`` in the generated C++),
  unless a guard on the way to the division (``a if mode != 0 else b``, ``mode != 0 and ...``) or an
  unconditional constraint on every product (``require: "mode > 0"``) excludes 0.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from codegen.spec.expr import Binary, BoolOp, Call, Compare, Expr, ExprEvalError, IfElse, Name, Num, Unary, evaluate
from codegen.spec.expr import names as expr_names

#: Functions the formula compiler lowers to vector instructions when their argument holds a tensor
#: (``codegen.plan.elementwise_compiler``: UNARY_INSTRUCTIONS, MINMAX_INSTRUCTIONS and ``sigmoid``).
TENSOR_FUNCTIONS: frozenset[str] = frozenset({"exp", "log", "abs", "sqrt", "relu", "sigmoid", "min", "max"})
#: Binary operators the formula compiler lowers when an operand holds a tensor.
TENSOR_OPERATORS: frozenset[str] = frozenset({"+", "-", "*", "/"})
#: Operators that divide: a 0 divisor faults (``//``, ``%``) or gives inf/NaN (``/``).
DIVISIONS: frozenset[str] = frozenset({"/", "//", "%"})

_KIND = {IfElse: "a conditional 'a if c else b'", Compare: "a comparison", BoolOp: "'and'/'or'"}


def formula_problem(e: Expr, tensors: Collection[str]) -> str | None:
    """Why elementwise formula ``e`` cannot be compiled into vector instructions, or None when it can.

    Args:
        e: a type-checked formula.
        tensors: the op's input names (the only tensor-valued names of a formula).

    Returns:
        A sentence naming the first unsupported construct over tensor values and what is allowed.
    """
    allowed = (
        "over tensor values a formula allows + - * /, unary minus and "
        f"{', '.join(sorted(TENSOR_FUNCTIONS - {'min', 'max'}))}, min(a, b), max(a, b); "
        "subexpressions without tensors (host scalars) may use the whole expression language"
    )
    tensor_set = frozenset(tensors)

    def go(x: Expr) -> str | None:
        if not (expr_names(x) & tensor_set):
            return None  # a host scalar
        if isinstance(x, Name):
            return None
        if isinstance(x, Unary):
            if x.op == "not":
                return f"'not' of a tensor value cannot be compiled into vector instructions; {allowed}"
            return go(x.operand)
        if isinstance(x, Binary):
            if x.op not in TENSOR_OPERATORS:
                return f"'{x.op}' of a tensor value cannot be compiled into vector instructions; {allowed}"
            return go(x.left) or go(x.right)
        if isinstance(x, Call):
            if x.func not in TENSOR_FUNCTIONS:
                return f"{x.func}() of a tensor value cannot be compiled into vector instructions; {allowed}"
            if x.func in ("min", "max") and len(x.args) != 2:
                return f"{x.func}() of tensor values takes exactly 2 arguments, got {len(x.args)}; {allowed}"
            for a in x.args:
                problem = go(a)
                if problem:
                    return problem
            return None
        kind = _KIND.get(type(x), type(x).__name__)
        return (
            f"{kind} on tensor values ('{x}') cannot be compiled into vector instructions (they have no "
            f"per-element select); {allowed}"
        )

    return go(e)


def _only_over(e: Expr, attr: str) -> bool:
    return expr_names(e) <= {attr}


def excludes_zero(cond: Expr, attr: str, truth: bool) -> bool:
    """True when ``cond`` evaluating to ``truth`` implies ``attr != 0``.

    Decided per conjunct (``truth`` True) or disjunct (``truth`` False) that reads only ``attr`` and
    numbers, by evaluating it at ``attr = 0``; other conditions are not assumed to exclude 0.
    """
    if isinstance(cond, Unary) and cond.op == "not":
        return excludes_zero(cond.operand, attr, not truth)
    if isinstance(cond, BoolOp):
        # a and b true: each is true; a or b false: each is false. Either: one excluding part suffices.
        if (cond.op == "and") == truth:
            return any(excludes_zero(v, attr, truth) for v in cond.values)
        return all(excludes_zero(v, attr, truth) for v in cond.values)
    if attr not in expr_names(cond) or not _only_over(cond, attr):
        return False
    try:
        return bool(evaluate(cond, {attr: 0})) != truth
    except ExprEvalError:
        return False


def _divisor_attr(d: Expr, scalar_defs: Mapping[str, Expr]) -> str | None:
    """The name a divisor reduces to through signs and scalar definitions (``-k`` with ``k: mode``)."""
    seen: set[str] = set()
    while True:
        if isinstance(d, Unary) and d.op in ("-", "+"):
            d = d.operand
        elif isinstance(d, Name) and d.id in scalar_defs and d.id not in seen:
            seen.add(d.id)
            d = scalar_defs[d.id]
        elif isinstance(d, Name):
            return d.id
        else:
            return None


def zero_divisor(e: Expr, may_be_zero: Collection[str], scalar_defs: Mapping[str, Expr] | None = None) -> str | None:
    """The attr of ``may_be_zero`` that a ``/``, ``//`` or ``%`` in ``e`` divides by without a guard
    excluding 0 on the way there, or None.

    Args:
        e: a host expression.
        may_be_zero: integer attrs 0 is a legal value of (not excluded by a constraint).
        scalar_defs: definitions of the scalar names ``e`` may use (a divisor ``k`` with ``k: mode`` is ``mode``).
    """
    defs = scalar_defs or {}

    def go(x: Expr, safe: frozenset[str]) -> str | None:
        if isinstance(x, Binary):
            if x.op in DIVISIONS:
                attr = _divisor_attr(x.right, defs)
                if attr is not None and attr in may_be_zero and attr not in safe:
                    return attr
            return go(x.left, safe) or go(x.right, safe)
        if isinstance(x, IfElse):
            then_safe = safe | {a for a in may_be_zero if excludes_zero(x.cond, a, True)}
            else_safe = safe | {a for a in may_be_zero if excludes_zero(x.cond, a, False)}
            return go(x.cond, safe) or go(x.then, then_safe) or go(x.orelse, else_safe)
        if isinstance(x, BoolOp):
            for v in x.values:
                found = go(v, safe)
                if found:
                    return found
                # the next value runs only when this one was true ('and') or false ('or')
                safe = safe | {a for a in may_be_zero if excludes_zero(v, a, x.op == "and")}
            return None
        if isinstance(x, Unary):
            return go(x.operand, safe)
        if isinstance(x, Compare):
            return go(x.left, safe) or go(x.right, safe)
        if isinstance(x, Call):
            for a in x.args:
                found = go(a, safe)
                if found:
                    return found
            return None
        assert isinstance(x, (Name, Num)), x
        return None

    return go(e, frozenset())
