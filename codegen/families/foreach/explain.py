"""``opgen explain`` for the foreach family: the shape is that of the one tensor of a one-tensor list (the
explained call's ``x = [tensor of shape]``); the tiling section is the planner's (:mod:`.plan.tiling`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from codegen.check.constraints import TensorStandIn
from codegen.families.foreach.compute import ForeachCompute
from codegen.families.foreach.plan.tiling import list_buffers, op_compute_dtype, output_tiles, tiling_decision
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def _compute(spec: OpSpec) -> ForeachCompute:
    assert isinstance(spec.compute, ForeachCompute)
    return spec.compute


def _dtype(spec: OpSpec, dtype_name: str | None) -> DType:
    return DType[dtype_name] if dtype_name else spec.tensor(_compute(spec).source).dtypes[0]


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: each list as its one tensor of ``shape`` (the op has no attr)."""
    comp = _compute(spec)
    dt = _dtype(spec, dtype_name)
    env: dict[str, object] = {n: TensorStandIn(shape, dt) for n in (*comp.sources, comp.dest)}
    return env, [f"lists of one tensor of {list(shape)}"], {}


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The one tensor of each list, of ``shape``."""
    comp = _compute(spec)
    return [(f"{n}[0] {list(shape)}", shape) for n in (*comp.sources, comp.dest)]


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling of a one-tensor list of ``shape`` on ``product``, as lines: key, cores, the UB tile and each
    core's share; for a tensor without elements, a line saying the call launches nothing."""
    dt = _dtype(spec, dtype_name)
    n = math.prod(shape)
    head = f"tiling for a list of one {list(shape)} tensor ({dt.name})"
    if n == 0:
        return f"{head}: none (the list holds no element; the aclnn API launches nothing)"
    t = tiling_decision(spec, product, (n,), dt)
    wide = op_compute_dtype(spec, dt)
    inputs = len(_compute(spec).sources)
    cast = f" and {inputs} {wide.name} tile(s) (computed in {wide.name})" if wide is not dt else ""
    outs = output_tiles(spec)
    buffers = list_buffers(spec, product)
    out_text = (
        f"{buffers * outs} output tiles" if outs else "no output tile (the result is copied out of an input tile)"
    )
    ub_bytes = t.inputs_tensor_ub_size * (
        (inputs + outs) * buffers * dt.itemsize + (inputs * wide.itemsize if wide is not dt else 0)
    )
    lines = [
        f"{head}: tiling key {t.tiling_key}, blockDim {t.block_dim} of {product.vector_core_num}, workspace "
        f"{t.workspace_bytes} bytes (system workspace only)",
        f"  UB: {buffers} tile(s) per input list ({inputs}) and {out_text}, of "
        f"{t.inputs_tensor_ub_size} elements{cast}: {ub_bytes} of {product.ub_bytes} bytes"
        + (
            f" ({spec.tiling.ub_reserved_bytes} kept back: the spec's ub_reserved_bytes)"
            if spec.tiling.ub_reserved_bytes
            else ""
        ),
        f"  cores: {t.split.cores[0].blocks} block(s) of {t.split.block_elements} elements on the first core, "
        f"balance {t.split.balance():.3f} (largest core's blocks over the mean)",
    ]
    return "\n".join(lines)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocol (codegen.registry.contract)
    from codegen.families.foreach import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
