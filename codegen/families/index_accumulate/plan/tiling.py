"""The tiling rule of an index-accumulate op: buffers per queue (:func:`buffer_num`) and the decision of the
tiling function for one call (:func:`tiling_decision`).

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
- Cores: 2-D splits (:func:`.split.split_2d`): item groups x D-slices, a D-slice a multiple of ``sliceAlign =
  max(32 / sizeof(T), 8)`` elements (whole 32-byte blocks of grad and of the fp32 accumulator; only a row's
  last slice has a partial block, so the no-DataCopyPad path copies whole blocks everywhere else).
  ``needRows = clamp(ceil(N * D * sizeof(T) / minBytesPerCore), 1, coreNum)``, ``needAcc`` the same for
  ``num_rows * accStride * 4``. Atomic: rows over ``max(needRows, needAcc)`` cores, indices over ``needRows``
  cores; deterministic: rows over ``max(min(coreNum, num_rows), needRows, needAcc)`` cores (the owners do all
  the adds), then :func:`.split.index_groups` (one index group unless that reaches fewer than ``needRows`` cores).
  ``blockDim = max(row cores, index cores)`` (deterministic index cores: ``G * row cores``); items are split
  evenly, the first ``count % groups`` groups take one more. ``dChunk`` is capped by the longest D-slice
  (rounded up to 64).
- Counts (with scaling): each row-phase core counts its own rows into slots of its own, D-slice ``k`` at
  ``k * countsSliceStride + AlignUp(rowStart, 8) + 8 * group`` (int64 slots).
"""

from __future__ import annotations

from codegen.families.index_accumulate.plan.arith import align_up, ceil_div, sat_add, sat_mul
from codegen.families.index_accumulate.plan.constants import (
    ACC_ALIGN,
    BLOCK_BYTES,
    CACHE_LINE_BYTES,
    CHUNK_ALIGN,
    COUNT_BYTES,
    FP32_BYTES,
    INDEX_UB_BYTES,
    MAX_BLOCK_COUNT,
    SLICE_OVERHEAD_BYTES,
    SMALL_DIM_BYTES,
    TILE_BUFFERS,
    VECIN_QUEUES,
)
from codegen.families.index_accumulate.plan.costs import other_bytes, sorted_bytes
from codegen.families.index_accumulate.plan.decision import TilingDecision
from codegen.families.index_accumulate.plan.roles import index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.sorted_run import sort_plan
from codegen.families.index_accumulate.plan.split import Split2D, cores_wanted, index_groups, split_2d
from codegen.families.index_accumulate.plan.strategy import sorted_wins
from codegen.spec.model import DType, OpSpec, Product


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
        ValueError: a dtype the spec does not list, a grad of rank 0, a negative ``num_weights``, a UB
            too small for one 64-element chunk, or a workspace beyond int64 bytes (the C++ tiling fails too).
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
        n = sat_mul(n, dim)
    pad = padding_idx if 0 <= padding_idx < num_weights else -1
    acc_stride = ceil_div(d, ACC_ALIGN) * ACC_ALIGN
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
    need_grad = cores_wanted(sat_mul(sat_mul(n, d), grad_bytes), cores, min_bytes)
    need_acc = cores_wanted(sat_mul(sat_mul(num_weights, acc_stride), FP32_BYTES), cores, min_bytes)
    if deterministic:  # the owners do all the adds: one row per core up to coreNum, more via D-slices
        target = max(min(cores, num_weights), need_grad, need_acc)
        row_split = split_2d(num_weights, d, align, target, cores, grad_bytes + 2 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        groups = 1
        if product.hw_sync_all:  # index groups merge their partials after a SyncAll
            row_split, groups = index_groups(row_split, num_weights, n, d, align, need_grad, cores, grad_bytes)
        index_split = Split2D(groups, 1, sat_mul(max(1, ceil_div(d, align)), align))
    else:
        target = max(need_grad, need_acc)
        row_split = split_2d(num_weights, d, align, target, cores, 3 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        index_split = split_2d(n, d, align, need_grad, cores, grad_bytes + FP32_BYTES, index_dtype.itemsize)
    longest = row_split.slice_length if deterministic else max(row_split.slice_length, index_split.slice_length)
    d_chunk = min(d_chunk_max, ceil_div(max(min(longest, d), 1), CHUNK_ALIGN) * CHUNK_ALIGN)
    # grad tiles in what the indices, accumulator and output queues leave; UB sums (deterministic) when they
    # take at most half of it and leave a tile row
    tile_budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - bufs * (INDEX_UB_BYTES + 2 * d_chunk * FP32_BYTES)
    # a tile row: a D-chunk of grad (at most D elements) padded to whole 32-byte blocks
    tile_pitch = align_up(max(1, min(d_chunk, d)), BLOCK_BYTES // grad_bytes)
    tile_row_bytes = tile_pitch * (TILE_BUFFERS * grad_bytes + cast_bytes)
    ub_acc_bytes = sat_mul(
        sat_mul(ceil_div(num_weights, row_split.groups), min(row_split.slice_length, acc_stride)), FP32_BYTES
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
    acc_bytes = sat_mul(sat_mul(num_weights, acc_stride), FP32_BYTES) if acc_in_ws else 0
    partials_offset = ceil_div(acc_bytes, CACHE_LINE_BYTES) * CACHE_LINE_BYTES
    partial_groups = index_split.groups - 1 if deterministic else 0
    partials_bytes = sat_mul(sat_mul(sat_mul(num_weights, acc_stride), FP32_BYTES), partial_groups)
    per_line = CACHE_LINE_BYTES // COUNT_BYTES
    counts_stride = ceil_div(num_weights, per_line) * per_line + per_line * row_split.groups
    count_slots = sat_mul(counts_stride, row_split.slices) if scale else 0
    counts_bytes = sat_mul(count_slots, COUNT_BYTES)
    counts_offset = ceil_div(sat_add(partials_offset, partials_bytes), CACHE_LINE_BYTES) * CACHE_LINE_BYTES
    # The C++ tiling fails (GRAPH_FAILED) where a workspace size saturates int64: so does this one.
    int64_max = (1 << 63) - 1
    if int64_max in (acc_bytes, counts_bytes, partials_bytes) or counts_offset > int64_max - counts_bytes:
        raise ValueError(
            f"the workspace of {spec.op} for numWeights {num_weights} x {d} is beyond int64 bytes: the tiling fails"
        )
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
