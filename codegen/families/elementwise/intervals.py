"""Interval arithmetic over float64 NumPy arrays: one ``[lo, hi]`` per element, widened by fp32 and 16-bit
rounding, with the masks of a comparison and the choice of a ``Select`` over intervals."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.spec.model import DType
from codegen.types import FLOAT_DTYPE_MAX

#: Absolute allowance of each rounding for results in the subnormal range (fp32's smallest normal).
FP32_TINY = 2.0**-126
FP32_MAX = float(np.finfo(np.float32).max)
#: The largest finite value of each 16-bit compute dtype (its ``CAST_RINT`` is :func:`round16`): FLOAT16
#: 65504 (0x7BFF), BF16 ``(2 - 2**-7) * 2**127`` (0x7F7F), the value an overflowing result saturates at.
LIMIT16: dict[DType, float] = {dt: FLOAT_DTYPE_MAX[dt.name] for dt in (DType.FLOAT16, DType.BF16)}
#: Slack for the float64 evaluation of the interval ends and of host scalars (relative).
F64_SLACK = 2.0**-50

#: The least / greatest element of an array or scalar (NaN if any is NaN), without np.min's Python wrapper.
_least = np.minimum.reduce
_greatest = np.maximum.reduce

Interval = tuple[np.ndarray, np.ndarray]


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
    nearest is monotone, so every result lies between the ends rounded to ``dt`` (each float64 end rounded
    once, correctly, ties to even: :func:`codegen.check.compare.round_to_dtype`; AscendC's ``RoundMode``
    documents ``CAST_RINT`` as round half to even), and every value between them is a possible result.

    Near the largest finite value :data:`LIMIT16` ``[dt]`` (step ``2**(emax - mantissa bits)``: 32 for
    FLOAT16, ``2**120`` for BF16) an end below the midpoint above it rounds to a finite value, and an end at
    or past that midpoint (65520; ``2**128 - 2**119``) to an infinity: the tie goes to the even neighbour,
    ``2**(emax + 1)``, which overflows. Two allowances widen the result: an end that rounds to an infinity
    of the other side's sign may instead saturate at the largest finite value (``[limit, inf]`` for a value
    that overflows upward: CANN's ``aclrtFloatOverflowMode`` gives infinity in Inf/NaN mode, the default on
    A2/A3/950, and the largest finite value in saturation mode, the only mode of Atlas training and
    inference products); for BF16, whose vector results may be flushed, an end that rounds into the
    subnormal range may be 0. FLOAT16 keeps its subnormals. NaN ends make the whole line (:func:`_clean`).
    Unlike a relative widening by half an ULP, this does not accept a result one ULP away from the correct
    rounding (a truncating ``CAST_TRUNC``).

    Args:
        x: the float64 ends ``(lo, hi)``, arrays of one broadcast shape (the same array for an exact value).
        dt: FLOAT16 or BF16.

    Returns:
        The float64 ends of the rounded interval, new arrays.
    """
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
