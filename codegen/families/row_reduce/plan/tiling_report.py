"""The tiling decision of one shape as readable lines, for ``opgen explain`` (reduced along the last
dim)."""

from __future__ import annotations

from codegen.families.row_reduce.plan.program import program
from codegen.families.row_reduce.plan.tensors import column_outputs, combos, compute_of, default_combo, row_dtypes
from codegen.families.row_reduce.plan.tiling import MODE_LAST, tiling_decision
from codegen.spec.model import DType, OpSpec, Product

#: The dim ``opgen explain --shape`` reduces along.
EXPLAIN_DIM = -1


def split_shape(shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """The tensors' dims and the dim ``opgen explain`` reduces along (the last; a 0-d shape is one element)."""
    return tuple(shape), EXPLAIN_DIM


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling decision as readable lines, for ``opgen explain``: ``shape`` is the tensors' shape, reduced
    along the last dim (the fast path; the tiling of another dim is in the op_host unit test and the check).

    Raises:
        ValueError: an empty shape, or a dtype the op does not take.
    """
    spec = spec.launched()  # the device op's inputs (no host input)
    dims, dim = split_shape(shape)
    dtype = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    combo = default_combo(spec, dtype, product)  # the first dtype combination of that dtype on the product
    t = tiling_decision(spec, product, dims, dim, combo)
    prog = program(spec)
    reads = 1 if t.chunk_num == 1 else prog.pass_num + 1
    rows = compute_of(spec).rows
    along = f"over the last dim ({rows} [{dims[-1]}] broadcast over the rows)" if rows else f"along dim {dim}"
    dtypes = dtype.name if len(combos(spec)) == len(row_dtypes(spec)) and not spec.dtype_combos else combo.text
    cols = column_outputs(spec)
    user = t.workspace_bytes - product.sys_workspace_bytes
    workspace = (
        f"workspace {t.workspace_bytes} bytes (system {product.sys_workspace_bytes}, then {user} of fp32 column "
        f"partials: {t.block_dim} core(s) x {len(cols)} column sum(s) x {user // 4 // max(t.block_dim * len(cols), 1)})"
        if cols
        else f"workspace {product.sys_workspace_bytes} bytes (system workspace only)"
    )
    lines = [
        f"tiling for {list(dims)} ({dtypes}) reduced {along}: outer {t.outer}, R {t.reduce_len}, "
        f"inner {t.inner}; tiling key {t.tiling_key}, blockDim {t.block_dim} of {product.vector_core_num}, "
        + workspace,
        f"  mode {t.mode} ({'last dim, contiguous rows' if t.mode == MODE_LAST else 'strided, inner blocks'})",
        f"  UB budget {t.budget_bytes} bytes: {t.tile_bytes_per_elem} bytes per tile element, "
        f"{t.line_bytes_per_elem} per line element; tile {t.tile_elems} elements, line {t.line_elems}; "
        f"{t.buffer_num} buffer(s) per tile queue" + (" (double buffering)" if t.buffer_num == 2 else ""),
    ]
    if t.mode == MODE_LAST:
        lines.append(
            f"  rows per tile: {t.tile_rows}; chunks per row: {t.chunk_num} of {t.chunk_len} elements "
            f"(line stride {t.line_stride})"
        )
    else:
        lines.append(
            f"  rows per tile: {t.block_width} (inner block width); chunks per row: {t.chunk_num} of {t.tile_rows} "
            f"lines"
        )
    lines += [
        f"  cores: {t.block_dim} of {product.vector_core_num} ({t.task_num} tasks, "
        f"{t.task_num // t.block_dim} each, +1 on the first {t.task_num % t.block_dim})",
        f"  passes: {prog.pass_num} reduction pass(es) + output; each input read {reads} time(s)"
        + (f" ({rows}: once per core)" if rows and t.chunk_num == 1 else ""),
    ]
    if cols:
        lines.append(
            f"  column sums ({', '.join(cols)}): each core's fp32 partials "
            + ("in UB" if t.chunk_num == 1 else "in its workspace slot, chunk by chunk")
            + ("; SyncAll, then core 0 adds them in core order" if product.hw_sync_all else "; one core (no SyncAll)")
        )
    return "\n".join(lines)
