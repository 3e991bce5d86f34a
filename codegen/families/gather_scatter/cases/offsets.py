"""The 64-bit offset case of a row gather: a call whose output reaches past 2**32 elements, run through the
tiling function only (``tiling_2g``) and checked against the planner in 64-bit arithmetic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import device_attrs
from codegen.families.gather_scatter.compute import GatherScatterCompute
from codegen.families.gather_scatter.plan.tiling import tiling_decision
from codegen.spec.model import DType, OpSpec, Product

#: Source ``[4, 2**30 + 3, 2]`` along dim 1 with ``2**30 + 3`` indices: the output has about 2**33 elements
#: and the source rows of the last outer index start past 2**32 elements.
OFFSET_SHAPE = (4, 2**30 + 3, 2)
OFFSET_K = 2**30 + 3


def offset_cases(spec: OpSpec, product: Product, dt: DType, index: DType) -> Iterator[Case]:
    """The ``tiling_2g`` case of ``spec`` on ``product`` in ``dt`` with ``index`` indices."""
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute)
    out_shape = [OFFSET_SHAPE[0], OFFSET_K, OFFSET_SHAPE[2]]
    by_name = {
        comp.source: {"shape": list(OFFSET_SHAPE), "dtype": dt.name},
        comp.index: {"shape": [OFFSET_K], "dtype": index.name},
        comp.dest: {"shape": out_shape, "dtype": dt.name},
    }
    dev = spec.device_interface
    request = {
        "inputs": [by_name[d.source] for d in dev.inputs if d.source],
        "outputs": [by_name[d.source] for d in dev.outputs if d.source],
        "attrs": device_attrs(spec, {comp.dim: 1}),
    }
    params = {"request": request, "dtype": dt.name, "index": index.name}
    yield Case(
        spec.snake,
        product.name,
        dt.name,
        str(list(OFFSET_SHAPE)),
        "output past 2**32: tiling in 64 bits",
        params,
        mode="tiling_2g",
    )


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """The ``tiling_2g`` case's tiling result against :func:`tiling_decision` in 64-bit arithmetic: '' when every
    field, the block dim and the key agree and the last core's rows start past 2**32 output elements."""
    p = case.params
    d = tiling_decision(fn.spec, fn.product, OFFSET_SHAPE, 1, OFFSET_K, DType[p["dtype"]], DType[p["index"]])
    for k, v in d.tiling_fields().items():
        if tiling.get(k) != v:
            return f"tiling field {k} = {tiling.get(k)}, int64 arithmetic gives {v}"
    if (got["block_dim"], got["tiling_key"]) != (d.block_dim, d.tiling_key):
        return f"blockDim/key {got['block_dim']}/{got['tiling_key']}, want {d.block_dim}/{d.tiling_key}"
    last = d.block_dim - 1
    first_unit = last * d.units_per_core + min(last, d.units_former_num)
    if first_unit // d.chunk_num * d.inner < 2**32:
        return f"the last core starts at output row {first_unit}: the case does not reach past 32 bits"
    return ""
