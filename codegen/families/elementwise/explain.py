"""``opgen explain`` for the elementwise family: the call a shape describes (the shape is the output's) and
the tiling section."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codegen.check.constraints import TensorStandIn
from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.families.elementwise.plan.variants import compute_dtypes
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: every input and the output have ``shape`` in the explained dtype
    (default: the first dtype of the first required input); no attr is set by the shape."""
    env: dict[str, object] = {}
    dt = DType[dtype_name] if dtype_name else next(t for t in spec.inputs if not t.optional).dtypes[0]
    for t in (*spec.inputs, *spec.outputs):
        env[t.name] = TensorStandIn(shape, dt)
    return env, [], {}


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The output ``shape`` (any rank here: :func:`codegen.explain.check_ranks` applies the spec's rank rules
    to every tensor of the call)."""
    out = spec.outputs[0]
    return [(f"output {out.name} {list(shape)}", shape)]


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling of output ``shape`` in dtype ``dtype_name`` (default: the first compute dtype) on
    ``product``: UB budget and split, tile length, cores, tiles per core, queue buffers, workspace, strategy."""
    dt = DType[dtype_name] if dtype_name else compute_dtypes(spec)[0]
    d = tiling_decision(spec, product, shape, dt)
    # a reduce epilogue's 32-byte tile sum block comes off the budget before the per-element split
    block = product.ub_bytes - spec.tiling.ub_reserved_bytes - d.ub_budget_bytes
    lines = [
        # with a reduce epilogue the kernel tiles the elements it sums, not the (0-d) output
        (
            "tiling for output shape"
            if d.reduce_kind is None
            else "tiling for the elementwise shape before the reduction"
        )
        + f" {list(shape)} ({d.total_length} element{'' if d.total_length == 1 else 's'}), "
        f"dtype {d.dtype}, "
        f"tiling key {d.tiling_key}:",
        f"  UB budget: {d.ub_budget_bytes} bytes ({product.ub_bytes} - {spec.tiling.ub_reserved_bytes} reserved"
        + (f" - {block} fp32 tile sum block)" if block else ")"),
        f"  bytes per element: {d.bytes_per_element}",
    ]
    for name, count, each in d.ub_split:
        lines.append(f"    {name}: {count} x {each} bytes")
    lines += [
        f"  UB used: {d.ub_used_bytes} bytes ({100 * d.ub_used_bytes / product.ub_bytes:.1f}% of UB)",
        f"  tile length: {d.tile_length} elements",
        f"  cores used (blockDim): {d.block_dim} of {product.vector_core_num}; "
        + (
            f"former cores {d.former_num} x {d.former_length} elements, others {d.tail_length}"
            if d.former_num
            else f"{d.tail_length} elements each"  # an even split: no former cores
        )
        + (
            " (whole 32-byte blocks; the last core's share ends at the tensor's end)"
            if d.former_num * d.former_length + (d.block_dim - d.former_num) * d.tail_length > d.total_length
            else ""
        ),
        f"  tiles per core (max): {d.tiles_per_core_max}",
        f"  queue buffers: {d.in_buffer_num} per input queue, {d.out_buffer_num} per output queue",
        f"  workspace: {d.workspace_bytes} bytes ({product.sys_workspace_bytes} system workspace "
        f"(GetLibApiWorkSpaceSize) + {d.workspace_bytes - product.sys_workspace_bytes} user)",
        "  strategy: streaming elementwise; "
        + (
            "DataCopyPad for the tail"
            if product.data_copy_pad
            else "DataCopy of whole blocks + scalar tail (no DataCopyPad)"
        ),
    ]
    lines += _combine_lines(spec, product, d)
    return "\n".join(lines)


def _combine_lines(spec: OpSpec, product: Product, d: Any) -> list[str]:
    """The whole-tensor combine of a reduce epilogue under the attr's default (mean or sum): cores, tiles per
    core, workspace bytes and the combine order; nothing for an op without an epilogue or a default of none."""
    from codegen.families.elementwise.plan.reduce import PARTIAL_SLOT_BYTES, REDUCE_KIND_MEAN, reduce_of

    red = reduce_of(spec)
    if red is None or not d.reduce_kind:
        return []
    kind = "mean" if d.reduce_kind == REDUCE_KIND_MEAN else "sum"
    value = red.mean if kind == "mean" else red.sum
    barrier = (
        "SyncAll (hardware barrier)"
        if product.hw_sync_all
        else "no barrier: the product has no hardware SyncAll, so one core sums everything"
    )
    return [
        f"  whole-tensor combine ({red.attr} = {value}, {kind}): {d.block_dim} cores, up to "
        f"{d.tiles_per_core_max} tiles per core, each tile's fp32 formula values summed and added to the core's "
        "fp32 partial in tile order",
        f"    partials: {d.block_dim} x {PARTIAL_SLOT_BYTES}-byte workspace slots = "
        f"{d.block_dim * PARTIAL_SLOT_BYTES} user workspace bytes; {barrier}",
        f"    combine order: core 0 sums the {d.block_dim} slots as it sums a tile (fixed: bit-identical over "
        "core orders and runs)" + (f", then divides by {d.total_length}" if kind == "mean" else ""),
    ]


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.elementwise import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
