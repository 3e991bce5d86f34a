"""The shape rules a gather/scatter op's phase 1 applies beyond the spec's dtype lists, ranks, output shape rule
and constraints (which the spec loader checks on every call it makes): ``dim`` in range, the ranks and
extents an element gather or a scatter-add asks of its index, the positions an index fill names. The
generated L2 API applies them in this order (``templates/op_api/gather_scatter_aclnn.cpp.j2``, after ops-nn's
aclnn_index_select.cpp, aclnn_gather.cpp, aclnn_scatter.cpp and aclnn_index_fill_tensor.cpp); a call
breaking one gets ``ACLNN_ERR_PARAM_INVALID`` (161002)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codegen.families.gather_scatter.model import GatherScatterCompute


def _dim_problem(name: str, dim: object, shape: tuple[int, ...]) -> tuple[str, str] | None:
    """``dim`` outside ``[-r, r)`` (``r`` the rank of ``shape``, 1 for a 0-d tensor)."""
    rank = max(len(shape), 1)
    if isinstance(dim, int) and not -rank <= dim < rank:
        return name, f"{name} {dim} is outside [{-rank}, {rank}) for a rank-{len(shape)} source"
    return None


def _extent(shape: tuple[int, ...], i: int) -> float:
    """Dim ``i`` of ``shape``; below every extent where ``shape`` has no dim ``i`` (a 0-d tensor: the L2 API's
    ``op::Shape::GetDim`` gives ``kInvalidDimValue``, INT64_MIN, there)."""
    return shape[i] if i < len(shape) else -math.inf


def _rows_problem(
    c: GatherScatterCompute,
    source: tuple[int, ...],
    index: tuple[int, ...],
    src: tuple[int, ...] | None,
    dim: int,
    axis: int,
) -> tuple[str, str] | None:
    """A row scatter-add's rules in CANN's aclnnIndexAdd order: dim in range; source and src of one rank (unless
    the source is 0-d; a 0-d src counts as rank 1) and one extent outside dim; the index of rank 0 or 1 with
    as many elements as src has along dim (checked for empty calls too)."""
    if src is None:
        return None
    bad = _dim_problem(c.dim or "dim", dim, source)
    if bad is not None:
        return bad
    src_dims = src or (1,)
    if source and len(source) != len(src_dims):
        return c.src or "", f"{c.source} and {c.src} must have one rank, but have {len(source)} and {len(src)}"
    for i, extent in enumerate(source):
        if i != axis and extent != src_dims[i]:
            return c.src or "", f"{c.src}'s extent {src_dims[i]} of dim {i} is not {c.source}'s {extent}"
    if len(index) > 1:
        return c.index, f"{c.index} must have rank 0 or 1, but has rank {len(index)}"
    along = src_dims[min(axis, len(src_dims) - 1)]
    if math.prod(index) != along:
        return c.index, f"{c.index} has {math.prod(index)} elements, {c.src} {along} along {c.dim}"
    return None


def call_problem(
    c: GatherScatterCompute, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 rules the call of ``shapes`` (tensor name -> dims) and ``attrs``
    (attr name -> value) breaks, as ``(the input or attr at fault, why)``, or None:

    - an attr dim (row gather, element gather, scatter-add, fill): in ``[-r, r)``, ``r`` the source's rank
      (1 for a 0-d source);
    - an element gather: the index of the source's rank (0-d counts as 1); a non-empty index at most the
      source's extents outside dim, and a source extent along dim other than 0;
    - a scatter-add with a non-empty index (an empty one is checked no further): source, index and src of
      one rank; each index extent at most src's and, outside dim, at most the source's;
    - a row scatter-add (index_add): :func:`_rows_problem`;
    - a fill of a non-empty source: each position of the index array within ``[-A, A)`` (``A`` the source's
      extent along dim, 1 for a 0-d source).

    A tensor or attr missing from the call is not judged."""
    source = shapes.get(c.source)
    dim = attrs.get(c.dim) if c.dim is not None else None
    if source is None or c.dim is None or isinstance(dim, bool) or not isinstance(dim, int):
        return None
    rank = max(len(source), 1)
    axis = dim + rank if dim < 0 else dim  # as the L2 API computes it, before it checks dim's range
    if c.fill:
        if math.prod(source) == 0:
            return None
        bad = _dim_problem(c.dim, dim, source)
        if bad is not None:
            return bad
        extent = source[axis] if source else 1
        positions = attrs.get(c.index)
        for p in positions if isinstance(positions, Sequence) else ():
            if isinstance(p, int) and not -extent <= p < extent:
                return (
                    c.index,
                    f"position {p} of {c.index} is outside [{-extent}, {extent}), {c.source}'s extent along {c.dim}",
                )
        return None
    index = shapes.get(c.index)
    if index is None:
        return None
    if c.rows:
        return _rows_problem(c, source, index, shapes.get(c.src or ""), dim, axis)
    if c.scatter:
        src = shapes.get(c.src or "")
        if src is None or math.prod(index) == 0:
            return None
        if max(len(index), 1) != rank or max(len(src), 1) != rank:
            return (
                c.index,
                f"{c.source}, {c.index} and {c.src} must have one rank, but have {len(source)}, {len(index)} and "
                f"{len(src)}",
            )
        for i, extent in enumerate(index):  # a 0-d tensor has no extent there: any extent exceeds it
            if extent > _extent(src, i) or (i != axis and extent > _extent(source, i)):
                return (
                    c.index,
                    f"{c.index}'s extent {extent} of dim {i} exceeds {c.src}'s or (outside {c.dim}) {c.source}'s",
                )
        return _dim_problem(c.dim, dim, source)
    if c.elements:
        if max(len(index), 1) != rank:
            return c.index, f"{c.index} has rank {len(index)}, not {c.source}'s {len(source)}"
        bad = _dim_problem(c.dim, dim, source)
        if bad is not None or math.prod(index) == 0:
            return bad
        for i, extent in enumerate(source):
            if i != axis and _extent(index, i) > extent:
                return c.index, f"{c.index}'s extent {index[i]} of dim {i} exceeds {c.source}'s {extent}"
            if i == axis and extent == 0:
                return c.source, f"{c.source} has no element along {c.dim} {dim}"
        return None
    return _dim_problem(c.dim, dim, source)
