"""Sizing the sorted-run strategy for one call (:func:`sort_plan`): whether it can run on the product,
its buckets, staging slots, D-chunk and grad tiles, and the choice of records or (row, position) pairs."""

from __future__ import annotations

from dataclasses import replace

from codegen.families.index_accumulate.plan.arith import align_up, ceil_div, sat_mul
from codegen.families.index_accumulate.plan.constants import (
    ACC_ALIGN,
    BLOCK_BYTES,
    CACHE_LINE_BYTES,
    COST_LIMIT,
    FP32_BYTES,
    INDEX_UB_BYTES,
    INT32_LIMIT,
    MAX_BLOCK_COUNT,
    MAX_BLOCK_FIELD,
    PAIRS_PER_BLOCK,
    PROPOSAL_BYTES,
    SMALL_DIM_BYTES,
    SORT_BUCKETS_PER_CORE,
    SORT_D_CHUNK_MAX,
    SORT_PAIR_CHUNK,
    SORT_STAGE_MIN,
)
from codegen.families.index_accumulate.plan.costs import sorted_bytes
from codegen.families.index_accumulate.plan.sorted_layout import SortPlan, sort_layout
from codegen.families.index_accumulate.plan.split import cores_wanted
from codegen.families.index_accumulate.plan.sync_counters import SYNC_CORES_MAX
from codegen.families.index_accumulate.plan.vector_sort import (
    VECTOR_SORT_CHUNK_MAX,
    segments_ub,
    sort_chunk_ub,
    vector_sort_plan,
)
from codegen.spec.model import Product
from codegen.spec.naming import a_or_an


def _sort_refusal(product: Product, d: int, grad_bytes: int) -> str:
    """Why the sorted-run strategy cannot run on ``product`` for rows of ``d`` elements of ``grad_bytes``
    bytes ("" when it can): without DataCopyPad every grad row, pair segment and output row moves in whole
    32-byte blocks with DataCopy, so a row must be whole blocks (``d * grad_bytes`` a multiple of 32) and its
    stride must fit DataCopyParams' uint16 block fields."""
    if product.data_copy_pad:
        return ""
    row_bytes = d * grad_bytes
    if row_bytes % BLOCK_BYTES != 0:
        return (
            f"{product.name} has no DataCopyPad and a row of {d} elements is {row_bytes} bytes, not whole "
            f"{BLOCK_BYTES}-byte blocks (the sort gathers grad rows and writes output rows with DataCopy)"
        )
    if row_bytes // BLOCK_BYTES > MAX_BLOCK_FIELD:
        return (
            f"{product.name} has no DataCopyPad and a row of {row_bytes} bytes exceeds DataCopy's stride field "
            f"({MAX_BLOCK_FIELD} blocks)"
        )
    return ""


def sort_plan(
    product: Product,
    ub_reserved: int,
    min_bytes: int,
    n: int,
    w: int,
    d: int,
    grad_bytes: int,
    index_bytes: int,
    scale: bool,
    det: bool = False,
) -> SortPlan:
    """The sorted-run plan (:func:`counting_sort_plan`; with a larger work buffer where that lets the vector
    sort take a longer chunk, up to one per core's index range, and leaves the D-chunk and the variant) with
    phases 1-2 on the vector sort where it can run
    (:func:`.vector_sort.vector_sort_plan`: products with ``vector_sort``, pairs, rows with exact float keys)
    and its (chunk, bucket) segments hold at least :data:`SORT_STAGE_MIN` pairs on average (``n >=
    matrix_rows x buckets x SORT_STAGE_MIN``; each segment is copied by a DMA of its own each way):
    ``sort_chunk``, ``matrix_rows``, the count matrix's stride and the sorted chunks, pairs and partials offsets
    from it; elsewhere the scalar counting sort. ``sort_reason`` says which and why."""
    plan = counting_sort_plan(product, ub_reserved, min_bytes, n, w, d, grad_bytes, index_bytes, scale, det)
    if not plan.feasible:
        return plan
    vs = vector_sort_plan(product, plan, n, w)
    if not vs.feasible:
        return replace(plan, sort_reason=f"scalar counting sort: {vs.reason}")
    # the longest chunk (up to one per core) a larger work buffer gives where it leaves the D-chunk, the staging
    # slots and a grad tile row: fewer count-matrix rows, segments and bucket searches
    target = min(VECTOR_SORT_CHUNK_MAX, 1 << (ceil_div(n, plan.cores) - 1).bit_length())
    while target > vs.chunk:
        need = max(sort_chunk_ub(target), segments_ub(target, plan.buckets))
        work = align_up(need + plan.buckets * PROPOSAL_BYTES * 4, BLOCK_BYTES)  # the slots round down to 4 pairs
        wider = counting_sort_plan(
            product, ub_reserved, min_bytes, n, w, d, grad_bytes, index_bytes, scale, det, work_bytes=work
        )
        if wider.feasible and wider.d_chunk == plan.d_chunk and not wider.small_dim:
            longer = vector_sort_plan(product, wider, n, w)
            if longer.feasible and longer.chunk > vs.chunk:
                plan, vs = wider, longer
                break
        target //= 2
    segments = vs.matrix_rows * plan.buckets
    if n < segments * SORT_STAGE_MIN:
        # each (chunk, bucket) segment is copied twice by a DMA of its own: below the counting sort's shortest
        # staging flush on average those copies cost more transfers than the sort saves
        return replace(
            plan,
            sort_reason=f"scalar counting sort: the vector sort's {segments} (chunk, bucket) segments would hold "
            f"{n / segments:.1f} pairs on average, fewer than a staging flush's {SORT_STAGE_MIN}",
        )
    partials_offset = align_up(vs.workspace_bytes, CACHE_LINE_BYTES)
    return replace(
        plan,
        sort_chunk=vs.chunk,
        matrix_rows=vs.matrix_rows,
        matrix_stride=vs.matrix_stride,
        sorted_offset=vs.sorted_offset,
        pairs_offset=vs.pairs_offset,
        partials_offset=partials_offset if det else 0,
        workspace_bytes=partials_offset + 2 * plan.cores * plan.bucket_rows * d * FP32_BYTES
        if det
        else vs.workspace_bytes,
        sort_reason=f"vector sort: {product.name} has Sort32 and MrgSort; chunks of {vs.chunk} indices, "
        f"{vs.merge_passes} MrgSort passes, at most {vs.boundary_reads} scalar reads per chunk for the bucket "
        "boundaries",
    )


def counting_sort_plan(
    product: Product,
    ub_reserved: int,
    min_bytes: int,
    n: int,
    w: int,
    d: int,
    grad_bytes: int,
    index_bytes: int,
    scale: bool,
    det: bool = False,
    work_bytes: int = 0,
) -> SortPlan:
    """Sizes of the sorted-run strategy (see the kernel template) for ``n`` indices into ``w`` rows of ``d``.
    ``work_bytes`` (> 0) sets the work buffer instead of half the rest (:func:`sort_plan`: room for a longer
    vector-sort chunk).

    UB (``ub_bytes - ub_reserved``): the indices buffer (:data:`INDEX_UB_BYTES`), a pair chunk
    (:data:`SORT_PAIR_CHUNK` x 8 bytes), a work buffer of half the rest (phase 2: ``buckets x stage`` staged
    pairs; phase 3: the fp32 accumulator ``bucket_rows x AlignUp(d_chunk, 8)``), three int32 bucket arrays (with
    DataCopyPad the first holds a 32-byte block per bucket: phase 1 counts into each with a vector Adds),
    the fp32 cast row (16-bit grads), the int32 run counts (scaling: one 32-byte block per bucket row, so
    that a vector instruction can count into each), the software SyncAll's UB workspace
    (``cores x 32`` bytes, products without hardware SyncAll) and the grad tile with everything left
    (``tile_rows`` rows of ``AlignUp(d_chunk * grad_bytes, 32)`` bytes, at most 4095). A bucket has as many rows
    as the accumulator holds, at most 4095 and at most ``ceil(w / (4 * cores))``. ``d_chunk`` starts at
    ``min(AlignUp(d, align), 2048)`` and halves (whole ``align``-element blocks; ``align`` 8, or 32 bytes of
    grad without DataCopyPad) until the staging slots hold at least :data:`SORT_STAGE_MIN` pairs. Cores: one
    per ``min_bytes`` of grad, up to the product's.

    Small-dim variant (``small_dim``): when a row fits one D-chunk and the whole call costs less with records
    than with pairs by :func:`sorted_bytes` with ``floor`` :data:`SMALL_DIM_BYTES` (the transfer-cost model the
    tiling uses for every strategy: each DMA counted as at least one efficient DMA, so a gathered short row
    costs 512 bytes) -- phase 2 reads the grad rows of its index range contiguously (``tile_rows`` packed rows
    per DataCopyPad, plus their fp32 cast for 16-bit grads) and stages records of ``d + 1`` 4-byte words (the
    int32 row key, then the row's fp32 values) in slots of ``stage`` records (``work // (buckets x 4 x (d +
    1))`` rounded down to 8); phase 3 reads them contiguously (``pair_chunk = 2 * SORT_PAIR_CHUNK // (d + 1)``
    records at a time) and never gathers. Needs DataCopyPad (``small_dim_reason`` says why not, or gives the
    two costs) and staging slots of at least :data:`SORT_STAGE_MIN` records. ``index_bytes`` (bytes of one
    index) enters the two costs.

    Without DataCopyPad every (core, bucket) segment of the sorted pairs is rounded up to whole 32-byte blocks
    (:data:`PAIRS_PER_BLOCK` pairs) with padding pairs, so the pair array holds up to ``n + cores x buckets x
    3`` pairs. Deterministic mode (``det``) adds, after the pairs (on a 64-byte line), ``2 x cores`` fp32
    partial slots of ``bucket_rows x d`` for the parts of buckets split between cores. Without hardware SyncAll
    the barriers (two; three in deterministic mode) are the software ``SyncAll(gmWorkspace, ubWorkspace,
    usedCores)`` on the device op's zero-initialised :data:`SYNC_OUTPUT` output (at most
    :data:`SYNC_CORES_MAX` cores).

    Not possible (``reason`` says why): without DataCopyPad a row that is not whole 32-byte blocks
    (:func:`_sort_refusal`), an empty call (``n``, ``w`` or ``d`` 0), ``n``, ``w`` or a row's bytes beyond
    int32 (the pairs are int32), grad or out beyond 2^61 bytes, or a UB too small for the staging slots.
    """
    if n <= 0 or w <= 0 or d <= 0:
        return SortPlan(reason="nothing to sort (no indices, rows or columns)")
    refusal = _sort_refusal(product, d, grad_bytes)
    if refusal:
        return SortPlan(reason=refusal)
    if n > INT32_LIMIT or w > INT32_LIMIT or sat_mul(d, grad_bytes) > INT32_LIMIT:
        return SortPlan(reason="indices, rows or a row's bytes beyond int32 (the sorted pairs are int32)")
    if sat_mul(sat_mul(w, d), FP32_BYTES) > COST_LIMIT or sat_mul(n, d * grad_bytes + 8) > COST_LIMIT:
        return SortPlan(reason="grad or out beyond 2^61 bytes (the kernel's int64 cost split)")
    cores = cores_wanted(sat_mul(sat_mul(n, d), grad_bytes), product.vector_core_num, min_bytes)
    if not product.hw_sync_all and cores > SYNC_CORES_MAX:
        return SortPlan(reason=f"more than {SYNC_CORES_MAX} cores for the software SyncAll's counters")
    chunk_align = ACC_ALIGN if product.data_copy_pad else max(ACC_ALIGN, BLOCK_BYTES // grad_bytes)
    pair_align = 1 if product.data_copy_pad else PAIRS_PER_BLOCK
    sync_ub = 0 if product.hw_sync_all else cores * BLOCK_BYTES
    # at least SORT_BUCKETS_PER_CORE buckets per core: a bucket crossing a core boundary costs its rows twice
    row_cap = max(1, ceil_div(w, SORT_BUCKETS_PER_CORE * cores))
    budget = product.ub_bytes - ub_reserved - INDEX_UB_BYTES - SORT_PAIR_CHUNK * 8 - sync_ub
    work = work_bytes if work_bytes > 0 else budget // 2 // BLOCK_BYTES * BLOCK_BYTES
    d_chunk = min(align_up(d, chunk_align), SORT_D_CHUNK_MAX)
    while True:
        stride = align_up(d_chunk, ACC_ALIGN)
        bucket_rows = min(work // (stride * FP32_BYTES), MAX_BLOCK_COUNT, row_cap)
        if bucket_rows >= 1:
            buckets = ceil_div(w, bucket_rows)
            stage = work // (buckets * 8) // 4 * 4
            arrays = 3 * align_up((buckets + 1) * 4, BLOCK_BYTES)
            if product.data_copy_pad:  # phase 1 counts bucket b in UB block b (one vector Adds per index)
                arrays += max(0, buckets * BLOCK_BYTES - align_up((buckets + 1) * 4, BLOCK_BYTES))
            arrays += bucket_rows * BLOCK_BYTES if scale else 0  # a 32-byte block of int32 counts per row
            arrays += stride * FP32_BYTES if grad_bytes != FP32_BYTES else 0
            pitch = align_up(d_chunk * grad_bytes, BLOCK_BYTES)
            tile_rows = min(MAX_BLOCK_COUNT, (budget - work - arrays) // pitch) if budget > work + arrays else 0
            if stage >= SORT_STAGE_MIN and tile_rows >= 1:
                break
        if d_chunk <= chunk_align:
            return SortPlan(reason=f"UB too small for {ceil_div(w, 1)} rows in staging slots of {SORT_STAGE_MIN} pairs")
        d_chunk = align_up(d_chunk // 2, chunk_align)
    base = SortPlan(
        cores=cores,
        buckets=buckets,
        bucket_rows=bucket_rows,
        stage=stage,
        pair_chunk=SORT_PAIR_CHUNK,
        d_chunk=d_chunk,
        tile_rows=tile_rows,
        matrix_stride=align_up(buckets, ACC_ALIGN),
        pair_align=pair_align,
        soft_sync=not product.hw_sync_all,
    )
    pairs = sort_layout(base, n, d, grad_bytes, arrays, det)
    rec_words = d + 1
    if not product.data_copy_pad:
        return replace(
            pairs,
            small_dim_reason=f"{product.name} has no DataCopyPad and a record of a row key and {d} fp32 values "
            f"({4 * rec_words} bytes) is not whole 32-byte blocks",
        )
    if d_chunk < d:
        return replace(pairs, small_dim_reason=f"a row takes {ceil_div(d, d_chunk)} D-chunk passes")
    rec_stage = work // (buckets * 4 * rec_words) // 8 * 8  # each slot starts on a 32-byte block
    rec_arrays = arrays - (stride * FP32_BYTES if grad_bytes != FP32_BYTES else 0)
    per_row = d * grad_bytes + (d * FP32_BYTES if grad_bytes != FP32_BYTES else 0)
    spare = budget - work - rec_arrays - 2 * BLOCK_BYTES
    rec_tile = min(MAX_BLOCK_COUNT, spare // per_row) if spare > 0 else 0
    if rec_stage < SORT_STAGE_MIN or rec_tile < 1 or rec_words > 2 * SORT_PAIR_CHUNK:
        return replace(
            pairs,
            small_dim_reason=f"UB too small for staging slots of {SORT_STAGE_MIN} records of {4 * rec_words} bytes",
        )
    records = replace(
        base, stage=rec_stage, tile_rows=rec_tile, pair_chunk=2 * SORT_PAIR_CHUNK // rec_words, small_dim=True
    )
    records = sort_layout(records, n, d, grad_bytes, rec_arrays, det)
    rec_cost = sorted_bytes(records, n, w, d, grad_bytes, index_bytes, scale, det, SMALL_DIM_BYTES)
    pair_cost = sorted_bytes(pairs, n, w, d, grad_bytes, index_bytes, scale, det, SMALL_DIM_BYTES)
    model = (
        f"transfer cost (GM bytes, each DMA counted as at least {SMALL_DIM_BYTES} bytes) {rec_cost} with records "
        f"(grad read contiguously, {a_or_an(str(4 * rec_words))} {4 * rec_words}-byte record per entry written and read"
        f"{' twice' if scale else ''}) vs {pair_cost} with (row, position) pairs (a grad row gathered per entry)"
    )
    if rec_cost < pair_cost:
        return replace(records, small_dim_reason=model)
    return replace(pairs, small_dim_reason=model)
