"""NumPy reference of aclnnTake, written from CANN's documentation (ops-nn index/gather_v2/docs/aclnnTake.md)
and, for negative indices, its L2 API (index/gather_v2/op_api/aclnn_take.cpp launches GatherV2 with
negative_index_support).

``self`` is read flattened (row-major, ``N = numel(self)`` elements); every element of ``index`` (any shape,
taken in order) picks one: ``out[k...] = self.flat[index[k...]]``, so out has index's shape. A value in
``[-N, 0)`` counts from the end (``index + N``), as CANN's code and ``torch.take`` do; the document allows
``[0, N)`` only and says nothing about other values; this project defines them: a zero.
"""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The picked elements of ``self``, exactly (float64: a gather rounds nothing; bool as 0/1).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes.
        index: integer array (INT32 or INT64) of any shape, 0-d included.

    Returns:
        float64 of ``index``'s shape.
    """
    flat = np.asarray(self).astype(np.float64).reshape(-1)
    n = flat.size
    idx = np.asarray(index).astype(np.int64)
    pos = np.where((idx < 0) & (idx >= -n), idx + n, idx)
    valid = (pos >= 0) & (pos < n)
    out = np.zeros(idx.shape, dtype=np.float64)
    out[valid] = flat[pos[valid]]
    return out


def tolerance(self: np.ndarray, index: np.ndarray) -> tuple[float, float]:
    """``(atol, rtol) = (0, 0)``: every element is a copy of one element of self (or a zero), so the output
    must equal the reference exactly."""
    return 0.0, 0.0
