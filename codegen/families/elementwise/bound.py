"""The default error bound of an elementwise case, derived from the kernel's own instruction sequence.

An elementwise kernel evaluates its compiled program (:mod:`codegen.families.elementwise.compiler`): 16-bit
inputs are widened to fp32 exactly (``Cast`` ``CAST_NONE``), every vector instruction computes in fp32 and
rounds its result, and a 16-bit result is rounded once more to the compute dtype (``Cast`` ``CAST_RINT``);
host scalars (``compute.scalars``, attributes, literals) reach the kernel rounded to ``float``. Which
values that sequence can produce depends on the inputs, so the bound is computed per call from the inputs'
actual values: :func:`derived_bound` runs the program over intervals in float64, one ``[lo, hi]`` per element
and buffer, that contain every value the fp32 (or 16-bit) kernel can hold there
(:mod:`codegen.families.elementwise.interval_program`).

The accepted error of an element is the distance from the reference to the far end of the interval,
``max(hi - ref, ref - lo)``, when the reference lies in it, and 0 when it does not (the formula and the
reference disagree by more than rounding can explain, so the case fails unless the output rounding
covers the difference). :func:`codegen.check.compare.compare` adds half an ULP of the output dtype (the
host-side cast to the dtype of ``out``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from codegen.families.elementwise.compiler import Program
from codegen.families.elementwise.interval_program import ExactScalar, HostScalar, program_interval
from codegen.families.elementwise.intervals import Interval, _has_nan, _pick, round16
from codegen.spec.model import DType, OpSpec, Product

_FLOATS = (DType.FLOAT, DType.FLOAT16, DType.BF16)


def promoted_dtype(dtypes: list[DType]) -> DType | None:
    """``op::PromoteType`` over the floating compute dtypes: equal dtypes stay, any mix is FLOAT; None when
    a dtype is not FLOAT, FLOAT16 or BF16 (no derived bound for such a call)."""
    if not dtypes or any(d not in _FLOATS for d in dtypes):
        return None
    return dtypes[0] if all(d is dtypes[0] for d in dtypes) else DType.FLOAT


def _arithmetic_free(e: Any) -> bool:
    """Whether expression ``e`` is a name, a number, a negation of one or a choice (``a if c else b``) of
    such: its float64 value is exactly what the tiling computes from the same attributes."""
    from codegen.spec.expr import IfElse, Name, Num, Unary

    if isinstance(e, (Name, Num)):
        return True
    if isinstance(e, Unary) and e.op == "-":
        return _arithmetic_free(e.operand)
    if isinstance(e, IfElse):
        return _arithmetic_free(e.then) and _arithmetic_free(e.orelse)
    return False


#: Unit roundoff of fp32 (round to nearest): every fp32 addition or division has relative error <= U32.
U32 = 2.0**-24


def reduce_bound(
    lo: np.ndarray, hi: np.ndarray, ref: np.ndarray, mean: bool, compute_dtype: DType, depth: int | None = None
) -> np.ndarray:
    """The absolute error bound of a reduce epilogue's 0-d sum (or mean) against the float64 reference ``ref``.

    ``[lo, hi]`` (float64, one interval per element of the broadcast shape) holds each fp32 formula value
    ``v_i`` the kernel sums (:func:`program_interval` with ``fp32_result``). The kernel adds the ``n``
    values in fp32 in a tree: a term that goes through ``d_i`` roundings on its way to the result contributes
    at most ``gamma(d_i) * |v_i|`` (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section
    4.2), so ``|fl(sum v_i) - sum v_i| <= gamma(depth) * sum |v_i|`` with ``gamma(k) = k u / (1 - k u)``,
    ``u`` = 2**-24 and ``depth`` the most roundings any term goes through (:func:`sum_depth`: a tile's sum,
    whatever order ReduceSum or the Add halving uses inside it, then the tiles in order, then the partials in
    core order); ``depth`` None takes ``n - 1``, which holds for any tree. The formula's own error adds
    ``sum_i max(hi_i - r_i, r_i - lo_i)`` (the per-element bound of :func:`derived_bound`; ``r_i`` lies in
    ``[lo_i, hi_i]`` whenever the formula and the reference agree up to rounding, else that element's share
    is unbounded by rounding and the case fails). The mean divides
    by ``fl(n)`` (exact up to 2**24, else one rounding) and rounds once: relative ``3u`` more. A 16-bit
    output is rounded once by the kernel, to nearest: the bound becomes the distance from the reference to
    the farther of the two ends of ``[r - bound, r + bound]`` rounded to the compute dtype (:func:`round16`);
    :func:`codegen.check.compare.compare` adds half an ULP of the output dtype. A sum that overflows fp32
    (or any interval end that is infinite or NaN) gives an unbounded (``inf``) bound, except where the
    reference itself is not finite (compared exactly).
    """
    r = np.asarray(ref, dtype=np.float64)
    if not np.isfinite(r).all():
        return np.zeros(r.shape)
    with np.errstate(all="ignore"):
        return _sum_bound(hi - lo, np.maximum(np.abs(lo), np.abs(hi)), r, mean, compute_dtype, depth)


def sum_depth(tile_length: int, tiles_per_core: int, block_dim: int, n: int) -> int:
    """The most fp32 roundings one of ``n`` summed terms goes through in the reduce epilogue's tree
    (the generated kernel's per-tile ``Add`` into its accumulator, the accumulator's ``SumTile`` and core 0's
    combine): one per tile into its accumulator element (``tiles_per_core``), at most ``min(tile_length, n)
    - 1`` in the accumulator's sum (any order of that many terms) and one per core in the combine
    (``block_dim``); never more than ``n - 1``, which any tree of ``n`` terms respects."""
    if n <= 1:
        return 0
    inside = max(0, min(tile_length, n) - 1)
    return min(n - 1, inside + max(0, tiles_per_core) + max(0, block_dim))


def _sum_bound(
    width: np.ndarray, mag: np.ndarray, r: np.ndarray, mean: bool, compute_dtype: DType, depth: int | None = None
) -> np.ndarray:
    """:func:`reduce_bound` from the per-element interval widths ``hi - lo`` and magnitudes
    ``max(|lo|, |hi|)`` (float64, C-contiguous of the broadcast shape) and the finite 0-d reference ``r``."""
    n = width.size
    with np.errstate(all="ignore"):
        # the formula's per-element error: r_i lies in [lo_i, hi_i], so hi_i - lo_i bounds its distance to
        # any value there (the 0-d reference does not give r_i itself)
        formula = float(np.sum(width)) if n else 0.0
        steps = (n - 1 if depth is None else min(depth, n - 1)) if n > 1 else 0
        ku = steps * U32
        gamma = ku / (1.0 - ku) if ku < 1.0 else math.inf
        total = float(np.sum(mag)) if n else 0.0
        bound = formula + gamma * total
        if mean and n:
            bound = bound / n + 3 * U32 * (abs(float(r)) + bound / n)
        if compute_dtype is not DType.FLOAT and math.isfinite(bound):
            # the fp32 result lies in [r - bound, r + bound]; the kernel rounds it once (round16)
            value = float(r)
            lo, hi = round16((np.asarray(value - bound), np.asarray(value + bound)), compute_dtype)
            bound = max(float(hi) - value, value - float(lo))
    if not math.isfinite(bound):
        bound = math.inf
    return np.full(r.shape, bound, dtype=np.float64)


def derived_bound(
    spec: OpSpec, product: Product, params: Mapping[str, Any], ref: np.ndarray, lazy: bool = False
) -> np.ndarray | ElementBound | None:
    """The absolute error an elementwise kernel may show against ``ref`` for the call ``params`` (see the
    module doc), float64 of ``ref``'s shape; None when the call has no derived bound (not an elementwise
    op, or an input dtype outside FLOAT/FLOAT16/BF16); zeros for inputs of one integer dtype (its program
    selects elements exactly).

    Args:
        spec: an elementwise op spec.
        product: the product the kernel runs on (its ``coreNum``/``ubBytes`` may enter host scalars).
        params: the aclnn parameters of the call: arrays by input name (None for a null optional input),
            attributes by name; an ``out`` array is ignored.
        ref: the reference output (float64, the output shape).

        lazy: for a call of more than :data:`CHUNK_ELEMENTS` elements without a reduce epilogue, return an
            :class:`ElementBound` that runs the interval program only at the elements asked for (the
            comparison asks where an element's error is above half an ULP), with the same values.

    A host scalar that cannot be evaluated for the call (e.g. ``1 / numel(out)`` of an empty output) may take
    any value. An empty output gets a bound of zeros.
    """
    if spec.family != "elementwise":
        return None
    from codegen.check.constraints import TensorStandIn, call_env
    from codegen.families.elementwise.plan.shape import shape_rule
    from codegen.families.elementwise.plan.variants import compile_all
    from codegen.runner import dtype_of_array
    from codegen.spec.expr import ExprEvalError, evaluate

    arrays = {t.name: params.get(t.name) for t in spec.inputs}
    present = {n: a for n, a in arrays.items() if isinstance(a, np.ndarray)}
    from codegen.families.elementwise.compute import INTEGER_DTYPES

    input_dtypes = {dtype_of_array(a) for a in present.values()}
    if len(input_dtypes) == 1 and input_dtypes <= set(INTEGER_DTYPES):
        # an integer dtype's program selects input elements and integer literals (exact compares): no error
        return np.zeros(np.shape(ref))
    compute = promoted_dtype([dtype_of_array(a) for a in present.values()])
    if compute is None:
        return None
    variant = next((v for v in _variants(spec, compile_all) if set(v.present) == set(present)), None)
    if variant is None:
        return None
    kind, args = shape_rule(spec)
    shape = present[args[0]].shape if kind == "like" else np.broadcast_shapes(*(a.shape for a in present.values()))
    if 0 in shape:
        # an empty output, or the 0-d sum/mean of no element: nothing to bound (host scalars may be undefined)
        return np.zeros(np.shape(ref))
    env = call_env(spec, product, {k: v for k, v in params.items() if k not in {t.name for t in spec.outputs}})
    out = spec.outputs[0]
    env[out.name] = TensorStandIn(tuple(shape), compute)
    # The device op receives float attributes as fp32 (an OpDef Float attr; aclScalar ToFloat) and its tiling
    # computes the host scalars from those: a scalar may be the one of the attrs as given or as fp32 (alpha *
    # scale of fp32(0.7) and fp32(1.3) is not 0.91), so it is bounded by both.
    env32 = dict(env)
    with np.errstate(over="ignore"):
        for a in spec.attrs:
            value = env32.get(a.name)
            if a.type in ("float", "double", "scalar") and isinstance(value, float) and math.isfinite(value):
                env32[a.name] = float(np.float32(value))
    rounded = env32 != env  # an attribute fp32 does not hold: the scalars may differ
    scalars: dict[str, HostScalar] = {}
    for hs in variant.formula.scalars:
        try:
            given = float(evaluate(hs.expr, env))  # type: ignore[arg-type]
            as_fp32 = float(evaluate(hs.expr, env32)) if rounded else given  # type: ignore[arg-type]
            with np.errstate(over="ignore"):
                held = float(np.float32(given)) == given
            if as_fp32 == given and held and _arithmetic_free(hs.expr):
                scalars[hs.field_name] = ExactScalar(given)
            else:
                scalars[hs.field_name] = given if as_fp32 == given or math.isnan(as_fp32) else (given, as_fp32)
        except ExprEvalError:
            scalars[hs.field_name] = math.nan  # no value known: any value (the interval [-inf, inf])
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_MEAN, REDUCE_KIND_NONE, reduce_kind

    red_kind = reduce_kind(spec, params)
    # the host case the kernel takes: its flags as the tiling function computes them (NaN where undefined)
    flags: dict[str, float] = {}
    for name in {name for case in variant.formula.cases for name, _ in case.guards}:
        expr = next(hs.expr for hs in variant.formula.scalars if hs.field_name == name)
        try:
            flags[name] = float(evaluate(expr, env))  # type: ignore[arg-type]
        except ExprEvalError:
            flags[name] = math.nan
    case = variant.formula.case_for(flags)
    program = case.fp32 if compute is DType.FLOAT else case.cast16
    depth: int | None = None
    if red_kind != REDUCE_KIND_NONE:
        from codegen.families.elementwise.plan.tiling import tiling_decision
        from codegen.families.elementwise.plan.variants import optional_inputs

        absent = [t.name for t in optional_inputs(spec) if t.name not in present]
        attrs = {a.name: params[a.name] for a in spec.attrs if a.name in params}
        plan = tiling_decision(spec, product, tuple(shape), compute, absent, attrs)
        depth = sum_depth(plan.tile_length, plan.tiles_per_core_max, plan.block_dim, math.prod(shape))
    r = np.asarray(ref, dtype=np.float64)
    small = math.prod(shape) <= CHUNK_ELEMENTS
    # a large call's inputs are widened to float64 slice by slice (_chunks), a small one's here
    values = {n: np.asarray(a, dtype=np.float64) if small else a for n, a in present.items()}
    mean = red_kind == REDUCE_KIND_MEAN
    if red_kind != REDUCE_KIND_NONE:
        if not np.isfinite(r).all():
            return np.zeros(r.shape)  # reduce_bound's answer for a non-finite reference, without the program
        with np.errstate(all="ignore"):
            if small:
                lo, hi = _interval_over(program, values, scalars, compute, tuple(shape), True)
                return reduce_bound(lo, hi, r, mean, compute, depth)
            # the sums' operands slice by slice (each element's width and magnitude as reduce_bound's)
            width, mag = np.empty(math.prod(shape)), np.empty(math.prod(shape))
            for part, (lo, hi) in _chunks(program, values, scalars, compute, tuple(shape), True):
                np.subtract(hi, lo, out=width[part])
                np.maximum(np.abs(lo), np.abs(hi), out=mag[part])
            return _sum_bound(width.reshape(shape), mag.reshape(shape), r, mean, compute, depth)
    with np.errstate(all="ignore"):
        if small:
            lo, hi = program_interval(program, values, scalars, compute)
            return _element_bound(lo, hi, r, tuple(shape))
        if lazy:
            return ElementBound(program, values, scalars, compute, tuple(shape), r)
        r = np.ascontiguousarray(np.broadcast_to(r, shape)).reshape(-1)
        bound = np.empty(r.size)
        for part, (lo, hi) in _chunks(program, values, scalars, compute, tuple(shape), False):
            bound[part] = _element_bound(lo, hi, r[part], (part.stop - part.start,))
    return bound.reshape(shape)


#: Elements per slice when a large call's interval program runs slice by slice (:func:`_chunks`): every
#: buffer of the program then stays in the CPU caches (32768 float64 = 256 KiB), where whole-call arrays
#: (16 MiB for 2**21 elements) go through memory at each of the program's many NumPy passes.
CHUNK_ELEMENTS = 1 << 15


def _element_bound(lo: np.ndarray, hi: np.ndarray, r: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The accepted error per element (float64, ``shape``): ``max(hi - r, r - lo)`` where the reference
    ``r`` lies in ``[lo, hi]``, else (and where that is NaN) 0."""
    lo, hi = np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
    r = np.broadcast_to(r, shape)
    inside = (lo <= r) & (r <= hi)
    bound = _pick(inside, np.maximum(hi - r, r - lo), 0.0)
    if _has_nan(bound):
        bound = _pick(np.isnan(bound), 0.0, bound)
    return bound


class ElementBound:
    """The derived bound of an elementwise call without a reduce epilogue (:func:`derived_bound` with
    ``lazy``), evaluated only at the elements asked for and kept: :func:`program_interval` acts element by
    element, so the interval program run on the gathered inputs of any set of elements gives exactly the
    whole call's values there. Satisfies :class:`codegen.check.compare.LazyAtol`.

    Args:
        program: the compiled program of the call's variant and dtype class.
        values: the inputs present in the call (any floating dtype; each broadcastable to ``shape``).
        scalars: host scalar field name -> its float64 value, or two (:data:`HostScalar`).
        compute: the kernel's tile dtype (FLOAT, FLOAT16 or BF16).
        shape: the output shape.
        ref: the float64 reference, broadcastable to ``shape``.
    """

    def __init__(
        self,
        program: Program,
        values: Mapping[str, np.ndarray],
        scalars: Mapping[str, HostScalar],
        compute: DType,
        shape: tuple[int, ...],
        ref: np.ndarray,
    ) -> None:
        self._program, self._scalars, self._compute, self._shape = program, scalars, compute, shape
        self._flat = {
            n: v.reshape(-1) if v.shape == shape else np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1)
            for n, v in values.items()
        }
        self._ref = np.ascontiguousarray(np.broadcast_to(np.asarray(ref, dtype=np.float64), shape)).reshape(-1)
        size = math.prod(shape)
        self._known = np.zeros(size)
        self._have = np.zeros(size, dtype=bool)

    @property
    def shape(self) -> tuple[int, ...]:
        """The output shape."""
        return self._shape

    def at(self, index: np.ndarray) -> np.ndarray:
        """The bound (float64, ``>= 0``) at the flat C-order indices ``index`` (int64); computed once per
        element, :data:`CHUNK_ELEMENTS` elements per run of the program."""
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        missing = index[~self._have[index]]
        if missing.size:
            if missing.size > 1 and not bool(np.all(missing[1:] > missing[:-1])):
                # sorted and without repeats, in one pass over a mask (np.unique hashes or sorts instead;
                # the compare's prefetch asks in increasing order already)
                mask = np.zeros(self._have.size, dtype=bool)
                mask[missing] = True
                missing = np.flatnonzero(mask)
            with np.errstate(all="ignore"):
                for start in range(0, missing.size, CHUNK_ELEMENTS):
                    sub = missing[start : start + CHUNK_ELEMENTS]
                    inputs = {n: np.asarray(v[sub], dtype=np.float64) for n, v in self._flat.items()}
                    lo, hi = program_interval(self._program, inputs, self._scalars, self._compute)
                    self._known[sub] = _element_bound(lo, hi, self._ref[sub], (sub.size,))
            self._have[missing] = True
        return self._known[index]

    def full(self) -> np.ndarray:
        """The whole bound, float64 of :attr:`shape`."""
        return self.at(np.arange(math.prod(self._shape), dtype=np.int64)).reshape(self._shape)


def _chunks(
    program: Program,
    values: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute: DType,
    shape: tuple[int, ...],
    fp32_result: bool,
) -> Iterator[tuple[slice, Interval]]:
    """:func:`program_interval` over the call's elements (``shape``, flattened in C order) in slices of
    :data:`CHUNK_ELEMENTS`: yields ``(slice, (lo, hi))`` with both ends of the slice's length. Every
    instruction acts element by element, so each slice's ends are exactly those of a whole-call run.
    ``values`` may keep their own floating dtype: each slice is widened to float64 (exactly) on its way in,
    so a 16-bit or fp32 input never exists as a whole float64 array."""
    flat = {
        n: v.reshape(-1) if v.shape == shape else np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1)
        for n, v in values.items()
    }
    total = math.prod(shape)
    for start in range(0, total, CHUNK_ELEMENTS):
        part = slice(start, min(start + CHUNK_ELEMENTS, total))
        inputs = {n: np.asarray(v[part], dtype=np.float64) for n, v in flat.items()}
        lo, hi = program_interval(program, inputs, scalars, compute, fp32_result)
        size = (part.stop - part.start,)
        yield part, (np.broadcast_to(lo, size), np.broadcast_to(hi, size))


def _interval_over(
    program: Program,
    values: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute: DType,
    shape: tuple[int, ...],
    fp32_result: bool,
) -> Interval:
    """:func:`program_interval` broadcast to ``shape``; a call of more than :data:`CHUNK_ELEMENTS` elements
    runs slice by slice (:func:`_chunks`) into two float64 arrays of ``shape``."""
    if math.prod(shape) <= CHUNK_ELEMENTS:
        lo, hi = program_interval(program, values, scalars, compute, fp32_result)
        return np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
    lo_all, hi_all = np.empty(math.prod(shape)), np.empty(math.prod(shape))
    for part, (lo, hi) in _chunks(program, values, scalars, compute, shape, fp32_result):
        lo_all[part], hi_all[part] = lo, hi
    return lo_all.reshape(shape), hi_all.reshape(shape)


_VARIANTS: dict[int, tuple[OpSpec, list[Any]]] = {}


def _variants(spec: OpSpec, compile_all: Any) -> list[Any]:
    """``compile_all(spec)``, cached per spec object (a worker checks one op many times)."""
    cached = _VARIANTS.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = (spec, compile_all(spec))
        _VARIANTS[id(spec)] = cached
    return cached[1]
