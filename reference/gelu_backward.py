"""NumPy reference of aclnnGeluBackward, computed in float64.

The exact (erf) GELU gradient, as CANN documents it and PyTorch computes it for ``approximate='none'``:
``gradInput = gradOutput * (0.5 * (1 + erf(self / sqrt(2))) + self * exp(-self**2 / 2) / sqrt(2 * pi))``.
At ``self = ±inf`` the derivative is its limit (1 and 0; PyTorch: NaN from ``inf * 0``).
"""

from __future__ import annotations

import math

import numpy as np

_ERF = np.frompyfunc(math.erf, 1, 1)


def gelu_erf_derivative(x: np.ndarray) -> np.ndarray:
    """``d/dx [x * Phi(x)]`` in float64 (``math.erf``, correctly rounded to about 1 ulp)."""
    cdf = 0.5 * (1.0 + np.asarray(_ERF(x * math.sqrt(0.5)), dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        return np.where(np.isinf(x), np.where(x > 0, 1.0, 0.0), cdf + x * pdf)


def reference(gradOutput: np.ndarray, self: np.ndarray) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        out = g * gelu_erf_derivative(x)
    return np.broadcast_to(out, shape).astype(np.float64)
