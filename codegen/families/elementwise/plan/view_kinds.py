"""The elementwise family's own template views: one frozen view dataclass per file kind it has its own
template of (each with exactly the fields that template reads), and :data:`VIEWS`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from codegen.families.elementwise.plan.view_records import (
    HostScalar,
    InferRule,
    InputView,
    L0Input,
    QueueCap,
    ReduceView,
    ScalarDef,
    ShapeCheck,
    StringAttr,
    TilingAttr,
    TilingKey,
    VariantView,
)
from codegen.plan.common_view import AttrCheck
from codegen.plan.signature import L0Attr, L0ListAttr
from codegen.plan.view_bases import AclnnSourceBase, DocBase, KernelBase, L0SourceBase, TilingSourceBase
from codegen.plan.views import KindView


@dataclass(frozen=True)
class AclnnSourceView(AclnnSourceBase):
    """``op_api/aclnn_<op>.cpp`` (``op_api/elementwise_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    attr_checks: tuple[AttrCheck, ...]
    inputs: tuple[InputView, ...]
    l0_attrs: tuple[L0Attr, ...]
    max_rank: int
    output: str
    promote_expr: str
    shape: ShapeCheck
    string_attrs: tuple[StringAttr, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class L0SourceView(L0SourceBase):
    """``op_api/<kernel>.cpp`` (``op_api/elementwise_l0.cpp.j2``): the L0 wrapper launching the device op."""

    dtype_input_name: str
    inputs: tuple[InputView, ...]
    l0_inputs: tuple[L0Input, ...]
    #: the OP_ATTR arguments (OpDef order): an attr's name, or the list variable of a ``list_int`` attr
    l0_launch_attrs: tuple[str, ...]
    l0_lists: tuple[L0ListAttr, ...]
    l0_output: str
    optional_inputs: tuple[str, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output shape rule (``infer``) and the output's dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    device_name_of: Mapping[str, str]
    dtype_input_name: str
    infer: InferRule
    l0_output: str
    reduce: ReduceView | None


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/elementwise_tiling.cpp.j2``): the tiling function."""

    attrs: tuple[TilingAttr, ...]
    block_bytes: int
    dtype_input: int
    has_variants: bool
    inputs: tuple[InputView, ...]
    num_dtypes: int
    num_outputs: int
    optional_inputs: tuple[str, ...]
    queue_caps: tuple[QueueCap, ...]
    repeat_bytes: int
    tiling_keys: tuple[TilingKey, ...]
    uses_cmath: bool
    uses_string_attrs: bool
    reduce: ReduceView | None


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/elementwise_kernel.cpp.j2``): the compiled formula programs."""

    #: the per-core constant buffers (``const<k>``) of every variant's programs
    constant_buffers: tuple[str, ...]
    device_name_of: Mapping[str, str]
    formula: str
    formula_text: str
    has_variants: bool
    inputs: tuple[InputView, ...]
    l0_output: str
    max_masks: int
    max_temps: int
    #: whether a 16-bit program selects elements of the input dtype (the kernel then defines SelectElems)
    narrow_selects: bool
    #: whether a 16-bit program compares an input in its own dtype (the kernel then defines CompareElems,
    #: CastElemsForCompare and FillRounded)
    narrow_compares: bool
    optional_inputs: tuple[str, ...]
    output: str
    scalars: tuple[HostScalar, ...]
    tiling_keys: tuple[TilingKey, ...]
    #: device inputs the kernel takes but does not read (a second carrier of an aclnn input, or one no aclnn
    #: input feeds)
    unread_device_inputs: tuple[str, ...]
    variants: tuple[VariantView, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md`` (``docs/elementwise_aclnn.md.j2``): the API documentation."""

    formula: str
    formula_text: str
    output: str
    programs: VariantView
    scalar_defs: tuple[ScalarDef, ...]


#: The views of the elementwise templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = {
    c.KIND: c for c in (AclnnSourceView, L0SourceView, InferShapeView, TilingSourceView, KernelView, DocView)
}
