"""Value cases of the mixed dtype columns of an elementwise op (:mod:`codegen.families.elementwise.plan.columns`)
on a product that registers them: each input drawn in its own dtype and the output passed in the column's,
so the L2 API launches the column's tiling key and the kernel reads every input in its own width; the
reference takes each input's own values (float64). Quick: the first column the product registers; else
every one (of those whose dtypes ``--dtype`` selects)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case, normal_array
from codegen.families.elementwise.plan.columns import MixedColumn, mixed_columns
from codegen.runner import numpy_dtype
from codegen.spec.model import DType, OpSpec, Product


def column_label(spec: OpSpec, m: MixedColumn) -> str:
    """The check table's dtype label of a case of column ``m``: its first input's dtype, then each other
    tensor's that differs from it (``FLOAT16 (self FLOAT, gradInput FLOAT)``)."""
    names = [*spec.input_names, *(t.name for t in spec.outputs)]
    first = m.dtypes[0]
    others = [f"{n} {d.name}" for n, d in zip(names[1:], m.dtypes[1:], strict=True) if d is not first]
    return f"{first.name} ({', '.join(others)})"


def column_cases(
    spec: OpSpec,
    product: Product,
    dtypes: list[DType],
    quick: bool,
    tile: Callable[[int], int],
    default_attrs: dict[str, Any],
    rng: np.random.Generator,
) -> Iterator[Case]:
    """The cases of each mixed column ``product`` registers whose every dtype is among ``dtypes`` (the
    checked compute dtypes; quick: the first such column, and each other one's multi-core case, which
    launches its tiling key): several cores with an
    uneven tail (every core starts on a 32-byte block of the narrowest tensor), one tile and one tile + 1 of
    the column's own tile (``tile(column index)``), each input in turn with one element (read once per core
    in its own dtype), NaN in each input and large magnitudes; not quick, a core order other than in order
    too."""
    inputs = list(spec.input_names)
    output = spec.outputs[0].name
    cores = product.vector_core_num
    registered = [
        m for m in mixed_columns(spec) if product.name in m.column.combo.products and all(d in dtypes for d in m.dtypes)
    ]
    for m in registered:
        label = column_label(spec, m)
        *in_dtypes, out_dtype = m.dtypes
        block = 32 // min(d.itemsize for d in m.dtypes)
        t = tile(m.index)

        def case(
            shape_name: str,
            shapes: dict[str, tuple[int, ...]],
            out_shape: tuple[int, ...],
            scale: float = 2.0,
            nan: str = "",
            label: str = label,
            in_dtypes: list[DType] = in_dtypes,
            out_dtype: DType = out_dtype,
            **kw: Any,
        ) -> Case:
            params: dict[str, Any] = {
                n: normal_array(rng, shapes[n], d, scale) for n, d in zip(inputs, in_dtypes, strict=True)
            }
            if nan:
                params[nan].reshape(-1)[::9] = np.nan
            params[output] = np.zeros(out_shape, numpy_dtype(out_dtype))
            params.update(default_attrs)
            return Case(spec.snake, product.name, label, shape_name, f"{shape_name} {list(out_shape)}", params, **kw)

        uneven = (cores * block * 3 + 5 * block + 3,)
        yield case("several cores, uneven tail", dict.fromkeys(inputs, uneven), uneven, tags=("multicore",))
        if quick and m is not registered[0]:
            continue  # the column's tiling key is launched; the other groups run on the first column
        for n in inputs:
            shapes: dict[str, tuple[int, ...]] = {k: ((1,) if k == n else (4, 33)) for k in inputs}
            yield case(f"one-element {n}", shapes, (4, 33))
        for n in inputs:
            yield case(f"NaN in {n}", dict.fromkeys(inputs, (4, 33)), (4, 33), nan=n)
        if quick:
            continue
        for shape_name, shape in (("one tile", (t,)), ("tile+1", (t + 1,)), ("block+1", (block + 1,))):
            yield case(shape_name, dict.fromkeys(inputs, shape), shape)
        yield case("large magnitude", dict.fromkeys(inputs, (8, 64)), (8, 64), scale=40.0)
        yield case("core order", dict.fromkeys(inputs, uneven), uneven, core_order="shuffle", seed=7)
