"""NumPy reference of aclnnSoftplusBackward, computed in float64.

PyTorch's ``softplus_backward``: ``gradOutput`` where ``self * beta > threshold``, else
``gradOutput * sigmoid(self * beta)``. The branch is decided as the kernel decides it: ``self * beta`` rounded
to fp32 (``beta`` and ``threshold`` are fp32 host scalars), so the reference and the kernel take the same
branch at the boundary. ``sigmoid(z)`` is evaluated in a form that never overflows (PyTorch eager evaluates
``exp(z) / (exp(z) + 1)``, NaN once ``exp(z)`` overflows).
"""

from __future__ import annotations

import numpy as np


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-z))`` without overflow (float64)."""
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def reference(gradOutput: np.ndarray, self: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    b, t = float(np.float32(beta)), float(np.float32(threshold))
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        z32 = (x.astype(np.float32) * np.float32(b)).astype(np.float64)
        out = np.where(z32 > t, g, g * _sigmoid(x * b))
    return np.broadcast_to(out, shape).astype(np.float64)
