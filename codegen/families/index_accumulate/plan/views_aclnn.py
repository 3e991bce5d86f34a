"""The view of the L2 API source (``op_api/aclnn_<op>.cpp``): its parameter checks and the L2 plan."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.plan.signature import L0Attr
from codegen.plan.view_bases import AclnnSourceBase


@dataclass(frozen=True)
class AclnnSourceView(AclnnSourceBase):
    """``op_api/aclnn_<op>.cpp`` (``op_api/index_accumulate_aclnn.cpp.j2``): parameter checks and the L2 plan.
    ``rows``, ``index``, ``out``: the tensors' names; ``num_rows``, ``padding``: the attrs' names (``padding``
    empty without one)."""

    index: str
    index_dtype_list: str
    l0_attrs: tuple[L0Attr, ...]
    num_rows: str
    out: str
    padding: str
    rows: str
