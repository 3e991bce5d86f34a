"""Located YAML values: every node knows its file, line and field path, and how messages describe it."""

from __future__ import annotations

from dataclasses import dataclass, field

from codegen.spec.errors import SourceLoc


@dataclass(eq=False)
class YNode:
    """A YAML value with its location and field path (``inputs[0].dtypes[1]``; ``""`` for the document).
    ``reported``: the YAML reader already recorded an error for this value (an unsupported tag, an alias) and
    it stands in as null; type checks of it record nothing more (one error per mistake)."""

    loc: SourceLoc
    path: str
    reported: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class YScalar(YNode):
    """A scalar: ``str``, ``int``, ``float``, ``bool`` or ``None``."""

    value: str | int | float | bool | None


@dataclass(eq=False)
class YSeq(YNode):
    """A sequence."""

    items: list[YNode]


@dataclass(eq=False)
class YMap(YNode):
    """A mapping, as ``(key, value)`` pairs in file order (keys unique)."""

    entries: list[tuple[YScalar, YNode]]


def _join(path: str, key: object) -> str:
    """The field path of ``key`` under ``path``; an invisible or control character of a key escaped
    (``op\\u200b``), so that a message never holds one."""
    if isinstance(key, str) and not key.isprintable():
        key = ascii(key)[1:-1]
    return str(key) if not path else f"{path}.{key}"


def _show_key(key: object) -> str:
    """A key as messages show it: quoted; a string holding an invisible or control character (a byte order
    mark, a zero-width space) as a Python literal with that character escaped (``'\\ufeffop'``)."""
    if isinstance(key, str):
        return f"'{key}'" if key.isprintable() else ascii(key)
    return repr(key)


def map_entries(node: YNode | None) -> list[tuple[YScalar, YNode]]:
    """The ``(key, value)`` entries of ``node`` when it is a mapping, else none."""
    return node.entries if isinstance(node, YMap) else []


def _describe(node: YNode) -> str:
    if isinstance(node, YMap):
        return "a mapping"
    if isinstance(node, YSeq):
        return "a list"
    assert isinstance(node, YScalar)
    v = node.value
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean {'true' if v else 'false'}"
    if isinstance(v, int):
        return f"integer {v}"
    if isinstance(v, float):
        return f"float {v!r}"
    return f"string '{v}'"
