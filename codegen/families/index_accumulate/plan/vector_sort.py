"""The vector sort of the sorted-run strategy (:func:`vector_sort_plan`): where it may run, how many indices
one core sorts at once with Sort32 and MrgSort, and the workspace that takes.

The vector sort replaces the scalar counting sort of phases 1 and 2 (about 6 scalar UB accesses per index):
each core cuts its index range into chunks of ``chunk`` indices; per chunk the key of every index is its row
cast to float (integer indices: one vector Cast, the padding row set to -1 by Compares and Select; other
index dtypes: a scalar loop, -1 for an invalid index or the padding row), -1 also for the padding up to whole
Sort32 repeats, its position the uint32 index of the proposal; Sort32 sorts runs of 32 (descending keys, equal
keys in position order) and MrgSort merges up to 4 runs per pass (equal keys in queue order, so positions stay
ascending), until the chunk is one run. A binary search over the sorted keys finds each bucket's boundary (a
scalar read per step, not per index; keys from ``numWeights`` up and below 0 are outside every bucket); the
(chunk, bucket) sizes go to row ``chunk`` of the count matrix, the count of the leading keys of
``numWeights`` and up to its slot ``buckets`` and the end of the valid keys to slot ``buckets + 1``; where a
core has several chunks the sorted proposals go to the chunk's region of the workspace (a core's only chunk
stays in UB). After the barrier each (chunk, bucket) segment is copied to its bucket's region of the pair
array (the chunk back in UB with one copy where it left; each segment moved by a MrgSort of one queue to its
own 32-byte block, then out with DataCopyPad), chunks in position order, so inside a bucket
every row's entries stay in position order: a bucket that one core sums adds each row in the order of the
counting sort, bit for bit. Inside a bucket the rows come in descending order (the counting sort keeps
position order across rows): where a bucket is split between cores, the split point falls between other
entries, so those buckets' rows may be split differently (each part still in position order).

The pair array holds the proposals: the float key (the row, exact below 2^24) in the low word, the uint32
position in the high word; the run sums read the row back with a scalar float-to-integer conversion.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.arith import align_up, ceil_div
from codegen.families.index_accumulate.plan.constants import (
    ACC_ALIGN,
    BLOCK_BYTES,
    CACHE_LINE_BYTES,
    FP32_BYTES,
    MRG_SORT_QUEUE_MAX,
    MRG_SORT_QUEUES,
    PROPOSAL_BYTES,
    SORT32_ELEMENTS,
    VECTOR_SORT_CHUNK_MIN,
    VECTOR_SORT_KEY_ROWS,
    VECTOR_SORT_SEARCH_STRIDE,
)
from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.spec.model import Product


def _largest_power_of_two_at_most(value: int) -> int:
    return 1 << (value.bit_length() - 1)


#: Most indices one chunk sorts: MrgSort's merge tree from Sort32 runs of 32, four runs per pass, with every
#: queue at most :data:`MRG_SORT_QUEUE_MAX` proposals (runs of 2048, then one last merge of four of them).
VECTOR_SORT_CHUNK_MAX = MRG_SORT_QUEUES * _largest_power_of_two_at_most(MRG_SORT_QUEUE_MAX)


@dataclass(frozen=True)
class VectorSortPlan:
    """Sizes of the vector sort for one call (``chunk`` 0 with ``reason`` set when it cannot run).

    Units: ``chunk`` indices (a power of two, :data:`VECTOR_SORT_CHUNK_MIN` to :data:`VECTOR_SORT_CHUNK_MAX`);
    ``merge_passes`` MrgSort passes per chunk; ``matrix_rows`` rows of the count matrix (one per chunk of every
    core) of ``matrix_stride`` int32 (the buckets' sizes, then the count of keys above every bucket);
    ``*_offset``, ``*_bytes`` bytes of the user workspace or UB; ``boundary_reads`` scalar UB reads per chunk
    that find the bucket boundaries (at most).
    """

    chunk: int = 0
    merge_passes: int = 0
    matrix_rows: int = 0
    matrix_stride: int = 0
    sorted_offset: int = 0
    pairs_offset: int = 0
    workspace_bytes: int = 0
    ub_bytes: int = 0
    boundary_reads: int = 0
    reason: str = ""

    @property
    def feasible(self) -> bool:
        """Whether the vector sort can run (``chunk > 0``)."""
        return self.chunk > 0


def vector_sort_refusal(product: Product, num_weights: int) -> str:
    """Why the vector sort cannot run for ``num_weights`` output rows on ``product`` ("" when it can).

    It needs the sort instructions (the catalogue's ``vector_sort``), DataCopyPad (a (chunk, bucket) segment of
    any length is one copy) and every row's float key exact (``num_weights`` at most
    :data:`VECTOR_SORT_KEY_ROWS`); elsewhere the scalar counting sort runs.
    """
    if not product.vector_sort:
        return f"{product.name} has no vector sort instructions (vector_sort: false)"
    if not product.data_copy_pad:
        return f"{product.name} has no DataCopyPad (a (chunk, bucket) segment of any length is one copy)"
    if num_weights > VECTOR_SORT_KEY_ROWS:
        return f"numWeights {num_weights} is above 2^24: a row's float sort key is exact only up to 2^24"
    return ""


def sort_chunk_ub(chunk: int) -> int:
    """UB bytes of the sort phase for ``chunk`` indices, in the work buffer: two proposal buffers A and B of
    ``chunk`` x 8 bytes (A first holds the chunk's indices, at most 8 bytes each, B the float keys and the
    uint32 positions; Sort32 writes A, the merge passes go back and forth) and a compare mask of one bit per
    index (the padding row's keys to -1) on a 32-byte block."""
    return 2 * chunk * PROPOSAL_BYTES + align_up(ceil_div(chunk, 8), BLOCK_BYTES)


def segments_ub(chunk: int, buckets: int) -> int:
    """UB bytes of phase 2 for ``chunk`` indices and ``buckets`` buckets: the sorted chunk in the first proposal
    buffer, then its (chunk, bucket) segments each on its own 32-byte block (MrgSort copies them there from
    any 8-byte offset; DataCopyPad takes them out)."""
    return 2 * chunk * PROPOSAL_BYTES + buckets * BLOCK_BYTES


def boundary_reads(chunk: int, buckets: int) -> int:
    """Scalar UB reads that find the bucket boundaries of one sorted chunk (at most): every
    :data:`VECTOR_SORT_SEARCH_STRIDE`-th key once over the chunk, then per boundary (``buckets + 1``) the key
    that stops the stride walk and a binary search inside the stride."""
    per_search = 1 + (VECTOR_SORT_SEARCH_STRIDE - 1).bit_length()
    return chunk // VECTOR_SORT_SEARCH_STRIDE + (buckets + 1) * per_search


def merge_passes(chunk: int) -> int:
    """MrgSort passes that merge ``chunk`` proposals (a power of two >= 32) from Sort32 runs of 32, four runs at
    a time (the last pass may merge two or three)."""
    passes, run = 0, SORT32_ELEMENTS
    while run < chunk:
        run *= MRG_SORT_QUEUES
        passes += 1
    return passes


def vector_sort_plan(product: Product, plan: SortPlan, n: int, num_weights: int) -> VectorSortPlan:
    """The vector sort of the sorted-run ``plan`` (its cores, buckets and staging slots) for ``n`` indices into
    ``num_weights`` rows.

    The sort runs in the work buffer the kernel allocates for the staging slots (``buckets x stage x 8`` bytes,
    which the vector sort does not use); a chunk's indices (at most 8 bytes each) are read into its first proposal
    buffer. ``chunk``: the largest power of two from :data:`VECTOR_SORT_CHUNK_MIN` to :data:`VECTOR_SORT_CHUNK_MAX`
    whose sort (:func:`sort_chunk_ub`) and whose segment copies (:func:`segments_ub`) fit that buffer. Core ``c``
    sorts its index range (``n * c / cores`` to ``n * (c + 1) / cores``) in ``ceil(range / chunk)`` chunks; the
    count matrix has ``cores x ceil(ceil(n / cores) / chunk)`` rows of ``AlignUp(buckets + 2, 8)`` int32 at offset 0
    (the buckets' sizes, the count of keys above every bucket, the end of the valid keys); the sorted proposals (8
    bytes per index, chunk by chunk at their positions, written only where a core has several chunks: a core's only
    chunk stays in UB over the barrier) follow on a 64-byte line, then, on a line, the pair array the segments are
    copied to (8 bytes per index); ``workspace_bytes`` ends it (deterministic partials go after it).
    ``boundary_reads``: :func:`boundary_reads`.

    Not possible (``reason``): :func:`vector_sort_refusal`, a plan that cannot run or stages records (the
    small-dim variant: a record carries the row's values, the vector sort only positions), or a work buffer too
    small for a chunk of :data:`VECTOR_SORT_CHUNK_MIN`.
    """
    refusal = vector_sort_refusal(product, num_weights)
    if refusal:
        return VectorSortPlan(reason=refusal)
    if not plan.feasible:
        return VectorSortPlan(reason=plan.reason)
    if plan.small_dim:
        return VectorSortPlan(reason="the small-dim variant stages records (row values), the vector sort positions")
    budget = plan.buckets * plan.stage * PROPOSAL_BYTES
    chunk = VECTOR_SORT_CHUNK_MAX
    while chunk >= VECTOR_SORT_CHUNK_MIN and (
        sort_chunk_ub(chunk) > budget or segments_ub(chunk, plan.buckets) > budget
    ):
        chunk //= 2
    if chunk < VECTOR_SORT_CHUNK_MIN:
        return VectorSortPlan(reason=f"work buffer of {budget} bytes too small to sort {VECTOR_SORT_CHUNK_MIN} indices")
    stride = align_up(plan.buckets + 2, ACC_ALIGN)
    rows = plan.cores * ceil_div(ceil_div(n, plan.cores), chunk)
    sorted_offset = align_up(rows * stride * FP32_BYTES, CACHE_LINE_BYTES)
    pairs_offset = align_up(sorted_offset + n * PROPOSAL_BYTES, CACHE_LINE_BYTES)
    return VectorSortPlan(
        chunk=chunk,
        merge_passes=merge_passes(chunk),
        matrix_rows=rows,
        matrix_stride=stride,
        sorted_offset=sorted_offset,
        pairs_offset=pairs_offset,
        workspace_bytes=pairs_offset + n * PROPOSAL_BYTES,
        ub_bytes=sort_chunk_ub(chunk),
        boundary_reads=boundary_reads(chunk, plan.buckets),
    )
