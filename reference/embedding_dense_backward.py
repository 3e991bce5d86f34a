"""NumPy reference of aclnnEmbeddingDenseBackward, accumulated in float64.

``out = zeros(numWeights, D)`` with ``D = grad.shape[-1]``; grad is viewed as ``[N, D]``, ``N`` the product
of its other axes, which equals ``indices.size``. Row ``i`` of grad is added to row ``indices.flat[i]`` of
out, except when that index is ``paddingIdx`` (the padding row stays exactly 0) or is not a valid row
(negative, ``>= numWeights``, NaN or infinite: such positions contribute nothing and are not counted). With
``scaleGradByFreq`` each contribution is divided by the number of occurrences of its index in the whole
flattened indices tensor. Floating indices are converted toward zero, BOOL indices read as 0/1.
``paddingIdx`` is a ``uint64_t`` in the C API: a value that is negative when read as ``int64_t`` (or a
negative Python int) means "no padding row".
"""

from __future__ import annotations

import numpy as np

#: Unit roundoff of fp32, the kernel's accumulation precision.
FP32_U = 2.0**-24


def _as_int64(value: int) -> int:
    """``value`` (a uint64 or a Python int) read as int64."""
    v = int(value) & ((1 << 64) - 1)
    return v - (1 << 64) if v >= (1 << 63) else v


def index_rows(indices: np.ndarray, numWeights: int) -> tuple[np.ndarray, np.ndarray]:
    """The output row each flat index selects, and whether it is a valid row.

    Args:
        indices: any shape; FLOAT16/FLOAT/DOUBLE (toward zero), any integer dtype, or bool (0/1).
        numWeights: number of output rows.

    Returns:
        ``(rows, valid)``: int64 and bool arrays of ``indices.size`` elements; ``rows`` is 0 where invalid.
    """
    flat = np.asarray(indices).reshape(-1)
    if flat.dtype == np.bool_:
        rows = flat.astype(np.int64)
        valid = rows < int(numWeights)  # True selects row 1, which exists only when numWeights > 1
        rows = np.where(valid, rows, 0)
    elif np.issubdtype(flat.dtype, np.floating):
        v = flat.astype(np.float64)
        with np.errstate(invalid="ignore"):
            t = np.trunc(v)
            valid = np.isfinite(t) & (t >= 0) & (t < float(numWeights))
        rows = np.where(valid, t, 0).astype(np.int64)
    else:
        if flat.dtype == np.uint64:
            # uint64 is not an index dtype of the API; read values >= 2**63 as invalid rather than wrap.
            big = flat >= np.uint64(1 << 63)
            rows = np.where(big, -1, flat.astype(np.int64, casting="unsafe"))
        else:
            rows = flat.astype(np.int64)
        valid = (rows >= 0) & (rows < int(numWeights))
        rows = np.where(valid, rows, 0)
    if int(numWeights) <= 0:
        valid = np.zeros(rows.shape, dtype=bool)
    return rows, valid


def _contributions(
    grad: np.ndarray, indices: np.ndarray, numWeights: int, paddingIdx: int, scaleGradByFreq: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, g, weights, counts)`` of the positions that contribute; ``g`` is float64 ``[n, D]``."""
    g = np.asarray(grad)
    if g.ndim < 1:
        raise ValueError(f"grad must have at least one axis, got shape {g.shape}")
    d = g.shape[-1]
    n = int(np.prod(g.shape[:-1], dtype=np.int64)) if g.ndim > 1 else 1
    idx = np.asarray(indices)
    if idx.size != n and n * d != 0:
        raise ValueError(f"grad {list(g.shape)} has {n} rows but indices {list(idx.shape)} has {idx.size} elements")
    if n * d == 0 or idx.size == 0:
        empty = np.zeros((0,), dtype=np.int64)
        return empty, np.zeros((0, d)), np.zeros((0,)), np.zeros((max(int(numWeights), 0),), dtype=np.int64)
    rows, valid = index_rows(idx, numWeights)
    counts = np.bincount(rows[valid], minlength=int(numWeights)).astype(np.int64)
    pad = _as_int64(paddingIdx)
    keep = valid & (rows != pad) if pad >= 0 else valid
    g64 = np.compress(keep, g.reshape(n, d), axis=0).astype(np.float64)  # the kept rows, converted exactly
    kept = rows[keep]
    weights = 1.0 / counts[kept] if scaleGradByFreq else np.ones(kept.shape)
    return kept, g64, weights, counts


class _Grouped:
    """The contributions of one call sorted by output row (stably, so each row keeps index order):
    ``values`` float64 ``[n, D]`` and ``weights`` ``[n]`` in that order, ``rows`` the distinct output rows
    and ``starts`` where each row's run begins; ``counts`` the occurrences of every row, ``terms`` the
    contributions each output row adds (float64 ``[num_rows]``)."""

    def __init__(
        self, grad: np.ndarray, indices: np.ndarray, numWeights: int, paddingIdx: int, scaleGradByFreq: bool
    ) -> None:
        rows, g, weights, self.counts = _contributions(grad, indices, numWeights, paddingIdx, scaleGradByFreq)
        self.num_rows = max(int(numWeights), 0)
        self.d = np.asarray(grad).shape[-1]
        self.terms = np.bincount(rows, minlength=self.num_rows).astype(np.float64)
        if rows.size == 0:
            self.rows, self.starts, self.values, self.weights = rows, rows, g, weights
            return
        # the stable order is unique; 16-bit keys (fewer than 2**16 rows) take NumPy's linear-time radix sort
        keys = rows.astype(np.uint16) if self.num_rows <= 1 << 16 else rows
        order = np.argsort(keys, kind="stable")
        sorted_rows = rows[order]
        self.starts = np.flatnonzero(np.r_[True, sorted_rows[1:] != sorted_rows[:-1]])
        self.rows = sorted_rows[self.starts]
        self.values = np.take(g, order, axis=0)
        self.weights = weights[order]

    def sums(self, values: np.ndarray) -> np.ndarray:
        """``out[r]`` = the sum, in index order, of the rows of ``values`` (in this object's sorted order)
        that row ``r`` receives; float64 ``[num_rows, D]``."""
        out = np.zeros((self.num_rows, self.d), dtype=np.float64)
        if self.rows.size:
            out[self.rows] = np.add.reduceat(values, self.starts, axis=0)
        return out


#: The last call's :class:`_Grouped` with the call it is of (its arrays held, so their ids stay theirs):
#: ``tolerance`` follows ``reference`` with the same read-only arrays in ``opgen check``, and shares it.
_LAST: list[tuple[tuple[object, ...], _Grouped]] = []


def _grouped(
    grad: np.ndarray, indices: np.ndarray, numWeights: int, paddingIdx: int, scaleGradByFreq: bool
) -> _Grouped:
    """:class:`_Grouped` of the call, reused from the previous call when it had the very same read-only
    arrays (a writeable array may have changed since) and the same scalars."""
    key = (grad, indices, int(numWeights), int(paddingIdx), bool(scaleGradByFreq))
    frozen = all(isinstance(a, np.ndarray) and not a.flags.writeable for a in (grad, indices))
    if frozen and _LAST:
        last, grouped = _LAST[0]
        if last[0] is grad and last[1] is indices and last[2:] == key[2:]:
            return grouped
    _LAST.clear()
    grouped = _Grouped(grad, indices, numWeights, paddingIdx, scaleGradByFreq)
    if frozen:
        _LAST.append((key, grouped))
    return grouped


def reference(
    grad: np.ndarray, indices: np.ndarray, numWeights: int, paddingIdx: int, scaleGradByFreq: bool
) -> np.ndarray:
    """The exact (float64) gradient of the embedding table.

    Args:
        grad: ``[..., D]``, rank >= 2 in the API (FLOAT, FLOAT16, BF16; any float dtype works here).
        indices: ``N = prod(grad.shape[:-1])`` elements, any shape, one of the nine index dtypes.
        numWeights: rows of out (>= 0).
        paddingIdx: the row that stays 0; negative as int64 means none.
        scaleGradByFreq: divide each contribution by the occurrence count of its index.

    Returns:
        float64 ``[numWeights, D]``.

    Raises:
        ValueError: indices does not have one element per row of grad.
    """
    grouped = _grouped(grad, indices, numWeights, paddingIdx, scaleGradByFreq)
    sums = grouped.sums(grouped.values)
    if scaleGradByFreq:
        # sum first, divide once (the kernel does the same; float64 makes the order irrelevant here)
        sums /= np.maximum(grouped.counts, 1).astype(np.float64)[:, None]
    return sums


def tolerance(
    grad: np.ndarray, indices: np.ndarray, numWeights: int, paddingIdx: int, scaleGradByFreq: bool
) -> tuple[np.ndarray, float]:
    """``(atol, rtol)`` for comparing the kernel's output with :func:`reference`.

    The kernel converts grad to fp32 exactly, adds the ``k`` contributions of each out element in fp32 in
    some order (any order in the atomic strategy), and with scaling multiplies the sum by
    ``fp32(1 / count)`` once. The classic bound of a recursive fp32 sum, ``(k - 1) * u * sum |x_i|``, plus
    two roundings of the scaling, gives ``atol = u * (k + 2) * sum |x_i| * w`` elementwise (``u = 2**-24``);
    rtol is 0. The final rounding to the dtype of out (half an output ULP) is added by the comparison.

    Returns:
        ``atol`` float64 ``[numWeights, D]`` and ``rtol`` 0.0.
    """
    grouped = _grouped(grad, indices, numWeights, paddingIdx, scaleGradByFreq)
    weighted = np.abs(grouped.values)
    weighted *= grouped.weights[:, None]
    sum_abs = grouped.sums(weighted)
    sum_abs *= FP32_U * (grouped.terms[:, None] + 2.0)  # (u * (k + 2)) * sum |x_i| w, in place
    return sum_abs, 0.0
