"""The op_host unit-test cases of a row gather: the tiling cases and the infershape cases."""

from __future__ import annotations

from codegen.families.gather_scatter.compute import GatherScatterCompute
from codegen.families.gather_scatter.plan.tiling import tiling_decision
from codegen.plan import unit_tests as ut
from codegen.spec.model import DType, OpSpec, Product

#: Tiling cases: (source shape, dim, index count): rows of 7 elements along the middle dim, a last-dim gather
#: (rows of one element) over many cores, and rows larger than a tile (cut into chunks).
UT_CASES: tuple[tuple[tuple[int, ...], int, int], ...] = (
    ((4, 10, 7), 1, 5),
    ((64, 3000), -1, 2000),
    ((6, 300000), 0, 3),
)


def _compute(spec: OpSpec) -> GatherScatterCompute:
    assert isinstance(spec.compute, GatherScatterCompute)
    return spec.compute


def _replaced(shape: tuple[int, ...], dim: int, k: int) -> tuple[int, ...]:
    if not shape:
        return ()
    axis = dim % len(shape)
    return (*shape[:axis], k, *shape[axis + 1 :])


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """Every :data:`UT_CASES` entry on every product with the first source dtype and INT64 indices (else the
    first index dtype), plus the first case with INT32 indices when listed; expectations from
    :func:`tiling_decision`."""
    comp = _compute(spec)
    src = spec.tensor(comp.source).dtypes[0]
    idxs = spec.tensor(comp.index).dtypes
    wide = DType.INT64 if DType.INT64 in idxs else idxs[0]
    runs = [(c, wide) for c in UT_CASES] + ([(UT_CASES[0], DType.INT32)] if DType.INT32 in idxs else [])
    cases: list[ut.UtTilingCase] = []
    for p in products:
        for (shape, dim, k), index_dtype in runs:
            d = tiling_decision(spec, p, shape, dim, k, src, index_dtype)
            values = ut.ut_attr_values(spec)
            values[comp.dim] = dim
            by_source = {comp.source: ut.ut_tensor(shape, src), comp.index: ut.ut_tensor((k,), index_dtype)}
            cases.append(
                ut.ut_tiling_case(
                    p,
                    [src.name, index_dtype.name, "x".join(map(str, shape)), f"dim{dim % len(shape)}", k],
                    f"{comp.source} {src.name} {list(shape)}, dim {dim}, {comp.index} {index_dtype.name} [{k}]",
                    ut.ut_device_inputs(spec, by_source),
                    [ut.ut_tensor(_replaced(shape, dim, k), src)],
                    ut.ut_device_attrs(spec, values),
                    d,
                    deterministic=False,
                )
            )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """Infershape cases: [4, 10, 7] along dim 1 with 5 indices ([4, 5, 7]), along dim -1 with a 0-d index
    ([4, 10, 1]), a 0-d source ([] with one index: 0-d), and dim 3 of a rank-3 source (InferShape fails)."""
    comp = _compute(spec)
    src = spec.tensor(comp.source).dtypes[0]
    idx = DType.INT64 if DType.INT64 in spec.tensor(comp.index).dtypes else spec.tensor(comp.index).dtypes[0]
    out: list[ut.UtInferCase] = []
    cases: tuple[tuple[str, tuple[int, ...], int, tuple[int, ...], tuple[int, ...] | None], ...] = (
        ("MiddleDim", (4, 10, 7), 1, (5,), (4, 5, 7)),
        ("ScalarIndexLastDim", (4, 10, 7), -1, (), (4, 10, 1)),
        ("ScalarSource", (), 0, (1,), ()),
        ("RejectsDimOutOfRange", (4, 10, 7), 3, (5,), None),
    )
    for name, shape, dim, index_shape, expected in cases:
        values = ut.ut_attr_values(spec)
        values[comp.dim] = dim
        by_source = {comp.source: ut.ut_tensor(shape, src), comp.index: ut.ut_tensor(index_shape, idx)}
        out.append(
            ut.ut_infer_case(
                name,
                ut.ut_device_inputs(spec, by_source),
                ut.ut_device_attrs(spec, values),
                [(expected, src)] if expected is not None else None,
                f"{comp.source} {list(shape)}, dim {dim}, {comp.index} {list(index_shape)}",
            )
        )
    return out
