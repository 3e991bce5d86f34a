"""The row-reduce tiling rule: the ``[outer, R, inner]`` view of a call, the layout (whole rows, chunked
rows, strided line blocks), the UB split, buffers per queue and the cores (:func:`tiling_decision`), and the
tiling struct's fields it fills."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.row_reduce.plan.buffers import (
    WHOLE_ROW_SPARE_BLOCK_BYTES,
    buffer_bytes,
    max_buffer_num,
    mode0_spare_line_bytes,
    queue_bytes,
    row_output_bytes,
    whole_row_spare_line_bytes,
)
from codegen.families.row_reduce.plan.program import program
from codegen.families.row_reduce.plan.tensors import (
    column_outputs,
    combos,
    compute_of,
    default_combo,
    float_attrs_of,
    optional_inputs,
)
from codegen.plan.tiling_decision import TilingDecisionBase
from codegen.plan.tiling_fields import TilingField
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product

#: Elements a line slot is aligned to (32 bytes of a 16-bit dtype; 64 bytes of fp32).
LINE_ALIGN = 16
#: fp32 elements per 256-byte repeat: chunks of a row are a multiple of it.
CHUNK_ALIGN = 64
#: fp32 elements of the reduce work buffer (``sharedTmpBuffer`` of ReduceMax/ReduceSum, count form).
WORK_ELEMS = 1024
#: Most bytes a DataCopyPad block may move (``blockLen`` is a uint32 of bytes; kept far below).
MAX_LINE_BYTES = 1 << 30
MODE_LAST = 0
MODE_STRIDED = 1

TILING_FIELDS: tuple[TilingField[TilingDecision], ...] = (
    TilingField("mode", "0: reduced dim is the last (rows contiguous); 1: strided (inner > 1)", lambda d: d.mode),
    TilingField("outerNum", "product of the dims before the reduced one", lambda d: d.outer),
    TilingField("reduceLen", "R: length of the reduced dim", lambda d: d.reduce_len),
    TilingField("innerNum", "product of the dims after the reduced one", lambda d: d.inner),
    TilingField(
        "tileRows", "mode 0: whole rows per tile (1 when chunked); mode 1: lines per chunk", lambda d: d.tile_rows
    ),
    TilingField("chunkLen", "mode 0: elements of a row per chunk (R when it fits)", lambda d: d.chunk_len),
    TilingField("chunkNum", "chunks per row (1: the row fits UB and is read once)", lambda d: d.chunk_num),
    TilingField("lineStride", "fp32 elements between line slots in UB", lambda d: d.line_stride),
    TilingField(
        "blockWidth", "mode 1: inner positions per task (a multiple of 16); mode 0: 1", lambda d: d.block_width
    ),
    TilingField("taskNum", "tasks: rows (mode 0) or outer x inner blocks (mode 1)", lambda d: d.task_num),
    TilingField("tasksPerCore", "tasks of a core", lambda d: d.task_num // d.block_dim, cpp="taskNum / usedCores"),
    TilingField(
        "tasksFormerNum", "cores that take one task more", lambda d: d.task_num % d.block_dim, cpp="taskNum % usedCores"
    ),
    TilingField("tileElems", "elements of a tile buffer (inputs and outputs)", lambda d: d.tile_elems),
    TilingField("lineElems", "fp32 elements of a line buffer (temporaries, reductions)", lambda d: d.line_elems),
    TilingField("bufferNum", "buffers of each tile queue (2: double buffering)", lambda d: d.buffer_num),
)


def tiling_fields(spec: OpSpec) -> tuple[TilingField[TilingDecision], ...]:
    """:data:`TILING_FIELDS`, one ``float`` field ``attr<k>`` per float attr of ``spec`` (no ``value``: the
    tiling function copies it from the call's attr) and, when an output is nullable, ``writeMask``: bit ``o``
    set when output ``o`` (spec order) is written, clear for one launched with no element (the caller passed
    it as null); the kernel skips every GM write of a clear one; and, when an input is optional,
    ``absentMask``: bit ``i`` set when input ``i`` (spec order) was passed as null (the kernel reads a row of
    its default instead, and none of its GM)."""
    extra: tuple[TilingField[TilingDecision], ...] = tuple(
        TilingField(f"attr{k}", f"float attr {name} (fp32)", c_type="float", cpp=f"attr{k}")
        for k, name in enumerate(float_attrs_of(spec))
    )
    if any(t.nullable for t in spec.outputs):
        every = (1 << len(spec.outputs)) - 1  # the mirror's call passes every output
        extra += (TilingField("writeMask", "bit o: output o is written (clear: passed as null)", lambda d: every),)
    if optional_inputs(spec):  # the mirror's call passes every input
        extra += (TilingField("absentMask", "bit i: input i was passed as null (read as its default)", lambda d: 0),)
    return TILING_FIELDS + extra


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


@dataclass(frozen=True)
class TilingDecision(TilingDecisionBase):
    """The tiling of one call on one product (units in the names; mirrors the generated tiling function;
    :meth:`tiling_fields` leaves out the float attrs)."""

    FIELDS = TILING_FIELDS
    dtype: str
    mode: int
    outer: int
    reduce_len: int
    inner: int
    tile_rows: int
    chunk_len: int
    chunk_num: int
    line_stride: int
    block_width: int
    task_num: int
    tile_elems: int
    line_elems: int
    tile_bytes_per_elem: int
    line_bytes_per_elem: int
    budget_bytes: int
    buffer_num: int = 1
    queue_bytes_per_elem: int = 0
    save_bytes_per_elem: int = 0


def view_dims(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """``(outer, R, inner)`` of ``shape`` around ``dim`` (negative counts from the end; a 0-d tensor is
    ``[1]``).

    Raises:
        ValueError: ``dim`` outside ``[-rank, rank)`` (``[-1, 0]`` for a 0-d tensor).
    """
    dims = shape if shape else (1,)
    rank = len(dims)
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for rank {len(shape)}")
    d = dim + rank if dim < 0 else dim
    outer = 1
    for x in dims[:d]:
        outer *= x
    inner = 1
    for x in dims[d + 1 :]:
        inner *= x
    return outer, dims[d], inner


def trailing_view_dims(shape: tuple[int, ...], row_ndim: int) -> tuple[int, int, int]:
    """``(outer, R, 1)`` of ``shape`` reduced over its last ``row_ndim`` dims (``R`` their product).

    Raises:
        ValueError: ``row_ndim`` outside ``[1, len(shape)]``.
    """
    if not 1 <= row_ndim <= len(shape):
        raise ValueError(f"{row_ndim} trailing dims do not fit a tensor of rank {len(shape)}")
    outer = 1
    for x in shape[: len(shape) - row_ndim]:
        outer *= x
    r = 1
    for x in shape[len(shape) - row_ndim :]:
        r *= x
    return outer, r, 1


def tiling_decision(
    spec: OpSpec,
    product: Product,
    shape: tuple[int, ...],
    dim: int,
    dtype: DType | DtypeCombo,
    row_ndim: int = 1,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for inputs of ``shape`` reduced along ``dim`` (``dim`` form) or
    over the last ``row_ndim`` dims (``rows`` form; ``dim`` is then not read).

    UB (``budget = ubBytes - ub_reserved_bytes - 4 * WORK_ELEMS``): tile buffers cost ``tileBytes`` per
    element (each input's ``T`` queue and a 16-bit input's fp32 copy, each output's ``T`` queue); line
    buffers ``lineBytes`` per element (temporaries, accumulators, partials, saved maxima, the result line,
    the reduction argument, the rescale factor and one line per per-row value; a tile of whole rows, which
    keeps accumulators and per-row values in its row slots and combines no chunks, less
    :func:`buffers.whole_row_spare_line_bytes`).

    Buffers per tile queue (``bufferNum``): the spec's ``tiling.buffer_num`` (2: double buffering) wherever
    UB and the product's queue buffers per position allow (:func:`buffers.max_buffer_num`), else fewer; each
    buffer past the first adds ``queueBytes`` (:func:`buffers.queue_bytes`) to ``tileBytes``.
    Every rule below is tried with ``bufferNum`` from the spec's down to 1, the first that fits taken.

    Mode 0 (``inner == 1``): ``Rs = AlignUp(R, 16)``; with ``rowBytes`` the per-row bytes of the row slots
    and per-row outputs (:func:`buffers.row_output_bytes`), if ``Rs * (tileBytes + lineBytes) + 16 * rowBytes <=
    budget`` whole rows fit: ``tileRows = min((budget - Rs * lineBytes - 15 * rowBytes) / (Rs * tileBytes +
    rowBytes), ceil(rows / cores))``, ``chunkLen = R``, ``chunkNum = 1``; else ``chunkLen = (budget - 16 *
    rowBytes) / (tileBytes + lineBytes)`` rounded down to 64 (below R when subformulas are kept: two chunks),
    ``chunkNum = ceil(R / chunkLen)``,
    ``tileRows = 1``. With column-sum outputs (``colsum``) each core's fp32 partial of each of them takes
    ``AlignUp(R, 16) * 4`` bytes of the user workspace after the system workspace, and a product without
    hardware SyncAll runs one core (its partial is the sum; no barrier). ``dtype`` is the tensors' dtype
    combination (:func:`tensors.combos`; the tiling key is its position), or the first input's dtype for its
    :func:`tensors.default_combo`.
    Mode 1: ``blockWidth`` = ``AlignUp(inner, 16)``, capped so that the tasks reach the cores
    (``AlignUp(ceil(inner / ceil(cores / outer)), 16)``) and so that ``R`` lines fit (largest multiple of 16
    with ``W * (R * tileBytes + lineBytes) <= budget``); when even 16 does not fit, ``blockWidth = 16`` and
    ``tileRows = (budget - 16 * lineBytes) / (16 * tileBytes)`` lines per chunk.

    Raises:
        ValueError: a dtype the op does not take, ``dim`` out of range, or a UB too small for one chunk.
    """
    spec = spec.launched()  # the device op's inputs: a host input takes no UB
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype)
    if combo not in combos(spec):
        raise ValueError(f"{spec.op} does not take the dtype combination {combo.text}")
    if compute_of(spec).rows:
        outer, r, inner = trailing_view_dims(shape, row_ndim)
    else:
        outer, r, inner = view_dims(shape, dim)
    tile_1, line_b = buffer_bytes(spec, combo)
    whole_line_b = line_b - whole_row_spare_line_bytes(program(spec))  # a tile of whole rows: no chunk lines
    chunk_line_b = line_b - mode0_spare_line_bytes(program(spec))  # mode 0 chunks: accumulators in row slots
    queue_b = queue_bytes(spec, combo)
    save_b = 4 * len(program(spec).saves)  # whole rows only: the kept subformulas, fp32 per element
    # buffers per tile queue, most first: the spec's, or fewer where the product's queue buffers per position
    # cannot hold that many for every queue (the C++ tiling's maxBufferNum)
    bufs = list(range(max_buffer_num(spec, product.queue_buffer_cap), 0, -1))
    if not bufs:
        raise ValueError(
            f"{product.name} holds {product.queue_buffer_cap} queue buffers per position, fewer than the "
            f"{spec.op} kernel's queues of one position"
        )
    row_b = row_output_bytes(spec, combo)
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - 4 * WORK_ELEMS
    if budget <= 0:
        raise ValueError(f"UB of {product.name} ({product.ub_bytes} bytes) cannot hold the work buffers of {spec.op}")
    cores = product.vector_core_num

    def tile_bytes(n: int) -> int:
        return tile_1 + (n - 1) * queue_b

    if inner == 1:
        mode, width = MODE_LAST, 1
        rows = outer
        rs = _align(max(r, 1), LINE_ALIGN)
        whole_budget = budget - WHOLE_ROW_SPARE_BLOCK_BYTES  # the unused buffers' blocks
        fits = [n for n in bufs if rs * (tile_bytes(n) + save_b + whole_line_b) + LINE_ALIGN * row_b <= whole_budget]
        if fits:
            buf_n = fits[0]
            tile_b = tile_bytes(buf_n)
            per_core = _ceil_div(max(rows, 1), cores)
            fit_rows = (whole_budget - rs * whole_line_b - (LINE_ALIGN - 1) * row_b) // (rs * (tile_b + save_b) + row_b)
            line_b = whole_line_b
            tile_rows = max(1, min(fit_rows, per_core))
            chunk_len, chunk_num, stride = r, 1, rs
            tile_elems, line_elems = tile_rows * rs, rs
        else:
            line_b = chunk_line_b
            lens = [
                (n, (whole_budget - LINE_ALIGN * row_b) // (tile_bytes(n) + line_b) // CHUNK_ALIGN * CHUNK_ALIGN)
                for n in bufs
            ]
            buf_n, chunk_len = next(((n, c) for n, c in lens if c > 0), lens[-1])
            if chunk_len >= r and save_b:
                # at least two chunks: the kernel takes one chunk per row for a whole row, which keeps its
                # subformulas (save bytes) this split has no room for
                chunk_len = (r - 1) // CHUNK_ALIGN * CHUNK_ALIGN
            if chunk_len <= 0:
                raise ValueError(f"UB of {product.name} cannot hold one chunk of {spec.op}")
            tile_b = tile_bytes(buf_n)
            chunk_num, tile_rows, stride = _ceil_div(r, chunk_len), 1, chunk_len
            tile_elems = line_elems = chunk_len
        tasks = rows
    else:
        mode = MODE_STRIDED
        width = _align(inner, LINE_ALIGN)
        width = min(width, _align(_ceil_div(inner, _ceil_div(cores, max(outer, 1))), LINE_ALIGN))
        fit_n = [(n, budget // (max(r, 1) * tile_bytes(n) + line_b) // LINE_ALIGN * LINE_ALIGN) for n in bufs]
        buf_n, fit = next(((n, f) for n, f in fit_n if f >= LINE_ALIGN), fit_n[-1])
        if fit >= LINE_ALIGN:
            width = min(width, fit)
            tile_rows, chunk_num = max(r, 1), 1
        else:
            width = LINE_ALIGN
            lines_n = [(n, (budget - LINE_ALIGN * line_b) // (LINE_ALIGN * tile_bytes(n))) for n in bufs]
            buf_n, tile_rows = next(((n, t) for n, t in lines_n if t > 0), lines_n[-1])
            if tile_rows <= 0:
                raise ValueError(f"UB of {product.name} cannot hold one line of {spec.op}")
            chunk_num = _ceil_div(r, tile_rows)
        tile_b = tile_bytes(buf_n)
        chunk_len, stride = tile_rows, width
        tile_elems, line_elems = tile_rows * width, width
        tasks = outer * _ceil_div(inner, width)
    used = max(1, min(cores, tasks))
    cols = len(column_outputs(spec))
    if cols and not product.hw_sync_all:
        used = 1  # the column sums combine the cores' partials after SyncAll, which this product lacks
    return TilingDecision(
        product=product.name,
        dtype=combo.dtype(spec.inputs[0].name).name,
        tiling_key=combos(spec).index(combo),
        mode=mode,
        outer=outer,
        reduce_len=r,
        inner=inner,
        tile_rows=tile_rows,
        chunk_len=chunk_len,
        chunk_num=chunk_num,
        line_stride=stride,
        block_width=width,
        task_num=tasks,
        tile_elems=tile_elems,
        line_elems=line_elems,
        tile_bytes_per_elem=tile_b,
        line_bytes_per_elem=line_b,
        budget_bytes=budget,
        buffer_num=buf_n,
        queue_bytes_per_elem=queue_b,
        save_bytes_per_elem=save_b if mode == MODE_LAST and chunk_num == 1 else 0,
        block_dim=used,
        workspace_bytes=product.sys_workspace_bytes + used * cols * column_stride(r) * 4,
    )


def column_stride(reduce_len: int) -> int:
    """fp32 elements between two column-sum partials in the user workspace (a core's partial of each
    ``colsum`` output, core by core): ``R`` rounded up to 16 (64 bytes), so no two partials share a 32-byte
    block."""
    return _align(max(reduce_len, 1), LINE_ALIGN)
