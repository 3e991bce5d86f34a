"""The case matrix of a row-reduce op on one product: the dtypes selected, how a case's arrays are drawn
and labelled, and the groups (value, status, 64-bit offset cases) in order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.check.constraints import rejected_by
from codegen.families.row_reduce.cases.dim_values import dim_value_cases
from codegen.families.row_reduce.cases.host_inputs import host_input_cases
from codegen.families.row_reduce.cases.labels import combo_label
from codegen.families.row_reduce.cases.null_outputs import null_output_cases
from codegen.families.row_reduce.cases.offsets import offset_cases
from codegen.families.row_reduce.cases.outputs import infer_outputs
from codegen.families.row_reduce.cases.rows_values import rows_value_cases
from codegen.families.row_reduce.cases.status import status_cases
from codegen.families.row_reduce.plan.tensors import callable_combos, compute_of, row_dtypes
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """Value and status cases of a row-reduce op on ``product`` (see :mod:`codegen.families.row_reduce.cases`):
    those of the device op's inputs (:meth:`OpSpec.launched`; a host input left null), then the host inputs'
    (:func:`host_input_cases`)."""
    rng = np.random.default_rng(20261201)
    host_spec, spec = spec, spec.launched()
    comp = compute_of(spec)
    dim_attr = comp.dim
    inputs = spec.input_names
    op = spec.snake
    on_product = callable_combos(spec, product)
    supported = [d for d in row_dtypes(spec) if any(c.dtype(inputs[0]) is d for c in on_product)]
    chosen = [d for d in dtypes if d in supported]
    # the status cases run in one dtype: the first the product supports, if selected (``--dtype``)
    status_dt = next((d for d in supported if d in chosen), None)
    # the product's combinations of each first-input dtype, the first one being that dtype's default
    by_x = {d: [c for c in on_product if c.dtype(inputs[0]) is d] for d in supported}

    rows = comp.rows

    def arrays(
        shape: tuple[int, ...], dt: DType, scale: float = 2.0, row_ndim: int = 1, combo: DtypeCombo | None = None
    ) -> dict[str, Any]:
        got: dict[str, Any] = {}
        for k, n in enumerate(inputs):
            ndt = numpy_dtype(combo.dtype(n) if combo is not None else dt)
            if n in comp.row_inputs:  # broadcast over the rows: the shape of the trailing dims
                values = rng.standard_normal(shape[len(shape) - row_ndim :])
            elif n in comp.per_row_inputs:  # one value per row (a saved statistic) in (0, 1)
                values = rng.uniform(0.01, 1.0, (*shape[: len(shape) - row_ndim], *(1,) * row_ndim))
            elif k > 0:  # later inputs (a forward output) in (0, 1)
                values = rng.uniform(0.01, 1.0, shape)
            else:
                values = rng.standard_normal(shape) * scale
            got[n] = np.asarray(values).astype(ndt)
        if comp.rows_attr:  # the int_array giving the reduced dims: their sizes
            got[comp.rows_attr] = tuple(shape[len(shape) - row_ndim :])
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
            k = len(p[rows]) if comp.rows_attr else p[rows].ndim
            label = f"{name} ({rows} of {k} dim(s))"
            rejected = rejected_by(spec, product, p)
            if rejected is not None:  # a documented limit of the product: the call must be refused
                kw = {k2: v for k2, v in kw.items() if k2 != "tags"}
                outs = infer_outputs(spec, {n: p[n] for n in inputs}, {n: v for n, v in p.items() if n not in inputs})
                p = {**p, **{n: np.zeros(a.shape, a.dtype) for n, a in outs.items() if n not in p}}
                label = f"{label}: {rejected.name} -> {rejected.status}"
                return Case(op, product.name, dt_label, str(list(shape)), label, p, expect_status=rejected.status, **kw)
            return Case(op, product.name, dt_label, str(list(shape)), label, p, **kw)
        return Case(op, product.name, dt_label, str(list(shape)), f"{name} (dim {dim})", {**p, dim_attr: dim}, **kw)

    ranks = {t.name: t.rank for t in (*spec.inputs, *spec.outputs)}

    def within_ranks(cases: Iterator[Case]) -> Iterator[Case]:
        """The value cases whose tensors all have a rank the spec allows them (a spec of rank [1, 8] gets no
        0-d case: phase 1 would refuse it, which the status cases check)."""
        for c in cases:
            arrays_in = ((n, v) for n, v in c.params.items() if n in ranks and isinstance(v, np.ndarray))
            if all(ranks[n][0] <= v.ndim <= ranks[n][1] for n, v in arrays_in):
                yield c

    if rows:
        for dt in chosen:
            for k, combo in enumerate(c for c in on_product if c.dtype(inputs[0]) is dt):
                yield from within_ranks(rows_value_cases(spec, product, dt, combo, k == 0, quick, arrays, case))
            yield from null_output_cases(spec, product, dt, by_x[dt][0], quick, arrays)
        if status_dt is not None:
            yield from status_cases(spec, product, status_dt, rng)
            yield from host_input_cases(host_spec, product, status_dt, rng)
        if chosen:
            yield from offset_cases(spec, product, chosen[0])
        return

    for dt in chosen:
        yield from within_ranks(
            dim_value_cases(spec, product, dt, dt is chosen[0], supported, by_x[dt], quick, arrays, case)
        )
        yield from null_output_cases(spec, product, dt, by_x[dt][0], quick, arrays)
    if status_dt is not None:
        yield from status_cases(spec, product, status_dt, rng)
    if chosen:
        yield from offset_cases(spec, product, chosen[0])
