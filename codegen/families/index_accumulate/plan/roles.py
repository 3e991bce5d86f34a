"""The spec's tensors by their role in the index-accumulate compute model: the model itself and the dtypes
of the rows and index inputs, in the spec's order (their positions are the tiling key's digits)."""

from __future__ import annotations

from codegen.families.index_accumulate.compute import IndexAccumulateCompute
from codegen.spec.model import DType, OpSpec


def compute_of(spec: OpSpec) -> IndexAccumulateCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the index_accumulate family (its compute is another model).
    """
    if not isinstance(spec.compute, IndexAccumulateCompute):
        raise TypeError(f"{spec.op}: compute is {type(spec.compute).__name__}, not IndexAccumulateCompute")
    return spec.compute


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the rows input in spec order (the grad digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).rows).dtypes)


def index_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the index input in spec order (the index digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).index).dtypes)
