"""NumPy reference of aclnnHardswishBackward, computed in float64.

PyTorch's ``hardswish_backward`` branches (torch 2.13 CPU): ``0`` where ``self <= -3``, ``gradOutput`` where
``self >= 3``, ``gradOutput * (self / 3 + 0.5)`` in between; at ``self = ±3`` the outer pieces apply (CANN's
documented formula uses the middle piece there). A NaN ``self`` gives NaN (PyTorch's vectorized CPU path;
its scalar path, used for tensors shorter than one SIMD vector, returns ``gradOutput``).
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
        out = np.where(x <= -3.0, 0.0, np.where(x >= 3.0, g, g * (x / 3.0 + 0.5)))
    return np.broadcast_to(out, shape).astype(np.float64)
