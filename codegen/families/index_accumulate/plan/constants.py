"""Fixed sizes of the index-accumulate kernel and its tiling: the hardware facts they rest on (block, cache
line, DataCopy field limits) and the buffer, chunk and threshold sizes the kernel template, the generated
tiling function and the planner share (units in the names: bytes or elements)."""

from __future__ import annotations

from codegen.spec.catalogue import UB_BLOCK_BYTES

BLOCK_BYTES = UB_BLOCK_BYTES
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
#: Largest numWeights of the vector sort: the sort key of a row is the row cast to float (CAST_ROUND), exact
#: and strictly increasing for every row in [0, 2^24] (runtime/tests_device/test_sort.cpp checks every row), so
#: rows below 2^24 sort exactly.
VECTOR_SORT_KEY_ROWS = 1 << 24
#: Scores one Sort32 repeat sorts (asc-devkit Sort32 doc: 32 elements per repeat).
SORT32_ELEMENTS = 32
#: Fewest indices of one vector-sort chunk: one 256-byte repeat of fp32 keys (Compares and Select work on
#: whole repeats of the padded keys).
VECTOR_SORT_CHUNK_MIN = 64
#: Keys the vector sort's bucket search steps over at once (every 16th key until one is below the bucket's
#: first row, then a binary search of 4 reads inside the stride).
VECTOR_SORT_SEARCH_STRIDE = 16
#: Bytes of one sorted (score, index) proposal: a float score and a uint32 index (asc-devkit Sort32 doc).
PROPOSAL_BYTES = 8
#: Queues one MrgSort merges at most (asc-devkit MrgSort doc: validBit 3, 7 or 15).
MRG_SORT_QUEUES = 4
#: Longest queue of one MrgSort, in proposals (asc-devkit MrgSort doc: elementLengths[i] in [0, 4095]).
MRG_SORT_QUEUE_MAX = 4095
