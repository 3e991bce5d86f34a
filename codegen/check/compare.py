"""Comparing kernel output with a float64 reference: tolerances and errors in ULPs of the output dtype."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


def ulp(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Unit in the last place of ``values`` (float64 array) in floating ``dtype``, as float64.

    ``ulp(x) = 2**(max(floor(log2|x|), minexp - 1) - nmant)``; for 0 it is the smallest subnormal.
    """
    info = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    nmant = int(info.nmant)
    minexp = int(info.minexp)
    a = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(np.where(a > 0, e, minexp), minexp)
    return np.ldexp(1.0, (e - nmant).astype(np.int64))


def _smallest_normal(dtype: np.dtype) -> float:
    info = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    return float(info.tiny)


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`: ``ok``, the largest absolute error and the largest error in output ULPs
    (relative to the reference rounded to the output dtype), the index of the worst element (the first
    failing one when some fail), and ``bound``, the error accepted where the absolute error is largest."""

    ok: bool
    max_abs_err: float
    max_ulp_err: float
    worst_index: tuple[int, ...] | None
    detail: str
    #: the accepted error (``atol + rtol*|ref| + ulp/2``) at the element of the largest absolute error
    bound: float = 0.0


def compare(got: np.ndarray, ref: np.ndarray, atol: np.ndarray | float, rtol: np.ndarray | float) -> Comparison:
    """Checks ``|got - ref| <= atol + rtol*|ref| + ulp_out(ref)/2`` per element (NaN only where ref is NaN;
    an infinity only where ref, rounded to the output dtype, is the same infinity).

    ``ref`` is float64; ``got`` has the output dtype (FLOAT, FLOAT16, BF16 or an integer type). The half-ULP
    term is the unavoidable final rounding to the output dtype.
    """
    if got.shape != ref.shape:
        return Comparison(False, float("inf"), float("inf"), None, f"shape {got.shape} != reference {ref.shape}")
    if got.size == 0:
        return Comparison(True, 0.0, 0.0, None, "empty")
    g = got.astype(np.float64)
    r = np.asarray(ref, dtype=np.float64)
    floating = np.issubdtype(got.dtype, np.floating) or got.dtype == np.dtype(ml_dtypes.bfloat16)
    with np.errstate(over="ignore"):
        expected = r.astype(got.dtype).astype(np.float64) if floating else np.round(r)
    finite = np.where(np.isfinite(expected), expected, np.where(np.isfinite(r), r, 0.0))
    u = ulp(finite, got.dtype) if floating else np.ones_like(r)
    tiny_ulp = _smallest_normal(got.dtype) if floating else 1.0
    with np.errstate(invalid="ignore"):
        err = np.abs(g - r)
        bound = np.asarray(atol) + np.asarray(rtol) * np.abs(r) + (u / 2 if floating else 0.0)
        nan_ok = np.isnan(g) & np.isnan(r)
        # An infinity is right where the reference is infinite, or finite but rounds to it in the output dtype.
        inf_ok = np.isinf(g) & np.isinf(expected) & (np.sign(g) == np.sign(r))
        bad = ~(nan_ok | inf_ok | (err <= bound))
        # ULPs are counted at the smallest normal's spacing for subnormal references: the vector units do not
        # promise subnormal results, and a 0 where the exact value is 1e-40 is not 70000 "ULPs" wrong.
        u_report = np.where(np.abs(expected) < tiny_ulp, tiny_ulp, u) if floating else u
        ulp_err = np.where(nan_ok | inf_ok, 0.0, np.abs(g - expected) / u_report)
    shown_err = np.where(nan_ok | inf_ok, 0.0, np.where(np.isnan(err), np.inf, err))
    worst = np.unravel_index(int(np.argmax(shown_err)), shown_err.shape) if shown_err.ndim else ()
    max_abs = float(shown_err[worst])
    max_ulp = float(np.nanmax(ulp_err)) if ulp_err.size else 0.0
    full_bound = np.broadcast_to(bound, r.shape)
    bound_there = float(full_bound[worst])
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        return Comparison(
            False,
            max_abs,
            max_ulp,
            idx,
            f"{int(bad.sum())} of {bad.size} elements out of tolerance; first at {idx}: got {g[idx]!r}, "
            f"reference {r[idx]!r}, bound {float(full_bound[idx]):.3g}",
            bound_there,
        )
    return Comparison(True, max_abs, max_ulp, None, "", bound_there)
