"""The view of the API documentation (``docs/<aclnn>.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from codegen.plan.common import KindView, ParamRow, ProductSupportRow, SignatureParam, StatusRow


@dataclass(frozen=True)
class DocView(KindView):
    """``docs/<aclnn>.md`` (``docs/index_accumulate_aclnn.md.j2``): the API documentation."""

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    index: str
    num_rows: str
    out: str
    padding: str
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    rows: str
    scaling: str
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    tiling_lines: tuple[str, ...]
