"""The record of what the tiling function decides for one call on one product (:class:`TilingDecision`),
and its tiling-struct values by field name."""

from __future__ import annotations

from dataclasses import dataclass, field

from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.families.index_accumulate.plan.split import Split2D


@dataclass(frozen=True)
class TilingDecision:
    """What the tiling function decides for one call on one product (units in the field names).

    ``ub_split`` lists ``(buffer, count, bytes_each)`` for every UB allocation of one core.
    """

    product: str
    grad_dtype: str
    index_dtype: str
    deterministic: bool
    tiling_key: int
    num_weights: int
    embedding_dim: int
    num_indices: int
    padding_row: int
    scale: bool
    acc_stride: int
    acc_in_workspace: bool
    counts_offset: int
    workspace_bytes: int
    buffer_num: int
    bytes_per_element: int
    ub_budget_bytes: int
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
    block_dim: int
    ub_split: tuple[tuple[str, int, int], ...]
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

    def tiling_fields(self) -> dict[str, int]:
        """The values of the generated tiling struct, by the field names of :data:`TILING_FIELDS`."""
        return {
            "numRows": self.num_weights,
            "rowLength": self.embedding_dim,
            "numIndices": self.num_indices,
            "paddingRow": self.padding_row,
            "countScaling": int(self.scale),
            "accStride": self.acc_stride,
            "accInWorkspace": int(self.acc_in_workspace),
            "countsOffset": self.counts_offset,
            "dChunk": self.d_chunk,
            "indexChunk": self.index_chunk,
            "rowGroupNum": self.row_split.groups,
            "rowsPerGroup": self.rows_per_group,
            "rowsFormerNum": self.rows_former_num,
            "rowSliceNum": self.row_split.slices,
            "rowSliceLength": self.row_split.slice_length,
            "indexGroupNum": self.index_split.groups,
            "indicesPerGroup": self.indices_per_group,
            "indicesFormerNum": self.indices_former_num,
            "indexSliceNum": self.index_split.slices,
            "indexSliceLength": self.index_split.slice_length,
            "countsSliceStride": self.counts_slice_stride,
            "partialsOffset": self.partials_offset,
            "tileRows": self.tile_rows,
            "ubAccumulate": int(self.ub_accumulate),
            "sortCores": self.sort.cores if self.sorted_run else 0,
            "sortBuckets": self.sort.buckets if self.sorted_run else 0,
            "sortBucketRows": self.sort.bucket_rows if self.sorted_run else 0,
            "sortStage": self.sort.stage if self.sorted_run else 0,
            "sortPairChunk": self.sort.pair_chunk if self.sorted_run else 0,
            "sortDChunk": self.sort.d_chunk if self.sorted_run else 0,
            "sortTileRows": self.sort.tile_rows if self.sorted_run else 0,
            "sortMatrixStride": self.sort.matrix_stride if self.sorted_run else 0,
            "sortMatrixOffset": self.sort.matrix_offset if self.sorted_run else 0,
            "sortPartialsOffset": self.sort.partials_offset if self.sorted_run else 0,
            "sortPairsOffset": self.sort.pairs_offset if self.sorted_run else 0,
            "sortSmallDim": int(self.sort.small_dim) if self.sorted_run else 0,
        }
