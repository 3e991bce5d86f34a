"""Instruction selection: each formula construct over tensor values becomes AscendC vector instructions
(tensor-tensor and tensor-scalar forms, products flattened to one coefficient, ``where`` as masks and
``Select``, ``erf`` by its polynomial, ``min``/``max`` with their NaN keeps)."""

from __future__ import annotations

import math

from codegen.families.elementwise.compiler.instructions import (
    BINARY_INSTRUCTIONS,
    CMP_MODES,
    FLIPPED,
    MINMAX_INSTRUCTIONS,
    UNARY_INSTRUCTIONS,
)
from codegen.families.elementwise.compiler.lowering import _is_log1p, _neg
from codegen.families.elementwise.compiler.nan import _NanKeeping
from codegen.families.elementwise.compiler.values import _f32, _number, _plain_number
from codegen.spec.expr import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary

#: Abramowitz and Stegun 7.1.26: erf(x) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-x^2),
#: t = 1 / (1 + p x) for x >= 0, absolute error at most 1.5e-7 (Handbook of Mathematical Functions, 1964).
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
ERF_ERROR = 1.5e-7


class _Builder(_NanKeeping):
    """Emits instructions for one program; values are virtual registers later mapped onto buffers."""

    def mask(self, cond: Expr) -> int:
        """A bit mask of one comparison over tensor values, or of a host boolean."""
        ctx = self.ctx
        if not ctx.is_tensor(cond):
            # A host boolean: a tensor of 1.0 or 0.0 compared with 0.5.
            flag = self.emit("Duplicate", (), self.scalar(IfElse(cond, Num(1.0), Num(0.0))))
            return self.emit("Compares", (flag,), "0.5f", mode="GT")
        if not isinstance(cond, Compare):
            raise self.error(f"'{cond}' is not a comparison")
        lt, rt = ctx.is_tensor(cond.left), ctx.is_tensor(cond.right)
        if lt and rt:
            return self.emit("Compare", (self.value(cond.left), self.value(cond.right)), mode=CMP_MODES[cond.op])
        if lt:
            return self.emit("Compares", (self.value(cond.left),), self.scalar(cond.right), mode=CMP_MODES[cond.op])
        op = FLIPPED[cond.op]
        return self.emit("Compares", (self.value(cond.right),), self.scalar(cond.left), mode=CMP_MODES[op])

    def select(self, cond: Expr, a: Expr, b: Expr) -> int:
        """``where(cond, a, b)``: ``and``/``or`` nest selects, ``not`` swaps the branches, one ``Select``
        per comparison; ``a`` keeps no NaN that only arises where ``cond`` is false (:meth:`guarded`)."""
        if isinstance(cond, BoolOp) and self.ctx.is_tensor(cond):
            first, rest = cond.values[0], cond.values[1:]
            inner: Expr = rest[0] if len(rest) == 1 else BoolOp(cond.op, rest)
            if cond.op == "and":
                return self.select(first, Call("where", (inner, a, b)), b)
            return self.select(first, a, Call("where", (inner, a, b)))
        if isinstance(cond, Unary) and cond.op == "not" and self.ctx.is_tensor(cond):
            return self.select(cond.operand, b, a)
        band = self.band(cond, a, b)
        if band is not None:
            return self.select(band[0], a, band[1])
        ctx = self.ctx
        m = self.mask(cond)
        src0 = self.value_in(a, self.guarded(cond, a))  # a host value: a Duplicate, a per-core constant
        if ctx.is_tensor(b):
            return self.emit("Select", (m, src0, self.value(b)), mode="VSEL_TENSOR_TENSOR_MODE")
        return self.emit("Select", (m, src0), self.scalar(b), mode="VSEL_TENSOR_SCALAR_MODE")

    def band(self, cond: Expr, a: Expr, b: Expr) -> tuple[Expr, Expr] | None:
        """``(abs(x) > s, c)`` where ``where(cond, a, b)`` is ``where(x < -s, a, where(x > s, a, c))`` (either
        test first; ``<=``/``>=`` give ``abs(x) >= s``) with ``s`` a host value: one ``Abs`` and one comparison
        instead of two comparisons and two ``Select``. The same for every ``s`` (for ``s < 0`` both are true
        wherever ``x`` is a number) and NaN ``x`` (both false); else None."""
        if not (isinstance(b, Call) and b.func == "where" and len(b.args) == 3 and b.args[1] == a):
            return None
        inner, rest = b.args[0], b.args[2]
        tests = []
        for c in (cond, inner):
            if not isinstance(c, Compare) or c.op not in FLIPPED or c.op in ("==", "!="):
                return None
            x, op, host = c.left, c.op, c.right
            if not self.ctx.is_tensor(x):
                x, op, host = c.right, FLIPPED[c.op], c.left
            if not self.ctx.is_tensor(x) or self.ctx.is_tensor(host):
                return None
            tests.append((x, op, host))
        (x1, op1, s1), (x2, op2, s2) = tests
        if x1 != x2 or {op1, op2} not in ({"<", ">"}, {"<=", ">="}):
            return None
        s_pos = s2 if op2 in (">", ">=") else s1  # the upper test's bound; the lower one's must be its negation
        s_neg = s1 if s_pos is s2 else s2
        if _neg(s_pos) != s_neg and _neg(s_neg) != s_pos:
            return None
        return Compare(">" if ">" in (op1, op2) else ">=", Call("abs", (x1,)), s_pos), rest

    def erf(self, x: Expr, a: float = 0.0, b: float = 1.0) -> int:
        """``a + b * erf(x)`` (literal ``a``, ``b``) by Abramowitz-Stegun 7.1.26 on ``|x|``: ``erf(|x|) = 1 - q`` with
        ``q = poly(t) exp(-x^2)``, so the result is ``P = (a + b) - b q`` where ``x >= 0`` and ``N = (a - b) + b q``
        where ``x < 0``, one ``Select`` on the sign of ``x``. ``-b`` folds into the polynomial's literal
        coefficients (``w = -b q`` costs the ``Mul`` by the exponential alone); ``P`` is ``w`` plus one ``Adds``
        (none where ``a + b`` is 0), ``N`` is ``-P`` (one ``Muls``) where ``a`` is 0 (erf is odd), else ``-w`` plus
        one ``Adds`` (none where ``a - b`` is 0: ``0.5 + 0.5 erf`` is ``Mul, Adds, Muls, Compares, Select``).
        ``w`` carries the approximation's absolute error ``|b| * 1.5e-7`` (:attr:`.program.Instruction.approx`).
        Of ``x = k * u`` with a positive literal ``k``, ``|u|`` and the sign of ``u`` serve (``k`` folds into
        ``p``), and ``exp(-x^2)`` is the formula value ``exp(-(x * x))``, shared with an equal one of the formula
        (``exp(-0.5 * s * s)`` for ``x = s / sqrt2``)."""
        k, hosts, factors = self.monomial(x)
        scale = ERF_P
        if not hosts and 0 < k < math.inf:
            # x = k * core with a positive literal k: |x| * p is |core| * (k * p), x < 0 is core < 0
            core: Expr = factors[0]
            for f in factors[1:]:
                core = Binary("*", core, f)
            x, scale = core, k * ERF_P
        v = self.value(x)
        ax = self.emit("Abs", (v,))
        t = self.emit("Reciprocal", (self.emit("Adds", (self.emit("Muls", (ax,), self.literal(scale)),), "1.0f"),))
        coefs = [-b * c for c in ERF_A]  # the polynomial of w = -b q, Horner's rule in t
        acc = self.emit("Muls", (t,), _f32(coefs[4]))
        for coef in reversed(coefs[:4]):
            acc = self.emit("Mul", (self.emit("Adds", (acc,), _f32(coef)), t))
        square = Binary("*", x, x) if scale == ERF_P else Binary("*", Num(k * k), Binary("*", x, x))
        e = self.value(Call("exp", (Unary("-", square),)))
        w = self.emit("Mul", (acc, e), approx=abs(b) * ERF_ERROR)
        pos, neg = a + b, a - b
        y_pos = self.emit("Adds", (w,), self.literal(pos)) if pos != 0 else w
        if a == 0:
            y_neg = self.emit("Muls", (y_pos,), "-1.0f")
        else:
            y_neg = self.emit("Muls", (w,), "-1.0f")
            if neg != 0:
                y_neg = self.emit("Adds", (y_neg,), self.literal(neg))
        m = self.emit("Compares", (v,), "0.0f", mode="LT")
        return self.emit("Select", (m, y_neg, y_pos), mode="VSEL_TENSOR_TENSOR_MODE")

    def affine_erf(self, e: Expr) -> tuple[float, float, Expr] | None:
        """``(a, b, u)`` where ``e`` is ``a + b * erf(u)`` with literal ``a`` (not 0) and ``b`` (``a + b erf``,
        ``b erf + a``, ``a - b erf``, ``b erf - a``), else None: :meth:`erf` folds ``a`` and ``b`` into its
        instructions."""
        if not (isinstance(e, Binary) and e.op in ("+", "-")):
            return None
        minus = e.op == "-"
        # (literal, term, literal's sign, term's sign): a + t, a - t, t + a, t - a
        for host, term, host_sign, term_sign in (
            (e.left, e.right, 1.0, -1.0 if minus else 1.0),
            (e.right, e.left, -1.0 if minus else 1.0, 1.0),
        ):
            a = _number(host)
            if a is None or a == 0 or not math.isfinite(a):
                continue
            coef, hosts, factors = self.monomial(term)
            if hosts or len(factors) != 1 or coef == 0 or not math.isfinite(coef):
                continue
            (f,) = factors
            if isinstance(f, Call) and f.func == "erf":
                return host_sign * a, term_sign * coef, f.args[0]
        return None

    def monomial(self, e: Expr) -> tuple[float, tuple[Expr, ...], tuple[Expr, ...]]:
        """``e`` as ``coefficient * host factors * tensor factors``: products, negations and divisions by a
        host value are flattened (literal factors multiplied in float64); any other tensor expression is one
        factor, and ``s / t`` of a host ``s`` is ``s`` times the factor ``1 / t`` (a ``Reciprocal``)."""
        ctx = self.ctx
        number = _number(e)
        if number is not None:
            return number, (), ()
        if not ctx.is_tensor(e):
            return 1.0, (e,), ()
        if isinstance(e, Unary) and e.op == "-":
            c, h, t = self.monomial(e.operand)
            return -c, h, t
        if isinstance(e, Binary) and e.op == "*":
            c1, h1, t1 = self.monomial(e.left)
            c2, h2, t2 = self.monomial(e.right)
            return c1 * c2, h1 + h2, t1 + t2
        if isinstance(e, Binary) and e.op == "/" and not ctx.is_tensor(e.right):
            c, h, t = self.monomial(e.left)
            divisor = _number(e.right)
            if divisor:  # a literal, not 0 (the loader refuses a division by a literal 0)
                return c / divisor, h, t
            return c, (*h, Binary("/", Num(1), e.right)), t
        if isinstance(e, Binary) and e.op == "/" and not ctx.is_tensor(e.left):
            c, h, _ = self.monomial(e.left)
            return c, h, (Binary("/", Num(1), e.right),)
        return 1.0, (), (e,)

    def product(self, e: Expr) -> int:
        """A product (see :meth:`monomial`): its tensor factors multiplied in order (``Mul``), then one
        ``Muls`` by the coefficient and the host factors (none when that is 1). Each factor is compiled with
        the NaN of the other factors carried (:meth:`value_in`)."""
        coef, hosts, factors = self.monomial(e)
        sources = [self.nan_sources(f) for f in factors]
        acc = -1
        for i, f in enumerate(factors):
            carried = frozenset().union(*(src for j, src in enumerate(sources) if j != i))
            reg = self.value_in(f, carried)
            acc = reg if i == 0 else self.emit("Mul", (acc, reg))
        if not hosts:
            return acc if coef == 1.0 else self.emit("Muls", (acc,), self.literal(coef))
        host: Expr = hosts[0]
        for h in hosts[1:]:
            host = Binary("*", host, h)
        if coef == -1.0:
            host = _neg(host)
        elif coef != 1.0:
            host = Binary("*", Num(coef), host)
        return self.emit("Muls", (acc,), self.scalar(host))

    def minmax(self, e: Call) -> int:
        """``min``/``max`` with their NaN keeps (:meth:`keep_nan`). A chain of them over one tensor operand
        ``x`` with literal bounds (``clamp(x, -10, 10)``) runs its ``Maxs``/``Mins`` and then keeps ``x``'s NaN
        once: a literal bound is never NaN, so each link is NaN exactly where ``x`` is."""
        ctx = self.ctx
        a, b = e.args
        vv = MINMAX_INSTRUCTIONS[e.func][0]
        if ctx.is_tensor(a) and ctx.is_tensor(b):
            va, vb = self.value(a), self.value(b)
            return self.keep_nan(a, va, self.keep_nan(b, vb, self.emit(vv, (va, vb))))
        steps: list[tuple[str, Expr]] = []
        cur: Expr = e
        while isinstance(cur, Call) and cur.func in MINMAX_INSTRUCTIONS:
            x, y = cur.args
            if ctx.is_tensor(x) == ctx.is_tensor(y):
                break
            t, s = (x, y) if ctx.is_tensor(x) else (y, x)
            if steps and not _plain_number(s):
                break
            steps.append((MINMAX_INSTRUCTIONS[cur.func][1], s))
            if not _plain_number(s):
                cur = t
                break
            cur = t
        origin = self.value(cur)
        reg = origin
        for op, s in reversed(steps):
            reg = self.emit(op, (reg,), self.scalar(s))
        return self.keep_nan(cur, origin, reg)

    def _value(self, e: Expr) -> int:
        ctx = self.ctx
        if not ctx.is_tensor(e):
            return self.emit("Duplicate", (), self.scalar(e))
        if isinstance(e, Name) and e.id in ctx.tensors:
            return self.leaf(e.id)
        if isinstance(e, Call) and e.func == "where":
            reg = self.select(*e.args)
            if _is_log1p(e, ctx.tensors):
                self.images[reg] = ("log1p", 1)  # the Select's src0 is log1p's operand
            return reg
        if isinstance(e, Call) and e.func == "erf":
            return self.erf(e.args[0])
        affine = self.affine_erf(e)
        if affine is not None:
            return self.erf(affine[2], affine[0], affine[1])
        if isinstance(e, Binary) and e.op == "/" and _number(e.left) == 1 and ctx.is_tensor(e.right):
            return self.emit("Reciprocal", (self.value(e.right),))
        if (isinstance(e, Unary) and e.op == "-") or (
            isinstance(e, Binary)
            and (e.op == "*" or (e.op == "/" and not (ctx.is_tensor(e.left) and ctx.is_tensor(e.right))))
        ):
            return self.product(e)
        if isinstance(e, Call) and e.func in UNARY_INSTRUCTIONS:
            return self.emit(UNARY_INSTRUCTIONS[e.func], (self.value(e.args[0]),))
        if isinstance(e, Call) and e.func in MINMAX_INSTRUCTIONS:
            return self.minmax(e)
        if isinstance(e, Binary) and e.op in BINARY_INSTRUCTIONS:
            lt, rt = ctx.is_tensor(e.left), ctx.is_tensor(e.right)
            if lt and rt:
                left = self.value_in(e.left, self.nan_sources(e.right))
                right = self.value_in(e.right, self.nan_sources(e.left))
                return self.emit(BINARY_INSTRUCTIONS[e.op], (left, right))
            if lt:  # + or - a host value
                s = e.right if e.op == "+" else _neg(e.right)
                return self.emit("Adds", (self.value(e.left),), self.scalar(s))
            if e.op == "-":
                coef, hosts, _ = self.monomial(e.right)
                if coef == 1.0 and not hosts:
                    # -t would cost a Muls by -1: s - t is one Sub from s's per-core constant tensor (the same
                    # rounding as -t + s), unless -t is computed anyway
                    r = self.value(e.right)
                    if ("Muls", (r,), self.literal(-1.0), None, None, 0.0) not in self.numbered:
                        return self.emit("Sub", (self.emit("Duplicate", (), self.scalar(e.left)), r))
            # a host value + or - a tensor: s - t is Adds(-t, s), the negation folded into t's product
            t = e.right if e.op == "+" else _neg(e.right)
            return self.emit("Adds", (self.value(t),), self.scalar(e.left))
        raise self.error(
            f"cannot compile '{type(e).__name__}' into vector instructions; elementwise formulas allow + - * /, "
            f"unary minus, {', '.join(sorted([*UNARY_INSTRUCTIONS, *MINMAX_INSTRUCTIONS, 'sigmoid']))}, "
            "tanh, erf, log1p, sign, clamp, pow, where and comparisons",
        )
