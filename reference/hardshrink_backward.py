"""NumPy reference of aclnnHardshrinkBackward, computed in float64.

PyTorch's ``hardshrink_backward``: ``gradOutput`` where ``self < -lambd`` or ``self > lambd``, else 0 (also
for a NaN ``self``). CANN documents that a negative ``lambd`` is used as 0: the zero band is then
``self == ±0`` (PyTorch: empty). ``lambd`` is the fp32 value the kernel receives.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, lambd: float) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    lam = max(float(np.float32(lambd)), 0.0)
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore"):
        out = np.where((x < -lam) | (x > lam), g, 0.0)
    return np.broadcast_to(out, shape).astype(np.float64)
