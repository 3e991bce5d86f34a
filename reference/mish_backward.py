"""NumPy reference of aclnnMishBackward, computed in float64.

``gradInput = gradOutput * (t + self * sigmoid(self) * (1 - t**2))`` with ``t = tanh(softplus(self))``
(PyTorch's ``mish_backward``), over the broadcast shape. ``softplus(x) = max(x, 0) + log1p(exp(-|x|))`` and
``sigmoid`` are evaluated without overflow (PyTorch eager: ``log1p(exp(x))``, which is finite too, as
``tanh(inf) = 1``). At ``self = ±inf`` the derivative is its limit (1 and 0; PyTorch: NaN from ``inf * 0``).
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(-np.abs(x))
        softplus = np.maximum(x, 0.0) + np.log1p(e)
        t = np.tanh(softplus)
        s = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        d = np.where(np.isinf(x), np.where(x > 0, 1.0, 0.0), t + x * s * (1.0 - t * t))
        out = g * d
    return np.broadcast_to(out, shape).astype(np.float64)
