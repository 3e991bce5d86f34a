"""NumPy reference of aclnnLeakyReluBackward, computed in float64.

PyTorch's ``leaky_relu_backward``: ``gradOutput`` where ``self > 0``, else ``gradOutput * negativeSlope``
(also for a NaN ``self``). ``negativeSlope`` is the fp32 value the kernel receives. ``selfIsResult`` does not
change the value (the sign of the forward result equals the sign of its input for a slope of 0 or more); a
negative slope with ``selfIsResult`` is an error.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, negativeSlope: float, selfIsResult: bool) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: ``selfIsResult`` with a negative ``negativeSlope``, or shapes that do not broadcast.
    """
    slope = float(np.float32(negativeSlope))
    if selfIsResult and slope < 0:
        raise ValueError(f"negativeSlope must be >= 0 when selfIsResult is true, got {negativeSlope}")
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.where(x > 0, g, g * slope)
    return np.broadcast_to(out, shape).astype(np.float64)
