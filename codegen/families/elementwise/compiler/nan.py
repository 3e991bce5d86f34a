"""NaN handling of the instruction builder: which operands' NaN a value carries anyway, and the
``Compare``/``Select`` that keeps a NaN operand's NaN where an instruction (``Max``/``Min``) would drop it."""

from __future__ import annotations

import math

from codegen.families.elementwise.compiler.instructions import BINARY_INSTRUCTIONS, FLIPPED, NAN_STRICT_FUNCTIONS
from codegen.families.elementwise.compiler.values import _fp32, _number, _plain_number, _Values
from codegen.spec.expr import Binary, Call, Compare, Expr, Name, Unary, walk

#: Bound on the literal coefficients of the affine factors :func:`_affine` accepts: with every intercept at
#: most 2**20 and every slope between 2**-20 and 2**20 in magnitude, a product of two affine functions of one
#: fp32 value is never 0 * inf (a factor is 0 only at |x| <= 2**40, where the other is finite; a factor
#: overflows only at |x| >= 2**108, where the other is not 0).
AFFINE_BOUND = 2.0**20
#: Functions whose result is NaN exactly where their operand is NaN or negative (``log(-0)`` is ``-inf``,
#: ``sqrt(-0)`` is ``-0``).
NAN_BELOW_ZERO = frozenset({"log", "sqrt"})


def _affine(e: Expr) -> tuple[Expr, float, float] | None:
    """``(x, slope, intercept)`` where ``e`` is ``intercept + slope * x`` of one tensor leaf ``x`` with literal
    coefficients within :data:`AFFINE_BOUND` (``x``, ``-x``, ``k * x``, ``x + k``, ``k - x``, ...), else None."""
    if isinstance(e, Name):
        return e, 1.0, 0.0
    if isinstance(e, Unary) and e.op == "-":
        inner = _affine(e.operand)
        return None if inner is None else (inner[0], -inner[1], -inner[2])
    if not isinstance(e, Binary) or e.op not in ("+", "-", "*"):
        return None
    left, right = _number(e.left), _number(e.right)
    k, other = (left, e.right) if left is not None else (right, e.left)
    if k is None or not math.isfinite(k) or abs(k) > AFFINE_BOUND:
        return None
    inner = _affine(other)
    if inner is None:
        return None
    x, slope, icpt = inner
    if e.op == "*":
        slope, icpt = slope * k, icpt * k
    elif e.op == "-" and other is e.right:  # k - t
        slope, icpt = -slope, k - icpt
    else:  # t + k, k + t, t - k
        icpt = icpt + (k if e.op == "+" else -k)
    if not (1.0 / AFFINE_BOUND <= abs(slope) <= AFFINE_BOUND and abs(icpt) <= AFFINE_BOUND):
        return None
    return x, slope, icpt


#: Largest magnitude :func:`_bounded` accepts: far below the fp32 maximum (3.4e38), so a sum or product of two
#: such values (each rounded to fp32, at most 2**-23 relative) never overflows.
RANGE_LIMIT = 2.0**60


def _range(e: Expr) -> tuple[float, float]:
    """``(lo, hi)`` holding every non-NaN value of ``e``, proven from literal bounds alone (``-inf``/``inf``
    ends where nothing bounds it): a literal; ``min``/``max`` of two ranges (``clamp(x, -20, 20)`` is in
    ``[-20, 20]`` whatever ``x``); ``+ - *`` and negation of ranges (interval arithmetic, each end widened by
    one fp32 rounding); any other value is unbounded."""
    full = (-math.inf, math.inf)
    number = _number(e)
    if number is not None:
        return full if math.isnan(number) else (number, number)
    if isinstance(e, Unary) and e.op == "-":
        lo, hi = _range(e.operand)
        return (-hi, -lo)
    if isinstance(e, Call) and e.func in ("min", "max") and len(e.args) == 2:
        (alo, ahi), (blo, bhi) = _range(e.args[0]), _range(e.args[1])
        if e.func == "min":
            return (min(alo, blo), min(ahi, bhi))
        return (max(alo, blo), max(ahi, bhi))
    if isinstance(e, Binary) and e.op in ("+", "-", "*"):
        a, b = _range(e.left), _range(e.right)
        if not all(math.isfinite(v) for v in (*a, *b)):
            return full
        if e.op == "+":
            lo, hi = a[0] + b[0], a[1] + b[1]
        elif e.op == "-":
            lo, hi = a[0] - b[1], a[1] - b[0]
        else:
            ends = [x * y for x in a for y in b]
            lo, hi = min(ends), max(ends)
        slack = max(abs(lo), abs(hi)) * 2.0**-23
        return (lo - slack, hi + slack)
    return full


def _bounded(e: Expr) -> bool:
    """Whether ``e`` is finite wherever its operands are not NaN, with every value within
    :data:`RANGE_LIMIT` (:func:`_range`)."""
    lo, hi = _range(e)
    return lo >= -RANGE_LIMIT and hi <= RANGE_LIMIT


class _NanKeeping(_Values):
    """The NaN keeps of a program's builder (see :class:`.selection._Builder`)."""

    def keep_nan(self, operand: Expr, src: int, result: int) -> int:
        """``result`` where ``src`` (the register of ``operand``) is a number and ``src`` (its NaN) where it is
        NaN: a ``Compare`` of ``src`` with itself (``EQ``, false only at NaN) and a ``Select``. ``min``, ``max``
        and ``clamp`` carry a NaN operand this way, as NumPy and PyTorch do, whatever the vector ``Max``/``Min``
        return for it (the emulated ones return the other operand for a NaN first operand, like a ``>``
        comparison). No keep where the context carries ``operand``'s NaN (:attr:`covered`): there the
        result is NaN wherever ``operand`` is, or a ``where`` takes its other branch, whatever ``result`` holds;
        nor where ``operand`` is NaN only where covered operands are (:meth:`nan_origins`)."""
        if operand in self.covered:
            return result
        origins = self.nan_origins(operand)
        if origins is not None and origins <= self.covered:
            return result
        m = self.emit("Compare", (src, src), mode="EQ")
        return self.emit("Select", (m, result, src), mode="VSEL_TENSOR_TENSOR_MODE")

    def nan_sources(self, e: Expr) -> frozenset[Expr]:
        """Subexpressions whose NaN makes the compiled ``e`` NaN, whichever NaN keeps are dropped: ``e`` itself,
        and, through every instruction that turns a NaN operand into a NaN result (``+ - * /``, negation,
        :data:`NAN_STRICT_FUNCTIONS`), its operands' sources; through a ``where`` those of both branches. A
        ``min``/``max``/``relu`` passes on none of its operand's (a dropped keep loses them)."""
        if not self.ctx.is_tensor(e):
            return frozenset()
        if isinstance(e, Unary) and e.op == "-":
            return frozenset({e}) | self.nan_sources(e.operand)
        if isinstance(e, Binary) and e.op in BINARY_INSTRUCTIONS:
            return frozenset({e}) | self.nan_sources(e.left) | self.nan_sources(e.right)
        if isinstance(e, Call) and e.func in NAN_STRICT_FUNCTIONS:
            return frozenset({e}) | self.nan_sources(e.args[0])
        if isinstance(e, Call) and e.func == "where" and len(e.args) == 3:
            return frozenset({e}) | (self.nan_sources(e.args[1]) & self.nan_sources(e.args[2]))
        return frozenset({e})

    def nan_origins(self, e: Expr) -> frozenset[Expr] | None:
        """Tensor leaves whose NaN alone makes ``e`` NaN: ``e`` is NaN only where one of them is, or None where
        that is not proven (``e`` may make a NaN of non-NaN operands: ``inf - inf``, ``0 * inf``, ``log`` of a
        negative, a host value that may be NaN). Proven through a negation, ``exp``, ``abs``, ``+ - *`` by a
        finite literal (not 0 for ``*``), the product of two affine functions of one leaf (``x * (1 - x)``,
        see :data:`AFFINE_BOUND`), a ``min``/``max`` with a literal bound, and ``+ - *`` of two operands that
        literal clamps keep finite (:func:`_bounded`: ``0.8 * c + 0.04 * c * c * c`` of ``c = clamp(x, -20,
        20)``). A covered subexpression (:attr:`covered`) is its own origin: the enclosing result is NaN
        wherever it is."""
        if isinstance(e, Name) and e.id in self.ctx.tensors:
            return frozenset({e})
        if e in self.covered:
            # the enclosing result is NaN wherever e is: e stands for its own NaN
            return frozenset({e})
        number = _number(e)
        if number is not None:
            return frozenset() if not math.isnan(number) else None
        if isinstance(e, Unary) and e.op == "-":
            return self.nan_origins(e.operand)
        if isinstance(e, Call) and e.func in ("exp", "abs") and len(e.args) == 1:
            return self.nan_origins(e.args[0])
        if isinstance(e, Call) and e.func in ("min", "max") and len(e.args) == 2:
            # with a literal bound that is a number the result is NaN only where the tensor operand is (a Max or
            # Min of two numbers is one; the NaN keep gives the operand's NaN)
            a, b = e.args
            if _plain_number(b) or _plain_number(a):
                return self.nan_origins(a if _plain_number(b) else b)
            return None
        if isinstance(e, Binary) and e.op in ("+", "-", "*") and _bounded(e.left) and _bounded(e.right):
            # both operands finite and bounded by literal clamps, and so the fp32 result: no inf - inf, 0 * inf
            origins_l, origins_r = self.nan_origins(e.left), self.nan_origins(e.right)
            if origins_l is not None and origins_r is not None and _bounded(e):
                return origins_l | origins_r
        if isinstance(e, Binary) and e.op in ("+", "-", "*"):
            left, right = _number(e.left), _number(e.right)
            k = left if left is not None else right
            if k is not None and math.isfinite(k) and (k != 0 or e.op != "*"):
                return self.nan_origins(e.right if left is not None else e.left)
            if e.op == "*":
                fa, fb = _affine(e.left), _affine(e.right)
                if fa is not None and fb is not None and fa[0] == fb[0]:
                    return frozenset({fa[0]})
        return None

    def guarded(self, cond: Expr, branch: Expr) -> frozenset[Expr]:
        """Subexpressions of ``branch`` (the value a ``where`` takes where ``cond`` holds) that are NaN only
        where ``cond`` is false, so the branch's value there does not matter: with ``cond`` an ordered
        comparison (``< <= > >=``, false at NaN) of a tensor ``x`` with a literal, ``x`` itself and each
        ``log(u)``/``sqrt(u)`` whose ``u = c + x`` or ``c - x`` (one rounding, so the sign of ``u`` is exact) is
        negative only where ``cond`` is false (``where(x >= 0, max(log(x), -100), ...)``: no NaN keep). The
        literals are compared as the kernel holds them, in fp32."""
        if not isinstance(cond, Compare) or cond.op not in ("<", "<=", ">", ">="):
            return frozenset()
        op, x, k = cond.op, cond.left, _number(cond.right)
        if k is None:
            op, x, k = FLIPPED[cond.op], cond.right, _number(cond.left)
        if k is None or math.isnan(k) or not (isinstance(x, Name) and x.id in self.ctx.tensors):
            return frozenset()
        kc = _fp32(k)
        out: set[Expr] = {x}
        for sub in walk(branch):
            if not (isinstance(sub, Call) and sub.func in NAN_BELOW_ZERO and len(sub.args) == 1):
                continue
            aff = _affine(sub.args[0])
            if aff is None or aff[0] != x or abs(aff[1]) != 1.0:
                continue
            c = _fp32(aff[2])
            # u = c + x < 0 where x < -c, inside "cond false" for x >= kc or x > kc when -c <= kc;
            # u = c - x < 0 where x > c, inside "cond false" for x <= kc or x < kc when c >= kc
            rising = aff[1] > 0
            safe = (op in (">=", ">") and -c <= kc) if rising else (op in ("<=", "<") and c >= kc)
            if safe:
                out.add(sub)
        return frozenset(out)
