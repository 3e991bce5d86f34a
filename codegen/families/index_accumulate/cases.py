"""The case matrix of an index_accumulate op (EmbeddingDenseBackward) on one product, in both strategies.

Value cases (each run with ``Case.deterministic`` False — atomic kernel — and True — deterministic kernel;
in deterministic mode the multi-core ones run as determinism cases only, seven core orders each):
every rows dtype x every index dtype; every integer index dtype across its range (:func:`_range_indices`);
rows ranks 2-8 and index ranks 1-8; D at 1, 7, 8, 16, the UB chunk boundary -1/0/+1, 100,003 and 1,000,000;
two rows with D = 65,539 (D split over the cores); all indices equal with N >= 4096; the padding row used
>= 1000 times; scaling with and without a padding row; non-contiguous rows, index and output views; empty
inputs and zero output rows; out-of-range, NaN and infinite indices; an output dtype different from the rows
dtype; deterministic only: 2 rows x D 8 x 20,003 indices (index groups; kept by ``quick``); many rows over
many cores; the sorted-run strategy at the fewest indices the tiling takes it with on all of the product's
cores, at most 64 without hardware SyncAll (:func:`sorted_run_indices`, fp32: 464,000 on Ascend910, 142,848
on Ascend910B, 256,000 on Ascend950 for 5000 rows; none on a product whose tiling never takes it); the
sorted-run strategy's small-dim variant (records; D 8 with and without scaling, D 3) and, in atomic mode, its
(row, position) pairs path (1000 rows of D 16, where records do not fit the staging slots), each at the
smallest N the tiling takes it, half their rows seen exactly 1, 2 or 3 times (:meth:`_Maker.counted_indices`);
the product limits of the spec at their boundary (the last passing value).
Status cases (atomic only; phase 1 never reaches a kernel): every null pointer, unsupported dtypes, ranks
outside the spec's range, mismatched shapes and every product limit just past its boundary.
``quick`` keeps one representative of each group.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case, normal_array
from codegen.check.constraints import TensorStandIn, violates
from codegen.check.offsets import INT64_MAX, cover
from codegen.families.index_accumulate.plan.roles import compute_of, index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.strategy import sort_fills_staging
from codegen.families.index_accumulate.plan.sync_counters import SYNC_CORES_MAX
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.runner import device_memory, dtype_of_array, numpy_dtype
from codegen.spec.expr import ExprEvalError
from codegen.spec.model import DType, OpSpec, Product

#: ``paddingIdx`` meaning "none": the uint64 2**64 - 1, which is -1 as int64 (the Python API range-checks
#: uint64 attributes, so -1 itself is refused).
NO_PADDING = 2**64 - 1
MODES = (("atomic", False), ("deterministic", True))


class _Maker:
    """Builds the arrays and cases of one (spec, product)."""

    def __init__(self, spec: OpSpec, product: Product) -> None:
        comp = compute_of(spec)
        self.spec = spec
        self.product = product
        self.rows = comp.rows
        self.index = comp.index
        self.out = comp.accumulate
        self.num_rows = comp.num_rows
        self.padding = comp.padding
        self.scaling = comp.count_scaling
        self.rng = np.random.default_rng(20261130)
        self.op = spec.snake

    def grad(self, shape: tuple[int, ...], dtype: DType, scale: float = 1.0) -> np.ndarray:
        return normal_array(self.rng, shape, dtype, scale)

    def indices(self, shape: tuple[int, ...], dtype: DType, num_rows: int, spread: int = 2) -> np.ndarray:
        """Indices of ``dtype`` mostly in ``[0, num_rows)``, a few just outside (floating ones fractional)."""
        size = int(np.prod(shape)) if shape else 1
        if dtype is DType.BOOL:
            return (self.rng.integers(0, 2, size) == 1).reshape(shape)
        lo = 0 if dtype is DType.UINT8 else -spread
        values = self.rng.integers(lo, num_rows + spread, size).astype(np.float64)
        if dtype.is_floating:
            values = values + self.rng.uniform(0.0, 0.95, size) * np.sign(values + 0.5)
        return values.astype(numpy_dtype(dtype)).reshape(shape)

    def counted_indices(self, n: int, dtype: DType, num_rows: int, spread: int = 2) -> np.ndarray:
        """``n`` indices of ``dtype`` into ``num_rows`` rows where the first half of the rows occur exactly 1, 2
        or 3 times (row ``r``: ``1 + r % 3``), so a count threshold (scaling skipped or applied for a row seen
        once or twice) shows in the output; the other indices fall on the other rows and a few outside
        ``[0, num_rows)``, in a random order; ``n`` values of ``dtype``.

        Raises:
            ValueError: ``n`` is less than twice the fixed occurrences (about ``num_rows``).
        """
        k = num_rows // 2
        fixed = np.repeat(np.arange(k), 1 + np.arange(k) % 3)
        if counted_minimum(num_rows) > n:
            raise ValueError(f"{n} indices cannot hold {fixed.size} fixed occurrences of {k} rows twice over")
        rest = self.rng.integers(k, num_rows + spread, n - fixed.size)
        rest[:: max(1, (n - fixed.size) // 64)] = -1 - self.rng.integers(0, spread, 1)  # a few negative ones
        values = self.rng.permutation(np.concatenate([fixed, rest]))
        return values.astype(numpy_dtype(dtype))

    def params(
        self,
        grad: np.ndarray | None,
        indices: np.ndarray | None,
        num_rows: int,
        padding: int = NO_PADDING,
        scaling: bool = False,
        out: np.ndarray | None = None,
        with_out: bool = True,
    ) -> dict[str, Any]:
        p: dict[str, Any] = {self.rows: grad, self.index: indices, self.num_rows: num_rows}
        if self.padding:
            p[self.padding] = padding
        if self.scaling:
            p[self.scaling] = scaling
        if out is not None or with_out is False:
            p[self.out] = out
        return p

    def case(self, dtype: str, shape: str, name: str, params: dict[str, Any], deterministic: bool, **kw: Any) -> Case:
        """A value case named ``<name> [atomic]`` or ``<name> [deterministic]``; in deterministic mode a
        ``multicore`` one becomes its determinism case (:func:`codegen.check.cases.determinism_cases`)."""
        mode = "deterministic" if deterministic else "atomic"
        return Case(
            self.op, self.product.name, dtype, shape, f"{name} [{mode}]", params, deterministic=deterministic, **kw
        )

    def status(self, dtype: str, name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(self.op, self.product.name, dtype, "error", name, params, expect_status=code, mode=mode)


def counted_minimum(num_rows: int) -> int:
    """The fewest indices :meth:`_Maker.counted_indices` takes for ``num_rows`` rows: twice the fixed
    occurrences of the first half of the rows (row ``r`` seen ``1 + r % 3`` times), so at least half of the
    indices are random. A case sized from the tiling's threshold (few on a product with few cores) is raised
    to this count."""
    k = num_rows // 2
    return 2 * sum(1 + r % 3 for r in range(k))


def _dt(grad: DType, index: DType) -> str:
    return f"{grad.name}/{index.name}"


def index_accumulate_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """Value and status cases of an index-accumulate op on ``product``.

    Args:
        spec: the op.
        product: the product (its dtypes, cores, UB and limits shape the matrix).
        dtypes: the rows dtypes to cover (the driver's ``--dtype`` filter already applied).
        quick: keep one representative case per group.
    """
    mk = _Maker(spec, product)
    idx_all = [d for d in index_dtypes(spec) if product.supports(d)]
    rows_all = [d for d in row_dtypes(spec) if product.supports(d)]
    grads = [d for d in dtypes if d in rows_all]
    for _, det in MODES:
        yield from _value_cases(mk, grads, rows_all, idx_all, det, quick)
    yield from _status_cases(mk, rows_all, idx_all)
    roles = {"num_rows": mk.num_rows, "padding": mk.padding or "", "count_scaling": mk.scaling or ""}
    i64 = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    yield from index_offset_cases(spec, product, roles, grads[0] if grads else rows_all[0], i64)


def _value_cases(
    mk: _Maker, grads: list[DType], rows_all: list[DType], idx_all: list[DType], det: bool, quick: bool
) -> Iterator[Case]:
    spec, product = mk.spec, mk.product
    i64 = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    for g in grads:
        # Every index dtype (D = 17: accumulator in the workspace; scaling and a padding row in use).
        chosen = idx_all if not quick else [d for d in idx_all if d in (DType.INT64, DType.FLOAT, DType.BOOL)]
        for i in chosen:
            w = 3 if i is DType.BOOL else 10
            n = 37
            p = mk.params(mk.grad((n, 17), g), mk.indices((n,), i, w), w, padding=1, scaling=True)
            yield mk.case(_dt(g, i), "[37, 17]", f"{i.name} indices, padding 1, scaling", p, det)
            if not quick:
                p = mk.params(mk.grad((n, 16), g), mk.indices((n,), i, w), w)
                yield mk.case(_dt(g, i), "[37, 16]", f"{i.name} indices, D 16 (output accumulates)", p, det)
        # Every integer index dtype across its range: its least and greatest values, -1, values a read of a
        # narrower width would take for a valid row (2**w + 7: row 7) and, for an unsigned dtype, a valid row
        # with the sign bit set, which a signed read would drop. 300 rows hold them (UINT8's 255 is one).
        if not quick or g is grads[0]:
            for i in [d for d in idx_all if d.is_integer]:
                idx = _range_indices(mk, i, RANGE_CASE_ROWS)
                p = mk.params(mk.grad((idx.size, 5), g), idx, RANGE_CASE_ROWS, padding=1, scaling=True)
                name = f"{i.name} indices across the dtype's range, {RANGE_CASE_ROWS} rows"
                yield mk.case(_dt(g, i), f"[{idx.size}, 5]", name, p, det)
        # The documented D values and the UB chunk boundary of this dtype.
        d_max = tiling_decision(spec, product, (4, 1), 4, g, i64, det).d_chunk_max
        dims = [1, 7, 8, 16, d_max - 1, d_max, d_max + 1, 100_003, 1_000_000]
        if quick:
            dims = [1, 7, d_max + 1, 100_003]
        for d in dims:
            n = 3 if d >= 1_000_000 else 6 if d > 1000 else 40
            grad, idx = mk.grad((n, d), g), mk.indices((n,), i64, 5)
            # scaling on odd D, unless a product limit forbids it for this D (e.g. the Atlas training bound)
            scaling = d % 2 == 1 and _accepted(mk, grad, idx, mk.params(grad, idx, 5, padding=2, scaling=True))
            p = mk.params(grad, idx, 5, padding=2, scaling=scaling)
            yield mk.case(_dt(g, i64), f"[{n}, {d}]", f"D {d}", p, det)
        # Few rows and a large D: the cores split D into slices (whole 32-byte blocks; D odd leaves a partial
        # last block). Twelve indices into two rows plus an out-of-range one: every core still writes.
        d = 65_539
        grad = mk.grad((12, d), g)
        idx = np.array([1, 0, 1, 1, 0, 2, 1, 0, 0, 1, 1, 0], dtype=numpy_dtype(i64))
        scaling = _accepted(mk, grad, idx, mk.params(grad, idx, 2, scaling=True))
        p = mk.params(grad, idx, 2, scaling=scaling)
        yield mk.case(_dt(g, i64), f"[12, {d}]", f"2 rows, D {d} split over the cores", p, det, tags=("multicore",))
        # Ranks of grad (2-8) and of indices (1-8).
        ranks = range(2, 9) if not quick else [8]
        for r in ranks:
            shape = (2,) * (r - 1) + (9,)
            n = int(np.prod(shape[:-1]))
            p = mk.params(mk.grad(shape, g), mk.indices((n,), i64, 6), 6, scaling=True)
            yield mk.case(_dt(g, i64), str(list(shape)), f"grad rank {r}", p, det)
        for r in range(1, 9) if not quick else [8]:
            ishape = (2,) * r
            n = int(np.prod(ishape))
            p = mk.params(mk.grad((n, 5), g), mk.indices(ishape, i64, 6), 6, padding=0)
            yield mk.case(_dt(g, i64), str(list(ishape)), f"indices rank {r}", p, det)
        # Heavy duplication: all indices equal, N = 4096.
        p = mk.params(mk.grad((4096, 8), g), np.full((4096,), 5, np.int64), 10)
        yield mk.case(_dt(g, DType.INT64), "[4096, 8]", "all 4096 indices equal", p, det, tags=("multicore",))
        p = mk.params(mk.grad((64, 64, 3), g), np.full((64, 64), 2, np.int32), 4, scaling=True)
        yield mk.case(_dt(g, DType.INT32), "[64, 64, 3]", "all 4096 indices equal, scaling", p, det)
        # The padding row used >= 1000 times, with and without scaling.
        for scaling in (False, True):
            idx = mk.indices((1500,), i64, 8)
            idx[mk.rng.permutation(1500)[:1200]] = 3
            p = mk.params(mk.grad((1500, 12), g), idx, 8, padding=3, scaling=scaling)
            yield mk.case(_dt(g, i64), "[1500, 12]", f"padding row used 1200 times, scaling {scaling}", p, det)
        if quick and g is not grads[0]:
            continue
        # Scaling without a padding row (paddingIdx negative as int64, and one past the last row).
        for pad, what in ((NO_PADDING, "paddingIdx -1"), (2**63, "paddingIdx 2^63"), (10, "paddingIdx = numWeights")):
            p = mk.params(mk.grad((50, 10), g), mk.indices((50,), i64, 10), 10, padding=pad, scaling=True)
            yield mk.case(_dt(g, i64), "[50, 10]", f"scaling, no padding row ({what})", p, det)
        # Non-contiguous grad, indices and output.
        base = mk.grad((30, 2, 11), g)
        grad_nc = base[:, 1, :]
        idx_nc = mk.indices((60,), i64, 7)[::2]
        out_store = np.zeros((7, 22), dtype=numpy_dtype(g))
        p = mk.params(grad_nc, idx_nc, 7, padding=4, scaling=True, out=out_store[:, ::2])
        yield mk.case(_dt(g, i64), "[30, 11]", "non-contiguous grad, indices and out", p, det)
        p = mk.params(mk.grad((9, 20), g).T, mk.indices((20,), i64, 4), 4)
        yield mk.case(_dt(g, i64), "[20, 9]", "transposed grad", p, det)
        # Empty inputs and zero output rows.
        p = mk.params(mk.grad((0, 5), g), np.zeros((0,), np.int64), 6, padding=1, scaling=True)
        yield mk.case(_dt(g, DType.INT64), "[0, 5]", "empty grad and indices -> zeros", p, det)
        p = mk.params(mk.grad((3, 0, 5), g), np.zeros((3, 0), np.int32), 4)
        yield mk.case(_dt(g, DType.INT32), "[3, 0, 5]", "empty grad rows -> zeros", p, det)
        p = mk.params(mk.grad((4, 6), g), mk.indices((4,), i64, 3), 0)
        yield mk.case(_dt(g, i64), "[4, 6]", "numWeights 0 -> [0, D]", p, det)
        p = mk.params(mk.grad((4, 0), g), mk.indices((4,), i64, 3), 3)
        yield mk.case(_dt(g, i64), "[4, 0]", "D 0 -> [numWeights, 0]", p, det)
        # Invalid indices: out of range, NaN, infinities (they contribute nothing and are not counted).
        bad = np.array([0, -1, 5, 6, 1e30, -1e30, np.nan, np.inf, -np.inf, -0.7, 4.99, 2, 2, 65504, -0.0, 1])
        for i in [d for d in idx_all if d.is_floating]:
            with np.errstate(over="ignore"):  # 1e30 becomes inf in FLOAT16 on purpose
                as_index = bad.astype(numpy_dtype(i))
            p = mk.params(mk.grad((bad.size, 9), g), as_index, 5, padding=2, scaling=True)
            yield mk.case(_dt(g, i), f"[{bad.size}, 9]", f"{i.name} NaN/inf/out-of-range indices", p, det)
        ints = np.array([0, -1, 5, 2**40, -(2**40), 4, 2**62, -(2**63), 3, 3], dtype=np.int64)
        p = mk.params(mk.grad((ints.size, 9), g), ints, 5, scaling=True)
        yield mk.case(_dt(g, DType.INT64), f"[{ints.size}, 9]", "INT64 out-of-range indices", p, det)
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
                _dt(g, i64), f"[{n}, 8]", "2 rows, D 8, many indices: index groups", p, det, tags=("multicore",)
            )
        # Many rows over many cores; fewer rows than cores.
        if not quick:
            n = 20_000
            p = mk.params(mk.grad((n, 8), g), mk.indices((n,), i64, 5000), 5000, padding=17, scaling=True)
            yield mk.case(_dt(g, i64), f"[{n}, 8]", "5000 rows over the cores", p, det)
            p = mk.params(mk.grad((300, 40), g), mk.indices((300,), i64, 3), 3, scaling=True)
            yield mk.case(_dt(g, i64), "[300, 40]", "3 rows, fewer than cores", p, det)
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
                yield mk.case(_dt(g, i64), f"[{sized}, {d}]", name, p, det, tags=probe)
        # The sorted-run strategy's small-dim variant (records of the row key and its values; sized below).
        if g is grads[0] or not quick:
            yield from _small_dim_sorted_cases(mk, g, i64, det, quick, probe)
        # Product limits at their boundary: the largest passing value must work.
        yield from _limit_value_cases(mk, g, idx_all, det)


#: Output rows of the index-range cases: more than UINT8's greatest value (every UINT8 index is a valid row).
RANGE_CASE_ROWS = 300


def _range_indices(mk: _Maker, dtype: DType, num_rows: int) -> np.ndarray:
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


#: Output rows of the sorted-run cases: many row buckets per core (the buckets crossing core boundaries).
SORTED_CASE_ROWS = 5000
#: Most indices :func:`sorted_run_indices` tries (the pairs of the sorted strategy are int32).
SORTED_SEARCH_LIMIT = 1 << 30


def sorted_run_indices(
    spec: OpSpec,
    product: Product,
    row_shape: tuple[int, ...],
    num_rows: int,
    grad: DType,
    index: DType,
    deterministic: bool,
    padding: int = -1,
    scale: bool = False,
    at_least: int = 0,
) -> int | None:
    """The fewest indices N, at least ``at_least`` (near-fewest: a bisection of the tiling's choice), at which
    the tiling of ``spec`` on ``product`` takes the sorted-run strategy on the most cores it can
    (:func:`sorted_run_cores`), for grad ``[N, *row_shape]`` of ``grad`` into ``num_rows`` rows, ``index``
    indices, ``paddingIdx`` ``padding`` and ``scaleGradByFreq`` ``scale``. The tiling takes it once every
    core's index range fills its bucket staging slots (``N >= cores x buckets x stage``,
    :func:`codegen.families.index_accumulate.plan.strategy.sort_fills_staging`) and its transfer cost is the lower, so
    the answer follows the product's UB and core count. None when no N up to :data:`SORTED_SEARCH_LIMIT` takes
    it there: the product's tiling never runs the strategy for these rows
    (:func:`codegen.families.index_accumulate.plan.sorted_run.sort_plan` gives the reason, e.g. a UB too small for the
    staging slots, more cores than the software SyncAll's counters, or rows that are not whole 32-byte
    blocks on a product without DataCopyPad), so the case has nothing to check. On every catalogue product
    the strategy is reached (``tests/test_edb_cases.py``). Every core's slots fill, so the kernel's flushes of
    full slots are reached as well as the partial ones (the tiling may take the strategy at smaller N too,
    :func:`codegen.families.index_accumulate.plan.strategy.sorted_wins`).
    """
    cores = sorted_run_cores(product)

    def takes(n: int) -> bool:
        t = tiling_decision(spec, product, (n, *row_shape), num_rows, grad, index, deterministic, padding, scale)
        return t.sorted_run and t.sort.cores == cores and sort_fills_staging(t.sort, n)

    if at_least and takes(at_least):
        return at_least
    hi = max(1 << 16, at_least)
    while not takes(hi):
        if hi >= SORTED_SEARCH_LIMIT:
            return None
        hi *= 2
    lo = max(hi // 2, at_least)  # bisection between a size that does not take it (or at_least) and one that does
    if takes(lo):
        lo = at_least
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if takes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def sorted_run_cores(product: Product) -> int:
    """The most cores the sorted-run strategy runs on ``product``: all its vector cores, at most
    :data:`codegen.families.index_accumulate.plan.sync_counters.SYNC_CORES_MAX` without hardware SyncAll (the software
    SyncAll's counters)."""
    return product.vector_core_num if product.hw_sync_all else min(product.vector_core_num, SYNC_CORES_MAX)


#: (rows, D) of the small-dim sorted cases: few rows, so few buckets and the fewest indices that fill the
#: staging slots; D 8 moves whole 32-byte rows (9-word records), D 3 partial blocks (4-word records).
SMALL_DIM_SORTED_SHAPES = ((100, 8), (50, 3))
#: (rows, D) of the atomic-mode case that runs the sorted strategy's (row, position) pairs on a product with the
#: small-dim variant: 1000 rows make ~170 buckets, whose staging slots hold fewer than 8 records of 68 bytes,
#: so the rows are gathered by position (the transfer-cost model prefers records wherever they fit at this D).
PAIRS_SORTED_SHAPE = (1000, 16)


def sorted_variant_n(
    mk: _Maker, g: DType, i: DType, det: bool, w: int, d: int, padding: int, scaling: bool, small: bool
) -> int | None:
    """The smallest N (on a 1/16 geometric grid from 1024, or :func:`counted_minimum` of ``w`` if more, up to
    2^20) whose tiling runs the sorted-run
    strategy with (``small``) or without its small-dim variant for ``w`` rows of ``d`` with ``scaling`` and
    ``padding``, or None (the product refuses it, e.g. no DataCopyPad). Sized from the tiling, so the cases
    follow the planner's thresholds and stay as small as they can."""
    n = max(1024, counted_minimum(w))  # the cases' indices come from counted_indices
    while n <= 1 << 20:
        t = tiling_decision(mk.spec, mk.product, (n, d), w, g, i, det, padding, scaling)
        if t.sorted_run and t.sort.small_dim == small:
            return n
        n += n // 16
    return None


def _small_dim_sorted_cases(
    mk: _Maker, g: DType, i: DType, det: bool, quick: bool, tags: tuple[str, ...]
) -> Iterator[Case]:
    """The small-dim variant with scaling, a padding row and invalid indices (the indices spread 2 past both
    ends), buckets split between cores (a few rows per core), at the smallest N that takes it; without
    ``quick`` also D 8 without scaling (the default call); on products with the variant, in atomic mode, also
    the (row, position) pairs path without scaling. ``tags`` go on every case (``multicore``: a determinism
    case in deterministic mode)."""
    shapes = [(w, d, True) for w, d in (SMALL_DIM_SORTED_SHAPES[:1] if quick else SMALL_DIM_SORTED_SHAPES)]
    if not quick:
        shapes.append((*SMALL_DIM_SORTED_SHAPES[0], False))
    for w, d, scaling in shapes:
        n = sorted_variant_n(mk, g, i, det, w, d, 17, scaling, True)
        if n is None:
            continue
        p = mk.params(mk.grad((n, d), g), mk.counted_indices(n, i, w), w, padding=17, scaling=scaling)
        name = f"sorted-run small-dim variant, {w} rows, D {d}" + ("" if scaling else ", no scaling")
        yield mk.case(_dt(g, i), f"[{n}, {d}]", name, p, det, tags=tags)
    w, d = PAIRS_SORTED_SHAPE
    if not det and mk.product.data_copy_pad and g.itemsize == 4:
        n = sorted_variant_n(mk, g, i, det, w, d, 17, False, False)
        if n is not None:
            p = mk.params(mk.grad((n, d), g), mk.counted_indices(n, i, w), w, padding=17)
            name = f"sorted-run (row, position) pairs, {w} rows, D {d}"
            yield mk.case(_dt(g, i), f"[{n}, {d}]", name, p, det, tags=tags)


def _limit_env(mk: _Maker, grad: np.ndarray, indices: np.ndarray, params: dict[str, Any]) -> dict[str, object]:
    env: dict[str, Any] = {k: v for k, v in params.items() if not isinstance(v, np.ndarray) and v is not None}
    if mk.num_rows in env:
        env[mk.num_rows] = int(env[mk.num_rows])
    if mk.padding and mk.padding in env:
        pad = int(env[mk.padding]) & ((1 << 64) - 1)
        env[mk.padding] = pad - (1 << 64) if pad >= 1 << 63 else pad
    env[mk.rows] = TensorStandIn(grad.shape, dtype_of_array(grad))
    env[mk.index] = TensorStandIn(indices.shape, dtype_of_array(indices))
    env["coreNum"] = mk.product.vector_core_num
    env["ubBytes"] = mk.product.ub_bytes
    return env


def _accepted(mk: _Maker, grad: np.ndarray, indices: np.ndarray, params: dict[str, Any]) -> bool:
    """Whether no product constraint of the spec rejects the call ``params`` describes."""
    env = _limit_env(mk, grad, indices, params)
    applicable = [c for c in mk.spec.constraints if mk.product.name in c.products]
    return not any(violates(c, env) for c in applicable)


def _first_failing_dim(mk: _Maker, g: DType, i: DType, num_rows: int, n: int) -> int | None:
    """The smallest D (up to 2**20) that some product constraint of the spec rejects, or None."""
    applicable = [c for c in mk.spec.constraints if mk.product.name in c.products]
    if not applicable:
        return None

    def rejected(d: int) -> bool:
        grad = np.zeros((n, 0), numpy_dtype(g))
        grad_shape = (n, d)
        idx = np.zeros((n,), numpy_dtype(i))
        params = mk.params(None, None, num_rows, padding=NO_PADDING, scaling=True)
        env = _limit_env(mk, grad, idx, params)
        env[mk.rows] = TensorStandIn(grad_shape, dtype_of_array(grad))
        try:
            return any(violates(c, env) for c in applicable)
        except ExprEvalError:
            return False

    lo, hi = 1, 1 << 20
    if not rejected(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if rejected(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _limit_value_cases(mk: _Maker, g: DType, idx_all: list[DType], det: bool) -> Iterator[Case]:
    for i in [d for d in (DType.INT32, DType.INT64) if d in idx_all]:
        num_rows = 64
        first_bad = _first_failing_dim(mk, g, i, num_rows, 3)
        if first_bad is None or first_bad < 2:
            continue
        d = first_bad - 1
        p = mk.params(mk.grad((3, d), g), mk.indices((3,), i, num_rows, spread=0), num_rows, scaling=True)
        yield mk.case(_dt(g, i), f"[3, {d}]", f"scaling limit: largest D accepted ({d})", p, det)
        p = mk.params(mk.grad((3, first_bad), g), mk.indices((3,), i, num_rows, spread=0), num_rows, scaling=False)
        yield mk.case(_dt(g, i), f"[3, {first_bad}]", f"D {first_bad} without scaling (limit not applied)", p, det)


def _status_cases(mk: _Maker, rows_all: list[DType], idx_all: list[DType]) -> Iterator[Case]:
    g = rows_all[0]
    i = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    dt = _dt(g, i)
    grad = mk.grad((4, 6), g)
    idx = mk.indices((4,), i, 5, spread=0)
    out = np.zeros((5, 6), numpy_dtype(g))

    def good(**over: Any) -> dict[str, Any]:
        p = mk.params(grad, idx, 5, padding=1, scaling=False, out=out)
        p.update(over)
        return p

    for name in (mk.rows, mk.index, mk.out):
        yield mk.status(dt, f"null {name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{name: None}))
    yield mk.status(dt, "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), "null_workspace_size")
    yield mk.status(dt, "null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), "null_executor")
    yield mk.status(dt, "phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, good(), "phase2_twice")
    # The derived matrix (every tensor's unsupported dtypes, rank bounds, rejected formats, wrong output dims,
    # the null order) from one row and one index: a 0-d index then breaks the rank rule alone.
    from codegen.check.status_matrix import status_matrix

    one = mk.params(mk.grad((1, 6), g), mk.indices((1,), i, 5, spread=0), 5, padding=1, scaling=False, out=out)
    yield from status_matrix(mk.spec, mk.product, one, dt)
    # ranks outside the spec's range
    rows_t, index_t = mk.spec.tensor(mk.rows), mk.spec.tensor(mk.index)
    too_many = (*((1,) * (rows_t.rank[1] - 1)), 4, 6)
    p = good(**{mk.rows: mk.grad(too_many, g)})
    yield mk.status(dt, f"grad rank {rows_t.rank[1] + 1} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.index: idx.reshape((1,) * index_t.rank[1] + (4,))})
    yield mk.status(dt, f"indices rank {index_t.rank[1] + 1} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    if rows_t.rank[0] > 1:
        p = good(**{mk.rows: mk.grad((6,), g), mk.index: idx[:1]})
        yield mk.status(dt, "grad rank 1 -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    # shape relations
    p = good(**{mk.index: mk.indices((5,), i, 5, spread=0)})
    yield mk.status(dt, "grad rows != indices count -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((4, 6), numpy_dtype(g))})
    yield mk.status(dt, "out rows != numWeights -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((5, 7), numpy_dtype(g))})
    yield mk.status(dt, "out columns != D -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((5, 6, 1), numpy_dtype(g))})
    yield mk.status(dt, "out rank 3 -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    # product limits just past their boundary
    for ii in [d for d in (DType.INT32, DType.INT64) if d in idx_all]:
        first_bad = _first_failing_dim(mk, g, ii, 64, 3)
        if first_bad is None:
            continue
        p = mk.params(
            mk.grad((3, first_bad), g),
            mk.indices((3,), ii, 64, spread=0),
            64,
            scaling=True,
            out=np.zeros((64, first_bad), numpy_dtype(g)),
        )
        yield mk.status(_dt(g, ii), f"scaling limit: D {first_bad} -> 161002", ACLNN_ERR_PARAM_INVALID, p)


def index_offset_cases(
    spec: OpSpec, product: Product, names: dict[str, str], rows_dtype: DType, index_dtype: DType
) -> Iterator[Case]:
    """``tiling_2g`` cases of an index_accumulate op in both strategies: ``3 * 2**31 + 5`` rows of width 3
    into ``3 * 2**31 + 3`` output rows, and 4 rows of width ``3 * 2**31 + 7``. ``names`` maps the compute roles
    (``num_rows``, ``padding``, ``count_scaling``) to the spec's attr names (absent roles: '')."""
    for n, width, rows in ((3 * 2**31 + 5, 3, 3 * 2**31 + 3), (4, 3 * 2**31 + 7, 3)):
        for deterministic in (False, True):
            by_role = {names.get("num_rows"): rows, names.get("padding"): 1, names.get("count_scaling"): False}
            attrs = [by_role.get(a.name, a.default) for a in spec.attrs]
            request = {
                "inputs": [{"shape": [n, width], "dtype": rows_dtype.name}, {"shape": [n], "dtype": index_dtype.name}],
                "outputs": [{"shape": [rows, width], "dtype": rows_dtype.name}],
                "attrs": attrs,
                "deterministic": int(deterministic),
            }
            params = {
                "request": request,
                "grad_shape": (n, width),
                "num_weights": rows,
                "grad_dtype": rows_dtype.name,
                "index_dtype": index_dtype.name,
                "deterministic": deterministic,
                "padding": 1 if names.get("padding") else -1,
                "scale": False,
            }
            mode = "deterministic" if deterministic else "atomic"
            yield Case(
                spec.snake,
                product.name,
                f"{rows_dtype.name}/{index_dtype.name}",
                f"[{n}, {width}]",
                f"[{n}, {width}] into {rows} rows: tiling and per-core ranges in 64 bits [{mode}]",
                params,
                mode="tiling_2g",
                deterministic=deterministic,
            )


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The family's cases of ``spec`` on ``product`` (:func:`index_accumulate_cases`)."""
    return index_accumulate_cases(spec, product, dtypes, quick)


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: ``[numWeights, D]`` in the dtype of
    ``grad``, poisoned (:func:`codegen.runner.device_memory`), not zeroed: the op must write every row."""
    grad = arrays.get("grad")
    d = grad.shape[-1] if grad is not None and grad.ndim else 0
    dtype = grad.dtype if grad is not None else np.float32
    shape = (int(attrs["numWeights"]), d)
    return device_memory(int(np.prod(shape, dtype=np.int64)), dtype, shape)


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result ``got`` (fields ``tiling``) against the planner's decision in
    64-bit arithmetic, and the per-core ranges of the kernel's split: '' when they agree and cover the
    tensors past 32 bits, else what differs (see :func:`codegen.check.offsets.check_offsets`)."""
    spec, product = fn.spec, fn.product
    from codegen.families.index_accumulate.plan.tiling import tiling_decision as index_tiling

    p = case.params
    want_idx = index_tiling(
        spec,
        product,
        tuple(p["grad_shape"]),
        p["num_weights"],
        DType[p["grad_dtype"]],
        DType[p["index_dtype"]],
        p["deterministic"],
        p["padding"],
        p["scale"],
    )
    fields = want_idx.tiling_fields()
    for k, v in fields.items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    if got["block_dim"] != want_idx.block_dim or got["workspace_sizes"][0] != want_idx.workspace_bytes:
        have = f"{got['block_dim']}/{got['workspace_sizes']}"
        return f"blockDim/workspace {have}, want {want_idx.block_dim}/{want_idx.workspace_bytes}"
    # The kernel's Split: groups below formerNum take perGroup + 1 items.
    for what, groups, per, former, total in (
        ("rows", fields["rowGroupNum"], fields["rowsPerGroup"], fields["rowsFormerNum"], fields["numRows"]),
        (
            "indices",
            fields["indexGroupNum"],
            fields["indicesPerGroup"],
            fields["indicesFormerNum"],
            fields["numIndices"],
        ),
    ):
        ranges = []
        for g in range(groups):
            start = g * (per + 1) if g < former else former * (per + 1) + (g - former) * per
            ranges.append((start, start + per + (1 if g < former else 0)))
        fault = cover(what, ranges, total)
        if fault:
            return fault
    elements = fields["numIndices"] * fields["rowLength"]
    if elements < 2**32 or elements > INT64_MAX or fields["numRows"] * fields["accStride"] > INT64_MAX:
        return f"grad holds {elements} elements: outside [2**32, int64]"
    return ""
