"""Typed access to located YAML nodes (:class:`Reader`): each accessor checks a value's type and range,
records every problem as a :class:`~codegen.spec.errors.SpecError` and returns None for a value it rejected."""

from __future__ import annotations

import dataclasses
import difflib
import keyword
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from codegen.spec.errors import SpecError
from codegen.spec.expr import (
    INT64_MAX,
    INT64_MIN,
    Expr,
    ExprType,
    Name,
    Num,
    Scope,
    check,
    names,
    parse_expr,
)
from codegen.spec.model import (
    DType,
)
from codegen.spec.naming import _DTYPE_NAMES, name_problem
from codegen.spec.yaml_reader.nodes import YMap, YNode, YScalar, YSeq, _describe, _join, _show_key


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
        #: A string attr's values were missing or wrong (reported there): a string literal of an expression
        #: is then accepted without a check, as it may name one of the values meant.
        self.strings_reported = False

    def error(self, node: YNode, message: str, field: str | None = None) -> None:
        """Records ``message`` about ``node`` (its line; its path unless ``field`` is given); nothing for a
        node the YAML reader already reported (:attr:`YNode.reported`)."""
        if node.reported:
            return
        self.errors.append(SpecError(node.loc, field if field is not None else (node.path or "yaml"), message))

    def mapping(self, node: YNode, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, YNode] | None:
        """The entries of a mapping with exactly these keys.

        Records: not a mapping; each unknown key (at its line, listing the allowed keys, and naming the
        absent allowed key it is likely a misspelling of: ``did you mean 'dtypes'?``); each missing required key
        (at the mapping's line, field ``path.key``) unless an unknown key was reported as its misspelling (one
        typo, one error).

        Returns:
            The known entries by key (missing ones absent), or None when ``node`` is not a mapping.
        """
        if not isinstance(node, YMap):
            self.error(node, f"expected a mapping, got {_describe(node)}")
            return None
        allowed = set(required) | set(optional)
        given = {key.value for key, _ in node.entries}
        absent = sorted(allowed - given)
        misspelt: set[str] = set()
        out: dict[str, YNode] = {}
        for key, value in node.entries:
            if not isinstance(key.value, str) or key.value not in allowed:
                close = difflib.get_close_matches(key.value, absent, n=1) if isinstance(key.value, str) else []
                meant = f" (did you mean '{close[0]}'?)" if close else ""
                misspelt.update(close)
                self.error(key, f"unknown key {_show_key(key.value)}{meant}; allowed: {', '.join(sorted(allowed))}")
                continue
            out[key.value] = value
        for name in required:
            if name not in out and name not in misspelt:
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

    def line(self, node: YNode, use: str) -> str | None:
        """A non-empty string of printable characters on one line, or None (recorded): free text that lands
        in a generated file where a line is expected (``use`` says where, for the message). A line break, NUL,
        BEL or any other control character is refused."""
        text = self.string(node)
        if text is not None and not text.isprintable():
            self.error(node, f"must be one line of printable text (got a line break or control character; {use})")
            return None
        return text

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
                e = parse_expr(value, node.loc, node.path, strings=bool(self.string_literals) or self.strings_reported)
            elif isinstance(value, float) and not math.isfinite(value):
                raise SpecError(node.loc, node.path, f"float literal {value!r} is not finite")
            elif isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
                raise SpecError(node.loc, node.path, f"integer literal {value} does not fit in int64")
            else:
                e = Num(value)
        except SpecError as exc:
            if not (isinstance(value, str) and self._names_a_poisoned_keyword(value)):
                self.errors.append(exc)  # else a follow-on of the name's own error (`class` cannot be parsed)
            return None, None
        if self.string_literals:
            e = _replace_string_literals(e, self.string_literals)
        poisoned = set(self.poisoned)
        if self.strings_reported:
            poisoned |= {n for n in names(e) if n.startswith(('"', "'"))}
        if poisoned:
            scope = dataclasses.replace(scope, poisoned=scope.poisoned | poisoned)
        checked = check(e, scope, frozenset(want), what)
        for problem in checked.problems:
            self.error(node, problem)
        if checked.problems or checked.type is None:
            return None, None
        return e, checked.type

    def _names_a_poisoned_keyword(self, text: str) -> bool:
        """Whether ``text`` mentions a name whose definition was reported (:attr:`poisoned`) that Python
        cannot parse as a name (a keyword such as ``class``): the expression's syntax error follows from it."""
        return any(keyword.iskeyword(w) for w in _words(text) & self.poisoned)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


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
