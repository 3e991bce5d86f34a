"""Cases of an elementwise op's reduce epilogue (``compute.reduce``): its value cases for every reduction
value and its output-shape and attribute status cases."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import (
    ACLNN_ERR_PARAM_INVALID,
    Case,
    normal_array,
    uniform_array,
)
from codegen.families.elementwise.cases.planner_facts import _multicore_length
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product


def _reduce_value_cases(
    spec: OpSpec,
    product: Product,
    dtypes: list[DType],
    quick: bool,
    tile: Callable[[DType], int],
    value_case: Callable[..., Case],
    default_attrs: dict[str, Any],
    rng: np.random.Generator,
) -> Iterator[Case]:
    """Value cases of a reduce epilogue (``compute.reduce``), each run for every reduction value (none, mean,
    sum): empty tensors (sum 0, mean NaN), one element, one tile and a tile +- 1, fewer blocks than cores,
    large dynamic range (a few elements ~1e3, the rest ~1e-2: fp32 accumulation of 16-bit inputs must show),
    inputs in (0, 1) and inputs holding +-inf and NaN (the mean/sum is inf or NaN as the reference's).

    Inputs in (0, 1) lie inside every formula's domain, so the sum is finite and a combine error shows in its
    value and bits (a normal draw gives some ops a NaN sum whatever the combine does). They come as one tile
    + 1, as an uneven split over a few cores (:func:`_multicore_length`), the mean and sum of which are tagged
    ``multicore`` (they run as determinism cases over every core order), and for the sum as several tiles on
    every core of the product with a ragged last tile (every core's partial through the combine).

    The combine (partials in the workspace, SyncAll, core 0 adding them in core order, then the mean's one
    division) is the same code for any core count above one, so a few cores probe its order, and the mean's
    division of an uneven split, as well as all of them do, for a small fraction of a several-tiles case's
    cost; a tile's accumulation is the same code for the mean and the sum, so the several-tiles case runs
    once: as the sum for FLOAT, as the mean for a 16-bit dtype, whose sum of about 10^6 values in (0, 1)
    would overflow FLOAT16 (an infinity on both sides: nothing compared) or keep 8 bits in BF16 (a lost tile
    inside half an ULP); the none path's several tiles are the family's ``large`` case. Sizes come from the
    planner's tile (``tile``) and the product's core count."""
    from codegen.families.elementwise.plan.reduce import reduce_of
    from codegen.families.elementwise.plan.tiling import tiling_decision

    red = reduce_of(spec)
    assert red is not None
    inputs = [t.name for t in spec.inputs]
    cores = product.vector_core_num
    values = {"none": red.none, "mean": red.mean, "sum": red.sum}
    for dt in dtypes:
        t = tile(dt)
        # several tiles on every core: the planner's per-core length for ~3.5 tiles per core, plus a ragged tail
        probe = tiling_decision(
            spec, product, (t * cores * 3 + t // 2,), dt, attrs={**default_attrs, red.attr: red.sum}
        )
        several = probe.total_length + 7
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("empty", (0,)),
            ("empty 2-d", (3, 0)),
            ("one element", (1,)),
            ("fewer blocks than cores", (cores - 1,)),
            # a tile of 16k + 1 elements: a halving fold of the tile sum (Ascend910's) takes an odd half there
            ("fold length 16k + 1", (81,)),
            ("one tile", (t,)),
            ("tile+1", (t + 1,)),
            ("tile-1", (t - 1,)),
        ]
        for kind, v in values.items():
            attrs = {**default_attrs, red.attr: v}
            for name, shape in shapes:
                case = value_case(
                    dt,
                    f"reduce {kind}",
                    dict.fromkeys(inputs, shape),
                    f"{red.attr}={v} ({kind}) {name} {list(shape)}",
                    attrs,
                )
                if kind == "mean" and 0 in shape:
                    # the mean of nothing is NaN, which the poisoned output (0xFF bytes) already holds: a caller's
                    # out of 0.5 shows a kernel or op_api that never writes it
                    case.params[spec.outputs[0].name] = np.full((), 0.5, numpy_dtype(dt))
                    case.name += " (out holding 0.5 before the call)"
                yield case
            # large dynamic range: most values ~1e-2, every 97th ~1e3 (its square dominates; the small ones
            # are lost in a 16-bit accumulation)
            n = 4 * t + 3
            arrays: dict[str, Any] = {}
            for k, name in enumerate(inputs):
                a = rng.standard_normal(n) * 0.01
                if k == 0:
                    a[::97] = rng.standard_normal(a[::97].shape) * 1000.0
                arrays[name] = a.astype(numpy_dtype(dt))
            yield Case(
                spec.snake,
                product.name,
                dt.name,
                f"reduce {kind}",
                f"{red.attr}={v} ({kind}) dynamic range [{n}]",
                {**arrays, **attrs},
            )
            # every input in (0, 1): inside the domain of log, log(1 - x), sqrt and 1/x, so formulas such as a
            # cross entropy give a finite sum here and the combine is tested by value (a normal draw puts
            # most of such an op's elements outside its domain, and a NaN sum hides any combine error)
            unit_shapes: list[tuple[str, tuple[int, ...], tuple[str, ...]]] = [("tile+1", (t + 1,), ())]
            if kind != "none":
                unit_shapes.append(
                    ("several cores, uneven tail", (_multicore_length(spec, product, dt),), ("multicore",))
                )
                # the sum of ~10^6 values in (0, 1) overflows FLOAT16 (and BF16 holds it to 8 bits): a 16-bit
                # output runs the mean, which stays near 0.5 with 11 (8) bits, so a tile lost shows there
                several_kind = "sum" if dt.itemsize >= 4 else "mean"
                if kind == several_kind and (not quick or dt is dtypes[0]):
                    unit_shapes.append(("several tiles per core, ragged tail", (several,), ()))
            for name, shape, tags in unit_shapes:
                unit = {n: uniform_array(rng, shape, dt, 0.05, 0.95) for n in inputs}
                yield Case(
                    spec.snake,
                    product.name,
                    dt.name,
                    f"reduce {kind}",
                    f"{red.attr}={v} ({kind}) inputs in (0, 1) {name} {list(shape)}",
                    {**unit, **attrs},
                    tags=tags,
                )
            # +-inf and NaN in the first input
            for special in (math.inf, -math.inf, math.nan):
                arrays = {name: normal_array(rng, (5, 37), dt) for name in inputs}
                arrays[inputs[0]].flat[17] = special
                yield Case(
                    spec.snake,
                    product.name,
                    dt.name,
                    f"reduce {kind}",
                    f"{red.attr}={v} ({kind}) {special} in {inputs[0]} [5, 37]",
                    {**arrays, **attrs},
                )


def _reduce_status_cases(
    spec: OpSpec,
    red: Any,
    good: dict[str, np.ndarray],
    out: str,
    dt: DType,
    status: Callable[..., Case],
) -> Iterator[Case]:
    """Status cases of a reduce epilogue (``compute.reduce``): the output shape per reduction (the broadcast
    shape for ``none``, 0-d for mean and sum; any other is 161002, as CANN's checks) and values of the attr
    outside its declared ones (161002)."""
    a = red.attr
    np_dt = numpy_dtype(dt)
    for kind in ("mean", "sum"):
        v = getattr(red, kind)
        for shape in ((4, 8), (1,)):
            yield status(
                f"{a}={v} ({kind}) with out {list(shape)} -> 161002",
                ACLNN_ERR_PARAM_INVALID,
                {**good, out: np.zeros(shape, dtype=np_dt), a: v},
            )
    yield status(
        f"{a}={red.none} (none) with a 0-d out -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**good, out: np.zeros((), dtype=np_dt), a: red.none},
    )
    # none: an out of the broadcast element count in other dims (a check of the count, not the dims, passed)
    rows, cols = next(iter(good.values())).shape  # the status cases' [4, 8] inputs
    shape = (rows, cols)
    for other in ((cols, rows), (rows * cols,), (rows, cols, 1)):
        yield status(
            f"{a}={red.none} (none) with out {list(other)} (same count as {list(shape)}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**good, out: np.zeros(other, dtype=np_dt), a: red.none},
        )
    declared = [v for v, _ in spec.attr(a).values or ()]
    for bad in (max(declared) + 1, min(declared) - 1):
        yield status(
            f"{a}={bad} with a 0-d out -> 161002",  # the status cases' own {a}={bad} case passes the broadcast out
            ACLNN_ERR_PARAM_INVALID,
            {**good, out: np.zeros((), dtype=np_dt), a: bad},
        )
