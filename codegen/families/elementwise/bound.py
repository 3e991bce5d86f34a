"""The default error bound of an elementwise case, derived from the kernel's own instruction sequence.

An elementwise kernel evaluates its compiled program (:mod:`codegen.families.elementwise.compiler`): 16-bit
inputs are widened to fp32 exactly (``Cast`` ``CAST_NONE``), every vector instruction computes in fp32 and
rounds its result, and a 16-bit result is rounded once more to the compute dtype (``Cast`` ``CAST_RINT``);
host scalars (``compute.scalars``, attributes, literals) reach the kernel rounded to ``float``. Which
values that sequence can produce depends on the inputs, so the bound is computed per call from the inputs'
actual values: :func:`derived_bound` runs the program over intervals in float64, one ``[lo, hi]`` per element
and buffer, that contain every value the fp32 (or 16-bit) kernel can hold there:

- inputs are exact (degenerate intervals); a scalar is the interval between its float64 value and that
  value rounded to fp32;
- ``Add Sub Mul Div Adds Muls Reciprocal Exp Ln Sqrt`` take the exact image of their operand intervals and
  widen it by their rounding: ``delta * |x| + tau`` at both ends, with ``delta`` =
  :data:`ROUNDING` [op] and ``tau`` = 2**-126 (a result in the subnormal range may be flushed to 0), never
  across 0 (rounding keeps a value's side of 0, so an exact 0 stays 0);
- ``Abs Relu Max Min Maxs Mins`` and the widening ``Cast`` are exact; ``Compare``/``Compares`` give a mask
  that is decided where the operand intervals decide the comparison (NaN compares false except ``NE``)
  and open otherwise, and ``Select`` gives the chosen operand, or the hull of both where the mask is open;
  ``Rsqrt`` rounds as ``Sqrt``; an approximation (``erf``) widens its last instruction by its stated
  absolute error; the ``log1p`` rewrite, whose quotient ``log(u) * x / (u - 1)`` interval arithmetic
  cannot bound where ``u`` may be 1 (the whole line, however close to 0 ``x`` is), gives ``log1p`` of its
  operand's interval widened by :data:`LOG1P_ERROR`; ``Cast`` ``CAST_RINT`` to FLOAT16
  / BF16 rounds both ends to the 16-bit type, to nearest (:func:`round16`: round to nearest is monotone,
  so the results lie between the rounded ends; an end that overflows may also saturate at the largest
  finite value, and a BF16 end in the subnormal range may be flushed to 0; FLOAT16 keeps subnormals), so
  a result one 16-bit ULP from the correct rounding (a truncating cast) is outside;
- a value beyond the largest finite number of its type may be an infinity (the interval end becomes
  ``inf``), and an operation whose result may be NaN (``inf - inf``, ``0 * inf``, a divisor interval
  holding 0, ``log`` of a negative) gives the interval ``[-inf, inf]``.

The accepted error of an element is the distance from the reference to the far end of the interval,
``max(hi - ref, ref - lo)``, when the reference lies in it, and 0 when it does not (the formula and the
reference disagree by more than rounding can explain, so the case fails unless the output rounding
covers the difference). :func:`codegen.check.compare.compare` adds half an ULP of the output dtype (the
host-side cast to the dtype of ``out``).

The relative errors of the instructions CANN does not document (``Div Reciprocal Exp Ln Sqrt``) are a stated
conservative figure, 4 fp32 ULPs (``4 * 2**-23``); correctly rounded arithmetic (``Add Sub Mul`` and their
scalar forms) is ``2**-24``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from codegen.families.elementwise.compiler import Instruction, Program
from codegen.spec.model import DType, OpSpec, Product

#: fp32 unit roundoff (half an ULP, relative).
FP32_U = 2.0**-24
#: The stated figure for instructions whose hardware error CANN does not document: 4 fp32 ULPs.
HARDWARE_ULPS = 4 * 2.0**-23
#: Relative rounding error of each fp32 vector instruction that rounds its result.
ROUNDING: dict[str, float] = {
    "Add": FP32_U,
    "Sub": FP32_U,
    "Mul": FP32_U,
    "Adds": FP32_U,
    "Muls": FP32_U,
    "Div": HARDWARE_ULPS,
    "Reciprocal": HARDWARE_ULPS,
    "Exp": HARDWARE_ULPS,
    "Ln": HARDWARE_ULPS,
    "Sqrt": HARDWARE_ULPS,
    "Rsqrt": HARDWARE_ULPS,
}
#: Relative error of the ``log1p`` rewrite (``codegen.families.elementwise.compiler._rewrite_function``: with
#: ``u = fl(1 + x)``, ``x`` where ``u == 1``, ``log(u) * x / (u - 1)`` where ``|x| < 0.5``, else ``log(u)``),
#: for any fp32 ``x >= -1``, against the exact ``log1p(x)``:
#:
#: - ``u == 1``: ``|x| <= 2**-24`` and ``|log1p(x) - x| <= x**2`` (relative ``2**-24``);
#: - Goldberg's form (What Every Computer Scientist Should Know About Floating-Point Arithmetic, 1991,
#:   theorem 4): ``u - 1 = x'`` is exact (Sterbenz) with ``|x' - x| <= 2**-24``, and the exact quotient
#:   is ``x * f(x')`` with ``f(t) = log1p(t) / t``, whose logarithmic derivative stays within 0.9 in
#:   magnitude on ``[-0.51, 0.51]``: relative ``0.9 * 2**-24``; then ``Ln`` and ``Div`` (``HARDWARE_ULPS``
#:   each) and ``Mul`` (``2**-24``): about ``17.9 * 2**-24`` in all;
#: - ``log(u)`` for ``|x| >= 0.5``: ``1 + x`` is exact below 0 and rounds by ``2**-24`` above, which moves
#:   the logarithm (at least 0.405 there) by at most ``2.5 * 2**-24`` relative, plus ``Ln``'s
#:   ``HARDWARE_ULPS``: ``10.5 * 2**-24``.
#:
#: The stated figure is 2 ``HARDWARE_ULPS`` + 4 ``2**-24`` (= ``20 * 2**-24``).
LOG1P_ERROR = 2 * HARDWARE_ULPS + 4 * FP32_U
#: Functions a program computes by a rewrite the interval model does not follow instruction by instruction
#: (``Instruction.image``): an increasing function over float64 and its relative error.
IMAGES: dict[str, tuple[Any, float]] = {"log1p": (np.log1p, LOG1P_ERROR)}
#: Absolute allowance of each rounding for results in the subnormal range (fp32's smallest normal).
FP32_TINY = 2.0**-126
FP32_MAX = float(np.finfo(np.float32).max)
#: The largest finite value of each 16-bit compute dtype (its ``CAST_RINT`` is :func:`round16`).
LIMIT16: dict[DType, float] = {
    DType.FLOAT16: 65504.0,
    DType.BF16: float(np.finfo(np.float32).max) * (1 - 2.0**-8),
}
#: Slack for the float64 evaluation of the interval ends and of host scalars (relative).
F64_SLACK = 2.0**-50

_FLOATS = (DType.FLOAT, DType.FLOAT16, DType.BF16)

#: The least / greatest element of an array or scalar (NaN if any is NaN), without np.min's Python wrapper.
_least = np.minimum.reduce
_greatest = np.maximum.reduce

Interval = tuple[np.ndarray, np.ndarray]


def promoted_dtype(dtypes: list[DType]) -> DType | None:
    """``op::PromoteType`` over the floating compute dtypes: equal dtypes stay, any mix is FLOAT; None when
    a dtype is not FLOAT, FLOAT16 or BF16 (no derived bound for such a call)."""
    if not dtypes or any(d not in _FLOATS for d in dtypes):
        return None
    return dtypes[0] if all(d is dtypes[0] for d in dtypes) else DType.FLOAT


def _pick(mask: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """``np.where(mask, a, b)`` for a bool ``mask`` and float64 (or Python float) ``a``, ``b``, bit for bit
    (NaN payloads and the sign of zero included), as a new contiguous float64 array of the broadcast shape.

    ``np.where`` and boolean-mask assignment branch per element (hundreds of microseconds for a mixed mask
    of 32768 elements); here a mask that is all true or all false is a copy of one side, and a mixed one
    blends the bits of both sides with integer operations: ``b ^ ((a ^ b) & m)`` with ``m`` all ones where
    the mask is true.
    """
    mask = np.asarray(mask)
    shape = np.broadcast_shapes(mask.shape, _shape(a), _shape(b))
    out = np.empty(shape)
    if mask.all():
        out[...] = a
        return out
    if not mask.any():
        out[...] = b
        return out
    ones = np.empty(shape, dtype=np.int64)
    ones[...] = mask
    np.negative(ones, out=ones)
    a_bits = np.broadcast_to(np.asarray(a, dtype=np.float64), shape).view(np.uint64)
    b_bits = np.broadcast_to(np.asarray(b, dtype=np.float64), shape).view(np.uint64)
    bits = out.view(np.uint64)
    np.bitwise_xor(a_bits, b_bits, out=bits)
    np.bitwise_and(bits, ones.view(np.uint64), out=bits)
    np.bitwise_xor(bits, b_bits, out=bits)
    return out


def _shape(x: Any) -> tuple[int, ...]:
    """``np.shape(x)`` for an array, a NumPy scalar or a Python float, without np.shape's dispatch (about
    7 us a call, thousands of calls per small case)."""
    return getattr(x, "shape", ())


def _has_nan(x: Any) -> bool:
    """Whether float64 ``x`` (an array of at least one element or a scalar) holds a NaN: its minimum is NaN
    exactly then (``np.min`` propagates NaN), one pass without a temporary."""
    return bool(np.isnan(_least(x, axis=None)))


def _clean(lo: Any, hi: Any) -> Interval:
    """NaN ends (a result that may be NaN) become the whole line; ends beyond the type stay infinite."""
    if not (_has_nan(lo) or _has_nan(hi)):
        return lo, hi
    unknown = np.isnan(lo) | np.isnan(hi)
    return _pick(unknown, -np.inf, lo), _pick(unknown, np.inf, hi)


def _widen(end: np.ndarray, delta: float, tau: float, limit: float, down: bool) -> tuple[np.ndarray, bool]:
    """One end of :func:`_round`: ``end -/+ ((delta + F64_SLACK) * |end| + tau)`` where ``end`` is finite
    (an infinite or NaN end stays), then clamped to the type: beyond ``limit`` on its side it may be an
    infinity, beyond ``-limit`` on the other side it is ``-limit``/``limit``. A new array, and whether it
    is free of NaN.

    The arithmetic makes NaN exactly where ``end`` is NaN or infinite on the far side (``inf - inf``), so
    one reduction of the result tells whether an infinite end must be put back; an infinite end on the
    near side comes out as itself. The clamps run only where a reduction shows a value beyond them."""
    out = np.abs(end, out=np.empty_like(end))
    out *= delta + F64_SLACK
    if down:
        np.subtract(end, out, out=out)
        out -= tau
        near = _least(out, axis=None)
    else:
        np.add(end, out, out=out)
        out += tau
        near = _greatest(out, axis=None)
    if np.isnan(near):
        np.copyto(out, end, where=np.isinf(end))
        if down:
            np.minimum(out, limit, out=out)
            np.copyto(out, -np.inf, where=out < -limit)
        else:
            np.maximum(out, -limit, out=out)
            np.copyto(out, np.inf, where=out > limit)
        _same_side(out, end, down)
        return out, False
    if down:
        if _greatest(out, axis=None) > limit:
            np.minimum(out, limit, out=out)
        if near < -limit:
            np.copyto(out, -np.inf, where=out < -limit)
        if near < 0:
            _same_side(out, end, down)
    else:
        if _least(out, axis=None) < -limit:
            np.maximum(out, -limit, out=out)
        if near > limit:
            np.copyto(out, np.inf, where=out > limit)
        if near > 0:
            _same_side(out, end, down)
    return out, True


def _same_side(out: np.ndarray, end: np.ndarray, down: bool) -> None:
    """Rounding never crosses 0 (round to nearest keeps the sign; flushing a subnormal gives a zero): a
    widened lower end of an end at or above 0 is at least 0, an upper end of an end at or below 0 at most 0.
    So an exact 0 stays 0 (``self - target`` of equal inputs, then times a huge scalar, is 0, not the
    interval of the flush allowance times it)."""
    if down:
        np.copyto(out, 0.0, where=(end >= 0) & (out < 0))
    else:
        np.copyto(out, 0.0, where=(end <= 0) & (out > 0))


def _round(x: Interval, delta: float, tau: float, limit: float) -> Interval:
    """Widens ``x`` by one rounding (relative ``delta``, absolute ``tau``) in a type whose largest finite
    value is ``limit``: ends beyond it may be infinities."""
    lo, lo_plain = _widen(np.asarray(x[0], dtype=np.float64), delta, tau, limit, True)
    hi, hi_plain = _widen(np.asarray(x[1], dtype=np.float64), delta, tau, limit, False)
    return (lo, hi) if lo_plain and hi_plain else _clean(lo, hi)


def round16(x: Interval, dt: DType) -> Interval:
    """``Cast`` ``CAST_RINT`` of the fp32 values in ``x`` to the 16-bit ``dt`` (FLOAT16 or BF16): rounding to
    nearest is monotone, so every result lies between the ends rounded to ``dt`` (correctly rounded, ties to
    even: :func:`codegen.check.compare.round_to_dtype`), and every value between them is a possible result.
    Two allowances widen that: an end that rounds to an infinity of the other side's sign may instead
    saturate at the largest finite value (``[limit, inf]`` for a value that overflows upward); for BF16, whose
    vector results may be flushed, an end that rounds into the subnormal range may be 0. FLOAT16 keeps its
    subnormals. NaN ends make the whole line (:func:`_clean`). Unlike a relative widening by half an ULP,
    this does not accept a result one ULP away from the correct rounding (a truncating ``CAST_TRUNC``)."""
    from codegen.check.compare import round_to_dtype
    from codegen.runner import numpy_dtype

    limit = LIMIT16[dt]
    target = numpy_dtype(dt)
    lo = round_to_dtype(np.asarray(x[0], dtype=np.float64), target).astype(np.float64)
    # the ends take different allowances below, so they never share one array
    hi = lo.copy() if x[1] is x[0] else round_to_dtype(np.asarray(x[1], dtype=np.float64), target).astype(np.float64)
    with np.errstate(invalid="ignore"):
        np.copyto(lo, limit, where=lo == np.inf)
        np.copyto(hi, -limit, where=hi == -np.inf)
        if dt is DType.BF16:
            tiny = FP32_TINY  # BF16's smallest normal is fp32's
            np.copyto(lo, 0.0, where=(lo > 0) & (lo < tiny))
            np.copyto(hi, 0.0, where=(hi < 0) & (hi > -tiny))
    return _clean(lo, hi)


def _mul(a: Interval, b: Interval) -> Interval:
    """The product interval: the least and greatest of the four end products (NaN ends where one is NaN:
    np.minimum/np.maximum propagate NaN, and :func:`_clean` makes such an element the whole line). A
    degenerate operand (both ends the same array, as an exact input is) contributes one end."""
    a_ends = (a[0],) if a[0] is a[1] else (a[0], a[1])
    b_ends = (b[0],) if b[0] is b[1] else (b[0], b[1])
    first = np.multiply(a_ends[0], b_ends[0])
    if len(a_ends) * len(b_ends) == 1:
        return _clean(first, first)
    shape = np.broadcast_shapes(*(_shape(x) for x in (*a_ends, *b_ends)))
    if not isinstance(first, np.ndarray) or first.ndim == 0 or first.shape != shape:
        products = [x * y for x in a_ends for y in b_ends]
        lo, hi = products[0], products[0]
        for p in products[1:]:
            lo, hi = np.minimum(lo, p), np.maximum(hi, p)
        return _clean(lo, hi)
    least: np.ndarray | None = None
    hi = first  # the first product's buffer becomes the upper end; the others go through one scratch array
    scratch = np.empty_like(first)
    for x in a_ends:
        for y in b_ends:
            if x is a_ends[0] and y is b_ends[0]:
                continue
            np.multiply(x, y, out=scratch)
            if least is None:
                least = np.minimum(first, scratch)  # before the upper end overwrites the first product
            else:
                np.minimum(least, scratch, out=least)
            np.maximum(hi, scratch, out=hi)
    assert least is not None
    # np.minimum and np.maximum both propagate NaN: an element's lower end is NaN exactly when its upper is
    return (least, hi) if not _has_nan(least) else _clean(least, hi)


def _recip(b: Interval) -> Interval:
    lo, hi = b
    zero = (lo <= 0) & (hi >= 0)
    r_lo, r_hi = 1.0 / hi, 1.0 / lo
    if not zero.any():
        return _clean(r_lo, r_hi)
    return _clean(_pick(zero, np.nan, r_lo), _pick(zero, np.nan, r_hi))


def _domain(f: Any, lo: Any, hi: Any, signed_zero: bool) -> Interval:
    """``f`` (``np.log``, ``np.sqrt``: increasing, defined from 0) over ``[lo, hi]``: ``f(max(lo, 0))``
    and ``f(max(hi, 0))``, the lower end NaN where the whole interval is negative. The clamp at 0 and the
    NaN only run where a reduction shows an end they change: an end below 0 (or, when ``signed_zero``,
    ``f(-0.0)`` differs from ``f(0.0)`` as for the square root, an end at 0)."""
    least_lo, least_hi = _least(lo, axis=None), _least(hi, axis=None)
    keep_lo = least_lo > 0 or (least_lo >= 0 and not signed_zero)
    keep_hi = least_hi > 0 or (least_hi >= 0 and not signed_zero)
    lo_v = f(lo if keep_lo else np.maximum(lo, 0.0))
    hi_v = f(hi if keep_hi else np.maximum(hi, 0.0))
    if not least_hi >= 0:
        lo_v = _pick(hi < 0, np.nan, lo_v)
    return _clean(lo_v, hi_v)


def _apply(op: str, srcs: list[Interval], scalar: Interval | None) -> Interval:
    """The exact image of the operand intervals under ``op`` (before rounding)."""
    if op in ("Adds", "Muls", "Maxs", "Mins"):
        assert scalar is not None
        srcs = [srcs[0], scalar]
        op = op[:-1]
    if op == "Add":
        (a, b) = srcs
        return _clean(a[0] + b[0], a[1] + b[1])
    if op == "Sub":
        (a, b) = srcs
        return _clean(a[0] - b[1], a[1] - b[0])
    if op == "Mul":
        return _mul(srcs[0], srcs[1])
    if op == "Div":
        return _mul(srcs[0], _recip(srcs[1]))
    if op == "Reciprocal":
        return _recip(srcs[0])
    if op == "Max":
        (a, b) = srcs
        return np.maximum(a[0], b[0]), np.maximum(a[1], b[1])
    if op == "Min":
        (a, b) = srcs
        return np.minimum(a[0], b[0]), np.minimum(a[1], b[1])
    (a,) = srcs
    lo, hi = a
    if op == "Exp":
        return np.exp(lo), np.exp(hi)
    if op == "Ln":
        return _domain(np.log, lo, hi, False)
    if op == "Sqrt":
        return _domain(np.sqrt, lo, hi, True)
    if op == "Rsqrt":
        root = _domain(np.sqrt, lo, hi, True)
        with np.errstate(divide="ignore"):
            return _clean(_pick(root[1] == 0, np.inf, 1.0 / root[1]), _pick(root[0] == 0, np.inf, 1.0 / root[0]))
    if op == "Abs":
        nonneg = lo >= 0
        other = np.broadcast_to(0.0, _shape(hi)) if nonneg.all() else _pick(hi <= 0, -hi, 0.0)
        return _pick(nonneg, lo, other), np.maximum(np.abs(lo), np.abs(hi))
    if op == "Relu":
        return np.maximum(lo, 0.0), np.maximum(hi, 0.0)
    raise ValueError(f"no error model for vector instruction '{op}'")


class ExactScalar(float):
    """A host scalar the kernel holds exactly: an expression without arithmetic (an attribute, a literal, a
    negation or a choice of them) whose value fp32 holds, so no float64 slack or rounding widens it and a
    comparison of an exact input with it is decided (``lo <= self`` at ``self == lo`` is true)."""


#: A host scalar's exact value (float64), or two of them (the scalar from the attributes as the call gives
#: them and from their fp32 values, as the device op receives them): the kernel's value is within the hull.
HostScalar = float | tuple[float, float]


def _arithmetic_free(e: Any) -> bool:
    """Whether expression ``e`` is a name, a number, a negation of one or a choice (``a if c else b``) of
    such: its float64 value is exactly what the tiling computes from the same attributes."""
    from codegen.spec.expr import IfElse, Name, Num, Unary

    if isinstance(e, (Name, Num)):
        return True
    if isinstance(e, Unary) and e.op == "-":
        return _arithmetic_free(e.operand)
    if isinstance(e, IfElse):
        return _arithmetic_free(e.then) and _arithmetic_free(e.orelse)
    return False


def scalar_interval(value: float) -> Interval:
    """The values a host scalar of exact value ``value`` (float64) can have in the kernel: between it and its
    fp32 rounding (infinite beyond the fp32 range), widened by the float64 slack."""
    if math.isnan(value):
        return np.asarray(-np.inf), np.asarray(np.inf)
    with np.errstate(over="ignore"):
        f = float(np.float32(value))
    lo, hi = min(value, f), max(value, f)
    slack = F64_SLACK * abs(value)
    return np.asarray(lo - slack), np.asarray(hi + slack)


def _literal(text: str) -> float | None:
    """The value of a C++ float literal such as ``1.0f`` or ``-1e-12f``; None for a tiling field."""
    if text.endswith("f") and not text.endswith("_"):
        try:
            return float(text[:-1])
        except ValueError:
            return None
    return None


def program_interval(
    program: Program,
    inputs: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute_dtype: DType,
    fp32_result: bool = False,
) -> Interval:
    """Runs ``program`` over intervals (see the module doc) and returns the interval of ``outLocal``; with
    ``fp32_result`` the interval of the fp32 value before a 16-bit program's final ``Cast`` (the value a
    reduce epilogue sums).

    Args:
        program: the compiled program the kernel runs for this call (its variant and dtype class).
        inputs: float64 values of the inputs present in the call, each broadcastable to the output shape.
        scalars: host scalar field name (``scalar0``) -> its exact (float64) value, or two (:data:`HostScalar`).
        compute_dtype: FLOAT, FLOAT16 or BF16: the dtype of the kernel's input and output tiles.

    Raises:
        ValueError: an instruction without an error model, or a scalar that is neither a literal nor a field.
    """
    buffers: dict[str, Interval] = {f"{n}Local": (v, v) for n, v in inputs.items()}
    instructions = program.instructions
    last = instructions[-1]
    if fp32_result and program.cast_inputs and last.op == "Cast" and last.dst == "outLocal":
        instructions = instructions[:-1]
        result = last.srcs[0]
    else:
        result = "outLocal"
    for ins in instructions:
        buffers[ins.dst] = _step(ins, buffers, scalars, compute_dtype)
    return buffers[result]


#: Unit roundoff of fp32 (round to nearest): every fp32 addition or division has relative error <= U32.
U32 = 2.0**-24


def reduce_bound(
    lo: np.ndarray, hi: np.ndarray, ref: np.ndarray, mean: bool, compute_dtype: DType, depth: int | None = None
) -> np.ndarray:
    """The absolute error bound of a reduce epilogue's 0-d sum (or mean) against the float64 reference ``ref``.

    ``[lo, hi]`` (float64, one interval per element of the broadcast shape) holds each fp32 formula value
    ``v_i`` the kernel sums (:func:`program_interval` with ``fp32_result``). The kernel adds the ``n``
    values in fp32 in a tree: a term that goes through ``d_i`` roundings on its way to the result contributes
    at most ``gamma(d_i) * |v_i|`` (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section
    4.2), so ``|fl(sum v_i) - sum v_i| <= gamma(depth) * sum |v_i|`` with ``gamma(k) = k u / (1 - k u)``,
    ``u`` = 2**-24 and ``depth`` the most roundings any term goes through (:func:`sum_depth`: a tile's sum,
    whatever order ReduceSum or the Add halving uses inside it, then the tiles in order, then the partials in
    core order); ``depth`` None takes ``n - 1``, which holds for any tree. The formula's own error adds
    ``sum_i max(hi_i - r_i, r_i - lo_i)`` (the per-element bound of :func:`derived_bound`; ``r_i`` lies in
    ``[lo_i, hi_i]`` whenever the formula and the reference agree up to rounding, else that element's share
    is unbounded by rounding and the case fails). The mean divides
    by ``fl(n)`` (exact up to 2**24, else one rounding) and rounds once: relative ``3u`` more. A 16-bit
    output is rounded once by the kernel, to nearest: the bound becomes the distance from the reference to
    the farther of the two ends of ``[r - bound, r + bound]`` rounded to the compute dtype (:func:`round16`);
    :func:`codegen.check.compare.compare` adds half an ULP of the output dtype. A sum that overflows fp32
    (or any interval end that is infinite or NaN) gives an unbounded (``inf``) bound, except where the
    reference itself is not finite (compared exactly).
    """
    r = np.asarray(ref, dtype=np.float64)
    if not np.isfinite(r).all():
        return np.zeros(r.shape)
    with np.errstate(all="ignore"):
        return _sum_bound(hi - lo, np.maximum(np.abs(lo), np.abs(hi)), r, mean, compute_dtype, depth)


def sum_depth(tile_length: int, tiles_per_core: int, block_dim: int, n: int) -> int:
    """The most fp32 roundings one of ``n`` summed terms goes through in the reduce epilogue's tree
    (the generated kernel's per-tile ``Add`` into its accumulator, the accumulator's ``SumTile`` and core 0's
    combine): one per tile into its accumulator element (``tiles_per_core``), at most ``min(tile_length, n)
    - 1`` in the accumulator's sum (any order of that many terms) and one per core in the combine
    (``block_dim``); never more than ``n - 1``, which any tree of ``n`` terms respects."""
    if n <= 1:
        return 0
    inside = max(0, min(tile_length, n) - 1)
    return min(n - 1, inside + max(0, tiles_per_core) + max(0, block_dim))


def _sum_bound(
    width: np.ndarray, mag: np.ndarray, r: np.ndarray, mean: bool, compute_dtype: DType, depth: int | None = None
) -> np.ndarray:
    """:func:`reduce_bound` from the per-element interval widths ``hi - lo`` and magnitudes
    ``max(|lo|, |hi|)`` (float64, C-contiguous of the broadcast shape) and the finite 0-d reference ``r``."""
    n = width.size
    with np.errstate(all="ignore"):
        # the formula's per-element error: r_i lies in [lo_i, hi_i], so hi_i - lo_i bounds its distance to
        # any value there (the 0-d reference does not give r_i itself)
        formula = float(np.sum(width)) if n else 0.0
        steps = (n - 1 if depth is None else min(depth, n - 1)) if n > 1 else 0
        ku = steps * U32
        gamma = ku / (1.0 - ku) if ku < 1.0 else math.inf
        total = float(np.sum(mag)) if n else 0.0
        bound = formula + gamma * total
        if mean and n:
            bound = bound / n + 3 * U32 * (abs(float(r)) + bound / n)
        if compute_dtype is not DType.FLOAT and math.isfinite(bound):
            # the fp32 result lies in [r - bound, r + bound]; the kernel rounds it once (round16)
            value = float(r)
            lo, hi = round16((np.asarray(value - bound), np.asarray(value + bound)), compute_dtype)
            bound = max(float(hi) - value, value - float(lo))
    if not math.isfinite(bound):
        bound = math.inf
    return np.full(r.shape, bound, dtype=np.float64)


def _step(ins: Instruction, buffers: dict[str, Interval], scalars: Mapping[str, HostScalar], dt: DType) -> Interval:
    scalar: Interval | None = None
    if ins.scalar is not None:
        literal = _literal(ins.scalar)
        if literal is not None and float(np.float32(literal)) == literal:
            # a float literal the compiler holds exactly (1.0f, 0.5f, -100.0f): one value, no slack, so a
            # comparison of an exact input with it is decided (self <= 1.0f on an exact 1.0 is true)
            held = np.asarray(literal)
            scalar = (held, held)
        elif literal is not None:
            scalar = scalar_interval(literal)
        elif ins.scalar.endswith("_") and ins.scalar[:-1] in scalars:
            value = scalars[ins.scalar[:-1]]
            if isinstance(value, ExactScalar):
                held = np.asarray(float(value))
                scalar = (held, held)
            elif isinstance(value, tuple):  # two exact values (from the attrs as given and as fp32): their hull
                (lo0, hi0), (lo1, hi1) = scalar_interval(value[0]), scalar_interval(value[1])
                scalar = (np.minimum(lo0, lo1), np.maximum(hi0, hi1))
            else:
                scalar = scalar_interval(value)
        else:
            raise ValueError(f"unknown scalar operand '{ins.scalar}' of {ins.op}")
    if ins.op == "Duplicate":
        assert scalar is not None
        return scalar
    srcs = [buffers[s] for s in ins.srcs]
    if ins.op == "Compare" and ins.srcs[0] == ins.srcs[1] and ins.mode in ("EQ", "NE"):
        # a value compared with itself (the compiler's NaN test, keep_nan): equal unless it is NaN, whatever
        # the width of its interval
        lo, hi = srcs[0]
        exact_nan = np.isnan(lo) & np.isnan(hi)
        maybe_nan = np.isnan(lo) | np.isnan(hi) | ((lo == -np.inf) & (hi == np.inf))
        equal_t, equal_f = ~exact_nan, maybe_nan
        return (equal_t, equal_f) if ins.mode == "EQ" else (equal_f, equal_t)
    if ins.op in ("Compare", "Compares"):
        other = srcs[1] if ins.op == "Compare" else scalar
        assert other is not None and ins.mode is not None
        return _compare(srcs[0], other, ins.mode)
    if ins.image is not None:
        return _image(ins, buffers)
    if ins.op == "Select":
        mask = srcs[0]
        src1 = srcs[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else scalar
        assert src1 is not None
        return _select(mask, srcs[1], src1)
    if ins.op == "Cast":
        (src,) = srcs
        if ins.round_mode == "CAST_RINT" and dt in LIMIT16:
            return round16(src, dt)
        return src  # 16-bit -> fp32 widening is exact
    exact = _apply(ins.op, srcs, scalar)
    if ins.op in ROUNDING:
        exact = _round(exact, ROUNDING[ins.op], FP32_TINY, FP32_MAX)
    if ins.approx:
        exact = _clean(exact[0] - ins.approx, exact[1] + ins.approx)
    return exact


def _image(ins: Instruction, buffers: dict[str, Interval]) -> Interval:
    """The interval of a rewritten function's result (``ins.image``): the function's exact image of its
    operand's interval, widened by the function's stated relative error and fp32's smallest normal."""
    assert ins.image is not None
    func, k = ins.image
    f, error = IMAGES[func]
    lo, hi = buffers[ins.srcs[k]]
    with np.errstate(all="ignore"):
        return _round(_clean(f(lo), f(hi)), error, FP32_TINY, FP32_MAX)


def _compare(a: Interval, b: Interval, mode: str) -> Interval:
    """A bit mask over intervals: ``(may_be_true, may_be_false)`` per element. NaN compares false except
    ``NE``; an interval that may hold NaN (an end is NaN or infinite both ways) may give either."""
    # Both operands free of NaN ends and of whole-line elements (known from one reduction per end): nothing
    # is unknown and nothing is exactly NaN, and the comparison's masks are the answer.
    plain = _decided(a) and _decided(b)
    alo, ahi = np.broadcast_arrays(*a)
    blo, bhi = np.broadcast_arrays(*b)
    if not plain:
        unknown = np.isnan(alo) | np.isnan(ahi) | np.isnan(blo) | np.isnan(bhi)
        unknown = unknown | ((alo == -np.inf) & (ahi == np.inf)) | ((blo == -np.inf) & (bhi == np.inf))
    with np.errstate(invalid="ignore"):
        if mode == "LT":
            sure_t, sure_f = ahi < blo, alo >= bhi
        elif mode == "LE":
            sure_t, sure_f = ahi <= blo, alo > bhi
        elif mode == "GT":
            sure_t, sure_f = alo > bhi, ahi <= blo
        elif mode == "GE":
            sure_t, sure_f = alo >= bhi, ahi < blo
        elif mode in ("EQ", "NE"):
            equal = (alo == ahi) & (blo == bhi) & (alo == blo)
            apart = (ahi < blo) | (bhi < alo)
            sure_t, sure_f = (equal, apart) if mode == "EQ" else (apart, equal)
        else:
            raise ValueError(f"unknown CMPMODE {mode}")
    if plain:
        return ~sure_f, ~sure_t
    exact_nan = (np.isnan(alo) & np.isnan(ahi)) | (np.isnan(blo) & np.isnan(bhi))
    may_t = ~(sure_f & ~unknown)
    may_f = ~(sure_t & ~unknown)
    # An input that is exactly NaN (not an interval that may hold NaN) decides the comparison.
    if exact_nan.any():
        may_t = np.where(exact_nan, mode == "NE", may_t)
        may_f = np.where(exact_nan, mode != "NE", may_f)
    return may_t, may_f


def _decided(x: Interval) -> bool:
    """Whether no end of ``x`` is NaN and no element is the whole line ``[-inf, inf]`` (one reduction per
    end: the least lower end is neither NaN nor ``-inf``, or the greatest upper end neither NaN nor ``inf``,
    and neither is NaN)."""
    least, greatest = _least(x[0], axis=None), _greatest(x[1], axis=None)
    if np.isnan(least) or np.isnan(greatest):
        return False
    return bool(least > -np.inf or greatest < np.inf)


def _select(mask: Interval, a: Interval, b: Interval) -> Interval:
    """``Select`` over intervals: the chosen operand where the mask is decided, the hull of both where not."""
    may_t, may_f = mask
    alo, ahi = np.broadcast_arrays(*a)
    blo, bhi = np.broadcast_arrays(*b)
    both = may_t & may_f
    if not both.any():  # decided everywhere: the chosen operand (whose NaN ends _clean makes the whole line)
        return _clean(_pick(may_t, alo, blo), _pick(may_t, ahi, bhi))
    lo = _pick(both, np.fmin(alo, blo), _pick(may_t, alo, blo))
    hi = _pick(both, np.fmax(ahi, bhi), _pick(may_t, ahi, bhi))
    both_nan = both & (np.isnan(alo) | np.isnan(blo) | np.isnan(ahi) | np.isnan(bhi))
    return _clean(_pick(both_nan, np.nan, lo), _pick(both_nan, np.nan, hi))


def derived_bound(
    spec: OpSpec, product: Product, params: Mapping[str, Any], ref: np.ndarray, lazy: bool = False
) -> np.ndarray | ElementBound | None:
    """The absolute error an elementwise kernel may show against ``ref`` for the call ``params`` (see the
    module doc), float64 of ``ref``'s shape; None when the call has no derived bound (not an elementwise
    op, or an input dtype outside FLOAT/FLOAT16/BF16).

    Args:
        spec: an elementwise op spec.
        product: the product the kernel runs on (its ``coreNum``/``ubBytes`` may enter host scalars).
        params: the aclnn parameters of the call: arrays by input name (None for a null optional input),
            attributes by name; an ``out`` array is ignored.
        ref: the reference output (float64, the output shape).

        lazy: for a call of more than :data:`CHUNK_ELEMENTS` elements without a reduce epilogue, return an
            :class:`ElementBound` that runs the interval program only at the elements asked for (the
            comparison asks where an element's error is above half an ULP), with the same values.

    A host scalar that cannot be evaluated for the call (e.g. ``1 / numel(out)`` of an empty output) may take
    any value. An empty output gets a bound of zeros.
    """
    if spec.family != "elementwise":
        return None
    from codegen.check.constraints import TensorStandIn, call_env
    from codegen.families.elementwise.plan.shape import shape_rule
    from codegen.families.elementwise.plan.variants import compile_all, program_for
    from codegen.runner import dtype_of_array
    from codegen.spec.expr import ExprEvalError, evaluate

    arrays = {t.name: params.get(t.name) for t in spec.inputs}
    present = {n: a for n, a in arrays.items() if isinstance(a, np.ndarray)}
    compute = promoted_dtype([dtype_of_array(a) for a in present.values()])
    if compute is None:
        return None
    variant = next((v for v in _variants(spec, compile_all) if set(v.present) == set(present)), None)
    if variant is None:
        return None
    kind, args = shape_rule(spec)
    shape = present[args[0]].shape if kind == "like" else np.broadcast_shapes(*(a.shape for a in present.values()))
    if 0 in shape:
        # an empty output, or the 0-d sum/mean of no element: nothing to bound (host scalars may be undefined)
        return np.zeros(np.shape(ref))
    env = call_env(spec, product, {k: v for k, v in params.items() if k not in {t.name for t in spec.outputs}})
    out = spec.outputs[0]
    env[out.name] = TensorStandIn(tuple(shape), compute)
    # The device op receives float attributes as fp32 (an OpDef Float attr; aclScalar ToFloat) and its tiling
    # computes the host scalars from those: a scalar may be the one of the attrs as given or as fp32 (alpha *
    # scale of fp32(0.7) and fp32(1.3) is not 0.91), so it is bounded by both.
    env32 = dict(env)
    with np.errstate(over="ignore"):
        for a in spec.attrs:
            value = env32.get(a.name)
            if a.type in ("float", "double", "scalar") and isinstance(value, float) and math.isfinite(value):
                env32[a.name] = float(np.float32(value))
    rounded = env32 != env  # an attribute fp32 does not hold: the scalars may differ
    scalars: dict[str, HostScalar] = {}
    for hs in variant.formula.scalars:
        try:
            given = float(evaluate(hs.expr, env))  # type: ignore[arg-type]
            as_fp32 = float(evaluate(hs.expr, env32)) if rounded else given  # type: ignore[arg-type]
            with np.errstate(over="ignore"):
                held = float(np.float32(given)) == given
            if as_fp32 == given and held and _arithmetic_free(hs.expr):
                scalars[hs.field_name] = ExactScalar(given)
            else:
                scalars[hs.field_name] = given if as_fp32 == given or math.isnan(as_fp32) else (given, as_fp32)
        except ExprEvalError:
            scalars[hs.field_name] = math.nan  # no value known: any value (the interval [-inf, inf])
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_MEAN, REDUCE_KIND_NONE, reduce_kind

    red_kind = reduce_kind(spec, params)
    program = program_for(variant.formula, compute)
    depth: int | None = None
    if red_kind != REDUCE_KIND_NONE:
        from codegen.families.elementwise.plan.tiling import tiling_decision
        from codegen.families.elementwise.plan.variants import optional_inputs

        absent = [t.name for t in optional_inputs(spec) if t.name not in present]
        attrs = {a.name: params[a.name] for a in spec.attrs if a.name in params}
        plan = tiling_decision(spec, product, tuple(shape), compute, absent, attrs)
        depth = sum_depth(plan.tile_length, plan.tiles_per_core_max, plan.block_dim, math.prod(shape))
    r = np.asarray(ref, dtype=np.float64)
    small = math.prod(shape) <= CHUNK_ELEMENTS
    # a large call's inputs are widened to float64 slice by slice (_chunks), a small one's here
    values = {n: np.asarray(a, dtype=np.float64) if small else a for n, a in present.items()}
    mean = red_kind == REDUCE_KIND_MEAN
    if red_kind != REDUCE_KIND_NONE:
        if not np.isfinite(r).all():
            return np.zeros(r.shape)  # reduce_bound's answer for a non-finite reference, without the program
        with np.errstate(all="ignore"):
            if small:
                lo, hi = _interval_over(program, values, scalars, compute, tuple(shape), True)
                return reduce_bound(lo, hi, r, mean, compute, depth)
            # the sums' operands slice by slice (each element's width and magnitude as reduce_bound's)
            width, mag = np.empty(math.prod(shape)), np.empty(math.prod(shape))
            for part, (lo, hi) in _chunks(program, values, scalars, compute, tuple(shape), True):
                np.subtract(hi, lo, out=width[part])
                np.maximum(np.abs(lo), np.abs(hi), out=mag[part])
            return _sum_bound(width.reshape(shape), mag.reshape(shape), r, mean, compute, depth)
    with np.errstate(all="ignore"):
        if small:
            lo, hi = program_interval(program, values, scalars, compute)
            return _element_bound(lo, hi, r, tuple(shape))
        if lazy:
            return ElementBound(program, values, scalars, compute, tuple(shape), r)
        r = np.ascontiguousarray(np.broadcast_to(r, shape)).reshape(-1)
        bound = np.empty(r.size)
        for part, (lo, hi) in _chunks(program, values, scalars, compute, tuple(shape), False):
            bound[part] = _element_bound(lo, hi, r[part], (part.stop - part.start,))
    return bound.reshape(shape)


#: Elements per slice when a large call's interval program runs slice by slice (:func:`_chunks`): every
#: buffer of the program then stays in the CPU caches (32768 float64 = 256 KiB), where whole-call arrays
#: (16 MiB for 2**21 elements) go through memory at each of the program's many NumPy passes.
CHUNK_ELEMENTS = 1 << 15


def _element_bound(lo: np.ndarray, hi: np.ndarray, r: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The accepted error per element (float64, ``shape``): ``max(hi - r, r - lo)`` where the reference
    ``r`` lies in ``[lo, hi]``, else (and where that is NaN) 0."""
    lo, hi = np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
    r = np.broadcast_to(r, shape)
    inside = (lo <= r) & (r <= hi)
    bound = _pick(inside, np.maximum(hi - r, r - lo), 0.0)
    if _has_nan(bound):
        bound = _pick(np.isnan(bound), 0.0, bound)
    return bound


class ElementBound:
    """The derived bound of an elementwise call without a reduce epilogue (:func:`derived_bound` with
    ``lazy``), evaluated only at the elements asked for and kept: :func:`program_interval` acts element by
    element, so the interval program run on the gathered inputs of any set of elements gives exactly the
    whole call's values there. Satisfies :class:`codegen.check.compare.LazyAtol`.

    Args:
        program: the compiled program of the call's variant and dtype class.
        values: the inputs present in the call (any floating dtype; each broadcastable to ``shape``).
        scalars: host scalar field name -> its float64 value, or two (:data:`HostScalar`).
        compute: the kernel's tile dtype (FLOAT, FLOAT16 or BF16).
        shape: the output shape.
        ref: the float64 reference, broadcastable to ``shape``.
    """

    def __init__(
        self,
        program: Program,
        values: Mapping[str, np.ndarray],
        scalars: Mapping[str, HostScalar],
        compute: DType,
        shape: tuple[int, ...],
        ref: np.ndarray,
    ) -> None:
        self._program, self._scalars, self._compute, self._shape = program, scalars, compute, shape
        self._flat = {
            n: v.reshape(-1) if v.shape == shape else np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1)
            for n, v in values.items()
        }
        self._ref = np.ascontiguousarray(np.broadcast_to(np.asarray(ref, dtype=np.float64), shape)).reshape(-1)
        size = math.prod(shape)
        self._known = np.zeros(size)
        self._have = np.zeros(size, dtype=bool)

    @property
    def shape(self) -> tuple[int, ...]:
        """The output shape."""
        return self._shape

    def at(self, index: np.ndarray) -> np.ndarray:
        """The bound (float64, ``>= 0``) at the flat C-order indices ``index`` (int64); computed once per
        element, :data:`CHUNK_ELEMENTS` elements per run of the program."""
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        missing = index[~self._have[index]]
        if missing.size:
            if missing.size > 1 and not bool(np.all(missing[1:] > missing[:-1])):
                # sorted and without repeats, in one pass over a mask (np.unique hashes or sorts instead;
                # the compare's prefetch asks in increasing order already)
                mask = np.zeros(self._have.size, dtype=bool)
                mask[missing] = True
                missing = np.flatnonzero(mask)
            with np.errstate(all="ignore"):
                for start in range(0, missing.size, CHUNK_ELEMENTS):
                    sub = missing[start : start + CHUNK_ELEMENTS]
                    inputs = {n: np.asarray(v[sub], dtype=np.float64) for n, v in self._flat.items()}
                    lo, hi = program_interval(self._program, inputs, self._scalars, self._compute)
                    self._known[sub] = _element_bound(lo, hi, self._ref[sub], (sub.size,))
            self._have[missing] = True
        return self._known[index]

    def full(self) -> np.ndarray:
        """The whole bound, float64 of :attr:`shape`."""
        return self.at(np.arange(math.prod(self._shape), dtype=np.int64)).reshape(self._shape)


def _chunks(
    program: Program,
    values: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute: DType,
    shape: tuple[int, ...],
    fp32_result: bool,
) -> Iterator[tuple[slice, Interval]]:
    """:func:`program_interval` over the call's elements (``shape``, flattened in C order) in slices of
    :data:`CHUNK_ELEMENTS`: yields ``(slice, (lo, hi))`` with both ends of the slice's length. Every
    instruction acts element by element, so each slice's ends are exactly those of a whole-call run.
    ``values`` may keep their own floating dtype: each slice is widened to float64 (exactly) on its way in,
    so a 16-bit or fp32 input never exists as a whole float64 array."""
    flat = {
        n: v.reshape(-1) if v.shape == shape else np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1)
        for n, v in values.items()
    }
    total = math.prod(shape)
    for start in range(0, total, CHUNK_ELEMENTS):
        part = slice(start, min(start + CHUNK_ELEMENTS, total))
        inputs = {n: np.asarray(v[part], dtype=np.float64) for n, v in flat.items()}
        lo, hi = program_interval(program, inputs, scalars, compute, fp32_result)
        size = (part.stop - part.start,)
        yield part, (np.broadcast_to(lo, size), np.broadcast_to(hi, size))


def _interval_over(
    program: Program,
    values: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute: DType,
    shape: tuple[int, ...],
    fp32_result: bool,
) -> Interval:
    """:func:`program_interval` broadcast to ``shape``; a call of more than :data:`CHUNK_ELEMENTS` elements
    runs slice by slice (:func:`_chunks`) into two float64 arrays of ``shape``."""
    if math.prod(shape) <= CHUNK_ELEMENTS:
        lo, hi = program_interval(program, values, scalars, compute, fp32_result)
        return np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
    lo_all, hi_all = np.empty(math.prod(shape)), np.empty(math.prod(shape))
    for part, (lo, hi) in _chunks(program, values, scalars, compute, shape, fp32_result):
        lo_all[part], hi_all[part] = lo, hi
    return lo_all.reshape(shape), hi_all.reshape(shape)


_VARIANTS: dict[int, tuple[OpSpec, list[Any]]] = {}


def _variants(spec: OpSpec, compile_all: Any) -> list[Any]:
    """``compile_all(spec)``, cached per spec object (a worker checks one op many times)."""
    cached = _VARIANTS.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = (spec, compile_all(spec))
        _VARIANTS[id(spec)] = cached
    return cached[1]
