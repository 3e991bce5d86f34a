"""The row-reduce host files' view entries: the tiling keys (one per dtype combination, with the dtypes, guards
and UB bytes per element the tiling function and the kernel branch on), how the tiling function reads the dim
and float attrs, the UB constants of the split, and the infershape function's rows input."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codegen.families.row_reduce.plan.buffers import (
    WHOLE_ROW_SPARE_BLOCK_BYTES,
    buffer_bytes,
    line_bytes,
    mode0_spare_line_bytes,
    queue_bytes,
    queue_counts,
    row_output_bytes,
    whole_row_spare_line_bytes,
)
from codegen.families.row_reduce.plan.program import Program
from codegen.families.row_reduce.plan.tensors import (
    column_outputs,
    combos,
    compute_of,
    device_rows,
    optional_inputs,
    row_inputs,
)
from codegen.families.row_reduce.plan.tiling import CHUNK_ALIGN, LINE_ALIGN, tiling_fields
from codegen.families.row_reduce.plan.view_records import ComboKey
from codegen.plan.dtype_keys import bf16_guard
from codegen.plan.products import queue_caps
from codegen.plan.tiling_fields import tiling_field_views
from codegen.spec.model import DeviceTensor, DType, DtypeCombo, OpSpec, Product
from codegen.types import DEVICE_ATTR_TYPE_INFO


def host_parts(spec: OpSpec, prog: Program, products: list[Product]) -> dict[str, Any]:
    """The view entries only the host files read (:class:`view_kinds.TilingSourceView`,
    :class:`view_kinds.InferShapeView`), by name, for ``spec`` with its planned computation ``prog``."""
    comp = compute_of(spec)
    dev = spec.device_interface
    rows_in = row_inputs(spec)
    float_attrs = [a for a in spec.attrs if a.type in ("float", "double")]
    dim_index = next((i for i, a in enumerate(dev.attrs) if comp.dim and a.source == comp.dim), -1)
    dim_dev = dev.attrs[dim_index] if dim_index >= 0 else None
    float_device = [
        (f"attr{k}", next(i for i, da in enumerate(dev.attrs) if da.source == a.name), a.name)
        for k, a in enumerate(float_attrs)
    ]
    return {
        "dim_device_attr": dim_dev.name if dim_dev else "",
        "dim_index": dim_index,
        "dim_list": DEVICE_ATTR_TYPE_INFO[dim_dev.type].is_list if dim_dev else False,
        "rows_index": dev.input_index(device_rows(spec)) if comp.rows else -1,
        "rows_device": device_rows(spec),
        # the device's rows tensor is the int_array attr as a 1-d tensor (its length is the rank), else an input
        # of the reduced dims' shape
        "rows_array": bool(comp.rows_attr) and device_rows(spec) == comp.rows_attr,
        "float_device_attrs": float_device,
        "tiling_fields": tiling_field_views(tiling_fields(spec)),
        "device_inputs_n": len(dev.inputs),
        "line_align": LINE_ALIGN,
        "chunk_align": CHUNK_ALIGN,
        "save_bytes": 4 * len(prog.saves),
        "tile_bytes_terms": [(t.name, "in") for t in spec.inputs] + [(t.name, "out") for t in spec.outputs],
        "line_bytes": line_bytes(prog),
        "whole_row_spare_line_bytes": whole_row_spare_line_bytes(prog),
        "mode0_spare_line_bytes": mode0_spare_line_bytes(prog),
        "whole_row_spare_block_bytes": WHOLE_ROW_SPARE_BLOCK_BYTES,
        "row_in_n": len(rows_in),
        "queue_caps": tuple(queue_caps(products)),
        "queue_counts": queue_counts(spec),
        "write_mask_outputs": _write_mask_outputs(spec),
        **_output_mask_attr(spec),
        "all_outputs_mask": (1 << len(spec.outputs)) - 1,
        # an optional input the L2 API fills (a REQUIRED device input) is never absent
        "absent_inputs": [(k, dev.input_index(n), n) for k, n, _ in optional_inputs(spec)],
        "absent_device_indices": [dev.input_index(n) for _, n, _ in optional_inputs(spec)],
        "column_n": len(column_outputs(spec)),
        "column_names": column_outputs(spec),
        "no_sync_archs": tuple(sorted({p.npu_arch for p in products if not p.hw_sync_all})),
    }


def _output_mask_attr(spec: OpSpec) -> dict[str, Any]:
    """``output_mask_index`` and ``output_mask_name``: the device attr carrying ``compute.output_mask`` (its
    index among the device attrs, which the tiling reads as a ListBool), or None and "" without one."""
    mask = compute_of(spec).output_mask
    for k, a in enumerate(spec.device_interface.attrs):
        if mask and a.source == mask:
            return {"output_mask_index": k, "output_mask_name": a.name}
    return {"output_mask_index": None, "output_mask_name": ""}


def _write_mask_outputs(spec: OpSpec) -> list[tuple[int, int, str]]:
    """``(output index, device output index, name)`` of each nullable output (the tiling clears bit ``output
    index`` of ``writeMask`` when the device output has no element)."""
    dev = spec.device_interface
    return [
        (k, next(i for i, d in enumerate(dev.outputs) if d.source == t.name), t.name)
        for k, t in enumerate(spec.outputs)
        if t.nullable
    ]


def _key_dtypes(spec: OpSpec, combo: DtypeCombo, t: DeviceTensor) -> tuple[str, ...]:
    """The ``DT_*`` names device tensor ``t`` may have under the tiling key of ``combo``: its dtype there, and
    for an int_array carrier also the dtypes of the columns registering it in another dtype beside ``combo``'s
    other dtypes (:attr:`DeviceColumn.arrays`; the kernel does not read the array)."""
    if t.dtype is None:
        return (combo.dtype(t.source or "").ge_name,)
    twins = [c for c in spec.device_interface.columns if c.arrays and c.combo.dtypes == combo.dtypes]
    return tuple(dict.fromkeys([t.dtype.ge_name, *(d.ge_name for c in twins for n, d in c.arrays if n == t.name)]))


def dtype_keys(spec: OpSpec, products: list[Product]) -> list[ComboKey]:
    """One :class:`view_records.ComboKey` per dtype combination of ``spec`` (:func:`tensors.combos`, in order),
    a combination with a BF16 tensor guarded off the NpuArchs of ``products`` without bf16."""
    keys = []
    for k, c in enumerate(combos(spec)):
        d = c.dtype(spec.inputs[0].name)
        tile_b, line_b = buffer_bytes(spec, c)
        has_bf16 = any(x is DType.BF16 for _, x in c.dtypes)
        keys.append(
            replace(
                ComboKey.of(k, d, bf16_guard(products, has_bf16)),
                text=c.text,
                ge_names=tuple(
                    _key_dtypes(spec, c, t)
                    for t in (*spec.device_interface.inputs, *spec.device_interface.outputs)
                    if t.source is not None
                ),
                f32_mask=sum(1 << i for i, (_, x) in enumerate(c.dtypes) if x is DType.FLOAT and x is not d),
                tile_bytes=tile_b,
                line_bytes=line_b,
                row_bytes=row_output_bytes(spec, c),
                queue_bytes=queue_bytes(spec, c),
            )
        )
    return keys
