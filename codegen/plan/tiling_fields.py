"""The fields of a family's tiling struct: declared once by the family, printed by the tiling header and function
templates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class TilingField(NamedTuple):
    """One field of a family's tiling struct, declared once: the tiling header declares it, the tiling
    function sets it, and the UT test and the family's Python mirror of the tiling read it by name.

    Attributes:
        name: the field name (``TILING_DATA_FIELD_DEF`` / ``set_<name>``).
        c_type: its C++ type (``int64_t``, ``int32_t``, ``float``).
        comment: its meaning (units), with ``{placeholders}`` the family's view fills (e.g. ``{output}``).
        value_cpp: the C++ expression the tiling function sets it to, in that function's local names.
    """

    name: str
    c_type: str
    comment: str
    value_cpp: str


@dataclass(frozen=True)
class TilingFieldRow:
    """A tiling-struct row the tiling header and function templates print: ``name``, ``c_type``, ``comment``
    (the header's), ``value`` (the C++ the tiling function sets it to) and ``set_comment`` (a comment on
    that line, or empty)."""

    name: str
    c_type: str
    comment: str
    value: str
    set_comment: str = ""


def tiling_field_views(fields: tuple[TilingField, ...], **names: str) -> list[TilingFieldRow]:
    """The rows of ``fields`` (their comment placeholders filled from ``names``; no ``set_comment``)."""
    return [TilingFieldRow(f.name, f.c_type, f.comment.format(**names), f.value_cpp) for f in fields]
