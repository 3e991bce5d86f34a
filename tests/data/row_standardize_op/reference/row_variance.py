"""NumPy reference of the test op RowVariance, computed in float64: the biased variance of each row over the last
``len(normalizedShape)`` dims, those dims kept as 1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def reference(input: np.ndarray, normalizedShape: Sequence[int]) -> np.ndarray:
    """The exact (float64) variance of ``input`` (float32 or float16, rank >= len(normalizedShape)) over its
    last ``len(normalizedShape)`` dims, of ``input``'s shape with those dims 1."""
    x = np.asarray(input, dtype=np.float64)
    axes = tuple(range(x.ndim - len(normalizedShape), x.ndim))
    if not x.size:
        return np.zeros([1 if i in axes else d for i, d in enumerate(x.shape)])
    return x.var(axis=axes, keepdims=True)
