"""The reduce epilogue in the elementwise views: the :class:`.view_records.ReduceView` the templates read, the
``reduceKind`` tiling field, and the docs' lines on the reduction."""

from __future__ import annotations

from typing import Any

from codegen.families.elementwise.plan.reduce import (
    PARTIAL_SLOT_BYTES,
    REDUCE_FP32_BUFFERS,
    reduce_of,
)
from codegen.families.elementwise.plan.view_records import ReduceView
from codegen.plan.products import NO_FP32_REDUCE_ARCHS, arch_condition, no_fp32_reduce_condition
from codegen.plan.tiling_fields import TilingFieldRow
from codegen.spec.model import OpSpec, Product


def reduce_parts(spec: OpSpec, products: list[Product], view: dict[str, Any]) -> dict[str, Any]:
    """The view entries of the reduce epilogue: ``reduce`` (None without an epilogue) and, with one,
    ``tiling_fields``, ``constraint_lines`` and ``tiling_lines`` of ``view`` extended or rewritten for it."""
    dev = spec.device_interface
    output = spec.outputs[0]
    red = reduce_of(spec)
    if red is None:
        return {"reduce": None}
    device_index = next(i for i, da in enumerate(dev.attrs) if da.source == red.attr)
    names = dict(spec.attr(red.attr).values or ())
    reduce_view = ReduceView(
        attr=red.attr,
        none=red.none,
        mean=red.mean,
        sum=red.sum,
        device_index=device_index,
        device_name=dev.attrs[device_index].name,
        none_text=names[red.none] if dev.attrs[device_index].type == "string" else "",
        mean_text=names[red.mean],
        sum_text=names[red.sum],
        no_sync_condition=arch_condition(products, "hw_sync_all"),
        no_fp32_reduce_condition=no_fp32_reduce_condition(products),
        no_sync_archs=tuple(sorted({p.npu_arch for p in products if not p.hw_sync_all})),
        fp32_buffers=REDUCE_FP32_BUFFERS,
    )
    parts: dict[str, Any] = {"reduce": reduce_view}
    parts["tiling_fields"] = [
        *view["tiling_fields"],
        TilingFieldRow(
            name="reduceKind",
            c_type="int32_t",
            comment=f"0: elementwise output ({red.attr} {red.none}); 1: sum ({red.sum}); 2: mean ({red.mean})",
            value="static_cast<int32_t>(reduceKind)",
            set_comment="the reduction the call asks for",
        ),
    ]
    rewritten = {
        "Empty tensors": (
            f"Empty tensors succeed: {red.attr} {red.none} gives an empty output, {red.sum} (sum) gives 0 and "
            f"{red.mean} (mean) NaN."
        ),
        "Deterministic": (
            f"Deterministic: {red.attr} {red.none} computes every element once; {red.sum} (sum) and "
            f"{red.mean} (mean) add the fp32 values in a fixed order (tiles in order per core, core 0 sums "
            "the per-core partials in a fixed order after SyncAll), so the result is bit-identical over runs."
        ),
    }
    parts["constraint_lines"] = [
        *(next((v for k, v in rewritten.items() if c.startswith(k)), c) for c in view["constraint_lines"]),
        f"`{output.name}` is 0-d for {red.attr} {red.mean} (mean) and {red.sum} (sum); for {red.none} (none) "
        "it has the shape above.",
    ]
    parts["tiling_lines"] = [
        *view["tiling_lines"],
        f"{red.attr} {red.mean} / {red.sum}: every tile's fp32 values are summed (ReduceSum; on NpuArch "
        f"{', '.join(map(str, NO_FP32_REDUCE_ARCHS))} Add halving and scalar adds) into a per-core partial in a "
        f"{PARTIAL_SLOT_BYTES}-byte workspace slot per core (the user workspace); after SyncAll core 0 sums "
        "the slots as it sums a tile. Products without hardware SyncAll run the reduction on one core.",
    ]
    return parts
