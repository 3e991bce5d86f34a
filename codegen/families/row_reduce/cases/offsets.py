"""The 64-bit offset case of a row-reduce op: a call whose tensors reach past 2**31 elements, run through
the tiling function alone and checked against the planner in 64-bit arithmetic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import device_attrs
from codegen.families.row_reduce.plan.tensors import combos, compute_of, default_combo, row_outputs
from codegen.families.row_reduce.plan.tiling import tiling_decision, trailing_view_dims, view_dims
from codegen.spec.model import DType, OpSpec, Product

#: The shape of the 64-bit offset case: R = 3 along dim 0 and 2**31 + 5 inner positions.
OFFSET_SHAPE = (3, 2**31 + 5)


#: The shape of the 64-bit offset case of the ``rows`` form: 2**31 + 5 rows of R = 3.
ROWS_OFFSET_SHAPE = (2**31 + 5, 3)


def offset_cases(spec: OpSpec, product: Product, dt: DType) -> Iterator[Case]:
    """The 64-bit offset case (``tiling_2g``: the tiling function alone) of ``spec`` on ``product`` in ``dt``:
    :data:`OFFSET_SHAPE` along dim 0, or :data:`ROWS_OFFSET_SHAPE` in the ``rows`` form."""
    comp = compute_of(spec)
    shape = ROWS_OFFSET_SHAPE if comp.rows else OFFSET_SHAPE
    combo = default_combo(spec, dt, product)
    per_row = set(row_outputs(spec))
    dev = spec.device_interface

    def tensor(source: str | None) -> dict[str, Any]:
        name = source or spec.input_names[0]
        dims = shape[1:] if name == comp.rows else (shape[0], 1) if name in per_row else shape
        return {"shape": list(dims), "dtype": combo.dtype(name).name}

    request = {
        "inputs": [tensor(d.source) for d in dev.inputs],
        "outputs": [tensor(d.source) for d in dev.outputs],
        "attrs": device_attrs(spec, {} if comp.rows else {comp.dim: 0}),
    }
    params = {"request": request, "shape": shape, "dim": 0, "dtype": dt.name, "combo": combos(spec).index(combo)}
    yield Case(
        spec.snake,
        product.name,
        dt.name,
        str(list(shape)),
        "inner past 2**31: tiling in 64 bits",
        params,
        mode="tiling_2g",
    )


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when
    every field, the block dim and the key agree and the tasks reach past 2**31 elements, else what differs."""
    p = case.params
    d = tiling_decision(fn.spec, fn.product, tuple(p["shape"]), p["dim"], combos(fn.spec)[p["combo"]])
    for k, v in d.tiling_fields().items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    if (got["block_dim"], got["tiling_key"]) != (d.block_dim, d.tiling_key):
        return f"blockDim/key {got['block_dim']}/{got['tiling_key']}, want {d.block_dim}/{d.tiling_key}"
    rows = compute_of(fn.spec).rows
    outer, r, inner = trailing_view_dims(tuple(p["shape"]), 1) if rows else view_dims(tuple(p["shape"]), p["dim"])
    if d.mode == 1:
        blocks = -(-inner // d.block_width)
        last_start = (outer - 1) * r * inner + (r - 1) * inner + (blocks - 1) * d.block_width
    else:
        last_start = (outer - 1) * r
    if last_start < 2**31:
        return f"the last line starts at element {last_start}: the case does not reach past 32 bits"
    return ""
