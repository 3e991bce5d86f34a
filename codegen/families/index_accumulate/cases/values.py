"""The value cases of an index-accumulate op in one strategy: dtypes, index ranges, D values, ranks,
duplication, padding, scaling, views, empty inputs, invalid indices, output dtypes and core splits."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from codegen.check.cases import Case
from codegen.families.index_accumulate.cases.limits import accepted, limit_value_cases
from codegen.families.index_accumulate.cases.maker import NO_PADDING, CaseMaker, counted_minimum, dtype_label
from codegen.families.index_accumulate.cases.sorted_runs import (
    SORTED_CASE_ROWS,
    index_key_sorted_cases,
    small_dim_sorted_cases,
    sorted_run_indices,
    vector_sort_cases,
)
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.runner import numpy_dtype
from codegen.spec.model import DType


def value_cases(
    mk: CaseMaker, grads: list[DType], rows_all: list[DType], idx_all: list[DType], det: bool, quick: bool
) -> Iterator[Case]:
    """The value cases of every rows dtype of ``grads`` in the atomic (``det`` False) or deterministic strategy;
    ``rows_all`` and ``idx_all`` are the rows and index dtypes the product supports (output dtypes and index
    dtypes to cover); ``quick`` keeps one representative of each group."""
    spec, product = mk.spec, mk.product
    i64 = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    for g in grads:
        # Every index dtype (D = 17: accumulator in the workspace; scaling and a padding row in use): with the
        # rows dtype and the strategy, the index dtype picks the kernel's tiling key, so the quick matrix runs
        # them all too (a small case each).
        for i in idx_all:
            w = 3 if i is DType.BOOL else 10
            n = 37
            p = mk.params(mk.grad((n, 17), g), mk.indices((n,), i, w), w, padding=1, scaling=True)
            yield mk.case(dtype_label(g, i), "[37, 17]", f"{i.name} indices, padding 1, scaling", p, det)
            if not quick:
                p = mk.params(mk.grad((n, 16), g), mk.indices((n,), i, w), w)
                yield mk.case(dtype_label(g, i), "[37, 16]", f"{i.name} indices, D 16 (output accumulates)", p, det)
        # Every integer index dtype across its range: its least and greatest values, -1, values a read of a
        # narrower width would take for a valid row (2**w + 7: row 7) and, for an unsigned dtype, a valid row
        # with the sign bit set, which a signed read would drop. 300 rows hold them (UINT8's 255 is one).
        if not quick or g is grads[0]:
            for i in [d for d in idx_all if d.is_integer]:
                idx = _range_indices(mk, i, RANGE_CASE_ROWS)
                p = mk.params(mk.grad((idx.size, 5), g), idx, RANGE_CASE_ROWS, padding=1, scaling=True)
                name = f"{i.name} indices across the dtype's range, {RANGE_CASE_ROWS} rows"
                yield mk.case(dtype_label(g, i), f"[{idx.size}, 5]", name, p, det)
        # The documented D values and the UB chunk boundary of this dtype.
        d_max = tiling_decision(spec, product, (4, 1), 4, g, i64, det).d_chunk_max
        dims = [1, 7, 8, 16, d_max - 1, d_max, d_max + 1, 100_003, 1_000_000]
        if quick:
            dims = [1, 7, d_max + 1, 100_003]
        for d in dims:
            n = 3 if d >= 1_000_000 else 6 if d > 1000 else 40
            grad, idx = mk.grad((n, d), g), mk.indices((n,), i64, 5)
            # scaling on odd D, unless a product limit forbids it for this D (e.g. the Atlas training bound)
            scaling = d % 2 == 1 and accepted(mk, grad, idx, mk.params(grad, idx, 5, padding=2, scaling=True))
            p = mk.params(grad, idx, 5, padding=2, scaling=scaling)
            yield mk.case(dtype_label(g, i64), f"[{n}, {d}]", f"D {d}", p, det)
        # Few rows and a large D: the cores split D into slices (whole 32-byte blocks; D odd leaves a partial
        # last block). Twelve indices into two rows plus an out-of-range one: every core still writes.
        d = 65_539
        grad = mk.grad((12, d), g)
        idx = np.array([1, 0, 1, 1, 0, 2, 1, 0, 0, 1, 1, 0], dtype=numpy_dtype(i64))
        scaling = accepted(mk, grad, idx, mk.params(grad, idx, 2, scaling=True))
        p = mk.params(grad, idx, 2, scaling=scaling)
        yield mk.case(
            dtype_label(g, i64), f"[12, {d}]", f"2 rows, D {d} split over the cores", p, det, tags=("multicore",)
        )
        # Ranks of grad (2-8) and of indices (1-8).
        ranks = range(2, 9) if not quick else [8]
        for r in ranks:
            shape = (2,) * (r - 1) + (9,)
            n = int(np.prod(shape[:-1]))
            p = mk.params(mk.grad(shape, g), mk.indices((n,), i64, 6), 6, scaling=True)
            yield mk.case(dtype_label(g, i64), str(list(shape)), f"grad rank {r}", p, det)
        for r in range(1, 9) if not quick else [8]:
            ishape = (2,) * r
            n = int(np.prod(ishape))
            p = mk.params(mk.grad((n, 5), g), mk.indices(ishape, i64, 6), 6, padding=0)
            yield mk.case(dtype_label(g, i64), str(list(ishape)), f"indices rank {r}", p, det)
        # Heavy duplication: all indices equal, N = 4096.
        p = mk.params(mk.grad((4096, 8), g), np.full((4096,), 5, np.int64), 10)
        yield mk.case(dtype_label(g, DType.INT64), "[4096, 8]", "all 4096 indices equal", p, det, tags=("multicore",))
        p = mk.params(mk.grad((64, 64, 3), g), np.full((64, 64), 2, np.int32), 4, scaling=True)
        yield mk.case(dtype_label(g, DType.INT32), "[64, 64, 3]", "all 4096 indices equal, scaling", p, det)
        # The padding row used >= 1000 times, with and without scaling.
        for scaling in (False, True):
            idx = mk.indices((1500,), i64, 8)
            idx[mk.rng.permutation(1500)[:1200]] = 3
            p = mk.params(mk.grad((1500, 12), g), idx, 8, padding=3, scaling=scaling)
            yield mk.case(dtype_label(g, i64), "[1500, 12]", f"padding row used 1200 times, scaling {scaling}", p, det)
        # The sorted-run strategy with every index dtype the sized sorted cases below leave out (INT64 of every
        # rows dtype but the first under quick): a tiling key each.
        sized_here = not quick or g is grads[0]
        yield from index_key_sorted_cases(mk, g, idx_all, i64 if sized_here else None, det)
        if quick and g is not grads[0]:
            continue
        # Scaling without a padding row (paddingIdx negative as int64, and one past the last row).
        for pad, what in ((NO_PADDING, "paddingIdx -1"), (2**63, "paddingIdx 2^63"), (10, "paddingIdx = numWeights")):
            p = mk.params(mk.grad((50, 10), g), mk.indices((50,), i64, 10), 10, padding=pad, scaling=True)
            yield mk.case(dtype_label(g, i64), "[50, 10]", f"scaling, no padding row ({what})", p, det)
        # Non-contiguous grad, indices and output.
        base = mk.grad((30, 2, 11), g)
        grad_nc = base[:, 1, :]
        idx_nc = mk.indices((60,), i64, 7)[::2]
        out_store = np.zeros((7, 22), dtype=numpy_dtype(g))
        p = mk.params(grad_nc, idx_nc, 7, padding=4, scaling=True, out=out_store[:, ::2])
        yield mk.case(dtype_label(g, i64), "[30, 11]", "non-contiguous grad, indices and out", p, det)
        p = mk.params(mk.grad((9, 20), g).T, mk.indices((20,), i64, 4), 4)
        yield mk.case(dtype_label(g, i64), "[20, 9]", "transposed grad", p, det)
        # Empty inputs and zero output rows.
        p = mk.params(mk.grad((0, 5), g), np.zeros((0,), np.int64), 6, padding=1, scaling=True)
        yield mk.case(dtype_label(g, DType.INT64), "[0, 5]", "empty grad and indices -> zeros", p, det)
        p = mk.params(mk.grad((3, 0, 5), g), np.zeros((3, 0), np.int32), 4)
        yield mk.case(dtype_label(g, DType.INT32), "[3, 0, 5]", "empty grad rows -> zeros", p, det)
        p = mk.params(mk.grad((4, 6), g), mk.indices((4,), i64, 3), 0)
        yield mk.case(dtype_label(g, i64), "[4, 6]", "numWeights 0 -> [0, D]", p, det)
        p = mk.params(mk.grad((4, 0), g), mk.indices((4,), i64, 3), 3)
        yield mk.case(dtype_label(g, i64), "[4, 0]", "D 0 -> [numWeights, 0]", p, det)
        # Invalid indices: out of range, NaN, infinities (they contribute nothing and are not counted).
        bad = np.array([0, -1, 5, 6, 1e30, -1e30, np.nan, np.inf, -np.inf, -0.7, 4.99, 2, 2, 65504, -0.0, 1])
        for i in [d for d in idx_all if d.is_floating]:
            with np.errstate(over="ignore"):  # 1e30 becomes inf in FLOAT16 on purpose
                as_index = bad.astype(numpy_dtype(i))
            p = mk.params(mk.grad((bad.size, 9), g), as_index, 5, padding=2, scaling=True)
            yield mk.case(dtype_label(g, i), f"[{bad.size}, 9]", f"{i.name} NaN/inf/out-of-range indices", p, det)
        ints = np.array([0, -1, 5, 2**40, -(2**40), 4, 2**62, -(2**63), 3, 3], dtype=np.int64)
        p = mk.params(mk.grad((ints.size, 9), g), ints, 5, scaling=True)
        yield mk.case(dtype_label(g, DType.INT64), f"[{ints.size}, 9]", "INT64 out-of-range indices", p, det)
        # Output dtype different from grad's (rounded once).
        for o in rows_all:
            if o is g:
                continue
            out = np.zeros((9, 13), dtype=numpy_dtype(o))
            p = mk.params(
                mk.grad((80, 13), g, scale=3.0), mk.indices((80,), i64, 9), 9, padding=0, scaling=True, out=out
            )
            yield mk.case(f"{g.name}->{o.name}", "[80, 13]", f"out {o.name}", p, det)
        # Few rows x a tiny D x many indices: rows x D-slices reach too few cores, so the deterministic kernel
        # adds index groups (partials in the workspace, merged by the owners in group order).
        if det:
            n = 20_003
            p = mk.params(mk.grad((n, 8), g), mk.indices((n,), i64, 2), 2, padding=1, scaling=True)
            yield mk.case(
                dtype_label(g, i64), f"[{n}, 8]", "2 rows, D 8, many indices: index groups", p, det, tags=("multicore",)
            )
        # Many rows over many cores; fewer rows than cores.
        if not quick:
            n = 20_000
            p = mk.params(mk.grad((n, 8), g), mk.indices((n,), i64, 5000), 5000, padding=17, scaling=True)
            yield mk.case(dtype_label(g, i64), f"[{n}, 8]", "5000 rows over the cores", p, det)
            p = mk.params(mk.grad((300, 40), g), mk.indices((300,), i64, 3), 3, scaling=True)
            yield mk.case(dtype_label(g, i64), "[300, 40]", "3 rows, fewer than cores", p, det)
        # The sorted-run strategy at the fewest indices the tiling takes it with on every core of the product
        # (each core's index range fills its bucket staging slots: sorted_run_indices): padding and invalid
        # indices, scaling; in atomic mode buckets cross core boundaries (summed by two cores, added
        # atomically). Without DataCopyPad it needs rows of whole 32-byte blocks (and pads the sorted pairs to
        # whole blocks); without hardware SyncAll it runs the software SyncAll on the counters output.
        # The sorted strategies' determinism cases (seven runs of some 10^5 indices) are the first grad dtype's:
        # which core sums which bucket, and in what order, comes from the tiling whatever the dtype, and every
        # deterministic value case is also compared bit for bit between its in_order and reversed runs.
        probe: tuple[str, ...] = ("multicore",) if g is grads[0] else ()
        if g is grads[0] or not quick:
            w = SORTED_CASE_ROWS
            d = 4 if product.data_copy_pad else 32 // g.itemsize
            least = counted_minimum(w)
            sized = sorted_run_indices(spec, product, (d,), w, g, i64, det, padding=17, scale=True, at_least=least)
            if sized is not None:  # None: the product's tiling never takes the strategy for these rows
                p = mk.params(mk.grad((sized, d), g), mk.counted_indices(sized, i64, w), w, padding=17, scaling=True)
                name = f"sorted-run strategy, {w} rows"
                yield mk.case(dtype_label(g, i64), f"[{sized}, {d}]", name, p, det, tags=probe)
        # The sorted-run strategy's small-dim variant (records of the row key and its values; sized below).
        if g is grads[0] or not quick:
            yield from small_dim_sorted_cases(mk, g, i64, det, quick, probe)
            # phases 1-2 on the vector sort (products with it; sized below)
            yield from vector_sort_cases(mk, g, idx_all, det, quick, probe)
        # Product limits at their boundary: the largest passing value must work.
        yield from limit_value_cases(mk, g, idx_all, det)


#: Output rows of the index-range cases: more than UINT8's greatest value (every UINT8 index is a valid row).
RANGE_CASE_ROWS = 300


def _range_indices(mk: CaseMaker, dtype: DType, num_rows: int) -> np.ndarray:
    """64 indices of the integer ``dtype``: its least and greatest values, 0, 1 and (signed) -1 and -2; for
    every narrower width w of 8, 16 and 32 bits, 2**w + 7 (a valid row when below ``num_rows``, else an
    invalid one that a w-bit read turns into row 7); for an unsigned dtype 2**(bits - 1) + 3 (its sign bit
    set: a signed read makes it negative); the rest random rows, a few just outside ``[0, num_rows)``."""
    info = np.iinfo(numpy_dtype(dtype))
    special = [int(info.min), int(info.max), 0, 1]
    if info.min < 0:
        special += [-1, -2]
    special += [(1 << w) + 7 for w in (8, 16, 32) if w < info.bits]
    if info.min == 0:
        special.append((1 << (info.bits - 1)) + 3)
    lo = max(int(info.min), -2)
    rest = mk.rng.integers(lo, num_rows + 2, 64 - len(special))
    return mk.rng.permutation(np.array(special + rest.tolist(), dtype=np.int64)).astype(numpy_dtype(dtype))
