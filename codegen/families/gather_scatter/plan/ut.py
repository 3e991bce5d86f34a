"""The op_host unit-test cases of a row gather: the tiling cases and the infershape cases."""

from __future__ import annotations

import math

from codegen.families.gather_scatter.model import FILL_INDEX_DTYPE, GatherScatterCompute
from codegen.families.gather_scatter.plan.fill import fill_decision
from codegen.families.gather_scatter.plan.scatter import scatter_ut_infer_cases, scatter_ut_tiling_cases
from codegen.families.gather_scatter.plan.tiling import elements_decision, tiling_decision
from codegen.plan import unit_tests as ut
from codegen.spec.model import DType, OpSpec, Product

#: Tiling cases of an attr dim: (source shape, dim, index shape): rows of 7 elements along the middle dim, a
#: last-dim gather (rows of one element) over many cores, and rows larger than a tile (cut into chunks).
UT_CASES: tuple[tuple[tuple[int, ...], int, tuple[int, ...]], ...] = (
    ((4, 10, 7), 1, (5,)),
    ((64, 3000), -1, (2000,)),
    ((6, 300000), 0, (3,)),
)
#: Tiling cases of a constant or flattened dim (the dim is the spec's): rows of 7 elements with a 2-d index,
#: many rows of 2 elements over many cores, rows larger than a tile.
#: Tiling cases of an element gather: (source shape, dim, index shape): the source's shape along the middle
#: dim, an index smaller outside dim along the last dim over many cores, a 0-d source and index.
UT_CASES_ELEMENTS: tuple[tuple[tuple[int, ...], int, tuple[int, ...]], ...] = (
    ((4, 10, 7), 1, (4, 10, 7)),
    ((64, 3000), -1, (60, 2000)),
    ((), 0, ()),
)
UT_CASES_CONST: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((10, 7), (5, 3)),
    ((3000, 2), (40, 50)),
    ((6, 300000), (3,)),
)


#: Tiling cases of a fill: (source shape, dim, positions): rows of 7 elements along the middle dim, the last dim
#: of a large source over many cores, slices larger than a tile.
UT_CASES_FILL: tuple[tuple[tuple[int, ...], int, int], ...] = (
    ((4, 10, 7), 1, 3),
    ((64, 3000), -1, 20),
    ((6, 300000), 0, 2),
)


def _fill_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """Every :data:`UT_CASES_FILL` case on every product with the first source dtype; expectations from
    :func:`fill_decision`."""
    comp = _compute(spec)
    assert comp.dim is not None
    src = spec.tensor(comp.source).dtypes[0]
    cases: list[ut.UtTilingCase] = []
    for p in products:
        for shape, dim, k in UT_CASES_FILL:
            d = fill_decision(spec, p, shape, dim, k, src)
            values = ut.ut_attr_values(spec)
            values[comp.dim] = dim % len(shape)
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [src.name, "x".join(map(str, shape)), f"dim{dim % len(shape)}", k],
                    f"{comp.source} {src.name} {list(shape)}, dim {dim}, {k} positions",
                    ut.ut_device_inputs(spec, _fill_inputs(comp, shape, k, src)),
                    [ut.ut_tensor(shape, src)],
                    ut.ut_device_attrs(spec, values),
                    d,
                    deterministic=False,
                )
            )
    return cases


def _fill_inputs(comp: GatherScatterCompute, shape: tuple[int, ...], k: int, src: DType) -> dict[str, ut.UtTensor]:
    """The device inputs of a fill by the aclnn names they carry: the source, ``k`` INT64 positions, one value."""
    assert comp.value is not None
    return {
        comp.source: ut.ut_tensor(shape, src),
        comp.index: ut.ut_tensor((k,), FILL_INDEX_DTYPE),
        comp.value: ut.ut_tensor((), src),
    }


def _fill_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """A fill's output has the source's shape: [4, 10, 7] along dim 1, a 0-d source."""
    comp = _compute(spec)
    assert comp.dim is not None
    src = spec.tensor(comp.source).dtypes[0]
    out: list[ut.UtInferCase] = []
    for name, shape, dim in (("SourceShape", (4, 10, 7), 1), ("ScalarSource", (), 0)):
        values = ut.ut_attr_values(spec)
        values[comp.dim] = dim
        out.append(
            ut.ut_infer_case(
                name,
                ut.ut_device_inputs(spec, _fill_inputs(comp, shape, 2, src)),
                ut.ut_device_attrs(spec, values),
                [(shape, src)],
                f"{comp.source} {list(shape)}, dim {dim}, 2 positions",
            )
        )
    return out


def _compute(spec: OpSpec) -> GatherScatterCompute:
    assert isinstance(spec.compute, GatherScatterCompute)
    return spec.compute


def _runs(comp: GatherScatterCompute) -> list[tuple[tuple[int, ...], int | None, tuple[int, ...]]]:
    """``(source shape, attr dim or None, index shape)`` of every tiling case of ``comp``'s dim kind."""
    if comp.elements:
        return [(shape, dim, idx) for shape, dim, idx in UT_CASES_ELEMENTS]
    if comp.dim is not None:
        return [(shape, dim, idx) for shape, dim, idx in UT_CASES]
    return [(shape, None, idx) for shape, idx in UT_CASES_CONST]


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """Every case of the dim kind (:data:`UT_CASES` for an attr dim, else :data:`UT_CASES_CONST`) on every
    product with the first source dtype and INT64 indices (else the first index dtype), plus the first case
    with INT32 indices when listed; expectations from :func:`tiling_decision`."""
    comp = _compute(spec)
    if comp.fill:
        return _fill_tiling_cases(spec, products)
    if comp.scatter:
        return scatter_ut_tiling_cases(spec, comp, products)
    src = spec.tensor(comp.source).dtypes[0]
    idxs = spec.tensor(comp.index).dtypes
    wide = DType.INT64 if DType.INT64 in idxs else idxs[0]
    cases_of_kind = _runs(comp)
    runs = [(c, wide) for c in cases_of_kind] + ([(cases_of_kind[0], DType.INT32)] if DType.INT32 in idxs else [])
    cases: list[ut.UtTilingCase] = []
    for p in products:
        for (shape, dim, index_shape), index_dtype in runs:
            view, axis = comp.view(shape, dim)
            k = int(math.prod(index_shape))
            if comp.elements:
                assert dim is not None
                d = elements_decision(spec, p, shape, index_shape, dim, src, index_dtype)
            else:
                d = tiling_decision(spec, p, view, axis, k, src, index_dtype)
            values = ut.ut_attr_values(spec)
            if comp.dim is not None:
                values[comp.dim] = axis
            by_source = {comp.source: ut.ut_tensor(shape, src), comp.index: ut.ut_tensor(index_shape, index_dtype)}
            dim_words = f"dim {dim}, " if dim is not None else ""
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [src.name, index_dtype.name, "x".join(map(str, shape)), f"dim{axis % max(len(view), 1)}", k],
                    f"{comp.source} {src.name} {list(shape)}, {dim_words}{comp.index} {index_dtype.name} "
                    f"{list(index_shape)}",
                    ut.ut_device_inputs(spec, by_source),
                    [ut.ut_tensor(comp.out_shape(shape, index_shape, dim), src)],
                    ut.ut_device_attrs(spec, values),
                    d,
                    deterministic=False,
                )
            )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """Infershape cases. An element gather: index's shape ([4, 10, 7] by [4, 3, 7]), a 0-d source and index, a
    rank mismatch and dim 3 of a rank-3 source (InferShape fails). An attr dim: [4, 10, 7] along dim 1 with 5
    indices ([4, 5, 7]), along dim -1 with a 0-d index ([4, 10, 1]), a 0-d source ([] with one index: 0-d),
    and dim 3 of a rank-3 source (InferShape fails). A constant dim: a [10, 7] source with a [5, 3] index and
    with a 0-d index (the rule's shapes), and, for a flattened source, a [2, 3] index; a 0-d source fails where
    the constant dim needs a dim."""
    comp = _compute(spec)
    if comp.fill:
        return _fill_infer_cases(spec)
    if comp.scatter:
        return scatter_ut_infer_cases(spec, comp)
    src = spec.tensor(comp.source).dtypes[0]
    idx = DType.INT64 if DType.INT64 in spec.tensor(comp.index).dtypes else spec.tensor(comp.index).dtypes[0]
    out: list[ut.UtInferCase] = []
    cases: tuple[tuple[str, tuple[int, ...], int | None, tuple[int, ...], tuple[int, ...] | None], ...]
    if comp.elements:
        cases = (
            ("IndexShape", (4, 10, 7), 1, (4, 3, 7), (4, 3, 7)),
            ("ScalarIndex", (), -1, (), ()),
            ("RejectsRankMismatch", (4, 10, 7), 1, (5,), None),
            ("RejectsDimOutOfRange", (4, 10, 7), 3, (4, 10, 7), None),
        )
    elif comp.dim is not None:
        cases = (
            ("MiddleDim", (4, 10, 7), 1, (5,), (4, 5, 7)),
            ("ScalarIndexLastDim", (4, 10, 7), -1, (), (4, 10, 1)),
            ("ScalarSource", (), 0, (1,), ()),
            ("RejectsDimOutOfRange", (4, 10, 7), 3, (5,), None),
        )
    elif comp.flatten:
        cases = (
            ("MatrixIndex", (10, 7), None, (5, 3), (5, 3)),
            ("ScalarIndex", (10, 7), None, (), ()),
            ("ScalarSource", (), None, (2, 3), (2, 3)),
        )
    else:
        cases = (
            ("MatrixIndex", (10, 7), None, (5, 3), comp.out_shape((10, 7), (5, 3))),
            ("ScalarIndex", (10, 7), None, (), comp.out_shape((10, 7), ())),
            ("RejectsScalarSource", (), None, (5,), None),
        )
    for name, shape, dim, index_shape, expected in cases:
        values = ut.ut_attr_values(spec)
        if comp.dim is not None:
            values[comp.dim] = dim if dim is not None else 0
        by_source = {comp.source: ut.ut_tensor(shape, src), comp.index: ut.ut_tensor(index_shape, idx)}
        dim_words = f"dim {dim}, " if dim is not None else ""
        out.append(
            ut.ut_infer_case(
                name,
                ut.ut_device_inputs(spec, by_source),
                ut.ut_device_attrs(spec, values),
                [(expected, src)] if expected is not None else None,
                f"{comp.source} {list(shape)}, {dim_words}{comp.index} {list(index_shape)}",
            )
        )
    return out
