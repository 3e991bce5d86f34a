"""Reading one YAML file into located nodes with a strict loader: YAML 1.2 core scalars, no duplicate keys,
aliases or merge keys, a bounded nesting depth, and every unanswered ``opgen import`` question an error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import yaml

from codegen.inputs import MAX_SPEC_BYTES, InputFileError, read_input_bytes
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.yaml_reader.nodes import YMap, YNode, YScalar, YSeq, _join, _show_key

_YAML_TAG = "tag:yaml.org,2002:"
#: Tags a node may carry: what the loader resolves plain values, lists and mappings to (and an explicit
#: ``!!str`` and the like, which mean the same). Any other explicit tag (``!!python/tuple``, ``!local``) is an
#: error at its node rather than a value the spec fields then misread.
_KNOWN_TAGS = frozenset(_YAML_TAG + t for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp"))
_INT_RE = re.compile(r"^[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$")
_FLOAT_RE = re.compile(
    r"^[-+]?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)$"
    r"|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$"
)
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")

#: The placeholder ``opgen import`` writes where it could not read the document: a string starting with
#: ``QUESTION(doc line N)``. A spec holding one does not load (each is an error at its line), so an
#: unanswered import never generates code.
QUESTION_RE = re.compile(r"^QUESTION\(doc line [0-9]+\)")


class _AliasNode(yaml.ScalarNode):
    """Stands for one ``*alias`` occurrence, at the alias's own position; ``target`` is the anchored node."""

    target: yaml.Node


#: Deepest nesting of lists and mappings a YAML file may have (a spec needs about 5 levels). PyYAML composes
#: nodes recursively, so a file of ``[[[[...`` would otherwise exhaust Python's recursion limit.
MAX_YAML_DEPTH = 100


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars (``yes``/``no``/``on``/``off`` stay strings, ``010`` is 10,
    ``1e5`` is a float) that keeps every alias occurrence visible as an :class:`_AliasNode` and refuses
    collections nested deeper than :data:`MAX_YAML_DEPTH` (a ``yaml.composer.ComposerError`` at the node)."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self._depth >= MAX_YAML_DEPTH:
            event = cast(Any, self).peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"lists and mappings nested more than {MAX_YAML_DEPTH} levels deep", event.start_mark
            )
        self._depth += 1
        try:
            return self._compose_node(parent, index)
        finally:
            self._depth -= 1

    def _compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = cast(Any, self).peek_event()  # the stubs leave peek_event untyped
            target = super().compose_node(parent, index)
            alias = _AliasNode("tag:opgen,alias", str(event.anchor), event.start_mark, event.end_mark)
            if target is not None:
                alias.target = target
            return alias
        return super().compose_node(parent, index)


_StrictLoader.yaml_implicit_resolvers = {
    first: [
        (tag, rx) for tag, rx in resolvers if tag not in {_YAML_TAG + "bool", _YAML_TAG + "int", _YAML_TAG + "float"}
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_YAML_TAG + "bool", _BOOL_RE, list("tTfF"))
_StrictLoader.add_implicit_resolver(_YAML_TAG + "int", _INT_RE, list("-+0123456789"))
_StrictLoader.add_implicit_resolver(_YAML_TAG + "float", _FLOAT_RE, list("-+0123456789."))


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if digits.startswith("0o"):
        return sign * int(digits[2:], 8)
    return sign * int(digits, 10)


_StrictLoader.add_constructor(_YAML_TAG + "int", _construct_int)


#: Most nodes all alias occurrences of one file may copy while an aliased spec is reported (each alias is
#: an error anyway; the copies only keep follow-on errors away).
ALIAS_EXPANSION_BUDGET = 10_000


class _NodeConverter:
    """Turns PyYAML nodes into located :class:`YNode` values, recording problems."""

    def __init__(self, loader: _StrictLoader, file: str, errors: list[SpecError]) -> None:
        self.loader = loader
        self.file = file
        self.errors = errors
        self.active: set[int] = set()  # aliased nodes being converted (guards against recursive aliases)
        self.budget = ALIAS_EXPANSION_BUDGET  # nodes aliases may still copy into the converted tree
        self.questions = 0  # unanswered `opgen import` placeholders found (each recorded as an error)

    def _alias_free_size(self, node: yaml.Node, limit: int) -> int | None:
        """Nodes in ``node``'s subtree, or None when it holds an alias or more than ``limit`` nodes."""
        count, stack = 0, [node]
        while stack:
            current = stack.pop()
            if isinstance(current, _AliasNode):
                return None
            count += 1
            if count > limit:
                return None
            if isinstance(current, yaml.MappingNode):
                for key, value in current.value:
                    stack += [key, value]
            elif isinstance(current, yaml.SequenceNode):
                stack += current.value
        return count

    def loc(self, node: yaml.Node) -> SourceLoc:
        return SourceLoc(self.file, node.start_mark.line + 1)

    def convert(self, node: yaml.Node, path: str) -> YNode:
        loc = self.loc(node)
        if isinstance(node, _AliasNode):
            self.errors.append(
                SpecError(loc, path or "yaml", f"YAML aliases (*{node.value}) are not supported; write the value out")
            )
            # Never expanded blindly (an alias bomb would grow exponentially): only an alias-free target
            # within what is left of the budget is copied, to keep later checks free of follow-on errors.
            size = self._alias_free_size(node.target, self.budget)
            if size is None or id(node.target) in self.active:
                return YScalar(loc, path, None, reported=True)
            self.budget -= size
            self.active.add(id(node.target))
            try:
                converted = self.convert(node.target, path)  # keeps later checks free of follow-on errors
            finally:
                self.active.discard(id(node.target))
            converted.loc = loc
            return converted
        if node.tag not in _KNOWN_TAGS:
            shown = "!!" + node.tag.removeprefix(_YAML_TAG) if node.tag.startswith(_YAML_TAG) else node.tag
            self.errors.append(SpecError(loc, path or "yaml", f"YAML tag {shown} is not supported; remove it"))
            return YScalar(loc, path, None, reported=True)
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return YSeq(loc, path, [self.convert(item, f"{path}[{i}]") for i, item in enumerate(node.value)])
        return self.scalar(node, path)

    def scalar(self, node: yaml.Node, path: str) -> YScalar:
        loc = self.loc(node)
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            self.errors.append(SpecError(loc, path or "yaml", f"invalid YAML value: {exc.problem}"))
            return YScalar(loc, path, None, reported=True)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            self.errors.append(
                SpecError(loc, path or "yaml", f"unsupported YAML value of type {type(value).__name__}; quote it")
            )
            return YScalar(loc, path, None, reported=True)
        if isinstance(value, str) and QUESTION_RE.match(value):
            self.questions += 1
            self.errors.append(
                SpecError(
                    loc,
                    path or "yaml",
                    f"unanswered question of `opgen import`: {value.splitlines()[0]}; replace the value with the "
                    "answer (or delete the entry if it does not apply)",
                )
            )
        return YScalar(loc, path, value)

    def mapping(self, node: yaml.MappingNode, path: str) -> YMap:
        entries: list[tuple[YScalar, YNode]] = []
        first: dict[tuple[type, object], int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _YAML_TAG + "merge":
                self.errors.append(
                    SpecError(self.loc(key_node), path or "yaml", "YAML merge keys (<<) are not supported")
                )
                continue
            if not isinstance(key_node, yaml.ScalarNode) or isinstance(key_node, _AliasNode):
                self.errors.append(SpecError(self.loc(key_node), path or "yaml", "mapping keys must be plain scalars"))
                continue
            key = self.scalar(key_node, path)
            key_path = _join(path, key.value)
            key = YScalar(key.loc, key_path, key.value)
            ident = (type(key.value), key.value)
            if ident in first:
                self.errors.append(
                    SpecError(key.loc, key_path, f"duplicate key {_show_key(key.value)} (first at line {first[ident]})")
                )
                continue
            first[ident] = key.loc.line
            value = self.convert(value_node, key_path)
            if isinstance(value, (YMap, YSeq)):
                value.loc = key.loc  # a block collection is reported at its key's line
            entries.append((key, value))
        return YMap(self.loc(node), path, entries)


def read_yaml(path: Path, errors: list[SpecError]) -> YNode | None:
    """Reads one YAML document into located nodes.

    Args:
        path: the file; locations use ``str(path)``.
        errors: problems are appended here (a file :func:`codegen.inputs.read_input_bytes` refuses: missing,
            not a regular file, over :data:`codegen.inputs.MAX_SPEC_BYTES`; YAML syntax with line and column, duplicate
            keys with the first key's line, aliases, merge keys, unsupported values, and each unanswered
            ``opgen import`` question: a string value starting with ``QUESTION(doc line N)``).

    Returns:
        The document's root node, or None when nothing usable could be read or a question is unanswered.
    """
    file = str(path)
    try:
        raw = read_input_bytes(path, MAX_SPEC_BYTES)
    except InputFileError as exc:
        errors.append(SpecError(SourceLoc(file, 1), "yaml", f"cannot read the file: {exc.reason}"))
        return None
    try:
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text's newlines
    except UnicodeDecodeError as exc:
        # the line of the first byte that is not UTF-8, as the other read errors give theirs
        line = raw.count(b"\n", 0, exc.start) + 1
        errors.append(SpecError(SourceLoc(file, line), "yaml", f"cannot read the file: {exc}"))
        return None
    stray = text.find("\ufeff", 1 if text.startswith("\ufeff") else 0)
    if stray >= 0:  # a file may start with one byte order mark; YAML would read another as text
        line = text.count("\n", 0, stray) + 1
        at = stray - text.rfind("\n", 0, stray)
        again = " (the file starts with two)" if stray == 1 else ""
        errors.append(
            SpecError(
                SourceLoc(file, line),
                "yaml",
                f"a byte order mark (U+FEFF, invisible) at column {at}{again}; a file may start with one, "
                "nowhere else: delete it",
            )
        )
        return None
    try:
        # the reader rejects control characters and NUL while it is constructed
        loader = _StrictLoader(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "position", None)
        line = text.count("\n", 0, mark) + 1 if isinstance(mark, int) else 1
        reason = getattr(exc, "reason", None) or str(exc).splitlines()[0]
        char = getattr(exc, "character", None)
        code = ord(char) if isinstance(char, str) and len(char) == 1 else char
        what = f"character {code:#06x} at offset {mark}: " if isinstance(code, int) else ""
        errors.append(SpecError(SourceLoc(file, line), "yaml", f"cannot read the file: {what}{reason}"))
        return None
    try:
        node = loader.get_single_node()
        if node is None:
            errors.append(SpecError(SourceLoc(file, 1), "yaml", "the file is empty; expected a mapping"))
            return None
        converter = _NodeConverter(loader, file, errors)
        root = converter.convert(node, "")
        # a starter with unanswered questions is reported by them alone (its placeholders would only add
        # follow-on errors of the wrong kind: a string where a list or mapping belongs)
        return None if converter.questions else root
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        column = f" (column {mark.column + 1})" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        errors.append(SpecError(SourceLoc(file, line), "yaml", f"YAML syntax error: {problem}{column}"))
        return None
    except yaml.YAMLError as exc:
        errors.append(SpecError(SourceLoc(file, 1), "yaml", f"YAML error: {exc}"))
        return None
    finally:
        loader.dispose()
