"""``opgen explain`` for the gather/scatter family: the shape is the source's; the call gathers along dim 0
(an attr dim is set to 0; a constant dim is the spec's; a flattened source is read as one row of one-element
rows) with as many indices as that dim's extent (INT64 where listed), in a 1-d index (an element gather: an
index of the source's shape, dim 0; a fill: every other position along dim 0, the value 1; a scatter-add: an
index and src of the source's shape; a row scatter-add: a 1-d index of dim 0's extent, src of the source's shape,
alpha 1); the tiling section is the planner's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.check.constraints import TensorStandIn
from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.families.gather_scatter.plan.fill import FILL_TILES, fill_decision
from codegen.families.gather_scatter.plan.scatter import scatter_decision
from codegen.families.gather_scatter.plan.tiling import (
    LINE_BYTES,
    MODE_WINDOWS,
    TILE_BUFFERS,
    elements_decision,
    pqa,
    tiling_decision,
)
from codegen.plan.scatter import gm_traffic
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def _compute(spec: OpSpec) -> GatherScatterCompute:
    assert isinstance(spec.compute, GatherScatterCompute)
    return spec.compute


def _index_dtype(spec: OpSpec) -> DType:
    listed = spec.tensor(_compute(spec).index).dtypes
    return DType.INT64 if DType.INT64 in listed else listed[0]


def _dtype(spec: OpSpec, dtype_name: str | None) -> DType:
    return DType[dtype_name] if dtype_name else spec.tensor(_compute(spec).source).dtypes[0]


def _index_shape(comp: GatherScatterCompute, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index shape of the explained call: the source's (an element gather), else ``(K,)`` (:func:`_k`)."""
    return shape if comp.elements else (_k(comp, shape),)


def _k(comp: GatherScatterCompute, shape: tuple[int, ...]) -> int:
    """The index count of the explained call: the extent of the gathered dim (1 for a 0-d shape)."""
    view, axis = comp.view(shape, 0)
    return view[axis] if view else 1


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: the source of ``shape``, as many indices as the gathered dim's extent
    (one for a 0-d shape), the output of the rule's shape, an attr dim 0."""
    comp = _compute(spec)
    dt = _dtype(spec, dtype_name)
    if comp.fill:  # every other position along dim 0, the value 1
        positions = _fill_positions(shape)
        tensors: dict[str, object] = {comp.source: TensorStandIn(shape, dt), comp.dest: TensorStandIn(shape, dt)}
        attrs: dict[str, object] = {str(comp.dim): 0, comp.index: positions, str(comp.value): 1.0}
        return tensors, [f"{comp.dim} 0 with {len(positions)} positions (every other one), {comp.value} 1"], attrs
    if comp.scatter:  # an index and src of self's shape along dim 0 (index_add: a 1-d index, alpha 1)
        i = _index_dtype(spec)
        index_shape = _scatter_index_shape(comp, shape)
        tensors = {comp.source: TensorStandIn(shape, dt), comp.index: TensorStandIn(index_shape, i)}
        tensors[str(comp.src)] = TensorStandIn(shape, dt)
        tensors[comp.dest] = TensorStandIn(shape, dt)
        set_attrs: dict[str, object] = {str(comp.dim): 0}
        if comp.alpha is not None:
            set_attrs[comp.alpha] = 1.0
        said = f"{comp.dim} 0 with an index of {list(index_shape)} and {comp.src} of {list(shape)}"
        return tensors, [said + (f", {comp.alpha} 1" if comp.alpha else "")], set_attrs
    k = _k(comp, shape)
    idx = _index_shape(comp, shape)
    env: dict[str, object] = {
        comp.source: TensorStandIn(shape, dt),
        comp.index: TensorStandIn(idx, _index_dtype(spec)),
        comp.dest: TensorStandIn(comp.out_shape(shape, idx, 0 if comp.dim is not None else None), dt),
    }
    if comp.elements:
        return env, [f"{comp.dim} 0 with an index of {list(shape)}"], {str(comp.dim): 0}
    if comp.dim is None:
        return env, [f"{k} indices"], {}
    return env, [f"{comp.dim} 0 with {k} indices"], {comp.dim: 0}


def _fill_positions(shape: tuple[int, ...]) -> list[int]:
    """The positions a fill of the explained call names: every other one along dim 0 (0 for a 0-d shape)."""
    return list(range(0, shape[0] if shape else 1, 2))


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The source of ``shape`` and the output (gathered along dim 0 with as many indices as its extent; a fill:
    the source's shape)."""
    comp = _compute(spec)
    if comp.fill or comp.scatter:
        return [(f"{comp.source} {list(shape)}", shape), (f"{comp.dest} {list(shape)}", shape)]
    out = comp.out_shape(shape, _index_shape(comp, shape), 0 if comp.dim is not None else None)
    return [(f"{comp.source} {list(shape)}", shape), (f"{comp.dest} {list(out)}", out)]


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling of a gather along dim 0 of a source of ``shape`` with ``shape[0]`` indices, as lines: the
    row-slot strategy on products with DataCopyPad, the output windows in whole cache lines without it; for a
    call without output elements, a line saying none is computed (the L2 API launches nothing)."""
    dt = _dtype(spec, dtype_name)
    comp = _compute(spec)
    if comp.fill:
        return _explain_fill(spec, product, shape, dt)
    if comp.elements:
        return _explain_elements(spec, product, shape, dt)
    if comp.scatter:
        return _explain_scatter(spec, product, shape, dt)
    k = _k(comp, shape)
    view, axis = comp.view(shape, 0)
    how = "flattened" if comp.flatten else "along dim 0"
    head = f"tiling for {list(shape)} ({dt.name}) gathered {how} with {k} indices"
    p, _, q = pqa(view, axis)
    if p * k * q == 0:
        return f"{head}: none (the output has no element; the aclnn API launches nothing)"
    t = tiling_decision(spec, product, view, axis, k, dt, _index_dtype(spec))
    lines = [
        f"{head}: P {t.outer}, A {t.axis_len}, Q {t.inner}; tiling key {t.tiling_key}, blockDim {t.block_dim} of "
        f"{product.vector_core_num}, workspace {product.sys_workspace_bytes} bytes (system workspace only)"
    ]
    if t.copy_mode == MODE_WINDOWS:
        lines += [
            f"  UB: {TILE_BUFFERS} tiles of {t.slot_bytes} bytes; no DataCopyPad on {product.name}: the output is "
            f"split in whole {LINE_BYTES}-byte lines, each core assembles windows of {t.chunk_len} elements of its "
            "lines in a tile and writes them by whole 32-byte blocks (the tensor's last bytes element by element)",
            f"  cores: {t.units_per_core} line(s) per core, the first {t.units_former_num} one more",
        ]
    else:
        lines += [
            f"  UB: {TILE_BUFFERS} tiles of {t.slot_bytes * t.tile_rows} bytes; rows in slots of {t.slot_bytes} "
            f"bytes, {t.tile_rows} rows per tile (one DMA writes a tile); {t.chunk_num} chunk(s) of {t.chunk_len} "
            "elements per row",
            f"  cores: {t.units_per_core} unit(s) per core, the first {t.units_former_num} one more",
        ]
    return "\n".join(lines)


def _explain_fill(spec: OpSpec, product: Product, shape: tuple[int, ...], dt: DType) -> str:
    """The tiling lines of a fill along dim 0 at every other position."""
    positions = _fill_positions(shape)
    head = f"tiling for {list(shape)} ({dt.name}) filled along dim 0 at {len(positions)} positions"
    if 0 in shape:
        return f"{head}: none (self is empty; the aclnn API launches nothing)"
    t = fill_decision(spec, product, shape, 0, len(positions), dt)
    return "\n".join(
        [
            f"{head}: P {t.outer}, A {t.axis_len}, Q {t.inner}; tiling key {t.tiling_key}, blockDim {t.block_dim} of "
            f"{product.vector_core_num}, workspace {product.sys_workspace_bytes} bytes (system workspace only)",
            f"  UB: {FILL_TILES} tiles of {t.slot_bytes} bytes (two copy tiles, one value tile); runs outside the "
            "filled slices copied GM -> UB -> GM, runs inside them written from the value tile",
            f"  cores: {t.units_per_core} 32-byte block(s) of the output per core, the first {t.units_former_num} one "
            "more",
        ]
    )


def _explain_elements(spec: OpSpec, product: Product, shape: tuple[int, ...], dt: DType) -> str:
    """The tiling lines of an element gather along dim 0 with an index of the source's shape."""
    head = f"tiling for {list(shape)} ({dt.name}) gathered element by element along dim 0 by an index of its shape"
    if 0 in shape:
        return f"{head}: none (the output has no element; the aclnn API launches nothing)"
    t = elements_decision(spec, product, shape, shape, 0, dt, _index_dtype(spec))
    return "\n".join(
        [
            f"{head}: A {t.axis_len}, {t.index_num} elements; tiling key {t.tiling_key}, blockDim {t.block_dim} of "
            f"{product.vector_core_num}, workspace {product.sys_workspace_bytes} bytes (system workspace only)",
            f"  UB: {TILE_BUFFERS} tiles of {t.slot_bytes} bytes, each {t.chunk_len} output elements and their "
            "indices; one scalar read of the source per element, the index read and the output written per "
            "tile with DataCopyPad",
            f"  cores: {t.units_per_core} element(s) per core, the first {t.units_former_num} one more",
        ]
    )


def _scatter_index_shape(comp: GatherScatterCompute, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of an explained scatter: self's shape, or for a row scatter 1-d of self's extent along dim 0."""
    return (shape[0] if shape else 1,) if comp.rows else shape


def _explain_scatter(spec: OpSpec, product: Product, shape: tuple[int, ...], dt: DType) -> str:
    """The tiling lines of a scatter-add along dim 0 with an index and src of self's shape, without and with
    ACL_OPT_DETERMINISTIC: the strategy and why, the core split, the UB window and the modelled GM bytes."""
    comp = _compute(spec)
    index_words = f"a 1-d index of {list(_scatter_index_shape(comp, shape))}" if comp.rows else "an index of its shape"
    head = f"tiling for {list(shape)} ({dt.name}) scatter-added along dim 0 by {index_words}"
    if 0 in shape:
        return f"{head}: none (self or index is empty; the aclnn API launches nothing)"
    it = _index_dtype(spec)
    lines = []
    for det in (False, True):
        t = scatter_decision(spec, product, (shape, _scatter_index_shape(comp, shape), shape), 0, dt, it, det)
        moved, least = gm_traffic(t.plan, t.view, dt.itemsize, it.itemsize)
        lines += [
            f"{head}{', deterministic' if det else ''}: A {t.view.axis_len}, {t.view.index_num} index elements; "
            f"tiling key {t.tiling_key}, blockDim {t.block_dim} of {product.vector_core_num}, workspace "
            f"{product.sys_workspace_bytes} bytes (system workspace only)",
            f"  strategy {t.reason}",
            f"  cores: {t.units} 64-byte line(s) of out split evenly; UB window {t.window_len} elements, index tile "
            f"{t.tile_len}; GM {moved} bytes modelled, minimum {least} ({moved / least:.2f} x)",
        ]
    return "\n".join(lines)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
