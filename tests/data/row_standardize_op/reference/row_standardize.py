"""NumPy reference of the test op RowStandardize, computed in float64: ``(x - m) / sqrt(v + eps)`` along ``dim``
with ``m`` the row's mean and ``v`` the mean of ``(x - m)**2``."""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, dim: int, eps: float = 1e-5) -> np.ndarray:
    """The exact (float64) standardization of ``self`` (float32, any shape; 0-d as one element) along ``dim``.

    Raises:
        numpy.exceptions.AxisError: ``dim`` out of range.
    """
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    if not v.size:
        return x.copy()
    m = v.mean(axis=dim, keepdims=True)
    var = ((v - m) ** 2).mean(axis=dim, keepdims=True)
    return ((v - m) / np.sqrt(var + eps)).reshape(x.shape)


def tolerance(self: np.ndarray, dim: int, eps: float = 1e-5) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: in fp32 the row's sum of ``R`` terms is off by about ``R * 2**-24`` of the sum of
    ``|x|``, so the mean by ``R * 2**-24 * mean(|x|)``, which ``x - m`` carries and the scale multiplies by
    ``rstd``; the variance's sum and the square root, reciprocal and product add about ``(R + 16) * 2**-24``
    of the result: atol ``= 2**-24 * (rstd * (R * mean(|x|) + |x - m|) + |out| * (R + 16))``; rtol 0."""
    x = np.asarray(self, dtype=np.float64)
    v = x.reshape(1) if x.ndim == 0 else x
    if not v.size:
        return np.zeros(x.shape), 0.0
    r = v.shape[dim]
    m = v.mean(axis=dim, keepdims=True)
    rstd = 1 / np.sqrt(((v - m) ** 2).mean(axis=dim, keepdims=True) + eps)
    out = (v - m) * rstd
    spread = np.abs(v).mean(axis=dim, keepdims=True)
    atol = 2.0**-24 * (rstd * (r * spread + np.abs(v - m)) + np.abs(out) * (r + 16))
    return atol.reshape(x.shape), 0.0
