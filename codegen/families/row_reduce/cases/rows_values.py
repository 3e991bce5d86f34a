"""The value cases of the ``rows`` form (trailing dims reduced as one row, an input broadcast over the
rows) on one product and dtype combination."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.families.row_reduce.cases.labels import combo_label
from codegen.families.row_reduce.cases.patterns import non_contiguous, special_rows
from codegen.families.row_reduce.cases.tiling_probes import fit_limit, several_tiles_rows
from codegen.families.row_reduce.plan.tensors import callable_combos, fallback_rounding, launched_combo
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product


def rows_value_cases(
    spec: OpSpec,
    product: Product,
    dt: DType,
    combo: DtypeCombo,
    full: bool,
    quick: bool,
    arrays: Any,
    case: Any,
) -> Iterator[Case]:
    """The value cases of the ``rows`` form (see :mod:`codegen.families.row_reduce.cases`) for the first
    input's dtype ``dt`` and the dtype combination ``combo`` (every case when ``full``, the first combination
    of ``dt``; else a row that fits, a chunked row, a multi-chunk row and the inf/NaN rows); ``arrays`` and
    ``case`` are :func:`matrix.check_cases`' helpers."""
    x_name = spec.input_names[0]
    floats = [a.name for a in spec.attrs if a.type in ("float", "double")]
    same_x = [c for c in callable_combos(spec, product) if c.dtype(x_name) is dt]
    several = len(same_x) > 1
    tag = f" [{combo.text}]" if several else ""
    label_dt = combo_label(same_x, combo)

    def arr(shape: tuple[int, ...], scale: float = 2.0, row_ndim: int = 1) -> dict[str, np.ndarray]:
        return dict(arrays(shape, dt, scale, row_ndim, combo))

    rounding = fallback_rounding(spec, product, combo)

    def one(shape: tuple[int, ...], name: str, params: dict[str, Any] | None = None, **kw: Any) -> Case:
        p = params if params is not None else arr(shape)
        return case(dt, shape, -1, name + tag, p, label_dt, **({"rounded_to": rounding} if rounding else {}), **kw)

    launched = launched_combo(spec, combo)  # the column a call casting fixed inputs launches
    fit = fit_limit(spec, product, launched)
    # one more chunked row than cores: the first core takes two (the per-row state and a column sum's partial,
    # set by a core's first row and added into by the later ones, carried from row to row)
    several_chunked = (product.vector_core_num + 1, fit + 1)
    # rows of a multiple of 16 elements lie back to back in GM and UB: a tile of them is one copy
    contiguous = (2 * product.vector_core_num + 3, 64)
    if not full:
        yield one((5, 10), "rows of 10")
        yield one((2, fit + 1), "R one above the UB limit (chunked)")
        yield one((1, 3 * fit + 77), "R far above UB (multi-chunk)")
        yield one(several_chunked, "chunked rows, two on the first core")
        yield one(contiguous, "rows of 64 (a tile of rows is one copy)")
        yield one((6, 50), "inf and NaN rows", special_rows(arr((6, 50)), x_name, dt))
        return
    yield one((7, 1), "R = 1")
    yield one((5, 10), "rows of 10")
    yield one((2, fit), "R at the UB limit (rows whole)")
    yield one((2, fit + 1), "R one above the UB limit (chunked)")
    yield one((1, 3 * fit + 77), "R far above UB (multi-chunk)")
    yield one((3, 200), "fewer rows than cores")
    yield one(several_chunked, "chunked rows, two on the first core")
    yield one((0, 16), "empty outer")
    yield one((0, fit + 1), "empty outer, chunked rows")
    yield one((3, 4, 6), "row of 2 dims", arr((3, 4, 6), row_ndim=2))
    yield one((4, 6), "row of every dim", arr((4, 6), row_ndim=2))
    if not quick:
        yield one((2, 3, 4, 5), "rank 4, row of 3 dims", arr((2, 3, 4, 5), row_ndim=3))
        yield one((9,), "rank 1")
    big = 60.0 if dt is DType.FLOAT16 else 200.0
    yield one((4, 300), "large dynamic range", arr((4, 300), big))
    yield one((6, 50), "inf and NaN rows", special_rows(arr((6, 50)), x_name, dt))
    yield one((40, 24), "non-contiguous inputs and outputs", non_contiguous(spec, arr((40, 24))))
    long = arr((2, 2 * fit + 9), 5.0)
    long[x_name][0, fit + 3] = np.inf
    long[x_name][1, 2 * fit + 1] = -np.inf
    yield one((2, 2 * fit + 9), "inf inside a multi-chunk row", long)
    if floats:
        yield one((5, 33), "float attrs 0.5", {**arr((5, 33)), **{n: 0.5 for n in floats}})
    yield one((3 * product.vector_core_num + 5, 37), "rows over all cores", tags=("multicore",))
    yield one(contiguous, "rows of 64 (a tile of rows is one copy)")
    yield one((5, 81), "R = 81 (16k + 1: an odd half in a halving fold)")
    tiled = several_tiles_rows(spec, product, launched)
    if tiled is not None:
        yield one((tiled, 37), "a second, partial row tile on some cores")
