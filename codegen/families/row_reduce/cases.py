"""The case matrix of a row-reduce op on one product, derived from the family's tiling (not per op).

Value cases per dtype: R = 1; a few rows of 10; the largest R whose rows fit UB and R just above it (the row
is then cut into chunks, also with one dominant value per row at the first chunk's last element); R far
larger than UB (many chunks); a non-last dim (inner > 1), also with a
negative dim and with more lines than fit UB (line chunks); fewer rows than cores; a 0-d tensor; empty
tensors (a zero outer and a zero R); a large dynamic range (values up to about +-200: without the max
subtraction exp overflows, without fp32 accumulation 16-bit sums lose the small terms); rows with +inf,
-inf and NaN (also inside a multi-chunk row), lines with them along a non-last dim (inner 3), -inf line
chunks before the finite ones (the line-chunked combine of a non-last dim); non-contiguous inputs (a
transposed first input, the others every second element) and a strided out, along the last dim (and dim 0
unless ``quick``); many rows over all cores (a determinism case).
An ``out`` of another supported dtype than a FLOAT input is accepted and gets the result cast to it (CANN's
rule: aclnn_softmax.cpp and the other row ops' op_api check ``out`` against the dtype list only and end with
``l0op::Cast(result, out->GetDataType())``).
Status cases: null pointers, unsupported dtypes (of an input, of ``out``, one the product lacks), inputs of
different dtypes, ranks, shapes that differ, dim out of range (161002).
``quick`` keeps one representative of each group (the UB boundary and multi-chunk rows are kept).

Trailing rows (``compute.rows``): the input broadcast over the rows takes the shape of the last ``k`` dims
(``k`` = 1 unless a case says otherwise; standard normal values); the same R cases (R = 1, the UB limit and
one above, far above, fewer rows than cores, empty, large dynamic range, inf/NaN rows and inside a
multi-chunk row, non-contiguous inputs and outputs, rows over all cores) plus a row of 2 dims, a row of
every dim, a rank-4 tensor with a row of 3 dims and every float attr at 0.5; status cases replace the dim
cases by that input of a wrong shape, of a rank above the first input's, empty, and of another dtype
(161002).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.check.constraints import rejected_by
from codegen.check.offsets import device_attrs
from codegen.families.row_reduce.plan.buffers import row_output_bytes
from codegen.families.row_reduce.plan.tensors import combos, compute_of, default_combo, row_dtypes, row_outputs
from codegen.families.row_reduce.plan.tiling import (
    CHUNK_ALIGN,
    LINE_ALIGN,
    tiling_decision,
    trailing_view_dims,
    view_dims,
)
from codegen.runner import device_memory, numpy_dtype
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product

__all__ = ["check_cases", "check_offsets", "fit_limit", "infer_output", "infer_outputs"]


def fit_limit(spec: OpSpec, product: Product, dtype: DType | DtypeCombo) -> int:
    """The largest R (a multiple of 16) whose last-dim rows still fit UB whole (one more element chunks them),
    for the first input's dtype (its first combination on ``product``) or a dtype combination."""
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype, product)
    t = tiling_decision(spec, product, (1, CHUNK_ALIGN), -1, combo)
    row_b = row_output_bytes(spec, combo)
    one_buffer = t.tile_bytes_per_elem - (t.buffer_num - 1) * t.queue_bytes_per_elem  # the fallback to 1 buffer
    return (
        (t.budget_bytes - LINE_ALIGN * row_b)
        // (one_buffer + t.save_bytes_per_elem + t.line_bytes_per_elem)
        // (LINE_ALIGN)
        * LINE_ALIGN
    )


def combo_label(same_x: list[DtypeCombo], combo: DtypeCombo) -> str:
    """The ``opgen check`` table's dtype column for a case of ``combo``, one of ``same_x`` (the product's
    combinations of one first-input dtype): that dtype, followed when there are several by the tensors that
    tell them apart, e.g. ``FLOAT16 (gamma FLOAT)`` and ``FLOAT16 (gamma FLOAT16)``."""
    first = combo.dtypes[0][1].name
    varying = [n for n, _ in combo.dtypes if len({c.dtype(n) for c in same_x}) > 1]
    return f"{first} ({', '.join(f'{n} {combo.dtype(n).name}' for n in varying)})" if varying else first


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """Value and status cases of a row-reduce op on ``product`` (see the module doc)."""
    rng = np.random.default_rng(20261201)
    comp = compute_of(spec)
    dim_attr = comp.dim
    inputs = spec.input_names
    op = spec.snake
    on_product = [c for c in combos(spec) if c.allowed_on(product)]
    supported = [d for d in row_dtypes(spec) if any(c.dtype(inputs[0]) is d for c in on_product)]
    chosen = [d for d in dtypes if d in supported]
    # the status cases run in one dtype: the first the product supports, if selected (``--dtype``)
    status_dt = next((d for d in supported if d in chosen), None)
    # the product's combinations of each first-input dtype, the first one being that dtype's default
    by_x = {d: [c for c in on_product if c.dtype(inputs[0]) is d] for d in supported}

    rows = comp.rows

    def arrays(
        shape: tuple[int, ...], dt: DType, scale: float = 2.0, row_ndim: int = 1, combo: DtypeCombo | None = None
    ) -> dict[str, np.ndarray]:
        got: dict[str, np.ndarray] = {}
        for k, n in enumerate(inputs):
            ndt = numpy_dtype(combo.dtype(n) if combo is not None else dt)
            if n == rows:  # broadcast over the rows: the shape of the trailing dims
                values = rng.standard_normal(shape[len(shape) - row_ndim :])
            elif k > 0:  # later inputs (a forward output) in (0, 1)
                values = rng.uniform(0.01, 1.0, shape)
            else:
                values = rng.standard_normal(shape) * scale
            got[n] = np.asarray(values).astype(ndt)
        return got

    def case(
        dt: DType,
        shape: tuple[int, ...],
        dim: int,
        name: str,
        params: dict[str, Any] | None = None,
        label_dt: str | None = None,
        **kw: Any,
    ) -> Case:
        p = params if params is not None else arrays(shape, dt)
        same_x = by_x.get(dt, [])
        dt_label = label_dt or (combo_label(same_x, same_x[0]) if same_x else dt.name)
        if rows:
            k = p[rows].ndim
            label = f"{name} ({rows} of {k} dim(s))"
            rejected = rejected_by(spec, product, p)
            if rejected is not None:  # a documented limit of the product: the call must be refused
                kw = {k2: v for k2, v in kw.items() if k2 != "tags"}
                outs = infer_outputs(spec, {n: p[n] for n in inputs}, {})
                p = {**p, **{n: np.zeros(a.shape, a.dtype) for n, a in outs.items()}}
                label = f"{label}: {rejected.name} -> {rejected.status}"
                return Case(op, product.name, dt_label, str(list(shape)), label, p, expect_status=rejected.status, **kw)
            return Case(op, product.name, dt_label, str(list(shape)), label, p, **kw)
        return Case(op, product.name, dt_label, str(list(shape)), f"{name} (dim {dim})", {**p, dim_attr: dim}, **kw)

    if rows:
        for dt in chosen:
            for k, combo in enumerate(c for c in on_product if c.dtype(inputs[0]) is dt):
                yield from _rows_value_cases(spec, product, dt, combo, k == 0, quick, arrays, case)
        if status_dt is not None:
            yield from _status_cases(spec, product, status_dt, rng)
        if chosen:
            yield from _offset_cases(spec, product, chosen[0])
        return

    for dt in chosen:
        fit = fit_limit(spec, product, dt)
        yield case(dt, (7, 1), -1, "R = 1")
        yield case(dt, (5, 10), 1, "rows of 10")
        yield case(dt, (2, fit), -1, "R at the UB limit (rows whole)")
        yield case(dt, (2, fit + 1), -1, "R one above the UB limit (chunked)")
        edge = arrays((2, fit + 1), dt)
        for name in inputs:  # one dominant term per row, at the first chunk's last element
            # a chunk may be longer than the row where UB is small (a tiling's chunk length is rounded up)
            edge[name][:, min(tiling_decision(spec, product, (2, fit + 1), -1, dt).chunk_len, fit + 1) - 1] = 8.0
        yield case(dt, (2, fit + 1), -1, "a dominant value at a chunk's last element (chunked)", edge)
        yield case(dt, (1, 3 * fit + 77), -1, "R far above UB (multi-chunk)")
        yield case(dt, (3, 33, 5), 1, "inner 5 (non-last dim)")
        yield case(dt, (4, 6, 70), -3, "negative dim, inner 70")
        t = tiling_decision(spec, product, (1, 10**6, 3), 1, dt)
        lines = t.tile_rows if t.chunk_num > 1 else 0
        if lines:
            yield case(dt, (1, lines + 5, 3), 1, "inner 3, more lines than fit UB (line chunks)")
            shape_l = (2, 2 * lines + 5, 3)
            t_l = tiling_decision(spec, product, shape_l, 1, dt)
            lead_l = arrays(shape_l, dt)
            z = lead_l[inputs[0]]
            z[0, : t_l.tile_rows + 2, 0] = -np.inf  # line 0's first chunk holds only -inf
            z[1, :, 1] = -np.inf  # a line of only -inf
            yield case(dt, shape_l, 1, "-inf line chunks before the finite ones, inner 3", lead_l)
        yield case(dt, (3, 200), -1, "fewer rows than cores")
        yield case(dt, (), 0, "0-d tensor")
        yield case(dt, (0, 5), 1, "empty outer")
        yield case(dt, (3, 0), -1, "empty R")
        big = 60.0 if dt is DType.FLOAT16 else 200.0
        yield case(dt, (4, 300), -1, "large dynamic range", arrays((4, 300), dt, big))
        yield case(dt, (4, 40, 3), 1, "large dynamic range, inner 3", arrays((4, 40, 3), dt, big))
        yield case(dt, (6, 50), -1, "inf and NaN rows", _special_rows(arrays((6, 50), dt), inputs[0], dt))
        yield case(dt, (6, 50, 3), 1, "inf and NaN lines, inner 3", _special_lines(arrays((6, 50, 3), dt), inputs[0]))
        yield case(dt, (40, 24), -1, "non-contiguous inputs and out", _non_contiguous(spec, arrays((40, 24), dt)))
        if not quick:
            nc = _non_contiguous(spec, arrays((40, 24), dt))
            yield case(dt, (40, 24), 0, "non-contiguous inputs and out, dim 0", nc)
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
        yield case(dt, (5, 81), -1, "R = 81 (16k + 1: an odd half in a halving fold)")
        if dt is chosen[0]:
            several = several_tiles_rows(spec, product, dt)
            if several is not None:
                yield case(dt, (several, 37), -1, "a second, partial row tile on some cores")
            blocks = several_tasks_shape(spec, product, dt)
            if blocks is not None:
                yield case(dt, blocks, 1, "several tasks per core, full and partial blocks")
        if dt is DType.FLOAT and not spec.dtype_combos:
            # out of another supported dtype: accepted, the FLOAT result cast to it (CANN's rule; with
            # dtype_combos the table says which out dtypes a FLOAT input takes)
            for other in [d for d in supported if d is not DType.FLOAT][: 1 if quick else None]:
                cast = arrays((5, 37), dt)
                cast[spec.output_names[0]] = np.zeros((5, 37), numpy_dtype(other))
                yield case(dt, (5, 37), -1, f"out {other.name}: the result cast", cast)
        # the first input's other dtype combinations (dtype_combos): the tiling key's dtypes, a chunked row
        # and a strided one, every tensor in its column's dtype
        for combo in by_x[dt][1:]:
            fit_c = fit_limit(spec, product, combo)
            label_dt = combo_label(by_x[dt], combo)
            for shape, dim, name in (
                ((5, 10), 1, "rows of 10"),
                ((2, fit_c + 1), -1, "R one above the UB limit (chunked)"),
                ((3, 33, 5), 1, "inner 5 (non-last dim)"),
            ):
                p = arrays(shape, dt, combo=combo)
                p.update({o: np.zeros(shape, numpy_dtype(combo.dtype(o))) for o in spec.output_names})
                yield case(dt, shape, dim, f"{name} [{combo.text}]", p, label_dt)
    if status_dt is not None:
        yield from _status_cases(spec, product, status_dt, rng)
    if chosen:
        yield from _offset_cases(spec, product, chosen[0])


def _rows_value_cases(
    spec: OpSpec,
    product: Product,
    dt: DType,
    combo: DtypeCombo,
    full: bool,
    quick: bool,
    arrays: Any,
    case: Any,
) -> Iterator[Case]:
    """The value cases of the ``rows`` form (see the module doc) for the first input's dtype ``dt`` and the
    dtype combination ``combo`` (every case when ``full``, the first combination of ``dt``; else a row that
    fits, a chunked row, a multi-chunk row and the inf/NaN rows); ``arrays`` and ``case`` are
    :func:`check_cases`' helpers."""
    x_name = spec.input_names[0]
    floats = [a.name for a in spec.attrs if a.type in ("float", "double")]
    same_x = [c for c in combos(spec) if c.dtype(x_name) is dt and c.allowed_on(product)]
    several = len(same_x) > 1
    tag = f" [{combo.text}]" if several else ""
    label_dt = combo_label(same_x, combo)

    def arr(shape: tuple[int, ...], scale: float = 2.0, row_ndim: int = 1) -> dict[str, np.ndarray]:
        return dict(arrays(shape, dt, scale, row_ndim, combo))

    def one(shape: tuple[int, ...], name: str, params: dict[str, Any] | None = None, **kw: Any) -> Case:
        return case(dt, shape, -1, name + tag, params if params is not None else arr(shape), label_dt, **kw)

    fit = fit_limit(spec, product, combo)
    if not full:
        yield one((5, 10), "rows of 10")
        yield one((2, fit + 1), "R one above the UB limit (chunked)")
        yield one((1, 3 * fit + 77), "R far above UB (multi-chunk)")
        yield one((6, 50), "inf and NaN rows", _special_rows(arr((6, 50)), x_name, dt))
        return
    yield one((7, 1), "R = 1")
    yield one((5, 10), "rows of 10")
    yield one((2, fit), "R at the UB limit (rows whole)")
    yield one((2, fit + 1), "R one above the UB limit (chunked)")
    yield one((1, 3 * fit + 77), "R far above UB (multi-chunk)")
    yield one((3, 200), "fewer rows than cores")
    yield one((0, 16), "empty outer")
    yield one((3, 4, 6), "row of 2 dims", arr((3, 4, 6), row_ndim=2))
    yield one((4, 6), "row of every dim", arr((4, 6), row_ndim=2))
    if not quick:
        yield one((2, 3, 4, 5), "rank 4, row of 3 dims", arr((2, 3, 4, 5), row_ndim=3))
        yield one((9,), "rank 1")
    big = 60.0 if dt is DType.FLOAT16 else 200.0
    yield one((4, 300), "large dynamic range", arr((4, 300), big))
    yield one((6, 50), "inf and NaN rows", _special_rows(arr((6, 50)), x_name, dt))
    yield one((40, 24), "non-contiguous inputs and outputs", _non_contiguous(spec, arr((40, 24))))
    long = arr((2, 2 * fit + 9), 5.0)
    long[x_name][0, fit + 3] = np.inf
    long[x_name][1, 2 * fit + 1] = -np.inf
    yield one((2, 2 * fit + 9), "inf inside a multi-chunk row", long)
    if floats:
        yield one((5, 33), "float attrs 0.5", {**arr((5, 33)), **{n: 0.5 for n in floats}})
    yield one((3 * product.vector_core_num + 5, 37), "rows over all cores", tags=("multicore",))
    yield one((5, 81), "R = 81 (16k + 1: an odd half in a halving fold)")
    tiled = several_tiles_rows(spec, product, combo)
    if tiled is not None:
        yield one((tiled, 37), "a second, partial row tile on some cores")


def several_tiles_rows(spec: OpSpec, product: Product, dtype: DType | DtypeCombo, length: int = 37) -> int | None:
    """A row count at which rows of ``length`` give some cores a second, partial row tile: as many rows as
    fill one tile (the tiling's rows per tile, ``tileRows``) on every vector core, plus half the cores' count
    more (the first of them take one row more: a tile of one row). None when rows of ``length`` do not fit a
    tile whole (a chunked row has one row per tile anyway).

    Raises:
        ValueError: from :func:`codegen.families.row_reduce.plan.tiling.tiling_decision` (a dtype the op does not
            take, a UB too small for one chunk).
    """
    cores = product.vector_core_num
    probe = tiling_decision(spec, product, (1 << 40, length), -1, dtype)
    if probe.mode != 0 or probe.chunk_num != 1:
        return None
    rows = cores * probe.tile_rows + cores // 2 + 1
    t = tiling_decision(spec, product, (rows, length), -1, dtype)
    return rows if t.task_num > t.used_cores * t.tile_rows else None


def several_tasks_shape(spec: OpSpec, product: Product, dtype: DType | DtypeCombo) -> tuple[int, int, int] | None:
    """An ``(outer, 8, inner)`` shape reduced along dim 1 (mode 1) whose lines split into several blocks, the
    last one partial, with more tasks (line blocks) than cores: some cores take a full and a partial block.
    None when no outer below the product's cores gives that.

    Raises:
        ValueError: from :func:`codegen.families.row_reduce.plan.tiling.tiling_decision` (a dtype the op does not
            take, a UB too small for one chunk).
    """
    cores = product.vector_core_num
    for outer in range(max(2, cores - cores // 6), 1, -1):
        t = tiling_decision(spec, product, (outer, 8, 40), 1, dtype)
        if t.mode == 1 and t.task_num > t.used_cores and 40 % t.block_width and t.block_width < 40:
            return (outer, 8, 40)
    return None


def _special_rows(p: dict[str, np.ndarray], name: str, dt: DType) -> dict[str, np.ndarray]:
    x = p[name]
    x[0, 3] = np.inf
    x[1, 7] = -np.inf
    x[2, :] = -np.inf
    x[3, 11] = np.nan
    x[4, 0] = np.inf
    x[4, 1] = -np.inf
    return p


def _special_lines(p: dict[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """``p`` with +inf, -inf and NaN placed along dim 1 of ``name`` (shape ``(>= 5, >= 12, 3)``), each line
    (outer, inner) of the reduction getting its own pattern: one +inf, one -inf, a line of only -inf, a NaN,
    +inf and -inf together; other lines stay finite."""
    x = p[name]
    x[0, 3, 0] = np.inf
    x[1, 7, 1] = -np.inf
    x[2, :, 2] = -np.inf
    x[3, 11, 0] = np.nan
    x[4, 0, 1] = np.inf
    x[4, 1, 1] = -np.inf
    return p


def _non_contiguous(spec: OpSpec, p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The same input values in non-contiguous views and every output a strided view: the first input of
    rank >= 2 the transpose of a transposed storage, every other input (the rows input too) every second
    element of its last dim in a storage twice as wide; each output (its shape and dtype from
    :func:`infer_outputs`) every second element of a zeroed storage twice as wide (a 0-d one as it is)."""
    got: dict[str, np.ndarray] = {}
    for k, (n, a) in enumerate(p.items()):
        if k == 0 and a.ndim >= 2:
            view = np.empty(a.shape[::-1], a.dtype).T
        elif a.ndim:
            view = np.empty((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)[..., ::2]
        else:
            view = np.empty((), a.dtype)
        view[...] = a
        got[n] = view
    present: dict[str, np.ndarray | None] = dict(p)
    for n, o in infer_outputs(spec, present, {}).items():
        got[n] = np.zeros((*o.shape[:-1], 2 * o.shape[-1]), o.dtype)[..., ::2] if o.ndim else np.zeros((), o.dtype)
    return got


def _status_cases(spec: OpSpec, product: Product, dt: DType, rng: np.random.Generator) -> Iterator[Case]:
    """Null pointers (161001), dtypes outside the product's lists or combinations (161002), shapes and ranks
    (the spec's ``shape_status``; 161002 unless declared), a dim out of range (161002); on a call that is
    accepted otherwise (x ``[4, 16]``; in the ``rows`` form the rows input ``[16]``)."""
    comp = compute_of(spec)
    op = spec.snake
    inputs = spec.input_names
    outs = spec.output_names
    out = outs[0]
    shape_st = spec.shape_status
    combo = default_combo(spec, dt, product)
    npdt = numpy_dtype(dt)
    good: dict[str, Any] = {n: rng.standard_normal((4, 16)).astype(numpy_dtype(combo.dtype(n))) for n in inputs}
    if comp.rows:
        good[comp.rows] = rng.standard_normal((16,)).astype(numpy_dtype(combo.dtype(comp.rows)))
    else:
        good[comp.dim] = -1
    allocated = infer_outputs(spec, {n: good[n] for n in inputs}, {})
    good.update({n: np.zeros(a.shape, a.dtype) for n, a in allocated.items()})
    per_row = [n for n in outs if good[n].shape != good[inputs[0]].shape]

    def status(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(op, product.name, dt.name, "error", name, {**good, **params}, expect_status=code, mode=mode)

    for n in [*inputs, *outs]:
        yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {n: None})
    yield status("null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_workspace_size")
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {}, "null_executor")
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {}, "phase2_twice")
    if comp.rows:
        g = comp.rows
        gdt = good[g].dtype
        bad_g = {
            "not the last dim's shape": np.ones((4,), gdt),
            "of the first dim's shape": np.ones((4, 1), gdt),
            "of rank above x's": np.ones((1, 4, 16), gdt),
            "0-d": np.asarray(1.0, gdt),
        }
        for what, arr in bad_g.items():
            yield status(f"{g} {what} -> {shape_st}", shape_st, {g: arr})
        empty = {inputs[0]: np.zeros((4, 0), good[inputs[0]].dtype), g: np.zeros((0,), gdt)}
        empty.update({n: np.zeros((4, 1 if n in per_row else 0), good[n].dtype) for n in outs})
        yield status(f"{g} empty -> {shape_st}", shape_st, empty)
        for n in per_row:
            yield status(f"{n} of x's shape -> {shape_st}", shape_st, {n: np.zeros((4, 16), good[n].dtype)})
            yield status(f"{n} of 1 dim -> {shape_st}", shape_st, {n: np.zeros((4,), good[n].dtype)})
    else:
        for bad in (2, -3, 100):
            yield status(f"dim {bad} out of range -> 161002", ACLNN_ERR_PARAM_INVALID, {comp.dim: bad})
        yield status(
            "0-d tensor, dim 1 -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**{n: np.asarray(1.0, dtype=npdt) for n in inputs}, out: np.zeros((), npdt), comp.dim: 1},
        )
    yield from _dtype_status_cases(spec, product, good, status)
    yield status("int32 input -> 161002", ACLNN_ERR_PARAM_INVALID, {inputs[0]: np.zeros((4, 16), np.int32)})
    yield status("int32 out -> 161002", ACLNN_ERR_PARAM_INVALID, {out: np.zeros(good[out].shape, np.int32)})
    if not spec.dtype_combos:  # with dtype_combos the outputs' dtypes are cases of _dtype_status_cases
        for missing in [d for d in row_dtypes(spec) if not product.supports(d)][:1]:
            yield status(
                f"out {missing.name} (not on {product.name}) -> 161002",
                ACLNN_ERR_PARAM_INVALID,
                {out: np.zeros(good[out].shape, numpy_dtype(missing))},
            )
    yield status(f"wrong out shape -> {shape_st}", shape_st, {out: np.zeros((4, 9), good[out].dtype)})
    same = [n for n in inputs[1:] if n != comp.rows]
    if same:
        yield status(f"input shapes differ -> {shape_st}", shape_st, {same[0]: np.zeros((4, 9), npdt)})
    nine = (1,) * 8 + (2,)
    yield status(
        f"rank 9 -> {shape_st}",
        shape_st,
        {
            **{n: np.zeros(nine, good[n].dtype) for n in inputs if n != comp.rows},
            **{n: np.zeros((*nine[:-1], 1) if n in per_row else nine, good[n].dtype) for n in outs},
            **({comp.rows: np.zeros((2,), good[comp.rows].dtype)} if comp.rows else {}),
        },
    )
    # below the spec's lowest rank: every tensor of the first input's shape one dim short of it
    low = max(t.rank[0] for t in (*spec.inputs, *spec.outputs) if t.name != comp.rows)
    if low > 0:
        short = (2,) * (low - 1)
        yield status(
            f"rank {low - 1} (below {low}) -> {shape_st}",
            shape_st,
            {
                **{n: np.zeros(short, good[n].dtype) for n in inputs if n != comp.rows},
                **{n: np.zeros(short, good[n].dtype) for n in outs},
                **({comp.rows: np.zeros((2,), good[comp.rows].dtype)} if comp.rows else {comp.dim: -1}),
            },
        )


def _dtype_status_cases(spec: OpSpec, product: Product, good: dict[str, Any], status: Any) -> Iterator[Case]:
    """161002 for tensor dtypes the product does not take together: a second input of another float dtype
    (the combination of the inputs is not allowed on ``product``), and with ``dtype_combos`` each output of
    another float dtype."""
    inputs = spec.input_names
    allowed = [c for c in combos(spec) if c.allowed_on(product)]
    floats = [d for d in (DType.FLOAT, DType.FLOAT16, DType.BF16) if product.supports(d)]
    first_dt = next(c.dtype(inputs[0]) for c in allowed if numpy_dtype(c.dtype(inputs[0])) == good[inputs[0]].dtype)
    for n in inputs[1:]:
        for d in floats:
            trial = {
                m: (d if m == n else next(c.dtype(m) for c in allowed if c.dtype(inputs[0]) is first_dt))
                for m in inputs
            }
            if any(all(c.dtype(m) is trial[m] for m in inputs) for c in allowed):
                continue
            arr = np.asarray(good[n]).astype(numpy_dtype(d))
            yield status(f"{n} {d.name} with {inputs[0]} {first_dt.name} -> 161002", ACLNN_ERR_PARAM_INVALID, {n: arr})
            break
    if spec.dtype_combos:
        for n in spec.output_names:
            taken = {c.dtype(n) for c in allowed if c.dtype(inputs[0]) is first_dt}
            other = next((d for d in floats if d not in taken), None)
            if other is not None:
                arr = np.zeros(good[n].shape, numpy_dtype(other))
                yield status(f"{n} {other.name} -> 161002", ACLNN_ERR_PARAM_INVALID, {n: arr})


#: The shape of the 64-bit offset case: R = 3 along dim 0 and 2**31 + 5 inner positions.
OFFSET_SHAPE = (3, 2**31 + 5)


#: The shape of the 64-bit offset case of the ``rows`` form: 2**31 + 5 rows of R = 3.
ROWS_OFFSET_SHAPE = (2**31 + 5, 3)


def _offset_cases(spec: OpSpec, product: Product, dt: DType) -> Iterator[Case]:
    comp = compute_of(spec)
    shape = ROWS_OFFSET_SHAPE if comp.rows else OFFSET_SHAPE
    combo = default_combo(spec, dt, product)
    per_row = set(row_outputs(spec))
    dev = spec.device_interface

    def tensor(source: str | None) -> dict[str, Any]:
        name = source or spec.input_names[0]
        dims = shape[1:] if name == comp.rows else (shape[0], 1) if name in per_row else shape
        return {"shape": list(dims), "dtype": combo.dtype(name).name}

    request = {
        "inputs": [tensor(d.source) for d in dev.inputs],
        "outputs": [tensor(d.source) for d in dev.outputs],
        "attrs": device_attrs(spec, {} if comp.rows else {comp.dim: 0}),
    }
    params = {"request": request, "shape": shape, "dim": 0, "dtype": dt.name, "combo": combos(spec).index(combo)}
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


def infer_outputs(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> dict[str, np.ndarray]:
    """Every output a call allocates when the caller passed none, poisoned: the shape from the output's shape
    rule (the first input's shape when it cannot be evaluated, e.g. a null input: phase 1 answers first), the
    dtype of the dtype combination whose inputs match the arrays' dtypes (:func:`combos`), else the first
    input's (an output whose combinations all give one dtype: that one)."""
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate

    first = infer_output(spec, arrays, attrs)
    present = {n: a for n, a in arrays.items() if a is not None}
    in_dtypes = {n: a.dtype for n, a in present.items()}
    match = next(
        (
            c
            for c in combos(spec)
            if all(n in in_dtypes and numpy_dtype(c.dtype(n)) == in_dtypes[n] for n in spec.input_names)
        ),
        None,
    )
    out: dict[str, np.ndarray] = {}
    for t in spec.outputs:
        shape = tuple(first.shape)
        if t.shape is not None:
            with contextlib.suppress(ExprEvalError):  # a null input: phase 1 answers it first
                shape = as_shape(evaluate(t.shape, {**present, **attrs}))
        dts = {c.dtype(t.name) for c in combos(spec)}
        if match is not None:
            dtype = numpy_dtype(match.dtype(t.name))
        elif len(dts) == 1 and spec.dtype_combos:
            dtype = numpy_dtype(next(iter(dts)))
        else:
            dtype = first.dtype
        out[t.name] = device_memory(int(np.prod(shape, dtype=np.int64)), np.dtype(dtype), shape)
    return out


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when
    every field, the block dim and the key agree and the tasks reach past 2**31 elements, else what differs."""
    p = case.params
    d = tiling_decision(fn.spec, fn.product, tuple(p["shape"]), p["dim"], combos(fn.spec)[p["combo"]])
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
