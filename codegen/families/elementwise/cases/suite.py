"""The elementwise family's cases of one op on one product, in order: value cases (the reduce epilogue's
too), status cases and the 64-bit offset cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import (
    Case,
    _default_value,
    attr_candidates,
    normal_array,
)
from codegen.check.constraints import rejected_by
from codegen.families.elementwise.cases.column_cases import column_cases
from codegen.families.elementwise.cases.offsets import elementwise_offset_cases
from codegen.families.elementwise.cases.planner_facts import reduce_of
from codegen.families.elementwise.cases.reduce_cases import _reduce_value_cases
from codegen.families.elementwise.cases.status_cases import _status_cases
from codegen.families.elementwise.cases.value_cases import _value_cases
from codegen.spec.model import DType, OpSpec, Product


def elementwise_cases(
    spec: OpSpec,
    product: Product,
    dtypes: list[DType],
    quick: bool,
    tile: Callable[[DType], int],
    column_tile: Callable[[int], int] = lambda _: 64,
) -> Iterator[Case]:
    """Value and status cases of an elementwise op on one product.

    Shapes: 0-d, one element, one 32-byte block, a block + 1, fewer elements than cores, a remainder that does not
    divide over the cores (where the tiling spreads it over several), exactly one tile and one tile + 1 (per dtype,
    from the tiling rule), several cores with an uneven split and a partial last block (``--quick`` too), an empty
    output (``--quick``: the first dtype only), ranks 1-8, broadcasting in every input position, non-contiguous
    inputs and output, a large input (every core of the product runs at least three whole tiles and the split is
    uneven: cores x tile x 3 + 17 elements, at most 2**21 + 17; skipped with ``quick``), every attribute value,
    every float attribute away from its default at once under each code-path value, calls on each attribute
    constraint's edge, each aclScalar dtype a scalar attribute lists, NaN in each input, mixed-dtype promotion and
    large magnitudes; then the mixed dtype columns' cases (:func:`.column_cases.column_cases`, each column's tile
    length ``column_tile(index)``); then every documented error status.
    """
    rng = np.random.default_rng(20261129)
    inputs = [t.name for t in spec.inputs]
    attr_values = {a.name: attr_candidates(a) for a in spec.attrs}
    default_attrs = {a.name: _default_value(a, attr_values[a.name]) for a in spec.attrs}
    op = spec.snake

    def value_case(
        dt: DType,
        shape_name: str,
        shapes: dict[str, tuple[int, ...] | None],
        name: str,
        attrs: dict[str, Any] | None = None,
        scale: float = 2.0,
        **kw: Any,
    ) -> Case:
        params: dict[str, Any] = {}
        for n in inputs:
            shape = shapes[n]
            params[n] = None if shape is None else normal_array(rng, shape, dt, scale)  # None: a null optional input
        params.update(attrs if attrs is not None else default_attrs)
        return Case(op, product.name, dt.name, shape_name, name, params, **kw)

    def accepted(cases: Iterator[Case]) -> Iterator[Case]:
        """The value cases no constraint of the spec rejects (those are status cases, below)."""
        for case in cases:
            if rejected_by(spec, product, case.params) is None:
                yield case

    yield from accepted(_value_cases(spec, product, dtypes, quick, tile, value_case, attr_values, default_attrs, rng))
    if reduce_of(spec) is not None:
        yield from accepted(_reduce_value_cases(spec, product, dtypes, quick, tile, value_case, default_attrs, rng))
    yield from accepted(column_cases(spec, product, dtypes, quick, column_tile, default_attrs, rng))
    yield from _status_cases(spec, product, dtypes, default_attrs, rng)
    red = reduce_of(spec)
    # the 64-bit offsets of the core split: the elementwise path (a reduction may run on one core)
    offset_attrs = default_attrs if red is None else {**default_attrs, red.attr: red.none}
    yield from elementwise_offset_cases(spec, product, dtypes, offset_attrs)


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The family's cases of ``spec`` on ``product`` (:func:`elementwise_cases`; the tile-boundary shapes
    follow the planner's tile length for a 2**24-element output)."""
    from codegen.families.elementwise.plan.tiling import tiling_decision

    def tile(d: DType) -> int:
        return tiling_decision(spec, product, (1 << 24,), d).tile_length

    def column_tile(k: int) -> int:
        return tiling_decision(spec, product, (1 << 24,), DType.FLOAT, column=k).tile_length

    return elementwise_cases(spec, product, dtypes, quick, tile, column_tile)
