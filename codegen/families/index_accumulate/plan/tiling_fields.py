"""The tiling struct of an index-accumulate op: every int64 field in order, with its description and the
C++ expression the tiling function sets it to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.plan.tiling_fields import TilingField

if TYPE_CHECKING:
    from codegen.families.index_accumulate.plan.decision import TilingDecision

#: The tiling struct, in order: every field is int64 (numRows and the row count may exceed 2^31). The
#: tiling header declares these, the tiling function sets them to ``value_cpp``; :meth:`TilingDecision.tiling_fields`
#: gives their values by name.
TILING_FIELDS: tuple[TilingField[TilingDecision], ...] = (
    TilingField("numRows", "int64_t", "rows of the output", "numRows", lambda d: d.num_weights),
    TilingField(
        "rowLength",
        "int64_t",
        "D: elements per row of the rows input and of the output",
        "rowLength",
        lambda d: d.embedding_dim,
    ),
    TilingField(
        "numIndices",
        "int64_t",
        "N: rows of the rows input = elements of the index input",
        "numIndices",
        lambda d: d.num_indices,
    ),
    TilingField(
        "paddingRow", "int64_t", "output row that receives nothing; -1 for none", "paddingRow", lambda d: d.padding_row
    ),
    TilingField(
        "countScaling",
        "int64_t",
        "1: divide each row by the occurrence count of its index",
        "countScaling",
        lambda d: int(d.scale),
    ),
    TilingField(
        "accStride",
        "int64_t",
        "fp32 elements per accumulator row (D rounded up to a 32-byte block)",
        "accStride",
        lambda d: d.acc_stride,
    ),
    TilingField(
        "accInWorkspace",
        "int64_t",
        "1: accumulator in the workspace; 0: in the fp32 output",
        "accInWorkspace",
        lambda d: int(d.acc_in_workspace),
    ),
    TilingField(
        "countsOffset",
        "int64_t",
        "workspace byte offset of the int64 occurrence counts",
        "countsOffset",
        lambda d: d.counts_offset,
    ),
    TilingField("dChunk", "int64_t", "elements of a row moved through UB at once", "dChunk", lambda d: d.d_chunk),
    TilingField("indexChunk", "int64_t", "indices moved through UB at once", "indexChunk", lambda d: d.index_chunk),
    TilingField(
        "rowGroupNum",
        "int64_t",
        "groups of output rows (zero fill, counts, final pass; deterministic: also the adds)",
        "rowSplit.groups",
        lambda d: d.row_split.groups,
    ),
    TilingField(
        "rowsPerGroup", "int64_t", "output rows per row group", "numRows / rowSplit.groups", lambda d: d.rows_per_group
    ),
    TilingField(
        "rowsFormerNum",
        "int64_t",
        "row groups that take one row more",
        "numRows % rowSplit.groups",
        lambda d: d.rows_former_num,
    ),
    TilingField(
        "rowSliceNum",
        "int64_t",
        "D-slices of each row group: row-phase cores = rowGroupNum * rowSliceNum",
        "rowSplit.slices",
        lambda d: d.row_split.slices,
    ),
    TilingField(
        "rowSliceLength",
        "int64_t",
        "elements per row-phase D-slice (a multiple of sliceAlign; the last slice ends at D)",
        "rowSplit.sliceLength",
        lambda d: d.row_split.slice_length,
    ),
    TilingField(
        "indexGroupNum",
        "int64_t",
        "groups of indices (atomic strategy; 1 in the deterministic one)",
        "indexSplit.groups",
        lambda d: d.index_split.groups,
    ),
    TilingField(
        "indicesPerGroup",
        "int64_t",
        "indices per index group",
        "numIndices / indexSplit.groups",
        lambda d: d.indices_per_group,
    ),
    TilingField(
        "indicesFormerNum",
        "int64_t",
        "index groups that take one index more",
        "numIndices % indexSplit.groups",
        lambda d: d.indices_former_num,
    ),
    TilingField(
        "indexSliceNum",
        "int64_t",
        "D-slices of each index group: add-phase cores = indexGroupNum * indexSliceNum",
        "indexSplit.slices",
        lambda d: d.index_split.slices,
    ),
    TilingField(
        "indexSliceLength",
        "int64_t",
        "elements per add-phase D-slice (a multiple of sliceAlign; the last slice ends at D)",
        "indexSplit.sliceLength",
        lambda d: d.index_split.slice_length,
    ),
    TilingField(
        "countsSliceStride",
        "int64_t",
        "int64 count slots per row-phase D-slice in the workspace",
        "countsSliceStride",
        lambda d: d.counts_slice_stride,
    ),
    TilingField(
        "partialsOffset",
        "int64_t",
        "workspace byte offset of the fp32 partial sums of index groups 1.. (deterministic)",
        "partialsOffset",
        lambda d: d.partials_offset,
    ),
    TilingField(
        "tileRows",
        "int64_t",
        "atomic / deterministic: grad rows moved by one DataCopy at most (consecutive positions x one D-chunk)",
        "tileRows",
        lambda d: d.tile_rows,
    ),
    TilingField(
        "ubAccumulate",
        "int64_t",
        "deterministic: 1 when each owner sums its rows x D-slice in UB and writes them once",
        "ubAccumulate",
        lambda d: int(d.ub_accumulate),
    ),
    TilingField(
        "sortCores",
        "int64_t",
        "sorted strategy: cores of the launch (0: another strategy)",
        "useSorted ? sortPlan.cores : 0",
        lambda d: d.sort.cores if d.sorted_run else 0,
    ),
    TilingField(
        "sortBuckets",
        "int64_t",
        "sorted strategy: row buckets (the sort's key is the bucket; a bucket is summed in UB)",
        "useSorted ? sortPlan.buckets : 0",
        lambda d: d.sort.buckets if d.sorted_run else 0,
    ),
    TilingField(
        "sortBucketRows",
        "int64_t",
        "sorted strategy: output rows per bucket",
        "useSorted ? sortPlan.bucketRows : 0",
        lambda d: d.sort.bucket_rows if d.sorted_run else 0,
    ),
    TilingField(
        "sortStage",
        "int64_t",
        "sorted strategy: (row, position) pairs per bucket staging slot in UB",
        "useSorted ? sortPlan.stage : 0",
        lambda d: d.sort.stage if d.sorted_run else 0,
    ),
    TilingField(
        "sortPairChunk",
        "int64_t",
        "sorted strategy: sorted entries (pairs or small-dim records) read into UB at once",
        "useSorted ? sortPlan.pairChunk : 0",
        lambda d: d.sort.pair_chunk if d.sorted_run else 0,
    ),
    TilingField(
        "sortDChunk",
        "int64_t",
        "sorted strategy: elements of a row summed per pass",
        "useSorted ? sortPlan.dChunk : 0",
        lambda d: d.sort.d_chunk if d.sorted_run else 0,
    ),
    TilingField(
        "sortTileRows",
        "int64_t",
        "sorted strategy: grad rows gathered by one DataCopyPad at most",
        "useSorted ? sortPlan.tileRows : 0",
        lambda d: d.sort.tile_rows if d.sorted_run else 0,
    ),
    TilingField(
        "sortMatrixStride",
        "int64_t",
        "sorted strategy: int32 slots per row of the [cores, buckets] count matrix",
        "useSorted ? sortPlan.matrixStride : 0",
        lambda d: d.sort.matrix_stride if d.sorted_run else 0,
    ),
    TilingField(
        "sortMatrixOffset",
        "int64_t",
        "sorted strategy: workspace byte offset of the count matrix",
        "0",
        lambda d: d.sort.matrix_offset if d.sorted_run else 0,
    ),
    TilingField(
        "sortPartialsOffset",
        "int64_t",
        "sorted strategy, deterministic mode: workspace byte offset of the fp32 parts of buckets split between cores",
        "useSorted ? sortPlan.partialsOffset : 0",
        lambda d: d.sort.partials_offset if d.sorted_run else 0,
    ),
    TilingField(
        "sortPairsOffset",
        "int64_t",
        "sorted strategy: workspace byte offset of the sorted (row, position) int32 pairs",
        "useSorted ? sortPlan.pairsOffset : 0",
        lambda d: d.sort.pairs_offset if d.sorted_run else 0,
    ),
    TilingField(
        "sortSmallDim",
        "int64_t",
        "sorted strategy: 1 for the small-dim variant (records of the row key and its D fp32 values, no gather)",
        "useSorted ? sortPlan.smallDim : 0",
        lambda d: int(d.sort.small_dim) if d.sorted_run else 0,
    ),
)
