"""NumPy reference of aclnnIndexSelect, written from CANN's documentation (ops-nn
index/gather_v2/docs/aclnnIndexSelect.md).

With ``self`` viewed as ``[P, A, Q]`` around ``dim`` (``A = self.shape[dim]``; a 0-d self is one element and
takes ``dim`` 0 or -1) and the ``K`` values of ``index`` (0-d: one value), ``out[p, k, q] = self[p, index[k],
q]``: out has self's shape with dim's extent replaced by ``K`` (a 0-d self gives a 0-d out). The document
allows index values in ``[0, A)`` only and says nothing about others; this project defines them: a value
outside ``[0, A)`` gives a row of zeros.
"""

from __future__ import annotations

import numpy as np


def reference(self: np.ndarray, index: np.ndarray, dim: int) -> np.ndarray:
    """The selected rows of ``self``, exactly (float64: a gather rounds nothing; bool as 0/1).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes.
        index: 0-d or 1-d integer array (INT32 or INT64).
        dim: in ``[-max(rank, 1), max(rank, 1))``.

    Returns:
        float64, ``self.shape`` with ``shape[dim]`` replaced by ``index.size`` (0-d for a 0-d self).

    Raises:
        ValueError: ``dim`` out of range, or ``index`` of rank above 1.
    """
    src = np.asarray(self)
    idx = np.asarray(index).reshape(-1).astype(np.int64)
    if np.asarray(index).ndim > 1:
        raise ValueError(f"index must be 0-d or 1-d, got shape {list(np.shape(index))}")
    rank = max(src.ndim, 1)
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for rank {src.ndim}")
    view = src.reshape(1) if src.ndim == 0 else src
    axis = dim % rank
    a = view.shape[axis]
    p = int(np.prod(view.shape[:axis], dtype=np.int64))
    q = int(np.prod(view.shape[axis + 1 :], dtype=np.int64))
    rows = view.astype(np.float64).reshape(p, a, q)
    valid = (idx >= 0) & (idx < a)
    out = np.zeros((p, idx.size, q), dtype=np.float64)
    out[:, valid, :] = rows[:, idx[valid], :]
    if src.ndim == 0:
        return out.reshape(())
    shape = list(view.shape)
    shape[axis] = idx.size
    return out.reshape(shape)


def tolerance(self: np.ndarray, index: np.ndarray, dim: int) -> tuple[float, float]:
    """``(atol, rtol) = (0, 0)``: every element is a copy of one element of self (or a zero), so the output
    must equal the reference exactly."""
    return 0.0, 0.0
