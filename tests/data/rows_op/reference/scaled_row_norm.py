"""Reference of the test op ScaledRowNorm (float64): ``y = x * gamma / sqrt(mean(x**2) + epsilon)``, the mean
over the last ``gamma.ndim`` dims; epsilon as the kernel reads it (rounded to fp32)."""

from __future__ import annotations

import numpy as np


def reference(x: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6) -> np.ndarray:
    """The exact (float64) result; gamma has the shape of x's last gamma.ndim dims (any float dtypes)."""
    xv = np.asarray(x, np.float64)
    g = np.asarray(gamma, np.float64)
    axes = tuple(range(xv.ndim - g.ndim, xv.ndim))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ms = np.mean(xv * xv, axis=axes, keepdims=True) if xv.size else 0.0
        return xv * g / np.sqrt(ms + float(np.float32(epsilon)))


def tolerance(x: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: the fp32 sum of ``R`` squares is off by about ``R * 2**-24`` relative (half of it in
    the square root), a few roundings more: ``|y| * 2**-24 * (R / 2 + 16)``; rtol 0."""
    y = reference(x, gamma, epsilon)
    r = int(np.asarray(gamma).size)
    return np.nan_to_num(np.abs(y), nan=0.0, posinf=0.0) * 2.0**-24 * (r / 2 + 16), 0.0
