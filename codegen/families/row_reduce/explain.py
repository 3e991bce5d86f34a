"""``opgen explain`` for the row-reduce family: the shape is the tensors' shape ``d0,...,dn``, reduced along
the last dim (``rows`` form: the input broadcast over the rows has the shape ``[dn]``); the tiling section is
the planner's."""

from __future__ import annotations

from codegen.check.constraints import TensorStandIn
from codegen.families.row_reduce.plan import _split_shape, compute_of, explain_tiling, row_dtypes
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["explain_tensors", "explain_tiling", "shape_call"]


def shape_call(
    spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None
) -> tuple[dict[str, object], list[str], dict[str, object]]:
    """``(tensors, assumed, set_attrs)``: every input and output of the given dims and dtype (default the
    first listed), the dim attr -1 (the last dim); ``rows`` form: the input broadcast over the rows of the
    last dim's shape."""
    dims, dim = _split_shape(shape)
    dtype = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    rows = compute_of(spec).rows
    env: dict[str, object] = {
        t.name: TensorStandIn(dims[-1:] if t.name == rows else dims, dtype) for t in (*spec.inputs, *spec.outputs)
    }
    if rows:
        return env, [f"{rows} {list(dims[-1:])} (rows of the last dim)"], {}
    return env, [f"{compute_of(spec).dim} {dim} (the last dim)"], {compute_of(spec).dim: dim}


def explain_tensors(spec: OpSpec, shape: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """Every tensor, of shape ``d0,...,dn`` (``()``: 0-d tensors, reduced along dim -1 as CANN's
    ``[-1, 0]`` range allows); their ranks are checked by :func:`codegen.explain.check_ranks`."""
    dims, _ = _split_shape(shape)
    rows = compute_of(spec).rows
    shapes = [(t.name, dims[-1:] if t.name == rows else dims) for t in (*spec.inputs, *spec.outputs)]
    return [(f"{name} {list(d)}", d) for name, d in shapes]
