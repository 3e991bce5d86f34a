"""NumPy reference of aclnnThresholdBackward, computed in float64.

``out = 0 where self <= threshold, else gradOutput`` over the broadcast shape (PyTorch's
``threshold_backward`` convention: a NaN ``self`` is not ``<= threshold``, so it passes ``gradOutput``).
``threshold`` is compared as the fp32 value the kernel receives (``aclScalar::ToFloat``). CANN's document
(aclnnThresholdBackward.md) gives the same formula for its integer dtypes (INT32, INT8, UINT8): an integer
``self`` is compared with that fp32 value exactly (float64 holds both), and the result is ``gradOutput``'s
integer or 0.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, threshold: float) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float or integer dtype; shape = broadcast shape.

    Raises:
        ValueError: shapes that do not broadcast.
    """
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    t = float(np.float32(threshold))
    with np.errstate(invalid="ignore"):
        out = np.where(x <= t, 0.0, g)
    return np.broadcast_to(out, shape).astype(np.float64)
