"""The value and status cases of an element scatter-add (``direction: scatter_add``) on one product.

Value cases, each run with the atomic strategy where the product allows it and again deterministically
(``ACL_OPT_DETERMINISTIC``; several cores, so every core order must give the same bits): every dtype along
the middle dim of ``[6, 10, 7]`` with an index of ``[6, 12, 7]`` (both ends of ``[0, A)`` and repeats) and a
larger src (the first dtype with every index dtype); dims 0 and -1 of a rank-4 self with a smaller index;
every position the same (all additions into one row); hostile index values (each index dtype's minimum and
maximum, -1, A, A + 1, 2**31, 2**32 + k), which must add nothing and never fault; 5000 index rows into 300
(several windows and tiles per core, every core); a 0-d self, index and src; an empty index (self copied to
out) and an empty self (nothing launched); a non-contiguous self and out. Values are small integers for the
integer dtypes (no sum wraps). Status cases: null pointers, the derived status matrix, src or out of another
dtype, out of another shape, ranks that differ, an index extent above src's or (outside dim) self's, dim out
of range. ``quick`` keeps one representative of each group.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, Case
from codegen.families.gather_scatter.cases.status import call_status_cases, status_case
from codegen.families.gather_scatter.cases.values import Maker, hostile_indices, key_pairs
from codegen.runner import numpy_dtype
from codegen.spec.model import DType


def _values(mk: Maker, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """Random values of ``dtype``: the Maker's for floats, small integers otherwise (sums of a few stay in
    range: [-10, 10], [0, 10] unsigned)."""
    if dtype.is_floating:
        return mk.source(shape, dtype)
    low = 0 if np.iinfo(numpy_dtype(dtype)).min == 0 else -10
    return mk.rng.integers(low, 11, shape).astype(numpy_dtype(dtype))


def _positions(mk: Maker, shape: tuple[int, ...], a: int, dtype: DType) -> np.ndarray:
    """An index of ``shape`` with values in ``[0, a)``, 0 and ``a - 1`` twice each among the first ones."""
    values = mk.rng.integers(0, a, shape).astype(np.int64)
    flat = values.reshape(-1)
    ends = [0, a - 1, a - 1, 0][: min(4, flat.size)]
    flat[: len(ends)] = ends
    return flat.reshape(shape).astype(numpy_dtype(dtype))


def _params(mk: Maker, self_: np.ndarray, idx: np.ndarray, src: np.ndarray, dim: int, out: Any = None) -> dict:
    c = mk.comp
    assert c.src is not None and c.dim is not None
    p: dict[str, Any] = {c.source: self_, c.index: idx, c.src: src, c.dim: dim}
    if out is not None:
        p[c.dest] = out
    return p


def scatter_value_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases of a scatter-add (see the module docstring)."""
    first = dtypes[0]
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]

    def calls(dt: str, self_: np.ndarray, idx: np.ndarray, src: np.ndarray, dim: int, name: str) -> Iterator[Case]:
        shape = f"{list(self_.shape)} by {list(idx.shape)}"
        params = _params(mk, self_, idx, src, dim)
        yield mk.case(dt, shape, name, params)
        yield mk.case(dt, shape, f"{name}, deterministic", dict(params), deterministic=True, tags=("multicore",))

    for dt, it in key_pairs(dtypes, index_dtypes, quick):
        idx = _positions(mk, (6, 12, 7), 10, it)
        src = _values(mk, (6, 13, 8), dt)
        yield from calls(f"{dt.name}/{it.name}", _values(mk, (6, 10, 7), dt), idx, src, 1, "dim 1, repeats, ends")
    shape4 = (3, 5, 4, 6)
    for dim in (0, -1) if not quick else (0,):
        axis = dim % 4
        idx_shape = tuple(max(1, e - 1) if i != axis else e + 3 for i, e in enumerate(shape4))
        idx = _positions(mk, idx_shape, shape4[axis], i64)
        yield from calls(
            first.name, _values(mk, shape4, first), idx, _values(mk, idx_shape, first), dim, f"dim {dim}, smaller"
        )
    zeros = np.zeros((40, 9), numpy_dtype(i64))
    yield from calls(first.name, _values(mk, (4, 9), first), zeros, _values(mk, (40, 9), first), 0, "all into row 0")
    for it in index_dtypes if not quick else [i64]:
        a = 5
        values = hostile_indices(a, it)
        idx = np.asarray([*values, 1, 2, a - 1], dtype=np.int64)
        idx = np.clip(idx, np.iinfo(numpy_dtype(it)).min, np.iinfo(numpy_dtype(it)).max).astype(numpy_dtype(it))
        idx2 = np.stack([idx, idx[::-1]], axis=1)  # [n, 2] along dim 0
        src = _values(mk, idx2.shape, first)
        yield from calls(
            f"{first.name}/{it.name}", _values(mk, (a, 2), first), idx2, src, 0, f"hostile indices {values}"
        )
    big = (5000, 20) if not quick else (1200, 20)
    idx = _positions(mk, big, 300, i64)
    yield from calls(first.name, _values(mk, (300, 20), first), idx, _values(mk, big, first), 0, "many rows, cores")
    zero_d = np.asarray(0, dtype=numpy_dtype(i64))
    yield from calls(first.name, _values(mk, (), first), zero_d, _values(mk, (), first), 0, "0-d self, index, src")
    self_ = _values(mk, (4, 5), first)
    empty = np.zeros((0, 5), numpy_dtype(i64))
    out = np.zeros((4, 5), numpy_dtype(first))
    yield mk.case(
        first.name,
        "[4, 5] by [0, 5]",
        "empty index: self copied",
        _params(mk, self_, empty, np.zeros((0, 5), numpy_dtype(first)), 0, out),
    )
    none = np.zeros((0, 5), numpy_dtype(first))
    yield mk.case(
        first.name, "[0, 5] by [0, 5]", "empty self: nothing launched", _params(mk, none, empty, none, 0, none.copy())
    )
    if not quick:
        self_t = np.asarray(_values(mk, (7, 6), first).T)  # [6, 7], strides reversed
        idx = _positions(mk, (5, 7), 6, i64)
        out_full = np.zeros((6, 14), numpy_dtype(first))
        params = _params(mk, self_t, idx, _values(mk, (5, 7), first), 0, out_full[:, ::2])
        yield mk.case(first.name, "[6, 7] by [5, 7]", "non-contiguous self and out", params)


def dtype_shape_dim_status_cases(
    mk: Maker, label: str, good: Any, dt: DType, src_shape: tuple[int, int]
) -> Iterator[Case]:
    """The status cases a scatter-add and its row form share, each 161002, on a call ``good(**over)`` of a
    ``[4, 6]`` self of dtype ``dt``: src (of ``src_shape``) or out of another dtype than self, an out of
    another shape (``[4, 5]``, ``[6]``), and a dim outside ``[-2, 2)`` (2, -3, ``2**40``)."""
    c = mk.comp
    assert c.src is not None and c.dim is not None
    status = partial(status_case, mk, label)
    other = next(d for d in (DType.INT32, DType.FLOAT) if d is not dt)
    for name, shape in ((c.src, src_shape), (c.dest, (4, 6))):
        yield status(
            f"{name} {other.name} (self {dt.name}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{name: np.zeros(shape, numpy_dtype(other))}),
        )
    for wrong in ((4, 5), (6,)):
        yield status(
            f"{c.dest} {list(wrong)} (want [4, 6]) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{c.dest: np.zeros(wrong, numpy_dtype(dt))}),
        )
    for dim in (2, -3, 2**40):
        yield status(f"dim {dim} of a rank-2 self -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.dim: dim}))


def scatter_status_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType]) -> Iterator[Case]:
    """The status cases of a scatter-add with the first dtype and INT64 indices (else the first)."""
    c = mk.comp
    assert c.src is not None and c.dim is not None
    dt = dtypes[0]
    it = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    label = f"{dt.name}/{it.name}"
    self_ = _values(mk, (4, 6), dt)
    idx = np.asarray([[1, 0, 3], [5, 5, 0]], dtype=numpy_dtype(it))
    src = _values(mk, (2, 4), dt)
    out = np.zeros((4, 6), numpy_dtype(dt))

    def good(**over: Any) -> dict[str, Any]:
        p = _params(mk, self_, idx, src, 1, out)
        p.update(over)
        return p

    status = partial(status_case, mk, label)
    one = _params(mk, _values(mk, (2, 3), dt), np.asarray([[1]], dtype=numpy_dtype(it)), _values(mk, (1, 1), dt), 0)
    one[c.dest] = np.zeros((2, 3), numpy_dtype(dt))
    yield from call_status_cases(mk, label, good, one, nullable=(c.source, c.index, c.src, c.dest))
    yield from dtype_shape_dim_status_cases(mk, label, good, dt, (2, 4))
    yield status(
        f"{c.index} rank 1, self rank 2 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.index: idx.reshape(-1)})
    )
    yield status(
        f"{c.src} [2, 2] below {c.index} [2, 3] -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.src: _values(mk, (2, 2), dt)}),
    )
    yield status(
        f"{c.index} [5, 3] outside dim 1 above self [4, 6] -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.index: np.zeros((5, 3), numpy_dtype(it)), c.src: _values(mk, (5, 4), dt)}),
    )
