"""The cases of nullable outputs and optional inputs: every non-empty set of them passed as null, on a few
shapes derived from the tiling, each either a value case (the outputs given are compared, the null ones are
not produced; a null input is read as its default) or,
when a spec constraint refuses the combination (a ``present()`` rule), a status case with that
constraint's status."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.check.constraints import rejected_by
from codegen.families.row_reduce.cases.outputs import infer_outputs
from codegen.families.row_reduce.cases.tiling_probes import fit_limit
from codegen.families.row_reduce.plan.tensors import compute_of
from codegen.spec.model import DType, DtypeCombo, OpSpec, Product


def absent_sets(spec: OpSpec) -> list[tuple[str, ...]]:
    """Every non-empty set of the spec's optional inputs and nullable outputs (spec order within a set, inputs
    first; sets by bit mask: the first one alone first). Empty when none is."""
    names = [t.name for t in spec.inputs if t.optional] + [t.name for t in spec.outputs if t.nullable]
    return [tuple(n for k, n in enumerate(names) if mask >> k & 1) for mask in range(1, 1 << len(names))]


def null_output_cases(
    spec: OpSpec, product: Product, dt: DType, combo: DtypeCombo, quick: bool, arrays: Any
) -> Iterator[Case]:
    """For each set of :func:`absent_sets`: rows of 33 (one dim reduced, or along dim -1) and a rank-4
    tensor reduced over its last 3 dims (``rows`` form; dim 1 in the ``dim`` form); unless ``quick`` also a
    row one above the UB limit (chunked) and rows over every core. The null tensors are None in the call
    (the kernel must write none of a null output's memory: it is launched with no element, so any write is
    a GM bounds fault; a null input is launched as no tensor, so any read of it faults); the call's other
    outputs are compared with the reference (which gets None for a null input). A call a constraint of the
    spec refuses on ``product`` expects that constraint's status instead. ``arrays`` is
    :func:`matrix.check_cases`' array helper."""
    comp = compute_of(spec)
    inputs = spec.input_names
    shapes: list[tuple[str, tuple[int, ...], int]] = [("rows of 33", (5, 33), 1), ("rank 4", (2, 3, 4, 5), 3)]
    if not quick:
        fit = fit_limit(spec, product, combo)
        shapes += [
            ("chunked row", (2, fit + 1), 1),
            ("rows over all cores", (3 * product.vector_core_num + 5, 37), 1),
        ]
    for absent in absent_sets(spec):
        what = ", ".join(absent)
        for label, shape, row_ndim in shapes:
            params: dict[str, Any] = dict(arrays(shape, dt, 2.0, row_ndim, combo))
            if not comp.rows:
                params[comp.dim] = 1 if len(shape) > 2 else -1
            # the outputs given are poisoned device memory of their shape; the absent ones null
            attrs = {n: v for n, v in params.items() if n not in inputs}
            # the output shapes of the call with every input given (an output of a null input's shape, as
            # LayerNormBackward's gradWeightOut of weightOptional's, keeps the shape the reduced dims give)
            shaped = infer_outputs(spec, {n: params[n] for n in inputs}, attrs)
            params.update(shaped)
            params.update({n: None for n in absent})
            if comp.output_mask:  # the mask leaves out exactly the null outputs (a true entry's must be given)
                params[comp.output_mask] = tuple(t.name not in absent for t in spec.outputs)
            name = f"null {what}" + (f" ({comp.output_mask} false for it)" if comp.output_mask else "") + f": {label}"
            rejected = rejected_by(spec, product, params)
            if rejected is not None:
                name = f"{name}: {rejected.name} -> {rejected.status}"
                yield Case(
                    spec.snake, product.name, dt.name, str(list(shape)), name, params, expect_status=rejected.status
                )
                continue
            tags = ("multicore",) if "all cores" in label else ()
            yield Case(spec.snake, product.name, dt.name, str(list(shape)), name, params, tags=tags)
            if comp.output_mask and label == shapes[0][0] and len(absent) < len(spec.outputs):
                # the outputs the mask leaves out given all the same, holding 1234.5 (not the device memory's
                # poison, which an unwritten buffer the L2 API copied would hold too): the call must not write them
                given = {**params, **{n: np.full(a.shape, 1234.5, a.dtype) for n, a in shaped.items()}}
                given[comp.output_mask] = params[comp.output_mask]
                yield Case(
                    spec.snake,
                    product.name,
                    dt.name,
                    str(list(shape)),
                    f"{comp.output_mask} false for {what}, given: {label}",
                    given,
                    untouched=tuple(n for n in absent if n in spec.output_names),
                )
