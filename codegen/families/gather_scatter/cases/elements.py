"""The value and status cases of an element gather (``direction: gather_elements``) on one product.

Value cases: every source dtype along the middle dim of ``[4, 10, 7]`` with an index of the source's shape
(the first dtype with every index dtype); every dim of a rank-4 source, positive and negative, with an index
smaller than the source in the other dims; an index longer than the source along dim (repeats); hostile index
values (each index dtype's minimum and maximum, -A - 1, A, 2**31, 2**32 + k) in every byte width, which must
give zeros and no emulator fault, and values in ``[-A, 0)`` wrapped; many elements over every core and
several tiles per core; a 0-d source and index; a rank-8 source; empty sources and indices (nothing
launched, out left as it is); a non-contiguous source, index and out. Status cases: null pointers, the
derived status matrix, an out of another dtype or shape, dim out of range, ranks that differ, an index
extent above the source's outside dim and a source with no element along dim. ``quick`` keeps one
representative of each group.
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


def _positions(mk: Maker, shape: tuple[int, ...], a: int, dtype: DType, low: int = 0) -> np.ndarray:
    """An index of ``shape`` with values in ``[low, a)``, both ends of ``[0, a)`` among the first ones."""
    values = mk.rng.integers(low, a, shape).astype(np.int64)
    flat = values.reshape(-1)
    flat[: min(2, flat.size)] = [0, a - 1][: min(2, flat.size)]
    return flat.reshape(shape).astype(numpy_dtype(dtype))


def elements_value_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases of an element gather (see the module docstring)."""
    first = dtypes[0]
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    wrap = mk.comp.negative == "wrap"
    low = -5 if wrap else 0  # wrapped negative positions among the valid ones

    def call(dt: str, src: np.ndarray, idx: np.ndarray, dim: int, name: str, out: np.ndarray | None = None) -> Case:
        return mk.case(dt, f"{list(src.shape)} by {list(idx.shape)}", name, mk.params(src, idx, dim, out))

    for dt, it in key_pairs(dtypes, index_dtypes, quick):
        src = mk.source((4, 10, 7), dt)
        yield call(f"{dt.name}/{it.name}", src, _positions(mk, (4, 10, 7), 10, it, low), 1, "dim 1, same shape")
    widths = {d.itemsize: d for d in (dtypes if not quick else dtypes[:1])}
    shape4 = (3, 5, 4, 6)
    for dim in (0, 1, 2, 3, -1, -4) if not quick else (0, -1):
        axis = dim % 4
        idx_shape = tuple(max(1, e - 1) if i != axis else e + 2 for i, e in enumerate(shape4))
        idx = _positions(mk, idx_shape, shape4[axis], i64, -shape4[axis] if wrap else 0)
        yield call(first.name, mk.source(shape4, first), idx, dim, f"dim {dim}, index smaller outside dim")
    for it in index_dtypes:
        for dt in widths.values():
            a = 5
            values = hostile_indices(a, it) + ([-a, -a - 1, -1] if wrap else [])
            idx = np.asarray(values + [0] * (-len(values) % 3), dtype=np.int64).reshape(-1, 3)
            idx = np.clip(idx, np.iinfo(numpy_dtype(it)).min, np.iinfo(numpy_dtype(it)).max).astype(numpy_dtype(it))
            src = mk.source((idx.shape[0] + 1, a), dt).T.copy()  # [a, rows]: dim 0 of extent a
            idx_t = np.ascontiguousarray(idx.T)  # [3, rows]
            yield call(f"{dt.name}/{it.name}", src, idx_t, 0, f"hostile indices {values}")
    # many elements: several tiles per core over every core (a tile holds a few thousand elements)
    big = (96, 5000) if not quick else (8, 4000)
    src = mk.source((big[0], big[1] + 3), first)
    yield call(first.name, src, _positions(mk, big, big[1] + 3, i64, low), -1, "several tiles per core")
    # 0-d source and index; a 1-d gather; a rank-8 source
    yield call(first.name, mk.source((), first), np.asarray(0, dtype=numpy_dtype(i64)), 0, "0-d self and index")
    yield call(first.name, mk.source((), first), np.asarray(-1, dtype=numpy_dtype(i64)), -1, "0-d, index -1")
    yield call(first.name, mk.source((9,), first), _positions(mk, (20,), 9, i64), 0, "1-d, repeats")
    if not quick:
        shape8 = (2, 1, 3, 2, 1, 2, 3, 2)
        idx8 = _positions(mk, (1, 1, 4, 2, 1, 1, 3, 2), 3, i64)
        yield call(first.name, mk.source(shape8, first), idx8, 2, "rank 8")
    # empty: an empty index (out empty too) and an empty self with an empty index launch nothing
    for shape, idx_shape, dim in (((4, 5), (0, 5), 0), ((0, 5), (0, 3), 1), ((4, 5), (4, 0), 1)):
        out = np.zeros(idx_shape, numpy_dtype(first))
        idx = np.zeros(idx_shape, numpy_dtype(i64))
        yield call(first.name, mk.source(shape, first), idx, dim, f"empty: index {list(idx_shape)}", out)
    if not quick:
        src_t = np.asarray(mk.source((7, 6), first).T)  # [6, 7], strides reversed
        idx_full = _positions(mk, (5, 14), 6, i64)
        idx_s = idx_full[:, ::2]  # [5, 7], every second column
        out_full = np.zeros((5, 14), numpy_dtype(first))
        yield call(first.name, src_t, idx_s, 0, "non-contiguous self, index and out", out_full[:, ::2])


def elements_status_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType]) -> Iterator[Case]:
    """The status cases of an element gather with the first source dtype and INT64 indices (else the first)."""
    c = mk.comp
    dim_name = c.dim
    assert dim_name is not None
    dt = dtypes[0]
    it = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    label = f"{dt.name}/{it.name}"
    src = mk.source((4, 6), dt)
    idx = np.asarray([[1, 0, 3], [5, 5, 0]], dtype=numpy_dtype(it))
    out = np.zeros((2, 3), numpy_dtype(dt))

    def good(**over: Any) -> dict[str, Any]:
        p = mk.params(src, idx, 1, out)
        p.update(over)
        return p

    status = partial(status_case, mk, label)
    one = mk.params(
        mk.source((2, 3), dt), np.asarray([[1]], dtype=numpy_dtype(it)), 0, np.zeros((1, 1), numpy_dtype(dt))
    )
    yield from call_status_cases(mk, label, good, one)
    other = next(d for d in (DType.INT32, DType.FLOAT) if d is not dt)
    yield status(
        f"{c.dest} {other.name} (self {dt.name}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.dest: np.zeros((2, 3), numpy_dtype(other))}),
    )
    for shape in ((2, 4), (3, 3), (2, 3, 1), (6,)):
        yield status(
            f"{c.dest} {list(shape)} (want [2, 3]) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{c.dest: np.zeros(shape, numpy_dtype(dt))}),
        )
    for dim in (2, -3, 2**40):
        yield status(f"dim {dim} of a rank-2 self -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{dim_name: dim}))
    flat = idx.reshape(-1)
    yield status(
        f"{c.index} rank 1, self rank 2 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.index: flat, c.dest: np.zeros(flat.shape, numpy_dtype(dt))}),
    )
    wide = np.zeros((2, 7), numpy_dtype(it))
    yield status(
        f"{c.index} [2, 7] outside dim 0 above self [4, 6] -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.index: wide, dim_name: 0, c.dest: np.zeros((2, 7), numpy_dtype(dt))}),
    )
    yield status(
        "self [4, 0] gathered along dim 1 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.source: mk.source((4, 0), dt), c.index: np.zeros((2, 3), numpy_dtype(it))}),
    )
