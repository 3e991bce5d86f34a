"""The views of the host sources (``op_host/``): the infershape, the tiling header and the tiling function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from codegen.families.index_accumulate.plan.dtype_keys import IndexKey
from codegen.plan.dtype_keys import DtypeKey
from codegen.plan.products import ArchGroup
from codegen.plan.shared_views import TilingHeaderView
from codegen.plan.view_bases import TilingSourceBase
from codegen.plan.views import KindView


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: output ``[num_rows, D]``; ``*_index``/``*_position``: the attr's
    and the tensor's positions in the OpDef."""

    KIND: ClassVar[str] = "infershape_cpp"
    num_rows: str
    num_rows_index: int
    out: str
    rows: str
    rows_position: int
    #: the software SyncAll's counters output: its name and int32 element count
    sync_output: str
    sync_ints: int


@dataclass(frozen=True)
class IndexTilingHeaderView(TilingHeaderView):
    """``op_host/<kernel>_tiling.h`` (``op_host/index_accumulate_tiling.h.j2``): the shared header view and
    the names its comments use."""

    num_rows: str
    rows: str


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/index_accumulate_tiling.cpp.j2``): the tiling function;
    sizes in bytes, alignments in elements, positions/indexes in the OpDef (-1: attr absent)."""

    acc_align: int
    block_bytes: int
    cache_line_bytes: int
    chunk_align: int
    count_bytes: int
    fp32_bytes: int
    grad_keys: tuple[DtypeKey, ...]
    hw_sync_archs: tuple[ArchGroup, ...]
    index: str
    index_keys: tuple[IndexKey, ...]
    index_position: int
    index_ub_bytes: int
    max_block_count: int
    num_rows_index: int
    padding: str
    padding_index: int
    rows: str
    rows_position: int
    scaling: str
    scaling_index: int
    slice_overhead_bytes: int
    #: the sorted-run strategy's sizes (pairs, elements, slots, buckets)
    sort_buckets_per_core: int
    sort_d_chunk_max: int
    sort_pair_chunk: int
    sort_stage_min: int
    #: a gathered grad row counts as at least this many bytes in the small-dim variant's byte model
    small_dim_bytes: int
    #: buffers of the grad tile queue (double buffering)
    tile_buffers: int
    #: NpuArchs with DataCopyPad; pairs per 32-byte block; DataCopyParams' largest block field; the cores the
    #: software SyncAll's counters output holds
    pad_archs: tuple[ArchGroup, ...]
    pairs_per_block: int
    max_block_field: int
    sync_cores_max: int
    sync_output: str
