"""Load-time rules of the elementwise family on expressions that type-check but would fail later.

* :func:`formula_problem`: an elementwise formula may only combine tensor values with what the formula
  compiler turns into AscendC vector instructions (``+ - * /``, unary minus, ``exp log abs sqrt relu
  sigmoid`` and two-argument ``min``/``max``); subtrees without tensors are host scalars and may use the
  whole host language.
* :func:`elementwise_host_problem`: a host scalar may use only what the tiling function sees (the output's
  shape).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from codegen.spec.expr import VECTOR_SIGNATURES, Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Unary, walk
from codegen.spec.expr import names as expr_names

#: Functions the formula compiler lowers to vector instructions when their argument holds a tensor: the
#: formula vocabulary, :data:`codegen.spec.expr.VECTOR_SIGNATURES` (its one source; the compiler's
#: UNARY_INSTRUCTIONS, MINMAX_INSTRUCTIONS and ``sigmoid`` lower exactly these, a test checks).
TENSOR_FUNCTIONS: frozenset[str] = frozenset(VECTOR_SIGNATURES)
#: Functions whose listed argument positions must be host values (no tensor) in a formula.
HOST_ARGUMENTS: Mapping[str, tuple[int, ...]] = {"clamp": (1, 2), "pow": (1,)}
#: Binary operators the formula compiler lowers when an operand holds a tensor.
TENSOR_OPERATORS: frozenset[str] = frozenset({"+", "-", "*", "/"})
_KIND = {IfElse: "a conditional 'a if c else b'", Compare: "a comparison", BoolOp: "'and'/'or'"}


def formula_problem(e: Expr, tensors: Collection[str]) -> str | None:
    """Why elementwise formula ``e`` cannot be compiled into vector instructions, or None when it can.

    Over tensor values a formula may use ``+ - * /``, unary minus, the functions of
    :data:`TENSOR_FUNCTIONS` (``min``/``max`` with two arguments, ``clamp`` bounds and the ``pow`` exponent
    host values), comparisons (``< <= > >= == !=`` of numbers: a per-element condition) and ``and``/
    ``or``/``not`` of conditions, where a condition may only be the first argument of ``where()`` (the
    type check already rejects a condition used as a number). A conditional ``a if c else b`` over tensor
    values and ``==``/``!=`` between two conditions are rejected.

    Args:
        e: a type-checked formula.
        tensors: the op's input names (the only tensor-valued names of a formula).

    Returns:
        A sentence naming the first unsupported construct over tensor values and what is allowed.
    """
    allowed = (
        "over tensor values a formula allows + - * /, unary minus, "
        f"{', '.join(sorted(TENSOR_FUNCTIONS - {'min', 'max', 'clamp', 'pow', 'where'}))}, min(a, b), "
        "max(a, b), clamp(x, lo, hi) and pow(x, p) with host lo, hi, p, comparisons < <= > >= == != and "
        "and/or/not of them as the condition of where(cond, a, b); subexpressions without tensors (host "
        "scalars) may use the whole expression language"
    )
    tensor_set = frozenset(tensors)

    def is_condition(x: Expr) -> bool:
        return isinstance(x, (Compare, BoolOp)) or (isinstance(x, Unary) and x.op == "not")

    def go(x: Expr) -> str | None:
        if not (expr_names(x) & tensor_set):
            return None  # a host scalar
        if isinstance(x, Name):
            return None
        if isinstance(x, Unary):
            return go(x.operand)
        if isinstance(x, Binary):
            if x.op not in TENSOR_OPERATORS:
                return f"'{x.op}' of a tensor value cannot be compiled into vector instructions; {allowed}"
            return go(x.left) or go(x.right)
        if isinstance(x, Compare):
            if is_condition(x.left) or is_condition(x.right):
                return (
                    f"'{x}' compares conditions over tensor values; combine conditions with and/or/not "
                    f"instead; {allowed}"
                )
            return go(x.left) or go(x.right)
        if isinstance(x, BoolOp):
            for v in x.values:
                problem = go(v)
                if problem:
                    return problem
            return None
        if isinstance(x, Call):
            if x.func not in TENSOR_FUNCTIONS:
                return f"{x.func}() of a tensor value cannot be compiled into vector instructions; {allowed}"
            if x.func in ("min", "max") and len(x.args) != 2:
                return f"{x.func}() of tensor values takes exactly 2 arguments, got {len(x.args)}; {allowed}"
            for i in HOST_ARGUMENTS.get(x.func, ()):
                if i < len(x.args) and expr_names(x.args[i]) & tensor_set:
                    return (
                        f"argument {i + 1} of {x.func}() must be a host value (no tensor), got '{x.args[i]}'; {allowed}"
                    )
            for a in x.args:
                problem = go(a)
                if problem:
                    return problem
            return None
        if isinstance(x, IfElse):
            return (
                f"a conditional 'a if c else b' on tensor values ('{x}') cannot be compiled into vector "
                f"instructions: write where(c, a, b) (a per-element Select); {allowed}"
            )
        kind = _KIND.get(type(x), type(x).__name__)
        return f"{kind} on tensor values ('{x}') cannot be compiled into vector instructions; {allowed}"

    return go(e)


#: Shape functions the elementwise tiling function can evaluate, of the output only (its C++ form:
#: ``numel`` is ``totalLength``, ``rank`` the output shape's rank).
HOST_SHAPE_FUNCTIONS: frozenset[str] = frozenset({"numel", "rank"})


def elementwise_host_problem(e: Expr, inputs: Collection[str]) -> str | None:
    """Why an elementwise host expression (a scalar, or a formula's subtree without tensor values) cannot be
    computed by the tiling function, or None.

    The tiling function sees only the output's shape (the inputs reach the device op already broadcast to
    it), so ``numel``/``rank`` of an input are unknown there, and ``dim`` is not available at all (its axis
    could be out of range at run time).
    """
    for x in walk(e):
        if not isinstance(x, Call) or x.func not in ("numel", "rank", "dim"):
            continue
        arg = x.args[0] if x.args else None
        if x.func == "dim":
            return (
                f"'{x}': dim() is not available in elementwise host scalars (only numel() and rank() of an "
                "output are: the tiling function sees the output's shape)"
            )
        if isinstance(arg, Name) and arg.id in inputs:
            return (
                f"'{x}': {x.func}() of an input is not available in elementwise host scalars (the device op "
                f"sees every input broadcast to the output's shape); use {x.func}() of the output"
            )
    return None
