"""The value cases of the ``dim`` form (a reduction along one dim) on one product and dtype: R at the UB
limit and past it, strided dims and line chunks, empty and 0-d tensors, special values, non-contiguous views,
several tiles and tasks per core, and the other dtype combinations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.families.row_reduce.cases.labels import combo_label
from codegen.families.row_reduce.cases.patterns import non_contiguous, special_lines, special_rows
from codegen.families.row_reduce.cases.tiling_probes import fit_limit, several_tasks_shape, several_tiles_rows
from codegen.families.row_reduce.plan.tensors import fallback_rounding
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product


def dim_value_cases(
    spec: OpSpec,
    product: Product,
    dt: DType,
    first: bool,
    supported: list[DType],
    same_x: list[DtypeCombo],
    quick: bool,
    arrays: Any,
    case: Any,
) -> Iterator[Case]:
    """The value cases of the ``dim`` form (see :mod:`codegen.families.row_reduce.cases`) for the first
    input's dtype ``dt`` (``first``: the first dtype selected, which also gets the cases of a second row tile
    and of several tasks per core); ``supported``: the product's dtypes of the first input; ``same_x``: the
    product's combinations whose first input is ``dt``, its default first; ``arrays`` and ``case`` are
    :func:`matrix.check_cases`' helpers."""
    inputs = spec.input_names
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
    if not quick:  # many chunks: a combine or loop bound that goes wrong past a few chunks
        yield case(dt, (1, 12 * fit + 77), -1, "R of 13 chunks")
        # one more chunked row than cores: the first core takes two (the per-row state carried from row to
        # row; the rows form runs it in --quick too, where a column sum's partial also carries over)
        yield case(dt, (product.vector_core_num + 1, fit + 1), -1, "chunked rows, two on the first core")
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
    yield case(dt, (6, 50), -1, "inf and NaN rows", special_rows(arrays((6, 50), dt), inputs[0], dt))
    yield case(dt, (6, 50, 3), 1, "inf and NaN lines, inner 3", special_lines(arrays((6, 50, 3), dt), inputs[0]))
    yield case(dt, (40, 24), -1, "non-contiguous inputs and out", non_contiguous(spec, arrays((40, 24), dt)))
    if not quick:
        nc = non_contiguous(spec, arrays((40, 24), dt))
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
    # rows of a multiple of 16 elements lie back to back in GM and UB: a tile of them is one copy
    yield case(dt, (2 * product.vector_core_num + 3, 64), -1, "rows of 64 (a tile of rows is one copy)")
    yield case(dt, (5, 81), -1, "R = 81 (16k + 1: an odd half in a halving fold)")
    if first:
        several = several_tiles_rows(spec, product, dt)
        if several is not None:
            yield case(dt, (several, 37), -1, "a second, partial row tile on some cores")
        blocks = several_tasks_shape(spec, product, dt)
        if blocks is not None:
            yield case(dt, blocks, 1, "several tasks per core, full and partial blocks")
    if dt is DType.FLOAT and not spec.dtype_combos:
        # out of another supported dtype: accepted, the FLOAT result cast to it (CANN's rule; with
        # dtype_combos the table says which out dtypes a FLOAT input takes); with promote_type: out the
        # inputs are cast to it first instead
        what = "the inputs cast to it first" if spec.promote_type == "out" else "the result cast"
        for other in [d for d in supported if d is not DType.FLOAT][: 1 if quick else None]:
            cast = arrays((5, 37), dt)
            cast[spec.output_names[0]] = np.zeros((5, 37), numpy_dtype(other))
            out_label = f"{dt.name} ({spec.output_names[0]} {other.name})"  # its own row: another output dtype
            yield case(dt, (5, 37), -1, f"out {other.name}: {what}", cast, out_label)
    if dt is not DType.FLOAT and DType.FLOAT in supported and spec.promote_type == "out":
        # a 16-bit input with a FLOAT out: cast to fp32 first, the device op runs in fp32 (exact to fp32)
        promoted = arrays((5, 37), dt)
        promoted[spec.output_names[0]] = np.zeros((5, 37), np.float32)
        out_label = f"{dt.name} ({spec.output_names[0]} FLOAT)"
        yield case(dt, (5, 37), -1, "out FLOAT: the inputs cast to it first", promoted, out_label)
    # the first input's other dtype combinations (dtype_combos): the tiling key's dtypes, a chunked row
    # and a strided one, every tensor in its column's dtype
    for combo in same_x[1:]:
        fit_c = fit_limit(spec, product, combo)
        label_dt = combo_label(same_x, combo)
        rounding = fallback_rounding(spec, product, combo)
        for shape, dim, name in (
            ((5, 10), 1, "rows of 10"),
            ((2, fit_c + 1), -1, "R one above the UB limit (chunked)"),
            ((3, 33, 5), 1, "inner 5 (non-last dim)"),
        ):
            p = arrays(shape, dt, combo=combo)
            p.update({o: np.zeros(shape, numpy_dtype(combo.dtype(o))) for o in spec.output_names})
            yield case(dt, shape, dim, f"{name} [{combo.text}]", p, label_dt, rounded_to=rounding)
