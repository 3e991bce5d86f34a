"""The fields of a family's tiling struct: declared once by the family, printed by the tiling header and function
templates."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Generic, TypeVar

#: A family's tiling decision (the Python mirror of its tiling function's result for one call).
D = TypeVar("D")


@dataclass(frozen=True)
class TilingField(Generic[D]):
    """One field of a family's tiling struct, declared once: the tiling header declares it, the tiling
    function sets it, and the UT test and the family's Python mirror of the tiling read it by name.

    Attributes:
        name: the field name (``TILING_DATA_FIELD_DEF`` / ``set_<name>``).
        comment: its meaning (units), with ``{placeholders}`` the family's view fills (e.g. ``{output}``).
        value: its value in the family's tiling decision ``D`` (the Python mirror of :attr:`value_cpp`), or None
            for a field the decision does not hold (a float attr the tiling function copies from the call).
        c_type: its C++ type (``int64_t``, the default; ``int32_t``, ``float``).
        cpp: the C++ expression the tiling function sets it to, in that function's local names, where that is
            not a local of the field's own name (empty: ``name``); read it as :attr:`value_cpp`.
    """

    name: str
    comment: str
    value: Callable[[D], int] | None = None
    c_type: str = "int64_t"
    cpp: str = ""

    @classmethod
    def held(
        cls, name: str, comment: str, *, attr: str = "", c_type: str = "int64_t", cpp: str = ""
    ) -> TilingField[Any]:
        """A field whose value the decision holds as is: in attribute ``attr`` (a dotted path such as
        ``row_split.groups``), by default the one named like the field in snake case (``rowsPerGroup`` ->
        ``d.rows_per_group``, :func:`decision_attr`); the other arguments as the class's."""
        return cls(name, comment, attrgetter(attr or decision_attr(name)), c_type, cpp)

    @property
    def value_cpp(self) -> str:
        """The C++ expression the tiling function sets the field to: :attr:`cpp`, else the field's name."""
        return self.cpp or self.name


def decision_attr(name: str) -> str:
    """The tiling decision's attribute of tiling field ``name``: the camelCase name in snake case
    (``formerLength`` -> ``former_length``, ``dChunk`` -> ``d_chunk``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def tiling_values(fields: Iterable[TilingField[D]], decision: D) -> dict[str, int]:
    """The tiling struct's values in ``decision``, by field name in the order of ``fields`` (what the generated
    tiling function writes, as the family's Python mirror computes it).

    Raises:
        ValueError: a field of ``fields`` has no ``value`` (the decision does not hold it).
    """
    out = {}
    for f in fields:
        if f.value is None:
            raise ValueError(f"tiling field {f.name} has no value in the tiling decision")
        out[f.name] = f.value(decision)
    return out


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


def tiling_field_views(fields: Iterable[TilingField[D]], **names: str) -> list[TilingFieldRow]:
    """The rows of ``fields`` (their comment placeholders filled from ``names``; no ``set_comment``)."""
    return [TilingFieldRow(f.name, f.c_type, f.comment.format(**names), f.value_cpp) for f in fields]
