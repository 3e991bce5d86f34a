"""NumPy reference of aclnnHardtanhBackward, computed in float64.

``out = gradOutput where min < self < max, else 0`` over the broadcast shape (PyTorch's ``hardtanh_backward``
convention: the gradient is 0 at both boundaries and for a NaN ``self``). ``min`` and ``max`` are compared as
the fp32 values the kernel receives.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, min: float, max: float) -> np.ndarray:
    """The exact (float64) gradient; ``min`` and ``max`` are the aclnn parameter names (they shadow Python's
    built-ins inside this function only); shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    lo = float(np.float32(min))
    hi = float(np.float32(max))
    with np.errstate(invalid="ignore"):
        out = np.where((x > lo) & (x < hi), g, 0.0)
    return np.broadcast_to(out, shape).astype(np.float64)
