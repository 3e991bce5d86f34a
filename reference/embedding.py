"""NumPy reference of aclnnEmbedding, written from CANN's documentation (ops-nn
index/embedding/docs/aclnnEmbedding.md).

``weight`` is a table of ``num`` rows of ``D`` elements; every element of ``indices`` (any shape, taken in
order) picks a row: ``out[k..., :] = weight[indices[k...], :]``, so out has ``indices.shape + [D]``. The
document allows index values in ``[0, num)`` only (a negative one is "an error", one past the end gives
"random values", neither detectable before the launch); this project defines them: a value outside ``[0,
num)`` gives a row of zeros.
"""

from __future__ import annotations

import numpy as np


def reference(weight: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The picked rows of ``weight``, exactly (float64: a gather rounds nothing; bool as 0/1).

    Args:
        weight: 2-d ``[num, D]``, any of the op's dtypes.
        indices: integer array (INT32 or INT64) of any shape, 0-d included.

    Returns:
        float64 of shape ``indices.shape + (D,)``.

    Raises:
        ValueError: ``weight`` is not 2-d.
    """
    table = np.asarray(weight)
    if table.ndim != 2:
        raise ValueError(f"weight must be 2-d, got shape {list(table.shape)}")
    idx = np.asarray(indices).astype(np.int64)
    num, d = table.shape
    flat = idx.reshape(-1)
    valid = (flat >= 0) & (flat < num)
    out = np.zeros((flat.size, d), dtype=np.float64)
    out[valid] = table.astype(np.float64)[flat[valid]]
    return out.reshape((*idx.shape, d))


def tolerance(weight: np.ndarray, indices: np.ndarray) -> tuple[float, float]:
    """``(atol, rtol) = (0, 0)``: every element is a copy of one element of weight (or a zero), so the output
    must equal the reference exactly."""
    return 0.0, 0.0
