"""NumPy reference of aclnnSoftshrinkBackward, computed in float64.

PyTorch's ``softshrink_backward``: ``gradOutput`` where ``self < -lambd`` or ``self > lambd``, else 0 (also
for a NaN ``self``). ``lambd`` is the fp32 value the kernel receives; a negative ``lambd`` is an error.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, lambd: float) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: ``lambd`` negative, or shapes that do not broadcast.
    """
    lam = float(np.float32(lambd))
    if lam < 0:
        raise ValueError(f"lambd must be >= 0, got {lambd}")
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore"):
        out = np.where((x < -lam) | (x > lam), g, 0.0)
    return np.broadcast_to(out, shape).astype(np.float64)
