"""NumPy reference of aclnnIndexAdd, written from CANN's documentation (ops-nn
index/inplace_scatter_add/docs/aclnnIndexAdd.md) and PyTorch's ``Tensor.index_add`` definition.

``out = self``, then ``out[..., index[k], ...] += alpha * source[..., k, ...]`` along ``dim`` for every ``k``:
``index`` is 0-d or 1-d with ``K`` elements, ``source`` has self's rank and extents except ``K`` along ``dim``
(a 0-d tensor counts as rank 1, shape ``[1]``). Repeated positions add up. A value outside ``[0, A)`` (``A =
self.shape[dim]``) adds nothing (the document says nothing of such values; this project defines it). ``alpha``
is taken as self's dtype holds it (the op converts the aclScalar to self's dtype).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def alpha_value(alpha: Any, dtype: np.dtype) -> float:
    """``alpha`` as self's ``dtype`` holds it, as a float64: rounded to nearest for FLOAT16, BF16 and FLOAT;
    for the integer dtypes truncated toward zero, then wrapped to the dtype's width (two's complement, as a C
    integer conversion does). ``alpha`` may be a number or an object with a ``value`` (a
    :class:`codegen.runner.ScalarArg`)."""
    v = getattr(alpha, "value", alpha)
    dt = np.dtype(dtype)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        span = int(info.max) - int(info.min) + 1
        return float((int(np.trunc(float(v))) - int(info.min)) % span + int(info.min))
    return float(np.asarray(float(v), dtype=np.float64).astype(dt).astype(np.float64))


def _parts(
    self: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int, alpha: Any
) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """self as float64 of rank >= 1, the target coordinates of source's elements whose index is valid, their
    terms ``alpha * source`` and the terms' magnitudes (float64)."""
    base = np.asarray(self).astype(np.float64)
    base = base.reshape(base.shape or (1,))
    idx = np.asarray(index).astype(np.int64).reshape(-1)
    values = np.asarray(source).astype(np.float64)
    values = values.reshape(values.shape or (1,))
    axis = dim % base.ndim
    a = base.shape[axis]
    coords = list(np.indices(values.shape, sparse=False))
    positions = idx[coords[axis]] if idx.size else np.zeros(values.shape, np.int64)
    valid = (positions >= 0) & (positions < a)
    coords[axis] = positions
    targets = tuple(c[valid] for c in coords)
    terms = alpha_value(alpha, np.asarray(self).dtype) * values[valid]
    return base, targets, terms, np.abs(terms)


def reference(self: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int, alpha: Any) -> np.ndarray:
    """self with ``alpha * source``'s slices added at index's positions along ``dim``, exactly (float64;
    integer dtypes wrap when the comparison casts back, as the kernel's integer adds do).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes.
        index: INT32 or INT64, 0-d or 1-d, as many elements as ``source`` has along ``dim``.
        source: self's dtype and rank, self's extents outside ``dim``.
        dim: in ``[-rank, rank)``.
        alpha: a number (or ScalarArg), taken as self's dtype holds it.

    Returns:
        float64 of self's shape.
    """
    shape = np.asarray(self).shape
    base, targets, terms, _ = _parts(self, index, source, dim, alpha)
    out = base.copy()
    if terms.size:
        np.add.at(out, targets, terms)
    return out.reshape(shape)


def tolerance(
    self: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int, alpha: Any
) -> tuple[np.ndarray | float, float]:
    """``(atol, rtol)``: each out element is self plus its ``k`` terms, each a product rounded once, summed in
    some order in float32 (FLOAT; FLOAT16 and BF16 in float32 too when deterministic; atomic adds round each
    product and add to the dtype): the bound ``(k + 1) * u * (|self| + sum |terms|)`` with the unit roundoff
    ``u`` of the dtype (float32 2**-24, FLOAT16 2**-11, BF16 2**-8, which covers the float32 paths); integer
    dtypes are exact (0). The final rounding to the dtype is added by the comparison.

    Returns:
        ``atol`` float64 of self's shape (or 0.0 for integers) and ``rtol`` 0.0.
    """
    dt = np.asarray(self).dtype
    if dt.kind in "iub":
        return 0.0, 0.0
    u = 2.0**-24 if dt.itemsize >= 4 else (2.0**-11 if dt == np.float16 else 2.0**-8)
    shape = np.asarray(self).shape
    base, targets, _, mags = _parts(self, index, source, dim, alpha)
    mag = np.abs(base)
    count = np.zeros(base.shape)
    if mags.size:
        np.add.at(mag, targets, mags)
        np.add.at(count, targets, 1.0)
    return (u * (count + count.astype(bool)) * mag).reshape(shape), 0.0
