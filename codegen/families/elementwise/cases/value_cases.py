"""Value cases of an elementwise op on one product and dtype: shapes around blocks, tiles and cores, ranks,
attributes, formula boundaries, broadcasting, null optional inputs, strides, NaN, core orders, mixed dtypes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import (
    Case,
    normal_array,
)
from codegen.families.elementwise.boundary import boundaries, boundary_values
from codegen.families.elementwise.cases.attr_cases import _code_path_attrs, _combined_attr_cases, _constraint_edge_cases
from codegen.families.elementwise.cases.planner_facts import _multicore_length, _shape_anchor, reduce_of
from codegen.families.elementwise.plan.shape import one_element_inputs
from codegen.runner import ScalarArg, dtype_of_array, numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

#: A fp32 value past 2^24 (fp32 holds only every fourth integer there): the boundary of the integer cases.
BEYOND_FP32_INTEGERS = 2**25 + 8


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
        if numpy_dtype(dt).kind in "iu" and np.iinfo(numpy_dtype(dt)).max > BEYOND_FP32_INTEGERS:
            # an integer dtype holding integers fp32 does not: each attr at a fp32 value past 2^24, whose
            # integer neighbours a compare in fp32 after a rounding cast confuses with it
            attr_sets += [
                (f" with {a}={BEYOND_FP32_INTEGERS:g}", {**default_attrs, a: float(BEYOND_FP32_INTEGERS)})
                for a in attr_values
                if isinstance(default_attrs[a], float)
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
        # Each input that may broadcast as one element against the others spread over several cores, each
        # with more than one tile: the kernel reads such an input once per core and keeps it in a filled tile
        # (a program that writes over that tile must fill it again before the next tile)
        wide = _multicore_length(spec, product, dt)
        for name in inputs:
            if name == anchor:
                continue
            single: dict[str, tuple[int, ...]] = {**dict.fromkeys(inputs, (wide,)), name: (1,)}
            yield value_case(dt, "broadcast", single, f"one-element {name} [1] over [{wide}]")
        # The first k inputs of one element and the next one wide, for each k past 1 where all of them may be
        # one element: the L0 API's broadcast shape comes from that input (a step of its own)
        may = one_element_inputs(spec)
        for k in range(2, len(inputs)):
            if all(n in may for n in inputs[: k + 1]):
                ones = inputs[:k]
                prefix: dict[str, tuple[int, ...]] = {**dict.fromkeys(inputs, (wide,)), **dict.fromkeys(ones, (1,))}
                yield value_case(dt, "broadcast", prefix, f"one-element {', '.join(ones)} [1] over [{wide}]")
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
        # An empty output returns before any L0 op (the L2's empty-tensor path): every dtype, quick at the first
        if not quick or dt is dtypes[0]:
            yield value_case(dt, "empty", dict.fromkeys(inputs, (0, 3)), "empty [0, 3]")
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
