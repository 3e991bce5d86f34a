"""The 64-bit offset cases of an elementwise op (``tiling_2g``) and their check against the planner's tiling
decision and the kernel's per-core ranges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codegen.check.cases import (
    Case,
)
from codegen.check.offsets import (
    BIG,
    cover,
    device_attrs,
    device_byte_ranges,
    field_difference,
    launch_difference,
    offset_case,
)
from codegen.spec.model import DType, OpSpec, Product


def elementwise_offset_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any]
) -> Iterator[Case]:
    """One ``tiling_2g`` case per compute dtype: every tensor of the device op ``[BIG]`` (all inputs present)."""
    for d in dtypes:
        tensor = {"shape": [BIG], "dtype": d.name}
        request = {  # the device op's tensors (the kernel's parameters), as the probe launch passes them
            "inputs": [tensor] * len(spec.device_interface.inputs),
            "outputs": [tensor] * len(spec.device_interface.outputs),
            "attrs": device_attrs(spec, attrs),
        }
        params: dict[str, Any] = {"request": request, "shape": (BIG,), "dtype": d.name, "attrs_values": dict(attrs)}
        yield offset_case(
            spec, product, d.name, f"[{BIG}]", f"{BIG} elements: tiling and per-core offsets in 64 bits", params
        )


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
    if fault := field_difference(tiling, want):
        return fault
    if fault := launch_difference(got, d.block_dim, d.tiling_key, d.workspace_bytes):
        return fault
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


def probe_ranges(fn: Any, case: Case, tiling: dict[str, int], core: int) -> dict[str, tuple[int, int]]:
    """The bytes ``[lo, hi)`` of every device tensor (all ``[BIG]``) that core ``core`` owns under the tiling
    fields: the former cores take ``formerLength`` elements each from 0, the others ``tailLength`` after
    them, ending at ``totalLength`` (the split of the tiling data, not the kernel's code)."""
    total, former = tiling["totalLength"], tiling["formerNum"]
    flen, tlen = tiling["formerLength"], tiling["tailLength"]
    start = core * flen if core < former else former * flen + (core - former) * tlen
    end = min(start + (flen if core < former else tlen), total)
    return device_byte_ranges(fn.spec, case.params["request"], lambda _: (start, end))
