"""The case matrix of ``opgen check``, derived from a spec and the product catalogue.

A :class:`Case` is either a value case (run the op, compare with the reference) or a status case (the op
must return an exact ``aclnnStatus``). Families contribute their own generators; see
:func:`elementwise_cases`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002


@dataclass
class Case:
    """One check case.

    ``params`` are the aclnn parameters (arrays by tensor name, scalars by attribute name; an ``out``
    array may be included). ``expect_status`` is set for status cases; ``mode`` selects a special flow
    (``null_workspace_size``, ``null_executor``, ``phase2_twice``). ``core_order``/``deterministic`` are run
    options.
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
    ranks 1-8, broadcasting in every input position, non-contiguous inputs and output, large inputs
    (2**21 + 17 elements; skipped with ``quick``), every attribute value, mixed-dtype promotion and large
    magnitudes; then every documented error status.
    """
    rng = np.random.default_rng(20261129)
    inputs = [t.name for t in spec.inputs]
    attr_values: dict[str, list[Any]] = {}
    for a in spec.attrs:
        attr_values[a.name] = [v for v, _ in a.values] if a.values else [a.default if a.default is not None else 0]
    default_attrs = {k: v[-1] if k != "reduction" else 1 for k, v in attr_values.items()}
    op = spec.snake
    cores = product.vector_core_num

    def value_case(
        dt: DType,
        shape_name: str,
        shapes: dict[str, tuple[int, ...]],
        name: str,
        attrs: dict[str, Any] | None = None,
        scale: float = 2.0,
        **kw: Any,
    ) -> Case:
        params: dict[str, Any] = {n: _rand(rng, shapes[n], dt, scale) for n in inputs}
        params.update(attrs if attrs is not None else default_attrs)
        return Case(op, product.name, dt.name, shape_name, name, params, **kw)

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
        for shape_name, shape in plain:
            yield value_case(dt, shape_name, dict.fromkeys(inputs, shape), f"{shape_name} {list(shape)}")
        for attr, values in attr_values.items():
            for v in values:
                yield value_case(
                    dt, "attr", dict.fromkeys(inputs, (4, 33)), f"{attr}={v} [4, 33]", {**default_attrs, attr: v}
                )
        for i, name in enumerate(inputs):
            small: dict[str, tuple[int, ...]] = dict.fromkeys(inputs, (3, 1, 17))
            small[name] = () if i == 0 else (1, 17)
            others = [n for n in inputs if n != name]
            for n in others:
                small[n] = (3, 5, 17)
            yield value_case(dt, "broadcast", small, f"broadcast {name}{list(small[name])}")
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
    yield from _status_cases(spec, product, dtypes, default_attrs, rng)


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
        p: dict[str, Any] = {**good, out: good_out, n: None}
        yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, p)
    yield status(
        "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_workspace_size"
    )
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_executor")
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out}, "phase2_twice")
    supported = set(spec.inputs[0].dtypes_for(product))
    for bad in (DType.BF16, DType.DOUBLE, DType.INT32):
        if bad not in supported:
            p = {**good, out: good_out, inputs[0]: _rand(rng, (4, 8), bad)}
            yield status(f"{inputs[0]} {bad.name} unsupported -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    nine = (1,) * 8 + (2,)
    yield status(
        "rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**{n: _rand(rng, nine, dt) for n in inputs}, out: np.zeros(nine, numpy_dtype(dt))},
    )
    p = {**good, out: good_out, inputs[-1]: _rand(rng, (3, 8), dt)}
    yield status("shapes do not broadcast -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    yield status("wrong out shape -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: np.zeros((4, 9), numpy_dtype(dt))})
    for a in spec.attrs:
        if a.values:
            allowed = [v for v, _ in a.values]
            for bad_v in (max(allowed) + 1, min(allowed) - 1):
                yield status(
                    f"{a.name}={bad_v} -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out, a.name: bad_v}
                )
