"""The record of what the tiling function decides for one call on one product (:class:`TilingDecision`),
and its tiling-struct values by field name."""

from __future__ import annotations

from dataclasses import dataclass, field

from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.families.index_accumulate.plan.split import Split2D
from codegen.families.index_accumulate.plan.tiling_fields import TILING_FIELDS
from codegen.plan.tiling_decision import UbSplitDecision


@dataclass(frozen=True)
class TilingDecision(UbSplitDecision):
    """What the tiling function decides for one call on one product (units in the field names)."""

    FIELDS = TILING_FIELDS
    grad_dtype: str
    index_dtype: str
    deterministic: bool
    num_weights: int
    embedding_dim: int
    num_indices: int
    padding_row: int
    scale: bool
    acc_stride: int
    acc_in_workspace: bool
    counts_offset: int
    buffer_num: int
    d_chunk_max: int
    d_chunk: int
    index_chunk: int
    slice_align: int
    row_split: Split2D
    rows_per_group: int
    rows_former_num: int
    index_split: Split2D
    indices_per_group: int
    indices_former_num: int
    counts_slice_stride: int
    partials_offset: int
    tile_rows: int = 1
    ub_accumulate: bool = False
    sort: SortPlan = field(default_factory=SortPlan)
    sorted_run: bool = False
    #: GM bytes of the sorted-run / the other strategy (:func:`sorted_bytes`, :func:`other_bytes` with floor 0)
    sorted_bytes_estimate: int = 0
    other_bytes_estimate: int = 0
    #: their transfer costs (floor :data:`SMALL_DIM_BYTES`), which the tiling compares
    sorted_cost_estimate: int = 0
    other_cost_estimate: int = 0

    @property
    def strategy(self) -> str:
        """``atomic``, ``deterministic``, ``sorted`` or ``sorted deterministic``."""
        if self.sorted_run:
            return "sorted deterministic" if self.deterministic else "sorted"
        return "deterministic" if self.deterministic else "atomic"
