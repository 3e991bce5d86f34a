"""NumPy reference of aclnnHardtanhBackward, computed in float64.

``out = gradOutput where min < self < max, else 0`` over the broadcast shape (PyTorch's ``hardtanh_backward``
convention: the gradient is 0 at both boundaries and for a NaN ``self``). ``min`` and ``max`` are compared as
the fp32 values the kernel receives.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, **bounds: Any) -> np.ndarray:
    """The exact (float64) gradient; ``bounds`` holds ``min`` and ``max`` (the aclnn parameter names, which
    shadow Python built-ins, hence keyword-only); shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
        KeyError: ``min`` or ``max`` missing.
    """
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    lo = float(np.float32(bounds["min"]))
    hi = float(np.float32(bounds["max"]))
    with np.errstate(invalid="ignore"):
        out = np.where((x > lo) & (x < hi), g, 0.0)
    return np.broadcast_to(out, shape).astype(np.float64)
