"""NumPy reference of aclnnBinaryCrossEntropyBackward, computed in float64.

``out = gradOutput * weight * (self - target) / max(self * (1 - self), 1e-12) * norm`` in the shape of
``self``, with ``weight = 1`` when ``weightOptional`` is None and ``norm = 1 / N`` for reduction 1 (mean;
``N`` = element count of ``self``) and 1 otherwise.
"""

from __future__ import annotations

import numpy as np

#: Lower clamp of the denominator self * (1 - self), as PyTorch's binary_cross_entropy_backward.
EPSILON = 1e-12


def reference(
    gradOutput: np.ndarray,
    self: np.ndarray,
    target: np.ndarray,
    reduction: int,
    weightOptional: np.ndarray | None = None,
) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = the shape of ``self``.

    Raises:
        ValueError: reduction not in {0, 1, 2}, or an input that does not broadcast to ``self``.
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0, 1 or 2, got {reduction}")
    x = np.asarray(self, dtype=np.float64)
    g, t = (np.asarray(a, dtype=np.float64) for a in (gradOutput, target))
    w = np.ones(()) if weightOptional is None else np.asarray(weightOptional, dtype=np.float64)
    for other in (g, t, w):
        if np.broadcast_shapes(x.shape, other.shape) != x.shape:
            raise ValueError(f"shape {other.shape} does not broadcast to self's {x.shape}")
    n = x.size
    norm = 1.0 / n if reduction == 1 and n else 1.0
    grad = g * w * (x - t) / np.maximum(x * (1.0 - x), EPSILON) * norm
    return np.broadcast_to(grad, x.shape).astype(np.float64)
