"""The views of the row-reduce host files: the tiling function (``op_host/<kernel>_tiling.cpp``: how it
reads the dim and float attrs, the UB constants of the split) and the infershape function."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.families.row_reduce.plan.buffers import line_bytes
from codegen.families.row_reduce.plan.dtype_keys import DtypeKey
from codegen.families.row_reduce.plan.program import Program
from codegen.families.row_reduce.plan.tensors import compute_of, row_inputs
from codegen.families.row_reduce.plan.tiling import CHUNK_ALIGN, LINE_ALIGN, tiling_fields
from codegen.families.row_reduce.plan.views_l0 import L0OutputView
from codegen.plan.common import KindView, TilingFieldRow, tiling_field_views
from codegen.spec.model import OpSpec
from codegen.types import DEVICE_ATTR_TYPE_INFO


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output has the first input's shape and dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    dim_attr: str
    rows_input: str
    first_input: str
    rows_index: int
    l0_outputs: tuple[L0OutputView, ...]


@dataclass(frozen=True)
class TilingSourceView(KindView):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/row_reduce_tiling.cpp.j2``): the tiling function; sizes in
    bytes, alignments and buffers in elements, ``dim_index`` the dim attr's position in the OpDef."""

    KIND: ClassVar[str] = "tiling_cpp"
    chunk_align: int
    dim_attr: str
    #: the device attr carrying ``dim_attr``, its position among the OpDef attrs, and whether it is a list
    #: (``ListInt``: read with ``GetListInt``, one element) rather than an ``Int``
    dim_device_attr: str
    dim_index: int
    dim_list: bool
    dtype_keys: tuple[DtypeKey, ...]
    files: Mapping[str, str]
    #: (tiling field, OpDef attr index, aclnn attr) of every float attr
    float_device_attrs: tuple[tuple[str, int, str], ...]
    device_inputs_n: int
    rows_index: int
    rows_input: str
    line_align: int
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str
    ub_reserved_bytes: int
    work_elems: int
    #: the most buffers per tile queue (the spec's ``tiling.buffer_num``)
    buffer_num: int
    #: bytes per tile element of the kept subformulas (whole last-dim rows only)
    save_bytes: int


def host_parts(spec: OpSpec, prog: Program) -> dict[str, Any]:
    """The view entries only the host files read (:class:`TilingSourceView`, :class:`InferShapeView`), by name,
    for ``spec`` with its planned computation ``prog``."""
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
        "rows_index": dev.input_index(comp.rows) if comp.rows else -1,
        "float_device_attrs": float_device,
        "tiling_fields": tiling_field_views(tiling_fields(spec)),
        "device_inputs_n": len(dev.inputs),
        "line_align": LINE_ALIGN,
        "chunk_align": CHUNK_ALIGN,
        "ub_reserved_bytes": spec.tiling.ub_reserved_bytes,
        "buffer_num": spec.tiling.buffer_num,
        "save_bytes": 4 * len(prog.saves),
        "tile_bytes_terms": [(t.name, "in") for t in spec.inputs] + [(t.name, "out") for t in spec.outputs],
        "line_bytes": line_bytes(prog),
        "row_in_n": len(rows_in),
    }
