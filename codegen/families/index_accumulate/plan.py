"""Planning for the index_accumulate family: tiling rule, kernel variants, checks and the view model.

An index-accumulate op (EmbeddingDenseBackward is the first) adds row ``i`` of ``rows`` (``[N, D]``) into row
``index[i]`` of ``out`` (``[num_rows, D]``), skipping the padding row and invalid indices, optionally
dividing each row by the occurrence count of its index. The device op returns the fp32 sums; the L2 API
casts them once to the dtype of ``out`` and copies them into its (possibly strided) view.

Kernel strategies (chosen by the tiling from ``context->GetDeterministic()``; tiling key
``strategy * 100 + rows-dtype digit * 10 + index-dtype digit``):

- **atomic** (0): every row-phase core zero-fills the accumulator rows x D-slice it owns (and, with
  scaling, counts the occurrences of its rows by scanning all indices), ``SyncAll``; the indices are split
  into groups, each (index group x D-slice) core adds its slice of every valid row of grad with
  ``SetAtomicAdd<float>`` into the fp32 accumulator; ``SyncAll``; each row-phase core scales and writes its
  rows x D-slice.
- **deterministic** (1): each core owns a contiguous range of output rows x one D-slice, scans all indices
  in order and adds only into what it owns (read-modify-write of its own accumulator part), so every output
  element is summed by one core in index order whatever the core timing; then it scales and writes its
  part. No core touches another's part, so no ``SyncAll`` is needed. When rows x D-slices reach fewer
  cores than ``needRows`` (few rows, a small D, many indices) :func:`index_groups` adds ``G`` index groups:
  core ``b`` is (index group ``b // rowCores``, row position ``b % rowCores``); it zero-fills and sums its
  index range in order into partial ``g`` (group 0: the accumulator; groups 1..G-1: ``[num_rows,
  accStride]`` fp32 in the workspace at ``partialsOffset``); the group-0 owners also count over every
  index; ``SyncAll``; the owners add partials 1..G-1 in group order, scale and write. The summation order of
  every element is fixed by the tiling, never by core timing.

Accumulator: ``[num_rows, accStride]`` fp32 with ``accStride = D`` rounded up to a 32-byte block, so every
copy and atomic add moves whole blocks (Ascend910 has no DataCopyPad and only fp32 atomics). When
``D % 8 == 0`` the fp32 device output itself is the accumulator; otherwise it lives in the workspace.
Workspace: ``[accumulator (if not in the output)] [partials 1..G-1 (deterministic index groups)] [int64 counts
(with scaling)]``; the partials and the counts start on a
64-byte line and each owning core's slice starts on a line of its own (the scalar data cache never holds
another core's counts or accumulator bytes).

Tiling rule (the generated C++ tiling function implements exactly :func:`tiling_decision`; all in int64):

- UB: ``bufferNum * INDEX_UB_BYTES`` for indices, then per row element ``bufferNum * (4 + 4) + TILE_BUFFERS *
  sizeof(T)`` (accumulator and output queues, the grad tile queue) plus 4 for the fp32 cast of 16-bit grads;
  ``dChunkMax = (ubBytes - ubReserved - bufferNum * INDEX_UB_BYTES) / bytesPerElement`` rounded down to
  64 elements; ``dChunk = min(dChunkMax, D rounded up to 64)``; ``indexChunk = INDEX_UB_BYTES / sizeof(index)``.
- Grad tiles: a tile is a run of consecutive positions whose rows the core adds (at most ``tileRows``) x one
  D-chunk, moved GM -> UB by one DataCopyPad (a contiguous or strided DataCopy without DataCopyPad when a row
  is whole 32-byte blocks, else row by row), each row at a pitch of ``min(dChunk, D)`` rounded up to 32 bytes.
  The queues' remainder ``tileBudget = ub - reserved - bufferNum * (INDEX_UB_BYTES + 8 * dChunk)`` holds the
  UB sums of a deterministic owner (``ubAccumulate``: ``ceil(num_rows / rowGroups) * min(sliceLength,
  accStride) * 4`` bytes, when at most half of it and a tile row still fits) and ``tileRows = clamp((tileBudget
  - UB sums) / (pitch * (TILE_BUFFERS * sizeof(T) + cast)), 1, min(4095, indexChunk))``.
- Cores: 2-D splits (:func:`split_2d`): item groups x D-slices, a D-slice a multiple of ``sliceAlign =
  max(32 / sizeof(T), 8)`` elements (whole 32-byte blocks of grad and of the fp32 accumulator; only a row's
  last slice has a partial block, so the no-DataCopyPad path copies whole blocks everywhere else).
  ``needRows = clamp(ceil(N * D * sizeof(T) / minBytesPerCore), 1, coreNum)``, ``needAcc`` the same for
  ``num_rows * accStride * 4``. Atomic: rows over ``max(needRows, needAcc)`` cores, indices over ``needRows``
  cores; deterministic: rows over ``max(min(coreNum, num_rows), needRows, needAcc)`` cores (the owners do all
  the adds), then :func:`index_groups` (one index group unless that reaches fewer than ``needRows`` cores).
  ``blockDim = max(row cores, index cores)`` (deterministic index cores: ``G * row cores``); items are split
  evenly, the first ``count % groups`` groups take one more. ``dChunk`` is capped by the longest D-slice
  (rounded up to 64).
- Counts (with scaling): each row-phase core counts its own rows into slots of its own, D-slice ``k`` at
  ``k * countsSliceStride + AlignUp(rowStart, 8) + 8 * group`` (int64 slots).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from codegen.families.index_accumulate.compute import IndexAccumulateCompute
from codegen.plan.common import (
    ArchGroup,
    DtypeGroup,
    KindView,
    L0Attr,
    OpDefConfig,
    OpDefParam,
    OpDefRegistration,
    OpDefTensors,
    OpViews,
    ParamRow,
    ProductSupportRow,
    SignatureParam,
    StatusRow,
    TensorCheck,
    TilingField,
    TilingFieldRow,
    TilingHeaderView,
    UtInferCase,
    arch_condition,
    arch_groups,
    common_view,
    dtype_groups,
    format_rule_text,
    null_pointer_attrs,
    op_views,
    ops_nn_view,
    spec_products,
    status_row,
    tiling_field_views,
    ut_attr_value,
    ut_case_name,
    ut_device_attrs,
    ut_device_inputs,
    ut_infer_case,
    ut_tensor,
    ut_tiling_view,
)
from codegen.plan.constraints import ConstraintChecks, constraint_doc_lines, constraint_view
from codegen.spec.model import Catalogue, DType, OpSpec, Product
from codegen.spec.naming import a_or_an
from codegen.types import AclnnStatus

__all__ = ["build_views", "scratch_outputs", "validate"]

BLOCK_BYTES = 32
FP32_BYTES = 4
#: Occurrence counts are int64 (N may exceed 2^31).
COUNT_BYTES = 8
#: Bytes of a line of the AI core's scalar data cache (AscendC DataCacheCleanAndInvalid documentation:
#: SINGLE_CACHE_LINE works on 64-byte lines). Scalar GM accesses go through it, so the int64 counts of
#: different cores never share a line, and the counts never share one with the DMA-written accumulator.
CACHE_LINE_BYTES = 64
#: fp32 elements per 32-byte block: the accumulator's row alignment.
ACC_ALIGN = BLOCK_BYTES // FP32_BYTES
#: fp32 elements per 256-byte repeat: the granularity of dChunk.
CHUNK_ALIGN = 64
#: UB bytes of one buffer of the indices queue.
INDEX_UB_BYTES = 16384
#: Cost the core split charges per row (or index) and D-slice besides its elements, in bytes: one 32-byte
#: block, the order of a DMA's fixed overhead, so that whole rows win when slicing balances no better.
SLICE_OVERHEAD_BYTES = 32
#: VECIN queues of the kernel (indices, grad, accumulator); the product's per-position buffer cap bounds
#: bufferNum * VECIN_QUEUES.
VECIN_QUEUES = 3
#: Buffers of the grad tile queue (double buffering: the next tile's copy overlaps the current tile's adds).
TILE_BUFFERS = 2
STRATEGIES = (("atomic", False), ("deterministic", True))
#: Sorted-run strategies (tiling-key strategy digit 2 and 3), compiled for products with DataCopyPad and
#: hardware SyncAll: (name, deterministic).
SORTED_STRATEGIES = (("sorted", False), ("sorted deterministic", True))
#: (row, position) int32 pairs read into UB at once by the sorted strategy's run sums.
SORT_PAIR_CHUNK = 1024
#: Longest D-chunk the sorted strategy sums at once (elements); longer rows are summed in several passes.
SORT_D_CHUNK_MAX = 2048
#: Fewest row buckets per core of the sorted strategy (while buckets have more than one row): fewer rows per
#: bucket make the buckets that cross core boundaries (summed by two cores, added atomically) cheaper.
SORT_BUCKETS_PER_CORE = 4
#: Fewest pairs per bucket staging slot in UB (a flush is at least this many 8-byte pairs).
SORT_STAGE_MIN = 8
#: Bytes of one efficient DMA: a grad row below it takes the small-dim path (several rows per transfer;
#: without DataCopyPad a run of whole rows of partial blocks moves as one range and is spread to the 32-byte
#: pitch in UB), and the tiling's transfer-cost model counts every DMA as at least this many bytes when it
#: weighs the strategies (:func:`sorted_bytes`, :func:`other_bytes`) and records against pairs.
SMALL_DIM_BYTES = 512
#: Largest blockCount of one DataCopyPad (asc-devkit DataCopyExtParams: blockCount 1..4095).
MAX_BLOCK_COUNT = 4095
#: Largest grad or out byte count of the sorted strategy (its kernel splits an int64 byte cost over the cores).
COST_LIMIT = 1 << 61
#: Largest value the sorted strategy's int32 pairs hold (rows and positions).
INT32_LIMIT = (1 << 31) - 1
#: (row, position) int32 pairs per 32-byte block: without DataCopyPad every (core, bucket) segment of the
#: sorted pairs is padded to whole blocks with :data:`PAD_PAIR` entries.
PAIRS_PER_BLOCK = BLOCK_BYTES // 8
#: Row and position of a padding pair (skipped by the run sums; it sorts last in its core's bucket segment).
PAD_PAIR = -1
#: Largest blockLen / srcStride / dstStride of DataCopy's DataCopyParams (uint16_t, in 32-byte blocks;
#: asc-devkit include/basic_api/kernel_struct_data_copy.h).
MAX_BLOCK_FIELD = 65535
#: int32 counters per core of the software SyncAll's GM workspace (one 32-byte block; asc-devkit
#: impl/basic_api/dav_c100/kernel_operator_sync_impl.h SoftSyncAllImpl, DEFAULT_BLK_NUM).
SYNC_SLOT_INTS = BLOCK_BYTES // 4
#: Name of the device op's extra int32 output: the software SyncAll's counters, zero-filled by the launch
#: (OpDef InitValue(0)) on every product; only products without hardware SyncAll use it.
SYNC_OUTPUT = "syncCounters"
#: Cores the software SyncAll's counters output holds (its shape is [SYNC_CORES_MAX * SYNC_SLOT_INTS] int32,
#: 2 KiB, fixed so that the infershape needs no platform facts); a launch on more cores keeps the other
#: strategies on products without hardware SyncAll.
SYNC_CORES_MAX = 64
SYNC_INTS = SYNC_CORES_MAX * SYNC_SLOT_INTS

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

#: Kernel-side decoder of each index dtype (struct names of the family's kernel template).
INDEX_CODECS: dict[DType, str] = {
    DType.FLOAT: "IndexFloat",
    DType.FLOAT16: "IndexFloat16",
    DType.DOUBLE: "IndexDouble",
    DType.INT32: "IndexInteger<int32_t>",
    DType.INT64: "IndexInteger<int64_t>",
    DType.INT16: "IndexInteger<int16_t>",
    DType.INT8: "IndexInteger<int8_t>",
    DType.UINT8: "IndexInteger<uint8_t>",
    DType.BOOL: "IndexBool",
}


def scratch_outputs(spec: OpSpec) -> int:
    """Outputs of the device op beyond the spec's: one, the software SyncAll's counters (:data:`SYNC_OUTPUT`)."""
    del spec
    return 1


def compute_of(spec: OpSpec) -> IndexAccumulateCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the index_accumulate family (its compute is another model).
    """
    if not isinstance(spec.compute, IndexAccumulateCompute):
        raise TypeError(f"{spec.op}: compute is {type(spec.compute).__name__}, not IndexAccumulateCompute")
    return spec.compute


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the rows input in spec order (the grad digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).rows).dtypes)


def index_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the index input in spec order (the index digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).index).dtypes)


def buffer_num(spec: OpSpec, products: list[Product]) -> int:
    """Buffers per queue (the spec's ``tiling.buffer_num``), one constant for every product.

    Raises:
        ValueError: the VECIN queues (indices, grad, accumulator) would exceed a product's buffers per position.
    """
    bufs = spec.tiling.buffer_num
    need = bufs * (VECIN_QUEUES - 1) + TILE_BUFFERS  # the grad tile queue has TILE_BUFFERS buffers
    for p in products:
        if need > p.queue_buffer_cap:
            raise ValueError(
                f"{spec.op}: tiling.buffer_num {bufs} needs {need} VECIN buffers ({TILE_BUFFERS} of them the grad "
                f"tiles'), but {p.name} has {p.queue_buffer_cap} per position; use buffer_num <= "
                f"{(p.queue_buffer_cap - TILE_BUFFERS) // (VECIN_QUEUES - 1)}"
            )
    return bufs


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _sat_mul(a: int, b: int) -> int:
    return min(a * b, (1 << 63) - 1)


def _cores_wanted(data_bytes: int, core_num: int, min_bytes: int) -> int:
    """Cores for ``data_bytes`` bytes: one per ``min_bytes`` started, between 1 and ``core_num``."""
    return max(1, min(_ceil_div(data_bytes, min_bytes), core_num))


@dataclass(frozen=True)
class Split2D:
    """A 2-D split of one phase: ``groups`` groups of items (rows or indices) x ``slices`` D-slices.

    Core ``b < groups * slices`` takes item group ``b // slices`` and columns ``[k * slice_length,
    min((k + 1) * slice_length, D))`` with ``k = b % slices``; ``slice_length`` is a multiple of the slice
    alignment (elements), so every slice but the last starts and ends on a 32-byte block of both the rows
    dtype and the fp32 accumulator.
    """

    groups: int
    slices: int
    slice_length: int

    @property
    def cores(self) -> int:
        """Cores the phase runs on (``groups * slices``)."""
        return self.groups * self.slices


def split_2d(
    items: int, d: int, align: int, target: int, core_num: int, bytes_per_element: int, bytes_per_item: int
) -> Split2D:
    """The groups x D-slices split of ``items`` rows of ``d`` elements over at least ``target`` cores.

    Mirrors ``Split2D`` of the generated tiling function. Every group count ``g`` from
    ``min(items, target)`` down to 1 is tried with ``s = min(ceil(d / align), ceil(target / g),
    core_num // g)`` slices (then as few as give the same slice length); the split reaching the most cores up
    to ``target`` wins, then the one on the fewest cores, then the one with the smallest per-core cost
    ``ceil(items / g) * (slice_length * bytes_per_element + bytes_per_item)`` (bytes, saturated at 2^63 - 1),
    then the larger ``g``.

    Args:
        items: rows or indices to split (>= 0; 0 gives one core and one slice).
        d: elements per row (>= 0).
        align: slice alignment in elements (> 0).
        target: cores wanted, 1 to ``core_num``.
        core_num: cores of the product.
        bytes_per_element: cost of one element of a slice of one item (GM bytes moved).
        bytes_per_item: cost per item and slice besides its elements (index read, DMA overhead).
    """
    blocks = max(1, _ceil_div(d, align))
    whole = Split2D(1, 1, _sat_mul(blocks, align))
    if items <= 0:
        return whole
    best = whole
    best_key: tuple[int, int, int] | None = None
    for g in range(min(items, target), 0, -1):
        s = min(blocks, _ceil_div(target, g), core_num // g)
        per_slice = _ceil_div(blocks, s)
        s = _ceil_div(blocks, per_slice)
        length = _sat_mul(per_slice, align)
        cost = _sat_mul(_ceil_div(items, g), _sat_add(_sat_mul(length, bytes_per_element), bytes_per_item))
        key = (-min(g * s, target), g * s, cost)
        if best_key is None or key < best_key:
            best, best_key = Split2D(g, s, length), key
    return best


def _sat_add(a: int, b: int) -> int:
    return min(a + b, (1 << 63) - 1)


def index_groups(
    row_split: Split2D, num_rows: int, n: int, d: int, align: int, need: int, core_num: int, grad_bytes: int
) -> tuple[Split2D, int]:
    """The deterministic strategy's (row split, index groups) when rows x D-slices reach too few cores.

    Mirrors ``IndexGroups`` of the generated tiling function. While ``row_split`` runs on at least ``need``
    cores (or there are no rows or fewer than two indices) it is kept with one index group. Otherwise every
    row-split target ``t`` from ``row_split.cores`` down to 1 is tried (:func:`split_2d` with the same costs
    as the deterministic row split) with ``G = clamp(ceil(need / cores_t), 1, min(core_num // cores_t, n))``
    index groups; the pair reaching the most cores up to ``need`` wins, then the one on the fewest cores
    (``G * cores_t``), then the one with more row-split cores (less to merge per owner).

    Args:
        row_split: the deterministic row split (row groups x D-slices).
        num_rows: output rows (>= 0); n: indices (>= 0); d: elements per row (>= 0).
        align: D-slice alignment in elements (> 0).
        need: cores the launch must use, ``min(core_num, ceil(grad bytes / min bytes per core))``.
        core_num: cores of the product.
        grad_bytes: bytes per grad element.

    Returns:
        The row split to use and the number of index groups ``G`` (>= 1); the launch runs on
        ``G * row_split.cores`` cores.
    """
    if row_split.cores >= need or num_rows <= 0 or n <= 1:
        return row_split, 1
    best, best_groups = row_split, 1
    best_key: tuple[int, int, int] | None = None
    for t in range(row_split.cores, 0, -1):
        rs = split_2d(num_rows, d, align, t, core_num, grad_bytes + 2 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        groups = max(1, min(_ceil_div(need, rs.cores), core_num // rs.cores, n))
        key = (-min(groups * rs.cores, need), groups * rs.cores, -rs.cores)
        if best_key is None or key < best_key:
            best, best_groups, best_key = rs, groups, key
    return best, best_groups


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

    @property
    def feasible(self) -> bool:
        """Whether the sorted strategy can run (``cores > 0``)."""
        return self.cores > 0


def _align(value: int, align: int) -> int:
    return _ceil_div(value, align) * align


def _sort_refusal(product: Product, d: int, grad_bytes: int) -> str:
    """Why the sorted-run strategy cannot run on ``product`` for rows of ``d`` elements of ``grad_bytes``
    bytes ("" when it can): without DataCopyPad every grad row, pair segment and output row moves in whole
    32-byte blocks with DataCopy, so a row must be whole blocks (``d * grad_bytes`` a multiple of 32) and its
    stride must fit DataCopyParams' uint16 block fields."""
    if product.data_copy_pad:
        return ""
    row_bytes = d * grad_bytes
    if row_bytes % BLOCK_BYTES != 0:
        return (
            f"{product.name} has no DataCopyPad and a row of {d} elements is {row_bytes} bytes, not whole "
            f"{BLOCK_BYTES}-byte blocks (the sort gathers grad rows and writes output rows with DataCopy)"
        )
    if row_bytes // BLOCK_BYTES > MAX_BLOCK_FIELD:
        return (
            f"{product.name} has no DataCopyPad and a row of {row_bytes} bytes exceeds DataCopy's stride field "
            f"({MAX_BLOCK_FIELD} blocks)"
        )
    return ""


def sort_plan(
    product: Product,
    ub_reserved: int,
    min_bytes: int,
    n: int,
    w: int,
    d: int,
    grad_bytes: int,
    index_bytes: int,
    scale: bool,
    det: bool = False,
) -> SortPlan:
    """Sizes of the sorted-run strategy (see the kernel template) for ``n`` indices into ``w`` rows of ``d``.

    UB (``ub_bytes - ub_reserved``): the indices buffer (:data:`INDEX_UB_BYTES`), a pair chunk
    (:data:`SORT_PAIR_CHUNK` x 8 bytes), a work buffer of half the rest (phase 2: ``buckets x stage`` staged
    pairs; phase 3: the fp32 accumulator ``bucket_rows x AlignUp(d_chunk, 8)``), three int32 bucket arrays,
    the fp32 cast row (16-bit grads), the int32 run counts (scaling), the software SyncAll's UB workspace
    (``cores x 32`` bytes, products without hardware SyncAll) and the grad tile with everything left
    (``tile_rows`` rows of ``AlignUp(d_chunk * grad_bytes, 32)`` bytes, at most 4095). A bucket has as many rows
    as the accumulator holds, at most 4095 and at most ``ceil(w / (4 * cores))``. ``d_chunk`` starts at
    ``min(AlignUp(d, align), 2048)`` and halves (whole ``align``-element blocks; ``align`` 8, or 32 bytes of
    grad without DataCopyPad) until the staging slots hold at least :data:`SORT_STAGE_MIN` pairs. Cores: one
    per ``min_bytes`` of grad, up to the product's.

    Small-dim variant (``small_dim``): when a row fits one D-chunk and the whole call costs less with records
    than with pairs by :func:`sorted_bytes` with ``floor`` :data:`SMALL_DIM_BYTES` (the transfer-cost model the
    tiling uses for every strategy: each DMA counted as at least one efficient DMA, so a gathered short row
    costs 512 bytes) -- phase 2 reads the grad rows of its index range contiguously (``tile_rows`` packed rows
    per DataCopyPad, plus their fp32 cast for 16-bit grads) and stages records of ``d + 1`` 4-byte words (the
    int32 row key, then the row's fp32 values) in slots of ``stage`` records (``work // (buckets x 4 x (d +
    1))`` rounded down to 8); phase 3 reads them contiguously (``pair_chunk = 2 * SORT_PAIR_CHUNK // (d + 1)``
    records at a time) and never gathers. Needs DataCopyPad (``small_dim_reason`` says why not, or gives the
    two costs) and staging slots of at least :data:`SORT_STAGE_MIN` records. ``index_bytes`` (bytes of one
    index) enters the two costs.

    Without DataCopyPad every (core, bucket) segment of the sorted pairs is rounded up to whole 32-byte blocks
    (:data:`PAIRS_PER_BLOCK` pairs) with padding pairs, so the pair array holds up to ``n + cores x buckets x
    3`` pairs. Deterministic mode (``det``) adds, after the pairs (on a 64-byte line), ``2 x cores`` fp32
    partial slots of ``bucket_rows x d`` for the parts of buckets split between cores. Without hardware SyncAll
    the barriers (two; three in deterministic mode) are the software ``SyncAll(gmWorkspace, ubWorkspace,
    usedCores)`` on the device op's zero-initialised :data:`SYNC_OUTPUT` output (at most
    :data:`SYNC_CORES_MAX` cores).

    Not possible (``reason`` says why): without DataCopyPad a row that is not whole 32-byte blocks
    (:func:`_sort_refusal`), an empty call (``n``, ``w`` or ``d`` 0), ``n``, ``w`` or a row's bytes beyond
    int32 (the pairs are int32), grad or out beyond 2^61 bytes, or a UB too small for the staging slots.
    """
    if n <= 0 or w <= 0 or d <= 0:
        return SortPlan(reason="nothing to sort (no indices, rows or columns)")
    refusal = _sort_refusal(product, d, grad_bytes)
    if refusal:
        return SortPlan(reason=refusal)
    if n > INT32_LIMIT or w > INT32_LIMIT or _sat_mul(d, grad_bytes) > INT32_LIMIT:
        return SortPlan(reason="indices, rows or a row's bytes beyond int32 (the sorted pairs are int32)")
    if _sat_mul(_sat_mul(w, d), FP32_BYTES) > COST_LIMIT or _sat_mul(n, d * grad_bytes + 8) > COST_LIMIT:
        return SortPlan(reason="grad or out beyond 2^61 bytes (the kernel's int64 cost split)")
    cores = _cores_wanted(_sat_mul(_sat_mul(n, d), grad_bytes), product.vector_core_num, min_bytes)
    if not product.hw_sync_all and cores > SYNC_CORES_MAX:
        return SortPlan(reason=f"more than {SYNC_CORES_MAX} cores for the software SyncAll's counters")
    chunk_align = ACC_ALIGN if product.data_copy_pad else max(ACC_ALIGN, BLOCK_BYTES // grad_bytes)
    pair_align = 1 if product.data_copy_pad else PAIRS_PER_BLOCK
    sync_ub = 0 if product.hw_sync_all else cores * BLOCK_BYTES
    # at least SORT_BUCKETS_PER_CORE buckets per core: a bucket crossing a core boundary costs its rows twice
    row_cap = max(1, _ceil_div(w, SORT_BUCKETS_PER_CORE * cores))
    budget = product.ub_bytes - ub_reserved - INDEX_UB_BYTES - SORT_PAIR_CHUNK * 8 - sync_ub
    work = budget // 2 // BLOCK_BYTES * BLOCK_BYTES
    d_chunk = min(_align(d, chunk_align), SORT_D_CHUNK_MAX)
    while True:
        stride = _align(d_chunk, ACC_ALIGN)
        bucket_rows = min(work // (stride * FP32_BYTES), MAX_BLOCK_COUNT, row_cap)
        if bucket_rows >= 1:
            buckets = _ceil_div(w, bucket_rows)
            stage = work // (buckets * 8) // 4 * 4
            arrays = 3 * _align((buckets + 1) * 4, BLOCK_BYTES)
            arrays += _align(bucket_rows, ACC_ALIGN) * 4 if scale else 0
            arrays += stride * FP32_BYTES if grad_bytes != FP32_BYTES else 0
            pitch = _align(d_chunk * grad_bytes, BLOCK_BYTES)
            tile_rows = min(MAX_BLOCK_COUNT, (budget - work - arrays) // pitch) if budget > work + arrays else 0
            if stage >= SORT_STAGE_MIN and tile_rows >= 1:
                break
        if d_chunk <= chunk_align:
            return SortPlan(
                reason=f"UB too small for {_ceil_div(w, 1)} rows in staging slots of {SORT_STAGE_MIN} pairs"
            )
        d_chunk = _align(d_chunk // 2, chunk_align)
    base = SortPlan(
        cores=cores,
        buckets=buckets,
        bucket_rows=bucket_rows,
        stage=stage,
        pair_chunk=SORT_PAIR_CHUNK,
        d_chunk=d_chunk,
        tile_rows=tile_rows,
        matrix_stride=_align(buckets, ACC_ALIGN),
        pair_align=pair_align,
        soft_sync=not product.hw_sync_all,
    )
    pairs = _sort_layout(base, n, d, grad_bytes, arrays, det)
    rec_words = d + 1
    if not product.data_copy_pad:
        return replace(
            pairs,
            small_dim_reason=f"{product.name} has no DataCopyPad and a record of a row key and {d} fp32 values "
            f"({4 * rec_words} bytes) is not whole 32-byte blocks",
        )
    if d_chunk < d:
        return replace(pairs, small_dim_reason=f"a row takes {_ceil_div(d, d_chunk)} D-chunk passes")
    rec_stage = work // (buckets * 4 * rec_words) // 8 * 8  # each slot starts on a 32-byte block
    rec_arrays = arrays - (stride * FP32_BYTES if grad_bytes != FP32_BYTES else 0)
    per_row = d * grad_bytes + (d * FP32_BYTES if grad_bytes != FP32_BYTES else 0)
    spare = budget - work - rec_arrays - 2 * BLOCK_BYTES
    rec_tile = min(MAX_BLOCK_COUNT, spare // per_row) if spare > 0 else 0
    if rec_stage < SORT_STAGE_MIN or rec_tile < 1 or rec_words > 2 * SORT_PAIR_CHUNK:
        return replace(
            pairs,
            small_dim_reason=f"UB too small for staging slots of {SORT_STAGE_MIN} records of {4 * rec_words} bytes",
        )
    records = replace(
        base, stage=rec_stage, tile_rows=rec_tile, pair_chunk=2 * SORT_PAIR_CHUNK // rec_words, small_dim=True
    )
    records = _sort_layout(records, n, d, grad_bytes, rec_arrays, det)
    rec_cost = sorted_bytes(records, n, w, d, grad_bytes, index_bytes, scale, det, SMALL_DIM_BYTES)
    pair_cost = sorted_bytes(pairs, n, w, d, grad_bytes, index_bytes, scale, det, SMALL_DIM_BYTES)
    model = (
        f"transfer cost (GM bytes, each DMA counted as at least {SMALL_DIM_BYTES} bytes) {rec_cost} with records "
        f"(grad read contiguously, {a_or_an(str(4 * rec_words))} {4 * rec_words}-byte record per entry written and read"
        f"{' twice' if scale else ''}) vs {pair_cost} with (row, position) pairs (a grad row gathered per entry)"
    )
    if rec_cost < pair_cost:
        return replace(records, small_dim_reason=model)
    return replace(pairs, small_dim_reason=model)


def _sort_layout(plan: SortPlan, n: int, d: int, grad_bytes: int, arrays: int, det: bool) -> SortPlan:
    """``plan`` (pairs or records, with its ``stage``, ``tile_rows`` and ``pair_chunk``) with its workspace
    offsets and UB bytes filled in; ``arrays`` are the UB bytes of its bucket arrays (:func:`sort_plan`)."""
    rec_bytes = 4 * (d + 1) if plan.small_dim else 8
    pairs_offset = _align(plan.cores * plan.matrix_stride * 4, CACHE_LINE_BYTES)
    pairs_end = pairs_offset + rec_bytes * (n + plan.cores * plan.buckets * (plan.pair_align - 1))
    partials_offset = _align(pairs_end, CACHE_LINE_BYTES)
    partials_bytes = 2 * plan.cores * plan.bucket_rows * d * FP32_BYTES
    stride = _align(plan.d_chunk, ACC_ALIGN)
    if plan.small_dim:  # packed grad rows and their fp32 cast (16-bit grads)
        tile_ub = _align(plan.tile_rows * d * grad_bytes, BLOCK_BYTES)
        tile_ub += _align(plan.tile_rows * d * FP32_BYTES, BLOCK_BYTES) if grad_bytes != FP32_BYTES else 0
    else:
        tile_ub = plan.tile_rows * _align(plan.d_chunk * grad_bytes, BLOCK_BYTES)
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


def sort_fills_staging(plan: SortPlan, n: int) -> bool:
    """Whether each core's index range fills its staging slots at least once (``n >= cores * buckets *
    stage``): from there on most of phase 2's flushes are whole slots, long DMAs."""
    return plan.feasible and n >= plan.cores * plan.buckets * plan.stage


def sorted_wins(
    plan: SortPlan, n: int, sorted_bytes_: int, other_bytes_: int, sorted_cost: int, other_cost: int
) -> bool:
    """Whether the tiling takes the sorted-run strategy for ``n`` indices: it can run, its transfer cost (GM
    bytes, every DMA counted as at least :data:`SMALL_DIM_BYTES`) is below the other strategy's, and it moves
    fewer GM bytes (:func:`sorted_bytes` and :func:`other_bytes` with floor 0). Once the indices fill the
    staging slots (:func:`sort_fills_staging`) the lower transfer cost alone decides: there the small-dim
    records may move more bytes than the other strategy, in long contiguous DMAs where it moves each short row
    by a DMA of its own. Below that, the partial flushes (one per core and bucket at least) and the count
    matrix are in both models, so the sort is taken wherever it moves fewer bytes."""
    if not plan.feasible or sorted_cost >= other_cost:
        return False
    return sorted_bytes_ < other_bytes_ or sort_fills_staging(plan, n)


def _dma(total: int, transfers: int, floor: int) -> int:
    """Cost of ``total`` bytes moved by ``transfers`` DMAs of about equal size when each DMA counts as at least
    ``floor`` bytes (0: plain bytes); saturated at 2^63 - 1."""
    return max(total, _sat_mul(transfers, floor))


def _pieces(items: int, transfers: int, elem_bytes: int, length: int, piece: int, floor: int, pad: int = 1) -> int:
    """Cost of ``items`` rows of ``length`` elements of ``elem_bytes`` bytes moved in pieces of ``piece``
    elements (the last one shorter; each padded to ``pad`` elements), ``transfers`` DMAs per piece; saturated."""
    full, last = divmod(length, piece)
    total = _sat_mul(full, _dma(_sat_mul(_sat_mul(items, _align(piece, pad)), elem_bytes), transfers, floor))
    if last:
        total = _sat_add(total, _dma(_sat_mul(_sat_mul(items, _align(last, pad)), elem_bytes), transfers, floor))
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

    Counted: the indices read twice (count, scatter; 16 KiB copies); the count matrix written once and read by
    every core; grad read once -- small-dim: contiguously (``min(tile_rows, indices per copy)`` rows per DMA),
    pairs: one gathered row per entry and D-chunk pass; the sorted entries (8-byte pairs or ``4 x (d + 1)``-byte
    records, with the padding pairs of products without DataCopyPad, at most 3 per core and bucket) written
    in flushes of ``stage`` entries (plus a last, partial flush per core and bucket) and read ``pair_chunk`` at
    a time (plus one read per bucket and per core range) once per D-chunk pass (small-dim: once) and once more
    with scaling; out written once, one DMA per bucket and D-chunk; the software SyncAll's counters (products
    without hardware SyncAll); atomic mode: the buckets crossing core boundaries zero-filled and added
    atomically (at most 2 parts per core boundary, and the zero fills); deterministic: those parts written to
    their partial slots and read by the merge."""
    pairs = n + plan.cores * plan.buckets * (plan.pair_align - 1)
    rec_bytes = 4 * (d + 1) if plan.small_dim else 8
    total = _sat_mul(_sat_mul(2, n), index_bytes)
    if plan.small_dim:
        per_copy = min(plan.tile_rows, INDEX_UB_BYTES // index_bytes)
        grad = _dma(_sat_mul(_sat_mul(n, d), grad_bytes), _ceil_div(n, per_copy) + plan.cores, floor)
    else:
        grad = _pieces(n, n, grad_bytes, d, plan.d_chunk, floor)
    total = _sat_add(total, grad)
    total = _sat_add(total, _pieces(w, plan.buckets, FP32_BYTES, d, plan.d_chunk, floor))
    total = _sat_add(total, plan.cores * plan.matrix_stride * 4 * (1 + plan.cores))
    entries = _sat_mul(pairs, rec_bytes)
    flushes = pairs // plan.stage + plan.cores * plan.buckets
    total = _sat_add(total, _dma(entries, flushes, floor))
    reads = (1 if plan.small_dim else _ceil_div(d, plan.d_chunk)) + (1 if scale else 0)
    loads = _ceil_div(pairs, plan.pair_chunk) + plan.buckets + plan.cores
    total = _sat_add(total, _sat_mul(reads, _dma(entries, loads, floor)))
    if plan.soft_sync:  # two barriers (three in deterministic mode): each writes its counter, reads every core's
        total = _sat_add(total, (3 if det else 2) * plan.cores * (plan.cores + 1) * BLOCK_BYTES)
    # atomic: at most 2 partial parts per core boundary, each added atomically, and their zero fills;
    # deterministic: at most 2 parts per core boundary, each written to its partial slot and read by the merge
    parts = 2 * (plan.cores - 1) + min(plan.buckets, plan.cores - 1) if not det else 4 * (plan.cores - 1)
    return _sat_add(total, _pieces(parts * plan.bucket_rows, parts, FP32_BYTES, d, plan.d_chunk, floor))


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
    acc = _sat_mul(_sat_mul(w, acc_stride), FP32_BYTES)
    # the final pass: one DMA per owned row and D-chunk of its slice, each way
    row_dmas = _sat_mul(_sat_mul(w, row_split.slices), _ceil_div(min(row_split.slice_length, d), d_chunk))
    row_pass = _dma(acc, row_dmas, floor)
    grad_all = _sat_mul(_sat_mul(n, d), grad_bytes)
    if not det:
        tiles = _sat_mul(index_split.slices, _ceil_div(n, tile_rows))
        total = _sat_add(_sat_mul(_sat_mul(n, index_bytes), index_split.slices), _dma(grad_all, tiles, floor))
        adds = _pieces(n, n, FP32_BYTES, d, index_split.slice_length, floor, ACC_ALIGN)
        total = _sat_add(total, _sat_add(adds, acc))
        if acc_in_ws or scale:  # atomic: no partials to merge
            total = _sat_add(total, _sat_mul(2, row_pass))
        return _sat_add(total, _sat_mul(_sat_mul(row_split.cores, n), index_bytes) if scale else 0)
    groups = index_split.groups
    if row_split.groups > 1:
        grad = _pieces(n, n, grad_bytes, d, row_split.slice_length, floor)
    else:
        grad = _dma(grad_all, _sat_mul(row_split.slices, _ceil_div(n, tile_rows)), floor)
    reads = _sat_add(_sat_mul(_sat_mul(row_split.cores, n), index_bytes), grad)
    if ub_acc:
        if groups > 1:
            return _sat_add(reads, _sat_add(_sat_mul(groups, acc), _sat_mul(groups + 1, row_pass)))
        return _sat_add(reads, _sat_mul(_sat_mul(w, d), FP32_BYTES))
    rmw = _sat_mul(2, _pieces(n, n, FP32_BYTES, d, row_split.slice_length, floor, ACC_ALIGN))
    total = _sat_add(_sat_add(reads, rmw), acc)
    if acc_in_ws or scale or groups > 1:
        total = _sat_add(total, _sat_mul(2, row_pass))
    return _sat_add(total, _sat_mul(groups - 1, _sat_add(acc, row_pass)))


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
    sort: SortPlan = SortPlan()
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


def tiling_decision(
    spec: OpSpec,
    product: Product,
    grad_shape: tuple[int, ...],
    num_weights: int,
    grad_dtype: DType,
    index_dtype: DType,
    deterministic: bool,
    padding_idx: int = -1,
    scale: bool = False,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for grad of ``grad_shape`` (``[..., D]``, 64-bit sizes).

    Mirrors the generated C++ tiling function; ``tests/test_embedding_dense_backward.py`` compares the two
    through ``opgen_rt_run_tiling_json``.

    Raises:
        ValueError: a dtype the spec does not list, a grad of rank 0, a negative ``num_weights``, or a UB
            too small for one 64-element chunk.
    """
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if grad_dtype not in grads or index_dtype not in idxs:
        raise ValueError(
            f"{spec.op} takes grad {', '.join(d.name for d in grads)} and indices {', '.join(d.name for d in idxs)}; "
            f"got {grad_dtype.name} and {index_dtype.name}"
        )
    if not grad_shape or num_weights < 0:
        raise ValueError(f"grad must have rank >= 1 and numWeights >= 0, got {list(grad_shape)} and {num_weights}")
    # Without hardware SyncAll (catalogue hw_sync_all) the tiling picks the barrier-free plan: the deterministic
    # strategy with one index group, whatever mode was asked for.
    deterministic = deterministic or not product.hw_sync_all
    bufs = buffer_num(spec, [product])
    d = grad_shape[-1]
    n = 1
    for dim in grad_shape[:-1]:
        n = _sat_mul(n, dim)
    pad = padding_idx if 0 <= padding_idx < num_weights else -1
    acc_stride = _ceil_div(d, ACC_ALIGN) * ACC_ALIGN
    acc_in_ws = d % ACC_ALIGN != 0
    grad_bytes = grad_dtype.itemsize
    cast_bytes = FP32_BYTES if grad_dtype is not DType.FLOAT else 0
    bpe = bufs * (FP32_BYTES + FP32_BYTES) + TILE_BUFFERS * grad_bytes + cast_bytes
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - bufs * INDEX_UB_BYTES
    d_chunk_max = budget // bpe // CHUNK_ALIGN * CHUNK_ALIGN
    if d_chunk_max <= 0:
        raise ValueError(f"UB of {product.name} ({product.ub_bytes} bytes) cannot hold one chunk of {spec.op}")
    index_chunk = INDEX_UB_BYTES // index_dtype.itemsize
    min_bytes = spec.tiling.min_bytes_per_core
    cores = product.vector_core_num
    # D-slices are whole 32-byte blocks of the rows dtype and of the fp32 accumulator.
    align = max(BLOCK_BYTES // grad_bytes, ACC_ALIGN)
    need_grad = _cores_wanted(_sat_mul(_sat_mul(n, d), grad_bytes), cores, min_bytes)
    need_acc = _cores_wanted(_sat_mul(_sat_mul(num_weights, acc_stride), FP32_BYTES), cores, min_bytes)
    if deterministic:  # the owners do all the adds: one row per core up to coreNum, more via D-slices
        target = max(min(cores, num_weights), need_grad, need_acc)
        row_split = split_2d(num_weights, d, align, target, cores, grad_bytes + 2 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        groups = 1
        if product.hw_sync_all:  # index groups merge their partials after a SyncAll
            row_split, groups = index_groups(row_split, num_weights, n, d, align, need_grad, cores, grad_bytes)
        index_split = Split2D(groups, 1, _sat_mul(max(1, _ceil_div(d, align)), align))
    else:
        target = max(need_grad, need_acc)
        row_split = split_2d(num_weights, d, align, target, cores, 3 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        index_split = split_2d(n, d, align, need_grad, cores, grad_bytes + FP32_BYTES, index_dtype.itemsize)
    longest = row_split.slice_length if deterministic else max(row_split.slice_length, index_split.slice_length)
    d_chunk = min(d_chunk_max, _ceil_div(max(min(longest, d), 1), CHUNK_ALIGN) * CHUNK_ALIGN)
    # grad tiles in what the indices, accumulator and output queues leave; UB sums (deterministic) when they
    # take at most half of it and leave a tile row
    tile_budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - bufs * (INDEX_UB_BYTES + 2 * d_chunk * FP32_BYTES)
    # a tile row: a D-chunk of grad (at most D elements) padded to whole 32-byte blocks
    tile_pitch = _align(max(1, min(d_chunk, d)), BLOCK_BYTES // grad_bytes)
    tile_row_bytes = tile_pitch * (TILE_BUFFERS * grad_bytes + cast_bytes)
    ub_acc_bytes = _sat_mul(
        _sat_mul(_ceil_div(num_weights, row_split.groups), min(row_split.slice_length, acc_stride)), FP32_BYTES
    )
    ub_acc = (
        deterministic
        and num_weights > 0
        and ub_acc_bytes <= tile_budget // 2
        and tile_budget - ub_acc_bytes >= tile_row_bytes
    )
    tile_rows = max(
        1, min((tile_budget - (ub_acc_bytes if ub_acc else 0)) // tile_row_bytes, MAX_BLOCK_COUNT, index_chunk)
    )
    acc_bytes = _sat_mul(_sat_mul(num_weights, acc_stride), FP32_BYTES) if acc_in_ws else 0
    partials_offset = _ceil_div(acc_bytes, CACHE_LINE_BYTES) * CACHE_LINE_BYTES
    partial_groups = index_split.groups - 1 if deterministic else 0
    partials_bytes = _sat_mul(_sat_mul(_sat_mul(num_weights, acc_stride), FP32_BYTES), partial_groups)
    per_line = CACHE_LINE_BYTES // COUNT_BYTES
    counts_stride = _ceil_div(num_weights, per_line) * per_line + per_line * row_split.groups
    count_slots = _sat_mul(counts_stride, row_split.slices) if scale else 0
    counts_bytes = _sat_mul(count_slots, COUNT_BYTES)
    counts_offset = _ceil_div(_sat_add(partials_offset, partials_bytes), CACHE_LINE_BYTES) * CACHE_LINE_BYTES
    # The sorted-run strategy replaces the other one where it can run and moves fewer bytes (sorted_wins); the
    # transfer-cost model (every DMA counted as at least SMALL_DIM_BYTES) also picks records or pairs in sort_plan.
    ib = index_dtype.itemsize
    plan = sort_plan(
        product, spec.tiling.ub_reserved_bytes, min_bytes, n, num_weights, d, grad_bytes, ib, scale, deterministic
    )
    other_args = (
        deterministic,
        n,
        num_weights,
        d,
        acc_stride,
        grad_bytes,
        ib,
        scale,
        row_split,
        index_split,
        acc_in_ws,
    )
    est_other = other_bytes(*other_args, ub_acc, tile_rows, d_chunk)
    cost_other = other_bytes(*other_args, ub_acc, tile_rows, d_chunk, SMALL_DIM_BYTES)
    est_sorted = cost_sorted = 0
    if plan.feasible:
        est_sorted = sorted_bytes(plan, n, num_weights, d, grad_bytes, ib, scale, deterministic)
        cost_sorted = sorted_bytes(plan, n, num_weights, d, grad_bytes, ib, scale, deterministic, SMALL_DIM_BYTES)
    use_sorted = sorted_wins(plan, n, est_sorted, est_other, cost_sorted, cost_other)
    strategy = (2 if use_sorted else 0) + (1 if deterministic else 0)
    key = strategy * 100 + grads.index(grad_dtype) * 10 + idxs.index(index_dtype)
    split = (
        ("indices queue", bufs, INDEX_UB_BYTES),
        ("grad tile queue", TILE_BUFFERS, tile_rows * tile_pitch * grad_bytes),
        ("fp32 cast of the grad tile", 1 if cast_bytes else 0, tile_rows * tile_pitch * FP32_BYTES),
        ("accumulator queue", bufs, d_chunk * FP32_BYTES),
        ("output queue", bufs, d_chunk * FP32_BYTES),
        ("owned rows x D-slice summed in UB", 1 if ub_acc else 0, ub_acc_bytes),
    )
    return TilingDecision(
        product=product.name,
        grad_dtype=grad_dtype.name,
        index_dtype=index_dtype.name,
        deterministic=deterministic,
        tiling_key=key,
        num_weights=num_weights,
        embedding_dim=d,
        num_indices=n,
        padding_row=pad,
        scale=scale,
        acc_stride=acc_stride,
        acc_in_workspace=acc_in_ws,
        counts_offset=counts_offset,
        workspace_bytes=product.sys_workspace_bytes
        + (plan.workspace_bytes if use_sorted else counts_offset + counts_bytes),
        buffer_num=bufs,
        bytes_per_element=bpe,
        ub_budget_bytes=budget,
        d_chunk_max=d_chunk_max,
        d_chunk=d_chunk,
        index_chunk=index_chunk,
        slice_align=align,
        row_split=row_split,
        rows_per_group=num_weights // row_split.groups,
        rows_former_num=num_weights % row_split.groups,
        index_split=index_split,
        indices_per_group=n // index_split.groups,
        indices_former_num=n % index_split.groups,
        counts_slice_stride=counts_stride,
        partials_offset=partials_offset,
        block_dim=plan.cores
        if use_sorted
        else max(row_split.cores, row_split.cores * index_split.groups if deterministic else index_split.cores),
        ub_split=split,
        tile_rows=tile_rows,
        ub_accumulate=ub_acc,
        sort=plan,
        sorted_run=use_sorted,
        sorted_bytes_estimate=est_sorted,
        other_bytes_estimate=est_other,
        sorted_cost_estimate=cost_sorted,
        other_cost_estimate=cost_other,
    )


def _explain_tiles(t: TilingDecision, product: Product) -> list[str]:
    """``opgen explain`` lines of how the atomic / deterministic strategy moves grad and where it sums."""
    d = t.embedding_dim
    row_bytes = d * DType[t.grad_dtype].itemsize
    slices = t.row_split.slices if t.deterministic else t.index_split.slices
    if product.data_copy_pad:
        how = "one DataCopyPad (blockCount rows, srcStride the rest of a grad row)"
    elif row_bytes % BLOCK_BYTES == 0:
        how = (
            "one contiguous DataCopy (whole rows)"
            if slices == 1
            else "one strided DataCopy (DataCopyParams blockCount rows, blockLen the slice, srcStride the rest)"
        )
    elif slices == 1 and row_bytes < SMALL_DIM_BYTES:
        how = (
            "one contiguous DataCopy of the run's whole 32-byte blocks, the tail and the spread to a 32-byte row "
            f"pitch by the scalar unit ({product.name} has no DataCopyPad)"
        )
    else:
        how = (
            f"row by row ({product.name} has no DataCopyPad and {a_or_an(str(row_bytes))} {row_bytes}-byte row is not "
            "whole 32-byte blocks)"
        )
    runs = (
        "runs of consecutive positions whose rows this core owns"
        if t.deterministic
        else "runs of consecutive valid positions"
    )
    lines = [
        f"    grad tiles: up to {t.tile_rows} grad rows x one D-chunk per transfer, {runs}: {how}; {TILE_BUFFERS} "
        "tiles in flight (the next tile's copy is issued before the current tile is added)"
    ]
    if 0 < row_bytes < SMALL_DIM_BYTES:
        lines.append(
            f"    small-dim path: a grad row is {row_bytes} bytes (< {SMALL_DIM_BYTES}), so a transfer carries up to "
            f"{t.tile_rows} rows"
            + ("" if product.data_copy_pad or row_bytes % BLOCK_BYTES == 0 or slices == 1 else " (here one per row)")
        )
    if not t.deterministic:
        lines.append("    sums: each tile row added with SetAtomicAdd<float> into its accumulator row (whole blocks)")
    elif t.ub_accumulate:
        each = dict((name, b) for name, _, b in t.ub_split)["owned rows x D-slice summed in UB"]
        target = (
            "written once to out"
            if t.index_split.groups == 1
            else "written once to the accumulator or the group's partial, then merged by the owners"
        )
        lines.append(f"    sums: owned rows x D-slice in UB (up to {each} bytes per core), {target}")
    else:
        lines.append(
            "    sums: read-add-write of the owned accumulator row in GM per contribution (the owned rows x "
            "D-slice take more than half of the UB the queues leave)"
        )
    return lines


def _sorted_verdict(t: TilingDecision, other: str) -> str:
    """Why :func:`sorted_wins` took or kept the sorted-run strategy, for ``opgen explain``."""
    sp = t.sort
    fills = sort_fills_staging(sp, t.num_indices)
    if t.sorted_run:
        if t.sorted_bytes_estimate < t.other_bytes_estimate:
            return "sorted-run strategy chosen (lower cost and fewer GM bytes)"
        return "sorted-run strategy chosen (lower cost; the indices fill the staging slots)"
    if t.sorted_cost_estimate >= t.other_cost_estimate:
        return f"{other} strategy kept (lower cost)"
    return (
        f"{other} strategy kept (fewer GM bytes, and {t.num_indices} indices are fewer than cores x buckets x "
        f"staging slot = {sp.cores} x {sp.buckets} x {sp.stage} = {sp.cores * sp.buckets * sp.stage})"
        if not fills
        else f"{other} strategy kept (fewer GM bytes)"
    )


def _explain_sorted(t: TilingDecision, core_num: int) -> list[str]:
    """``opgen explain`` lines of the sorted-run choice of one tiling decision (the tiling function's numbers)."""
    mode = "deterministic" if t.deterministic else "non-deterministic"
    sp = t.sort
    if not sp.feasible:
        return [
            f"  {mode} mode: sorted-run strategy not possible ({sp.reason}); estimated GM bytes of the other: "
            f"{t.other_bytes_estimate} (transfer cost {t.other_cost_estimate})"
        ]
    other = "deterministic" if t.deterministic else "atomic"
    head = (
        f"  {mode} mode: transfer cost (GM bytes, each DMA counted as at least {SMALL_DIM_BYTES} bytes) sorted-run "
        f"with {'records' if sp.small_dim else 'pairs'} {t.sorted_cost_estimate} vs {other} {t.other_cost_estimate} "
        f"(GM bytes {t.sorted_bytes_estimate} vs {t.other_bytes_estimate}): " + _sorted_verdict(t, other)
    )
    if not t.sorted_run:
        return [head]
    stride = _align(sp.d_chunk, ACC_ALIGN)
    entries = f"records of {t.embedding_dim + 1} int32 words" if sp.small_dim else "(row, position) pairs"
    per_entry = "record" if sp.small_dim else "grad row"
    variant = (
        f"    small-dim variant: {sp.small_dim_reason}; phase 2 reads up to {sp.tile_rows} grad rows per copy "
        f"and stages records (row key, {t.embedding_dim} fp32 values); phase 3 reads them contiguously, no gather"
        if sp.small_dim
        else f"    small-dim variant not used: {sp.small_dim_reason}"
    )
    return [
        head,
        f"  strategy {t.strategy} (tiling key {t.tiling_key}), blockDim {t.block_dim} of {core_num}:",
        variant,
        f"    sort: {sp.buckets} row buckets of {sp.bucket_rows} rows; phase 1 counts per bucket, phase 2 stages "
        f"{entries} in slots of {sp.stage} {'records' if sp.small_dim else 'pairs'} and flushes them into the "
        "bucket's region",
        f"    workspace: {t.workspace_bytes} bytes with the system workspace (count matrix [{sp.cores}, "
        f"{sp.matrix_stride}] int32 at {sp.matrix_offset}, {'records' if sp.small_dim else 'pairs'} at "
        f"{sp.pairs_offset})",
        "    barriers: "
        + (
            f"software SyncAll(gmWorkspace, ubWorkspace) on the {SYNC_OUTPUT} output (zero-filled by the launch, "
            f"OpDef InitValue(0)); no DataCopyPad: each (core, bucket) segment of the pairs padded to "
            f"{sp.pair_align} pairs (whole 32-byte blocks), grad and output rows moved with DataCopy"
            if sp.soft_sync and sp.pair_align > 1
            else f"software SyncAll(gmWorkspace, ubWorkspace) on the {SYNC_OUTPUT} output (zero-filled by the launch, "
            "OpDef InitValue(0))"
            if sp.soft_sync
            else "hardware SyncAll"
            + (
                f"; no DataCopyPad: each (core, bucket) segment of the pairs padded to {sp.pair_align} pairs (whole "
                "32-byte blocks), grad and output rows moved with DataCopy"
                if sp.pair_align > 1
                else ""
            )
        ),
        f"    sums: D in chunks of {sp.d_chunk} elements; fp32 bucket accumulator {sp.bucket_rows} x {stride}; "
        + (
            f"records read {sp.pair_chunk} at a time; UB used {sp.ub_bytes} bytes"
            if sp.small_dim
            else f"pairs read {sp.pair_chunk} at a time; up to {sp.tile_rows} consecutive grad rows per copy; UB "
            f"used {sp.ub_bytes} bytes"
        ),
        "    cores: "
        + (
            "each core takes a contiguous range of the sorted entries, split by GM bytes (a bucket's output rows, "
            f"then one {per_entry} per entry); a bucket crossing a core boundary is summed by each of its cores into "
            f"an fp32 partial slot of the workspace (at {sp.partials_offset}) and, after a SyncAll, added by its first "
            "core in core order: no GM atomics"
            if t.deterministic
            else "each core takes a contiguous range of the sorted entries, split by GM bytes (a bucket's output "
            f"rows, then one {per_entry} per entry); a bucket crossing a core boundary is "
            "zero-filled first and added atomically by each of its cores (only there)"
        ),
    ]


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling decision of both strategies as readable lines, for ``opgen explain``.

    Args:
        shape: ``(numWeights, D)`` or ``(numWeights, D, N)`` (N, the number of indices, defaults to numWeights).
        dtype_name: grad dtype (default the first the spec lists); indices are taken as INT64 when listed.

    Raises:
        ValueError: a shape of another length or a dtype the op does not take.
    """
    if len(shape) not in (2, 3):
        raise ValueError(f"give the shape as numWeights,D or numWeights,D,N; got {list(shape)}")
    num_weights, d = shape[0], shape[1]
    n = shape[2] if len(shape) == 3 else num_weights
    grad = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    idxs = index_dtypes(spec)
    index = DType.INT64 if DType.INT64 in idxs else idxs[0]
    lines = [f"tiling for grad [{n}, {d}] ({grad.name}), indices [{n}] ({index.name}), numWeights {num_weights}:"]
    if not product.hw_sync_all:
        lines.append(
            f"  {product.name} has no hardware SyncAll: both modes (deterministic or not) run deterministically: "
            f"the sorted-run strategy where the tiling picks it (its two barriers are the software SyncAll on the "
            f"{SYNC_OUTPUT} output, which the launch zero-fills), else the deterministic strategy with one index "
            "group, which needs no barrier between cores"
        )
    for _, det in STRATEGIES if product.hw_sync_all else (("deterministic", True),):
        t = tiling_decision(spec, product, (n, d), num_weights, grad, index, det, scale=True)
        lines += _explain_sorted(t, product.vector_core_num)
        if t.sorted_run:
            continue
        lines += [
            f"  strategy {t.strategy} (tiling key {t.tiling_key}), "
            f"blockDim {t.block_dim} of {product.vector_core_num}:",
            f"    UB budget: {t.ub_budget_bytes} bytes after the indices queue; {t.bytes_per_element} bytes per row "
            f"element; dChunk {t.d_chunk} of at most {t.d_chunk_max} elements; indexChunk {t.index_chunk}",
        ]
        for name, count, each in t.ub_split:
            if count:
                lines.append(f"      {name}: {count} x {each} bytes")
        lines += _explain_tiles(t, product)
        rs, xs = t.row_split, t.index_split
        lines += [
            f"    D-slices: multiples of {t.slice_align} elements (32 bytes of {t.grad_dtype} and of the fp32 "
            "accumulator)",
            f"    rows of out: {rs.groups} row groups x {rs.slices} D-slices of {rs.slice_length} elements = "
            f"{rs.cores} owning cores, {t.rows_per_group} rows per group (+1 on the first {t.rows_former_num})",
            f"    indices: {xs.groups} index groups x {xs.slices} D-slices of {xs.slice_length} elements = "
            f"{xs.cores} adding cores, {t.indices_per_group} indices per group (+1 on the first "
            f"{t.indices_former_num})"
            if not t.deterministic
            else "    indices: every owning core scans all of them in order and adds its rows x D-slice"
            if xs.groups == 1
            else f"    indices: {xs.groups} index groups x {rs.cores} owning positions = {t.block_dim} cores, "
            f"{t.indices_per_group} indices per group (+1 on the first {t.indices_former_num}); each sums its "
            f"group in index order into an fp32 partial (group 0: the accumulator; groups 1..: workspace at offset "
            f"{t.partials_offset}), then after SyncAll the owners merge the partials in group order 0..{xs.groups - 1}",
            f"    accumulator: fp32 rows of {t.acc_stride} elements "
            + ("in the workspace" if t.acc_in_workspace else "in the fp32 output itself")
            + f"; workspace {t.workspace_bytes} bytes ({product.sys_workspace_bytes} system workspace + user part; "
            f"counts at user offset {t.counts_offset} with scaling)",
        ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------- the view


def device_opdef_dtypes(spec: OpSpec, products: list[Product] | None) -> dict[str, list[DType]]:
    """Dtype columns of the device op's OpDef, by tensor name: every (rows dtype, index dtype) pair the
    products all support, rows-major; the output (the fp32 sums) is FLOAT in every column. ``products``
    None gives the spec's full lists (the OpDef's default)."""
    comp = compute_of(spec)
    rows_t, index_t = spec.tensor(comp.rows), spec.tensor(comp.index)
    grads = [d for d in rows_t.dtypes if products is None or all(p.supports(d) for p in products)]
    idxs = [d for d in index_t.dtypes if products is None or all(p.supports(d) for p in products)]
    cols = [(g, i) for g in grads for i in idxs]
    out: dict[str, list[DType]] = {comp.rows: [g for g, _ in cols], comp.index: [i for _, i in cols]}
    out.update({t.name: [DType.FLOAT] * len(cols) for t in spec.outputs})
    return out


def _opdef_columns(spec: OpSpec, products: list[Product] | None) -> OpDefTensors:
    """The OpDef entries (see :func:`device_opdef_dtypes`) as template strings, plus the :data:`SYNC_OUTPUT`
    output: [SYNC_INTS] int32 with ``InitValue(0)``, so the launch starts with zero counters for the software
    SyncAll (asc-devkit SyncAll(gmWorkspace, ubWorkspace, usedCores): the GM workspace must be zero first)."""
    cols = device_opdef_dtypes(spec, products)

    def entry(name: str) -> OpDefParam:
        dts = cols[name]
        return OpDefParam(
            name=name,
            param_type="REQUIRED",
            dtypes=", ".join(f"ge::{d.ge_name}" for d in dts),
            formats=", ".join(["ge::FORMAT_ND"] * len(dts)),
        )

    width = len(cols[spec.outputs[0].name])
    sync = OpDefParam(
        name=SYNC_OUTPUT,
        param_type="REQUIRED",
        dtypes=", ".join(["ge::DT_INT32"] * width),
        formats=", ".join(["ge::FORMAT_ND"] * width),
        init_value=0,
    )
    return OpDefTensors(
        inputs=tuple(entry(t.name) for t in spec.inputs),
        outputs=(*(entry(t.name) for t in spec.outputs), sync),
    )


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation of ``spec`` on its products, before any view is built.

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key), or the
            queue depth exceeds a product's buffers per position.
    """
    compute_of(spec)
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if len(grads) > 10 or len(idxs) > 10:
        raise ValueError(f"{spec.op}: at most 10 rows and 10 index dtypes fit the tiling key's digits")
    buffer_num(spec, spec_products(spec, catalogue))


@dataclass(frozen=True)
class GradKey:
    """A rows dtype of the tiling key: its digit ``key``, spec ``dtype`` name, ``ge_name``, kernel type,
    ``bytes`` per element and the preprocessor ``guard`` leaving it out where the product lacks it ("")."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    bytes: int
    guard: str


@dataclass(frozen=True)
class IndexKey:
    """An index dtype of the tiling key: its digit ``key``, spec ``dtype`` name, ``ge_name``, ``bytes`` per
    element and the kernel's index ``codec``."""

    key: int
    dtype: str
    ge_name: str
    bytes: int
    codec: str


@dataclass(frozen=True)
class KernelBranch:
    """One tiling-key branch of the kernel entry: ``key``, the rows kernel type, the index codec,
    ``deterministic`` (``true``/``false``), ``sorted`` (the sorted-run strategy), a ``comment`` and its
    preprocessor ``guard`` ("")."""

    key: int
    grad_type: str
    codec: str
    deterministic: str
    #: the sorted-run strategy's kernel (``Run<OpType>Sorted``)
    sorted: bool
    comment: str
    guard: str


@dataclass(frozen=True)
class BranchGroup:
    """Consecutive kernel branches sharing one preprocessor ``guard`` ("": always compiled)."""

    guard: str
    branches: tuple[KernelBranch, ...]


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/index_accumulate_aclnn.cpp.j2``): parameter checks and the L2 plan.
    ``rows``, ``index``, ``out``: the tensors' names; ``num_rows``, ``padding``: the attrs' names (``padding``
    empty without one)."""

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    index: str
    index_dtype_list: str
    l0_attrs: tuple[L0Attr, ...]
    num_rows: str
    out: str
    padding: str
    rows: str
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]


@dataclass(frozen=True)
class L0SourceView(KindView):
    """``op_api/<kernel>.cpp`` (``op_api/index_accumulate_l0.cpp.j2``): the L0 wrapper."""

    KIND: ClassVar[str] = "l0_cpp"
    files: Mapping[str, str]
    index: str
    l0_attrs: tuple[L0Attr, ...]
    l0_params: tuple[str, ...]
    num_rows: str
    rows: str
    #: the software SyncAll's counters output: its name and int32 element count
    sync_output: str
    sync_ints: int


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
class TilingSourceView(KindView):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/index_accumulate_tiling.cpp.j2``): the tiling function;
    sizes in bytes, alignments in elements, positions/indexes in the OpDef (-1: attr absent)."""

    KIND: ClassVar[str] = "tiling_cpp"
    acc_align: int
    block_bytes: int
    buffer_num: int
    cache_line_bytes: int
    chunk_align: int
    count_bytes: int
    files: Mapping[str, str]
    fp32_bytes: int
    grad_keys: tuple[GradKey, ...]
    hw_sync_archs: tuple[ArchGroup, ...]
    index: str
    index_keys: tuple[IndexKey, ...]
    index_position: int
    index_ub_bytes: int
    max_block_count: int
    min_bytes_per_core: int
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
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str
    ub_reserved_bytes: int


@dataclass(frozen=True)
class KernelView(KindView):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/index_accumulate_kernel.cpp.j2``): one branch per tiling key."""

    KIND: ClassVar[str] = "kernel_cpp"
    block_bytes: int
    branch_groups: tuple[BranchGroup, ...]
    buffer_num: int
    cache_line_bytes: int
    index: str
    kernel_class: str
    #: buffers of the grad tile queue (double buffering)
    tile_buffers: int
    kernel_params: tuple[str, ...]
    #: largest blockCount of one DataCopy / DataCopyPad
    max_block_count: int
    #: grad rows below this many bytes take the small-dim path
    small_dim_bytes: int
    no_pad_condition: str
    no_sync_condition: str
    num_rows: str
    out: str
    padding: str
    rows: str
    scaling: str
    #: the preprocessor condition of the products without the sorted-run strategy ("": none)
    sorted_guard: str
    #: whether any product of the op compiles the sorted-run strategy
    sorted_strategy: bool
    #: the software SyncAll's counters output (kernel parameter name), pairs per 32-byte block and the
    #: row/position of a padding pair
    sync_output: str
    pairs_per_block: int
    pad_pair: int


@dataclass(frozen=True)
class DocView(KindView):
    """``docs/<aclnn>.md`` (``docs/index_accumulate_aclnn.md.j2``): the API documentation."""

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    index: str
    num_rows: str
    out: str
    padding: str
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    rows: str
    scaling: str
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    tiling_lines: tuple[str, ...]


#: The views of the index-accumulate templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = {
    c.KIND: c
    for c in (
        AclnnSourceView,
        L0SourceView,
        InferShapeView,
        IndexTilingHeaderView,
        TilingSourceView,
        KernelView,
        DocView,
    )
}


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of an index-accumulate op (:data:`VIEWS` and the shared ones).

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key).
    """
    return op_views(spec, catalogue, _view_parts(spec, catalogue), VIEWS)


def _view_parts(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The view entries of an index-accumulate op by name (see :func:`codegen.plan.common.common_view`).

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key).
    """
    view = common_view(spec, catalogue)
    comp = compute_of(spec)
    products: list[Product] = view["products"]
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if len(grads) > 10 or len(idxs) > 10:
        raise ValueError(f"{spec.op}: at most 10 rows and 10 index dtypes fit the tiling key's digits")
    no_bf16 = arch_condition(products, "bf16")
    bufs = buffer_num(spec, products)
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}

    grad_keys = [
        GradKey(
            key=k,
            dtype=d.name,
            ge_name=d.ge_name,
            kernel_type=d.kernel_type,
            bytes=d.itemsize,
            guard=no_bf16 if d is DType.BF16 and no_bf16 != "0" else "",
        )
        for k, d in enumerate(grads)
    ]
    index_keys = [IndexKey(k, d.name, d.ge_name, d.itemsize, INDEX_CODECS[d]) for k, d in enumerate(idxs)]
    no_sync = arch_condition(products, "hw_sync_all")
    # The sorted-run strategy runs on every product: without DataCopyPad it copies whole 32-byte blocks (rows of
    # whole blocks only), without hardware SyncAll its barriers are the software SyncAll on the counters output;
    # its atomic mode (SetAtomicAdd across cores) is left out where the tiling never picks it (no hardware
    # SyncAll: every call is deterministic there).
    sorted_products = list(products)
    sorted_guard = ""
    branches: list[KernelBranch] = []
    all_strategies = [*STRATEGIES, *(SORTED_STRATEGIES if sorted_products else ())]
    for s, (strategy, det) in enumerate(all_strategies):
        for g in grad_keys:
            # The atomic modes need hardware SyncAll (the tiling picks them only there): left out where missing.
            need = "" if det or no_sync == "0" else no_sync
            parts = list(dict.fromkeys(c for c in (g.guard, need) if c))
            guard = " || ".join(f"({c})" for c in parts) if len(parts) > 1 else (parts[0] if parts else "")
            for i in index_keys:
                branches.append(
                    KernelBranch(
                        key=s * 100 + g.key * 10 + i.key,
                        grad_type=g.kernel_type,
                        codec=i.codec,
                        deterministic="true" if det else "false",
                        sorted=s >= 2,
                        comment=f"{strategy}, {comp.rows} {g.dtype}, {comp.index} {i.dtype}",
                        guard=guard,
                    )
                )
    # Consecutive branches with the same guard share one #if block.
    runs: list[list[KernelBranch]] = []
    for b in branches:
        if runs and runs[-1][0].guard == b.guard:
            runs[-1].append(b)
        else:
            runs.append([b])
    branch_groups = [BranchGroup(run[0].guard, tuple(run)) for run in runs]

    default_cols = _opdef_columns(spec, None)
    configs = []
    for p in products:
        cols = _opdef_columns(spec, [p])
        configs.append(
            OpDefConfig(
                config_name=p.config_name,
                var=f"{p.config_name}Config",
                custom=cols != default_cols,
                inputs=cols.inputs,
                outputs=cols.outputs,
            )
        )
    opdef = OpDefRegistration(default_cols, tuple(configs), view["opdef"].attrs)

    checks = constraint_view(spec, catalogue)
    rows_t, index_t, out_t = spec.tensor(comp.rows), spec.tensor(comp.index), spec.tensor(comp.accumulate)
    num_rows_attr = spec.attr(comp.num_rows)
    padding_attr = spec.attr(comp.padding) if comp.padding else None
    scale_attr = spec.attr(comp.count_scaling) if comp.count_scaling else None
    l0_attrs = [L0Attr(comp.num_rows, f"int64_t {comp.num_rows}", f"static_cast<int64_t>({comp.num_rows})")]
    if padding_attr is not None:
        l0_attrs.append(
            L0Attr(padding_attr.name, f"int64_t {padding_attr.name}", f"static_cast<int64_t>({padding_attr.name})")
        )
    if scale_attr is not None:
        l0_attrs.append(L0Attr(scale_attr.name, f"bool {scale_attr.name}", scale_attr.name))
    l0_attrs.sort(key=lambda a: attr_index[a.name])

    tensor_groups = {t.name: dtype_groups(t, products) for t in (rows_t, out_t)}
    status_rows = [
        status_row(AclnnStatus.ACLNN_SUCCESS, "Success."),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_NULLPTR,
            f"{', '.join([rows_t.name, index_t.name, out_t.name, *null_pointer_attrs(spec), 'workspaceSize'])} "
            "or executor is null.",
        ),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_INVALID,
            (
                f"A dtype not supported on this product; a rank outside {rows_t.name} "
                f"{rows_t.rank[0]}-{rows_t.rank[1]}, "
                f"{index_t.name} {index_t.rank[0]}-{index_t.rank[1]}; {rows_t.name} rows (all axes but the last, "
                f"flattened) not equal to the element count of {index_t.name}; {out_t.name} not of shape "
                f"[{comp.num_rows}, D]; {format_rule_text(spec)}"
                + ("; a product limit below." if spec.constraints else ".")
            ),
        ),
        status_row(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR, "The tiling function failed."),
    ]
    constraint_lines = [
        f"`{rows_t.name}` is viewed as `[N, D]` (`D` its last axis, `N` the product of the others); `{index_t.name}` "
        f"has `N` elements of any shape; `{out_t.name}` is `[{comp.num_rows}, D]`.",
        f"Rows whose index is outside `[0, {comp.num_rows})`, NaN or infinite contribute nothing and write nothing.",
        f"Empty `{rows_t.name}` or `{index_t.name}` give an all-zero `{out_t.name}`; `{comp.num_rows}` = 0 gives an "
        f"empty `[0, D]` output.",
        "Determinism: by default rows are added with atomic fp32 adds, whose order depends on core timing; with "
        "`aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1)` the output is bit-identical for every run and core order."
        + (
            f" On {', '.join(p.name for p in products if not p.hw_sync_all)} (no hardware SyncAll) every call runs "
            "deterministically: the sorted-run strategy where the tiling picks it (software SyncAll), else the "
            "deterministic strategy with one index group, which needs no barrier between cores."
            if any(not p.hw_sync_all for p in products)
            else ""
        ),
        *(
            f"Product limit `{c.name}`: {line}"
            for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue), strict=True)
        ),
    ]
    tiling_lines = [
        "Every size in the tiling is int64 (numWeights and the row count may exceed 2^31).",
        f"UB: {bufs} x {INDEX_UB_BYTES} bytes of indices, then per element of a row chunk {bufs} x (fp32 "
        f"accumulator + fp32 output) + {TILE_BUFFERS} x grad bytes, plus an fp32 cast buffer for 16-bit grads; `D` "
        f"is cut into chunks of at most `dChunk` elements (a multiple of {CHUNK_ALIGN}). Grad moves in tiles of up "
        f"to `tileRows` consecutive rows x one chunk per DataCopy, {TILE_BUFFERS} tiles in flight (the next tile's "
        "copy overlaps the current tile's adds), sized from what the other queues leave of UB; in the "
        "deterministic strategy the owners sum their rows in UB and write them once when they take at most half "
        "of it (`ubAccumulate`).",
        f"The fp32 accumulator has rows of `D` rounded up to {ACC_ALIGN} elements (whole 32-byte blocks); it is the "
        "fp32 device output itself when `D` is a multiple of 8, else it lives in the workspace, followed by int64 "
        f"occurrence counts when `{scale_attr.name if scale_attr else 'scaling'}` is set. The workspace the tiling "
        "requests starts with the system workspace (`GetLibApiWorkSpaceSize()`); the kernel's part begins at "
        "`GetUserWorkspace(workspace)`.",
        f"Cores: every phase splits its items into groups and `D` into D-slices (whole 32-byte blocks of "
        f"`{rows_t.name}` and of the fp32 accumulator), cores = groups x D-slices, so a launch runs on at least one "
        f"core per {spec.tiling.min_bytes_per_core} bytes of `{rows_t.name}` (and of the accumulator), up to "
        "coreNum, even with few rows and a large `D`. Atomic strategy: (row group x D-slice) cores zero-fill, "
        "count and write the output, (index group x D-slice) cores add; the fp32 atomic adds of different "
        "D-slices touch disjoint blocks. Deterministic strategy: one owning core per (row group x D-slice), at "
        "least one row per core up to coreNum; it scans every index in order and adds only into what it owns, so "
        f"each element of `{out_t.name}` is summed by one core in index order (then scaled once), whatever the "
        "core timing. When that gives too few cores (few rows, a small `D`, many indices), the indices are also "
        "split into groups: each (index group x row group x D-slice) core sums its index range in order into an "
        "fp32 partial in the workspace (zero-filled by that core), and after SyncAll the owners add the partials "
        "in group order: a fixed summation order per element.",
        "The split tries every group count: it reaches the most cores it can (up to the wanted count), then uses "
        "the fewest, then balances the largest per-core share; `opgen explain` prints it for a shape.",
        *(
            [
                "Sorted-run strategy (every product, at every number of indices): chosen when its transfer cost "
                f"(GM bytes, every DMA counted as at least {SMALL_DIM_BYTES} bytes) is below the other strategy's "
                "and it moves fewer GM bytes, or, once every core's indices fill its bucket staging slots (N >= "
                "cores x buckets x slot entries), on the lower transfer cost alone; the cost model "
                "picks records (row key + fp32 values, grad read contiguously) over pairs for short rows; without "
                "DataCopyPad only for rows of whole 32-byte blocks, with pairs. Workspace: the [cores, buckets] "
                "int32 count matrix, then N sorted entries (int32 pairs or records; without DataCopyPad each "
                "core's segment of a bucket padded to whole blocks), then in deterministic mode 2 x cores fp32 "
                "partial slots of a bucket's rows for the buckets split between cores. UB: indices buffer, "
                f"{SORT_PAIR_CHUNK} pairs, a work buffer of half the rest (staging slots, then the fp32 bucket "
                "accumulator), three int32 bucket arrays, and the grad tile with everything left (up to 4095 "
                "consecutive rows per copy). Without hardware SyncAll the barriers are the software SyncAll on "
                f"the `{SYNC_OUTPUT}` output, which the launch zero-fills (OpDef InitValue(0)).",
            ]
            if products
            else []
        ),
    ]
    for p in products:
        t = tiling_decision(spec, p, (1 << 20, 1 << 20), 1 << 20, grads[0], idxs[0], False)
        tiling_lines.append(
            f"{p.name}: UB {p.ub_bytes} bytes, {p.vector_core_num} cores, {grads[0].name} grad: dChunk up to "
            f"{t.d_chunk_max} elements."
        )
    example_lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            example_lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            example_lines.append(f"`{name}` = {str(value).lower() if isinstance(value, bool) else value}")
    view.update(
        {
            "rows": rows_t.name,
            "rows_position": spec.input_names.index(rows_t.name),
            "index_position": spec.input_names.index(index_t.name),
            "kernel_params": [*spec.input_names, *spec.output_names, SYNC_OUTPUT],
            "sync_output": SYNC_OUTPUT,
            "sync_ints": SYNC_INTS,
            "sync_cores_max": SYNC_CORES_MAX,
            "pairs_per_block": PAIRS_PER_BLOCK,
            "pad_pair": PAD_PAIR,
            "max_block_field": MAX_BLOCK_FIELD,
            "pad_archs": arch_groups([p for p in products if p.data_copy_pad]),
            "tiling_fields": tiling_field_views(TILING_FIELDS),
            "index": index_t.name,
            "out": out_t.name,
            "num_rows": num_rows_attr.name,
            "num_rows_index": attr_index[num_rows_attr.name],
            "padding": padding_attr.name if padding_attr else "",
            "padding_index": attr_index[padding_attr.name] if padding_attr else -1,
            "scaling": scale_attr.name if scale_attr else "",
            "scaling_index": attr_index[scale_attr.name] if scale_attr else -1,
            "l0_attrs": l0_attrs,
            "l0_params": [*(f"const aclTensor *{n}" for n in spec.input_names), *(a.decl for a in l0_attrs)],
            "rows_min_rank": rows_t.rank[0],
            "rows_max_rank": rows_t.rank[1],
            "index_min_rank": index_t.rank[0],
            "index_max_rank": index_t.rank[1],
            "tensor_groups": tensor_groups,
            "index_dtype_list": ", ".join(f"op::DataType::{d.ge_name}" for d in idxs),
            "grad_keys": grad_keys,
            "index_keys": index_keys,
            "branch_groups": branch_groups,
            "buffer_num": bufs,
            "tile_buffers": TILE_BUFFERS,
            "small_dim_bytes": SMALL_DIM_BYTES,
            "block_bytes": BLOCK_BYTES,
            "fp32_bytes": FP32_BYTES,
            "count_bytes": COUNT_BYTES,
            "cache_line_bytes": CACHE_LINE_BYTES,
            "acc_align": ACC_ALIGN,
            "chunk_align": CHUNK_ALIGN,
            "index_ub_bytes": INDEX_UB_BYTES,
            "ub_reserved_bytes": spec.tiling.ub_reserved_bytes,
            "min_bytes_per_core": spec.tiling.min_bytes_per_core,
            "slice_overhead_bytes": SLICE_OVERHEAD_BYTES,
            "no_pad_condition": arch_condition(products, "data_copy_pad"),
            "no_sync_condition": arch_condition(products, "hw_sync_all"),
            "hw_sync_archs": arch_groups([p for p in products if p.hw_sync_all]),
            "sorted_strategy": bool(sorted_products),
            "sorted_guard": sorted_guard,
            "sorted_archs": arch_groups(sorted_products),
            "sort_pair_chunk": SORT_PAIR_CHUNK,
            "sort_d_chunk_max": SORT_D_CHUNK_MAX,
            "sort_stage_min": SORT_STAGE_MIN,
            "sort_buckets_per_core": SORT_BUCKETS_PER_CORE,
            "max_block_count": MAX_BLOCK_COUNT,
            "opdef": opdef,
            "checks": checks,
            "dfx_in": ", ".join([*spec.input_names, *spec.attr_names]),
            "status_rows": status_rows,
            "constraint_lines": constraint_lines,
            "tiling_lines": tiling_lines,
            "example_lines": example_lines,
        }
    )
    view.update(ops_nn_view(spec, products, view["opdef"]))
    view.update(ut_tiling_view(spec, ut_tiling_cases(spec, products), ut_infer_cases(spec)))
    return view


#: Cases of the op_host unit test: (rows shape [..., D], number of output rows, padding row, count scaling,
#: deterministic). A small atomic call, a deterministic call with padding and count scaling whose D is not a
#: whole accumulator block, and a large atomic call that spreads over every core.
UT_CASES: tuple[tuple[tuple[int, ...], int, int, bool, bool], ...] = (
    ((4, 5, 8), 7, -1, False, False),
    ((64, 1000), 5000, 3, True, True),
    ((4096, 1024), 100000, -1, False, False),
)


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[dict[str, Any]]:
    """The op_host unit-test cases of an index-accumulate op (see :func:`codegen.plan.common.ut_tiling_view`):
    every :data:`UT_CASES` entry on every product, with the first rows dtype and the widest index dtype
    (INT64 when listed, else the first), plus the first case with the second rows dtype the product has and
    INT32 indices when listed. The expected tiling key, block dim, workspace bytes (system workspace
    included) and tiling fields come from :func:`tiling_decision` (which falls back to the deterministic
    plan on a product without hardware SyncAll)."""
    comp = compute_of(spec)
    dev = spec.device_interface
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    wide = DType.INT64 if DType.INT64 in idxs else idxs[0]
    narrow = DType.INT32 if DType.INT32 in idxs else idxs[0]
    out_t = spec.tensor(comp.accumulate)
    out_dtype = DType.FLOAT if DType.FLOAT in out_t.dtypes else out_t.dtypes[0]
    cases: list[dict[str, Any]] = []
    for p in products:
        runs = [(c, grads[0], wide) for c in UT_CASES]
        runs += [(UT_CASES[0], g, narrow) for g in grads[1:2] if p.supports(g)]
        for (shape, rows, pad, scale, det), grad_dtype, index_dtype in runs:
            d = tiling_decision(spec, p, shape, rows, grad_dtype, index_dtype, det, pad, scale)
            n = d.num_indices
            by_source = {comp.rows: ut_tensor(shape, grad_dtype), comp.index: ut_tensor((n,), index_dtype)}
            values: dict[str, int | float | bool] = {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}
            values[comp.num_rows] = rows
            if comp.padding:
                values[comp.padding] = pad
            if comp.count_scaling:
                values[comp.count_scaling] = scale
            fields = d.tiling_fields()
            dims = "x".join(str(x) for x in shape)
            cases.append(
                {
                    "name": ut_case_name(p, grad_dtype.name, index_dtype.name, dims, rows, d.strategy),
                    "product": p.name,
                    "note": f"{comp.rows} {grad_dtype.name} [{', '.join(map(str, shape))}], {comp.index} "
                    f"{index_dtype.name} [{n}], {rows} rows, padding {pad}, scaling {scale}, "
                    f"{'deterministic' if det else 'atomic'} requested",
                    "inputs": ut_device_inputs(spec, by_source),
                    "outputs": [
                        *(ut_tensor((rows, shape[-1]), out_dtype) for _ in dev.outputs),
                        ut_tensor((SYNC_INTS,), DType.INT32),
                    ],
                    "attrs": ut_device_attrs(spec, values),
                    "deterministic": int(det),
                    "tiling_key": d.tiling_key,
                    "block_dim": d.block_dim,
                    "workspace": d.workspace_bytes,
                    "fields": [
                        {"name": name, "value": fields[name]}
                        for name in ("numRows", "rowLength", "numIndices", "paddingRow", "dChunk", "countsOffset")
                    ],
                }
            )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[UtInferCase]:
    """The infershape unit-test cases of an index-accumulate op: rows [4, 5, 8] with 20 indices into 7 rows
    (output [7, 8]), rows [3, 16] with 3 indices into 0 rows (output [0, 16]), both FLOAT (the family writes
    fp32 sums; the L2 API casts them to the output's dtype), and a negative row count (InferShape fails)."""
    comp = compute_of(spec)
    dev = spec.device_interface
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    index_dtype = DType.INT64 if DType.INT64 in idxs else idxs[0]
    out: list[UtInferCase] = []
    for name, shape, rows in (
        ("Rows", (4, 5, 8), 7),
        ("ZeroRows", (3, 16), 0),
        ("RejectsNegativeRowCount", (2, 3), -5),
    ):
        n = 1
        for dim in shape[:-1]:
            n *= dim
        by_source = {comp.rows: ut_tensor(shape, grads[0]), comp.index: ut_tensor((n,), index_dtype)}
        values: dict[str, int | float | bool] = {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}
        values[comp.num_rows] = rows
        out_shape: tuple[int, ...] = (rows, shape[-1])
        expected = [(out_shape, DType.FLOAT)] * len(dev.outputs) + [((SYNC_INTS,), DType.INT32)] if rows >= 0 else None
        out.append(
            ut_infer_case(
                name,
                ut_device_inputs(spec, by_source),
                ut_device_attrs(spec, values),
                expected,
                f"{comp.rows} {list(shape)}, {comp.index} [{n}], {rows} rows",
            )
        )
    return out
