"""The view of the L0 API source (``op_api/<kernel>.cpp``) and the attrs the L0 API takes."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.roles import compute_of
from codegen.families.index_accumulate.plan.sync_counters import SyncCounters
from codegen.plan.signature import L0Attr
from codegen.plan.view_bases import L0SourceBase
from codegen.spec.model import OpSpec


@dataclass(frozen=True)
class L0SourceView(L0SourceBase):
    """``op_api/<kernel>.cpp`` (``op_api/index_accumulate_l0.cpp.j2``): the L0 wrapper."""

    index: str
    num_rows: str
    rows: str
    sync_counters: SyncCounters


def l0_api_attrs(spec: OpSpec) -> list[L0Attr]:
    """The attrs of the L0 API in the spec's attr order: the row count (int64), and the padding row (int64)
    and the count scaling (bool) where the spec has them."""
    comp = compute_of(spec)
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}
    padding_attr = spec.attr(comp.padding) if comp.padding else None
    scale_attr = spec.attr(comp.count_scaling) if comp.count_scaling else None
    l0_attrs = [L0Attr(comp.num_rows, f"int64_t {comp.num_rows}", f"static_cast<int64_t>({comp.num_rows})")]
    if padding_attr is not None:
        l0_attrs.append(
            L0Attr(padding_attr.name, f"int64_t {padding_attr.name}", f"static_cast<int64_t>({padding_attr.name})")
        )
    if scale_attr is not None:
        l0_attrs.append(L0Attr(scale_attr.name, f"bool {scale_attr.name}", scale_attr.name))
    l0_attrs.sort(key=lambda a: attr_index[a.name])
    return l0_attrs
