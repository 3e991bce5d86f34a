"""NumPy reference of aclnnSoftmax, computed in float64.

``out = exp(self - m) / sum(exp(self - m))`` with ``m = max(self)`` along ``dim`` (the max-subtracted form);
a row holding NaN or +inf, or only -inf, is NaN.
"""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, dim: int) -> np.ndarray:
    """The exact (float64) softmax of ``self`` (any float dtype, any shape; 0-d as one element) along ``dim``.

    Raises:
        numpy.exceptions.AxisError: ``dim`` out of range.
    """
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(v, axis=dim, keepdims=True) if v.size else v
        e = np.exp(v - m)
        out = e / np.sum(e, axis=dim, keepdims=True) if v.size else e
    return out.reshape(x.shape)


def tolerance(self: np.ndarray, dim: int) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: in fp32, ``self - m`` is rounded (relative ``2**-24``, so ``exp`` of it is off by
    ``2**-24 * |self - m|`` relative, plus a few ULPs of ``Exp`` itself), the sum of ``R`` terms by about
    ``R * 2**-24`` relative and the division by one rounding: atol ``= out * 2**-24 * (|self - m| + R + 16)``
    per element (0 where the reference is NaN), plus ``16 * 2**-149`` (where ``exp`` lands in fp32's
    subnormal range its error is absolute: a few ULPs of the smallest subnormal, not relative to the result;
    a product with a small UB gets the large-dynamic-range cases' rows on that path); rtol 0."""
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    out = reference(self, dim).reshape(v.shape)
    if not v.size:
        return np.zeros(x.shape), 0.0
    r = v.shape[dim]
    with np.errstate(invalid="ignore"):
        m = np.max(v, axis=dim, keepdims=True)
        spread = np.nan_to_num(np.abs(v - m), nan=0.0, posinf=0.0)
        atol = np.nan_to_num(np.abs(out), nan=0.0) * 2.0**-24 * (spread + r + 16) + 16 * 2.0**-149
    return atol.reshape(x.shape), 0.0
