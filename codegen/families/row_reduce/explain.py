"""``opgen explain`` for the row-reduce family: the shape is the tensors' shape ``d0,...,dn``, reduced along
the last dim (``rows`` form: the input broadcast over the rows has the shape ``[dn]``); the tiling section is
the planner's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen.check.constraints import TensorStandIn
from codegen.families.row_reduce.plan.tensors import compute_of, default_combo, row_dtypes, row_outputs
from codegen.families.row_reduce.plan.tiling_report import explain_tiling, split_shape
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: every input and output of the given dims and of the product's first
    dtype combination whose first input has the given dtype (default the first listed), the dim attr -1 (the
    last dim); ``rows`` form: the input broadcast over the rows of the last dim's shape (an int_array ``rows``
    attr: the list of that one dim, in ``set_attrs``), an output with one value per row of the dims with the
    last set to 1. A host input (``device.host_inputs``) is left out: null, as the device op never sees it."""
    spec = spec.launched()
    dims, dim = split_shape(shape)
    dtype = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    # on a product the op does not list no combination is allowed; the report still shows the call
    combo = default_combo(spec, dtype, product if product.name in spec.products else None)
    rows = compute_of(spec).rows
    shapes = dict(_shapes(spec, dims))
    env: dict[str, object] = {
        t.name: TensorStandIn(shapes[t.name], combo.dtype(t.name)) for t in (*spec.inputs, *spec.outputs)
    }
    if rows:  # an int_array ``rows`` attr (normalized trailing dims) gets the last dim's size
        attr = compute_of(spec).rows_attr
        return env, [f"{rows} {list(dims[-1:])} (rows of the last dim)"], {attr: list(dims[-1:])} if attr else {}
    return env, [f"{compute_of(spec).dim} {dim} (the last dim)"], {compute_of(spec).dim: dim}


def _shapes(spec: OpSpec, dims: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    broadcast = set(compute_of(spec).row_inputs)
    per_row = set(row_outputs(spec)) | set(compute_of(spec).per_row_inputs)  # one value per row

    def one(name: str) -> tuple[int, ...]:
        if name in broadcast:
            return dims[-1:]
        return (*dims[:-1], 1) if name in per_row else dims

    return [(t.name, one(t.name)) for t in (*spec.inputs, *spec.outputs)]


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """Every tensor, of shape ``d0,...,dn`` (the broadcast input ``[dn]``, a per-row output ``d0,...,1``;
    ``()``: 0-d tensors, reduced along dim -1 as CANN's ``[-1, 0]`` range allows); their ranks are checked by
    :func:`codegen.explain.check_ranks`.

    Raises:
        ValueError: ``rows`` form with a last dim of 0: the broadcast input would be empty, which the L2 API
            refuses with the spec's ``shape_status``.
    """
    dims, _ = split_shape(shape)
    rows = compute_of(spec).rows
    if rows and dims and dims[-1] == 0:
        raise ValueError(
            f"{rows} {list(dims[-1:])} would be empty: {spec.aclnn_name} refuses an empty {rows} "
            f"(status {spec.shape_status}); give a last dim of at least 1"
        )
    return [(f"{name} {list(d)}", d) for name, d in _shapes(spec, dims)]


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.row_reduce import explain as _self
    from codegen.registry import contract

    _contract: contract.Explain = _self
