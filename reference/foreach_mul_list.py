"""NumPy reference of aclnnForeachMulList, computed in float64: ``out[i] = x1[i] * x2[i]`` for every tensor of the
lists."""

from __future__ import annotations

import numpy as np


def reference(x1: list[np.ndarray], x2: list[np.ndarray]) -> list[np.ndarray]:
    """The exact (float64) element-wise product of each pair of tensors (arrays of a float dtype, ``x2[i]`` of
    ``x1[i]``'s shape; empty and 0-d ones included), one array per pair of its shape (IEEE rules for
    infinities, NaN and zeros)."""
    with np.errstate(all="ignore"):
        return [np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64) for a, b in zip(x1, x2, strict=True)]
