"""NumPy reference of aclnnHardsigmoidBackward, computed in float64.

PyTorch's ``hardsigmoid_backward`` branches: ``gradOutput / 6`` where ``-3 < self < 3``, else 0 (also for a
NaN ``self``).
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
    with np.errstate(invalid="ignore"):
        out = np.where((x > -3.0) & (x < 3.0), g / 6.0, 0.0)
    return np.broadcast_to(out, shape).astype(np.float64)
