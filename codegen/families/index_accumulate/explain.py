"""``opgen explain`` for the index-accumulate family: the shape is ``numWeights,D[,N]`` (output rows, row
width, source rows; N defaults to numWeights); the tiling section is the planner's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.check.constraints import TensorStandIn
from codegen.families.index_accumulate.compute import IndexAccumulateCompute
from codegen.families.index_accumulate.plan.roles import index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.tiling_report import explain_tiling
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: rows ``[N, D]``, indices ``[N]`` (INT64 when accepted), the output
    ``[numWeights, D]``, the row-count attr ``numWeights``, count scaling on (as the tiling shown) and no
    padding row unless the attr has a default."""
    env: dict[str, object] = {}
    assumed: list[str] = []
    set_attrs: dict[str, object] = {}
    comp = spec.compute
    assert isinstance(comp, IndexAccumulateCompute)
    num_rows, d = shape[0], shape[1]
    n = shape[2] if len(shape) == 3 else num_rows
    grad = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    idxs = index_dtypes(spec)
    env[comp.rows] = TensorStandIn((n, d), grad)
    env[comp.index] = TensorStandIn((n,), DType.INT64 if DType.INT64 in idxs else idxs[0])
    env[comp.accumulate] = TensorStandIn((num_rows, d), grad)
    set_attrs[comp.num_rows] = num_rows
    if comp.count_scaling is not None:
        set_attrs[comp.count_scaling] = True
        assumed.append(f"{comp.count_scaling} true")
    if comp.padding is not None:
        set_attrs[comp.padding] = -1
    return env, assumed, set_attrs


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The grad ``[N, D]`` and the output ``[numWeights, D]`` of shape ``numWeights,D[,N]``.

    Raises:
        ValueError: the shape has not 2 or 3 dims.
    """
    if len(shape) not in (2, 3):
        raise ValueError(f"give the shape as numWeights,D or numWeights,D,N; got {list(shape)}")
    n = shape[2] if len(shape) == 3 else shape[0]
    return [(f"grad [{n}, {shape[1]}]", (n, shape[1])), (f"out [{shape[0]}, {shape[1]}]", shape[:2])]


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.index_accumulate import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
