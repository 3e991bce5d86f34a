"""The tiling struct of an index-accumulate op: every int64 field in order, with its description and the
C++ expression the tiling function sets it to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.plan.tiling_fields import TilingField

if TYPE_CHECKING:
    from codegen.families.index_accumulate.plan.decision import TilingDecision


def _phase_split_fields(
    item: str, items: str, counted: str, total: str, phase: str, groups_comment: str
) -> tuple[TilingField[TilingDecision], ...]:
    """The five fields of one phase's :class:`.split.Split2D` (``<item>Split`` in the tiling function, attribute
    ``<item>_split`` of the decision): its groups, the items per group (``<items>PerGroup``, of the ``total``
    items in the tiling function) and the groups taking one more, its D-slices and their length; ``counted``
    names what a group holds and ``phase`` the phase in the comments."""
    split = f"{item}Split"
    return (
        TilingField.held(f"{item}GroupNum", groups_comment, attr=f"{item}_split.groups", cpp=f"{split}.groups"),
        TilingField.held(f"{items}PerGroup", f"{counted} per {item} group", cpp=f"{total} / {split}.groups"),
        TilingField.held(
            f"{items}FormerNum", f"{item} groups that take one {item} more", cpp=f"{total} % {split}.groups"
        ),
        TilingField.held(
            f"{item}SliceNum",
            f"D-slices of each {item} group: {phase}-phase cores = {item}GroupNum * {item}SliceNum",
            attr=f"{item}_split.slices",
            cpp=f"{split}.slices",
        ),
        TilingField.held(
            f"{item}SliceLength",
            f"elements per {phase}-phase D-slice (a multiple of sliceAlign; the last slice ends at D)",
            attr=f"{item}_split.slice_length",
            cpp=f"{split}.sliceLength",
        ),
    )


#: The tiling struct, in order: every field is int64 (numRows and the row count may exceed 2^31). The
#: tiling header declares these, the tiling function sets them to ``value_cpp``; :meth:`TilingDecision.tiling_fields`
#: gives their values by name.
TILING_FIELDS: tuple[TilingField[TilingDecision], ...] = (
    TilingField.held("numRows", "rows of the output", attr="num_weights"),
    TilingField.held("rowLength", "D: elements per row of the rows input and of the output", attr="embedding_dim"),
    TilingField.held("numIndices", "N: rows of the rows input = elements of the index input"),
    TilingField.held("paddingRow", "output row that receives nothing; -1 for none"),
    TilingField("countScaling", "1: divide each row by the occurrence count of its index", lambda d: int(d.scale)),
    TilingField.held("accStride", "fp32 elements per accumulator row (D rounded up to a 32-byte block)"),
    TilingField(
        "accInWorkspace", "1: accumulator in the workspace; 0: in the fp32 output", lambda d: int(d.acc_in_workspace)
    ),
    TilingField.held("countsOffset", "workspace byte offset of the int64 occurrence counts"),
    TilingField.held("dChunk", "elements of a row moved through UB at once"),
    TilingField.held("indexChunk", "indices moved through UB at once"),
    *_phase_split_fields(
        "row",
        "rows",
        "output rows",
        "numRows",
        "row",
        "groups of output rows (zero fill, counts, final pass; deterministic: also the adds)",
    ),
    *_phase_split_fields(
        "index",
        "indices",
        "indices",
        "numIndices",
        "add",
        "groups of indices (atomic strategy; 1 in the deterministic one)",
    ),
    TilingField.held("countsSliceStride", "int64 count slots per row-phase D-slice in the workspace"),
    TilingField.held(
        "partialsOffset", "workspace byte offset of the fp32 partial sums of index groups 1.. (deterministic)"
    ),
    TilingField.held(
        "tileRows",
        "atomic / deterministic: grad rows moved by one DataCopy at most (consecutive positions x one D-chunk)",
    ),
    TilingField(
        "ubAccumulate",
        "deterministic: 1 when each owner sums its rows x D-slice in UB and writes them once",
        lambda d: int(d.ub_accumulate),
    ),
    TilingField(
        "sortCores",
        "sorted strategy: cores of the launch (0: another strategy)",
        lambda d: d.sort.cores if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.cores : 0",
    ),
    TilingField(
        "sortBuckets",
        "sorted strategy: row buckets (the sort's key is the bucket; a bucket is summed in UB)",
        lambda d: d.sort.buckets if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.buckets : 0",
    ),
    TilingField(
        "sortBucketRows",
        "sorted strategy: output rows per bucket",
        lambda d: d.sort.bucket_rows if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.bucketRows : 0",
    ),
    TilingField(
        "sortStage",
        "sorted strategy: (row, position) pairs per bucket staging slot in UB",
        lambda d: d.sort.stage if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.stage : 0",
    ),
    TilingField(
        "sortPairChunk",
        "sorted strategy: sorted entries (pairs or small-dim records) read into UB at once",
        lambda d: d.sort.pair_chunk if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.pairChunk : 0",
    ),
    TilingField(
        "sortDChunk",
        "sorted strategy: elements of a row summed per pass",
        lambda d: d.sort.d_chunk if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.dChunk : 0",
    ),
    TilingField(
        "sortTileRows",
        "sorted strategy: grad rows gathered by one DataCopyPad at most",
        lambda d: d.sort.tile_rows if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.tileRows : 0",
    ),
    TilingField(
        "sortMatrixStride",
        "sorted strategy: int32 slots per row of the [cores, buckets] count matrix",
        lambda d: d.sort.matrix_stride if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.matrixStride : 0",
    ),
    TilingField(
        "sortMatrixOffset",
        "sorted strategy: workspace byte offset of the count matrix",
        lambda d: d.sort.matrix_offset if d.sorted_run else 0,
        cpp="0",
    ),
    TilingField(
        "sortPartialsOffset",
        "sorted strategy, deterministic mode: workspace byte offset of the fp32 parts of buckets split between cores",
        lambda d: d.sort.partials_offset if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.partialsOffset : 0",
    ),
    TilingField(
        "sortPairsOffset",
        "sorted strategy: workspace byte offset of the sorted (row, position) int32 pairs",
        lambda d: d.sort.pairs_offset if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.pairsOffset : 0",
    ),
    TilingField(
        "sortChunk",
        "sorted strategy: indices per vector-sort chunk (Sort32 + MrgSort; 0: the scalar counting sort)",
        lambda d: d.sort.sort_chunk if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.sortChunk : 0",
    ),
    TilingField(
        "sortMatrixRows",
        "sorted strategy: rows of the count matrix (vector sort: one per chunk of every core; else one per core)",
        lambda d: (d.sort.matrix_rows if d.sort.sort_chunk else d.sort.cores) if d.sorted_run else 0,
        cpp="useSorted ? (sortPlan.sortChunk > 0 ? sortPlan.matrixRows : sortPlan.cores) : 0",
    ),
    TilingField(
        "sortSortedOffset",
        "sorted strategy, vector sort: workspace byte offset of the sorted chunks ((key, position) proposals)",
        lambda d: d.sort.sorted_offset if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.sortedOffset : 0",
    ),
    TilingField(
        "sortSmallDim",
        "sorted strategy: 1 for the small-dim variant (records of the row key and its D fp32 values, no gather)",
        lambda d: int(d.sort.small_dim) if d.sorted_run else 0,
        cpp="useSorted ? sortPlan.smallDim : 0",
    ),
)
