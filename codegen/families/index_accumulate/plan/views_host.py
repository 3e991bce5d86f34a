"""The views of the host sources (``op_host/``): the infershape, the tiling header and the tiling function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from codegen.families.index_accumulate.plan.dtype_keys import KeyDigits
from codegen.families.index_accumulate.plan.fixed_sizes import FixedSizes, SortSizes, VectorSortSizes
from codegen.families.index_accumulate.plan.roles import RolePositions
from codegen.families.index_accumulate.plan.sync_counters import SyncCounters
from codegen.plan.products import ArchGroup
from codegen.plan.shared_views import TilingHeaderView
from codegen.plan.view_bases import TilingSourceBase
from codegen.plan.views import KindView


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: output ``[num_rows, D]``, reading the rows input and the row-count
    attr at their ``positions`` in the OpDef."""

    KIND: ClassVar[str] = "infershape_cpp"
    num_rows: str
    out: str
    positions: RolePositions
    rows: str
    sync_counters: SyncCounters


@dataclass(frozen=True)
class IndexTilingHeaderView(TilingHeaderView):
    """``op_host/<kernel>_tiling.h`` (``op_host/index_accumulate_tiling.h.j2``): the shared header view and
    the names its comments use."""

    num_rows: str
    rows: str


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/index_accumulate_tiling.cpp.j2``): the tiling function;
    ``block_bytes`` in bytes, the fixed sizes and the sorted-run strategy's in their records, the roles'
    names and their ``positions`` in the OpDef."""

    block_bytes: int
    fixed_sizes: FixedSizes
    hw_sync_archs: tuple[ArchGroup, ...]
    index: str
    key_digits: KeyDigits
    padding: str
    positions: RolePositions
    rows: str
    scaling: str
    sort_sizes: SortSizes
    #: NpuArchs with DataCopyPad
    pad_archs: tuple[ArchGroup, ...]
    #: NpuArchs with the vector sort (Sort32, MrgSort) and its sizes
    sort_archs: tuple[ArchGroup, ...]
    vector_sort_sizes: VectorSortSizes
    sync_counters: SyncCounters
