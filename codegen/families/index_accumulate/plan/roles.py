"""The spec's tensors and attrs by their role in the index-accumulate compute model: the model itself, the
dtypes of the rows and index inputs in the spec's order (their positions are the tiling key's digits), and
where the host functions find each role in the OpDef."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.compute import IndexAccumulateCompute
from codegen.spec.model import DType, OpSpec


def compute_of(spec: OpSpec) -> IndexAccumulateCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the index_accumulate family (its compute is another model).
    """
    return spec.compute_as(IndexAccumulateCompute)


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the rows input in spec order (the grad digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).rows).dtypes)


def index_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the index input in spec order (the index digit of the tiling key is the position)."""
    return list(spec.tensor(compute_of(spec).index).dtypes)


@dataclass(frozen=True)
class RolePositions:
    """Where the infershape and tiling functions find each role in the OpDef: ``rows`` and ``index``, the
    inputs' positions; ``num_rows``, ``padding`` and ``scaling``, the attrs' indexes (-1: the spec has no
    such attr)."""

    rows: int
    index: int
    num_rows: int
    padding: int
    scaling: int


def role_positions(spec: OpSpec) -> RolePositions:
    """The OpDef positions of the roles of ``spec`` (inputs and attrs in the spec's order, as the OpDef
    registers them).

    Raises:
        TypeError: the spec is not of the index_accumulate family.
    """
    comp = compute_of(spec)
    attrs = spec.attr_names
    return RolePositions(
        rows=spec.input_names.index(comp.rows),
        index=spec.input_names.index(comp.index),
        num_rows=attrs.index(comp.num_rows),
        padding=attrs.index(comp.padding) if comp.padding else -1,
        scaling=attrs.index(comp.count_scaling) if comp.count_scaling else -1,
    )
