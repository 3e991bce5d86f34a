"""Reading YAML into located nodes and typed access to them.

YAML is read with a strict SafeLoader subclass into located nodes (:class:`YScalar`, :class:`YSeq`,
:class:`YMap`: every value knows its file, line and field path; duplicate keys, aliases and merge keys
are rejected; booleans are only ``true``/``false``, integers decimal or ``0x``/``0o``). :class:`Reader`
gives typed access to them and records every problem as a :class:`~codegen.spec.errors.SpecError`.

Nothing here writes files.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml

from codegen.inputs import MAX_SPEC_BYTES, InputFileError, read_input_bytes
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import (
    INT64_MAX,
    INT64_MIN,
    Expr,
    ExprType,
    Name,
    Num,
    Scope,
    check,
    parse_expr,
)
from codegen.spec.model import (
    DType,
)
from codegen.spec.naming import _DTYPE_NAMES, name_problem

# ------------------------------------------------------------------------------------------- YAML layer


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


_YAML_TAG = "tag:yaml.org,2002:"
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
                return YScalar(loc, path, None)
            self.budget -= size
            self.active.add(id(node.target))
            try:
                converted = self.convert(node.target, path)  # keeps later checks free of follow-on errors
            finally:
                self.active.discard(id(node.target))
            converted.loc = loc
            return converted
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
            return YScalar(loc, path, None)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            self.errors.append(
                SpecError(loc, path or "yaml", f"unsupported YAML value of type {type(value).__name__}; quote it")
            )
            return YScalar(loc, path, None)
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


# ---------------------------------------------------------------------------------------------- reader


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


class Reader:
    """Typed access to located YAML nodes; every problem is appended to :attr:`errors`, and the
    accessors return None (or an empty result) for a value they rejected.

    Compute parsers of other families use it through :class:`ComputeContext`.
    """

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = errors
        #: Names whose definition was rejected; expressions using them are not checked further, so one
        #: mistake gives one error rather than one per use.
        self.poisoned: set[str] = set()
        #: String literals of expressions (``"tanh"``, as parsed) -> the index of that value of a string attr.
        self.string_literals: dict[str, int] = {}

    def error(self, node: YNode, message: str, field: str | None = None) -> None:
        """Records ``message`` about ``node`` (its line; its path unless ``field`` is given)."""
        self.errors.append(SpecError(node.loc, field if field is not None else (node.path or "yaml"), message))

    def mapping(self, node: YNode, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, YNode] | None:
        """The entries of a mapping with exactly these keys.

        Records: not a mapping; each unknown key (at its line, listing the allowed keys); each missing
        required key (at the mapping's line, field ``path.key``).

        Returns:
            The known entries by key (missing ones absent), or None when ``node`` is not a mapping.
        """
        if not isinstance(node, YMap):
            self.error(node, f"expected a mapping, got {_describe(node)}")
            return None
        allowed = set(required) | set(optional)
        out: dict[str, YNode] = {}
        for key, value in node.entries:
            if not isinstance(key.value, str) or key.value not in allowed:
                self.error(key, f"unknown key {_show_key(key.value)}; allowed: {', '.join(sorted(allowed))}")
                continue
            out[key.value] = value
        for name in required:
            if name not in out:
                self.error(
                    node,
                    f"missing required key '{name}'; required here: {', '.join(sorted(required))}",
                    field=_join(node.path, name),
                )
        return out

    def mapping_entries(self, node: YNode, what: str) -> list[tuple[YScalar, YNode]] | None:
        """The ``(key, value)`` entries of a mapping whose keys the caller checks, or None (recorded as
        "expected a mapping of ``what``") when ``node`` is not a mapping."""
        if not isinstance(node, YMap):
            self.error(node, f"expected a mapping of {what}, got {_describe(node)}")
            return None
        return node.entries

    def seq(self, node: YNode) -> list[YNode] | None:
        """The items of a list, or None (recorded) when ``node`` is not one."""
        if not isinstance(node, YSeq):
            self.error(node, f"expected a list, got {_describe(node)}")
            return None
        return node.items

    def string(self, node: YNode) -> str | None:
        """A non-empty string, or None (recorded)."""
        if not isinstance(node, YScalar) or not isinstance(node.value, str):
            self.error(node, f"expected a string, got {_describe(node)}")
            return None
        if not node.value.strip():
            self.error(node, "must not be empty")
            return None
        return node.value

    def boolean(self, node: YNode) -> bool | None:
        """``true`` or ``false``, or None (recorded)."""
        if not isinstance(node, YScalar) or not isinstance(node.value, bool):
            self.error(node, f"expected true or false, got {_describe(node)}")
            return None
        return node.value

    def integer(self, node: YNode, lo: int | None = None, hi: int | None = None) -> int | None:
        """An integer (not a boolean) within ``[lo, hi]``, or None (recorded, naming the range)."""
        if not isinstance(node, YScalar) or isinstance(node.value, bool) or not isinstance(node.value, int):
            self.error(node, f"expected an integer, got {_describe(node)}")
            return None
        v = node.value
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"{lo}..{hi}" if lo is not None and hi is not None else f">= {lo}" if lo is not None else f"<= {hi}"
            self.error(node, f"{v} is out of range; allowed: {rng}")
            return None
        return v

    def number(self, node: YNode) -> int | float | None:
        """An integer or a finite float (not a boolean), or None (recorded)."""
        if (
            not isinstance(node, YScalar)
            or isinstance(node.value, bool)
            or not isinstance(node.value, (int, float))
            or (isinstance(node.value, float) and not math.isfinite(node.value))
        ):
            self.error(node, f"expected a finite number, got {_describe(node)}")
            return None
        return node.value

    def strings(self, node: YNode) -> list[tuple[YNode, str]]:
        """The non-empty strings of a list, with their nodes (problems recorded, bad items skipped)."""
        out = []
        for item in self.seq(node) or []:
            s = self.string(item)
            if s is not None:
                out.append((item, s))
        return out

    def distinct_strings(
        self, node: YNode, problem: Callable[[str], str | None], duplicate: Callable[[str], str]
    ) -> list[str]:
        """The non-empty strings of the list ``node`` that pass ``problem`` (which gives a message for a string
        it refuses, else None), each once, in file order. A refused string, or one that repeats an accepted
        one (``duplicate`` gives the message), is recorded at its item and left out, after the problems of
        :meth:`strings`."""
        out: list[str] = []
        for item, text in self.strings(node):
            message = problem(text) or (duplicate(text) if text in out else None)
            if message is not None:
                self.error(item, message)
            else:
                out.append(text)
        return out

    def name(self, node: YNode, reserved: bool = True) -> str | None:
        """A name that may become a C++ identifier (see :func:`name_problem`), or None (recorded)."""
        s = self.string(node)
        if s is None:
            return None
        problem = name_problem(s, reserved)
        if problem:
            self.error(node, problem)
            return None
        return s

    def dtype(self, node: YNode) -> DType | None:
        """A dtype name (``FLOAT``, ``BF16``, ...), or None (recorded, listing the dtypes)."""
        s = self.string(node)
        if s is None:
            return None
        if s not in DType.__members__:
            self.error(node, f"unknown dtype '{s}'; allowed: {', '.join(_DTYPE_NAMES)}")
            return None
        return DType[s]

    @staticmethod
    def unread_dtypes(node: YNode) -> int:
        """How many items of the dtype list ``node`` name no dtype (each one an error :meth:`dtypes` records
        and skips; 0 when ``node`` is not a list; nothing is recorded here). A check comparing the list with
        another is not made while it has one: an unknown ``FLOAT17`` may have been meant to be any dtype, so
        the difference would be a follow-on error of that typo."""
        if not isinstance(node, YSeq):
            return 0
        return sum(
            not (isinstance(item, YScalar) and isinstance(item.value, str) and item.value in DType.__members__)
            for item in node.items
        )

    def dtypes(self, node: YNode) -> tuple[DType, ...]:
        """A non-empty list of distinct dtypes (problems recorded, bad items skipped)."""
        items = self.seq(node)
        if items is None:
            return ()
        if not items:
            self.error(node, f"empty dtype list; give at least one of: {', '.join(_DTYPE_NAMES)}")
            return ()
        out: list[DType] = []
        for item in items:
            d = self.dtype(item)
            if d is None:
                continue
            if d in out:
                self.error(item, f"duplicate dtype '{d.name}' (already in this list)")
                continue
            out.append(d)
        return tuple(out)

    def expr(
        self, node: YNode, scope: Scope, want: Iterable[ExprType], what: str = "the expression"
    ) -> tuple[Expr | None, ExprType | None]:
        """Parses an expression field and checks it in ``scope``.

        A YAML number or boolean is taken as a literal. Records syntax errors, forbidden constructs and
        every name, function, argument-count and type problem :func:`codegen.spec.expr.check` finds.

        Returns:
            ``(expr, type)``; both None when anything was wrong.
        """
        if not isinstance(node, YScalar) or node.value is None:
            self.error(node, f"expected an expression string, got {_describe(node)}")
            return None, None
        value = node.value
        try:
            if isinstance(value, str):
                e = parse_expr(value, node.loc, node.path, strings=bool(self.string_literals))
            elif isinstance(value, float) and not math.isfinite(value):
                raise SpecError(node.loc, node.path, f"float literal {value!r} is not finite")
            elif isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
                raise SpecError(node.loc, node.path, f"integer literal {value} does not fit in int64")
            else:
                e = Num(value)
        except SpecError as exc:
            self.errors.append(exc)
            return None, None
        if self.string_literals:
            e = _replace_string_literals(e, self.string_literals)
        if self.poisoned:
            scope = dataclasses.replace(scope, poisoned=scope.poisoned | self.poisoned)
        checked = check(e, scope, frozenset(want), what)
        for problem in checked.problems:
            self.error(node, problem)
        if checked.problems or checked.type is None:
            return None, None
        return e, checked.type


def _replace_string_literals(e: Expr, literals: Mapping[str, int]) -> Expr:
    """``e`` with every string literal that is a value of a string attr replaced by that value's index."""
    if isinstance(e, Name):
        return Num(literals[e.id]) if e.id in literals else e
    children = {}
    for f in dataclasses.fields(e):  # type: ignore[arg-type]
        v = getattr(e, f.name)
        if isinstance(v, Expr):
            children[f.name] = _replace_string_literals(v, literals)
        elif isinstance(v, tuple) and v and isinstance(v[0], Expr):
            children[f.name] = tuple(_replace_string_literals(x, literals) for x in v)  # type: ignore[assignment]
    return dataclasses.replace(e, **children) if children else e  # type: ignore[type-var]


def _names(values: tuple[tuple[int, str], ...] | None) -> str:
    """The texts of a string attr's values, comma-separated (for messages)."""
    return ", ".join(n for _, n in values or ())
