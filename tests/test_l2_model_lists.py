"""Every foreach (tensor-list) op's generated aclnn API agrees with the independent model ``l2_model.lists`` on
hypothesis-drawn calls: lists of 0 to 5 tensors (empty and 0-d ones among them), lists of unequal lengths,
shapes or dtypes, a dtype the product does not list, null lists and null elements, private storage formats;
on success every output tensor's values (``l2_model.within``; an INT32 list's exactly) and nothing written for an
empty list.

One product per distinct dtype rule set of the op, as tests/test_l2_model.py chooses them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import profile_name, profile_settings
from l2_model import SUCCESS, Tensor, within
from l2_model import lists as l2_lists

from codegen.runner import AclnnError, OpCallable, ScalarArg, device_memory
from codegen.runner.dtypes import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
#: examples per (op, rule set) in the CI profile (a call moves a few small tensors)
EXAMPLES = 40


def _cases() -> list[Any]:
    cases = []
    for spec in sorted(SPECS.values(), key=lambda s: s.op):
        if spec.family != "foreach":
            continue
        seen: dict[tuple[Any, ...], str] = {}
        for name in spec.products:
            product = CATALOGUE.get(name)
            seen.setdefault(tuple(t.dtypes_for(product) for t in (*spec.inputs, *spec.outputs)), name)
        cases += [pytest.param(spec.op, p, id=f"{spec.op}-{p}") for p in seen.values()]
    return cases


def _settings() -> settings:
    base = profile_settings()
    return settings(base, max_examples=EXAMPLES) if profile_name() == "ci" else base


@st.composite
def _shape(draw: st.DrawFn) -> tuple[int, ...]:
    rank = draw(st.integers(0, 3))
    return tuple(draw(st.sampled_from([0, 1, 2, 3, 5, 17])) for _ in range(rank))


@st.composite
def list_calls(draw: st.DrawFn, spec: OpSpec, product: Product) -> l2_lists.ListCall:
    """A call: the first input list's shapes and dtype, the other lists mostly alike and now and then of
    another length, shape, dtype or format; now and then a null list or element."""
    inputs, out = l2_lists.list_roles(spec)
    allowed = list(spec.inputs[0].dtypes_for(product))
    dtype = draw(st.sampled_from([*allowed, DType.DOUBLE] if draw(st.integers(0, 9)) == 0 else allowed))
    shapes = draw(st.lists(_shape(), min_size=0, max_size=5))
    lists: dict[str, list[Tensor] | None] = {}
    for name in [*inputs, out]:
        mine = list(shapes)
        odd = draw(st.integers(0, 14))
        if odd == 0 and name != inputs[0]:
            mine = mine[:-1] if mine else [()]  # another length
        elif odd == 1 and mine:
            k = draw(st.integers(0, len(mine) - 1))
            mine[k] = (*mine[k], 2)  # another shape
        tensors = [Tensor(s, dtype, "ND") for s in mine]
        if odd == 2 and tensors:
            k = draw(st.integers(0, len(tensors) - 1))
            other = draw(st.sampled_from([d for d in (DType.FLOAT, DType.FLOAT16, DType.BF16) if d != dtype]))
            tensors[k] = Tensor(tensors[k].shape, other)
        if odd == 3:  # one storage format for the whole list (the Python API gives a list one)
            fmt = draw(st.sampled_from(["NCHW", "FRACTAL_NZ"]))
            tensors = [Tensor(t.shape, t.dtype, fmt) for t in tensors]
        if odd == 4 and tensors and name != out:
            tensors[draw(st.integers(0, len(tensors) - 1))] = Tensor(None)
        lists[name] = None if odd == 5 and name != out else tensors
    scalar_dtypes = st.sampled_from([DType.FLOAT, DType.FLOAT16, DType.DOUBLE, DType.BF16, DType.INT32, DType.INT64])
    scalars: dict[str, tuple[float, DType] | None] = {
        a.name: (draw(st.floats(-3.0, 3.0, width=16)), draw(scalar_dtypes)) for a in spec.attrs if a.type == "scalar"
    }
    return l2_lists.ListCall(lists, scalars)


def _array(t: Tensor, rng: np.random.Generator) -> np.ndarray | None:
    if t.null:
        return None
    values = rng.normal(0.0, 2.0, size=t.shape or ()).astype(np.float64)
    return np.asarray(values).astype(numpy_dtype(t.dtype))


def _fmt(tensors: list[Tensor] | None) -> str:
    """A list's storage format (the Python API gives one format to a whole list)."""
    return next((t.fmt for t in tensors or [] if t.fmt != "ND"), "ND")


@pytest.mark.parametrize(("op", "product"), _cases())
def test_foreach_api_agrees_with_the_model(op: str, product: str, built_op: Callable[[str, str], OpCallable]) -> None:
    spec = next(s for s in SPECS.values() if s.op == op)
    fn = built_op(op, product)
    prod = CATALOGUE.get(product)
    inputs, out = l2_lists.list_roles(spec)

    @_settings()
    @given(list_calls(spec, prod), st.integers(0, 2**32 - 1))
    def check(call: l2_lists.ListCall, seed: int) -> None:
        rng = np.random.default_rng(seed)
        arrays = {n: None if call.lists[n] is None else [_array(t, rng) for t in call.lists[n]] for n in inputs}
        outs = [device_memory(int(np.prod(t.shape or ())), numpy_dtype(t.dtype), t.shape) for t in call.lists[out]]
        formats = {n: _fmt(call.lists[n]) for n in [*inputs, out] if _fmt(call.lists[n]) != "ND"}
        scalars = {
            n: None if v is None else ScalarArg(int(v[0]) if v[1].is_integer else v[0], v[1].name)
            for n, v in call.scalars.items()
        }
        prediction = l2_lists.predict(spec, prod, call)
        try:
            fn(**arrays, **scalars, **{out: outs}, formats=formats)
            status, message = SUCCESS, ""
        except AclnnError as e:
            status, message = e.status, e.message
        assert status == prediction.status, f"API {status} ({message}), model {prediction.status} ({prediction.reason})"
        if status != SUCCESS:
            return
        dtype = l2_lists.dtype_of(call, spec)
        values = {n: v[0] for n, v in call.scalars.items() if v is not None}
        want = l2_lists.expected_outputs(spec, arrays, values, dtype)  # type: ignore[arg-type]
        for i, (got, w) in enumerate(zip(outs, want, strict=True)):
            assert got.shape == w.shape, (i, got.shape, w.shape)
            ok = got.astype(np.float64) == w if dtype.is_integer else within(got, w, dtype, dtype)  # ints: exact
            assert ok.all(), f"{out}[{i}]: {got[~ok][:4]} != {w[~ok][:4]}"

    check()


def _scalar_cases() -> list[Any]:
    with_scalar = {s.op for s in SPECS.values() if any(a.type == "scalar" for a in s.attrs)}
    return [c for c in _cases() if c.values[0] in with_scalar]


@pytest.mark.parametrize(("op", "product"), _scalar_cases())
def test_every_scalar_dtype_beside_every_list_dtype_agrees_with_the_model(
    op: str, product: str, built_op: Callable[[str, str], OpCallable]
) -> None:
    """Every aclScalar dtype beside a list of every dtype the product takes (and beside empty lists): the API's
    status equals the model's, on purpose rather than by draw (a FLOAT weight beside a FLOAT16 list is accepted
    by aclnnForeachLerpScalar and refused by aclnnForeachMulScalarV2)."""
    spec = next(s for s in SPECS.values() if s.op == op)
    fn = built_op(op, product)
    prod = CATALOGUE.get(product)
    inputs, out = l2_lists.list_roles(spec)
    scalar = next(a.name for a in spec.attrs if a.type == "scalar")
    seen = set()
    for dtype in [*spec.inputs[0].dtypes_for(prod), None]:
        shapes = [] if dtype is None else [(2, 3), (5,)]
        list_dtype = dtype or DType.FLOAT
        for s_dtype in (DType.FLOAT, DType.FLOAT16, DType.DOUBLE, DType.BF16, DType.INT32, DType.INT64):
            call = l2_lists.ListCall(
                {n: [Tensor(s, list_dtype, "ND") for s in shapes] for n in [*inputs, out]}, {scalar: (2.0, s_dtype)}
            )
            arrays = {n: [np.full(s, 1 + k, numpy_dtype(list_dtype)) for s in shapes] for k, n in enumerate(inputs)}
            outs = [device_memory(int(np.prod(s)), numpy_dtype(list_dtype), s) for s in shapes]
            value = 2 if s_dtype.is_integer else 2.0
            try:
                fn(**arrays, **{scalar: ScalarArg(value, s_dtype.name)}, **{out: outs})
                status = SUCCESS
            except AclnnError as e:
                status = e.status
            want = l2_lists.predict(spec, prod, call)
            where = f"{scalar} {s_dtype.name} beside {'empty lists' if dtype is None else dtype.name}"
            assert status == want.status, f"{where}: API {status}, model {want.status} ({want.reason})"
            seen.add(status)
    assert seen == {SUCCESS, 161002}
