"""The case matrix of a row-reduce op on one product, derived from the family's tiling (not per op).

Value cases per dtype: R = 1; a few rows of 10; the largest R whose rows fit UB and R just above it (the row
is then cut into chunks); R far larger than UB (many chunks); a non-last dim (inner > 1), also with a
negative dim and with more lines than fit UB (line chunks); fewer rows than cores; a 0-d tensor; empty
tensors (a zero outer and a zero R); a large dynamic range (values up to about +-200: without the max
subtraction exp overflows, without fp32 accumulation 16-bit sums lose the small terms); rows with +inf,
-inf and NaN (also inside a multi-chunk row); many rows over all cores (a determinism case).
An ``out`` of another supported dtype than a FLOAT input is accepted and gets the result cast to it (CANN's
rule: aclnn_softmax.cpp and the other row ops' op_api check ``out`` against the dtype list only and end with
``l0op::Cast(result, out->GetDataType())``).
Status cases: null pointers, unsupported dtypes (of an input, of ``out``, one the product lacks), inputs of
different dtypes, ranks, shapes that differ, dim out of range (161002).
``quick`` keeps one representative of each group (the UB boundary and multi-chunk rows are kept).

Trailing rows (``compute.rows``): the input broadcast over the rows takes the shape of the last ``k`` dims
(``k`` = 1 unless a case says otherwise; standard normal values); the same R cases (R = 1, the UB limit and
one above, far above, fewer rows than cores, empty, large dynamic range, inf/NaN rows and inside a
multi-chunk row, rows over all cores) plus a row of 2 dims, a row of every dim, a rank-4 tensor with a row of
3 dims and every float attr at 0.5; status cases replace the dim cases by that input of a wrong shape, of a
rank above the first input's, empty, and of another dtype (161002).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.check.offsets import device_attrs
from codegen.families.row_reduce.plan import (
    CHUNK_ALIGN,
    LINE_ALIGN,
    compute_of,
    row_dtypes,
    tiling_decision,
    trailing_view_dims,
    view_dims,
)
from codegen.runner import device_memory, numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["check_cases", "check_offsets", "fit_limit", "infer_output"]


def fit_limit(spec: OpSpec, product: Product, dtype: DType) -> int:
    """The largest R (a multiple of 16) whose last-dim rows still fit UB whole (one more element chunks them)."""
    t = tiling_decision(spec, product, (1, CHUNK_ALIGN), -1, dtype)
    return t.budget_bytes // (t.tile_bytes_per_elem + t.line_bytes_per_elem) // LINE_ALIGN * LINE_ALIGN


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """Value and status cases of a row-reduce op on ``product`` (see the module doc)."""
    rng = np.random.default_rng(20261201)
    comp = compute_of(spec)
    dim_attr = comp.dim
    inputs = spec.input_names
    op = spec.snake
    supported = [d for d in row_dtypes(spec) if product.supports(d)]
    chosen = [d for d in dtypes if d in supported]

    rows = comp.rows

    def arrays(shape: tuple[int, ...], dt: DType, scale: float = 2.0, row_ndim: int = 1) -> dict[str, np.ndarray]:
        got: dict[str, np.ndarray] = {}
        for k, n in enumerate(inputs):
            if n == rows:  # broadcast over the rows: the shape of the trailing dims
                values = rng.standard_normal(shape[len(shape) - row_ndim :])
            elif k > 0:  # later inputs (a forward output) in (0, 1)
                values = rng.uniform(0.01, 1.0, shape)
            else:
                values = rng.standard_normal(shape) * scale
            got[n] = np.asarray(values).astype(numpy_dtype(dt))
        return got

    def case(
        dt: DType, shape: tuple[int, ...], dim: int, name: str, params: dict[str, Any] | None = None, **kw: Any
    ) -> Case:
        p = params if params is not None else arrays(shape, dt)
        if rows:
            k = p[rows].ndim
            return Case(op, product.name, dt.name, str(list(shape)), f"{name} ({rows} of {k} dim(s))", p, **kw)
        return Case(op, product.name, dt.name, str(list(shape)), f"{name} (dim {dim})", {**p, dim_attr: dim}, **kw)

    if rows:
        yield from _rows_value_cases(spec, product, chosen, quick, arrays, case)
        yield from _status_cases(spec, product, supported[0], rng)
        if chosen:
            yield from _offset_cases(spec, product, chosen[0])
        return

    for dt in chosen:
        fit = fit_limit(spec, product, dt)
        yield case(dt, (7, 1), -1, "R = 1")
        yield case(dt, (5, 10), 1, "rows of 10")
        yield case(dt, (2, fit), -1, "R at the UB limit (rows whole)")
        yield case(dt, (2, fit + 1), -1, "R one above the UB limit (chunked)")
        yield case(dt, (1, 3 * fit + 77), -1, "R far above UB (multi-chunk)")
        yield case(dt, (3, 33, 5), 1, "inner 5 (non-last dim)")
        yield case(dt, (4, 6, 70), -3, "negative dim, inner 70")
        t = tiling_decision(spec, product, (1, 10**6, 3), 1, dt)
        lines = t.tile_rows if t.chunk_num > 1 else 0
        if lines:
            yield case(dt, (1, lines + 5, 3), 1, "inner 3, more lines than fit UB (line chunks)")
        yield case(dt, (3, 200), -1, "fewer rows than cores")
        yield case(dt, (), 0, "0-d tensor")
        yield case(dt, (0, 5), 1, "empty outer")
        yield case(dt, (3, 0), -1, "empty R")
        big = 60.0 if dt is DType.FLOAT16 else 200.0
        yield case(dt, (4, 300), -1, "large dynamic range", arrays((4, 300), dt, big))
        yield case(dt, (4, 40, 3), 1, "large dynamic range, inner 3", arrays((4, 40, 3), dt, big))
        yield case(dt, (6, 50), -1, "inf and NaN rows", _special_rows(arrays((6, 50), dt), inputs[0], dt))
        long = arrays((2, 2 * fit + 9), dt, 5.0)
        x = long[inputs[0]]
        x[0, fit + 3] = np.inf
        x[1, 2 * fit + 1] = -np.inf
        yield case(dt, (2, 2 * fit + 9), -1, "inf inside a multi-chunk row", long)
        lead = arrays((2, 3 * fit + 5), dt)
        y = lead[inputs[0]]
        y[:, : 2 * fit + 2] = -np.inf  # the first two chunks hold only -inf (row 1: every element)
        y[1, :] = -np.inf
        yield case(dt, (2, 3 * fit + 5), -1, "-inf chunks before the finite ones", lead)
        if not quick:
            yield case(dt, (2, 3, 4, 5), 2, "rank 4, dim 2")
            yield case(dt, (9, 64), 0, "dim 0, inner 64")
        yield case(dt, (3 * product.vector_core_num + 5, 37), -1, "rows over all cores", tags=("multicore",))
        if dt is DType.FLOAT:
            # out of another supported dtype: accepted, the FLOAT result cast to it (CANN's rule)
            for other in [d for d in supported if d is not DType.FLOAT][: 1 if quick else None]:
                cast = arrays((5, 37), dt)
                cast[spec.output_names[0]] = np.zeros((5, 37), numpy_dtype(other))
                yield case(dt, (5, 37), -1, f"out {other.name}: the result cast", cast)
    yield from _status_cases(spec, product, supported[0], rng)
    if chosen:
        yield from _offset_cases(spec, product, chosen[0])


def _rows_value_cases(
    spec: OpSpec, product: Product, chosen: list[DType], quick: bool, arrays: Any, case: Any
) -> Iterator[Case]:
    """The value cases of the ``rows`` form (see the module doc); ``arrays`` and ``case`` are
    :func:`check_cases`' helpers."""
    x_name = spec.input_names[0]
    floats = [a.name for a in spec.attrs if a.type in ("float", "double")]
    for dt in chosen:
        fit = fit_limit(spec, product, dt)
        yield case(dt, (7, 1), -1, "R = 1")
        yield case(dt, (5, 10), -1, "rows of 10")
        yield case(dt, (2, fit), -1, "R at the UB limit (rows whole)")
        yield case(dt, (2, fit + 1), -1, "R one above the UB limit (chunked)")
        yield case(dt, (1, 3 * fit + 77), -1, "R far above UB (multi-chunk)")
        yield case(dt, (3, 200), -1, "fewer rows than cores")
        yield case(dt, (0, 5), -1, "empty outer")
        yield case(dt, (3, 4, 6), -1, "row of 2 dims", arrays((3, 4, 6), dt, row_ndim=2))
        yield case(dt, (4, 6), -1, "row of every dim", arrays((4, 6), dt, row_ndim=2))
        if not quick:
            yield case(dt, (2, 3, 4, 5), -1, "rank 4, row of 3 dims", arrays((2, 3, 4, 5), dt, row_ndim=3))
            yield case(dt, (9,), -1, "rank 1")
        big = 60.0 if dt is DType.FLOAT16 else 200.0
        yield case(dt, (4, 300), -1, "large dynamic range", arrays((4, 300), dt, big))
        yield case(dt, (6, 50), -1, "inf and NaN rows", _special_rows(arrays((6, 50), dt), x_name, dt))
        long = arrays((2, 2 * fit + 9), dt, 5.0)
        long[x_name][0, fit + 3] = np.inf
        long[x_name][1, 2 * fit + 1] = -np.inf
        yield case(dt, (2, 2 * fit + 9), -1, "inf inside a multi-chunk row", long)
        if floats:
            yield case(dt, (5, 33), -1, "float attrs 0.5", {**arrays((5, 33), dt), **{n: 0.5 for n in floats}})
        yield case(dt, (3 * product.vector_core_num + 5, 37), -1, "rows over all cores", tags=("multicore",))


def _special_rows(p: dict[str, np.ndarray], name: str, dt: DType) -> dict[str, np.ndarray]:
    x = p[name]
    x[0, 3] = np.inf
    x[1, 7] = -np.inf
    x[2, :] = -np.inf
    x[3, 11] = np.nan
    x[4, 0] = np.inf
    x[4, 1] = -np.inf
    return p


def _status_cases(spec: OpSpec, product: Product, dt: DType, rng: np.random.Generator) -> Iterator[Case]:
    comp = compute_of(spec)
    op = spec.snake
    inputs = spec.input_names
    out = spec.output_names[0]
    npdt = numpy_dtype(dt)
    good: dict[str, Any] = {n: rng.standard_normal((4, 8)).astype(npdt) for n in inputs}
    good[out] = np.zeros((4, 8), dtype=npdt)
    if comp.rows:
        good[comp.rows] = rng.standard_normal((8,)).astype(npdt)
    else:
        good[comp.dim] = -1

    def status(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(op, product.name, dt.name, "error", name, {**good, **params}, expect_status=code, mode=mode)

    for n in [*inputs, out]:
        yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {n: None})
    yield status("null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_workspace_size")
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_executor")
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {}, "phase2_twice")
    if comp.rows:
        g = comp.rows
        yield status(f"{g} not the last dim's shape -> 161002", ACLNN_ERR_PARAM_INVALID, {g: np.ones((4,), npdt)})
        yield status(f"{g} of the first dim's shape -> 161002", ACLNN_ERR_PARAM_INVALID, {g: np.ones((4, 1), npdt)})
        yield status(f"{g} of rank above x's -> 161002", ACLNN_ERR_PARAM_INVALID, {g: np.ones((1, 4, 8), npdt)})
        yield status(f"{g} 0-d -> 161002", ACLNN_ERR_PARAM_INVALID, {g: np.asarray(1.0, npdt)})
        yield status(
            f"{g} empty -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {inputs[0]: np.zeros((4, 0), npdt), g: np.zeros((0,), npdt), out: np.zeros((4, 0), npdt)},
        )
        other = np.float16 if dt is not DType.FLOAT16 else np.float32
        yield status(f"{g} of another dtype -> 161002", ACLNN_ERR_PARAM_INVALID, {g: np.ones((8,), other)})
    else:
        for bad in (2, -3, 100):
            yield status(f"dim {bad} out of range -> 161002", ACLNN_ERR_PARAM_INVALID, {comp.dim: bad})
        yield status(
            "0-d tensor, dim 1 -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**{n: np.asarray(1.0, dtype=npdt) for n in inputs}, out: np.zeros((), npdt), comp.dim: 1},
        )
    yield status("int32 input -> 161002", ACLNN_ERR_PARAM_INVALID, {inputs[0]: np.zeros((4, 8), np.int32)})
    yield status("int32 out -> 161002", ACLNN_ERR_PARAM_INVALID, {out: np.zeros((4, 8), np.int32)})
    for missing in [d for d in row_dtypes(spec) if not product.supports(d)][:1]:
        yield status(
            f"out {missing.name} (not on {product.name}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {out: np.zeros((4, 8), numpy_dtype(missing))},
        )
    others = [d for d in row_dtypes(spec) if d is not dt and product.supports(d)]
    if len(inputs) > 1 and others:
        yield status(
            f"input dtypes differ ({others[0].name} {inputs[1]}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {inputs[1]: np.zeros((4, 8), numpy_dtype(others[0]))},
        )
    yield status("wrong out shape -> 161002", ACLNN_ERR_PARAM_INVALID, {out: np.zeros((4, 9), npdt)})
    same = [n for n in inputs[1:] if n != comp.rows]
    if same:
        yield status("input shapes differ -> 161002", ACLNN_ERR_PARAM_INVALID, {same[0]: np.zeros((4, 9), npdt)})
    nine = (1,) * 8 + (2,)
    yield status(
        "rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**{n: np.zeros(nine, npdt) for n in inputs if n != comp.rows}, out: np.zeros(nine, npdt)},
    )


#: The shape of the 64-bit offset case: R = 3 along dim 0 and 2**31 + 5 inner positions.
OFFSET_SHAPE = (3, 2**31 + 5)


#: The shape of the 64-bit offset case of the ``rows`` form: 2**31 + 5 rows of R = 3.
ROWS_OFFSET_SHAPE = (2**31 + 5, 3)


def _offset_cases(spec: OpSpec, product: Product, dt: DType) -> Iterator[Case]:
    comp = compute_of(spec)
    shape = ROWS_OFFSET_SHAPE if comp.rows else OFFSET_SHAPE
    tensor = {"shape": list(shape), "dtype": dt.name}
    row_tensor = {"shape": list(shape[1:]), "dtype": dt.name}
    dev_inputs = [row_tensor if d.source == comp.rows else tensor for d in spec.device_interface.inputs]
    request = {
        "inputs": dev_inputs,
        "outputs": [tensor] * len(spec.outputs),
        "attrs": device_attrs(spec, {} if comp.rows else {comp.dim: 0}),
    }
    params = {"request": request, "shape": shape, "dim": 0, "dtype": dt.name}
    yield Case(
        spec.snake,
        product.name,
        dt.name,
        str(list(shape)),
        "inner past 2**31: tiling in 64 bits",
        params,
        mode="tiling_2g",
    )


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: the first input's shape and dtype, poisoned.
    With every input null, a 0-d fp32 output (phase 1 answers the null input with 161001 first)."""
    x = next((a for a in arrays.values() if a is not None), None)
    if x is None:
        return device_memory(1, np.dtype(np.float32), ())
    return device_memory(int(np.prod(x.shape, dtype=np.int64)), x.dtype, tuple(x.shape))


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when
    every field, the block dim and the key agree and the tasks reach past 2**31 elements, else what differs."""
    p = case.params
    d = tiling_decision(fn.spec, fn.product, tuple(p["shape"]), p["dim"], DType[p["dtype"]])
    for k, v in d.tiling_fields().items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    if (got["block_dim"], got["tiling_key"]) != (d.used_cores, d.tiling_key):
        return f"blockDim/key {got['block_dim']}/{got['tiling_key']}, want {d.used_cores}/{d.tiling_key}"
    rows = compute_of(fn.spec).rows
    outer, r, inner = trailing_view_dims(tuple(p["shape"]), 1) if rows else view_dims(tuple(p["shape"]), p["dim"])
    if d.mode == 1:
        blocks = -(-inner // d.block_width)
        last_start = (outer - 1) * r * inner + (r - 1) * inner + (blocks - 1) * d.block_width
    else:
        last_start = (outer - 1) * r
    if last_start < 2**31:
        return f"the last line starts at element {last_start}: the case does not reach past 32 bits"
    return ""
