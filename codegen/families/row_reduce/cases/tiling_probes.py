"""Shapes derived from the planner's tiling that the cases sit on: the largest row that fits UB whole, a
row count giving cores a second row tile, a strided shape giving cores several tasks."""

from __future__ import annotations

from codegen.families.row_reduce.plan.buffers import WHOLE_ROW_SPARE_BLOCK_BYTES, row_output_bytes
from codegen.families.row_reduce.plan.tensors import default_combo
from codegen.families.row_reduce.plan.tiling import CHUNK_ALIGN, LINE_ALIGN, tiling_decision
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product


def fit_limit(spec: OpSpec, product: Product, dtype: DType | DtypeCombo) -> int:
    """The largest R (a multiple of 16) whose last-dim rows still fit UB whole (one more element chunks them),
    for the first input's dtype (its first combination on ``product``) or a dtype combination."""
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype, product)
    t = tiling_decision(spec, product, (1, CHUNK_ALIGN), -1, combo)
    row_b = row_output_bytes(spec, combo)
    one_buffer = t.tile_bytes_per_elem - (t.buffer_num - 1) * t.queue_bytes_per_elem  # the fallback to 1 buffer
    return (
        (t.budget_bytes - WHOLE_ROW_SPARE_BLOCK_BYTES - LINE_ALIGN * row_b)
        // (one_buffer + t.save_bytes_per_elem + t.line_bytes_per_elem)
        // (LINE_ALIGN)
        * LINE_ALIGN
    )


def several_tiles_rows(spec: OpSpec, product: Product, dtype: DType | DtypeCombo, length: int = 37) -> int | None:
    """A row count at which rows of ``length`` give some cores a second, partial row tile: as many rows as
    fill one tile (the tiling's rows per tile, ``tileRows``) on every vector core, plus half the cores' count
    more (the first of them take one row more: a tile of one row). None when rows of ``length`` do not fit a
    tile whole (a chunked row has one row per tile anyway).

    Raises:
        ValueError: from :func:`codegen.families.row_reduce.plan.tiling.tiling_decision` (a dtype the op does not
            take, a UB too small for one chunk).
    """
    cores = product.vector_core_num
    probe = tiling_decision(spec, product, (1 << 40, length), -1, dtype)
    if probe.mode != 0 or probe.chunk_num != 1:
        return None
    rows = cores * probe.tile_rows + cores // 2 + 1
    t = tiling_decision(spec, product, (rows, length), -1, dtype)
    return rows if t.task_num > t.block_dim * t.tile_rows else None


def several_tasks_shape(spec: OpSpec, product: Product, dtype: DType | DtypeCombo) -> tuple[int, int, int] | None:
    """An ``(outer, 8, inner)`` shape reduced along dim 1 (mode 1) whose lines split into several blocks, the
    last one partial, with more tasks (line blocks) than cores: some cores take a full and a partial block.
    None when no outer below the product's cores gives that.

    Raises:
        ValueError: from :func:`codegen.families.row_reduce.plan.tiling.tiling_decision` (a dtype the op does not
            take, a UB too small for one chunk).
    """
    cores = product.vector_core_num
    for outer in range(max(2, cores - cores // 6), 1, -1):
        t = tiling_decision(spec, product, (outer, 8, 40), 1, dtype)
        if t.mode == 1 and t.task_num > t.block_dim and 40 % t.block_width and t.block_width < 40:
            return (outer, 8, 40)
    return None
