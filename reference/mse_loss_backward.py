"""NumPy reference of aclnnMseLossBackward, computed in float64.

``out = 2 * (self - target) * gradOutput * norm`` over the broadcast shape, with ``norm = 1 / N`` for
reduction 1 (mean; ``N`` = element count of the broadcast shape) and 1 otherwise.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: reduction not in {0, 1, 2} or shapes that do not broadcast.
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0, 1 or 2, got {reduction}")
    g, x, t = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self, target))
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    n = int(np.prod(shape)) if shape else 1
    norm = 2.0 / n if reduction == 1 and n else 2.0
    return np.broadcast_to((x - t) * g * norm, shape).astype(np.float64)
