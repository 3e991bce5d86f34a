"""The vector sort of the sorted-run strategy (:func:`vector_sort_plan`): where it may run, how many indices
one core sorts at once with Sort32 and MrgSort, and the UB and workspace that takes.

The vector sort replaces the scalar counting sort of phases 1 and 2 (about 8 scalar UB accesses per index):
each core cuts its index range into chunks of ``chunk`` indices; per chunk the key of every index is its row
cast to float (-1 for an invalid index or the padding row, and for the padding up to whole Sort32 repeats), its
position the uint32 index of the proposal; Sort32 sorts runs of 32 (descending keys, equal keys in position
order) and MrgSort merges up to 4 runs per pass (equal keys in queue order, so positions stay ascending), until
the chunk is one run. The sorted proposals go to the chunk's region of the workspace; a binary search over the
sorted keys finds each bucket's boundary (a scalar read per step, not per index) and the (chunk, bucket) sizes
go to row ``chunk`` of the count matrix. After the barrier each (chunk, bucket) segment is copied to its
bucket's region of the pair array, chunks in position order, so inside a bucket every row's entries stay in
position order: the run sums add them in the order of the counting sort, bit for bit.
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
    VECTOR_SORT_KEY_ROWS,
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

    Units: ``chunk`` indices (a power of two, 32 to :data:`VECTOR_SORT_CHUNK_MAX`); ``merge_passes`` MrgSort
    passes per chunk; ``matrix_rows`` rows of the count matrix (one per chunk of every core) of ``matrix_stride``
    int32; ``*_offset``, ``*_bytes`` bytes of the user workspace or UB; ``boundary_reads`` scalar UB reads per
    chunk that find the bucket boundaries (at most).
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


def sort_chunk_ub(chunk: int, index_bytes: int, buckets: int) -> int:
    """UB bytes of the sort phase for ``chunk`` indices of ``index_bytes`` each and ``buckets`` buckets.

    The indices as read, two proposal buffers of ``chunk`` x 8 bytes (Sort32 reads the float keys and the
    uint32 positions from the second and writes the first; the merge passes go back and forth), a compare mask
    of one bit per index (invalid entries to -1) and the bucket boundaries (``buckets + 1`` int32), each on a
    32-byte block. It overlays the run sums' buffers (the phases never overlap).
    """
    return (
        align_up(chunk * index_bytes, BLOCK_BYTES)
        + 2 * chunk * PROPOSAL_BYTES
        + align_up(ceil_div(chunk, 8), BLOCK_BYTES)
        + align_up((buckets + 1) * FP32_BYTES, BLOCK_BYTES)
    )


def merge_passes(chunk: int) -> int:
    """MrgSort passes that merge ``chunk`` proposals (a power of two >= 32) from Sort32 runs of 32, four runs at
    a time (the last pass may merge two or three)."""
    passes, run = 0, SORT32_ELEMENTS
    while run < chunk:
        run *= MRG_SORT_QUEUES
        passes += 1
    return passes


def vector_sort_plan(
    product: Product, ub_reserved: int, plan: SortPlan, n: int, num_weights: int, index_bytes: int
) -> VectorSortPlan:
    """The vector sort of the sorted-run ``plan`` (its cores and buckets) for ``n`` indices of ``index_bytes``
    bytes into ``num_weights`` rows.

    ``chunk``: the largest power of two from 32 to :data:`VECTOR_SORT_CHUNK_MAX` whose sort phase
    (:func:`sort_chunk_ub`) fits ``ub_bytes - ub_reserved`` (less the software SyncAll's ``cores x 32`` bytes).
    Core ``c`` sorts its index range (``n * c / cores`` to ``n * (c + 1) / cores``) in ``ceil(range / chunk)``
    chunks; the count matrix has ``cores x ceil(ceil(n / cores) / chunk)`` rows of ``AlignUp(buckets, 8)`` int32
    at offset 0; the sorted proposals (8 bytes per index, chunk by chunk at their positions) follow on a 64-byte
    line, then, on a line, the pair array the segments are copied to (8 bytes per index); ``workspace_bytes``
    ends it (deterministic partials go after it). ``boundary_reads`` = ``buckets x bit_length(chunk)``: one
    binary search per bucket over the chunk's sorted keys.

    Not possible (``reason``): :func:`vector_sort_refusal`, a plan that cannot run or stages records (the
    small-dim variant: a record carries the row's values, the vector sort only positions), or a UB too small
    for a chunk of 32.
    """
    refusal = vector_sort_refusal(product, num_weights)
    if refusal:
        return VectorSortPlan(reason=refusal)
    if not plan.feasible:
        return VectorSortPlan(reason=plan.reason)
    if plan.small_dim:
        return VectorSortPlan(reason="the small-dim variant stages records (row values), the vector sort positions")
    budget = product.ub_bytes - ub_reserved - (plan.cores * BLOCK_BYTES if plan.soft_sync else 0)
    chunk = VECTOR_SORT_CHUNK_MAX
    while chunk >= SORT32_ELEMENTS and sort_chunk_ub(chunk, index_bytes, plan.buckets) > budget:
        chunk //= 2
    if chunk < SORT32_ELEMENTS:
        return VectorSortPlan(reason=f"UB too small to sort {SORT32_ELEMENTS} indices")
    stride = align_up(plan.buckets, ACC_ALIGN)
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
        ub_bytes=sort_chunk_ub(chunk, index_bytes, plan.buckets),
        boundary_reads=plan.buckets * chunk.bit_length(),
    )
