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
    L0ListAttr,
    QueueCap,
    ReduceView,
    ScalarDef,
    ShapeCheck,
    StringAttr,
    TilingAttr,
    TilingKey,
    VariantView,
)
from codegen.plan.common_view import AttrCheck, TensorCheck
from codegen.plan.constraints import ConstraintChecks
from codegen.plan.doc_tables import ParamRow, ProductSupportRow, StatusRow
from codegen.plan.products import DtypeGroup
from codegen.plan.signature import L0Attr, SignatureParam
from codegen.plan.tiling_fields import TilingFieldRow
from codegen.plan.views import KindView


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/elementwise_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    KIND: ClassVar[str] = "op_api_cpp"
    attr_checks: tuple[AttrCheck, ...]
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    inputs: tuple[InputView, ...]
    l0_attrs: tuple[L0Attr, ...]
    max_rank: int
    output: str
    promote_expr: str
    shape: ShapeCheck
    signature: tuple[SignatureParam, ...]
    string_attrs: tuple[StringAttr, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class L0SourceView(KindView):
    """``op_api/<kernel>.cpp`` (``op_api/elementwise_l0.cpp.j2``): the L0 wrapper launching the device op."""

    KIND: ClassVar[str] = "l0_cpp"
    dtype_input_name: str
    files: Mapping[str, str]
    inputs: tuple[InputView, ...]
    l0_attrs: tuple[L0Attr, ...]
    l0_inputs: tuple[L0Input, ...]
    #: the OP_ATTR arguments (OpDef order): an attr's name, or the list variable of a ``list_int`` attr
    l0_launch_attrs: tuple[str, ...]
    l0_lists: tuple[L0ListAttr, ...]
    l0_output: str
    l0_params: tuple[str, ...]
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
class TilingSourceView(KindView):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/elementwise_tiling.cpp.j2``): the tiling function."""

    KIND: ClassVar[str] = "tiling_cpp"
    attrs: tuple[TilingAttr, ...]
    block_bytes: int
    dtype_input: int
    files: Mapping[str, str]
    has_variants: bool
    inputs: tuple[InputView, ...]
    num_dtypes: int
    num_outputs: int
    optional_inputs: tuple[str, ...]
    queue_caps: tuple[QueueCap, ...]
    repeat_bytes: int
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_keys: tuple[TilingKey, ...]
    tiling_type: str
    uses_cmath: bool
    uses_string_attrs: bool
    reduce: ReduceView | None


@dataclass(frozen=True)
class KernelView(KindView):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/elementwise_kernel.cpp.j2``): the compiled formula programs."""

    KIND: ClassVar[str] = "kernel_cpp"
    block_bytes: int
    device_name_of: Mapping[str, str]
    formula: str
    formula_text: str
    has_variants: bool
    inputs: tuple[InputView, ...]
    kernel_class: str
    l0_inputs: tuple[L0Input, ...]
    l0_output: str
    max_masks: int
    max_temps: int
    no_pad_condition: str
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
class DocView(KindView):
    """``docs/<aclnn>.md`` (``docs/elementwise_aclnn.md.j2``): the API documentation."""

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    formula: str
    formula_text: str
    output: str
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    programs: VariantView
    scalar_defs: tuple[ScalarDef, ...]
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    tiling_lines: tuple[str, ...]


#: The views of the elementwise templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = {
    c.KIND: c for c in (AclnnSourceView, L0SourceView, InferShapeView, TilingSourceView, KernelView, DocView)
}
