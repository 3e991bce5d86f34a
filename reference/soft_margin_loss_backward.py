"""NumPy reference of aclnnSoftMarginLossBackward, computed in float64.

``out = -target * gradOutput * sigmoid(-target * self) * norm`` over the broadcast shape, with
``norm = 1 / N`` for reduction 1 (mean; ``N`` = element count of the broadcast shape, as CANN) and 1
otherwise. The sigmoid is evaluated in the overflow-free form ``1 / (1 + exp(target * self))``.
"""

from __future__ import annotations

import numpy as np


def reference(gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: reduction not in {0, 1, 2} or shapes that do not broadcast.
    """
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0, 1 or 2, got {reduction}")
    g, x, t = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self, target))
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    n = int(np.prod(shape)) if shape else 1
    norm = 1.0 / n if reduction == 1 and n else 1.0
    with np.errstate(over="ignore"):
        sig = 1.0 / (1.0 + np.exp(t * x))
    return np.broadcast_to(-t * g * sig * norm, shape).astype(np.float64)


def tolerance(
    gradOutput: np.ndarray, self: np.ndarray, target: np.ndarray, reduction: int, compute_fp32: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``(atol, rtol)`` arrays for comparing an fp32-computed kernel with :func:`reference`.

    The kernel rounds ``t*x`` to fp32 before ``exp``: that relative error of ``|t*x| * 2**-24`` becomes a
    relative error of the same size in ``exp`` and in the result, on top of about 8 roundings of the other
    instructions. Results below the smallest normal fp32 get an absolute allowance (the kernel's
    ``1/(1+inf)`` is exactly 0 where the exact value is a denormal). Output-dtype rounding is added by the
    caller.
    """
    x = np.asarray(self, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    g = np.asarray(gradOutput, dtype=np.float64)
    eps = 2.0**-24
    tx = np.abs(t * x)
    rtol = eps * (8.0 + 2.0 * tx)
    atol = 2.0**-126 * (1.0 + np.abs(t * g)) * 4
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    return np.broadcast_to(atol, shape), np.broadcast_to(rtol, shape)
