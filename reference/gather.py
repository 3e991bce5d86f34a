"""NumPy reference of aclnnGather, written from CANN's documentation (ops-nn
index/gather_elements_v2/docs/aclnnGather.md).

``out[i_0, ..., i_{n-1}] = self[i_0, ..., index[i_0, ..., i_{n-1}], ..., i_{n-1}]``, the index replacing the
coordinate of ``dim``: out has index's shape, self and index have the same rank (a 0-d tensor counts as rank
1) and every extent of index outside ``dim`` is at most self's. A value in ``[-A, 0)`` (``A =
self.shape[dim]``) counts from the end, as the document allows; the document says nothing of other values,
which this project defines as a zero.
"""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, index: np.ndarray, dim: int) -> np.ndarray:
    """The gathered elements of ``self``, exactly (float64: a gather rounds nothing; bool as 0/1).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes.
        index: integer array (INT32 or INT64) of self's rank (0-d counts as rank 1), extents outside ``dim`` at
            most self's.
        dim: in ``[-rank, rank)``.

    Returns:
        float64 of ``index``'s shape.
    """
    src = np.asarray(self).astype(np.float64)
    idx = np.asarray(index).astype(np.int64)
    out_shape = idx.shape
    src = src.reshape(src.shape or (1,))
    idx = idx.reshape(idx.shape or (1,))
    axis = dim % src.ndim
    a = src.shape[axis]
    pos = np.where((idx < 0) & (idx >= -a), idx + a, idx)
    valid = (pos >= 0) & (pos < a)
    coords = list(np.indices(idx.shape, sparse=False))
    coords[axis] = np.where(valid, pos, 0)
    out = np.zeros(idx.shape, dtype=np.float64)
    if src.size:
        picked = src[tuple(coords)]
        out = np.where(valid, picked, 0.0)
    return out.reshape(out_shape)


def tolerance(self: np.ndarray, index: np.ndarray, dim: int) -> tuple[float, float]:
    """``(atol, rtol) = (0, 0)``: every element is a copy of one element of self (or a zero), so the output
    must equal the reference exactly."""
    return 0.0, 0.0
