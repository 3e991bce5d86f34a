"""The 64-bit offset case of a row gather: a call whose output reaches past 2**32 elements, run through the
tiling function (``tiling_2g``, checked against the planner in 64-bit arithmetic) and the probe launch (the
ranges a core owns: :func:`probe_ranges`); a scatter-add's cases: :mod:`.scatter_offsets`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import device_attrs, device_byte_ranges, field_difference, offset_case
from codegen.families.gather_scatter.cases.scatter_offsets import scatter_check_offsets, scatter_probe_ranges
from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.families.gather_scatter.plan.fill import BLOCK_BYTES, MODE_FILL, fill_decision, segments
from codegen.families.gather_scatter.plan.tiling import (
    LINE_BYTES,
    MODE_ELEMENTS,
    MODE_WINDOWS,
    TILE_BUFFERS,
    TilingDecision,
    element_unit,
    elements_decision,
    tiling_decision,
)
from codegen.spec.model import DType, OpSpec, Product

#: Source ``[4, 2**30 + 3, 2]`` along dim 1 with ``2**30 + 3`` indices: the output has about 2**33 elements
#: and the source rows of the last outer index start past 2**32 elements.
OFFSET_SHAPE = (4, 2**30 + 3, 2)
OFFSET_K = 2**30 + 3
#: A constant dim 0: source ``[2**30 + 3, 8]`` with ``2**30 + 3`` indices (about 2**33 output elements); a
#: flattened source: ``OFFSET_SHAPE`` (about 2**33 one-element rows) with ``2**32 + 64`` indices.
OFFSET_CONST_SHAPE = (2**30 + 3, 8)
OFFSET_FLAT_K = 2**32 + 64


def offset_call(comp: GatherScatterCompute) -> tuple[tuple[int, ...], int | None, tuple[int, ...]]:
    """``(source shape, attr dim or None, index shape)`` of the offset case of ``comp``'s dim kind (an element
    gather: the index of the source's shape, about 2**33 elements)."""
    if comp.fill:
        return OFFSET_SHAPE, 1, (1,)
    if comp.elements:
        return OFFSET_SHAPE, 1, OFFSET_SHAPE
    if comp.flatten:
        return OFFSET_SHAPE, None, (OFFSET_FLAT_K,)
    if comp.dim is None:
        return OFFSET_CONST_SHAPE, None, (OFFSET_CONST_SHAPE[0],)
    return OFFSET_SHAPE, 1, (OFFSET_K,)


def offset_cases(spec: OpSpec, product: Product, dt: DType, index: DType) -> Iterator[Case]:
    """The ``tiling_2g`` case of ``spec`` on ``product`` in ``dt`` with ``index`` indices."""
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute)
    shape, dim, index_shape = offset_call(comp)
    by_name = {
        comp.source: {"shape": list(shape), "dtype": dt.name},
        comp.index: {"shape": list(index_shape), "dtype": index.name},
        comp.dest: {"shape": list(comp.out_shape(shape, index_shape, dim)), "dtype": dt.name},
    }
    if comp.value is not None:  # a fill: one position, the value one element of the source's dtype
        by_name[comp.value] = {"shape": [], "dtype": dt.name}
    dev = spec.device_interface
    request = {
        "inputs": [by_name[d.source] for d in dev.inputs if d.source],
        "outputs": [by_name[d.source] for d in dev.outputs if d.source],
        "attrs": device_attrs(spec, {comp.dim: dim} if comp.dim is not None else {}),
    }
    params = {"request": request, "dtype": dt.name, "index": index.name}
    yield offset_case(spec, product, dt.name, str(list(shape)), "output past 2**32: tiling in 64 bits", params)


def _last_unit_start(d: TilingDecision, unit_elements: int) -> int:
    """The output element where the kernel's last unit (of the last core) starts (``unit_elements``: the output
    elements of a ``copyMode`` 2 unit, :func:`element_unit`)."""
    last = d.units_per_core * d.used_cores + d.units_former_num - 1
    if d.copy_mode == MODE_FILL:  # a unit: a 32-byte block of the output
        return last * (BLOCK_BYTES // (d.bytes_per_element // TILE_BUFFERS))
    if d.copy_mode == MODE_ELEMENTS:
        return last * unit_elements
    if d.copy_mode == MODE_WINDOWS:
        return last * (LINE_BYTES // (d.bytes_per_element // TILE_BUFFERS))
    return last // d.chunk_num * d.inner + last % d.chunk_num * d.chunk_len


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """The ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when every
    field, the block dim and the key agree and the last unit starts past 2**32 output elements (a scatter-add:
    :func:`~codegen.families.gather_scatter.cases.scatter_offsets.scatter_check_offsets`)."""
    p = case.params
    comp = fn.spec.compute
    assert isinstance(comp, GatherScatterCompute)
    if comp.scatter:
        return scatter_check_offsets(fn, case, got, tiling)
    shape, dim, index_shape = offset_call(comp)
    view, axis = comp.view(shape, dim)
    if comp.fill:
        assert dim is not None
        d = fill_decision(fn.spec, fn.product, shape, dim, index_shape[0], DType[p["dtype"]])
    elif comp.elements:
        assert dim is not None
        d = elements_decision(fn.spec, fn.product, shape, index_shape, dim, DType[p["dtype"]], DType[p["index"]])
    else:
        d = tiling_decision(fn.spec, fn.product, view, axis, index_shape[0], DType[p["dtype"]], DType[p["index"]])
    if fault := field_difference(tiling, d.tiling_fields()):
        return fault
    if (got["block_dim"], got["tiling_key"]) != (d.block_dim, d.tiling_key):
        return f"blockDim/key {got['block_dim']}/{got['tiling_key']}, want {d.block_dim}/{d.tiling_key}"
    start = _last_unit_start(d, element_unit(fn.product, DType[p["dtype"]].itemsize))
    if start < 2**32:
        return f"the last unit starts at output element {start}: the case does not reach past 32 bits"
    return ""


def probe_ranges(fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` of every device tensor core ``core`` owns under the tiling fields, with every index the
    probe reads being 0 (from the split alone, not the kernel's code). The core takes ``unitsPerCore`` units (one
    more below ``unitsFormerNum``) after those of the cores before it. ``copyMode`` 0: unit ``u`` is chunk ``u %
    chunkNum`` of output row ``u // chunkNum``; ``copyMode`` 1: unit ``u`` is the 64-byte line ``u`` of the output
    (the last one ends with the tensor); ``copyMode`` 2: unit ``u`` is output element ``u``, or its 64-byte line
    ``u`` without DataCopyPad (:func:`element_unit`). Output row ``r`` is ``(p, k) = divmod(r, K)``. The core writes
    its part of the output; reads ``index[k]`` of its rows (not judged when its rows cross a ``p`` boundary: the
    reads wrap to ``index[0]``); and, with every index 0, reads source row ``p * A`` of each of its ``p``: the
    columns its rows of that ``p`` take (from its first column when its first row is the only one of the first
    ``p``, to its last column when its last row is the only one of the last). A core without units owns nothing (an
    empty dict). A scatter-add: :func:`~codegen.families.gather_scatter.cases.scatter_offsets.scatter_probe_ranges`."""
    comp = fn.spec.compute
    assert isinstance(comp, GatherScatterCompute)
    if comp.scatter:
        return scatter_probe_ranges(fn, case, tiling, core)
    per, former = tiling["unitsPerCore"], tiling["unitsFormerNum"]
    count = per + (1 if core < former else 0)
    if count <= 0:
        return {}
    first = core * per + min(core, former)
    last = first + count - 1
    if tiling["copyMode"] == MODE_FILL:
        return _fill_ranges(fn, case, tiling, first, last)
    if tiling["copyMode"] == MODE_ELEMENTS:
        unit = element_unit(fn.product, DType[case.params["dtype"]].itemsize)
        return _element_ranges(fn, case, tiling, first * unit, min((last + 1) * unit, tiling["indexNum"]) - 1)
    inner, k_num, a = tiling["inner"], tiling["indexNum"], tiling["axisLen"]
    total = tiling["outer"] * k_num * inner
    if tiling["copyMode"] == MODE_WINDOWS:
        width = DType[case.params["dtype"]].itemsize
        line = LINE_BYTES // width
        e0, e1 = first * line, min((last + 1) * line, total)
    else:
        chunks, chunk_len = tiling["chunkNum"], tiling["chunkLen"]
        r_first, c_first = divmod(first, chunks)
        r_last, c_last = divmod(last, chunks)
        e0 = r_first * inner + c_first * chunk_len
        e1 = r_last * inner + min((c_last + 1) * chunk_len, inner)
    r0, q0 = divmod(e0, inner)
    r1, q1 = divmod(e1 - 1, inner)
    p0, p1 = r0 // k_num, r1 // k_num
    lo_col = q0 if min(r1, (p0 + 1) * k_num - 1) == r0 else 0
    hi_col = q1 + 1 if max(r0, p1 * k_num) == r1 else inner
    source = (p0 * a * inner + lo_col, p1 * a * inner + hi_col)
    by_source = {comp.source: source, comp.dest: (e0, e1)}
    if p0 == p1:  # rows of one p read index[r0 % K .. r1 % K]; across p the reads wrap to 0: not one range
        by_source[comp.index] = (r0 % k_num, r1 % k_num + 1)
    ranges = device_byte_ranges(
        fn.spec, case.params["request"], lambda param: by_source.get(param.source or "", (0, 0))
    )
    return {name: r for name, r in ranges.items() if r != (0, 0)}


def _element_ranges(fn: Any, case: Case, tiling: dict[str, int], first: int, last: int) -> dict[str, tuple[int, int]]:
    """copyMode 2: the core's output elements ``[first, last]`` and their indices; with every index 0 it reads
    the source between the smallest and the largest offset of its elements. An element is ``(pre, k, q)``:
    its coordinates before dim (``pre``), along dim (``k``, of extent ``K``) and after it (``q``, of ``Q``
    values), in the right-aligned view (dim: the last view dim of stride 0); its offset is ``F(pre) + G(q)``,
    both growing with their argument, so the smallest is at the first ``pre`` with the smallest ``q`` the core
    takes there, the largest at the last ``pre`` with the largest."""
    comp = fn.spec.compute
    extents = [tiling[f"extent{i}"] for i in range(8)]
    strides = [tiling[f"stride{i}"] for i in range(8)]
    ax = max(i for i in range(8) if strides[i] == 0)
    k_num = extents[ax]
    q_num = 1
    for e in extents[ax + 1 :]:
        q_num *= e

    def along(value: int, dims: range) -> int:
        base = 0
        for i in reversed(dims):
            value, c = divmod(value, extents[i])
            base += c * strides[i]
        return base

    def split(e: int) -> tuple[int, int, int]:
        pre, rest = divmod(e, k_num * q_num)
        k, q = divmod(rest, q_num)
        return pre, k, q

    p0, k0, q0 = split(first)
    p1, k1, q1 = split(last)
    q_min = 0 if (p1 > p0 and k0 < k_num - 1) or (p1 == p0 and k1 > k0) else q0
    q_max = q_num - 1 if (p1 > p0 and k1 > 0) or (p1 == p0 and k1 > k0) else q1
    lo = along(p0, range(ax)) + along(q_min, range(ax + 1, 8))
    hi = along(p1, range(ax)) + along(q_max, range(ax + 1, 8)) + 1
    by_source = {comp.source: (lo, hi), comp.index: (first, last + 1), comp.dest: (first, last + 1)}
    ranges = device_byte_ranges(
        fn.spec, case.params["request"], lambda param: by_source.get(param.source or "", (0, 0))
    )
    return {name: r for name, r in ranges.items() if r != (0, 0)}


def _fill_ranges(fn: Any, case: Case, tiling: dict[str, int], first: int, last: int) -> dict[str, tuple[int, int]]:
    """``copyMode`` 3 (a fill): the core's 32-byte blocks ``[first, last]`` of the output, written whole; with
    every position 0 (the probe reads zeros) the core reads the source from its first element outside a filled
    slice to its last one (:func:`~codegen.families.gather_scatter.plan.fill.segments`), every position it
    searches (``index[0]``, ``indexNum`` being 1 in the case) and the one value."""
    comp = fn.spec.compute
    width = DType[case.params["dtype"]].itemsize
    total = tiling["outer"] * tiling["axisLen"] * tiling["inner"]
    per_block = BLOCK_BYTES // width
    e0, e1 = first * per_block, min((last + 1) * per_block, total)
    copies = [s for s in segments(tiling["axisLen"], tiling["inner"], [0], e0, e1, max(1, e1 - e0)) if s.kind == "copy"]
    by_source = {comp.dest: (e0, e1), comp.index: (0, 1), comp.value: (0, 1)}
    if copies:
        by_source[comp.source] = (copies[0].start, copies[-1].start + copies[-1].length)
    ranges = device_byte_ranges(
        fn.spec, case.params["request"], lambda param: by_source.get(param.source or "", (0, 0))
    )
    return {name: r for name, r in ranges.items() if r != (0, 0)}
