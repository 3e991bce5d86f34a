"""A sorted-run plan (:class:`SortPlan`): its sizes, and its workspace offsets and UB bytes laid out from
them (:func:`sort_layout`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from codegen.families.index_accumulate.plan.arith import align_up
from codegen.families.index_accumulate.plan.constants import (
    ACC_ALIGN,
    BLOCK_BYTES,
    CACHE_LINE_BYTES,
    FP32_BYTES,
    INDEX_UB_BYTES,
    SORT_PAIR_CHUNK,
)


@dataclass(frozen=True)
class SortPlan:
    """The sorted-run strategy's sizes for one call (all zero with ``reason`` set when it cannot run).

    Mirrors ``PlanSorted`` of the generated tiling function. Units: ``*_rows``, ``buckets``, ``stage``,
    ``pair_chunk``, ``tile_rows`` are counts; ``d_chunk`` elements; ``*_offset``, ``*_bytes`` bytes.
    """

    cores: int = 0
    buckets: int = 0
    bucket_rows: int = 0
    stage: int = 0
    pair_chunk: int = 0
    d_chunk: int = 0
    tile_rows: int = 0
    matrix_stride: int = 0
    matrix_offset: int = 0
    pairs_offset: int = 0
    partials_offset: int = 0
    workspace_bytes: int = 0
    ub_bytes: int = 0
    reason: str = ""
    #: pairs each (core, bucket) segment is rounded up to (4 without DataCopyPad: whole 32-byte blocks)
    pair_align: int = 1
    #: whether the barriers are the software SyncAll on the counters output (no hardware SyncAll)
    soft_sync: bool = False
    #: the small-dim variant: phase 2 writes records (row key, D fp32 values) instead of (row, position) pairs
    small_dim: bool = False
    #: why the small-dim variant is or is not taken (the byte model's numbers)
    small_dim_reason: str = ""
    #: phases 1-2 by the vector sort: indices per sorted chunk (0: the scalar counting sort)
    sort_chunk: int = 0
    #: vector sort: count-matrix rows (one per chunk of every core) and the sorted chunks' workspace offset
    matrix_rows: int = 0
    sorted_offset: int = 0
    #: why phases 1-2 run the vector sort or the counting sort (:func:`.vector_sort.vector_sort_refusal`)
    sort_reason: str = ""

    @property
    def feasible(self) -> bool:
        """Whether the sorted strategy can run (``cores > 0``)."""
        return self.cores > 0


def sort_layout(plan: SortPlan, n: int, d: int, grad_bytes: int, arrays: int, det: bool) -> SortPlan:
    """``plan`` (pairs or records, with its ``stage``, ``tile_rows`` and ``pair_chunk``) with its workspace
    offsets and UB bytes filled in; ``arrays`` are the UB bytes of its bucket arrays (:func:`sort_plan`)."""
    rec_bytes = 4 * (d + 1) if plan.small_dim else 8
    pairs_offset = align_up(plan.cores * plan.matrix_stride * 4, CACHE_LINE_BYTES)
    pairs_end = pairs_offset + rec_bytes * (n + plan.cores * plan.buckets * (plan.pair_align - 1))
    partials_offset = align_up(pairs_end, CACHE_LINE_BYTES)
    partials_bytes = 2 * plan.cores * plan.bucket_rows * d * FP32_BYTES
    stride = align_up(plan.d_chunk, ACC_ALIGN)
    if plan.small_dim:  # packed grad rows and their fp32 cast (16-bit grads)
        tile_ub = align_up(plan.tile_rows * d * grad_bytes, BLOCK_BYTES)
        tile_ub += align_up(plan.tile_rows * d * FP32_BYTES, BLOCK_BYTES) if grad_bytes != FP32_BYTES else 0
    else:
        tile_ub = plan.tile_rows * align_up(plan.d_chunk * grad_bytes, BLOCK_BYTES)
    ub = (
        INDEX_UB_BYTES
        + SORT_PAIR_CHUNK * 8
        + max(plan.buckets * plan.stage * rec_bytes, plan.bucket_rows * stride * FP32_BYTES)
        + arrays
        + (0 if not plan.soft_sync else plan.cores * BLOCK_BYTES)
        + tile_ub
    )
    return replace(
        plan,
        pairs_offset=pairs_offset,
        partials_offset=partials_offset if det else 0,
        workspace_bytes=partials_offset + partials_bytes if det else pairs_end,
        ub_bytes=ub,
    )
