"""NumPy reference of aclnnEluBackward, computed in float64.

PyTorch's ``elu_backward`` with ``x = selfOrResult``: ``gradOutput * scale`` where ``x > 0``; where ``x <= 0``,
``gradOutput * inputScale * (x + alpha * scale)`` when ``isResult`` (x is the forward result) and
``gradOutput * inputScale * alpha * scale * exp(x * inputScale)`` otherwise; a NaN ``x`` gives NaN (PyTorch's
vectorized CPU path). The three scalars are the fp32 values the kernel receives.
"""

from __future__ import annotations

import numpy as np


def reference(
    gradOutput: np.ndarray,
    alpha: float,
    scale: float,
    inputScale: float,
    isResult: bool,
    selfOrResult: np.ndarray,
) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: ``isResult`` with a negative ``alpha``, or shapes that do not broadcast.
    """
    a, s, i = (float(np.float32(v)) for v in (alpha, scale, inputScale))
    if isResult and a < 0:
        raise ValueError(f"alpha must be >= 0 when isResult is true, got {alpha}")
    g, x = (np.asarray(v, dtype=np.float64) for v in (gradOutput, selfOrResult))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        negative = g * i * (x + a * s) if isResult else g * i * a * s * np.exp(np.minimum(x, 0.0) * i)
        out = np.where(x > 0, g * s, negative)
    return np.broadcast_to(out, shape).astype(np.float64)
