"""The tiling struct of an index-accumulate op: every int64 field in order, with its description and the
C++ expression the tiling function sets it to."""

from __future__ import annotations

from codegen.plan.tiling_fields import TilingField

#: The tiling struct, in order: every field is int64 (numRows and the row count may exceed 2^31). The
#: tiling header declares these, the tiling function sets them to ``value_cpp``; :meth:`TilingDecision.tiling_fields`
#: gives their values by name.
TILING_FIELDS: tuple[TilingField, ...] = (
    TilingField("numRows", "int64_t", "rows of the output", "numRows"),
    TilingField("rowLength", "int64_t", "D: elements per row of the rows input and of the output", "rowLength"),
    TilingField("numIndices", "int64_t", "N: rows of the rows input = elements of the index input", "numIndices"),
    TilingField("paddingRow", "int64_t", "output row that receives nothing; -1 for none", "paddingRow"),
    TilingField("countScaling", "int64_t", "1: divide each row by the occurrence count of its index", "countScaling"),
    TilingField(
        "accStride", "int64_t", "fp32 elements per accumulator row (D rounded up to a 32-byte block)", "accStride"
    ),
    TilingField(
        "accInWorkspace", "int64_t", "1: accumulator in the workspace; 0: in the fp32 output", "accInWorkspace"
    ),
    TilingField("countsOffset", "int64_t", "workspace byte offset of the int64 occurrence counts", "countsOffset"),
    TilingField("dChunk", "int64_t", "elements of a row moved through UB at once", "dChunk"),
    TilingField("indexChunk", "int64_t", "indices moved through UB at once", "indexChunk"),
    TilingField(
        "rowGroupNum",
        "int64_t",
        "groups of output rows (zero fill, counts, final pass; deterministic: also the adds)",
        "rowSplit.groups",
    ),
    TilingField("rowsPerGroup", "int64_t", "output rows per row group", "numRows / rowSplit.groups"),
    TilingField("rowsFormerNum", "int64_t", "row groups that take one row more", "numRows % rowSplit.groups"),
    TilingField(
        "rowSliceNum",
        "int64_t",
        "D-slices of each row group: row-phase cores = rowGroupNum * rowSliceNum",
        "rowSplit.slices",
    ),
    TilingField(
        "rowSliceLength",
        "int64_t",
        "elements per row-phase D-slice (a multiple of sliceAlign; the last slice ends at D)",
        "rowSplit.sliceLength",
    ),
    TilingField(
        "indexGroupNum",
        "int64_t",
        "groups of indices (atomic strategy; 1 in the deterministic one)",
        "indexSplit.groups",
    ),
    TilingField("indicesPerGroup", "int64_t", "indices per index group", "numIndices / indexSplit.groups"),
    TilingField(
        "indicesFormerNum", "int64_t", "index groups that take one index more", "numIndices % indexSplit.groups"
    ),
    TilingField(
        "indexSliceNum",
        "int64_t",
        "D-slices of each index group: add-phase cores = indexGroupNum * indexSliceNum",
        "indexSplit.slices",
    ),
    TilingField(
        "indexSliceLength",
        "int64_t",
        "elements per add-phase D-slice (a multiple of sliceAlign; the last slice ends at D)",
        "indexSplit.sliceLength",
    ),
    TilingField(
        "countsSliceStride", "int64_t", "int64 count slots per row-phase D-slice in the workspace", "countsSliceStride"
    ),
    TilingField(
        "partialsOffset",
        "int64_t",
        "workspace byte offset of the fp32 partial sums of index groups 1.. (deterministic)",
        "partialsOffset",
    ),
    TilingField(
        "tileRows",
        "int64_t",
        "atomic / deterministic: grad rows moved by one DataCopy at most (consecutive positions x one D-chunk)",
        "tileRows",
    ),
    TilingField(
        "ubAccumulate",
        "int64_t",
        "deterministic: 1 when each owner sums its rows x D-slice in UB and writes them once",
        "ubAccumulate",
    ),
    TilingField(
        "sortCores",
        "int64_t",
        "sorted strategy: cores of the launch (0: another strategy)",
        "useSorted ? sortPlan.cores : 0",
    ),
    TilingField(
        "sortBuckets",
        "int64_t",
        "sorted strategy: row buckets (the sort's key is the bucket; a bucket is summed in UB)",
        "useSorted ? sortPlan.buckets : 0",
    ),
    TilingField(
        "sortBucketRows", "int64_t", "sorted strategy: output rows per bucket", "useSorted ? sortPlan.bucketRows : 0"
    ),
    TilingField(
        "sortStage",
        "int64_t",
        "sorted strategy: (row, position) pairs per bucket staging slot in UB",
        "useSorted ? sortPlan.stage : 0",
    ),
    TilingField(
        "sortPairChunk",
        "int64_t",
        "sorted strategy: sorted entries (pairs or small-dim records) read into UB at once",
        "useSorted ? sortPlan.pairChunk : 0",
    ),
    TilingField(
        "sortDChunk", "int64_t", "sorted strategy: elements of a row summed per pass", "useSorted ? sortPlan.dChunk : 0"
    ),
    TilingField(
        "sortTileRows",
        "int64_t",
        "sorted strategy: grad rows gathered by one DataCopyPad at most",
        "useSorted ? sortPlan.tileRows : 0",
    ),
    TilingField(
        "sortMatrixStride",
        "int64_t",
        "sorted strategy: int32 slots per row of the [cores, buckets] count matrix",
        "useSorted ? sortPlan.matrixStride : 0",
    ),
    TilingField("sortMatrixOffset", "int64_t", "sorted strategy: workspace byte offset of the count matrix", "0"),
    TilingField(
        "sortPartialsOffset",
        "int64_t",
        "sorted strategy, deterministic mode: workspace byte offset of the fp32 parts of buckets split between cores",
        "useSorted ? sortPlan.partialsOffset : 0",
    ),
    TilingField(
        "sortPairsOffset",
        "int64_t",
        "sorted strategy: workspace byte offset of the sorted (row, position) int32 pairs",
        "useSorted ? sortPlan.pairsOffset : 0",
    ),
    TilingField(
        "sortSmallDim",
        "int64_t",
        "sorted strategy: 1 for the small-dim variant (records of the row key and its D fp32 values, no gather)",
        "useSorted ? sortPlan.smallDim : 0",
    ),
)
