"""NumPy reference of aclnnLogSoftmaxBackward, computed in float64.

``out = gradOutput - exp(output) * sum(gradOutput)`` with the sum along ``dim``.
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
        out = g - np.exp(y) * np.sum(g, axis=dim, keepdims=True)
    return out.reshape(np.shape(gradOutput))


def tolerance(gradOutput: np.ndarray, output: np.ndarray, dim: int) -> tuple[np.ndarray, float]:
    """``(atol, rtol)``: the fp32 sum of ``R`` terms is off by about ``(R + 2) * 2**-24 * sum|g|``, ``exp`` by a
    few ULPs, the product and the subtraction by one rounding each; rtol 0."""
    g, y = _rows(gradOutput), _rows(output)
    if not g.size:
        return np.zeros(np.shape(gradOutput)), 0.0
    r = g.shape[dim]
    with np.errstate(invalid="ignore", over="ignore"):
        sa = np.sum(np.abs(g), axis=dim, keepdims=True)
        e = np.exp(y)
        atol = e * (r + 8) * 2.0**-24 * sa + 2.0**-22 * (np.abs(g) + e * sa)
    return np.nan_to_num(atol, nan=0.0, posinf=np.inf).reshape(np.shape(gradOutput)), 0.0
