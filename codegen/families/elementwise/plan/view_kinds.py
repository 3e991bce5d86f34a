"""The elementwise family's own template views: one frozen view dataclass per file kind it has its own
template of (each with exactly the fields that template reads), and :data:`VIEWS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from codegen.families.elementwise.plan.view_records import (
    ColumnLaunch,
    DocColumn,
    FormulaText,
    HostScalar,
    InferRule,
    InputView,
    KernelPrograms,
    L0Launch,
    ReduceView,
    ScalarDef,
    ShapeCheck,
    StringAttr,
    TilingAttr,
    TilingKeys,
    VariantView,
)
from codegen.plan.common_view import AttrCheck
from codegen.plan.dtype_columns import OutputRule
from codegen.plan.products import QueueCap
from codegen.plan.signature import L0Attr
from codegen.plan.view_bases import AclnnSourceBase, DocBase, KernelBase, L0SourceBase, TilingSourceBase
from codegen.plan.views import KindView, views_by_kind


@dataclass(frozen=True)
class AclnnSourceView(AclnnSourceBase):
    """``op_api/aclnn_<op>.cpp`` (``op_api/elementwise_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    attr_checks: tuple[AttrCheck, ...]
    #: the mixed dtype columns the L2 API launches with each input in its own dtype
    column_launches: tuple[ColumnLaunch, ...]
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

    #: the input whose dtype the output takes
    dtype_input: InputView
    #: the mixed dtype columns whose output has another dtype
    dtype_rules: tuple[OutputRule, ...]
    inputs: tuple[InputView, ...]
    launch: L0Launch
    l0_output: str
    optional_inputs: tuple[str, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output shape rule (``infer``) and the output's dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    #: the mixed dtype columns whose output has another dtype
    dtype_rules: tuple[OutputRule, ...]
    infer: InferRule
    l0_output: str
    reduce: ReduceView | None


@dataclass(frozen=True)
class TilingSourceView(TilingSourceBase):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/elementwise_tiling.cpp.j2``): the tiling function."""

    attrs: tuple[TilingAttr, ...]
    block_bytes: int
    #: the input whose dtype selects the tiling key's dtype index
    dtype_input: InputView
    has_variants: bool
    inputs: tuple[InputView, ...]
    num_outputs: int
    optional_inputs: tuple[str, ...]
    queue_caps: tuple[QueueCap, ...]
    repeat_bytes: int
    tiling_keys: TilingKeys
    uses_cmath: bool
    uses_string_attrs: bool
    reduce: ReduceView | None


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/elementwise_kernel.cpp.j2``): the compiled formula programs."""

    compiled: KernelPrograms
    formula: FormulaText
    has_variants: bool
    inputs: tuple[InputView, ...]
    l0_output: str
    optional_inputs: tuple[str, ...]
    output: str
    scalars: tuple[HostScalar, ...]
    tiling_keys: TilingKeys
    #: device inputs the kernel takes but does not read (a second carrier of an aclnn input, or one no aclnn
    #: input feeds)
    unread_device_inputs: tuple[str, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class DocView(DocBase):
    """``docs/<aclnn>.md`` (``docs/elementwise_aclnn.md.j2``): the API documentation."""

    #: the aclnn inputs and the output, in the order of a mixed column's dtypes
    column_names: tuple[str, ...]
    formula: FormulaText
    #: the mixed dtype columns (inputs of different dtypes in one launch)
    mixed_columns: tuple[DocColumn, ...]
    output: str
    programs: VariantView
    scalar_defs: tuple[ScalarDef, ...]


#: The views of the elementwise templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = views_by_kind(
    AclnnSourceView, L0SourceView, InferShapeView, TilingSourceView, KernelView, DocView
)
