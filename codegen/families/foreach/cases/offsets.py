"""The 64-bit offset case of a foreach op (``tiling_2g``): a list of one tensor of ``BIG`` elements (past 2^31),
the generated tiling function's table against the planner's int64 split, the cores' shares covering the tensor
once and reaching past 32 bits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import Case
from codegen.check.offsets import BIG, cover, field_difference, launch_difference, offset_case
from codegen.families.foreach.compute import ForeachCompute
from codegen.families.foreach.plan.tiling import tiling_decision
from codegen.spec.model import DType, OpSpec, Product


def offset_cases(spec: OpSpec, product: Product, dtype: DType) -> Iterator[Case]:
    """One ``tiling_2g`` case: every list of the device op holds one ``[BIG]`` tensor of ``dtype``."""
    comp = spec.compute
    assert isinstance(comp, ForeachCompute)
    tensor = {"shape": [BIG], "dtype": dtype.name}
    request = {"inputs": [tensor] * len(comp.sources), "outputs": [tensor], "attrs": {}}
    params: dict[str, Any] = {"request": request, "shape": (BIG,), "dtype": dtype.name}
    yield offset_case(
        spec,
        product,
        dtype.name,
        f"[{BIG}]",
        f"a list of one tensor of {BIG} elements: tiling and per-core offsets in 64 bits",
        params,
    )


def check_offsets(fn: Any, case: Case, got: dict[str, Any], tiling: dict[str, int]) -> str:
    """A ``tiling_2g`` case's tiling result ``got`` against :func:`tiling_decision` in 64-bit arithmetic: the
    scalar fields, blockDim, key and workspace, the element count and every core's share (tensor and element it
    starts and ends at); then the shares must cover ``[0, BIG)`` in order and the last core's last tile start past
    2^32.
    '' when all hold, else what differs."""
    spec, product = fn.spec, fn.product
    d = tiling_decision(spec, product, case.params["shape"], DType[case.params["dtype"]])
    table = got.get("tiling", {})
    if fault := field_difference(tiling, d.tiling_fields()):
        return fault
    if fault := launch_difference(got, d.block_dim, d.tiling_key, d.workspace_bytes):
        return fault
    if list(table.get("tensorDataCountList", []))[:1] != [BIG]:
        return f"tensorDataCountList starts {list(table.get('tensorDataCountList', []))[:1]}, want [{BIG}]"
    ranges = []
    for core, share in enumerate(d.split.cores):
        row = {
            name: int(table[name][core])
            for name in ("tensorStartList", "tensorStartOffsetList", "tensorEndList", "tensorEndOffsetList")
        }
        want = {
            "tensorStartList": share.start_tensor,
            "tensorStartOffsetList": share.start_offset,
            "tensorEndList": share.end_tensor,
            "tensorEndOffsetList": share.end_offset,
        }
        if row != want:
            return f"core {core}: the tiling's share {row}, int64 arithmetic gives {want}"
        ranges.append((share.start_offset, share.end_offset))
    fault = cover("elements", ranges, BIG)
    if fault:
        return fault
    # the largest offset the kernel computes: the start of the last core's last tile (its tile loop steps by
    # inputsTensorUbSize from the share's start), past 32 bits on any core count (one core: the loop itself)
    start, end = ranges[-1]
    tile = d.inputs_tensor_ub_size
    last_tile = start + (end - start - 1) // tile * tile
    if last_tile < 2**32:
        return f"the last tile starts at element {last_tile}: the case does not reach past 32 bits"
    return ""
