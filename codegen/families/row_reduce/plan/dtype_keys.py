"""The tiling keys of a row-reduce op: one per dtype combination, with the dtypes, guards and UB bytes
per element the tiling function and the kernel branch on."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.row_reduce.plan.buffers import buffer_bytes, queue_bytes, row_output_bytes
from codegen.families.row_reduce.plan.tensors import combos
from codegen.plan.common import arch_condition
from codegen.spec.model import DType, OpSpec, Product


@dataclass(frozen=True)
class DtypeKey:
    """One tiling key: its number ``key`` (the dtype combination's position, :func:`tensors.combos`), the first
    input's dtype ``name``, ``ge_name`` (``DT_*``), AscendC ``kernel_type``, ``bytes`` per element, the
    preprocessor ``guard`` of the NpuArchs without it ("": always compiled), the combination's text,
    ``ge_names`` of every tensor (inputs then outputs, ``DT_*``), ``f32_mask`` (bit ``i``: tensor ``i``,
    inputs then outputs, is FLOAT while the first input is 16-bit) and the UB bytes of the split
    (``tile_bytes``/``line_bytes`` per element with one buffer per queue, ``row_bytes`` per row, and
    ``queue_bytes`` per element a second buffer per tile queue adds; see :func:`tiling.tiling_decision`)."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    bytes: int
    guard: str
    text: str = ""
    ge_names: tuple[str, ...] = ()
    f32_mask: int = 0
    tile_bytes: int = 0
    line_bytes: int = 0
    row_bytes: int = 0
    queue_bytes: int = 0


def dtype_keys(spec: OpSpec, products: list[Product]) -> list[DtypeKey]:
    """One :class:`DtypeKey` per dtype combination of ``spec`` (:func:`tensors.combos`, in order), a combination with
    a BF16 tensor guarded off the NpuArchs of ``products`` without bf16."""
    no_bf16 = arch_condition(products, "bf16")
    keys = []
    for k, c in enumerate(combos(spec)):
        d = c.dtype(spec.inputs[0].name)
        tile_b, line_b = buffer_bytes(spec, c)
        has_bf16 = any(x is DType.BF16 for _, x in c.dtypes)
        keys.append(
            DtypeKey(
                key=k,
                dtype=d.name,
                ge_name=d.ge_name,
                kernel_type=d.kernel_type,
                bytes=d.itemsize,
                guard=no_bf16 if has_bf16 and no_bf16 != "0" else "",
                text=c.text,
                ge_names=tuple(
                    c.dtype(t.source).ge_name
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
