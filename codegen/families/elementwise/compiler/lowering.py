"""Formula-level rewrites before instruction selection: scalar names inlined, absent optional inputs
substituted, ``sigmoid``/``tanh``/``log1p``/``sign``/``clamp``/``pow`` rewritten into simpler constructs, and
negations pushed outward so they fold into host scalars."""

from __future__ import annotations

from collections.abc import Mapping

from codegen.spec.expr import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary, evaluate, names


def _neg(e: Expr) -> Expr:
    if isinstance(e, Unary) and e.op == "-":
        return e.operand
    if isinstance(e, Num) and not isinstance(e.value, bool):
        return Num(-e.value)
    return Unary("-", e)


def _inline_scalars(e: Expr, defs: dict[str, Expr]) -> Expr:
    """Replaces scalar names by their (recursively inlined) definitions."""
    if isinstance(e, Name):
        return _inline_scalars(defs[e.id], defs) if e.id in defs else e
    if isinstance(e, Unary):
        return Unary(e.op, _inline_scalars(e.operand, defs))
    if isinstance(e, Binary):
        return Binary(e.op, _inline_scalars(e.left, defs), _inline_scalars(e.right, defs))
    if isinstance(e, Compare):
        return Compare(e.op, _inline_scalars(e.left, defs), _inline_scalars(e.right, defs))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(_inline_scalars(v, defs) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(_inline_scalars(e.cond, defs), _inline_scalars(e.then, defs), _inline_scalars(e.orelse, defs))
    if isinstance(e, Call):
        return Call(e.func, tuple(_inline_scalars(a, defs) for a in e.args))
    return e


#: |x| beyond which tanh(x) is +-1 in fp32 (tanh(10) = 1 - 4.1e-9 rounds to 1); tanh clamps its argument so
#: that exp(2x) cannot overflow.
TANH_CLAMP = 10.0
#: Exponents of pow(x, p) lowered exactly (products, Sqrt, Rsqrt, Reciprocal); others use exp(p * log(x)).
EXACT_POWERS = (0.0, 1.0, 2.0, 3.0, 4.0, 0.5, -0.5, -1.0)


def _rewrite_function(func: str, args: tuple[Expr, ...]) -> Expr | None:
    """The formula-level rewrite of a function over tensor values into simpler constructs, or None when
    ``func`` has its own instruction (or instruction sequence, ``erf``) in the builder.

    ``tanh(u)``: ``v = clamp(u, -10, 10)``, ``e = exp(2v)``, ``(e - 1) / (e + 1)`` (no overflow; NaN
    stays NaN). ``log1p(x)``: ``u = 1 + x``; ``x`` where ``u == 1``, ``log(u) * x / (u - 1)`` (Goldberg's
    form, accurate near 0) where ``|x| < 0.5``, else ``log(u)``. ``sign(x)``: ``where(x > 0, 1, where(x < 0,
    -1, x))`` (keeps +-0 and NaN). ``clamp(x, lo, hi)``: ``min(max(x, lo), hi)``. ``pow(x, p)``: a literal
    ``p`` in :data:`EXACT_POWERS` is exact, any other ``exp(p * log(x))``.
    """
    if func == "tanh":
        (u,) = args
        v = Call("min", (Call("max", (u, Num(-TANH_CLAMP))), Num(TANH_CLAMP)))
        e = Call("exp", (Binary("*", Num(2), v),))
        return Binary("/", Binary("-", e, Num(1)), Binary("+", e, Num(1)))
    if func == "log1p":
        (x,) = args
        u = Binary("+", x, Num(1))
        goldberg = Binary("/", Binary("*", Call("log", (u,)), x), Binary("-", u, Num(1)))
        near = Call("where", (Compare("<", Call("abs", (x,)), Num(0.5)), goldberg, Call("log", (u,))))
        return Call("where", (Compare("==", u, Num(1)), x, near))
    if func == "sign":
        (x,) = args
        return Call(
            "where", (Compare(">", x, Num(0)), Num(1.0), Call("where", (Compare("<", x, Num(0)), Num(-1.0), x)))
        )
    if func == "clamp":
        x, lo, hi = args
        return Call("min", (Call("max", (x, lo)), hi))
    if func == "pow":
        x, p = args
        if isinstance(p, Num) and not isinstance(p.value, bool) and float(p.value) in EXACT_POWERS:
            k = float(p.value)
            if k == 0:
                return Num(1.0)
            if k == 1:
                return x
            if k == 2:
                return Binary("*", x, x)
            if k == 3:
                return Binary("*", Binary("*", x, x), x)
            if k == 4:
                return Binary("*", Binary("*", x, x), Binary("*", x, x))
            if k == 0.5:
                return Call("sqrt", (x,))
            if k == -0.5:
                return Call("rsqrt", (x,))
            return Binary("/", Num(1), x)
        return Call("exp", (Binary("*", p, Call("log", (x,))),))
    return None


def _never_negative(e: Expr) -> bool:
    """Whether ``e`` is +0, positive or NaN wherever it is defined, whatever its operands: ``exp(u)``,
    ``abs(u)`` and ``u * u`` (so ``abs(e)`` is ``e``, bit for bit, NaN included, and costs no ``Abs``)."""
    if isinstance(e, Call) and e.func in ("exp", "abs"):
        return True
    return isinstance(e, Binary) and e.op == "*" and e.left == e.right


def _is_log1p(e: Expr, tensors: frozenset[str]) -> bool:
    """Whether ``e`` is the lowered rewrite of ``log1p`` of its second argument (``where(x + 1 == 1, x,
    ...)``, see :func:`_rewrite_function`), written by the rewrite or by hand."""
    if not (isinstance(e, Call) and e.func == "where" and len(e.args) == 3):
        return False
    rewritten = _rewrite_function("log1p", (e.args[1],))
    return rewritten is not None and _lower(rewritten, tensors) == e


def _lower(e: Expr, tensors: frozenset[str]) -> Expr:
    """Rewrites sigmoid and pushes negations outward so they can fold into host scalars."""
    if not (names(e) & tensors):
        return e
    if isinstance(e, Call):
        args = tuple(_lower(a, tensors) for a in e.args)
        if e.func == "sigmoid":
            (u,) = args
            return Binary("/", Num(1), Binary("+", Num(1), Call("exp", (_lower(_neg(u), tensors),))))
        rewritten = _rewrite_function(e.func, args)
        if rewritten is not None:
            return _lower(rewritten, tensors)
        if e.func == "abs" and _never_negative(args[0]):
            return args[0]
        return Call(e.func, args)
    if isinstance(e, Unary):
        inner = _lower(e.operand, tensors)
        if e.op == "not":
            return Unary("not", inner)
        if e.op == "+":
            return inner
        return _neg(inner)
    if isinstance(e, Binary):
        left, right = _lower(e.left, tensors), _lower(e.right, tensors)
        if e.op in ("*", "/"):
            negated = False
            if isinstance(left, Unary) and left.op == "-":
                left, negated = left.operand, not negated
            if isinstance(right, Unary) and right.op == "-":
                right, negated = right.operand, not negated
            out: Expr = Binary(e.op, left, right)
            return _neg(out) if negated else out
        if e.op == "-" and isinstance(right, Unary) and right.op == "-":
            return Binary("+", left, right.operand)
        if e.op == "+" and isinstance(right, Unary) and right.op == "-":
            return Binary("-", left, right.operand)
        return Binary(e.op, left, right)
    if isinstance(e, Compare):
        return Compare(e.op, _lower(e.left, tensors), _lower(e.right, tensors))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(_lower(v, tensors) for v in e.values))
    return e


def _substitute(e: Expr, values: Mapping[str, float]) -> Expr:
    """Replaces the names in ``values`` by numbers and drops the identities that creates (``x * 1``,
    ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``, ``x - 0``), so an absent optional input costs no instruction."""
    if isinstance(e, Name):
        return Num(values[e.id]) if e.id in values else e
    if isinstance(e, Unary):
        return Unary(e.op, _substitute(e.operand, values))
    if isinstance(e, Binary):
        left, right = _substitute(e.left, values), _substitute(e.right, values)

        def number(x: Expr, v: float) -> bool:
            return isinstance(x, Num) and not isinstance(x.value, bool) and x.value == v

        if e.op == "*" and number(left, 1):
            return right
        if e.op in ("*", "/") and number(right, 1):
            return left
        if e.op == "+" and number(left, 0):
            return right
        if e.op in ("+", "-") and number(right, 0):
            return left
        return Binary(e.op, left, right)
    if isinstance(e, Compare):
        return Compare(e.op, _substitute(e.left, values), _substitute(e.right, values))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(_substitute(v, values) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(_substitute(e.cond, values), _substitute(e.then, values), _substitute(e.orelse, values))
    if isinstance(e, Call):
        return Call(e.func, tuple(_substitute(a, values) for a in e.args))
    return e


def _host_conditions(e: Expr, tensors: frozenset[str]) -> list[Expr]:
    """The distinct conditions (first occurrence first) of the ``where`` calls in ``e`` whose condition reads
    no tensor and whose result does: decided once per call, not per element (see
    :class:`.program.HostCase`). A condition that reads no name at all is not one (``_take_branches`` folds
    it)."""
    found: list[Expr] = []

    def walk(x: Expr) -> None:
        if not (names(x) & tensors):
            return
        if isinstance(x, Call) and x.func == "where" and len(x.args) == 3:
            cond = x.args[0]
            if not (names(cond) & tensors) and names(cond) and cond not in found:
                found.append(cond)
        for child in _children(x):
            walk(child)

    walk(e)
    return found


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, (Binary, Compare)):
        return (e.left, e.right)
    if isinstance(e, BoolOp):
        return e.values
    if isinstance(e, IfElse):
        return (e.cond, e.then, e.orelse)
    if isinstance(e, Call):
        return e.args
    return ()


def _take_branches(e: Expr, taken: Mapping[Expr, bool], tensors: frozenset[str]) -> Expr:
    """``e`` with every tensor-valued ``where`` whose condition is in ``taken`` replaced by the branch that
    value takes, and every one whose condition reads no name replaced by the branch its constant value takes.

    Raises:
        codegen.spec.expr.ExprEvalError: a condition that reads no name cannot be evaluated.
    """
    if not (names(e) & tensors):
        return e
    if isinstance(e, Call) and e.func == "where" and len(e.args) == 3:
        cond, a, b = e.args
        if cond in taken:
            return _take_branches(a if taken[cond] else b, taken, tensors)
        if not names(cond):
            return _take_branches(a if evaluate(cond, {}) else b, taken, tensors)
    if isinstance(e, Unary):
        return Unary(e.op, _take_branches(e.operand, taken, tensors))
    if isinstance(e, Binary):
        return Binary(e.op, _take_branches(e.left, taken, tensors), _take_branches(e.right, taken, tensors))
    if isinstance(e, Compare):
        return Compare(e.op, _take_branches(e.left, taken, tensors), _take_branches(e.right, taken, tensors))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(_take_branches(v, taken, tensors) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(*(_take_branches(v, taken, tensors) for v in (e.cond, e.then, e.orelse)))
    if isinstance(e, Call):
        return Call(e.func, tuple(_take_branches(a, taken, tensors) for a in e.args))
    return e
