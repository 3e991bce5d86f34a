"""The work plan of an index fill (aclnnIndexFillTensor's math: ``out`` is ``self`` with the slices along
``dim`` that an index array names set to one value), the Python model the fill kernel's walk is to follow.

``compute.direction: fill`` takes this path (aclnnIndexFillTensor); the module holds the walk and its
traffic that the kernel follows, and the tiling (:func:`fill_decision`, ``copyMode`` :data:`MODE_FILL`). With
``self`` viewed as ``[P, A, Q]`` around ``dim`` (``N = P * A * Q`` elements):

- the L2 API wraps negative positions (``i + A``), sorts them and drops duplicates (:func:`fill_positions`),
  so the kernel sees ``K`` distinct positions in increasing order;
- the output, in whole 32-byte blocks (:data:`BLOCK_BYTES`), is split evenly over the cores
  (:func:`core_ranges`), at most one core per ``min_bytes_per_core`` bytes of output;
- each core walks its range as segments (:func:`segments`): a *copy* segment is a run of output elements
  outside the filled slices (``self`` read GM -> UB, written UB -> GM: one read and one write per element),
  a *fill* segment is a run inside consecutive filled slices, written from a value tile filled once per core
  (no read of ``self``). No segment is longer than a tile, and copy segments never cross a filled slice, so
  every output element is written once and ``self`` is read only where it is not overwritten
  (:func:`traffic`: GM bytes read and written, the minimum the math needs besides the positions).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from codegen.families.gather_scatter.model import FILL_INDEX_DTYPE
from codegen.families.gather_scatter.plan.tiling import (
    MIN_TILE_BYTES,
    TILE_BUFFERS,
    TilingDecision,
    pqa,
    tiling_key,
)
from codegen.spec.model import DType, OpSpec, Product

#: Bytes of a UB/GM block; cores split the output in whole blocks so that no two cores write one block.
BLOCK_BYTES = 32
#: UB tiles of the fill kernel: two copy tiles in flight (one read while the other is written) and the value
#: tile (filled once per core, read by every fill write).
FILL_TILES = 3
#: NpuArchs whose aclnnIndexFillTensor converts the aclScalar to the source's dtype directly (ops-nn
#: common/inc/op_api/aclnn_util.h ``IsRegbase``: ``NpuArch::DAV_3510``); the others fill with
#: ``value->ToFloat()`` (the value rounded to float32 first).
REGBASE_NPU_ARCHS = (3510,)
#: ``copyMode`` of ``direction: fill`` (after the gather's rows 0, windows 1 and elements 2).
MODE_FILL = 3


@dataclass(frozen=True)
class Segment:
    """A run of ``length`` consecutive output elements from flat offset ``start``: ``copy`` (from ``self``
    at the same offset) or ``fill`` (the value)."""

    kind: Literal["copy", "fill"]
    start: int
    length: int


def fill_positions(axis_len: int, index: Sequence[int]) -> tuple[int, ...]:
    """The distinct positions along dim that ``index`` names, increasing (a value in ``[-A, 0)`` counts from
    the end).

    Raises:
        ValueError: a value outside ``[-A, A)`` (aclnnIndexFillTensor's phase 1 refuses it with 161002).
    """
    out = set()
    for i in index:
        if not -axis_len <= i < axis_len:
            raise ValueError(f"index value {i} outside [{-axis_len}, {axis_len})")
        out.add(i + axis_len if i < 0 else i)
    return tuple(sorted(out))


def core_ranges(total: int, width: int, core_num: int, min_bytes_per_core: int) -> list[tuple[int, int]]:
    """``[begin, end)`` element ranges of the output per core: ``total`` elements of ``width`` bytes in units
    of one 32-byte block (the last unit may be partial), split evenly over ``min(core_num, units,
    ceil(total * width / min_bytes_per_core))`` cores, the first ones taking one unit more.

    Raises:
        ValueError: ``total`` is not positive (an empty call launches nothing) or ``width`` does not divide a
            block.
    """
    if total <= 0:
        raise ValueError("an empty output launches no kernel")
    if width <= 0 or BLOCK_BYTES % width:
        raise ValueError(f"element width {width} does not divide a {BLOCK_BYTES}-byte block")
    per_unit = BLOCK_BYTES // width
    units = -(-total // per_unit)
    wanted = max(1, -(-(total * width) // min_bytes_per_core))
    cores = max(1, min(core_num, units, wanted))
    base, former = divmod(units, cores)
    ranges = []
    begin_unit = 0
    for c in range(cores):
        n = base + (1 if c < former else 0)
        ranges.append((begin_unit * per_unit, min((begin_unit + n) * per_unit, total)))
        begin_unit += n
    return ranges


def _runs(axis_len: int, inner: int, positions: Sequence[int], begin: int, end: int) -> Iterator[Segment]:
    """Maximal runs of ``[begin, end)`` inside one ``[A, Q]`` block: a copy run ends at the next filled slice
    or the block's end, a fill run at the first slice not filled or the block's end."""
    pos = list(positions)
    k = len(pos)
    e = begin
    while e < end:
        row, q = divmod(e, inner)
        a = row % axis_len
        j = bisect_left(pos, a)  # the kernel: a binary search at its first element, then a moving pointer
        if j < k and pos[j] == a:
            last = a
            while j + 1 < k and pos[j + 1] == last + 1:
                j += 1
                last += 1
            kind: Literal["copy", "fill"] = "fill"
            run = (last + 1 - a) * inner - q
        else:
            kind = "copy"
            run = ((pos[j] if j < k else axis_len) - a) * inner - q
        length = min(run, end - e)
        yield Segment(kind, e, length)
        e += length


def segments(
    axis_len: int, inner: int, positions: Sequence[int], begin: int, end: int, tile_elems: int
) -> Iterator[Segment]:
    """The segments of output elements ``[begin, end)`` of a ``[P, A, Q]`` view (``axis_len`` = A, ``inner``
    = Q) with the slices at ``positions`` (distinct, increasing, in ``[0, A)``) filled, in order: maximal runs
    of one kind (a run continues from one ``[A, Q]`` block into the next when the kind does not change), cut
    into pieces of at most ``tile_elems`` elements (one DMA each).

    Raises:
        ValueError: ``tile_elems``, ``axis_len`` or ``inner`` not positive, or ``positions`` not distinct,
            increasing and in ``[0, A)`` (:func:`fill_positions` gives them so).
    """
    if tile_elems <= 0 or axis_len <= 0 or inner <= 0:
        raise ValueError("tile_elems, axis_len and inner must be positive")
    if any(not 0 <= x < axis_len for x in positions) or any(x >= y for x, y in pairwise(positions)):
        raise ValueError(f"positions {list(positions)} are not distinct, increasing and in [0, {axis_len})")
    pending: Segment | None = None
    merged: list[Segment] = []
    for r in _runs(axis_len, inner, positions, begin, end):
        if pending is not None and pending.kind == r.kind:
            pending = Segment(r.kind, pending.start, pending.length + r.length)
            continue
        if pending is not None:
            merged.append(pending)
        pending = r
    if pending is not None:
        merged.append(pending)
    for m in merged:
        for offset in range(0, m.length, tile_elems):
            yield Segment(m.kind, m.start + offset, min(tile_elems, m.length - offset))


def traffic(
    outer: int, axis_len: int, inner: int, positions: Sequence[int], width: int, ranges: Sequence[tuple[int, int]]
) -> tuple[int, int]:
    """``(bytes of self read, bytes of out written)`` in GM over the cores' ``ranges`` of a ``[P, A, Q]`` view
    (``outer`` = P): each copy segment read once and written once, each fill segment written once. The
    positions the kernel reads (at most ``K`` INT64 values plus a binary search's ``log2(K) + 1`` per core) are
    not counted."""
    read = written = 0
    whole = max(1, outer * axis_len * inner)
    for begin, end in ranges:
        for seg in segments(axis_len, inner, positions, begin, end, whole):
            written += seg.length * width
            if seg.kind == "copy":
                read += seg.length * width
    return read, written


def fill_tile_bytes(spec: OpSpec, product: Product) -> int:
    """Bytes of one of the :data:`FILL_TILES` tiles on ``product``: ``(ub - reserved) / FILL_TILES`` rounded
    down to a block.

    Raises:
        ValueError: the tile is below the family's smallest tile (the message names the product).
    """
    size = (product.ub_bytes - spec.tiling.ub_reserved_bytes) // FILL_TILES
    size -= size % BLOCK_BYTES
    if size < MIN_TILE_BYTES:
        raise ValueError(
            f"{spec.op} on {product.name}: a UB tile would hold {size} bytes, "
            f"below the {MIN_TILE_BYTES} the kernel needs"
        )
    return size


def fill_decision(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dim: int, index_num: int, dtype: DType
) -> TilingDecision:
    """The tiling of a fill (``copyMode`` :data:`MODE_FILL`) of a source of ``shape`` and ``dtype`` along
    ``dim`` with ``index_num`` distinct positions on ``product`` (the generated tiling function computes the
    same in int64): ``outer``/``axisLen``/``inner`` the ``[P, A, Q]`` view, ``indexNum`` = K, ``chunkLen`` the
    elements of a tile (``slotBytes`` its bytes, ``tileRows`` 1), the output's 32-byte blocks split as
    :func:`core_ranges` does (``unitsPerCore``, ``unitsFormerNum``, ``usedCores``).

    Raises:
        ValueError: ``dim`` out of range, an empty source or index (the L2 API launches nothing), or the
            product's tile is too small.
    """
    p, a, q = pqa(shape, dim)
    total = p * a * q
    if total == 0 or index_num <= 0:
        raise ValueError("an empty source or index launches no kernel")
    width = dtype.itemsize
    tile = fill_tile_bytes(spec, product)
    units = -(-(total * width) // BLOCK_BYTES)
    wanted = max(1, -(-(total * width) // spec.tiling.min_bytes_per_core))
    cores = max(1, min(product.vector_core_num, units, wanted))
    return TilingDecision(
        product=product.name,
        tiling_key=tiling_key(width, FILL_INDEX_DTYPE),
        block_dim=cores,
        workspace_bytes=product.sys_workspace_bytes,
        bytes_per_element=TILE_BUFFERS * width,
        ub_budget_bytes=FILL_TILES * tile,
        ub_split=(("tiles", FILL_TILES, tile),),
        copy_mode=MODE_FILL,
        outer=p,
        axis_len=a,
        inner=q,
        index_num=index_num,
        chunk_len=tile // width,
        chunk_num=1,
        slot_bytes=tile,
        tile_rows=1,
        units_per_core=units // cores,
        units_former_num=units % cores,
        used_cores=cores,
    )
