"""The value cases of a foreach op: lists of one, two and many tensors of unequal sizes (empty and 0-d ones,
sizes that are no multiple of a 32-byte block, one tensor large enough to span several cores followed by small
ones), a list of only empty tensors and an empty list (no launch), more tensors than cores, special values
(zeros of both signs, infinities, NaN, negative numbers, subnormals; for an integer list its extremes and
products past its range, which wrap around), an in-place call (the first input list
passed as the output list: :mod:`codegen.check.in_place` proves no byte beside its tensors changed), and
non-contiguous input and output tensors. Every output list is allocated by the call (poisoned device memory:
an element the kernel does not write is garbage) unless the case passes ``out`` (a strided view, written in
place).

A scalar form (``x * scalar``) passes an aclScalar of the dtype its kernel tensor takes for the list's dtype
(FLOAT16 for a FLOAT16 list, INT32 for an INT32 list, FLOAT otherwise) in every case, and a DOUBLE one (a value
no narrower dtype holds; for an integer list an INT64 one) in a case of its own; the special values and values
of both signs meet the scalars 0, 0.5, 2, -1 and 3 (an integer list: 0, 2, -1, 3 and its extremes) in a case
each.

Each case's name says the list's shapes; ``quick`` leaves out the lists of more tensors than cores and the
non-contiguous tensors."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case, uniform_array
from codegen.families.foreach.compute import ForeachCompute
from codegen.families.foreach.plan.tiling import core_count, scalar_carrier
from codegen.plan.tensor_lists import MAX_LIST_TENSORS
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

#: The lists of the value cases by name (``quick``: kept in ``--quick``): shapes in list order.
LISTS: tuple[tuple[str, bool, tuple[tuple[int, ...], ...]], ...] = (
    ("one tensor", True, ((3, 5),)),
    ("two tensors", True, ((7,), (4, 9))),
    ("mixed sizes with empty and 0-d", True, ((33,), (0,), (), (2, 0, 3), (1001,), (8,), (5, 3, 3), ())),
    ("only empty tensors", True, ((0,), (3, 0))),
    ("empty list", True, ()),
    ("many small tensors", True, tuple((k % 7 + 1, 2 * k + 1) for k in range(40))),
)
#: The list of the in-place case: an empty and a 0-d tensor, sizes no multiple of a block, one over several cores.
IN_PLACE_SHAPES: tuple[tuple[int, ...], ...] = ((33,), (0,), (), (20_003,), (7, 9))
#: Elements of the tensor that spans several cores in the large case (about 1.2 MB of FLOAT), then small ones.
LARGE_ELEMENTS = 300_007


def _compute(spec: OpSpec) -> ForeachCompute:
    assert isinstance(spec.compute, ForeachCompute)
    return spec.compute


def _draw(rng: np.random.Generator, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """Values in ``[0, 100)`` of ``shape`` in ``dtype`` (the op's domain; the special values have a case of
    their own)."""
    return uniform_array(rng, shape, dtype, 0.0, 100.0)


def _case(spec: OpSpec, product: Product, dtype: DType, name: str, params: dict[str, Any], **kw: Any) -> Case:
    shapes = [list(a.shape) for a in params[_compute(spec).source]]
    shape = str(shapes) if len(shapes) <= 4 else f"{len(shapes)} tensors"
    return Case(spec.snake, product.name, dtype.name, shape, name, params, **kw)


def scalar_dtype(spec: OpSpec, dtype: DType) -> DType | None:
    """The dtype of the one-element tensor a scalar form's device op gets for a list of ``dtype`` (the device
    input carrying the scalar attr, :meth:`~codegen.spec.model.DeviceTensor.like_dtype`); None for an op without
    a scalar."""
    carrier = scalar_carrier(spec)
    return None if carrier is None else carrier.like_dtype(dtype)


#: The scalar of the value cases (a value FLOAT16 and FLOAT round, negative: signs and the special values
#: move), and of the DOUBLE case (1/3: each dtype rounds it its own way).
CASE_SCALAR = -1.7
DOUBLE_SCALAR = 1.0 / 3.0
#: The scalars of the signed-values cases: zero, a fraction, and small integers of both signs.
SIGNED_SCALARS = (0.0, 0.5, 2.0, -1.0, 3.0)
#: INT32's extremes.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
#: The scalar of an integer list's value cases, its INT64 case's scalar (within INT32's range: the kernel tensor
#: is INT32), and its signed-values cases' scalars: zero, small integers of both signs and the extremes (a sum
#: past the range wraps around; -1 times the minimum is the minimum).
INT_CASE_SCALAR = -3
INT64_SCALAR = 123_456_789
INT_SIGNED_SCALARS = (0, 2, -1, 3, INT32_MAX, INT32_MIN)


def int_special(dtype: DType) -> tuple[int, ...]:
    """The special values of an integer list of ``dtype``: zero, ones, the extremes and their neighbours, and
    factors whose products pass the range (INT32: 46341 squared, 65536 squared = 2**32, wrapping to 0; INT16: 182
    squared, 256 squared)."""
    info = np.iinfo(numpy_dtype(dtype))
    lo, hi, half = int(info.min), int(info.max), 2 ** (info.bits // 2)
    root = math.isqrt(hi) + 1
    return (0, 1, -1, 2, -2, hi, lo, hi - 1, lo + 1, root, -root, half, 2 ** (info.bits - 2), -(2 ** (info.bits - 2)))


def value_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases of ``spec`` on ``product`` for each of ``dtypes`` (see the module docstring). A second
    input list holds tensors of the first's shapes, of values of their own (the special values reversed)."""
    comp = _compute(spec)
    for dtype in dtypes:
        rng = np.random.default_rng(len(dtype.name))
        kernel_scalar = scalar_dtype(spec, dtype)
        scalar: dict[str, Any] = {}
        if comp.scalar is not None and kernel_scalar is not None:
            scalar[comp.scalar] = ScalarArg(INT_CASE_SCALAR if dtype.is_integer else CASE_SCALAR, kernel_scalar.name)

        def lists(
            first: list[np.ndarray], rng: np.random.Generator = rng, dtype: DType = dtype, scalar: Any = scalar
        ) -> dict[str, Any]:
            others = {n: [_draw(rng, a.shape, dtype) for a in first] for n in comp.sources[1:]}
            return {comp.source: first, **others, **scalar}

        for name, in_quick, shapes in LISTS:
            if quick and not in_quick:
                continue
            yield _case(spec, product, dtype, name, lists([_draw(rng, s, dtype) for s in shapes]))
        # one tensor over several cores, then small ones: the split cuts it on its own blocks, and a core takes
        # its tail together with the head of the next tensors
        large = [_draw(rng, (LARGE_ELEMENTS,), dtype), _draw(rng, (5,), dtype), _draw(rng, (), dtype)]
        large += [_draw(rng, (129,), dtype)]
        cores = core_count(spec, product, sum(a.size for a in large), dtype)
        yield _case(spec, product, dtype, f"a large tensor across {cores} cores, then small ones", lists(large))
        # cores whose shares start and end exactly at tensor boundaries (each tensor one core's share), and
        # shares that cross boundaries inside blocks' reach (tensors of one and a half shares plus a tail)
        share = max(1, spec.tiling.min_bytes_per_core // dtype.itemsize)
        aligned = [_draw(rng, (share,), dtype) for _ in range(4)]
        yield _case(spec, product, dtype, f"4 tensors of one core's share ({share} elements) each", lists(aligned))
        crossing = [_draw(rng, (share + share // 2 + k,), dtype) for k in (7, 0, 31, 1)]
        yield _case(
            spec, product, dtype, "tensors of one and a half cores' shares", lists(crossing), tags=("multicore",)
        )
        if dtype.is_integer:
            values = np.array(int_special(dtype), dtype=np.int64).astype(numpy_dtype(dtype))
            special_name = "zeros, extremes and products past the range (wrapping around)"
        else:
            special = np.array(
                [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -1e-3, 1e-40, 1e-30, 1.0, 4.0, 2.0, 65504.0, 3e38],
                dtype=np.float64,
            )
            with np.errstate(over="ignore"):
                values = special.astype(numpy_dtype(dtype))
            special_name = "zeros, infinities, NaN, negative and subnormal values"
        params = {n: [values[::-1] if k else values, values[:5]] for k, n in enumerate(comp.sources)}
        yield _case(spec, product, dtype, special_name, {**params, **scalar})
        # in place (torch._foreach_mul_ and the like): the first input list passed as the output list; the
        # check copies it into one guarded buffer per run and fails on any byte beside its tensors changed
        in_place = [_draw(rng, s, dtype) for s in IN_PLACE_SHAPES]
        yield _case(
            spec,
            product,
            dtype,
            f"in place ({comp.dest} is {comp.source})",
            lists(in_place),
            in_place=((comp.dest, comp.source),),
        )
        if comp.scalar is not None:
            wide = ScalarArg(INT64_SCALAR, "INT64") if dtype.is_integer else ScalarArg(DOUBLE_SCALAR, "DOUBLE")
            yield _case(
                spec,
                product,
                dtype,
                f"{'an' if dtype.is_integer else 'a'} {wide.dtype} scalar",
                {**lists([_draw(rng, (3, 67), dtype)]), comp.scalar: wide},
            )
            # the special values and values of both signs (small integers among them) against scalars of each
            # kind: zero, a fraction, small integers of both signs (a power's special cases: x ** 0, a negative
            # base with an integer and a non-integer exponent, 0 ** negative)
            signed = np.concatenate([np.arange(-4.0, 5.0), uniform_array(rng, (23,), dtype, -100.0, 100.0)])
            with np.errstate(over="ignore"):
                both = [values, signed.astype(numpy_dtype(dtype))]
            for k in INT_SIGNED_SCALARS if dtype.is_integer else SIGNED_SCALARS:
                if kernel_scalar is None:
                    break
                arg = {comp.scalar: ScalarArg(k, kernel_scalar.name)}
                params = {n: [a[::-1] if j else a for a in both] for j, n in enumerate(comp.sources)}
                yield _case(
                    spec,
                    product,
                    dtype,
                    f"special and signed values, scalar {k if isinstance(k, int) else f'{k:g}'}",
                    {**params, **arg},
                )
        # the most tensors one call takes (the list table's MAX_TENSOR_CONT), a few elements each
        most = [_draw(rng, (1 + k % 3,), dtype) for k in range(MAX_LIST_TENSORS)]
        yield _case(spec, product, dtype, f"{MAX_LIST_TENSORS} tensors (the most one call takes)", lists(most))
        if quick:
            continue
        # more tensors than cores, each of a few blocks: every core starts and ends inside the list
        many = [_draw(rng, (3 * 32 + k,), dtype) for k in range(2 * product.vector_core_num + 3)]
        yield _case(spec, product, dtype, "more tensors than cores", lists(many))
        # non-contiguous tensors: a strided input view, and an out list with a strided view written in place
        base = _draw(rng, (6, 10), dtype)
        strided_in = [base[:, ::2], _draw(rng, (9,), dtype), base.T]
        yield _case(spec, product, dtype, "non-contiguous input tensors", lists(strided_in))
        holder = np.zeros((4, 12), numpy_dtype(dtype))
        outs = [holder[:, ::3], np.zeros((9,), numpy_dtype(dtype))]
        yield _case(
            spec,
            product,
            dtype,
            "a non-contiguous out tensor written in place",
            {**lists([_draw(rng, (4, 4), dtype), _draw(rng, (9,), dtype)]), comp.dest: outs},
        )
