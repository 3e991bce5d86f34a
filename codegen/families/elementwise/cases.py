"""Check cases of the elementwise family: value cases over shapes, dtypes, attrs and broadcasting, status
cases of every documented error, and the 64-bit offset cases."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    Case,
    _default_value,
    attr_candidates,
    normal_array,
    uniform_array,
)
from codegen.check.constraints import applicable, call_env, rejected_by, violates
from codegen.check.offsets import BIG, cover, device_attrs
from codegen.families.elementwise.boundary import boundaries, boundary_values
from codegen.runner import ScalarArg, device_memory, dtype_of_array, numpy_dtype
from codegen.spec.expr import Compare, ExprEvalError, Name, Num, walk
from codegen.spec.model import SCALAR_ACL_IDS, AttrSpec, Constraint, DType, OpSpec, Product


def reduce_of(spec: OpSpec) -> Any:
    """The spec's reduce epilogue (:func:`codegen.families.elementwise.plan.reduce_of`)."""
    from codegen.families.elementwise.plan.reduce import reduce_of as plan_reduce_of

    return plan_reduce_of(spec)


def elementwise_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], quick: bool, tile: Callable[[DType], int]
) -> Iterator[Case]:
    """Value and status cases of an elementwise op on one product.

    Shapes: 0-d, one element, one 32-byte block, a block + 1, fewer elements than cores, a remainder that
    does not divide over the cores (where the tiling spreads it over several), exactly one tile and one
    tile + 1 (per dtype, from the tiling rule), several cores with an uneven split and a partial last block
    (``--quick`` too), ranks 1-8, broadcasting in every input position, non-contiguous inputs and output, a
    large input (every core of the product runs at least three whole tiles and the split is uneven: cores x
    tile x 3 + 17 elements, at most 2**21 + 17; skipped with ``quick``), every attribute value, every float
    attribute away from its default at once under each code-path value, calls on each attribute
    constraint's edge, each aclScalar dtype a scalar attribute lists, NaN in each input, mixed-dtype
    promotion and large magnitudes; then every documented error status.
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
    yield from _status_cases(spec, product, dtypes, default_attrs, rng)
    red = reduce_of(spec)
    # the 64-bit offsets of the core split: the elementwise path (a reduction may run on one core)
    offset_attrs = default_attrs if red is None else {**default_attrs, red.attr: red.none}
    yield from elementwise_offset_cases(spec, product, dtypes, offset_attrs)


#: The values the combined-attribute cases give the float attributes, one each in spec order (distinct, so
#: a kernel that reads one attribute's tiling field for another's shows; none of them 0, 1 or a default).
COMBINED_FLOAT_VALUES = (0.7, 1.3, 2.5, 0.35, 1.9, 3.1)
#: Most combinations of the code-path attributes (strings, enumerations, bools) the combined cases run.
MAX_ATTR_COMBINATIONS = 8


def _code_path_attrs(spec: OpSpec) -> list[AttrSpec]:
    """The attributes of ``spec`` that select a code path rather than scale a value: strings, bools and
    attributes with enumerated values (``approximate``, ``isResult``, ``reduction``)."""
    return [a for a in spec.attrs if a.type in ("string", "bool") or a.values]


def _combined_attr_cases(
    spec: OpSpec,
    dt: DType,
    inputs: list[str],
    attr_values: dict[str, list[Any]],
    default_attrs: dict[str, Any],
    value_case: Callable[..., Case],
) -> Iterator[Case]:
    """Every float attribute away from its default at once (:data:`COMBINED_FLOAT_VALUES`), under each
    combination of the values of the attributes that select a code path (at most
    :data:`MAX_ATTR_COMBINATIONS`): the one-attribute cases leave the others at their defaults, so a scale
    applied in one branch only (ELU's ``isResult`` with ``scale`` and ``inputScale`` not 1) never showed.
    Nothing when the op has no float attribute; a constraint drops the combinations it rejects."""
    floats = [a for a in spec.attrs if a.type in ("float", "double", "scalar") and not a.values]
    if not floats:
        return
    float_names = {a.name for a in floats}
    paths = _code_path_attrs(spec)
    base = {
        **default_attrs,
        **{a.name: COMBINED_FLOAT_VALUES[i % len(COMBINED_FLOAT_VALUES)] for i, a in enumerate(floats)},
    }
    for values in itertools.islice(itertools.product(*(attr_values[a.name] for a in paths)), MAX_ATTR_COMBINATIONS):
        chosen = dict(zip((a.name for a in paths), values))
        attrs = {**base, **chosen}
        label = " ".join(f"{k}={v}" for k, v in attrs.items() if k in chosen or k in float_names)
        yield value_case(dt, "attrs", dict.fromkeys(inputs, (4, 33)), f"combined {label} [4, 33]", attrs)


#: Most accepted calls one constraint's edges add.
MAX_EDGE_CASES = 4


def _constraint_edge_cases(
    spec: OpSpec,
    product: Product,
    dt: DType,
    inputs: list[str],
    default_attrs: dict[str, Any],
    value_case: Callable[..., Case],
) -> Iterator[Case]:
    """Accepted calls on the edge of each attribute constraint: for every comparison of an attribute with a
    literal in the constraint (``alpha < 0``), the attribute at that literal, under each value of the bool
    attributes (``isResult`` true and false); the ones no constraint rejects run as value cases (at most
    :data:`MAX_EDGE_CASES` per constraint). The status cases break each constraint once, well inside; a
    check written with ``<=`` for the documented ``<`` refused these calls unseen (LeakyReluBackward's
    ``negativeSlope = 0`` with ``selfIsResult``)."""
    by_name = {a.name: a for a in spec.attrs}
    bools = [a.name for a in spec.attrs if a.type == "bool"]
    seen: set[tuple[tuple[str, Any], ...]] = set()
    for c in applicable(spec, product):
        edges: list[tuple[str, float]] = []
        for e in (c.require, *([c.when] if c.when is not None else [])):
            for node in walk(e):
                if not isinstance(node, Compare):
                    continue
                for attr, lit in ((node.left, node.right), (node.right, node.left)):
                    if (
                        isinstance(attr, Name)
                        and attr.id in by_name
                        and by_name[attr.id].type in ("float", "double", "scalar")
                        and isinstance(lit, Num)
                        and not isinstance(lit.value, bool)
                    ):
                        edges.append((attr.id, float(lit.value)))
        made = 0
        for name, value in edges:
            for flags in itertools.product((False, True), repeat=len(bools)):
                attrs = {**default_attrs, name: value, **dict(zip(bools, flags))}
                key = tuple(sorted(attrs.items()))
                if made >= MAX_EDGE_CASES or key in seen:
                    continue
                case = value_case(dt, "attrs", dict.fromkeys(inputs, (4, 33)), "", attrs)
                if rejected_by(spec, product, case.params) is not None:
                    continue
                seen.add(key)
                made += 1
                shown = " ".join(f"{k}={attrs[k]}" for k in (name, *bools))
                case.name = f"at the edge of a constraint ({c.require}): {shown} [4, 33]"
                yield case


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


def _value_cases(
    spec: OpSpec,
    product: Product,
    dtypes: list[DType],
    quick: bool,
    tile: Callable[[DType], int],
    value_case: Callable[..., Case],
    attr_values: dict[str, list[Any]],
    default_attrs: dict[str, Any],
    rng: np.random.Generator,
) -> Iterator[Case]:
    inputs = [t.name for t in spec.inputs]
    optional = [t.name for t in spec.inputs if t.optional]
    anchor = _shape_anchor(spec)
    op = spec.snake
    cores = product.vector_core_num

    for dt in dtypes:
        block = 32 // dt.itemsize
        t = tile(dt)
        plain: list[tuple[str, tuple[int, ...]]] = [
            ("0-d", ()),
            ("one element", (1,)),
            ("one block", (block,)),
            ("block+1", (block + 1,)),
            ("fewer than cores", (3, 5)),
            ("one tile", (t,)),
            ("tile+1", (t + 1,)),
            ("tile-1", (t - 1,)),
        ]
        remainder = cores * block * 3 + 5 * block + 3
        if -(-remainder * dt.itemsize // spec.tiling.min_bytes_per_core) > 1:
            # every core three blocks and five one more, the last partial: only where the tiling spreads that
            # over several cores (a small min_bytes_per_core); elsewhere it is one core's several blocks and
            # partial tail, which "tile-1" already runs, and "large" (all cores) and "several cores, uneven
            # tail" take the uneven split
            plain.insert(5, ("remainder over cores", (remainder,)))
        if not quick:
            # Many tiles per core on every core (the queues' buffers reused, the loop's tail): three whole
            # tiles per core are enough for that; a larger input only repeats the same path.
            plain += [("large", (min((1 << 21) + 17, cores * t * 3 + 17),))]
            plain += [(f"rank {r}", tuple([2] * (r - 1) + [3])) for r in range(1, 9)]
        else:
            plain += [("rank 8", (2, 2, 2, 2, 2, 2, 2, 3))]
        plain += [("several cores, uneven tail", (_multicore_length(spec, product, dt),))]
        for shape_name, shape in plain:
            tags = ("multicore",) if shape_name == "several cores, uneven tail" else ()
            yield value_case(dt, shape_name, dict.fromkeys(inputs, shape), f"{shape_name} {list(shape)}", tags=tags)
        for attr, values in attr_values.items():
            for v in values:
                case = value_case(
                    dt, "attr", dict.fromkeys(inputs, (4, 33)), f"{attr}={v} [4, 33]", {**default_attrs, attr: v}
                )
                _equal_first_row(case, inputs)
                yield case
        yield from _combined_attr_cases(spec, dt, inputs, attr_values, default_attrs, value_case)
        yield from _constraint_edge_cases(spec, product, dt, inputs, default_attrs, value_case)
        if dt is dtypes[0]:
            # every aclScalar dtype a scalar attribute takes, holding 1 (True for BOOL): the op_api must accept
            # each one it lists, not only the default (a BOOL threshold refused passed every other case)
            for a in spec.attrs:
                for d in a.scalar_dtypes[1:] if a.type == "scalar" else ():
                    one = ScalarArg(True if d == "BOOL" else 1, d)
                    yield value_case(
                        dt,
                        "attr",
                        dict.fromkeys(inputs, (4, 33)),
                        f"{a.name} = 1 as a {d} aclScalar [4, 33]",
                        {**default_attrs, a.name: one},
                    )
        # Where a comparison of the formula changes branch: the boundary, one ULP either side, +-0, NaN, +-inf
        # (families/elementwise/boundary.py), under the default attributes and every candidate of each attr.
        attr_sets = [("", default_attrs)]
        attr_sets += [
            (f" with {a}={v}", {**default_attrs, a: v})
            for a, vs in attr_values.items()
            for v in vs
            if v != default_attrs[a]
        ]
        for label, attrs in attr_sets:
            for b in boundaries(spec, attrs):
                name = f"boundary {b.text}{label} [4, 33]"
                case = value_case(dt, "boundary", dict.fromkeys(inputs, (4, 33)), name, attrs)
                case.params[b.input] = np.resize(boundary_values(b.value, dt), (4, 33))
                yield case
        for i, name in enumerate(inputs):
            if name == anchor:
                continue  # the output has the anchor's shape: only the other inputs broadcast
            small: dict[str, tuple[int, ...]] = dict.fromkeys(inputs, (3, 5, 17))
            small[name] = () if i == 0 else (1, 17)
            yield value_case(dt, "broadcast", small, f"broadcast {name}{list(small[name])}")
        # Each optional input null: the kernel's variant without it, on tile boundaries and every attr value.
        for name in optional:
            for shape_name, shape in plain[2:7]:
                absent: dict[str, tuple[int, ...] | None] = {**dict.fromkeys(inputs, shape), name: None}
                yield value_case(dt, f"{name} null", absent, f"{name}=null {shape_name} {list(shape)}")
            for attr, values in attr_values.items():
                for v in values:
                    absent = {**dict.fromkeys(inputs, (4, 33)), name: None}
                    yield value_case(
                        dt, f"{name} null", absent, f"{name}=null {attr}={v} [4, 33]", {**default_attrs, attr: v}
                    )
        # Non-contiguous inputs (transposed, sliced) and a strided output view.
        params: dict[str, Any] = {}
        for k, n in enumerate(inputs):
            params[n] = normal_array(rng, (24, 40), dt).T if k % 2 == 0 else normal_array(rng, (40, 48), dt)[:, ::2]
        shape = (40, 24)
        out_store = np.zeros((shape[0], shape[1] * 2), dtype=numpy_dtype(dt))
        params[spec.outputs[0].name] = out_store[:, ::2]
        params.update(default_attrs)
        red = reduce_of(spec)
        if red is not None:  # a strided output view needs the elementwise output; the 0-d results below
            params[red.attr] = red.none
        yield Case(op, product.name, dt.name, "non-contiguous", f"non-contiguous {list(shape)}", params)
        # Large magnitudes (exp overflow region for sigmoid-based formulas), both signs.
        yield value_case(dt, "large magnitude", dict.fromkeys(inputs, (8, 64)), "magnitudes up to ~100", scale=40.0)
        # NaN in each input in turn (a few elements of each 32-byte block's worth): the formula's min, max
        # and clamp must carry it as NumPy and PyTorch do (a vector Maxs/Mins alone returns the bound)
        # (under the default attributes, and each other value of an attribute that selects a code path:
        # an enumeration, a string or a bool, e.g. approximate='tanh', isResult=true)
        nan_attrs: list[tuple[dict[str, Any], str]] = [({}, "")]
        for a in _code_path_attrs(spec):
            nan_attrs += [({a.name: v}, f" {a.name}={v}") for v in attr_values[a.name] if v != default_attrs[a.name]]
        for extra, label in nan_attrs:
            for name in inputs:
                case = value_case(
                    dt,
                    "NaN",
                    dict.fromkeys(inputs, (4, 33)),
                    f"NaN in {name}{label} [4, 33]",
                    {**default_attrs, **extra},
                )
                x = case.params[name]
                if x is not None and dtype_of_array(x) in (DType.FLOAT, DType.FLOAT16, DType.BF16, DType.DOUBLE):
                    x.reshape(-1)[::9] = np.nan
                    yield case
        if quick:
            continue
        # Multi-core schedules.
        for order in ("reversed", "shuffle", "concurrent"):
            yield value_case(
                dt,
                "core order",
                dict.fromkeys(inputs, (cores * block * 5 + 7,)),
                f"core order {order}",
                core_order=order,
                seed=7,
            )
        yield value_case(dt, "empty", dict.fromkeys(inputs, (0, 3)), "empty [0, 3]")
    # Mixed dtypes: promotion to the common type.
    if len(dtypes) > 1:
        lo = next(d for d in dtypes if d is not DType.FLOAT)
        params = {n: normal_array(rng, (5, 19), DType.FLOAT if k == 0 else lo) for k, n in enumerate(inputs)}
        params.update(default_attrs)
        yield Case(op, product.name, f"{lo.name}+FLOAT", "mixed", "mixed dtypes promote to FLOAT", params)


def _equal_first_row(case: Case, inputs: list[str]) -> None:
    """Gives every input of ``case`` whose array has the first input's shape and dtype the first input's first
    row: inputs equal element by element (``self == target``: a difference of 0, where a formula such as a
    smooth L1 loss's ``(self - target) / beta`` meets an attribute at its edge, ``beta = 0``)."""
    first = case.params.get(inputs[0])
    if not isinstance(first, np.ndarray) or first.ndim < 1 or first.shape[0] == 0:
        return
    for name in inputs[1:]:
        other = case.params.get(name)
        if isinstance(other, np.ndarray) and other.shape == first.shape and other.dtype == first.dtype:
            other[0] = first[0]


def _multicore_length(spec: OpSpec, product: Product, dt: DType) -> int:
    """An element count the elementwise tiling splits over several cores (up to 5, at least 2) with an
    uneven split: the first ``blocks % cores`` cores take one 32-byte block more, and the last block is
    partial. The count follows the tiling rule (cores = ceil(bytes / min_bytes_per_core), at most the
    product's vector cores), so the ``--quick`` matrix, too, catches a wrong per-core offset or tail."""
    block = 32 // dt.itemsize
    cores = max(2, min(product.vector_core_num, 5))
    min_bytes = spec.tiling.min_bytes_per_core
    n = ((cores - 1) * min_bytes + min_bytes // 2) // dt.itemsize + 3
    while -(-n // block) % cores == 0 or n % block == 0:
        n += block
    return n


def _shape_anchor(spec: OpSpec) -> str | None:
    """The input whose shape the output takes (``shape: self``), or None for a broadcast shape."""
    from codegen.families.elementwise.plan.shape import shape_rule

    kind, args = shape_rule(spec)
    return args[0] if kind == "like" else None


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


def _status_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any], rng: np.random.Generator
) -> Iterator[Case]:
    op = spec.snake
    inputs = [t.name for t in spec.inputs]
    out = spec.outputs[0].name
    dt = dtypes[0]
    good = {n: normal_array(rng, (4, 8), dt) for n in inputs}
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_NONE, reduce_kind, reduce_of

    red = reduce_of(spec)
    reduced = reduce_kind(spec, attrs) != REDUCE_KIND_NONE
    good_out = np.zeros(() if reduced else (4, 8), dtype=numpy_dtype(dt))

    def status(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(op, product.name, dt.name, "error", name, {**attrs, **params}, expect_status=code, mode=mode)

    for n in [*inputs, out]:
        if spec.tensor(n).optional:
            continue  # null is legal: the value cases run it
        p: dict[str, Any] = {**good, out: good_out, n: None}
        yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, p)
    for a in spec.attrs:
        if a.type == "string":
            yield status(f"null {a.name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out, a.name: None})
            names = [n for _, n in a.values or ()]
            bad = "_".join(names) + "_x"  # no value of the list
            yield status(f"{a.name}={bad!r} -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out, a.name: bad})
            continue
        if a.type != "scalar":
            continue
        yield status(f"null {a.name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out, a.name: None})
        # every aclScalar dtype the attribute does not take (one check per dtype in the op_api's list)
        for d in [d for d in SCALAR_ACL_IDS if d not in a.scalar_dtypes]:
            p = {**good, out: good_out, a.name: ScalarArg(1, d)}
            yield status(f"{a.name} of dtype {d} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    yield status(
        "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_workspace_size"
    )
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_executor")
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out}, "phase2_twice")
    if red is not None:
        yield from _reduce_status_cases(spec, red, good, out, dt, status)
    from codegen.check.status_matrix import status_matrix

    # Every tensor's unsupported dtypes, rank bounds, rejected formats, wrong output dims, the null order.
    yield from status_matrix(spec, product, {**attrs, **good, out: good_out}, dt.name)
    nine = (1,) * 8 + (2,)
    yield status(
        "rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**{n: normal_array(rng, nine, dt) for n in inputs}, out: np.zeros(nine, numpy_dtype(dt))},
    )
    anchor = _shape_anchor(spec)
    last = [n for n in inputs if n != anchor][-1]
    p = {**good, out: good_out, last: normal_array(rng, (3, 8), dt)}
    yield status("shapes do not broadcast -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    if anchor is not None:
        # Broadcastable together, but not to the anchor's shape (which the output takes).
        small = {**good, anchor: normal_array(rng, (1, 8), dt), out: np.zeros((1, 8), numpy_dtype(dt))}
        yield status(f"{last} does not broadcast to {anchor} -> 161002", ACLNN_ERR_PARAM_INVALID, small)
    yield status("wrong out shape -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: np.zeros((4, 9), numpy_dtype(dt))})
    for a in spec.attrs:
        if a.values and a.type != "string":  # a string attr's invalid text is a case above
            allowed = [v for v, _ in a.values]
            for bad_v in (max(allowed) + 1, min(allowed) - 1):
                yield status(
                    f"{a.name}={bad_v} -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out, a.name: bad_v}
                )
    base = {**attrs, **good, out: good_out}
    for c in applicable(spec, product):
        found = _violation(spec, product, c, base, rng)
        if found is None:
            continue
        label, params = found
        yield status(f"{c.name}: {label} -> {c.status}", c.status, params)


def _violation(
    spec: OpSpec, product: Product, c: Constraint, base: dict[str, Any], rng: np.random.Generator
) -> tuple[str, dict[str, Any]] | None:
    """A call that only ``c`` rejects, derived from the valid call ``base`` by changing one attr (to values
    around the numbers in ``c``) or the dtype of one tensor (to another it accepts on ``product``); None
    when no such change violates ``c``."""
    numbers = sorted(
        {
            float(e.value)
            for part in (c.when, c.require, *(e for _, e in c.let))
            if part is not None
            for e in walk(part)
            if isinstance(e, Num) and not isinstance(e.value, bool)
        }
    )
    trials: list[tuple[str, dict[str, Any]]] = []
    for a in spec.attrs:
        if a.values or a.type == "bool":
            continue
        candidates = sorted({v + d for v in [0.0, 1.0, *numbers] for d in (-1.0, -0.5, 0.0, 0.5, 1.0)})
        for v in candidates:
            value: Any = v if a.type in ("float", "double") else int(v)
            if a.type == "uint64" and value < 0:
                continue
            trials.append((f"{a.name}={value}", {**base, a.name: value}))
    for t in (*spec.inputs, *spec.outputs):
        array = base.get(t.name)
        if not isinstance(array, np.ndarray):
            continue
        for d in t.dtypes_for(product):
            if numpy_dtype(d) != array.dtype:
                trials.append((f"{t.name} {d.name}", {**base, t.name: array.astype(numpy_dtype(d))}))
    for label, params in trials:
        try:
            if violates(c, call_env(spec, product, params)) and rejected_by(spec, product, params) is c:
                return label, params
        except ExprEvalError:
            continue
    return None


def elementwise_offset_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any]
) -> Iterator[Case]:
    """One ``tiling_2g`` case per compute dtype: every tensor ``[BIG]`` (all inputs present)."""
    for d in dtypes:
        tensor = {"shape": [BIG], "dtype": d.name}
        request = {
            "inputs": [tensor] * len(spec.inputs),
            "outputs": [tensor] * len(spec.outputs),
            "attrs": device_attrs(spec, attrs),
        }
        params = {"request": request, "shape": (BIG,), "dtype": d.name, "attrs_values": dict(attrs)}
        yield Case(
            spec.snake,
            product.name,
            d.name,
            f"[{BIG}]",
            f"{BIG} elements: tiling and per-core offsets in 64 bits",
            params,
            mode="tiling_2g",
        )


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The family's cases of ``spec`` on ``product`` (:func:`elementwise_cases`; the tile-boundary shapes
    follow the planner's tile length for a 2**24-element output)."""
    from codegen.families.elementwise.plan.tiling import tiling_decision

    def tile(d: DType) -> int:
        return tiling_decision(spec, product, (1 << 24,), d).tile_length

    return elementwise_cases(spec, product, dtypes, quick, tile)


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: the broadcast shape of the inputs (0-d for
    the mean or sum of a reduce epilogue), in the dtype NumPy promotes them to (bfloat16 and float16
    together give float32, as CANN's PromoteType does).
    The buffer is poisoned (:func:`codegen.runner.device_memory`), not zeroed: the op must write every
    element, as on a device."""
    present = [a for a in arrays.values() if a is not None]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in present)) if present else ()
    except (ValueError, RuntimeError):
        # Not broadcastable (or of more axes than NumPy broadcasts, 32: a RuntimeError; aclnn takes at most
        # 8): allocate the first input's shape and let phase 1 report the exact status.
        shape = present[0].shape
    kinds = {dtype_of_array(a) for a in present}
    if not kinds:
        # every input is null: phase 1 answers 161001 before it reads the output, which only has to exist
        dt = DType.FLOAT
    elif len(kinds) == 1:
        dt = kinds.pop()
    elif DType.FLOAT in kinds or kinds == {DType.FLOAT16, DType.BF16}:
        dt = DType.FLOAT
    else:
        dt = sorted(kinds, key=lambda d: d.acl_id)[0]
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_NONE, reduce_kind

    if reduce_kind(spec, attrs) != REDUCE_KIND_NONE:
        shape = ()  # a reduce epilogue's mean or sum: a 0-d output
    return device_memory(int(np.prod(shape, dtype=np.int64)), numpy_dtype(dt), tuple(shape))


def derived_bound(
    spec: OpSpec, product: Product, params: dict[str, Any], expected: np.ndarray, lazy: bool = False
) -> Any:
    """The per-element error bound of one call (:func:`codegen.families.elementwise.bound.derived_bound`):
    a float64 array of the output shape, with ``lazy`` possibly an ``ElementBound`` evaluated where asked."""
    from codegen.families.elementwise import bound

    return bound.derived_bound(spec, product, params, expected, lazy)


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result ``got`` (fields ``tiling``) against the planner's decision in
    64-bit arithmetic, and the per-core ranges of the kernel's split: '' when they agree and cover the
    tensors past 32 bits, else what differs (see :func:`codegen.check.offsets.check_offsets`)."""
    spec, product = fn.spec, fn.product
    from codegen.families.elementwise.plan.tiling import tiling_decision

    d = tiling_decision(
        spec, product, case.params["shape"], DType[case.params["dtype"]], attrs=case.params.get("attrs_values", {})
    )
    want = {
        "totalLength": d.total_length,
        "formerNum": d.former_num,
        "formerLength": d.former_length,
        "tailLength": d.tail_length,
        "tileLength": d.tile_length,
    }
    for k, v in want.items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    if (got["block_dim"], got["tiling_key"], got["workspace_sizes"]) != (
        d.block_dim,
        d.tiling_key,
        [d.workspace_bytes],
    ):
        have = f"{got['block_dim']}/{got['tiling_key']}/{got['workspace_sizes']}"
        return f"blockDim/key/workspace {have}, want {d.block_dim}/{d.tiling_key}/[{d.workspace_bytes}]"
    # The kernel's Init: former cores start at blockIdx * formerLength, the others after them; a core's
    # range ends at totalLength.
    ranges = []
    for core in range(d.block_dim):
        if core < d.former_num:
            start, length = core * d.former_length, d.former_length
        else:
            start = d.former_num * d.former_length + (core - d.former_num) * d.tail_length
            length = d.tail_length
        ranges.append((start, min(start + length, d.total_length)))
    fault = cover("elements", ranges, d.total_length)
    if fault:
        return fault
    # The largest offset the kernel computes: the start of the last tile of the last core (its tile loop
    # steps by tileLength from the core's start), past 32 bits on any core count (one core: the loop itself).
    start, end = ranges[-1]
    last_tile = start + (end - start - 1) // d.tile_length * d.tile_length if d.tile_length else start
    if last_tile < 2**32:
        return f"the last tile starts at element {last_tile}: the case does not reach past 32 bits"
    return ""
