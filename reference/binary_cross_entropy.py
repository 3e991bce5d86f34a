"""NumPy reference of aclnnBinaryCrossEntropy, computed in float64.

``loss = -weight * (target * max(log(self), -100) + (1 - target) * max(log(1 - self), -100))`` in the shape
of ``self``: ``target`` has it; ``weight`` broadcasts to it as in PyTorch (1 when absent; CANN's document
lists weight with the shape of ``self``). The logs are clamped at -100 as PyTorch's binary_cross_entropy
does, so ``self`` of exactly 0 or 1 gives a finite loss; ``self`` outside [0, 1] gives NaN here (PyTorch
CPU raises instead; CANN's document requires values in [0, 1]). Reduction 0 (none) returns the loss,
1 (mean) its mean (NaN for an empty tensor, as PyTorch), 2 (sum) its sum (0 for an empty tensor), both as
a 0-d array.
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


#: Lower clamp of each log term, as PyTorch's binary_cross_entropy (aten/src/ATen/native/Loss.cpp).
LOG_FLOOR = -100.0


def reference(self: np.ndarray, target: np.ndarray, reduction: int, weight: np.ndarray | None = None) -> np.ndarray:
    """The exact (float64) loss for inputs of any float dtype: the shape of ``self`` for reduction 0, else 0-d.

    Raises:
        ValueError: reduction not in {0, 1, 2}, target not of self's shape, or weight not broadcasting to it.
    """
    _check_reduction(reduction)
    x, t = (np.asarray(a, dtype=np.float64) for a in (self, target))
    if t.shape != x.shape:
        raise ValueError(f"target's shape {t.shape} differs from self's {x.shape}")
    w = np.ones(()) if weight is None else np.asarray(weight, dtype=np.float64)
    try:
        fits = np.broadcast_shapes(x.shape, w.shape) == x.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"weight's shape {w.shape} does not broadcast to self's {x.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = np.maximum(np.log(x), LOG_FLOOR)
        log_1mx = np.maximum(np.log1p(-x), LOG_FLOOR)
        loss = -w * (t * log_x + (1.0 - t) * log_1mx)
    return _reduce(np.broadcast_to(loss, x.shape).astype(np.float64), reduction)
