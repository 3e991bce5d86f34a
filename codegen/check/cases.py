"""The case matrix of ``opgen check``, derived from a spec and the product catalogue.

A :class:`Case` is either a value case (run the op, compare with the reference) or a status case (the op
must return an exact ``aclnnStatus``). Families contribute their own generators; see
:func:`elementwise_cases`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from codegen.check.boundary import boundaries, boundary_values
from codegen.plan.constraints import applicable, call_env, rejected_by, violates
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.expr import INT64_MAX, INT64_MIN, ExprEvalError, Num, walk
from codegen.spec.model import SCALAR_ACL_IDS, AttrSpec, Constraint, DType, OpSpec, Product

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002


@dataclass
class Case:
    """One check case.

    ``params`` are the aclnn parameters (arrays by tensor name, scalars by attribute name; an ``out``
    array may be included); ``formats`` gives tensors a storage format other than ND (tensor name ->
    format name). ``expect_status`` is set for status cases; ``mode`` selects a special flow (status
    cases: ``null_workspace_size``, ``null_executor``, ``phase2_twice``; value cases: ``determinism``, see
    :func:`determinism_cases`; ``tiling_2g``, see :mod:`codegen.check.offsets`).
    ``core_order``/``deterministic`` are run options. ``tags``: ``multicore`` marks a value case chosen
    to split over several cores (the determinism subset).
    """

    op: str
    product: str
    dtype: str
    shape: str
    name: str
    params: dict[str, Any]
    expect_status: int | None = None
    mode: str | None = None
    core_order: str = "in_order"
    seed: int = 0
    deterministic: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    formats: dict[str, str] = field(default_factory=dict)  # storage formats other than ND, by tensor name

    @property
    def ident(self) -> str:
        """A stable identifier: ``op/product/dtype/name``."""
        return f"{self.op}/{self.product}/{self.dtype}/{self.name}"


def _rand(rng: np.random.Generator, shape: tuple[int, ...], dtype: DType, scale: float = 2.0) -> np.ndarray:
    values = rng.standard_normal(shape) * scale
    return np.asarray(values).astype(numpy_dtype(dtype))


def elementwise_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], quick: bool, tile: Callable[[DType], int]
) -> Iterator[Case]:
    """Value and status cases of an elementwise op on one product.

    Shapes: 0-d, one element, one 32-byte block, a block + 1, fewer elements than cores, a remainder that
    does not divide over the cores, exactly one tile and one tile + 1 (per dtype, from the tiling rule),
    several cores with an uneven split and a partial last block (``--quick`` too), ranks 1-8, broadcasting
    in every input position, non-contiguous inputs and output, large inputs (2**21 + 17 elements; skipped
    with ``quick``), every attribute value, mixed-dtype promotion and large magnitudes; then every
    documented error status.
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
            params[n] = None if shape is None else _rand(rng, shape, dt, scale)  # None: a null optional input
        params.update(attrs if attrs is not None else default_attrs)
        return Case(op, product.name, dt.name, shape_name, name, params, **kw)

    def accepted(cases: Iterator[Case]) -> Iterator[Case]:
        """The value cases no constraint of the spec rejects (those are status cases, below)."""
        for case in cases:
            if rejected_by(spec, product, case.params) is None:
                yield case

    yield from accepted(_value_cases(spec, product, dtypes, quick, tile, value_case, attr_values, default_attrs, rng))
    yield from _status_cases(spec, product, dtypes, default_attrs, rng)
    from codegen.check.offsets import elementwise_offset_cases

    yield from elementwise_offset_cases(spec, product, dtypes, default_attrs)


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
            ("remainder over cores", (cores * block * 3 + 5 * block + 3,)),
            ("one tile", (t,)),
            ("tile+1", (t + 1,)),
            ("tile-1", (t - 1,)),
        ]
        if not quick:
            plain += [("large", ((1 << 21) + 17,))]
            plain += [(f"rank {r}", tuple([2] * (r - 1) + [3])) for r in range(1, 9)]
        else:
            plain += [("rank 8", (2, 2, 2, 2, 2, 2, 2, 3))]
        plain += [("several cores, uneven tail", (_multicore_length(spec, product, dt),))]
        for shape_name, shape in plain:
            tags = ("multicore",) if shape_name == "several cores, uneven tail" else ()
            yield value_case(dt, shape_name, dict.fromkeys(inputs, shape), f"{shape_name} {list(shape)}", tags=tags)
        for attr, values in attr_values.items():
            for v in values:
                yield value_case(
                    dt, "attr", dict.fromkeys(inputs, (4, 33)), f"{attr}={v} [4, 33]", {**default_attrs, attr: v}
                )
        # Where a comparison of the formula changes branch: the boundary, one ULP either side, +-0, NaN, +-inf
        # (codegen/check/boundary.py), under the default attributes and every candidate of each attribute.
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
            params[n] = _rand(rng, (24, 40), dt).T if k % 2 == 0 else _rand(rng, (40, 48), dt)[:, ::2]
        shape = (40, 24)
        out_store = np.zeros((shape[0], shape[1] * 2), dtype=numpy_dtype(dt))
        params[spec.outputs[0].name] = out_store[:, ::2]
        params.update(default_attrs)
        yield Case(op, product.name, dt.name, "non-contiguous", f"non-contiguous {list(shape)}", params)
        # Large magnitudes (exp overflow region for sigmoid-based formulas), both signs.
        yield value_case(dt, "large magnitude", dict.fromkeys(inputs, (8, 64)), "magnitudes up to ~100", scale=40.0)
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
        params = {n: _rand(rng, (5, 19), DType.FLOAT if k == 0 else lo) for k, n in enumerate(inputs)}
        params.update(default_attrs)
        yield Case(op, product.name, f"{lo.name}+FLOAT", "mixed", "mixed dtypes promote to FLOAT", params)


#: The runs of a determinism case: every core order, two shuffles and three concurrent runs (seed 0 where
#: the order takes none). Their outputs must be bit-identical.
DETERMINISM_RUNS: tuple[tuple[str, int], ...] = (
    ("in_order", 0),
    ("reversed", 0),
    ("shuffle", 1),
    ("shuffle", 2),
    ("concurrent", 0),
    ("concurrent", 0),
    ("concurrent", 0),
)


def determinism_cases(spec: OpSpec, cases: list[Case]) -> Iterator[Case]:
    """The determinism cases of a case matrix: every value case tagged ``multicore`` that runs
    deterministically (the spec says ``deterministic: true``, or the case requests the deterministic mode),
    again as a ``determinism`` case that runs under every order of :data:`DETERMINISM_RUNS` and must give
    bit-identical output (and match the reference). The subset keeps the cost bounded: one multi-core
    case per dtype (elementwise) or a few per rows dtype (index_accumulate), not the whole matrix."""
    for c in cases:
        if (
            "multicore" in c.tags
            and c.expect_status is None
            and c.mode is None
            and (spec.deterministic or c.deterministic)
        ):
            yield replace(
                c, name=f"{c.name} bit-identical over {len(DETERMINISM_RUNS)} core orders", mode="determinism"
            )


#: Values every free-valued integer attr is run at besides its default: the boundaries of its C type,
#: 0, +-1 and typical small values (uint64 attrs drop the negative ones).
INT_ATTR_VALUES: dict[str, tuple[int, ...]] = {
    "int64": (0, 1, -1, 2, 7, -3, 1000, INT64_MAX, INT64_MIN),
    "uint64": (0, 1, 2, 7, 1000, INT64_MAX, 2**64 - 1),
}


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


def _default_value(a: AttrSpec, candidates: list[Any]) -> Any:
    """The value of attr ``a`` in the cases that do not vary it: its default; else 1 for ``reduction``
    (mean) and for free-valued integers (a typical non-zero value), else its last candidate."""
    if a.default is not None:
        return a.default
    if a.name == "reduction" or (a.type in INT_ATTR_VALUES and not a.values):
        return 1
    return candidates[-1]


def attr_candidates(a: AttrSpec) -> list[Any]:
    """Values of attr ``a`` the value cases run: its enumerated values; for float attrs the default and 0,
    0.5, 1, 2; both bools; for free-valued integer attrs the default, then 0, +-1, small and large values
    and the boundaries of the C type (:data:`INT_ATTR_VALUES`). Values a constraint rejects are dropped
    later (a spec constrains the range of a free-valued attr with a constraint, e.g. ``require: "k > 0"``)."""
    if a.type == "string":
        return [n for _, n in a.values or ()]
    if a.values:
        return [v for v, _ in a.values]
    if a.type in ("float", "double", "scalar"):
        # a scalar also runs a negative value (thresholds, slopes; a constraint drops what the op rejects);
        # the last candidate stays 2.0, the value of the cases that do not vary an attr without a default
        negative = [-0.5] if a.type == "scalar" else []
        values = [*([float(a.default)] if a.default is not None else []), *negative, 0.0, 0.5, 1.0, 2.0]
        return list(dict.fromkeys(values))
    if a.type == "bool":
        return [False, True]
    default = [int(a.default)] if a.default is not None else []
    return list(dict.fromkeys([*default, *INT_ATTR_VALUES.get(a.type, (0,))]))


def _shape_anchor(spec: OpSpec) -> str | None:
    """The input whose shape the output takes (``shape: self``), or None for a broadcast shape."""
    from codegen.plan.elementwise import shape_rule

    kind, args = shape_rule(spec)
    return args[0] if kind == "like" else None


def _status_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any], rng: np.random.Generator
) -> Iterator[Case]:
    op = spec.snake
    inputs = [t.name for t in spec.inputs]
    out = spec.outputs[0].name
    dt = dtypes[0]
    good = {n: _rand(rng, (4, 8), dt) for n in inputs}
    good_out = np.zeros((4, 8), dtype=numpy_dtype(dt))

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
        refused = [d for d in SCALAR_ACL_IDS if d not in a.scalar_dtypes]
        if refused:
            p = {**good, out: good_out, a.name: ScalarArg(1, refused[-1])}
            yield status(f"{a.name} of dtype {refused[-1]} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    yield status(
        "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_workspace_size"
    )
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_executor")
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out}, "phase2_twice")
    from codegen.check.status_matrix import status_matrix

    # Every tensor's unsupported dtypes, rank bounds, rejected formats, wrong output dims, the null order.
    yield from status_matrix(spec, product, {**attrs, **good, out: good_out}, dt.name)
    nine = (1,) * 8 + (2,)
    yield status(
        "rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**{n: _rand(rng, nine, dt) for n in inputs}, out: np.zeros(nine, numpy_dtype(dt))},
    )
    anchor = _shape_anchor(spec)
    last = [n for n in inputs if n != anchor][-1]
    p = {**good, out: good_out, last: _rand(rng, (3, 8), dt)}
    yield status("shapes do not broadcast -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    if anchor is not None:
        # Broadcastable together, but not to the anchor's shape (which the output takes).
        small = {**good, anchor: _rand(rng, (1, 8), dt), out: np.zeros((1, 8), numpy_dtype(dt))}
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


def format_cases(spec: OpSpec, cases: list[Case]) -> list[Case]:
    """The accepted-format value case derived from the first value case of ``cases`` (none when there is no
    value case or no tensor accepts a format besides ND): the first tensor that accepts a format besides ND
    gets it (the first one its spec lists after ND), and the call must succeed with the reference's values
    (those formats share ND's layout). Rejected formats are status-matrix cases
    (:mod:`codegen.check.status_matrix`: every private format on every tensor, 161002).
    """
    base = next((c for c in cases if c.expect_status is None and c.mode is None), None)
    if base is None:
        return []
    out: list[Case] = []
    tensors = [*spec.inputs, *spec.outputs]
    other = next(((t, f) for t in tensors for f in t.formats if f != "ND"), None)
    if other is not None:
        t, fmt = other
        out.append(
            Case(
                base.op,
                base.product,
                base.dtype,
                base.shape,
                f"{t.name} format {fmt}",
                dict(base.params),
                formats={t.name: fmt},
            )
        )
    return out
