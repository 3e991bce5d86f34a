"""NumPy reference of aclnnSigmoidBackward, computed in float64.

``gradInput = gradOutput * output * (1 - output)`` over the broadcast shape, where ``output`` is the
forward result ``sigmoid(x)``.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, output: np.ndarray) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    g, y = (np.asarray(a, dtype=np.float64) for a in (gradOutput, output))
    shape = np.broadcast_shapes(g.shape, y.shape)
    return np.broadcast_to(g * y * (1.0 - y), shape).astype(np.float64)
