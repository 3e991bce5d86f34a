"""The op_host unit-test cases of a foreach op: the tiling cases and the infershape cases. The shared unit-test
templates describe a call with one instance per IR input, so each case's lists hold one tensor; lists of
several tensors are tiled and checked by ``opgen check`` (the tiling's offset table against the planner)."""

from __future__ import annotations

import math

from codegen.families.foreach.compute import ForeachCompute
from codegen.families.foreach.plan.tiling import tiling_decision
from codegen.plan import unit_tests as ut
from codegen.spec.model import DType, OpSpec, Product

#: Tiling cases (one tensor's shape): a small tensor on one core, a tensor split over many cores with a partial
#: last block, an empty tensor (no launch) and a 0-d tensor.
UT_SHAPES: tuple[tuple[int, ...], ...] = ((4, 10, 7), (3000, 1001), (0, 5), ())
#: Infershape cases (one tensor's shape): a matrix, a 0-d and an empty tensor.
UT_INFER_SHAPES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("MatrixTensor", (4, 10)),
    ("ZeroDimTensor", ()),
    ("EmptyTensor", (0, 3)),
)


def _compute(spec: OpSpec) -> ForeachCompute:
    assert isinstance(spec.compute, ForeachCompute)
    return spec.compute


def _inputs(spec: OpSpec, shape: tuple[int, ...], dtype: DType) -> list[ut.UtTensor]:
    """The device inputs of a one-tensor call in device order: a tensor of ``shape`` per input list, and for a
    scalar form the scalar's one-element tensor (of its OpDef column's dtype)."""
    out = []
    for d in spec.device_interface.inputs:
        like = d.like_dtype(dtype) if d.like is not None else None
        out.append(ut.ut_tensor((1,), like) if like is not None else ut.ut_tensor(shape, dtype))
    return out


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[ut.UtTilingCase]:
    """Every shape of :data:`UT_SHAPES` as a one-tensor list on every product, in each dtype of the input list;
    expectations from :func:`tiling_decision`."""
    comp = _compute(spec)
    cases: list[ut.UtTilingCase] = []
    for p in products:
        for dtype in spec.tensor(comp.source).dtypes_for(p):
            for shape in UT_SHAPES:
                d = tiling_decision(spec, p, (math.prod(shape),), dtype)
                cases.append(
                    ut.ut_tiling_case(
                        p,
                        [dtype.name, "x".join(map(str, shape)) or "scalar"],
                        f"{comp.source}: one {dtype.name} tensor {list(shape)}",
                        _inputs(spec, shape, dtype),
                        [ut.ut_tensor(shape, dtype)],
                        [],
                        d,
                        deterministic=False,
                    )
                )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[ut.UtInferCase]:
    """Infershape cases (:data:`UT_INFER_SHAPES`): the output tensor has its input's shape and dtype."""
    comp = _compute(spec)
    dtype = spec.tensor(comp.source).dtypes[0]
    return [
        ut.ut_infer_case(name, _inputs(spec, shape, dtype), [], [(shape, dtype)], f"one tensor {list(shape)}")
        for name, shape in UT_INFER_SHAPES
    ]
