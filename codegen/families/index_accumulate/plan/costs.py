"""The transfer-cost model the tiling weighs the strategies by: the GM bytes (or the cost with every DMA
counted as at least a floor of bytes) of the sorted-run strategy (:func:`sorted_bytes`) and of the atomic
or deterministic one (:func:`other_bytes`)."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.arith import align_up, ceil_div, sat_add, sat_mul
from codegen.families.index_accumulate.plan.constants import ACC_ALIGN, BLOCK_BYTES, FP32_BYTES, INDEX_UB_BYTES
from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.families.index_accumulate.plan.split import Split2D


def _dma(total: int, transfers: int, floor: int) -> int:
    """Cost of ``total`` bytes moved by ``transfers`` DMAs of about equal size when each DMA counts as at least
    ``floor`` bytes (0: plain bytes); saturated at 2^63 - 1."""
    return max(total, sat_mul(transfers, floor))


def _pieces(items: int, transfers: int, elem_bytes: int, length: int, piece: int, floor: int, pad: int = 1) -> int:
    """Cost of ``items`` rows of ``length`` elements of ``elem_bytes`` bytes moved in pieces of ``piece``
    elements (the last one shorter; each padded to ``pad`` elements), ``transfers`` DMAs per piece; saturated."""
    full, last = divmod(length, piece)
    total = sat_mul(full, _dma(sat_mul(sat_mul(items, align_up(piece, pad)), elem_bytes), transfers, floor))
    if last:
        total = sat_add(total, _dma(sat_mul(sat_mul(items, align_up(last, pad)), elem_bytes), transfers, floor))
    return total


def sorted_bytes(
    plan: SortPlan,
    n: int,
    w: int,
    d: int,
    grad_bytes: int,
    index_bytes: int,
    scale: bool,
    det: bool,
    floor: int = 0,
) -> int:
    """Estimated GM bytes (``floor`` 0) or transfer cost (``floor`` :data:`SMALL_DIM_BYTES`: every DMA counted
    as at least ``floor`` bytes) of the sorted-run strategy, saturated at 2^63 - 1.

    Counted: the indices read twice (count, scatter; 16 KiB copies); the count matrix written once and read by every
    core (the vector sort, ``sort_chunk`` > 0: the indices read once; the count matrix's ``matrix_rows`` rows
    written once, read by every core and each core's own once more; the (chunk, bucket) segments, 8 bytes per index,
    written with one copy each in place of the staging flushes, and, where a core has several chunks, the sorted
    chunks written and read back with one copy each way); grad read once -- small-dim: contiguously
    (``min(tile_rows, indices per copy)`` rows per DMA), pairs: one gathered row per entry and D-chunk pass; the
    sorted entries (8-byte pairs or ``4 x (d + 1)``-byte records, with the padding pairs of products without
    DataCopyPad, at most 3 per core and bucket) written in flushes of ``stage`` entries (plus a last, partial flush
    per core and bucket) and read ``pair_chunk`` at a time (plus one read per bucket and per core range) once per
    D-chunk pass (small-dim: once) and once more with scaling; out written once, one DMA per bucket and D-chunk; the
    software SyncAll's counters (products without hardware SyncAll); atomic mode: the buckets crossing core
    boundaries zero-filled and added atomically (at most 2 parts per core boundary, and the zero fills);
    deterministic: those parts written to
    their partial slots and read by the merge."""
    pairs = n + plan.cores * plan.buckets * (plan.pair_align - 1)
    rec_bytes = 4 * (d + 1) if plan.small_dim else 8
    # the vector sort reads the indices once (its sorted chunks are counted with the entries below)
    total = sat_mul(sat_mul(1 if plan.sort_chunk else 2, n), index_bytes)
    if plan.small_dim:
        per_copy = min(plan.tile_rows, INDEX_UB_BYTES // index_bytes)
        grad = _dma(sat_mul(sat_mul(n, d), grad_bytes), ceil_div(n, per_copy) + plan.cores, floor)
    else:
        grad = _pieces(n, n, grad_bytes, d, plan.d_chunk, floor)
    total = sat_add(total, grad)
    total = sat_add(total, _pieces(w, plan.buckets, FP32_BYTES, d, plan.d_chunk, floor))
    entries = sat_mul(pairs, rec_bytes)
    if plan.sort_chunk:
        # each chunk's count row written, every row read by every core and a core's own rows once more; each
        # chunk's sorted proposals written with one copy, each (chunk, bucket) segment read and written once
        total = sat_add(total, plan.matrix_rows * plan.matrix_stride * 4 * (2 + plan.cores))
        segments = min(plan.matrix_rows * plan.buckets, n)  # the empty segments are not copied
        total = sat_add(total, _dma(entries, segments, floor))
        if plan.matrix_rows > plan.cores:  # several chunks a core: each written out and read back in one copy
            total = sat_add(total, sat_mul(2, _dma(entries, plan.matrix_rows, floor)))
    else:
        total = sat_add(total, plan.cores * plan.matrix_stride * 4 * (1 + plan.cores))
        flushes = pairs // plan.stage + plan.cores * plan.buckets
        total = sat_add(total, _dma(entries, flushes, floor))
    reads = (1 if plan.small_dim else ceil_div(d, plan.d_chunk)) + (1 if scale else 0)
    loads = ceil_div(pairs, plan.pair_chunk) + plan.buckets + plan.cores
    total = sat_add(total, sat_mul(reads, _dma(entries, loads, floor)))
    if plan.soft_sync:  # two barriers (three in deterministic mode): each writes its counter, reads every core's
        total = sat_add(total, (3 if det else 2) * plan.cores * (plan.cores + 1) * BLOCK_BYTES)
    # atomic: at most 2 partial parts per core boundary, each added atomically, and their zero fills;
    # deterministic: at most 2 parts per core boundary, each written to its partial slot and read by the merge
    parts = 2 * (plan.cores - 1) + min(plan.buckets, plan.cores - 1) if not det else 4 * (plan.cores - 1)
    return sat_add(total, _pieces(parts * plan.bucket_rows, parts, FP32_BYTES, d, plan.d_chunk, floor))


def other_bytes(
    det: bool,
    n: int,
    w: int,
    d: int,
    acc_stride: int,
    grad_bytes: int,
    index_bytes: int,
    scale: bool,
    row_split: Split2D,
    index_split: Split2D,
    acc_in_ws: bool,
    ub_acc: bool,
    tile_rows: int,
    d_chunk: int,
    floor: int = 0,
) -> int:
    """Estimated GM bytes (``floor`` 0) or transfer cost (``floor`` :data:`SMALL_DIM_BYTES`: every DMA counted
    as at least ``floor`` bytes) of the atomic (``det`` False) or deterministic strategy, saturated.

    Atomic: every index read once per D-slice, grad once (tiles of up to ``tile_rows`` rows per D-slice), one
    fp32 atomic add per contribution and D-slice (whole 32-byte blocks, one DMA each), the zero fill, a final
    pass when the accumulator is not the output or with scaling (read + write, one DMA per row and D-chunk), and
    the count scans. Deterministic: every owning core reads its group's indices; grad is read in tiles when
    one row group owns every row, else one row (D-slice) per DMA (the runs of positions one owner takes are
    short for spread indices); every contribution reads and writes its accumulator blocks (one DMA each), the
    zero fill, the final pass, the partials of index groups 1.. (written, read per row). Deterministic with the
    sums in UB (``ub_acc``): indices and grad as before, then out written once (``w * d * 4``) or, with ``G`` >
    1 index groups, the accumulator and partials written once each (``G * w * acc_stride * 4``) and read per
    row by the owners, which write out per row (``(G + 1) * w * acc_stride * 4``)."""
    acc = sat_mul(sat_mul(w, acc_stride), FP32_BYTES)
    # the final pass: one DMA per owned row and D-chunk of its slice, each way
    row_dmas = sat_mul(sat_mul(w, row_split.slices), ceil_div(min(row_split.slice_length, d), d_chunk))
    row_pass = _dma(acc, row_dmas, floor)
    grad_all = sat_mul(sat_mul(n, d), grad_bytes)
    if not det:
        tiles = sat_mul(index_split.slices, ceil_div(n, tile_rows))
        total = sat_add(sat_mul(sat_mul(n, index_bytes), index_split.slices), _dma(grad_all, tiles, floor))
        adds = _pieces(n, n, FP32_BYTES, d, index_split.slice_length, floor, ACC_ALIGN)
        total = sat_add(total, sat_add(adds, acc))
        if acc_in_ws or scale:  # atomic: no partials to merge
            total = sat_add(total, sat_mul(2, row_pass))
        return sat_add(total, sat_mul(sat_mul(row_split.cores, n), index_bytes) if scale else 0)
    groups = index_split.groups
    if row_split.groups > 1:
        grad = _pieces(n, n, grad_bytes, d, row_split.slice_length, floor)
    else:
        grad = _dma(grad_all, sat_mul(row_split.slices, ceil_div(n, tile_rows)), floor)
    reads = sat_add(sat_mul(sat_mul(row_split.cores, n), index_bytes), grad)
    if ub_acc:
        if groups > 1:
            return sat_add(reads, sat_add(sat_mul(groups, acc), sat_mul(groups + 1, row_pass)))
        return sat_add(reads, sat_mul(sat_mul(w, d), FP32_BYTES))
    rmw = sat_mul(2, _pieces(n, n, FP32_BYTES, d, row_split.slice_length, floor, ACC_ALIGN))
    total = sat_add(sat_add(reads, rmw), acc)
    if acc_in_ws or scale or groups > 1:
        total = sat_add(total, sat_mul(2, row_pass))
    return sat_add(total, sat_mul(groups - 1, sat_add(acc, row_pass)))
