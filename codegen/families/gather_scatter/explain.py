"""``opgen explain`` for the gather/scatter family: the shape is the source's; the call gathers along dim 0
with as many indices as that dim's extent (INT64 where listed); the tiling section is the planner's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.check.constraints import TensorStandIn
from codegen.families.gather_scatter.compute import GatherScatterCompute
from codegen.families.gather_scatter.plan.tiling import TILE_BUFFERS, tiling_decision
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


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: the source of ``shape``, ``shape[0]`` indices (one for a 0-d shape),
    the output of the source's shape, dim 0."""
    comp = _compute(spec)
    k = shape[0] if shape else 1
    dt = _dtype(spec, dtype_name)
    env: dict[str, object] = {
        comp.source: TensorStandIn(shape, dt),
        comp.index: TensorStandIn((k,), _index_dtype(spec)),
        comp.dest: TensorStandIn(shape, dt),
    }
    return env, [f"{comp.dim} 0 with {k} indices"], {comp.dim: 0}


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The source and the output of ``shape`` (gathered along dim 0 with ``shape[0]`` indices)."""
    comp = _compute(spec)
    return [(f"{comp.source} {list(shape)}", shape), (f"{comp.dest} {list(shape)}", shape)]


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling of a gather along dim 0 of a source of ``shape`` with ``shape[0]`` indices, as lines.

    Raises:
        ValueError: the call has no output element.
    """
    dt = _dtype(spec, dtype_name)
    k = shape[0] if shape else 1
    t = tiling_decision(spec, product, shape, 0, k, dt, _index_dtype(spec))
    return "\n".join(
        [
            f"tiling for {list(shape)} ({dt.name}) gathered along dim 0 with {k} indices: P {t.outer}, A "
            f"{t.axis_len}, Q {t.inner}; tiling key {t.tiling_key}, blockDim {t.block_dim} of "
            f"{product.vector_core_num}, workspace {product.sys_workspace_bytes} bytes (system workspace only)",
            f"  UB: {TILE_BUFFERS} tiles of {t.slot_bytes * t.tile_rows} bytes; rows in slots of {t.slot_bytes} bytes, "
            f"{t.tile_rows} rows per tile (one DMA writes a tile); {t.chunk_num} chunk(s) of {t.chunk_len} elements "
            "per row",
            f"  cores: {t.units_per_core} unit(s) per core, the first {t.units_former_num} one more",
        ]
    )


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
