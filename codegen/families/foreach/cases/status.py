"""The status cases of a foreach op, per CANN's foreach document and API order (null lists and null tensors
inside a list 161001; then a product without a kernel, the first tensor's dtype, any tensor of either list of
another dtype than the first, lists of different sizes, ranks above 8, ``out[i]`` of another shape than
``x[i]`` and private formats 161002), a scalar's dtype against the list's (with empty lists any dtype is accepted, as
ops-nn's V2 APIs check it against a non-empty list's only),
the phase-1/phase-2 misuses, and the derived status matrix
(:func:`codegen.check.status_matrix.status_matrix`, which converts or reshapes a list's tensors)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.check.status_matrix import status_matrix
from codegen.families.foreach.cases.values import CASE_SCALAR, scalar_dtype
from codegen.families.foreach.compute import ForeachCompute
from codegen.plan.tensor_lists import MAX_LIST_TENSORS
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.model import DType, OpSpec, Product


def status_cases(spec: OpSpec, product: Product, dtypes: list[DType]) -> Iterator[Case]:
    """The status cases with the first of ``dtypes`` (the list's dtypes on the product)."""
    comp = spec.compute
    assert isinstance(comp, ForeachCompute)
    x, out = comp.source, comp.dest
    dt = dtypes[0]
    np_dt = numpy_dtype(dt)
    label = dt.name

    def case(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(spec.snake, product.name, label, "error", name, params, expect_status=code, mode=mode)

    def good(**over: Any) -> dict[str, Any]:
        xs = (np.ones((2, 3), np_dt), np.ones((5,), np_dt))
        outs = (np.zeros((2, 3), np_dt), np.zeros((5,), np_dt))
        p: dict[str, Any] = {n: tuple(np.full(a.shape, k + 1, np_dt) for a in xs) for k, n in enumerate(comp.sources)}
        p[out] = outs
        if comp.scalar is not None:
            p[comp.scalar] = ScalarArg(CASE_SCALAR, kernel_scalar.name if kernel_scalar else "DOUBLE")
        p.update(over)
        return p

    kernel_scalar = scalar_dtype(spec, dt)

    base = good()
    other = next(d for d in (DType.FLOAT16, DType.FLOAT) if d is not dt)
    o_dt = numpy_dtype(other)
    yield case(f"null {x} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{x: None}))
    yield case(f"null {out} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{out: None}))
    yield case(f"null {x}[1] -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{x: (base[x][0], None)}))
    yield case(f"null {out}[0] -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{out: (None, base[out][1])}))
    yield case(
        f"null {out}[1] with {x}[1] {other.name} -> 161001 (nulls first)",
        ACLNN_ERR_PARAM_NULLPTR,
        good(**{x: (base[x][0], np.ones((5,), o_dt)), out: (base[out][0], None)}),
    )
    yield case(
        f"{x}[1] {other.name} ({x}[0] {dt.name}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{x: (base[x][0], np.ones((5,), o_dt))}),
    )
    yield case(
        f"{out}[1] {other.name} ({x} {dt.name}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{out: (base[out][0], np.zeros((5,), o_dt))}),
    )
    yield case(f"{out} of 1 tensor ({x} of 2) -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{out: (base[out][0],)}))
    yield case(
        f"{out} of 3 tensors ({x} of 2) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{out: (*base[out], np.zeros((1,), np_dt))}),
    )
    yield case(
        f"{out}[1] [6] ({x}[1] [5]) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{out: (base[out][0], np.zeros((6,), np_dt))}),
    )
    yield case(
        f"{x}[1] rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(
            **{n: (base[n][0], np.ones((5,) + (1,) * 8, np_dt)) for n in comp.sources},
            **{out: (base[out][0], np.zeros((5,) + (1,) * 8, np_dt))},
        ),
    )
    for second in comp.sources[1:]:  # a second input list: null, a null element, another dtype, size and shape
        yield case(f"null {second} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{second: None}))
        yield case(f"null {second}[0] -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{second: (None, base[second][1])}))
        yield case(
            f"{second}[1] {other.name} ({x} {dt.name}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{second: (base[second][0], np.ones((5,), o_dt))}),
        )
        yield case(
            f"{second} of 1 tensor ({x} of 2) -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{second: (base[second][0],)})
        )
        yield case(
            f"{second}[1] [6] ({x}[1] [5]) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{second: (base[second][0], np.ones((6,), np_dt))}),
        )
    if comp.scalar is not None:  # ops-nn's V2 APIs: null first, then the scalar's dtype for the list's
        sc = comp.scalar
        wrong = next(d for d in (DType.FLOAT16, DType.FLOAT) if d is not kernel_scalar)
        yield case(f"null {sc} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{sc: None}))
        yield case(
            f"{sc} {wrong.name} ({x} {dt.name}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{sc: ScalarArg(CASE_SCALAR, wrong.name)}),
        )
        yield case(f"{sc} INT32 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{sc: ScalarArg(3, "INT32")}))
        yield case(f"{sc} INT64 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{sc: ScalarArg(3, "INT64")}))
        for integer in (d for d in dtypes if d.is_integer):  # an integer list takes its own dtype or INT64 only
            i_dt = numpy_dtype(integer)
            lists = {n: tuple(np.full(a.shape, k + 1, i_dt) for a in base[x]) for k, n in enumerate(comp.sources)}
            lists[out] = tuple(np.zeros(a.shape, i_dt) for a in base[out])
            for floating in ("FLOAT", "DOUBLE"):
                yield case(
                    f"{sc} {floating} ({x} {integer.name}) -> 161002",
                    ACLNN_ERR_PARAM_INVALID,
                    {**lists, sc: ScalarArg(3.0, floating)},
                )
    empty = {n: () for n in (*comp.sources, out)}
    yield case("empty lists -> 0 (nothing launched)", 0, good(**empty))
    if comp.scalar is not None:  # empty lists: the scalar's dtype is not checked (ops-nn's V2 APIs), any accepted
        sc = comp.scalar
        taken = next(a for a in spec.attrs if a.name == sc).scalar_dtypes
        outside = next(d for d in ("BF16", "INT8", "BOOL", "UINT8", "INT16") if d not in taken)
        yield case(
            f"{sc} {outside} (empty lists; no list takes it) -> 0", 0, good(**empty, **{sc: ScalarArg(1, outside)})
        )
        another = next((d for d in taken if d not in ("DOUBLE", kernel_scalar.name if kernel_scalar else "")), None)
        if another is not None:
            yield case(
                f"{sc} {another} (empty lists; another list's dtype) -> 0",
                0,
                good(**empty, **{sc: ScalarArg(1, another)}),
            )
    # one more tensor than one call takes (the list table's MAX_TENSOR_CONT)
    over = MAX_LIST_TENSORS + 1
    yield case(
        f"{x} of {over} tensors (at most {MAX_LIST_TENSORS}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(
            **{n: tuple(np.full((1,), k + 1, np_dt) for _ in range(over)) for k, n in enumerate(comp.sources)},
            **{out: tuple(np.zeros((1,), np_dt) for _ in range(over))},
        ),
    )
    for mode in ("null_workspace_size", "null_executor"):
        yield case(f"{mode.replace('_', ' ')} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), mode)
    yield case("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, good(), "phase2_twice")
    yield from status_matrix(spec, product, base, label)
