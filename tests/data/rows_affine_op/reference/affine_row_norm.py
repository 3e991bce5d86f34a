"""Reference of the test op AffineRowNorm (float64): ``y = (x - mean) / sqrt(var + epsilon) * weight + bias``,
the mean and the biased variance over the last ``weight.ndim`` dims; epsilon as the kernel reads it (fp32)."""

from __future__ import annotations

import numpy as np


def reference(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, epsilon: float = 1e-5
) -> tuple[np.ndarray, np.ndarray]:
    """The exact (float64) ``(y, meanOut)``; weight and bias have the shape of x's last weight.ndim dims (bias
    None: 0); meanOut is x's shape with those dims set to 1."""
    xv = np.asarray(x, np.float64)
    w = np.asarray(weight, np.float64)
    b = np.zeros(w.shape) if bias is None else np.asarray(bias, np.float64)
    axes = tuple(range(xv.ndim - w.ndim, xv.ndim))
    mean_shape = xv.shape[: xv.ndim - w.ndim] + (1,) * w.ndim
    if xv.size == 0:
        return xv.copy(), np.zeros(mean_shape)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=axes, keepdims=True)
        v = np.mean((xv - m) ** 2, axis=axes, keepdims=True)
        return (xv - m) / np.sqrt(v + float(np.float32(epsilon))) * w + b, m


def tolerance(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, epsilon: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(atol of y, atol of meanOut, rtol)``: the fp32 sums of ``R`` terms are off by about ``R * 2**-24``
    relative to their terms' magnitudes, the centred value by the mean's error (``|x|`` scale): y within
    ``(|y| + |weight| * max|x| / std + |bias|) * 2**-24 * (R + 16)`` per element, the mean within
    ``max|x| * 2**-24 * (R + 16)``; rtol 0."""
    xv = np.asarray(x, np.float64)
    w = np.abs(np.asarray(weight, np.float64))
    b = np.zeros(w.shape) if bias is None else np.abs(np.asarray(bias, np.float64))
    y, mean = reference(x, weight, bias, epsilon)
    r = int(np.asarray(weight).size)
    if xv.size == 0:
        return np.zeros_like(y), np.zeros_like(mean), 0.0
    axes = tuple(range(xv.ndim - w.ndim, xv.ndim))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=axes, keepdims=True)
        sd = np.sqrt(np.mean((xv - m) ** 2, axis=axes, keepdims=True) + float(np.float32(epsilon)))
        top = np.max(np.abs(xv), axis=axes, keepdims=True)
        scale = np.abs(y) + w * top / sd + b
    ulps = 2.0**-24 * (r + 16)
    return np.nan_to_num(scale, nan=0.0, posinf=0.0) * ulps, np.nan_to_num(top, nan=0.0, posinf=0.0) * ulps, 0.0
