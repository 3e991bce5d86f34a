"""The fields every family's view of a file kind reads, for the kinds each family has its own template of: one
frozen base dataclass a kind, which a family's view of that kind extends with the fields its template alone
reads (the family's class inherits :attr:`KindView.KIND` from its base).

A base is never rendered by itself: it is not a shared view (:data:`codegen.plan.shared_views.SHARED_VIEWS`),
and a family lists its subclass in its ``VIEWS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from codegen.plan.common_view import TensorCheck
from codegen.plan.constraints import ConstraintChecks
from codegen.plan.doc_tables import ParamRow, ProductSupportRow, StatusRow
from codegen.plan.products import DtypeGroup
from codegen.plan.signature import L0Attr, SignatureParam
from codegen.plan.tiling_fields import TilingFieldRow
from codegen.plan.views import KindView


@dataclass(frozen=True)
class AclnnSourceBase(KindView):
    """``op_api/aclnn_<op>.cpp``: the L2 API's parameter checks and its plan.

    Attributes:
        checks: the spec's constraint checks; dfx_in: the DFX input list (C++ argument text); files: the op's
        files by kind; signature: the phase-1 parameters; tensor_groups: per tensor name, the products grouped
        by the dtypes it takes there; tensors: the rank, null and format checks of every aclnn tensor.
    """

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]


@dataclass(frozen=True)
class L0SourceBase(KindView):
    """``op_api/<kernel>.cpp``: the L0 API launching the device op.

    Attributes:
        files: the op's files by kind; l0_attrs: the attrs the L0 function takes or launches with (name, C
        declaration, launch argument); l0_params: its parameters as C declarations, in order.
    """

    KIND: ClassVar[str] = "l0_cpp"
    files: Mapping[str, str]
    l0_attrs: tuple[L0Attr, ...]
    l0_params: tuple[str, ...]


@dataclass(frozen=True)
class TilingSourceBase(KindView):
    """``op_host/<kernel>_tiling.cpp``: the tiling function.

    Attributes:
        files: the op's files by kind; tiling_fields: the tiling struct's fields in order (name, C type,
        comment, value the function sets); tiling_type: the tiling struct's C++ name.
    """

    KIND: ClassVar[str] = "tiling_cpp"
    files: Mapping[str, str]
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str


@dataclass(frozen=True)
class KernelBase(KindView):
    """``op_kernel/<kernel>.cpp``: the device kernel.

    Attributes:
        block_bytes: bytes of a UB block (the kernel's ``BLOCK_BYTES``, which the shared GM <-> UB copies
        read; :data:`codegen.spec.catalogue.UB_BLOCK_BYTES`); kernel_class: the kernel's C++ class name;
        kernel_params: the entry's GM tensor parameters in order (device inputs, device outputs, then any
        scratch output the family adds); no_pad_condition: the preprocessor condition true on the NpuArchs
        without DataCopyPad (``"0"``: none).
    """

    KIND: ClassVar[str] = "kernel_cpp"
    block_bytes: int
    kernel_class: str
    kernel_params: tuple[str, ...]
    no_pad_condition: str


@dataclass(frozen=True)
class DocBase(KindView):
    """``docs/<aclnn>.md``: the API documentation's sections as lines and table rows.

    Attributes:
        constraint_lines, example_lines, tiling_lines: the lines of those sections; files: the op's files by
        kind (the example's link); param_rows: the parameter table; product_support: the product table;
        signature: the phase-1 parameters; status_rows: the return-status table.
    """

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    tiling_lines: tuple[str, ...]
