"""The tiling decision of both strategies as readable lines, for ``opgen explain``."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.arith import align_up
from codegen.families.index_accumulate.plan.constants import ACC_ALIGN, BLOCK_BYTES, SMALL_DIM_BYTES, TILE_BUFFERS
from codegen.families.index_accumulate.plan.decision import TilingDecision
from codegen.families.index_accumulate.plan.roles import index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.strategy import STRATEGIES, sort_fills_staging
from codegen.families.index_accumulate.plan.sync_counters import SYNC_OUTPUT
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.spec.model import DType, OpSpec, Product
from codegen.spec.naming import a_or_an


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
    stride = align_up(sp.d_chunk, ACC_ALIGN)
    # the kernel splits the grad tile UB into TILE_BUFFERS tiles (one tile when it holds a single row)
    tiles = TILE_BUFFERS if sp.tile_rows >= TILE_BUFFERS else 1
    tile_rows = sp.tile_rows // tiles
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
        (
            f"    sort: {sp.buckets} row buckets of {sp.bucket_rows} rows; phase 1 sorts chunks of {sp.sort_chunk} "
            "indices by row with Sort32 and MrgSort (float row keys, positions as the indices), finds the bucket "
            "boundaries by binary search and writes the sorted chunk; phase 2 copies each (chunk, bucket) segment "
            "into the bucket's region"
            if sp.sort_chunk
            else f"    sort: {sp.buckets} row buckets of {sp.bucket_rows} rows; phase 1 counts per bucket, phase 2 "
            f"stages {entries} in slots of {sp.stage} {'records' if sp.small_dim else 'pairs'} and flushes them "
            "into the bucket's region"
        ),
        f"    phases 1-2: {sp.sort_reason}",
        f"    workspace: {t.workspace_bytes} bytes with the system workspace (count matrix "
        f"[{sp.matrix_rows if sp.sort_chunk else sp.cores}, {sp.matrix_stride}] int32 at {sp.matrix_offset}, "
        + (f"sorted chunks at {sp.sorted_offset}, " if sp.sort_chunk else "")
        + f"{'records' if sp.small_dim else 'pairs'} at {sp.pairs_offset})",
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
            else f"pairs read {sp.pair_chunk} at a time; grad rows gathered into {tiles} tile(s) of {tile_rows} "
            f"rows (a run of consecutive positions per copy), the next tile's copies overlapping this tile's adds; "
            f"UB used {sp.ub_bytes} bytes"
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
