"""Compile an elementwise formula from a spec into a sequence of AscendC vector instructions.

The formula (``compute.<output>`` in an elementwise spec) is an expression over input tensor names, host
scalars (``compute.scalars`` and attributes) and numbers. Compilation has four steps:

1. *Scalar hoisting*: every subtree that references no tensor is evaluated once on the host, in the tiling
   function, and reaches the kernel as a ``float`` tiling field (``scalar0``, ``scalar1``, ...).
2. *Lowering*: ``sigmoid(u)`` becomes ``1 / (1 + exp(-u))`` (finite for every finite ``u``: when ``exp``
   overflows to ``inf`` the reciprocal is ``0``), subtraction and negation are normalised, and negations are
   pushed into host scalars where possible so that they cost no vector instruction.
3. *Instruction selection*: tensor-tensor ops map to ``Add/Sub/Mul/Div/Max/Min``, tensor-scalar ops to
   ``Adds/Muls/Maxs/Mins``, unary functions to ``Exp/Ln/Abs/Sqrt/Relu/Reciprocal``. A product (with its
   negations and divisions by host values) is flattened into its tensor factors and one coefficient, so it
   costs its ``Mul`` instructions and at most one ``Muls`` (``s - t`` is one ``Adds`` of ``-t`` when ``t``
   has a coefficient to absorb the sign). Every instruction is value-numbered: one that an earlier one
   already computed (same operation, operands and scalar; literals equal in fp32 are one) is not emitted
   again. A ``Max``/``Min`` (``min``, ``max``, ``clamp``) is followed by a ``Compare`` of its tensor operand
   with itself and a ``Select`` that keep its NaN (:meth:`_Builder.keep_nan`), once per chain with literal
   bounds, and not at all where another operand of the result carries that operand's NaN
   (:meth:`_Builder.nan_sources`).
4. *Buffer allocation*: a linear scan over the instruction list assigns every value a UB buffer. Input
   buffers may be overwritten at their last use; fp32 temporaries (``TBuf<VECCALC>``) are reused once dead.
   For 16-bit inputs every input is cast to an fp32 temporary at its first use and the result is rounded
   once to the output dtype (``CAST_RINT``).

The result (:class:`Program`) lists instructions as plain data, the temporaries it needs, and the host
scalars; templates only place these strings. :func:`compile_variants` compiles one program set per
combination of absent optional inputs (each replaced by its default before lowering), sharing the host
scalars.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field

from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import Binary, BoolOp, Call, Compare, Expr, IfElse, Name, Num, Unary, names

#: Unary functions of the formula language and the AscendC instruction that computes each.
UNARY_INSTRUCTIONS = {"exp": "Exp", "log": "Ln", "abs": "Abs", "sqrt": "Sqrt", "relu": "Relu", "rsqrt": "Rsqrt"}
#: Comparison operators and the ``CMPMODE`` of ``Compare``/``Compares``; FLIPPED is the mode with the
#: operands swapped (``s < x`` is ``x > s``).
CMP_MODES = {"<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "==": "EQ", "!=": "NE"}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
#: Abramowitz and Stegun 7.1.26: erf(x) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-x^2),
#: t = 1 / (1 + p x) for x >= 0, absolute error at most 1.5e-7 (Handbook of Mathematical Functions, 1964).
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
ERF_ERROR = 1.5e-7
#: Tensor-tensor binary operators and their instructions.
BINARY_INSTRUCTIONS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
#: Binary functions and their tensor-tensor / tensor-scalar instructions.
MINMAX_INSTRUCTIONS = {"min": ("Min", "Mins"), "max": ("Max", "Maxs")}
#: Tensor-tensor instructions whose two operands commute (value numbering takes them in either order).
COMMUTATIVE = frozenset({"Add", "Mul", "Max", "Min"})
#: Functions whose instruction (sequence) turns a NaN operand into a NaN result (see ``_Builder.nan_sources``);
#: ``relu``, ``min`` and ``max`` are not among them (a ``Max`` drops a NaN; their NaN keep may be dropped).
NAN_STRICT_FUNCTIONS = frozenset({"exp", "log", "abs", "sqrt", "rsqrt", "erf"})
#: Every function a formula may apply to tensor values: an instruction, a rewrite (``_rewrite_function``), or
#: an instruction sequence of the builder (``sigmoid``, ``erf``, ``where``).
COMPILED_FUNCTIONS = frozenset(
    {*UNARY_INSTRUCTIONS, *MINMAX_INSTRUCTIONS, "sigmoid", "tanh", "log1p", "sign", "clamp", "pow", "erf", "where"}
)


@dataclass(frozen=True)
class Instruction:
    """One AscendC vector instruction of a compiled program.

    ``op`` is the AscendC function name (``Mul``, ``Adds``, ``Cast``, ...). ``dst`` and ``srcs`` are buffer
    names (see :class:`Program`); ``scalar`` is a C++ expression of type ``float`` (a literal such as
    ``1.0f`` or a tiling field such as ``scalar0_``) for the ``*s`` forms; ``round_mode`` is set for ``Cast``.
    ``mode`` is the ``CMPMODE`` of ``Compare``/``Compares`` (``LT``, ``LE``, ``GT``, ``GE``, ``EQ``, ``NE``;
    ``dst`` is then a ``uint8_t`` bit-mask buffer ``mask<k>``) or the ``SELMODE`` of ``Select``
    (``VSEL_TENSOR_TENSOR_MODE``: ``srcs`` = mask, src0, src1; ``VSEL_TENSOR_SCALAR_MODE``: ``srcs`` = mask,
    src0 and ``scalar`` is src1). ``Compare``/``Compares`` run on ``nCmp`` elements (``n`` rounded up to 256
    bytes of fp32, the granularity of their count form), every other instruction on ``n``. ``approx`` is
    the absolute error of a formula approximation whose last instruction this is (``erf``: 1.5e-7), added
    to the derived error bound; 0 for exact math. ``image`` is set on the last instruction of a rewritten
    function whose instruction sequence the interval model cannot follow (``log1p``: the quotient
    ``log(u) * x / (u - 1)`` is 0 / 0 over an interval of ``u`` holding 1): ``(function, k)`` says that
    ``dst`` holds that function of ``srcs[k]`` up to the function's stated error
    (:data:`codegen.families.elementwise.bound.IMAGES`).
    """

    op: str
    dst: str
    srcs: tuple[str, ...]
    scalar: str | None = None
    round_mode: str | None = None
    mode: str | None = None
    approx: float = 0.0
    image: tuple[str, int] | None = None


@dataclass(frozen=True)
class HostScalar:
    """A subexpression evaluated on the host; reaches the kernel as ``float`` tiling field ``field_name``."""

    field_name: str
    expr: Expr


@dataclass(frozen=True)
class Program:
    """A compiled elementwise formula for one class of input dtype.

    ``cast_inputs`` is False for fp32 (inputs are used in place) and True for 16-bit dtypes (each input is
    cast to fp32 at first use). ``temps`` is the number of fp32 temporaries ``tmp0``..``tmp{n-1}``, each of
    ``tileLength * 4`` bytes of UB. Buffer names in instructions: ``<input>Local`` (the input's queue tensor,
    type T), ``outLocal`` (the output queue tensor, type T), ``tmp<k>`` (fp32 temporaries), ``mask<k>``
    (``uint8_t`` bit masks of ``masks`` buffers, one bit per element, ``tileLength / 8`` bytes each).
    """

    cast_inputs: bool
    instructions: tuple[Instruction, ...]
    temps: int
    masks: int = 0

    @property
    def budget_temps(self) -> int:
        """fp32 temporaries the UB budget counts: ``temps`` plus one per started 32 mask buffers (a mask
        takes ``tileLength / 8`` bytes, 1/32 of an fp32 temporary)."""
        return self.temps + -(-self.masks // 32)


@dataclass(frozen=True)
class CompiledFormula:
    """Both programs (fp32 and 16-bit) of one output formula, and the host scalars they read."""

    output: str
    fp32: Program
    cast16: Program
    scalars: tuple[HostScalar, ...]
    lowered: Expr


# --- lowering -----------------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    tensors: frozenset[str]
    scalar_defs: dict[str, Expr]
    hoisted: list[HostScalar] = field(default_factory=list)
    loc: SourceLoc | None = None
    field: str = ""

    def is_tensor(self, e: Expr) -> bool:
        return bool(names(e) & self.tensors) or any(
            bool(names(self.scalar_defs[n]) & self.tensors) for n in names(e) if n in self.scalar_defs
        )


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


# --- instruction selection and allocation ------------------------------------------------------------------


class _Builder:
    """Emits instructions for one program; values are virtual registers later mapped onto buffers."""

    def __init__(self, ctx: _Ctx, cast_inputs: bool) -> None:
        self.ctx = ctx
        self.cast_inputs = cast_inputs
        self.code: list[tuple[str, int, tuple[int, ...], str | None, str | None, str | None, float]] = []
        self.images: dict[int, tuple[str, int]] = {}  # register -> (function, operand index): Instruction.image
        self.leaf_reg: dict[str, int] = {}
        self.reg_source: dict[int, str] = {}  # register -> input name, for uncast fp32 leaves
        self.mask_regs: set[int] = set()  # registers holding uint8_t bit masks (Compare/Compares results)
        # each tensor subexpression is computed once per set of operands whose NaN the context carries
        self.memo: dict[tuple[Expr, frozenset[Expr]], int] = {}
        self.numbered: dict[tuple[object, ...], int] = {}  # value numbering: one register per instruction
        self.covered: frozenset[Expr] = frozenset()  # see nan_sources: a NaN of these makes the result NaN
        self.literals: dict[float, str] = {}  # fp32 value -> its literal text (see literal)
        self.next_reg = 0

    def _new(self) -> int:
        self.next_reg += 1
        return self.next_reg - 1

    def scalar(self, e: Expr) -> str:
        number = _number(e)
        if number is not None:
            return self.literal(number)
        for hs in self.ctx.hoisted:
            if hs.expr == e:
                return f"{hs.field_name}_"
        hs = HostScalar(f"scalar{len(self.ctx.hoisted)}", e)
        self.ctx.hoisted.append(hs)
        return f"{hs.field_name}_"

    def emit(
        self,
        op: str,
        srcs: tuple[int, ...],
        scalar: str | None = None,
        rm: str | None = None,
        mode: str | None = None,
        approx: float = 0.0,
    ) -> int:
        key = (op, tuple(sorted(srcs)) if op in COMMUTATIVE else srcs, scalar, rm, mode, approx)
        if key in self.numbered:
            return self.numbered[key]
        dst = self._new()
        self.numbered[key] = dst
        self.code.append((op, dst, srcs, scalar, rm, mode, approx))
        if op in ("Compare", "Compares"):
            self.mask_regs.add(dst)
        return dst

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
        per comparison."""
        if isinstance(cond, BoolOp) and self.ctx.is_tensor(cond):
            first, rest = cond.values[0], cond.values[1:]
            inner: Expr = rest[0] if len(rest) == 1 else BoolOp(cond.op, rest)
            if cond.op == "and":
                return self.select(first, Call("where", (inner, a, b)), b)
            return self.select(first, a, Call("where", (inner, a, b)))
        if isinstance(cond, Unary) and cond.op == "not" and self.ctx.is_tensor(cond):
            return self.select(cond.operand, b, a)
        ctx = self.ctx
        m = self.mask(cond)
        src0 = self.value(a)  # a host value is broadcast with Duplicate
        if ctx.is_tensor(b):
            return self.emit("Select", (m, src0, self.value(b)), mode="VSEL_TENSOR_TENSOR_MODE")
        return self.emit("Select", (m, src0), self.scalar(b), mode="VSEL_TENSOR_SCALAR_MODE")

    def keep_nan(self, operand: Expr, src: int, result: int) -> int:
        """``result`` where ``src`` (the register of ``operand``) is a number and ``src`` (its NaN) where it is
        NaN: a ``Compare`` of ``src`` with itself (``EQ``, false only at NaN) and a ``Select``. ``min``, ``max``
        and ``clamp`` carry a NaN operand this way, as NumPy and PyTorch do, whatever the vector ``Max``/``Min``
        return for it (the emulated ones return the other operand for a NaN first operand, like a ``>``
        comparison). No keep where the context carries ``operand``'s NaN (:attr:`covered`): there the
        result is NaN wherever ``operand`` is, whatever ``result`` holds."""
        if operand in self.covered:
            return result
        m = self.emit("Compare", (src, src), mode="EQ")
        return self.emit("Select", (m, result, src), mode="VSEL_TENSOR_TENSOR_MODE")

    def erf(self, x: Expr) -> int:
        """``erf(x)`` by Abramowitz-Stegun 7.1.26 on ``|x|``, the sign restored by a ``Select``; of ``x = k * u``
        with a positive literal ``k``, ``|u|`` and the sign of ``u`` serve (``k`` folds into ``p``). The polynomial
        is built negated (``1 - p e`` is one ``Adds`` of ``-p e``), and ``exp(-x^2)`` is the formula value
        ``exp(-(x * x))``, shared with an equal one of the formula (``exp(-0.5 * s * s)`` for ``x = s / sqrt2``)."""
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
        acc = self.emit("Muls", (t,), _f32(-ERF_A[4]))
        for coef in reversed(ERF_A[:4]):
            acc = self.emit("Mul", (self.emit("Adds", (acc,), _f32(-coef)), t))
        square = Binary("*", x, x) if scale == ERF_P else Binary("*", Num(k * k), Binary("*", x, x))
        e = self.value(Call("exp", (Unary("-", square),)))
        y = self.emit("Adds", (self.emit("Mul", (acc, e)),), "1.0f", approx=ERF_ERROR)
        m = self.emit("Compares", (v,), "0.0f", mode="LT")
        neg = self.emit("Muls", (y,), "-1.0f")
        return self.emit("Select", (m, neg, y), mode="VSEL_TENSOR_TENSOR_MODE")

    def error(self, text: str) -> SpecError:
        return SpecError(self.ctx.loc or SourceLoc("<formula>", 0), self.ctx.field, text)

    def leaf(self, name: str) -> int:
        if name not in self.leaf_reg:
            if self.cast_inputs:
                src = self._new()
                self.reg_source[src] = name
                self.leaf_reg[name] = self.emit("Cast", (src,), rm="CAST_NONE")
            else:
                reg = self._new()
                self.reg_source[reg] = name
                self.leaf_reg[name] = reg
        return self.leaf_reg[name]

    def value(self, e: Expr) -> int:
        """The register holding ``e``, computed once per set of covered operands (:attr:`covered`)."""
        key = (e, self.covered)
        if key not in self.memo:
            self.memo[key] = self._value(e)
        return self.memo[key]

    def value_in(self, e: Expr, carried: frozenset[Expr]) -> int:
        """The register of ``e`` where the enclosing result is also NaN wherever one of ``carried`` is NaN
        (a sibling operand carries their NaN): a NaN keep of one of them inside ``e`` is not needed."""
        saved = self.covered
        self.covered = saved | carried
        try:
            return self.value(e)
        finally:
            self.covered = saved

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

    def literal(self, value: float) -> str:
        """The C++ float literal of ``value``; values that round to the same fp32 share the first one's text
        (so their instructions are numbered as one; the kernel reads the same float)."""
        key = _fp32(value)
        if key not in self.literals:
            self.literals[key] = _f32(value)
        return self.literals[key]

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
            # a host value + or - a tensor: s - t is Adds(-t, s), the negation folded into t's product
            t = e.right if e.op == "+" else _neg(e.right)
            return self.emit("Adds", (self.value(t),), self.scalar(e.left))
        raise self.error(
            f"cannot compile '{type(e).__name__}' into vector instructions; elementwise formulas allow + - * /, "
            f"unary minus, {', '.join(sorted([*UNARY_INSTRUCTIONS, *MINMAX_INSTRUCTIONS, 'sigmoid']))}, "
            "tanh, erf, log1p, sign, clamp, pow, where and comparisons",
        )


def _fp32(value: float) -> float:
    """``value`` rounded to the nearest fp32 (inf beyond its range)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _number(e: Expr) -> float | None:
    """The value of a numeric literal or a negated one; None for any other expression."""
    if isinstance(e, Num) and not isinstance(e.value, bool):
        return float(e.value)
    if isinstance(e, Unary) and e.op == "-":
        inner = _number(e.operand)
        return None if inner is None else -inner
    return None


def _plain_number(e: Expr) -> bool:
    """Whether ``e`` is a numeric literal (or a negated one) that is not NaN: a ``min``/``max`` bound that
    never gives NaN."""
    number = _number(e)
    return number is not None and not math.isnan(number)


def _f32(value: float) -> str:
    """A C++ float literal of ``value`` (the shortest repr of the double, suffixed ``f``)."""
    return f"{float(value)!r}f"


def _allocate(b: _Builder, root: int) -> Program:
    """Maps virtual registers onto input buffers, fp32 temporaries and the output buffer."""
    last_use: dict[int, int] = {}
    for i, (_, _, srcs, *_rest) in enumerate(b.code):
        for s in srcs:
            last_use[s] = i
    buf: dict[int, str] = {reg: f"{name}Local" for reg, name in b.reg_source.items()}
    free_temps: list[str] = []
    free_masks: list[str] = []
    temps = 0
    masks = 0
    out: list[Instruction] = []
    final_cast = b.cast_inputs
    for i, (op, dst, srcs, scalar, rm, mode, approx) in enumerate(b.code):
        dying = list(dict.fromkeys(s for s in srcs if last_use.get(s) == i))
        for s in dying:
            name = buf[s]
            if name.startswith("tmp"):
                free_temps.append(name)
            elif name.startswith("mask"):
                free_masks.append(name)
        if dst in b.mask_regs:
            # Mask buffers form their own pool; a dying mask is not reused by the mask written from it.
            if free_masks:
                free_masks.sort()
                target = free_masks.pop(0)
            else:
                target = f"mask{masks}"
                masks += 1
        elif dst == root and not final_cast:
            target = "outLocal"
        else:
            reusable = [
                buf[s]
                for s in dying
                if not buf[s].startswith("mask") and (buf[s].startswith("tmp") or not b.cast_inputs)
            ]
            if reusable and op != "Cast":
                target = reusable[0]
                if target in free_temps:
                    free_temps.remove(target)
            elif free_temps:
                free_temps.sort()
                target = free_temps.pop(0)
            else:
                target = f"tmp{temps}"
                temps += 1
        buf[dst] = target
        out.append(Instruction(op, target, tuple(buf[s] for s in srcs), scalar, rm, mode, approx, b.images.get(dst)))
    if final_cast:
        out.append(Instruction("Cast", "outLocal", (buf[root],), None, "CAST_RINT"))
    elif not out or out[-1].dst != "outLocal":
        # The formula is a bare input: copy it through a vector instruction so the output queue is written.
        out.append(Instruction("Muls", "outLocal", (buf[root],), "1.0f"))
    return Program(cast_inputs=b.cast_inputs, instructions=tuple(out), temps=temps, masks=masks)


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


def compile_variants(
    output: str,
    formula: Expr,
    tensors: tuple[str, ...],
    scalar_defs: dict[str, Expr],
    defaults: Mapping[str, float],
    loc: SourceLoc | None = None,
    field_path: str = "",
) -> tuple[CompiledFormula, ...]:
    """Compiles ``output = formula`` once per combination of absent optional inputs.

    Variant ``v`` has optional input ``k`` (in the order of ``defaults``) absent when bit ``k`` of ``v`` is
    set: that input is replaced by its default before lowering, so the program never reads it. Variant 0
    has every input; there are ``2 ** len(defaults)`` variants. All variants share one list of host scalars
    (one tiling struct serves them all), so ``scalars`` is the same tuple in every result.

    Args:
        output: output tensor name.
        formula: the parsed formula.
        tensors: input tensor names (every one is an elementwise operand of the output's shape).
        scalar_defs: host scalar definitions (``compute.scalars``) by name.
        defaults: optional input name -> the value its elements take when it is null.
        loc, field_path: where the formula came from, for error messages.

    Raises:
        SpecError: the formula uses a construct that has no vector-instruction lowering.
    """
    hoisted: list[HostScalar] = []
    inlined = _inline_scalars(formula, dict(scalar_defs))
    optional = list(defaults)
    built: list[tuple[Program, Program, Expr]] = []
    for v in range(1 << len(optional)):
        absent = {name: float(defaults[name]) for k, name in enumerate(optional) if v >> k & 1}
        present = frozenset(t for t in tensors if t not in absent)
        ctx = _Ctx(present, {}, hoisted, loc=loc, field=field_path)
        lowered = _lower(_substitute(inlined, absent), present)
        programs = []
        for cast_inputs in (False, True):
            b = _Builder(ctx, cast_inputs)
            root = b.value(lowered)
            programs.append(_allocate(b, root))
        built.append((programs[0], programs[1], lowered))
    return tuple(CompiledFormula(output, fp32, cast16, tuple(hoisted), lowered) for fp32, cast16, lowered in built)


def compile_formula(
    output: str,
    formula: Expr,
    tensors: tuple[str, ...],
    scalar_defs: dict[str, Expr],
    loc: SourceLoc | None = None,
    field_path: str = "",
) -> CompiledFormula:
    """Compiles ``output = formula`` for fp32 and for 16-bit input dtypes, every input present.

    Args:
        output: output tensor name.
        formula: the parsed formula.
        tensors: input tensor names (every one is an elementwise operand of the output's shape).
        scalar_defs: host scalar definitions (``compute.scalars``) by name.
        loc, field_path: where the formula came from, for error messages.

    Returns:
        A :class:`CompiledFormula`.

    Raises:
        SpecError: the formula uses a construct that has no vector-instruction lowering.
    """
    (compiled,) = compile_variants(output, formula, tensors, scalar_defs, {}, loc, field_path)
    return compiled
