"""The value cases of a row gather on one product: every dim, rows of 1, 7, 8 and unaligned elements, rows
larger than a tile, tiles past DataCopyPad's block count, indices at both ends of the range, duplicates,
hostile index values, empty tensors, 0-d tensors, non-contiguous views and every dtype."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case, normal_array
from codegen.check.constraints import rejected_by
from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product


def hostile_indices(a: int, dtype: DType) -> list[int]:
    """Index values no kernel may turn into an address for an axis of extent ``a``, in ``dtype``'s range:
    its minimum and maximum, -1, ``a`` and ``a + 1``, and for INT64 ``2**31``, ``-2**31 - 1`` and ``2**32 +
    k`` (``k`` a valid position: a 32-bit truncation would make it valid), each beside the valid ends 0 and
    ``a - 1``."""
    info = np.iinfo(numpy_dtype(dtype))
    values = [int(info.min), int(info.max), -1, a, a + 1, 0, a - 1]
    if dtype is DType.INT64:
        values += [2**31, -(2**31) - 1, 2**32 + a // 2, 2**32]
    return [v for v in values if info.min <= v <= info.max]


class Maker:
    """The arrays and cases of one (spec, product)."""

    def __init__(self, spec: OpSpec, product: Product) -> None:
        comp = spec.compute
        assert isinstance(comp, GatherScatterCompute)
        self.spec, self.product, self.comp = spec, product, comp
        self.rng = np.random.default_rng(20261207)

    def source(self, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
        """Random values of ``dtype``: normal for floats, the whole range for integers (so a 64-bit element
        moved as two halves or a narrower word shows), 0/1 for BOOL."""
        if dtype is DType.BOOL:
            return self.rng.integers(0, 2, shape).astype(bool)
        if dtype.is_floating:
            return normal_array(self.rng, shape, dtype)
        info = np.iinfo(numpy_dtype(dtype))
        return self.rng.integers(int(info.min), int(info.max), shape, dtype=numpy_dtype(dtype), endpoint=True)

    def index(self, values: list[int] | np.ndarray, dtype: DType) -> np.ndarray:
        """``values`` as a 1-d index array of ``dtype``."""
        return np.asarray(values, dtype=np.int64).astype(numpy_dtype(dtype))

    def params(
        self, src: np.ndarray, idx: np.ndarray, dim: int | None, out: np.ndarray | None = None
    ) -> dict[str, Any]:
        """The call's parameters by the spec's names (``dim`` only for an attr dim, ``out`` only when given)."""
        p: dict[str, Any] = {self.comp.source: src, self.comp.index: idx}
        if self.comp.dim is not None:
            p[self.comp.dim] = dim
        if out is not None:
            p[self.comp.dest] = out
        return p

    def case(self, dtype: str, shape: str, name: str, params: dict[str, Any], **kw: Any) -> Case:
        """A value case."""
        return Case(self.spec.snake, self.product.name, dtype, shape, name, params, **kw)


def _ends_and_duplicates(a: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` positions in ``[0, a)``: both ends first, a repeated run, then random ones (with repeats)."""
    head = [0, a - 1, a - 1, 0]
    rest = rng.integers(0, a, max(k - len(head), 0))
    return np.concatenate([head, rest])[:k]


def key_pairs(dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> list[tuple[DType, DType]]:
    """The (source dtype, index dtype) pairs of the cases that launch each kernel branch: the tiling key is the
    source's byte width and the index dtype (:func:`codegen.families.gather_scatter.plan.tiling.tiling_key`), so
    the first dtype of each byte width goes with every index dtype, and (without ``quick``) every other dtype
    with INT64 (or the only index dtype). ``dtypes`` order."""
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    first_of_width: dict[int, DType] = {}
    for d in dtypes:
        first_of_width.setdefault(d.itemsize, d)
    pairs: list[tuple[DType, DType]] = []
    for dt in dtypes:
        if first_of_width[dt.itemsize] is dt:
            pairs += [(dt, it) for it in index_dtypes]
        elif not quick:
            pairs.append((dt, i64))
    return pairs


def value_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases (see the module docstring); ``quick`` keeps one representative of each group. A constant
    or flattened dim takes :func:`const_dim_cases` instead."""
    if mk.comp.dim is None:
        yield from const_dim_cases(mk, dtypes, index_dtypes, quick)
        return
    rng = mk.rng
    first = dtypes[0]
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    # every dtype (and, for the first, every index dtype): rows of 7 elements along the middle dim
    for dt, it in key_pairs(dtypes, index_dtypes, quick):
        src = mk.source((4, 10, 7), dt)
        idx = mk.index(_ends_and_duplicates(10, 9, rng), it)
        yield mk.case(f"{dt.name}/{it.name}", "[4, 10, 7]", "dim 1, ends and duplicates", mk.params(src, idx, 1))
    if quick:
        dtypes = [first]
    # every dim of a rank-4 source (negative and positive): rows of Q = product of the later dims
    shape4 = (3, 5, 4, 2)
    for dim in (0, 1, 2, 3, -1, -4) if not quick else (0, -1):
        a = shape4[dim]
        idx = mk.index(_ends_and_duplicates(a, 6, rng), i64)
        yield mk.case(first.name, str(list(shape4)), f"dim {dim}", mk.params(mk.source(shape4, first), idx, dim))
    # rows of 1, 7, 8 (one 32-byte block of FLOAT), 9 and 33 elements, in each byte width
    widths = {d.itemsize: d for d in dtypes}
    for q in (1, 7, 8, 9, 33) if not quick else (7,):
        for dt in widths.values():
            idx = mk.index(_ends_and_duplicates(6, 11, rng), i64)
            src = mk.source((2, 6, q), dt)
            yield mk.case(dt.name, f"[2, 6, {q}]", f"rows of {q} elements", mk.params(src, idx, 1))
    # all indices equal; reversed; sorted
    idx_all = mk.index([3] * 40, i64)
    yield mk.case(first.name, "[5, 6]", "all indices equal", mk.params(mk.source((5, 6), first), idx_all, 1))
    if not quick:
        idx_rev = mk.index(list(range(29, -1, -1)), i64)
        yield mk.case(first.name, "[30, 5]", "reversed", mk.params(mk.source((30, 5), first), idx_rev, 0))
    # hostile index values (each index dtype): zero rows, no access outside the tensors
    for it in index_dtypes:
        values = hostile_indices(5, it)
        for dt in widths.values() if not quick else [first]:
            src = mk.source((3, 5, 9), dt)
            yield mk.case(
                f"{dt.name}/{it.name}",
                "[3, 5, 9]",
                f"hostile indices {values}",
                mk.params(src, mk.index(values, it), 1),
            )
    # a tile of rows of one element past DataCopyPad's 4095 rows (several tiles per core, buffers reused)
    big_k = rng.integers(-2, 52, 5000)
    yield mk.case(
        first.name,
        "[3, 50]",
        "5000 rows of one element",
        mk.params(mk.source((3, 50), first), mk.index(big_k, i64), -1),
    )
    # rows larger than a tile: cut into chunks (the last one partial), with an invalid index among them
    q = mk.product.ub_bytes // (2 * first.itemsize) + 1000
    idx_chunk = mk.index([2, -1, 0, 2], i64)
    yield mk.case(
        first.name, f"[2, 3, {q}]", "rows cut into chunks", mk.params(mk.source((2, 3, q), first), idx_chunk, 1)
    )
    # many rows over every core
    if not quick:
        idx_many = mk.index(rng.integers(0, 300, 500), i64)
        src = mk.source((64, 300, 16), first)
        yield mk.case(first.name, "[64, 300, 16]", "rows over every core", mk.params(src, idx_many, 1))
    # 0-d tensors: a 0-d index (one position), a 0-d source with one index (valid and invalid)
    zero_d = np.asarray(2, dtype=numpy_dtype(i64))
    yield mk.case(first.name, "[5, 3]", "0-d index", mk.params(mk.source((5, 3), first), zero_d, 0))
    scalar = mk.source((), first)
    for v in (0, 7):
        yield mk.case(first.name, "[]", f"0-d self, index [{v}]", mk.params(scalar, mk.index([v], i64), 0))
    # empty tensors: an empty source or index launches nothing (out left as it is: zeros here)
    for shape, dim, k in (((0, 5), 1, 3), ((3, 0, 2), 1, 2), ((4, 5), 0, 0)):
        out_shape = list(shape)
        out_shape[dim] = k
        out = np.zeros(out_shape, numpy_dtype(first))
        idx_e = mk.index(list(range(k)), i64)
        yield mk.case(
            first.name,
            str(list(shape)),
            f"empty: dim {dim}, {k} indices",
            mk.params(mk.source(shape, first), idx_e, dim, out),
        )
    # non-contiguous views: a transposed source, an index taking every second element, a strided out
    if not quick:
        src_t = mk.source((7, 6), first).T  # [6, 7], strides reversed
        idx_s = mk.index([5, 0, 3, 3, 1, 2, 0, 4], i64)[::2]
        out_full = np.zeros((6, 8), numpy_dtype(first))
        yield mk.case(
            first.name,
            "[6, 7]",
            "non-contiguous self, index and out",
            mk.params(np.asarray(src_t), idx_s, 1, out_full[:, ::2]),
        )


def _table(mk: Maker, rows: int, q: int, dtype: DType) -> np.ndarray:
    """A source of ``rows`` rows of ``q`` elements along the constant dim: ``[rows, q]`` around dim 0 (a
    flattened source: ``[rows, q]`` too, read as ``rows * q`` one-element rows)."""
    return mk.source((rows, q), dtype)


def const_dim_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases of a constant dim (rows ``[A, Q]`` of a 2-d source around dim 0) or a flattened source
    (``A`` = its element count): every dtype with a 2-d index at both ends and repeated; a 0-d, a 1-d and a
    3-d index; rows of 1, 7, 8, 9 and 33 elements in every byte width; all indices equal; hostile index
    values in every byte width (zero rows, or wrapped where the spec wraps negatives); 5000 indices (tiles past
    DataCopyPad's block count); rows larger than a tile; rows over every core; empty sources and indices; a
    non-contiguous source, index and out. ``quick`` keeps one representative of each group."""
    rng = mk.rng
    comp = mk.comp
    first = dtypes[0]
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]

    def a_of(src: np.ndarray) -> int:
        return int(src.size) if comp.flatten else int(src.shape[comp.dim_const or 0])

    def call(dt: str, src: np.ndarray, idx: np.ndarray, name: str, out: np.ndarray | None = None) -> Case:
        return mk.case(dt, f"{list(src.shape)} by {list(idx.shape)}", name, mk.params(src, idx, None, out))

    for dt, it in key_pairs(dtypes, index_dtypes, quick):
        src = _table(mk, 10, 7, dt)
        a = a_of(src)
        idx = mk.index(_ends_and_duplicates(a, 12, rng), it).reshape(3, 4)
        yield call(f"{dt.name}/{it.name}", src, idx, "ends and duplicates")
    if quick:
        dtypes = [first]
    src = _table(mk, 6, 5, first)
    a = a_of(src)
    zero_d: np.ndarray = np.asarray(a - 1, dtype=numpy_dtype(i64))
    yield call(first.name, src, zero_d, "0-d index")
    if not quick:
        yield call(first.name, src, mk.index(_ends_and_duplicates(a, 24, rng), i64).reshape(2, 3, 4), "3-d index")
    widths = {d.itemsize: d for d in dtypes}
    for q in (1, 7, 8, 9, 33) if not quick else (7,):
        for dt in widths.values():
            src = _table(mk, 6, q, dt)
            idx = mk.index(_ends_and_duplicates(a_of(src), 11, rng), i64)
            yield call(dt.name, src, idx, f"rows of {q} elements")
    src = _table(mk, 5, 6, first)
    yield call(first.name, src, mk.index([3] * 40, i64), "all indices equal")
    for it in index_dtypes:
        for dt in widths.values() if not quick else [first]:
            src = _table(mk, 5, 9, dt)
            values = hostile_indices(a_of(src), it)
            if comp.negative == "wrap":
                values += [-a_of(src), -a_of(src) - 1]
            yield call(f"{dt.name}/{it.name}", src, mk.index(values, it), f"hostile indices {values}")
    src = _table(mk, 50, 1, first)
    big_a = a_of(src)
    yield call(first.name, src, mk.index(rng.integers(-2, big_a + 2, 5000), i64), "5000 rows")
    if not comp.flatten:
        q = mk.product.ub_bytes // (2 * first.itemsize) + 1000
        src = _table(mk, 3, q, first)
        yield call(first.name, src, mk.index([2, -1, 0, 2], i64), "rows cut into chunks")
    if not quick:
        src = _table(mk, 300, 16, first)
        yield call(first.name, src, mk.index(rng.integers(0, a_of(src), (20, 25)), i64), "rows over every core")
    # empty tensors: an empty source or index launches nothing (out left as it is: zeros here)
    for shape, index_shape in (((0, 5), (3,)), ((4, 5), (0,)), ((4, 5), (2, 0))):
        src = mk.source(shape, first)
        empty_idx: np.ndarray = mk.index(np.zeros(index_shape, dtype=np.int64), i64).reshape(index_shape)
        out = np.zeros(comp.out_shape(shape, index_shape), numpy_dtype(first))
        case = call(first.name, src, empty_idx, f"empty: {list(shape)} by {list(index_shape)}", out)
        refused = rejected_by(mk.spec, mk.product, case.params)  # a spec's limit may refuse it (Take: 161002)
        if refused is not None:
            case = dataclasses.replace(case, name=f"{case.name} -> {refused.status}", expect_status=refused.status)
        yield case
    if not quick:
        src_t = np.asarray(mk.source((7, 6), first).T)  # [6, 7], strides reversed
        a = a_of(src_t)
        idx_s = mk.index([a - 1, 0, 3, 3, 1, 2, 0, 4], i64)[::2]
        full = np.zeros((*comp.out_shape(src_t.shape, idx_s.shape)[:-1], 2 * 7), numpy_dtype(first))
        out_view = full[..., ::2] if not comp.flatten else np.zeros((8,), numpy_dtype(first))[::2]
        yield call(first.name, src_t, idx_s, "non-contiguous self, index and out", out_view)
