"""The derived bound's interval program equals, bit for bit, an element-by-element model written here.

:mod:`codegen.families.elementwise.bound` evaluates a compiled program over float64 interval arrays with
whole-array NumPy passes and shortcuts (a uniform mask is a copy, a mixed one a bit blend, a clamp or NaN
fix-up runs only where a reduction shows it is needed, large calls run slice by slice). The model below
takes one element at a time and states each rule of the module doc directly, with NumPy's scalar
semantics spelled out: ``np.minimum``/``np.maximum`` give NaN when either side is NaN and the second
operand when both are equal (so ``-0.0`` against ``0.0`` is decided by order), ``np.fmin``/``np.fmax`` the
non-NaN side; between ``-0.0`` and ``0.0`` NumPy's ``fmin``/``fmax`` pick by the element's position (the
vector body takes the second, the scalar tail the first), so there, and only there, either zero is
accepted, and a whole program (where such a zero may flow on) is compared by value with zeros of either
sign equal. The library's own ``log``/``exp`` are taken for each element (their last bit is the
library's; ``sqrt`` and the arithmetic are correctly rounded). The interval ends are drawn from NaN,
infinities, zeros of both signs, subnormals, values at, near and beyond the fp32 and 16-bit limits and
ordinary values; ends are compared by their bits (any NaN equals any NaN: a NaN's payload is never read).

The draws come from NumPy generators seeded per test and example, so each test runs the same examples
whatever ran before it in the process. Hypothesis, even derandomized, would not: it mixes in constants it
collects from the source of every project module loaded in the process (``codegen`` modules that earlier
test files imported), so its examples changed with the files run before this one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.families.elementwise import bound, interval_program
from codegen.families.elementwise.compiler import Instruction, Program
from codegen.families.elementwise.plan.variants import compile_all, programs_for
from codegen.spec.model import DType
from codegen.specs import load_project

INF = math.inf
FP32_MAX = 3.4028234663852886e38
SLACK = 2.0**-50
TINY = 2.0**-126
#: relative rounding of each fp32 instruction (module doc: correctly rounded 2**-24, the others 4 ULPs)
DELTA = {op: 2.0**-24 for op in ("Add", "Sub", "Mul", "Adds", "Muls")} | {
    op: 4 * 2.0**-23 for op in ("Div", "Reciprocal", "Exp", "Ln", "Sqrt", "Rsqrt")
}
#: relative error of the log1p rewrite (bound module doc: 2 HARDWARE_ULPS + 4 * 2**-24)
LOG1P_ERROR = 20 * 2.0**-24
#: (stored mantissa bits, least exponent of a normal, largest finite value) of the 16-bit results; the largest
#: finite value is ``(2 - 2**-mantissa) * 2**emax``: FLOAT16 65504 (0x7BFF), BF16 0x7F7F (emax 127 as fp32's)
FORMAT16 = {DType.FLOAT16: (10, -14, (2 - 2.0**-10) * 2.0**15), DType.BF16: (7, -126, (2 - 2.0**-7) * 2.0**127)}

F = np.float64


def isnan(x: Any) -> bool:
    return bool(x != x)


def vmin(x: F, y: F) -> F:
    """np.minimum on two scalars: NaN if either is NaN, else the smaller, the second when equal."""
    if isnan(x) or isnan(y):
        return F(math.nan)
    return x if x < y else y


def vmax(x: F, y: F) -> F:
    if isnan(x) or isnan(y):
        return F(math.nan)
    return x if x > y else y


class AnyZero(float):
    """A zero whose sign the library leaves open (np.fmin/np.fmax of -0.0 and 0.0)."""


def vfmin(x: F, y: F) -> F:
    """np.fmin: the non-NaN side, else as vmin (a tie of two zeros: either)."""
    if not (isnan(x) or isnan(y)) and x == y == 0:
        return AnyZero(0.0)  # type: ignore[return-value]
    return y if isnan(x) else x if isnan(y) else vmin(x, y)


def vfmax(x: F, y: F) -> F:
    if not (isnan(x) or isnan(y)) and x == y == 0:
        return AnyZero(0.0)  # type: ignore[return-value]
    return y if isnan(x) else x if isnan(y) else vmax(x, y)


def library(fn: Any, x: F) -> F:
    """The library's value of a transcendental function at one element."""
    return F(fn(np.array([x]))[0])


class Iv:
    """One element's interval; ``exact`` marks an input value (a degenerate interval contributes one end
    to a product)."""

    def __init__(self, lo: Any, hi: Any, exact: bool = False) -> None:
        self.lo, self.hi = (e if isinstance(e, AnyZero) else F(e) for e in (lo, hi))
        self.exact = exact


def clean(lo: F, hi: F) -> Iv:
    return Iv(-INF, INF) if isnan(lo) or isnan(hi) else Iv(lo, hi)


def widen(end: F, delta: float, tau: float, limit: float, down: bool) -> F:
    if math.isinf(end):
        out = end
    elif isnan(end):
        out = F(math.nan)
    else:
        step = abs(end) * F(delta + SLACK)
        out = (end - step) - F(tau) if down else (end + step) + F(tau)
    # rounding (flush to zero included) never crosses 0: an end on 0's side stays there
    if down:
        out = vmin(out, F(limit))
        out = F(-INF) if out < -limit else out
        return F(0.0) if end >= 0 and out < 0 else out
    out = vmax(out, F(-limit))
    out = F(INF) if out > limit else out
    return F(0.0) if end <= 0 and out > 0 else out


def rounded(x: Iv, delta: float, tau: float, limit: float) -> Iv:
    return clean(widen(x.lo, delta, tau, limit, True), widen(x.hi, delta, tau, limit, False))


def nearest16(v: F, dt: DType) -> F:
    """``v`` rounded to nearest, ties to even, in the 16-bit ``dt``, from its exponent and Python's round()
    (half to even) of the exact quotient by the grid spacing there (a power of two, so the quotient is
    exact); beyond the largest finite value by half a spacing or more: an infinity."""
    if isnan(v) or math.isinf(v) or v == 0:
        return v
    mant, min_exp, limit = FORMAT16[dt]
    exp = max(math.frexp(abs(v))[1] - 1, min_exp)  # floor(log2 |v|), the subnormals' grid below min_exp
    spacing = 2.0 ** (exp - mant)
    out = F(round(float(v) / spacing) * spacing)
    if abs(out) > limit:
        return F(math.copysign(INF, v))
    return F(math.copysign(0.0, v)) if out == 0 else out


def cast16(x: Iv, dt: DType) -> Iv:
    """CAST_RINT to a 16-bit type (bound module doc): both ends rounded to nearest; an end rounded to the
    infinity of the other side's sign may saturate at the largest finite value; BF16 may flush an end in
    the subnormal range to 0."""
    limit = FORMAT16[dt][2]
    lo, hi = nearest16(x.lo, dt), nearest16(x.hi, dt)
    lo = F(limit) if lo == INF else lo
    hi = F(-limit) if hi == -INF else hi
    if dt is DType.BF16:
        lo = F(0.0) if 0 < lo < TINY else lo
        hi = F(0.0) if -TINY < hi < 0 else hi
    return clean(lo, hi)


def product(a: Iv, b: Iv) -> Iv:
    """Least and greatest end product, the products taken in order (a's ends outer, b's inner)."""
    prods = [x * y for x in ((a.lo,) if a.exact else (a.lo, a.hi)) for y in ((b.lo,) if b.exact else (b.lo, b.hi))]
    lo = hi = prods[0]
    for p in prods[1:]:
        lo, hi = vmin(lo, p), vmax(hi, p)
    return clean(lo, hi)


def reciprocal(b: Iv) -> Iv:
    if b.lo <= 0 and b.hi >= 0:
        return Iv(-INF, INF)
    return clean(F(1.0) / b.hi, F(1.0) / b.lo)


def from_zero(fn: Any, x: Iv) -> Iv:
    """An increasing function defined from 0 (log, sqrt): ends clamped at 0, NaN when all below 0."""
    lo = F(math.nan) if x.hi < 0 else fn(vmax(x.lo, F(0.0)))
    return clean(lo, fn(vmax(x.hi, F(0.0))))


def image(op: str, a: Iv, b: Iv | None) -> Iv:
    """The exact image before rounding (module doc's list)."""
    if op == "Add":
        assert b is not None
        return clean(a.lo + b.lo, a.hi + b.hi)
    if op == "Sub":
        assert b is not None
        return clean(a.lo - b.hi, a.hi - b.lo)
    if op == "Mul":
        assert b is not None
        return product(a, b)
    if op == "Div":
        assert b is not None
        return product(a, reciprocal(b))
    if op == "Max":
        assert b is not None
        return Iv(vmax(a.lo, b.lo), vmax(a.hi, b.hi))
    if op == "Min":
        assert b is not None
        return Iv(vmin(a.lo, b.lo), vmin(a.hi, b.hi))
    if op == "Reciprocal":
        return reciprocal(a)
    if op == "Exp":
        return Iv(library(np.exp, a.lo), library(np.exp, a.hi))
    if op == "Ln":
        return from_zero(lambda v: library(np.log, v), a)
    if op == "Sqrt":
        return from_zero(lambda v: F(math.sqrt(v)) if not isnan(v) else v, a)
    if op == "Rsqrt":
        root = from_zero(lambda v: F(math.sqrt(v)) if not isnan(v) else v, a)
        return clean(
            F(INF) if root.hi == 0 else F(1.0) / root.hi,
            F(INF) if root.lo == 0 else F(1.0) / root.lo,
        )
    if op == "Abs":
        lo = a.lo if a.lo >= 0 else (-a.hi if a.hi <= 0 else F(0.0))
        return Iv(lo, vmax(abs(a.lo), abs(a.hi)))
    if op == "Relu":
        return Iv(vmax(a.lo, F(0.0)), vmax(a.hi, F(0.0)))
    raise AssertionError(op)


def scalar(value: float) -> Iv:
    """A host scalar: between its value and its fp32 rounding, widened by the float64 slack."""
    if isnan(value):
        return Iv(-INF, INF)
    with np.errstate(over="ignore"):
        f = float(np.float32(value))
    lo, hi = min(value, f), max(value, f)
    return Iv(lo - SLACK * abs(value), hi + SLACK * abs(value))


def compare(a: Iv, b: Iv, mode: str) -> tuple[bool, bool]:
    """(may be true, may be false); NaN compares false except NE."""
    ends = (a.lo, a.hi, b.lo, b.hi)
    unknown = any(isnan(e) for e in ends) or (a.lo == -INF and a.hi == INF) or (b.lo == -INF and b.hi == INF)
    if (isnan(a.lo) and isnan(a.hi)) or (isnan(b.lo) and isnan(b.hi)):
        return mode == "NE", mode != "NE"
    sure = {
        "LT": (a.hi < b.lo, a.lo >= b.hi),
        "LE": (a.hi <= b.lo, a.lo > b.hi),
        "GT": (a.lo > b.hi, a.hi <= b.lo),
        "GE": (a.lo >= b.hi, a.hi < b.lo),
    }
    if mode in sure:
        sure_t, sure_f = sure[mode]
    else:
        equal = a.lo == a.hi and b.lo == b.hi and a.lo == b.lo
        apart = a.hi < b.lo or b.hi < a.lo
        sure_t, sure_f = (equal, apart) if mode == "EQ" else (apart, equal)
    return not (sure_f and not unknown), not (sure_t and not unknown)


def select(may_t: bool, may_f: bool, a: Iv, b: Iv) -> Iv:
    if may_t and may_f:
        if any(isnan(e) for e in (a.lo, a.hi, b.lo, b.hi)):
            return Iv(-INF, INF)
        return clean(vfmin(a.lo, b.lo), vfmax(a.hi, b.hi))
    chosen = a if may_t else b
    return clean(chosen.lo, chosen.hi)


def literal(text: str, scalars: dict[str, float]) -> float:
    return scalars[text[:-1]] if text.endswith("_") else float(text[:-1])


def run_model(program: Program, inputs: dict[str, float], scalars: dict[str, float], dt: DType) -> Iv:
    """The program over one element: each buffer an interval (a mask a pair of bools)."""
    buffers: dict[str, Any] = {f"{n}Local": Iv(v, v, exact=True) for n, v in inputs.items()}
    for ins in (*program.constants, *program.instructions):
        buffers[ins.dst] = step_model(ins, buffers, scalars, dt)
    return buffers["outLocal"]  # type: ignore[no-any-return]


def step_model(ins: Instruction, buffers: dict[str, Any], scalars: dict[str, float], dt: DType) -> Any:
    s = None if ins.scalar is None else scalar(literal(ins.scalar, scalars))
    if ins.scalar is not None and not ins.scalar.endswith("_"):
        value = literal(ins.scalar, scalars)
        if float(np.float32(value)) == value:  # a literal the compiler holds exactly is that one value
            s = Iv(value, value, exact=True)
    op = ins.op
    if op == "Duplicate":
        return s
    srcs = [buffers[n] for n in ins.srcs]
    if ins.image is not None:
        # a rewritten log1p: log1p of its operand's interval, widened by the stated 20 * 2**-24
        func, k = ins.image
        assert func == "log1p"
        x = srcs[k]
        return rounded(clean(np.log1p(F(x.lo)), np.log1p(F(x.hi))), LOG1P_ERROR, TINY, FP32_MAX)
    if op == "Compare" and ins.srcs[0] == ins.srcs[1] and ins.mode in ("EQ", "NE"):
        # one value against itself (the compiler's NaN test): equal unless it is NaN
        x = srcs[0]
        exact_nan = isnan(x.lo) and isnan(x.hi)
        maybe_nan = isnan(x.lo) or isnan(x.hi) or (x.lo == -INF and x.hi == INF)
        return (not exact_nan, maybe_nan) if ins.mode == "EQ" else (maybe_nan, not exact_nan)
    if op in ("Compare", "Compares"):
        assert ins.mode is not None
        return compare(srcs[0], srcs[1] if op == "Compare" else s, ins.mode)
    if op == "CompareElems":
        # the widened input (srcs[0]) against the host value, as Compares: FLOAT16's compare of its half elements
        # with the value rounded per mode gives the same mask (tests/test_narrow_compare.py, every half)
        assert ins.mode is not None
        return compare(srcs[0], s, ins.mode)
    if op == "CastElemsForCompare":
        return srcs[0]  # the exact widening
    if op == "Select":
        may_t, may_f = srcs[0]
        other = srcs[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else s
        return select(may_t, may_f, srcs[1], other)
    if op == "Cast":
        if ins.round_mode == "CAST_RINT" and dt in FORMAT16:
            return cast16(srcs[0], dt)
        return srcs[0]
    if op == "Axpy":
        # dst = src * s + dst: the product rounded as a Muls, then its sum with dst's value before, as an Add
        product = rounded(image("Mul", srcs[0], s), DELTA["Muls"], TINY, FP32_MAX)
        return rounded(image("Add", buffers[ins.dst], product), DELTA["Add"], TINY, FP32_MAX)
    if op in ("Adds", "Muls", "Maxs", "Mins"):
        op, other = op[:-1], s
    else:
        other = srcs[1] if len(srcs) > 1 else None
    value = image(op, srcs[0], other)
    if ins.op in DELTA:
        value = rounded(value, DELTA[ins.op], TINY, FP32_MAX)
    if ins.approx:
        value = clean(value.lo - F(ins.approx), value.hi + F(ins.approx))
    return value


def same_bits(x: Any, y: Any) -> bool:
    if isinstance(y, AnyZero):
        return bool(x == 0)
    x, y = F(x), F(y)
    return (isnan(x) and isnan(y)) or x.tobytes() == y.tobytes()


def same_value(x: Any, y: Any) -> bool:
    """Equal as numbers (zeros of either sign equal) or both NaN."""
    return bool(x == y) or (isnan(x) and isnan(y))


#: BF16's largest finite value (0x7F7F), the midpoint below it (between 0x7F7E and 0x7F7F) and above it.
BF16_MAX, BF16_TIE_BELOW, BF16_TIE_ABOVE = (float.fromhex(h) for h in ("0x1.fep127", "0x1.fdp127", "0x1.ffp127"))
SPECIAL = [
    0.0, -0.0, INF, -INF, math.nan, 1.0, -1.0, 0.5, 2.0**-1074, -(2.0**-1074), 2.0**-126, 2.0**-149, 1e-40,
    -1e-40, FP32_MAX, -FP32_MAX, 3.5e38, -3.5e38, 65504.0, 65520.0, -65520.0, 1e300, -1e300, 1.7e308, -1.7e308,
    100.0, -100.0, 1e-7, 0.9999999, 1.0000001, 65488.0, -65504.0, BF16_MAX, -BF16_MAX, BF16_TIE_BELOW,
    -BF16_TIE_BELOW, BF16_TIE_ABOVE, -BF16_TIE_ABOVE,
]  # fmt: skip
#: Examples per property test (each draws up to 40 elements per operand).
EXAMPLES = 300


def draw_values(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` float64 values, each of one kind drawn at random: a :data:`SPECIAL` value; one moved by up to 3
    fp32 steps, or 3 float64 steps (the neighbours of the limits and of the 16-bit ties); any float64 bit
    pattern (NaN payloads, subnormals, every exponent); a uniform value in [-10, 10]; any fp32 value."""
    kind = rng.integers(0, 6, n)
    special = rng.choice(np.array(SPECIAL), n)
    step = rng.integers(-3, 4, n)
    with np.errstate(all="ignore"):
        narrow = special.astype(np.float32)
        near32 = (narrow.view(np.int32) + step.astype(np.int32)).view(np.float32).astype(np.float64)
        near32 = np.where(np.isfinite(narrow), near32, special)
        near64 = (special.view(np.int64) + step).view(np.float64)
        any64 = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
        uniform = rng.uniform(-10, 10, n)
        any32 = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64)
    return np.choose(kind, [special, near32, near64, any64, uniform, any32])


def draw_intervals(rng: np.random.Generator, n: int) -> tuple[list[Iv], tuple[np.ndarray, np.ndarray]]:
    """n element intervals and their array form: exact (one array for both ends), ordered, or any pair."""
    kind = int(rng.integers(0, 3))
    if kind == 0:
        v = draw_values(rng, n)
        return [Iv(x, x, exact=True) for x in v], (v, v)
    lo, hi = draw_values(rng, n), draw_values(rng, n)
    if kind == 1:
        swap = lo > hi  # NaN ends stay where they are
        lo, hi = np.where(swap, hi, lo), np.where(swap, lo, hi)
    return [Iv(a, b) for a, b in zip(lo, hi)], (lo, hi)


def run_examples(seed: int, example: Callable[[np.random.Generator], None]) -> None:
    """Runs ``example`` :data:`EXAMPLES` times, example ``k`` with ``np.random.default_rng((seed, k))``: the
    same draws in any process and test order; a failure names the generator that reproduces it."""
    for k in range(EXAMPLES):
        try:
            example(np.random.default_rng((seed, k)))
        except AssertionError as e:
            raise AssertionError(f"example np.random.default_rng(({seed}, {k})): {e}") from e


ARITH = ["Add", "Sub", "Mul", "Div", "Max", "Min"]
UNARY = ["Reciprocal", "Exp", "Ln", "Sqrt", "Rsqrt", "Abs", "Relu"]
SCALAR = ["Adds", "Muls", "Maxs", "Mins"]
MODES = ["LT", "LE", "GT", "GE", "EQ", "NE"]


def check_interval(model: list[Iv], got: tuple[Any, Any], n: int) -> None:
    lo, hi = (np.broadcast_to(np.asarray(e, dtype=np.float64), (n,)) for e in got)
    for i, m in enumerate(model):
        assert same_bits(lo[i], m.lo) and same_bits(hi[i], m.hi), (i, lo[i], hi[i], m.lo, m.hi)


def one_instruction(
    ins: Instruction, srcs: dict[str, tuple[list[Any], Any]], scalars: dict[str, float], dt: DType
) -> None:
    """``ins`` over the buffers ``srcs`` (name -> (model elements, array form)): vector step against model."""
    n = len(next(iter(srcs.values()))[0])
    with np.errstate(all="ignore"):
        got = interval_program._step(ins, {k: s[1] for k, s in srcs.items()}, scalars, dt)
        model = [step_model(ins, {k: s[0][i] for k, s in srcs.items()}, scalars, dt) for i in range(n)]
    if ins.op in ("Compare", "Compares", "CompareElems"):
        t, f = (np.broadcast_to(e, (n,)) for e in got)
        assert [(bool(a), bool(b)) for a, b in zip(t, f)] == model
    else:
        check_interval(model, got, n)


def test_each_arithmetic_instruction_matches_the_model() -> None:
    def example(rng: np.random.Generator) -> None:
        n = int(rng.integers(1, 41))
        op = str(rng.choice(ARITH + UNARY + SCALAR))
        s, approx = float(draw_values(rng, 1)[0]), float(rng.choice([0.0, 1.5e-7]))
        a, b = draw_intervals(rng, n), draw_intervals(rng, n)
        srcs = ("x", "y") if op in ARITH else ("x",)
        ins = Instruction(op, "d", srcs, "s_" if op in SCALAR else None, None, None, approx)
        one_instruction(ins, {"x": a, "y": b}, {"s": s}, DType.FLOAT)

    run_examples(1, example)


def test_axpy_matches_the_model() -> None:
    """``Axpy`` (``d = x * s + d``: the addend is the destination's interval before the instruction)."""

    def example(rng: np.random.Generator) -> None:
        n = int(rng.integers(1, 41))
        s = float(draw_values(rng, 1)[0])
        ins = Instruction("Axpy", "d", ("x",), "s_")
        one_instruction(ins, {"x": draw_intervals(rng, n), "d": draw_intervals(rng, n)}, {"s": s}, DType.FLOAT)

    run_examples(5, example)


def test_compare_and_select_match_the_model() -> None:
    def example(rng: np.random.Generator) -> None:
        n = int(rng.integers(1, 41))
        mode, s, tensor = str(rng.choice(MODES)), float(draw_values(rng, 1)[0]), bool(rng.integers(0, 2))
        a, b = draw_intervals(rng, n), draw_intervals(rng, n)
        if tensor:
            compare = Instruction("Compare", "m", ("x", "y"), None, None, mode)
            one_instruction(compare, {"x": a, "y": b}, {}, DType.FLOAT)
        else:
            one_instruction(Instruction("Compares", "m", ("x",), "s_", None, mode), {"x": a}, {"s": s}, DType.FLOAT)
        pattern = str(rng.choice(["mixed", "true", "false", "open"]))
        if pattern == "mixed":
            flags = [(bool(t), bool(f)) for t, f in rng.integers(0, 2, (n, 2))]
        else:
            flags = [{"true": (True, False), "false": (False, True), "open": (True, True)}[pattern]] * n
        mask = (np.array([f[0] for f in flags]), np.array([f[1] for f in flags]))
        sel = Instruction("Select", "d", ("m", "x", "y"), None, None, "VSEL_TENSOR_TENSOR_MODE")
        one_instruction(sel, {"m": (flags, mask), "x": a, "y": b}, {}, DType.FLOAT)
        sel_s = Instruction("Select", "d", ("m", "x"), "s_", None, "VSEL_TENSOR_SCALAR_MODE")
        one_instruction(sel_s, {"m": (flags, mask), "x": a}, {"s": s}, DType.FLOAT)

    run_examples(2, example)


CAST_RINT = Instruction("Cast", "d", ("x",), None, "CAST_RINT")


def test_the_16_bit_result_cast_matches_the_model() -> None:
    def example(rng: np.random.Generator) -> None:
        n, dt = int(rng.integers(1, 41)), [DType.FLOAT16, DType.BF16, DType.FLOAT][int(rng.integers(0, 3))]
        one_instruction(CAST_RINT, {"x": draw_intervals(rng, n)}, {}, dt)

    run_examples(3, example)


def _f32(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


#: fp32 values within one step of each 16-bit type's largest finite value, and what round to nearest, ties
#: to even, makes of them: the top binade's steps are 2**120 (BF16) and 32 (FLOAT16); a tie goes to the even
#: neighbour, and the midpoint above the largest value (0x7F7F8000, 65520) to the even 2**(emax + 1): infinity.
TOP_BINADE = {
    DType.BF16: [
        (BF16_MAX, BF16_MAX),
        (BF16_TIE_BELOW, float.fromhex("0x1.fcp127")),  # 0x7F7E8000: the tie, to the even 0x7F7E
        (_f32(0x7F7E8001), BF16_MAX),
        (_f32(0x7F7E7FFF), float.fromhex("0x1.fcp127")),
        (_f32(0x7F7F7FFF), BF16_MAX),  # the last fp32 value below the midpoint above the largest
        (BF16_TIE_ABOVE, INF),  # 0x7F7F8000
        (FP32_MAX, INF),
    ],
    DType.FLOAT16: [
        (65504.0, 65504.0),
        (65488.0, 65472.0),  # the tie, to the even 0x7BFE
        (float(np.nextafter(np.float32(65488), np.float32(INF))), 65504.0),
        (float(np.nextafter(np.float32(65488), np.float32(0))), 65472.0),
        (float(np.nextafter(np.float32(65520), np.float32(0))), 65504.0),
        (65520.0, INF),
        (65536.0, INF),
    ],
}
ORACLE = {DType.BF16: np.dtype(ml_dtypes.bfloat16), DType.FLOAT16: np.dtype(np.float16)}


@pytest.mark.parametrize("dt", [DType.FLOAT16, DType.BF16], ids=lambda d: d.name)
def test_the_16_bit_cast_at_the_top_binade(dt: DType) -> None:
    """``Cast`` ``CAST_RINT`` (AscendC ``RoundMode``: round half to even) of values within one step of the
    largest finite value, ties included, on both sides of 0: an exact value gives its correct rounding, one
    that overflows the interval from the largest finite value (saturation) to the infinity, and an interval
    across the edge the rounded ends. The table is checked first against NumPy's and ml_dtypes' fp32
    conversions (one rounding each)."""
    values = np.array([v for v, _ in TOP_BINADE[dt]])
    rounded = np.array([r for _, r in TOP_BINADE[dt]])
    with np.errstate(over="ignore"):
        oracle = values.astype(np.float32).astype(ORACLE[dt]).astype(np.float64)
    assert oracle.tolist() == rounded.tolist()
    top = float(np.finfo(ORACLE[dt]).max) if dt is DType.FLOAT16 else float(ml_dtypes.finfo(ORACLE[dt]).max)
    for sign in (1.0, -1.0):
        exact = sign * values
        lo, hi = interval_program._step(CAST_RINT, {"x": (exact, exact)}, {}, dt)
        want_lo = np.where(sign * rounded == INF, top, sign * rounded)
        want_hi = np.where(sign * rounded == -INF, -top, sign * rounded)
        assert lo.tolist() == want_lo.tolist() and hi.tolist() == want_hi.tolist(), (sign, lo, hi)
    # an interval from the tie below the largest value to the midpoint above it; and its mirror image
    tie, above = values[1], (BF16_TIE_ABOVE if dt is DType.BF16 else 65520.0)
    lo, hi = interval_program._step(CAST_RINT, {"x": (np.array([tie, -above]), np.array([above, -tie]))}, {}, dt)
    assert lo.tolist() == [rounded[1], -INF] and hi.tolist() == [INF, -rounded[1]]


def test_a_bf16_end_between_fp32_values_is_rounded_once() -> None:
    """An interval end is rounded to BF16 as the float64 value it is, not through fp32 (which would round
    twice): 3.38288525e38 lies just above the tie 0x1.fdp127 (it rounds to that tie in fp32), so it rounds
    up to 0x7F7F, not to the even 0x7F7E."""
    x = np.array([3.38288525e38, -3.38288525e38])
    assert x[0] > BF16_TIE_BELOW and float(np.float32(x[0])) == BF16_TIE_BELOW
    lo, hi = interval_program._step(CAST_RINT, {"x": (x, x)}, {}, DType.BF16)
    assert lo.tolist() == hi.tolist() == [BF16_MAX, -BF16_MAX]


def element_bound_model(m: Iv, r: F) -> F:
    if not (m.lo <= r <= m.hi):
        return F(0.0)
    b = vmax(m.hi - r, r - m.lo)
    return F(0.0) if isnan(b) else b


def test_the_accepted_error_per_element_matches_the_model() -> None:
    def example(rng: np.random.Generator) -> None:
        n = int(rng.integers(1, 41))
        model, (lo, hi) = draw_intervals(rng, n)
        r = draw_values(rng, n)
        with np.errstate(all="ignore"):
            got = bound._element_bound(lo, hi, r, (n,))
            assert all(same_bits(got[i], element_bound_model(model[i], F(r[i]))) for i in range(n)), (lo, hi, r)

    run_examples(4, example)


def _programs() -> list[tuple[str, Program, DType, tuple[str, ...], tuple[str, ...]]]:
    _, specs = load_project()
    out = []
    for name, spec in sorted(specs.items()):
        if spec.family != "elementwise":
            continue
        for variant in compile_all(spec):
            fields = tuple(h.field_name for h in variant.formula.scalars)
            for dt in (DType.FLOAT, DType.FLOAT16):
                for prog in programs_for(variant.formula, dt):
                    out.append((name, prog, dt, tuple(variant.present), fields))
    return out


PROGRAMS = _programs()


@pytest.mark.parametrize("index", range(len(PROGRAMS)), ids=[f"{p[0]}-{p[2].name}-{len(p[3])}" for p in PROGRAMS])
def test_every_spec_program_over_several_slices_matches_the_model(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each compiled program of the project's specs, over inputs mixing ordinary values with every special
    value, run as a large call in slices (a small slice size, so slices differ: some all ordinary, some
    with NaN, infinities or zeros), against the model element by element."""
    name, program, dt, present, fields = PROGRAMS[index]
    monkeypatch.setattr(bound, "CHUNK_ELEMENTS", 256)
    rng = np.random.default_rng(index)
    n = 1100
    inputs = {}
    for k, input_name in enumerate(present):
        v = rng.standard_normal(n) * 3
        v[:256] = rng.uniform(0, 1, 256)  # a first slice of ordinary values in [0, 1]
        special = rng.choice(np.array(SPECIAL), size=120)
        v[600 + 40 * k : 720 + 40 * k] = special  # slices with special values
        inputs[input_name] = v
    scalars = {f: float(rng.choice([0.5, -100.0, 1e-12, 3.0])) for f in fields}
    with np.errstate(all="ignore"):
        lo, hi = bound._interval_over(program, inputs, scalars, dt, (n,), False)
        for i in range(n):
            m = run_model(program, {k: float(v[i]) for k, v in inputs.items()}, scalars, dt)
            assert same_value(lo[i], m.lo) and same_value(hi[i], m.hi), (name, i, lo[i], hi[i], m.lo, m.hi)


def _reduce_specs() -> list[str]:
    _, specs = load_project()
    return sorted(n for n, s in specs.items() if s.family == "elementwise" and s.compute and s.compute.reduce)


@pytest.mark.parametrize("name", _reduce_specs())
@pytest.mark.parametrize("reduction", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_sliced_reduce_bound_equals_the_whole_call_one(
    name: str, reduction: int, dtype: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reduce call larger than a slice sums each slice's interval widths and magnitudes into whole-call
    arrays; its bound is bit for bit reduce_bound over the whole call's intervals (one slice)."""
    catalogue, specs = load_project()
    spec, product = specs[name], catalogue.get("Ascend910B")
    rng = np.random.default_rng(len(name) + reduction)
    n = 1000
    params: dict[str, Any] = {"reduction": reduction}
    for t in spec.inputs:
        v = rng.uniform(0.01, 0.99, n)
        v[700:705] = [2.0**-20, 1e-6, 0.5, 1e-3, 0.999]  # fp16 subnormals among them
        params[t.name] = v.astype(dtype)
    ref = np.asarray(0.25)
    monkeypatch.setattr(bound, "CHUNK_ELEMENTS", n)
    whole = bound.derived_bound(spec, product, params, ref)
    monkeypatch.setattr(bound, "CHUNK_ELEMENTS", 96)
    sliced = bound.derived_bound(spec, product, params, ref)
    assert whole is not None and sliced is not None
    assert whole.tobytes() == sliced.tobytes() and np.isfinite(whole).all() and whole.shape == ()
