"""Comparing kernel output with a float64 reference: tolerances and errors in ULPs of the output dtype.

The acceptance rule (:func:`compare`) is evaluated with as few full-size float64 arrays as the rule needs
(the absolute error and the accepted bound); everything about the output dtype (its rounding of the
reference, the ULP at each element, the ULP distance) is read from integer views of that dtype's bits, and
every conversion that meets NaN or infinity runs under ``np.errstate(all="ignore")``, so no
floating-point exception is raised per element.

The NumPy code here states the rule; for FLOAT, FLOAT16 and BF16 outputs the per-element pass runs compiled
(:mod:`codegen.check.native`, one pass in place of about fifty NumPy passes over each slice) with the same
results bit for bit, unless ``OPGEN_NO_NATIVE_COMPARE=1`` or the library cannot be built.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Protocol, TypeGuard, cast, runtime_checkable

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class _Layout:
    """The bit layout of a binary floating dtype: its same-size unsigned integer view, mantissa bits,
    exponent bias, and the masks of the sign and of the magnitude."""

    uint: np.dtype
    nmant: int
    bias: int
    sign: int
    magnitude: int
    exponent: int


@cache
def _layout(dtype: np.dtype) -> _Layout:
    info = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    bits = dtype.itemsize * 8
    nmant = int(info.nmant)
    sign = 1 << (bits - 1)
    return _Layout(
        np.dtype(f"uint{bits}"), nmant, 1 - int(info.minexp), sign, sign - 1, (sign - 1) & ~((1 << nmant) - 1)
    )


@runtime_checkable
class LazyAtol(Protocol):
    """An ``atol`` of :func:`compare` evaluated only at the elements that need it (e.g. a family's derived
    bound, :meth:`codegen.registry.Family.derived_bound` with ``lazy``): an element whose error is within
    ``rtol*|ref| + ulp/2`` passes whatever its ``atol >= 0`` is, so :func:`compare` asks for the others only
    (and for the worst element, whose bound it reports). Every value it returns must be ``>= 0`` or NaN-free
    infinity: the rule's result is then exactly the one with the whole array."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The output shape the atol covers."""
        ...

    def at(self, index: np.ndarray) -> np.ndarray:
        """The atol (float64) at the flat C-order indices ``index`` (int64, any order, repeats allowed)."""
        ...

    def full(self) -> np.ndarray:
        """The whole atol, float64 of :attr:`shape`."""
        ...


#: Types already classified by :func:`_is_lazy` (a ``runtime_checkable`` isinstance check inspects the
#: protocol's attributes on every call, a tenth of a millisecond; a type's answer does not change).
_LAZY_TYPES: dict[type, bool] = {}


def _is_lazy(atol: object) -> TypeGuard[LazyAtol]:
    """Whether ``atol`` is a :class:`LazyAtol` (``isinstance``, remembered per type)."""
    kind = type(atol)
    known = _LAZY_TYPES.get(kind)
    if known is None:
        known = _LAZY_TYPES[kind] = isinstance(atol, LazyAtol)
    return known


def _is_float(dtype: np.dtype) -> bool:
    return bool(np.issubdtype(dtype, np.floating)) or dtype == np.dtype(ml_dtypes.bfloat16)


_BF16 = np.dtype(ml_dtypes.bfloat16)


def round_to_dtype(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Float64 ``values`` rounded to the nearest value of floating ``dtype`` (ties to even; an overflow is an
    infinity), as a ``dtype`` array: the correctly rounded conversion whatever the installed ml_dtypes does.

    NumPy converts float64 to float16 and float32 directly. ml_dtypes before 0.7 converts float64 to bfloat16
    through float32, rounding twice (``1 + 2**-8 + 2**-30`` becomes 1.0, not ``1 + 2**-7``). Here the float32
    step rounds to odd instead (the truncation toward zero, its last bit set when inexact), which makes the
    second rounding to bfloat16's 8 bits the correct one (float32 keeps more than 8 + 2 bits)."""
    with np.errstate(all="ignore"):  # an overflow to infinity or an underflow to 0 is the answer, not an error
        if dtype != _BF16:
            return values.astype(dtype)
        narrow = values.astype(np.float32)
        back = narrow.astype(np.float64)
        inexact = back != values
        inexact &= np.isfinite(values)
        if inexact.any():
            bits = narrow.view(np.uint32)
            # rounded away from zero: one step back toward it (sign and magnitude: the magnitude's bits minus
            # 1; an overflow to infinity becomes the largest finite float32)
            np.subtract(bits, np.uint32(1), out=bits, where=inexact & (np.abs(back) > np.abs(values)))
            np.bitwise_or(bits, np.uint32(1), out=bits, where=inexact)
        return narrow.astype(dtype)


def _unbiased_exponent(values: np.ndarray, lay: _Layout) -> np.ndarray:
    """``max(floor(log2|v|), minexp)`` of ``values`` (in the dtype of ``lay``, finite), as int32, from the
    biased exponent field of their bits (0 for zeros and subnormals, which count as ``minexp``)."""
    biased = ((values.view(lay.uint) & lay.exponent) >> lay.nmant).astype(np.int32)
    np.maximum(biased, 1, out=biased)
    biased -= lay.bias
    return biased


def ulp(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Unit in the last place of ``values`` (float64 array) in floating ``dtype``, as float64.

    ``ulp(x) = 2**(max(floor(log2|x|), minexp - 1) - nmant)``; for 0 it is the smallest subnormal.
    """
    info = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    nmant = int(info.nmant)
    minexp = int(info.minexp)
    a = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(all="ignore"):
        e = np.frexp(a)[1].astype(np.int64) - 1  # floor(log2 a) for finite a > 0, exactly
    e = np.where((a > 0) & np.isfinite(a), e, minexp)
    return np.ldexp(1.0, np.maximum(e, minexp) - nmant)


def _smallest_normal(dtype: np.dtype) -> float:
    info = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    return float(info.tiny)


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`: ``ok``, the largest absolute error and the largest error in output ULPs
    (the distance, counted in representable values of the output dtype, from the reference rounded to
    that dtype), the index of the worst element (the first failing one when some fail), and ``bound``, the
    error accepted where the absolute error is largest among the elements that are not an accepted NaN or
    infinity (0 when every element is one: ``detail`` then says so)."""

    ok: bool
    max_abs_err: float
    max_ulp_err: float
    worst_index: tuple[int, ...] | None
    detail: str
    #: the accepted error (``atol + rtol*|ref| + ulp/2``) at the element of the largest absolute error
    bound: float = 0.0


def _half_ulp(expected: np.ndarray, r: np.ndarray, lay: _Layout) -> np.ndarray:
    """Half the ULP of the output dtype at each element, float64: at ``expected`` (the reference rounded
    to the output dtype) where that is finite; at the float64 reference where only the rounding overflowed;
    at 0 (the smallest subnormal) where the reference itself is NaN or infinite."""
    nonfinite = (expected.view(lay.uint) & lay.exponent) == lay.exponent
    e = _unbiased_exponent(expected, lay)
    if nonfinite.any():
        minexp = 1 - lay.bias
        with np.errstate(all="ignore"):
            r_e = np.frexp(r[nonfinite])[1].astype(np.int32) - 1
        r_e = np.where(np.isfinite(r[nonfinite]) & (r[nonfinite] != 0), r_e, minexp)
        e[nonfinite] = np.maximum(r_e, minexp)
    e -= lay.nmant
    return np.ldexp(0.5, e)


def _ordered(values: np.ndarray, lay: _Layout) -> np.ndarray:
    """The bits of ``values`` as signed integers ordered like the values (``-0`` and ``+0`` both 0):
    adjacent representable values differ by 1, so a difference of two is a distance in ULPs."""
    signed = values.view(lay.uint.str.replace("u", "i"))
    m = signed >> (lay.uint.itemsize * 8 - 1)  # 0 for positive, -1 for negative values
    ordered = m & lay.magnitude
    np.bitwise_xor(signed, ordered, out=ordered)
    ordered -= m
    return ordered


def _max_ulp_distance(got: np.ndarray, expected: np.ndarray, special: np.ndarray | None, lay: _Layout) -> float:
    """The largest distance in ULPs between ``got`` and ``expected`` (both of the output dtype) over the
    elements that are not ``special`` (an accepted NaN or infinity: 0). Where ``expected`` is subnormal or
    zero the distance is counted at the smallest normal's spacing (the vector units do not promise subnormal
    results: a 0 where the exact value is 1e-40 is not 70000 ULPs wrong); where either side is NaN or
    infinite the distance is infinite (a NaN against a number too), or not counted when both are the same
    infinity."""
    exp_bits = expected.view(lay.uint) & lay.exponent
    dist = np.subtract(_ordered(got, lay), _ordered(expected, lay), dtype=np.int64)
    np.abs(dist, out=dist)
    worst = 0.0
    tiny_e = exp_bits == 0
    nonfinite = (exp_bits == lay.exponent) | ((got.view(lay.uint) & lay.exponent) == lay.exponent)
    if special is not None:
        tiny_e &= ~special
        nonfinite &= ~special
        dist[special] = 0
    with np.errstate(all="ignore"):
        if tiny_e.any():
            diff = np.abs(got[tiny_e].astype(np.float64) - expected[tiny_e].astype(np.float64))
            diff = diff[~np.isnan(diff)]
            if diff.size:
                worst = max(worst, float(diff.max()) / float(2.0 ** (1 - lay.bias)))  # the smallest normal
            dist[tiny_e] = 0
        if nonfinite.any():
            # a NaN or an infinity on either side: infinitely far, unless it is the same infinity on both
            # sides (a NaN difference); a NaN against a number is infinitely far (it showed 0 ULPs)
            g_nf = got[nonfinite].astype(np.float64)
            e_nf = expected[nonfinite].astype(np.float64)
            if (~np.isnan(g_nf - e_nf) | (np.isnan(g_nf) != np.isnan(e_nf))).any():
                worst = np.inf
            dist[nonfinite] = 0
    return max(worst, float(dist.max()))


def compare(
    got: np.ndarray, ref: np.ndarray, atol: np.ndarray | float | LazyAtol, rtol: np.ndarray | float
) -> Comparison:
    """Checks ``|got - ref| <= atol + rtol*|ref| + ulp_out(ref)/2`` per element (NaN only where ref is NaN;
    an infinity only where ref, rounded to the output dtype, is the same infinity; where ref itself is
    infinite, only that infinity).

    ``ref`` is float64; ``got`` has the output dtype (FLOAT, FLOAT16, BF16 or an integer type); ``atol`` and
    ``rtol`` broadcast to ``ref``'s shape (``atol`` may be a :class:`LazyAtol` of that shape, asked only where
    an element's error exceeds ``rtol*|ref| + ulp/2``, with the same result). The half-ULP term is the
    unavoidable final rounding to the output dtype (the ULP of the reference rounded to it, read from the bits
    of that rounding).
    """
    if got.shape != ref.shape:
        return Comparison(False, float("inf"), float("inf"), None, f"shape {got.shape} != reference {ref.shape}")
    if got.dtype.byteorder == ">":  # the bit views below read native byte order
        got = got.astype(got.dtype.newbyteorder("="))
    if _is_lazy(atol) and (got.size == 0 or got.ndim == 0 or not _is_float(got.dtype)):
        atol = atol.full()
    if got.size == 0:
        return Comparison(True, 0.0, 0.0, None, "empty")
    r = np.asarray(ref, dtype=np.float64)
    if got.ndim == 0:  # one element: compared as a 1-d array, reported at index ()
        assert not isinstance(atol, LazyAtol)  # 0-d: rare, the protocol check is affordable
        one = compare(got.reshape(1), r.reshape(1), np.reshape(atol, -1), np.reshape(rtol, -1))
        return Comparison(
            one.ok,
            one.max_abs_err,
            one.max_ulp_err,
            None if one.ok else (),
            one.detail.replace("(0,)", "()"),
            one.bound,
        )
    if _is_float(got.dtype):
        return _compare_in_slices(got, r, atol, rtol)
    # an integer output: compared with the reference rounded to an integer, no half-ULP term
    with np.errstate(all="ignore"):
        expected = np.round(r)
        # err = |got - ref| and bound = atol + rtol*|ref|, in that order of additions
        err = got.astype(np.float64)
        np.subtract(err, r, out=err)
        np.abs(err, out=err)
        bound = np.abs(r)
        if np.broadcast_shapes(np.shape(atol), np.shape(rtol), r.shape) == r.shape:
            np.multiply(np.asarray(rtol), bound, out=bound)
            np.add(np.asarray(atol), bound, out=bound)
        else:
            bound = np.asarray(atol) + np.asarray(rtol) * bound
        ok_mask = err <= bound
        # the shown error: infinite where the error is NaN
        nan_err = np.isnan(err)
        if nan_err.any():
            err[nan_err] = np.inf
        worst = np.unravel_index(int(np.argmax(err)), err.shape) if err.ndim else ()
        max_abs = float(err[worst])
        max_ulp = float(np.nanmax(np.abs(got.astype(np.float64) - expected)))
    full_bound = np.broadcast_to(bound, r.shape)
    bound_there = float(full_bound[worst])
    if not ok_mask.all():
        bad = ~ok_mask
        idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape)) if bad.ndim else ()
        return _failure(
            max_abs, max_ulp, idx, int(bad.sum()), bad.size, got[idx], r[idx], float(full_bound[idx]), bound_there
        )
    return Comparison(True, max_abs, max_ulp, None, "", bound_there)


def plain_number(value: object) -> str:
    """``value`` (a Python or NumPy number of any dtype) as a person writes it: a float in Python's shortest
    round-trip form of its float64 value (``6.456026554107666``, ``nan``, ``-inf``), an integer or bool as
    such; never NumPy's ``np.float64(...)`` repr. Anything else is ``str(value)``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def _failure(
    max_abs: float,
    max_ulp: float,
    idx: tuple[int, ...],
    bad: int,
    size: int,
    got_value: object,
    ref_value: object,
    bound_there: float,
    bound_at_worst: float,
) -> Comparison:
    """The failing :class:`Comparison`: ``bad`` of ``size`` elements out of tolerance, the first at ``idx``
    (its output value, reference and bound in the message)."""
    return Comparison(
        False,
        max_abs,
        max_ulp,
        idx,
        f"{bad} of {size} elements out of tolerance; first at {idx}: got {plain_number(got_value)}, "
        f"reference {plain_number(ref_value)}, bound {bound_there:.3g}",
        bound_at_worst,
    )


#: Elements per slice of a large floating comparison (:func:`_compare_in_slices`): its float64 temporaries
#: (32768 elements = 256 KiB each) stay in the CPU caches instead of going through memory as whole arrays.
CHUNK_ELEMENTS = 1 << 15


def _prefetch(lazy: LazyAtol, g_all: np.ndarray, r_all: np.ndarray, lay: _Layout) -> None:
    """Asks ``lazy``, in one call, for every element :func:`_compare_in_slices` may ask it for: where
    ``got`` is not the reference rounded to the output dtype bit for bit, or that rounding is not finite.
    Elsewhere the error is at most half an ULP and the element passes without its atol. (The slices then
    find their atols kept, instead of each running the bound's program for a few elements.)"""
    parts: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for start in range(0, g_all.size, CHUNK_ELEMENTS):
            part = slice(start, min(start + CHUNK_ELEMENTS, g_all.size))
            expected = round_to_dtype(r_all[part], g_all.dtype).view(lay.uint)
            differ = g_all[part].view(lay.uint) != expected
            differ |= (expected & lay.exponent) == lay.exponent
            parts.append(np.flatnonzero(differ) + start)
    wanted = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    if wanted.size:
        lazy.at(wanted)


#: The detail of a passing comparison where every element is NaN or infinite on both sides (the same
#: infinity, or NaN where the reference is NaN): no finite element, so its error and bound are 0.
ALL_SPECIAL = "every element is NaN or infinite, as the reference's: no finite value to bound"


def _compare_in_slices(
    got: np.ndarray, r: np.ndarray, atol: np.ndarray | float | LazyAtol, rtol: np.ndarray | float
) -> Comparison:
    """:func:`compare` of a floating ``got`` (``atol`` and ``rtol`` broadcast to ``r.shape``; ValueError
    otherwise), slice by slice of :data:`CHUNK_ELEMENTS` elements in C order (one slice for a small output).
    Every quantity of the rule is per element; the slices' results combine exactly: the largest error and
    ULP distance are the largest of the slices', the worst element is the first (in C order) with the largest error, as
    ``np.argmax`` picks it, and the failing count and the first failing element are the sums and the first of
    the slices'. So the result equals the whole-array evaluation's bit for bit.

    A :class:`LazyAtol` is asked only for the elements whose error exceeds ``rtol*|ref| + ulp/2`` (the others
    pass with any ``atol >= 0``: the additions are rounded monotonically) and for the worst element; there the
    bound is ``(rtol*|ref| + atol) + ulp/2``, the same additions in the same order."""
    g_all = np.ascontiguousarray(got).reshape(-1)
    r_all = np.ascontiguousarray(r).reshape(-1)
    lazy = atol if _is_lazy(atol) else None
    a_all = None if lazy is not None else np.broadcast_to(np.asarray(atol), r.shape).reshape(-1)
    t_all = np.broadcast_to(np.asarray(rtol), r.shape).reshape(-1)
    lay = _layout(got.dtype)
    native = _native_slices(g_all, r_all, atol, rtol, lazy, lay, r.shape)
    if native is None:
        native = _numpy_slices(g_all, r_all, a_all, t_all, lazy, lay)
    max_abs, bound_at_worst, worst_at, max_ulp, bad_count, first_bad, bound_at_bad = native
    if worst_at < 0:  # every element an accepted NaN or infinity, as the reference's: no error, nothing to bound
        return Comparison(True, 0.0, max_ulp, None, ALL_SPECIAL, 0.0)
    if lazy is not None:
        # the bound reported at the worst element, with its atol (the slice may have taken it as accepted
        # without asking): the same additions as a whole-array evaluation
        i = np.array([worst_at])
        rr = r_all[i]
        with np.errstate(all="ignore"):
            b = t_all[i] * np.abs(rr) + lazy.at(i)
            b += _half_ulp(round_to_dtype(rr, got.dtype), rr, lay)
        bound_at_worst = float(b[0])
    if bad_count:
        idx = tuple(int(i) for i in np.unravel_index(first_bad, r.shape))
        return _failure(
            max_abs, max_ulp, idx, bad_count, r.size, g_all[first_bad], r[idx], bound_at_bad, bound_at_worst
        )
    return Comparison(True, max_abs, max_ulp, None, "", bound_at_worst)


#: What the per-element pass of :func:`_compare_in_slices` hands back: ``(max_abs, bound_at_worst, worst_at,
#: max_ulp, bad_count, first_bad, bound_at_bad)`` (``bound_at_worst`` not yet with a lazy atol's value).
_SliceTotals = tuple[float, float, int, float, int, int, float]


def _numpy_slices(
    g_all: np.ndarray,
    r_all: np.ndarray,
    a_all: np.ndarray | None,
    t_all: np.ndarray,
    lazy: LazyAtol | None,
    lay: _Layout,
) -> _SliceTotals:
    """The per-element pass of :func:`_compare_in_slices` in NumPy, slice by slice: the statement of the
    rule (``native_compare.cpp`` computes the same, see :func:`_native_slices`)."""
    max_abs, bound_at_worst, worst_at = -1.0, 0.0, -1
    if lazy is not None:
        _prefetch(lazy, g_all, r_all, lay)
    max_ulp = 0.0
    bad_count, first_bad, bound_at_bad = 0, -1, 0.0
    with np.errstate(all="ignore"):
        for start in range(0, g_all.size, CHUNK_ELEMENTS):
            part = slice(start, min(start + CHUNK_ELEMENTS, g_all.size))
            g, rr = g_all[part], r_all[part]
            expected = round_to_dtype(rr, g_all.dtype)
            half_u = _half_ulp(expected, rr, lay)
            err = g.astype(np.float64)
            np.subtract(err, rr, out=err)
            np.abs(err, out=err)
            bound = np.abs(rr)
            np.multiply(t_all[part], bound, out=bound)
            if lazy is None:
                assert a_all is not None
                np.add(a_all[part], bound, out=bound)
                np.add(bound, half_u, out=bound)
                ok_mask = err <= bound
            else:
                # rtol*|ref| + ulp/2 first; the atol only where that does not already accept the element
                rel = bound.copy()
                np.add(bound, half_u, out=bound)
                ok_mask = err <= bound
                need = np.flatnonzero(~ok_mask)
                if need.size:
                    b = rel[need] + lazy.at(need + start)
                    b += half_u[need]
                    bound[need] = b
                    ok_mask[need] = err[need] <= b
            special: np.ndarray | None = None
            if ((g.view(lay.uint) & lay.exponent) == lay.exponent).any():
                g64 = g.astype(np.float64)
                e64 = expected.astype(np.float64)
                nan_ok = np.isnan(g64) & np.isnan(rr)
                inf_ok = np.isinf(g64) & np.isinf(e64) & (np.sign(g64) == np.sign(rr))
                special = nan_ok | inf_ok
                ok_mask |= special
            ref_inf = np.isinf(rr)
            if ref_inf.any():
                # an infinite reference makes the bound infinite too (rtol * |ref|): only that same infinity
                # passes there, never a finite value or the other infinity
                ok_mask &= ~ref_inf | (g.astype(np.float64) == rr)
            nan_err = np.isnan(err)
            if nan_err.any():
                err[nan_err] = np.inf
            if special is not None:
                err[special] = -1.0  # an accepted NaN or infinity is never the worst element (its bound says nothing)
            local = int(np.argmax(err))
            if float(err[local]) > max_abs:
                max_abs, bound_at_worst, worst_at = float(err[local]), float(bound[local]), start + local
            max_ulp = max(max_ulp, _max_ulp_distance(g, expected, special, lay))
            if not ok_mask.all():
                bad = ~ok_mask
                if first_bad < 0:
                    local_bad = int(np.argmax(bad))
                    first_bad, bound_at_bad = start + local_bad, float(bound[local_bad])
                bad_count += int(bad.sum())
    return max_abs, bound_at_worst, worst_at, max_ulp, bad_count, first_bad, bound_at_bad


def _native_slices(
    g_all: np.ndarray,
    r_all: np.ndarray,
    atol: np.ndarray | float | LazyAtol,
    rtol: np.ndarray | float,
    lazy: LazyAtol | None,
    lay: _Layout,
    shape: tuple[int, ...],
) -> _SliceTotals | None:
    """:func:`_numpy_slices` through the compiled comparison (:mod:`codegen.check.native`), or None when it is
    not available. A lazy atol is asked for exactly the elements that the rule without it does not accept."""
    from codegen.check import native

    if g_all.dtype.itemsize not in (2, 4):
        return None
    lib = native.library()
    if lib is None:
        return None

    def plain(x: object) -> bool:  # a tolerance float64 holds exactly (else the NumPy path, which may raise)
        kind = np.asarray(x).dtype
        return kind.kind in "biu" or (kind.kind == "f" and kind.itemsize <= 8)

    if not plain(rtol) or (lazy is None and not plain(atol)):
        return None

    def dense(x: np.ndarray | float) -> np.ndarray:
        a = np.asarray(x, dtype=np.float64)
        return a.reshape(1).copy() if a.size == 1 else np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1)

    got_bits = g_all.view(lay.uint)
    expected_bits = native.round_bits(lib, r_all, lay.uint, lay.nmant, lay.bias)
    t = dense(rtol)
    args = (lib, got_bits, expected_bits, lay.nmant, lay.bias, r_all, t)
    if lazy is None:
        f, i = native.compare_pass(*args, dense(cast("np.ndarray | float", atol)), 0)
    else:
        need = np.empty(r_all.size, dtype=np.int64)
        _, first = native.compare_pass(*args, None, 1, need=need)
        listed = need[: int(first[3])]
        # broadcast as the NumPy path's addition does (a wrong length is its ValueError too)
        values = (
            np.ascontiguousarray(np.broadcast_to(np.asarray(lazy.at(listed), dtype=np.float64), listed.shape))
            if listed.size
            else np.zeros(1)
        )
        f, i = native.compare_pass(*args, None, 2, lazy_atol=values)
    return float(f[0]), float(f[1]), int(i[0]), float(f[2]), int(i[1]), int(i[2]), float(f[3])
