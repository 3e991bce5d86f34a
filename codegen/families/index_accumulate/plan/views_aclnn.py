"""The view of the L2 API source (``op_api/aclnn_<op>.cpp``): its parameter checks and the L2 plan."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from codegen.plan.common_view import TensorCheck
from codegen.plan.constraints import ConstraintChecks
from codegen.plan.products import DtypeGroup
from codegen.plan.signature import L0Attr, SignatureParam
from codegen.plan.views import KindView


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/index_accumulate_aclnn.cpp.j2``): parameter checks and the L2 plan.
    ``rows``, ``index``, ``out``: the tensors' names; ``num_rows``, ``padding``: the attrs' names (``padding``
    empty without one)."""

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    index: str
    index_dtype_list: str
    l0_attrs: tuple[L0Attr, ...]
    num_rows: str
    out: str
    padding: str
    rows: str
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]
