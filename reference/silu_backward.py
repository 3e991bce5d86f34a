"""NumPy reference of aclnnSiluBackward, computed in float64.

``gradInput = gradOutput * s * (1 + self * (1 - s))`` with ``s = sigmoid(self)`` (PyTorch's
``silu_backward``), over the broadcast shape; ``sigmoid`` without overflow. At ``self = ±inf`` the derivative
is its limit (1 and 0; PyTorch: NaN from ``inf * 0``).
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
        s = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        d = np.where(np.isinf(x), np.where(x > 0, 1.0, 0.0), s * (1.0 + x * (1.0 - s)))
        out = g * d
    return np.broadcast_to(out, shape).astype(np.float64)
