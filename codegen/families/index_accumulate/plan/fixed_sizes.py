"""The fixed sizes of :mod:`.constants` as the templates read them: one record the tiling function and the
kernel both print (so the two cannot disagree on a size), and the sorted-run strategy's sizes, which the
tiling function alone prints."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TypeVar

from codegen.families.index_accumulate.plan import constants


@dataclass(frozen=True)
class FixedSizes:
    """The sizes the tiling function and the kernel share (each the constant of :mod:`.constants` named like
    it in upper case, where its source is cited).

    Attributes:
        fp32_bytes: bytes of an fp32 value; count_bytes: bytes of an occurrence count (int64);
        cache_line_bytes: bytes of a line of the scalar data cache.
        acc_align: fp32 elements per 32-byte block (the accumulator's row alignment); chunk_align: fp32
        elements per 256-byte repeat (the granularity of dChunk).
        tile_buffers: buffers of the grad tile queue; index_ub_bytes: UB bytes of one buffer of the indices
        queue.
        slice_overhead_bytes: bytes the core split charges per row (or index) and D-slice.
        small_dim_bytes: bytes of one efficient DMA (a shorter grad row takes the small-dim path).
        max_block_count: largest blockCount of one DataCopyPad; max_block_field: largest blockLen / srcStride /
        dstStride of DataCopyParams (32-byte blocks).
        pairs_per_block: (row, position) int32 pairs per 32-byte block.
    """

    fp32_bytes: int
    count_bytes: int
    cache_line_bytes: int
    acc_align: int
    chunk_align: int
    tile_buffers: int
    index_ub_bytes: int
    slice_overhead_bytes: int
    small_dim_bytes: int
    max_block_count: int
    max_block_field: int
    pairs_per_block: int


@dataclass(frozen=True)
class SortSizes:
    """The sorted-run strategy's sizes (the ``SORT_*`` constants of :mod:`.constants`).

    Attributes:
        pair_chunk: (row, position) pairs read into UB at once; d_chunk_max: longest row part summed at once
        (elements); stage_min: fewest pairs per bucket staging slot; buckets_per_core: fewest row buckets per
        core.
    """

    pair_chunk: int
    d_chunk_max: int
    stage_min: int
    buckets_per_core: int


@dataclass(frozen=True)
class VectorSortSizes:
    """The vector sort's sizes (:mod:`.vector_sort`): ``chunk_min`` / ``chunk_max`` fewest and most indices per
    sorted chunk, ``key_rows`` the most rows whose float sort key is exact, ``proposal_bytes`` bytes of one
    sorted (float key, uint32 position) proposal, ``sort32_elements`` keys one Sort32 repeat sorts,
    ``mrg_sort_queues`` queues one MrgSort merges at most, ``search_stride`` keys the bucket search steps
    over at once, ``queue_max`` proposals one MrgSort queue holds at most."""

    chunk_min: int
    chunk_max: int
    key_rows: int
    proposal_bytes: int
    sort32_elements: int
    mrg_sort_queues: int
    search_stride: int
    queue_max: int


R = TypeVar("R", FixedSizes, SortSizes)


def _of_constants(record: type[R], prefix: str = "") -> R:
    """``record`` with each field the constant of :mod:`.constants` named ``prefix`` + the field's name in
    upper case."""
    return record(**{f.name: getattr(constants, prefix + f.name.upper()) for f in fields(record)})


#: The family's fixed sizes (:class:`FixedSizes`).
FIXED_SIZES = _of_constants(FixedSizes)
#: The sorted-run strategy's sizes (:class:`SortSizes`).
SORT_SIZES = _of_constants(SortSizes, "SORT_")
