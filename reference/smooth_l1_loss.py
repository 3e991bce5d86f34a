"""NumPy reference of aclnnSmoothL1Loss, computed in float64.

With ``d = |self - target|`` over the broadcast shape: ``loss = 0.5 * d ** 2 / beta`` where ``d < beta``,
else ``d - 0.5 * beta``; ``beta == 0`` gives ``d`` (PyTorch's l1 case, no division by zero). Reduction 0
(none) returns it, 1 (mean) its mean (NaN for an empty tensor, as PyTorch), 2 (sum) its sum (0 for an empty
tensor), both as a 0-d array.
"""

from __future__ import annotations

import numpy as np


def _reduce(loss: np.ndarray, reduction: int) -> np.ndarray:
    """``loss`` (float64, the broadcast shape) for reduction 0; its mean (1) or sum (2) as a 0-d array.

    The mean of an empty tensor is NaN (0 / 0), as PyTorch's; the sum of an empty tensor is 0.
    """
    if reduction == 0:
        return loss
    total = float(np.sum(loss, dtype=np.float64))
    if reduction == 2:
        return np.asarray(total, dtype=np.float64)
    return np.asarray(total / loss.size if loss.size else np.nan, dtype=np.float64)


def _check_reduction(reduction: int) -> None:
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0, 1 or 2, got {reduction}")


def reference(self: np.ndarray, target: np.ndarray, reduction: int, beta: float) -> np.ndarray:
    """The exact (float64) loss for inputs of any float dtype: the broadcast shape for reduction 0, else 0-d.

    Raises:
        ValueError: reduction not in {0, 1, 2}, beta negative (PyTorch refuses it too) or shapes that do not
            broadcast.
    """
    _check_reduction(reduction)
    if beta < 0:
        raise ValueError(f"beta must not be negative, got {beta}")
    x, t = (np.asarray(a, dtype=np.float64) for a in (self, target))
    shape = np.broadcast_shapes(x.shape, t.shape)
    d = np.abs(x - t)
    if beta == 0:
        loss = d
    else:
        with np.errstate(invalid="ignore"):
            loss = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(np.broadcast_to(loss, shape).astype(np.float64), reduction)
