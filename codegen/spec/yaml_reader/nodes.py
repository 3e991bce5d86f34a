"""Located YAML values: every node knows its file, line and field path, and how messages describe it."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.errors import SourceLoc


@dataclass(eq=False)
class YNode:
    """A YAML value with its location and field path (``inputs[0].dtypes[1]``; ``""`` for the document)."""

    loc: SourceLoc
    path: str


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
    return str(key) if not path else f"{path}.{key}"


def _show_key(key: object) -> str:
    return f"'{key}'" if isinstance(key, str) else repr(key)


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
