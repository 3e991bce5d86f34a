"""NumPy reference of aclnnScatterAdd, written from CANN's documentation (ops-nn
index/scatter_add/docs/aclnnScatterAdd.md).

``out = self``, then ``out[c_0, ..., index[c], ..., c_{n-1}] += src[c]`` for every element ``c`` of index,
the index replacing the coordinate of ``dim``: self, index and src have one rank (a 0-d tensor counts as rank
1), index's extents are at most src's and, outside ``dim``, at most self's. A value outside ``[0, A)`` (``A =
self.shape[dim]``) adds nothing (the document says nothing of such values; this project defines it).
"""

from __future__ import annotations

import numpy as np


def _parts(
    self: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int
) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """self as float64 of rank >= 1, the target coordinates of index's valid elements, their src values and
    the mask of valid ones."""
    base = np.asarray(self).astype(np.float64)
    shape = base.shape
    base = base.reshape(shape or (1,))
    idx = np.asarray(index).astype(np.int64)
    idx = idx.reshape(idx.shape or (1,))
    values = np.asarray(src).astype(np.float64)
    values = values.reshape(values.shape or (1,))
    axis = dim % base.ndim
    a = base.shape[axis]
    valid = (idx >= 0) & (idx < a)
    coords = list(np.indices(idx.shape, sparse=False))
    picked = values[tuple(coords)] if idx.size else np.zeros(idx.shape)
    coords[axis] = idx
    targets = tuple(c[valid] for c in coords)
    return base, targets, picked[valid], valid


def reference(self: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int) -> np.ndarray:
    """self with src's elements added at index's positions, exactly (float64; integer dtypes wrap when the
    comparison casts back, as the kernel's integer adds do).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes.
        index: INT32 or INT64 of self's rank (0-d counts as rank 1), extents <= src's and (outside dim) self's.
        src: self's dtype and rank.
        dim: in ``[-rank, rank)``.

    Returns:
        float64 of self's shape.
    """
    shape = np.asarray(self).shape
    base, targets, values, _ = _parts(self, index, src, dim)
    out = base.copy()
    if values.size:
        np.add.at(out, targets, values)
    return out.reshape(shape)


def tolerance(self: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int) -> tuple[np.ndarray | float, float]:
    """``(atol, rtol)``: each out element is self plus its ``k`` terms summed in float32 (FLOAT; FLOAT16 and
    BF16 in float32 too when deterministic, rounded once; atomic adds in the dtype round each add) in some
    order: the recursive-sum bound ``k * u * (|self| + sum |terms|)`` with the unit roundoff ``u`` of the
    dtype summed in (float32, 2**-24, or for FLOAT16/BF16 their own, which covers the atomic per-add
    rounding); integer dtypes are exact (0). The final rounding to the dtype is added by the comparison.

    Returns:
        ``atol`` float64 of self's shape (or 0.0 for integers) and ``rtol`` 0.0.
    """
    dt = np.asarray(self).dtype
    if dt.kind in "iub":
        return 0.0, 0.0
    u = 2.0**-24 if dt.itemsize >= 4 else (2.0**-11 if dt == np.float16 else 2.0**-8)
    shape = np.asarray(self).shape
    base, targets, values, _ = _parts(self, index, src, dim)
    mag = np.abs(base)
    count = np.zeros(base.shape)
    if values.size:
        np.add.at(mag, targets, np.abs(values))
        np.add.at(count, targets, 1.0)
    return (u * count * mag).reshape(shape), 0.0
