"""The value cases of the sorted-run strategy: the fewest indices at which the tiling takes it (on every
core, or with its small-dim variant or its (row, position) pairs), sized from the planner."""

from __future__ import annotations

from collections.abc import Iterator

from codegen.check.cases import Case
from codegen.families.index_accumulate.cases.maker import CaseMaker, counted_minimum, dtype_label
from codegen.families.index_accumulate.plan.strategy import sort_fills_staging
from codegen.families.index_accumulate.plan.sync_counters import SYNC_CORES_MAX
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.spec.model import DType, OpSpec, Product

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
    mk: CaseMaker, g: DType, i: DType, det: bool, w: int, d: int, padding: int, scaling: bool, small: bool
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


def small_dim_sorted_cases(
    mk: CaseMaker, g: DType, i: DType, det: bool, quick: bool, tags: tuple[str, ...]
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
        yield mk.case(dtype_label(g, i), f"[{n}, {d}]", name, p, det, tags=tags)
    w, d = PAIRS_SORTED_SHAPE
    if not det and mk.product.data_copy_pad and g.itemsize == 4:
        n = sorted_variant_n(mk, g, i, det, w, d, 17, False, False)
        if n is not None:
            p = mk.params(mk.grad((n, d), g), mk.counted_indices(n, i, w), w, padding=17)
            name = f"sorted-run (row, position) pairs, {w} rows, D {d}"
            yield mk.case(dtype_label(g, i), f"[{n}, {d}]", name, p, det, tags=tags)


#: (rows, D) of the vector-sort cases: 100 rows are 100 one-row buckets (on 48 or 64 cores), so the (chunk,
#: bucket) segments reach the planner's average of 8 pairs at a few 10^4 indices; at D 64 the small-dim
#: variant's records (260 bytes) do not fit the staging slots, so the (row, position) pairs run.
VECTOR_SORT_SHAPE = (100, 64)


def vector_sort_n(mk: CaseMaker, g: DType, i: DType, det: bool, w: int, d: int) -> int | None:
    """The smallest N (on a 1/16 geometric grid from :func:`counted_minimum` of ``w``, up to 2^20) whose tiling
    runs the sorted-run strategy with phases 1-2 on the vector sort (``sort_chunk`` > 0) for ``w`` rows of ``d``
    with scaling and padding row 17, or None (the product has no vector sort, or no N up to 2^20 takes it)."""
    n = max(1024, counted_minimum(w))
    while n <= 1 << 20:
        t = tiling_decision(mk.spec, mk.product, (n, d), w, g, i, det, 17, True)
        if t.sorted_run and t.sort.sort_chunk > 0:
            return n
        n += n // 16
    return None


def vector_sort_cases(
    mk: CaseMaker, g: DType, idx_all: list[DType], det: bool, quick: bool, tags: tuple[str, ...]
) -> Iterator[Case]:
    """The sorted-run strategy with phases 1-2 on the vector sort, at the smallest N that takes it
    (:func:`vector_sort_n`): scaling, a padding row, indices spread 2 past both ends (keys below 0 and from
    numWeights on sort outside every bucket). INT64 indices (the vector Cast of the keys); without ``quick``
    also INT32 (the other vector Cast) and FLOAT indices where the op takes them (the scalar keys). ``tags`` go
    on every case."""
    w, d = VECTOR_SORT_SHAPE
    wanted = [DType.INT64] if quick else [DType.INT64, DType.INT32, DType.FLOAT]
    for i in [x for x in wanted if x in idx_all]:
        n = vector_sort_n(mk, g, i, det, w, d)
        if n is None:
            continue
        p = mk.params(mk.grad((n, d), g), mk.counted_indices(n, i, w), w, padding=17, scaling=True)
        name = f"sorted-run vector sort, {w} rows, D {d}"
        yield mk.case(dtype_label(g, i), f"[{n}, {d}]", name, p, det, tags=tags)


#: Output rows of the sorted-run cases of the other index dtypes (:func:`index_key_sorted_cases`): the
#: small-dim variant's 100 rows where the index dtype holds them, else its two values (BOOL).
INDEX_KEY_SORTED_ROWS = 100


def index_key_sorted_cases(
    mk: CaseMaker, g: DType, idx_all: list[DType], covered: DType | None, det: bool
) -> Iterator[Case]:
    """A sorted-run case per index dtype of ``idx_all`` but ``covered`` (None: every one; the sized sorted-run
    cases run that one through the strategy's every path): the tiling key is the strategy, the rows dtype and
    the index dtype, so each of these launches a key of its own. Rows of D 8, scaling and a padding row,
    indices of the dtype with rows seen exactly 1, 2 and 3 times and a few outside the rows
    (:meth:`CaseMaker.counted_indices`; BOOL holds two rows, 0 and 1, and no invalid index), at the fewest
    indices that take the small-dim variant (:func:`sorted_variant_n`), or, on a product without it (no
    DataCopyPad), the strategy itself on rows of whole 32-byte blocks (:func:`sorted_run_indices`, from the
    size the previous index dtype took it at: a search per dtype costs seconds of planning); none where
    the product's tiling never takes it (BOOL's two rows there)."""
    found = 0  # the size the last index dtype took the strategy itself at (its search starts there)
    for i in [d for d in idx_all if d is not covered]:
        w, pad = (2, 1) if i is DType.BOOL else (INDEX_KEY_SORTED_ROWS, 17)
        d, what = 8, "sorted-run small-dim variant"
        # the variant needs DataCopyPad (sort_plan's small_dim_reason): no search for it elsewhere
        n = sorted_variant_n(mk, g, i, det, w, d, pad, True, True) if mk.product.data_copy_pad else None
        if n is None:  # no small-dim variant (no DataCopyPad): the strategy itself, on rows of whole blocks
            d, what = (4 if mk.product.data_copy_pad else 32 // g.itemsize), "sorted-run strategy"
            least = max(counted_minimum(w), found)
            n = sorted_run_indices(mk.spec, mk.product, (d,), w, g, i, det, padding=pad, scale=True, at_least=least)
            found = n or found
        if n is None:
            continue
        if not det:  # an atomic-mode call whose key is the deterministic one's (no hardware SyncAll): that runs it
            call = (mk.spec, mk.product, (n, d), w, g, i)
            keys = {tiling_decision(*call, m, pad, True).tiling_key for m in (False, True)}
            if len(keys) == 1:
                continue
        # rows seen exactly 1, 2 and 3 times (the scaling threshold) where the dtype holds 100 rows
        idx = mk.indices((n,), i, w) if i is DType.BOOL else mk.counted_indices(n, i, w)
        p = mk.params(mk.grad((n, d), g), idx, w, padding=pad, scaling=True)
        yield mk.case(dtype_label(g, i), f"[{n}, {d}]", f"{what}, {i.name} indices, {w} rows, D {d}", p, det)
