"""NumPy reference of aclnnSoftmaxBackward, computed in float64.

``gradInput = output * (gradOutput - sum(gradOutput * output))`` with the sum along ``dim``.
"""

from __future__ import annotations

import numpy as np


def _rows(a: np.ndarray) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    return x.reshape(1) if x.ndim == 0 else x


def reference(gradOutput: np.ndarray, output: np.ndarray, dim: int) -> np.ndarray:
    """The exact (float64) gradient; inputs of one shape (0-d as one element), any float dtype.

    Raises:
        numpy.exceptions.AxisError: ``dim`` out of range.
    """
    g, y = _rows(gradOutput), _rows(output)
    if not g.size:
        return np.zeros(np.shape(gradOutput))
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.sum(g * y, axis=dim, keepdims=True)
        out = y * (g - s)
    return out.reshape(np.shape(gradOutput))


def tolerance(gradOutput: np.ndarray, output: np.ndarray, dim: int) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: the fp32 sum of ``R`` products is off by about ``(R + 2) * 2**-24 * sum|g * y|``;
    the subtraction and the product add two roundings of ``|y| * (|g| + |s|)``; rtol 0."""
    g, y = _rows(gradOutput), _rows(output)
    if not g.size:
        return np.zeros(np.shape(gradOutput)), 0.0
    r = g.shape[dim]
    with np.errstate(invalid="ignore", over="ignore"):
        sa = np.sum(np.abs(g * y), axis=dim, keepdims=True)
        atol = np.abs(y) * ((r + 2) * 2.0**-24 * sa + 2.0**-22 * (np.abs(g) + sa))
    return np.nan_to_num(atol, nan=0.0, posinf=np.inf).reshape(np.shape(gradOutput)), 0.0
