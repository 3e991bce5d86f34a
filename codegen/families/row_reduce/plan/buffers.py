"""The UB bytes of a row-reduce op's buffers: per tile element (queues and fp32 copies), per line
element (fp32 temporaries and reductions), per tile row (row slots and per-row outputs)."""

from __future__ import annotations

from codegen.families.row_reduce.plan.program import Program, program
from codegen.families.row_reduce.plan.tensors import (
    column_outputs,
    default_combo,
    per_row_inputs,
    row_inputs,
    row_outputs,
)
from codegen.spec.model import DType, DtypeCombo, OpSpec


def buffer_bytes(spec: OpSpec, dtype: DType | DtypeCombo) -> tuple[int, int]:
    """``(tile bytes per element, line bytes per element)`` of the UB split (see :func:`tiling.tiling_decision`) for
    the tensors' dtypes ``dtype`` (a combination, or the first input's dtype: its :func:`tensors.default_combo`).
    Outputs with one value per row (:func:`tensors.row_outputs`) cost :func:`row_output_bytes` instead; a
    column-sum output (:func:`tensors.column_outputs`) costs line bytes: its fp32 partial and its ``T`` queue
    buffer (one line of the combined columns)."""
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype)
    prog = program(spec)
    rows_in = set(row_inputs(spec))
    per_row_in = set(per_row_inputs(spec))  # row bytes (row_output_bytes)
    cols = column_outputs(spec)
    row_outs = set(row_outputs(spec)) | set(cols)
    # an input's queue, and the fp32 copy of a 16-bit one (an fp32 input is computed on in its queue buffer)
    tile = sum(_in_bytes(combo.dtype(t.name)) for t in spec.inputs if t.name not in rows_in | per_row_in)
    tile += sum(combo.dtype(t.name).itemsize for t in spec.outputs if t.name not in row_outs)
    line = line_bytes(prog) + sum(combo.dtype(n).itemsize + 4 for n in (*rows_in, *cols))
    return tile, line


def queue_bytes(spec: OpSpec, combo: DtypeCombo) -> int:
    """UB bytes per tile element of the tile queues (each input's and output's ``T`` buffer, without the
    inputs broadcast over the rows, the outputs with one value per row and the column sums): what a second
    buffer per queue (double buffering) adds to :func:`buffer_bytes`' tile bytes."""
    rows_in = set(row_inputs(spec)) | set(per_row_inputs(spec))
    row_outs = set(row_outputs(spec)) | set(column_outputs(spec))
    tensors = [t for t in spec.inputs if t.name not in rows_in] + [t for t in spec.outputs if t.name not in row_outs]
    return sum(combo.dtype(t.name).itemsize for t in tensors)


def queue_counts(spec: OpSpec) -> tuple[int, int, int, int]:
    """The kernel's queues per position: ``(tile inputs, row inputs, tile outputs, per-row and column-sum
    outputs)``. A tile queue holds ``bufferNum`` buffers, a row input's, a per-row output's or a column sum's
    queue one, and the per-row inputs share one queue of one buffer (templates/op_kernel/row_reduce_kernel.cpp.j2
    ``Init``)."""
    per_row = set(per_row_inputs(spec))  # one queue of one buffer, shared by every per-row input
    rows_in = set(row_inputs(spec))
    row_outs = set(row_outputs(spec)) | set(column_outputs(spec))
    tile_in = sum(1 for t in spec.inputs if t.name not in rows_in | per_row)
    tile_out = sum(1 for t in spec.outputs if t.name not in row_outs)
    return tile_in, len(rows_in) + (1 if per_row else 0), tile_out, len(spec.outputs) - tile_out


def max_buffer_num(spec: OpSpec, cap: int) -> int:
    """The most buffers per tile queue (at most the spec's ``tiling.buffer_num``) that keep the kernel's queues
    of each position (VECIN: the inputs', VECOUT: the outputs') within ``cap`` buffers, a product's
    ``queue_buffer_cap`` (AscendC's TPipe holds a fixed number of queue buffers per position); 0 when not even
    one buffer per queue fits."""
    tile_in, row_in, tile_out, row_out = queue_counts(spec)
    best = spec.tiling.buffer_num
    for tiles, rows in ((tile_in, row_in), (tile_out, row_out)):
        if tiles:
            best = min(best, (cap - rows) // tiles)
        elif rows > cap:
            best = 0
    return max(best, 0)


def _in_bytes(dtype: DType) -> int:
    """UB bytes per tile element of an input of ``dtype``: its queue, and an fp32 copy unless it is FLOAT."""
    return dtype.itemsize + (0 if dtype is DType.FLOAT else 4)


def line_bytes(prog: Program) -> int:
    """UB bytes per line element of the fp32 line buffers: the temporaries, each reduction's accumulator,
    partial and saved maximum, the result, argument and rescale lines, and one line per per-row value."""
    return 4 * (prog.temps + 3 * len(prog.reductions) + 3 + len(prog.row_values))


#: UB bytes of the line buffers mode 0 leaves unused (accumulators and per-row value lines; with whole rows also
#: saved maxima and the rescale line): the kernel gives each of the four a 32-byte block.
WHOLE_ROW_SPARE_BLOCK_BYTES = 4 * 32


def mode0_spare_line_bytes(prog: Program) -> int:
    """UB bytes per line element of the line buffers (:func:`line_bytes`) mode 0 (the reduced dims last) leaves
    unused: each reduction's accumulator and the per-row values' lines (a tile's row slots hold them). The
    kernel gives those buffers one 32-byte block in mode 0, so its tiling counts the line bytes less these."""
    return 4 * (len(prog.reductions) + len(prog.row_values))


def whole_row_spare_line_bytes(prog: Program) -> int:
    """UB bytes per line element of the line buffers a tile of whole rows leaves unused: those of
    :func:`mode0_spare_line_bytes`, and each reduction's saved maximum and the rescale line (no chunk is
    combined). The kernel gives those buffers one 32-byte block."""
    return mode0_spare_line_bytes(prog) + 4 * (len(prog.reductions) + 1)


def row_output_bytes(spec: OpSpec, combo: DtypeCombo) -> int:
    """UB bytes per row of a tile taken by the row slots (32 bytes per row for each reduction and per-row
    value; a per-row input's among the reductions) and by the outputs with one value per row (their queue and
    an fp32 staging slot each) and the per-row inputs (an fp32 copy each, and one fp32-sized queue they share);
    the kernel
    allocates ``AlignUp(tileRows, 16)`` rows of them."""
    prog = program(spec)
    slots = 32 * (len(prog.reductions) + len(prog.row_values))
    # a per-row output's queue and staging slot, a per-row input's fp32 copy and their shared fp32-sized queue
    per_row = per_row_inputs(spec)
    return (
        slots + sum(combo.dtype(n).itemsize + 4 for n in row_outputs(spec)) + 4 * len(per_row) + (4 if per_row else 0)
    )
