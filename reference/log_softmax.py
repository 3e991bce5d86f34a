"""NumPy reference of aclnnLogSoftmax, computed in float64.

``out = self - m - log(sum(exp(self - m)))`` with ``m = max(self)`` along ``dim``; a row holding NaN or +inf,
or only -inf, is NaN; -inf elements of another row give -inf.
"""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, dim: int) -> np.ndarray:
    """The exact (float64) log-softmax of ``self`` (any float dtype, any shape) along ``dim``.

    Raises:
        numpy.exceptions.AxisError: ``dim`` out of range.
    """
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    if not v.size:
        return x.copy()
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.max(v, axis=dim, keepdims=True)
        out = v - m - np.log(np.sum(np.exp(v - m), axis=dim, keepdims=True))
    return out.reshape(x.shape)


def tolerance(self: np.ndarray, dim: int) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: the fp32 terms ``self``, ``m`` and ``log(s)`` each carry a rounding of their own size
    (``2**-24`` relative, ``log(s)`` about ``(R + 8) * 2**-24`` absolute), so atol is ``2**-22 * (|self| + |m|)
    + (R + 8) * 2**-24`` per element; rtol 0."""
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    r = v.shape[dim] if v.size else 1
    with np.errstate(invalid="ignore"):
        m = np.max(np.abs(np.nan_to_num(v, posinf=0, neginf=0)), axis=dim, keepdims=True) if v.size else v
        atol = 2.0**-22 * (np.abs(np.nan_to_num(v, posinf=0, neginf=0)) + m) + (r + 8) * 2.0**-24
    return atol.reshape(x.shape), 0.0
