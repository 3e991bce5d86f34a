"""Reference of the test op AffineRowNorm (float64): ``y = (x - mean) / sqrt(var + epsilon) * weight + bias``,
the mean and the biased variance over the last ``len(normalizedShape)`` dims; epsilon as the kernel reads it
(fp32)."""

from __future__ import annotations

import numpy as np


def reference(
    x: np.ndarray,
    normalizedShape: tuple[int, ...],
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    epsilon: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray]:
    """The exact (float64) ``(y, meanOut)``; normalizedShape the sizes of x's reduced trailing dims, weight and
    bias of that shape (None: 1 and 0); meanOut is x's shape with those dims set to 1."""
    xv = np.asarray(x, np.float64)
    k = len(normalizedShape)
    row = xv.shape[xv.ndim - k :]
    w = np.ones(row) if weight is None else np.asarray(weight, np.float64)
    b = np.zeros(row) if bias is None else np.asarray(bias, np.float64)
    axes = tuple(range(xv.ndim - k, xv.ndim))
    mean_shape = xv.shape[: xv.ndim - k] + (1,) * k
    if xv.size == 0:
        return xv.copy(), np.zeros(mean_shape)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=axes, keepdims=True)
        v = np.mean((xv - m) ** 2, axis=axes, keepdims=True)
        return (xv - m) / np.sqrt(v + float(np.float32(epsilon))) * w + b, m


def tolerance(
    x: np.ndarray,
    normalizedShape: tuple[int, ...],
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    epsilon: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(atol of y, atol of meanOut, rtol)``: the fp32 sums of ``R`` terms are off by about ``R * 2**-24``
    relative to their terms' magnitudes, the centred value by the mean's error (``|x|`` scale): y within
    ``(|y| + |weight| * max|x| / std + |bias|) * 2**-24 * (R + 16)`` per element, the mean within
    ``max|x| * 2**-24 * (R + 16)``; rtol 0."""
    xv = np.asarray(x, np.float64)
    k = len(normalizedShape)
    row = xv.shape[xv.ndim - k :]
    w = np.ones(row) if weight is None else np.abs(np.asarray(weight, np.float64))
    b = np.zeros(row) if bias is None else np.abs(np.asarray(bias, np.float64))
    y, mean = reference(x, normalizedShape, weight, bias, epsilon)
    r = int(np.prod(row, dtype=np.int64))
    if xv.size == 0:
        return np.zeros_like(y), np.zeros_like(mean), 0.0
    axes = tuple(range(xv.ndim - k, xv.ndim))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=axes, keepdims=True)
        sd = np.sqrt(np.mean((xv - m) ** 2, axis=axes, keepdims=True) + float(np.float32(epsilon)))
        top = np.max(np.abs(xv), axis=axes, keepdims=True)
        scale = np.abs(y) + w * top / sd + b
    ulps = 2.0**-24 * (r + 16)
    return np.nan_to_num(scale, nan=0.0, posinf=0.0) * ulps, np.nan_to_num(top, nan=0.0, posinf=0.0) * ulps, 0.0
