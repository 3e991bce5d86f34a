"""The tiling rule of a row gather (the Python mirror of ``op_host/<kernel>_tiling.cpp``): the ``[P, A, Q]``
view around ``dim``, the UB tile, the row chunks and the core split, for one call on one product.

Output rows: ``N = P * K`` rows of ``Q`` elements (row ``r = p * K + k`` is source row ``p * A + index[k]``).
UB holds :data:`TILE_BUFFERS` tiles of ``tileBytes = (ub - reserved) / TILE_BUFFERS`` bytes, rounded down to
a 32-byte block; a row takes a slot of its bytes rounded up to a block (DataCopyPad's UB rows start on
blocks). When a slot fits a tile, a tile holds ``tileRows`` consecutive output rows (at most
:data:`MAX_BLOCK_COUNT`, DataCopyPad's blockCount) written with one DMA; otherwise a row is cut into
``chunkNum`` chunks of ``chunkLen`` elements (whole blocks), one chunk a tile. Work units (rows, or row
chunks) are split evenly over ``usedCores = min(coreNum, units, ceil(bytes / min_bytes_per_core))`` cores,
the first ``unitsFormerNum`` taking one more.

Without DataCopyPad (``copyMode`` 1) a unit is a 64-byte line of the output (:data:`LINE_BYTES`), and a core
fills windows of ``chunkLen`` elements (a tile) of its output range: a row segment whose place in the window
is a whole 32-byte block is copied there (whole blocks by DataCopy, the rest element by element), any other
through the second tile (the staging buffer) and the scalar unit; a window is written by whole blocks and,
at the end of the tensor only, element by element.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.gather_scatter.plan.fields import TILING_FIELDS, VIEW_DIMS
from codegen.plan.products import spec_products
from codegen.plan.tiling_decision import UbSplitDecision
from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.model import Catalogue, DType, OpSpec, Product

#: Tiles in flight per core: one is filled while the other is written.
TILE_BUFFERS = 2
#: DataCopyPad's largest blockCount (rows of one DMA).
MAX_BLOCK_COUNT = 4095
#: The smallest tile: a chunk of a long row moves at least this many bytes per DMA (below it the fixed cost of
#: each DMA dominates); a product whose UB gives smaller tiles is refused at generate.
MIN_TILE_BYTES = 1024
#: Bytes of a GM cache line (the scalar data cache's): without DataCopyPad, cores split the output in whole
#: lines, so only the last core writes a tail element by element, in lines no other core touches.
LINE_BYTES = 64
#: ``copyMode``: rows with DataCopyPad (0); element windows with DataCopy and scalar tails (1, products without
#: DataCopyPad).
MODE_ROWS = 0
MODE_WINDOWS = 1
#: ``copyMode`` of ``direction: gather_elements``: one scalar read of the source per output element, the index
#: read and the output written in tiles with DataCopyPad.
MODE_ELEMENTS = 2
#: copyMode 2: a tile's element count is a multiple of this (its output and index regions then start on
#: 32-byte blocks whatever the widths).
ELEMENT_ALIGN = 32
#: The tiling key's width digit of each element byte width (the kernel moves bytes of that width).
WIDTH_KEYS: dict[int, int] = {1: 0, 2: 1, 4: 2, 8: 3}
#: The kernel's storage type of each element byte width.
WIDTH_TYPES: dict[int, str] = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
#: The tiling key's index digit of each index dtype, and the kernel's index type.
INDEX_KEYS: dict[DType, tuple[int, str]] = {DType.INT32: (0, "int32_t"), DType.INT64: (1, "int64_t")}


def tiling_key(width: int, index: DType) -> int:
    """``width digit * 10 + index digit`` (:data:`WIDTH_KEYS`, :data:`INDEX_KEYS`)."""
    return WIDTH_KEYS[width] * 10 + INDEX_KEYS[index][0]


def tile_bytes(spec: OpSpec, product: Product) -> int:
    """Bytes of one tile on ``product``: ``(ub - reserved) / TILE_BUFFERS`` rounded down to a 32-byte block.

    Raises:
        ValueError: the tile is below :data:`MIN_TILE_BYTES` (the message names the product).
    """
    size = (product.ub_bytes - spec.tiling.ub_reserved_bytes) // TILE_BUFFERS
    size -= size % UB_BLOCK_BYTES
    if size < MIN_TILE_BYTES:
        raise ValueError(
            f"{spec.op} on {product.name}: a UB tile would hold {size} bytes, "
            f"below the {MIN_TILE_BYTES} the kernel needs"
        )
    return size


def pqa(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """``(P, A, Q)`` of ``shape`` around ``dim`` (a 0-d shape is ``(1, 1, 1)``).

    Raises:
        ValueError: ``dim`` is outside ``[-max(rank, 1), max(rank, 1))``.
    """
    rank = max(len(shape), 1)
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for rank {len(shape)}")
    view = shape or (1,)
    axis = dim % rank
    p = q = 1
    for d in view[:axis]:
        p *= d
    for d in view[axis + 1 :]:
        q *= d
    return p, view[axis], q


@dataclass(frozen=True)
class TilingDecision(UbSplitDecision):
    """What the tiling function decides for one call on one product (elements unless a name says bytes)."""

    FIELDS = TILING_FIELDS
    copy_mode: int
    outer: int
    axis_len: int
    inner: int
    index_num: int
    chunk_len: int
    chunk_num: int
    slot_bytes: int
    tile_rows: int
    units_per_core: int
    units_former_num: int
    used_cores: int
    extents: tuple[int, ...] = (0,) * VIEW_DIMS
    strides: tuple[int, ...] = (0,) * VIEW_DIMS


def tiling_decision(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dim: int, index_num: int, dtype: DType, index: DType
) -> TilingDecision:
    """The tiling of a call with a source of ``shape`` and ``dtype``, ``index_num`` indices of ``index`` along
    ``dim`` on ``product`` (the generated tiling function computes the same with int64 arithmetic).

    Raises:
        ValueError: ``dim`` out of range, the call has no output element (the L2 API launches nothing), or the
            product's tile is too small (:func:`tile_bytes`).
    """
    p, a, q = pqa(shape, dim)
    rows = p * index_num
    if rows * q == 0:
        raise ValueError("a call without output elements launches no kernel")
    width = dtype.itemsize
    tile = tile_bytes(spec, product)
    row_bytes = q * width
    total_bytes = rows * row_bytes
    wanted = max(1, -(-total_bytes // spec.tiling.min_bytes_per_core))
    if not product.data_copy_pad:
        # element windows of a tile; the output split over the cores in whole cache lines
        line = LINE_BYTES // width
        units = -(-(rows * q) // line)
        mode, chunk_len, chunk_num, slot, tile_rows = MODE_WINDOWS, tile // width, 1, tile, 1
    else:
        slot = -(-row_bytes // UB_BLOCK_BYTES) * UB_BLOCK_BYTES
        mode = MODE_ROWS
        if slot <= tile:
            chunk_len, chunk_num, tile_rows = q, 1, min(tile // slot, MAX_BLOCK_COUNT)
        else:
            chunk_len, slot, tile_rows = tile // width, tile, 1
            chunk_num = -(-q // chunk_len)
        units = rows * chunk_num
    cores = max(1, min(product.vector_core_num, units, wanted))
    return TilingDecision(
        product=product.name,
        tiling_key=tiling_key(width, index),
        block_dim=cores,
        workspace_bytes=product.sys_workspace_bytes,
        bytes_per_element=TILE_BUFFERS * width,
        ub_budget_bytes=TILE_BUFFERS * tile,
        ub_split=(("tiles", TILE_BUFFERS, tile),),
        copy_mode=mode,
        outer=p,
        axis_len=a,
        inner=q,
        index_num=index_num,
        chunk_len=chunk_len,
        chunk_num=chunk_num,
        slot_bytes=slot,
        tile_rows=tile_rows,
        units_per_core=units // cores,
        units_former_num=units % cores,
        used_cores=cores,
    )


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time check: every product of ``spec`` gives tiles of at least :data:`MIN_TILE_BYTES`.

    Raises:
        ValueError: a product's tile is too small (the message names the product).
    """
    for product in spec_products(spec, catalogue):
        tile_bytes(spec, product)


def element_unit(product: Product, width: int) -> int:
    """The output elements of one unit of the ``gather_elements`` split (``copyMode`` 2): one element where the
    product has DataCopyPad, else a 64-byte line (:data:`LINE_BYTES` ÷ ``width`` bytes of the element), so that
    no two cores write one 32-byte block."""
    return 1 if product.data_copy_pad else LINE_BYTES // width


def elements_decision(
    spec: OpSpec,
    product: Product,
    shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    dim: int,
    dtype: DType,
    index: DType,
) -> TilingDecision:
    """The tiling of a ``gather_elements`` call (``copyMode`` 2): a source of ``shape`` and ``dtype``, an index of
    ``index_shape`` (the source's rank; a 0-d shape is ``(1,)``) and ``index`` dtype along ``dim`` on ``product``.

    The index's dims are right-aligned to :data:`VIEW_DIMS` (``extents``, 1 before them) with the source's
    contiguous element strides beside them (``strides``; 0 for ``dim`` and the padding), ``outer`` is the
    source's element count, ``inner`` is the
    source's stride along ``dim`` and ``axisLen`` its extent ``A``. A tile of ``tileBytes`` holds ``chunkLen``
    output elements and their indices (a multiple of :data:`ELEMENT_ALIGN` elements); the ``indexNum`` output
    elements, in units of :func:`element_unit`, are split evenly over ``usedCores`` cores, the first
    ``unitsFormerNum`` taking one unit more.

    Raises:
        ValueError: ``dim`` out of range, the ranks differ, the call has no output element or an empty source
            (the L2 API launches nothing), or the product's tile is too small.
    """
    view = shape or (1,)
    idx = index_shape or (1,)
    if len(view) != len(idx):
        raise ValueError(f"index rank {len(index_shape)} differs from the source's {len(shape)}")
    rank = len(view)
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for rank {len(shape)}")
    axis = dim % rank
    total = 1
    for d in idx:
        total *= d
    size = 1
    for d in view:
        size *= d
    if total == 0 or size == 0:
        raise ValueError("a call without output elements launches no kernel")
    source_strides = [1] * rank
    for i in range(rank - 2, -1, -1):
        source_strides[i] = source_strides[i + 1] * view[i + 1]
    pad = VIEW_DIMS - rank
    extents = [1] * VIEW_DIMS
    strides = [0] * VIEW_DIMS
    for i in range(rank):
        extents[pad + i] = idx[i]
        strides[pad + i] = 0 if i == axis else source_strides[i]
    width = dtype.itemsize
    tile = tile_bytes(spec, product)
    chunk = tile // (width + index.itemsize) // ELEMENT_ALIGN * ELEMENT_ALIGN
    wanted = max(1, -(-(total * width) // spec.tiling.min_bytes_per_core))
    units = -(-total // element_unit(product, width))
    cores = max(1, min(product.vector_core_num, units, wanted))
    return TilingDecision(
        product=product.name,
        tiling_key=tiling_key(width, index),
        block_dim=cores,
        workspace_bytes=product.sys_workspace_bytes,
        bytes_per_element=TILE_BUFFERS * (width + index.itemsize),
        ub_budget_bytes=TILE_BUFFERS * tile,
        ub_split=(("tiles", TILE_BUFFERS, tile),),
        copy_mode=MODE_ELEMENTS,
        outer=size,
        axis_len=view[axis],
        inner=source_strides[axis],
        index_num=total,
        chunk_len=chunk,
        chunk_num=1,
        slot_bytes=tile,
        tile_rows=1,
        units_per_core=units // cores,
        units_former_num=units % cores,
        used_cores=cores,
        extents=tuple(extents),
        strides=tuple(strides),
    )
