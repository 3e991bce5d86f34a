"""NumPy reference of aclnnSmoothL1LossBackward, computed in float64.

``gradInput = clamp((self - target) / beta, -1, 1) * gradOut * norm`` over the broadcast shape, with
``norm = 1 / N`` for reduction 1 (mean; ``N`` = element count of the broadcast shape) and 1 otherwise. For
``beta == 0`` the spec's rule applies: the difference is multiplied by the largest finite float32 before the
clamp, which is ``sign(self - target)`` for every difference of at least 2**-128.
"""

from __future__ import annotations

import numpy as np

#: The host scalar 1/beta for beta == 0 (specs/smooth_l1_loss_backward.yaml): the largest finite float32.
FLT_MAX = float(np.finfo(np.float32).max)


def reference(gradOut: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int, beta: float) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: reduction not in {0, 1, 2}, beta negative or NaN, or shapes that do not broadcast.
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0, 1 or 2, got {reduction}")
    if not beta >= 0:
        raise ValueError(f"beta must be >= 0, got {beta}")
    g, x, t = (np.asarray(a, dtype=np.float64) for a in (gradOut, self, target))
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    n = int(np.prod(shape)) if shape else 1
    norm = 1.0 / n if reduction == 1 and n else 1.0
    inv_beta = 1.0 / beta if beta > 0 else FLT_MAX
    slope = np.clip((x - t) * inv_beta, -1.0, 1.0)
    return np.broadcast_to(slope * g * norm, shape).astype(np.float64)
