"""Errors of the spec stage: every one names the file, the line and the field path it is about.

A :class:`SpecError` prints as ``file:line: field.path: message``; the loaders collect every error they
find in a run and raise them together as :class:`SpecErrors`, so a user fixes a spec in one round trip.
Later stages (planning, rendering) that fail on something a spec said use :func:`error_context` to turn
their exception into a located :class:`SpecError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["NO_LOC", "SourceLoc", "SpecError", "SpecErrors", "error_context"]


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A place in a source file: the file path as given to the loader and a 1-based line number."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


#: Location of model objects built in code rather than loaded from YAML.
NO_LOC = SourceLoc("<none>", 0)


class SpecError(Exception):
    """One problem in a spec or in the product catalogue.

    Attributes:
        loc: file and line of the offending YAML node.
        field: dotted path of the field, e.g. ``inputs[1].dtypes[2]`` or ``compute.scalars.norm``.
        message: what is wrong and what would be allowed, e.g. ``unknown dtype 'FLOAT32'; allowed: ...``.

    ``str(error)`` is ``f"{loc}: {field}: {message}"``.
    """

    def __init__(self, loc: SourceLoc, field: str, message: str) -> None:
        super().__init__(loc, field, message)
        self.loc = loc
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.loc}: {self.field}: {self.message}"


class SpecErrors(Exception):
    """Every :class:`SpecError` one load found (in one file or, for ``load_specs``, in all of them).

    Attributes:
        errors: the errors, ordered by file and line (stable for errors on the same line).
        omitted: how many more errors were found but not kept (a run that bounds its report; 0 by default).

    ``str(errors)`` is one error per line, then ``... and N more`` when errors were omitted.
    """

    def __init__(self, errors: Iterable[SpecError], omitted: int = 0) -> None:
        collected = list(errors)
        super().__init__(collected)
        self.errors: list[SpecError] = collected
        self.omitted = omitted

    @property
    def count(self) -> int:
        """Every error found: those kept and those omitted."""
        return len(self.errors) + self.omitted

    def __str__(self) -> str:
        more = [f"... and {self.omitted} more (not shown)"] if self.omitted else []
        return "\n".join([*(str(e) for e in self.errors), *more])


@contextmanager
def error_context(loc: SourceLoc, field: str) -> Iterator[None]:
    """Locates errors raised deep inside spec processing.

    Inside the ``with`` block, an exception that is not already a :class:`SpecError` or
    :class:`SpecErrors` is re-raised as ``SpecError(loc, field, f"{type}: {text}")`` chained to the
    original, so that a failure in planning or rendering still points at the spec line responsible.

    Args:
        loc: where the entry being processed came from.
        field: its field path.

    Raises:
        SpecError: wrapping any other ``Exception`` raised in the block.
    """
    try:
        yield
    except (SpecError, SpecErrors):
        raise
    except Exception as exc:
        raise SpecError(loc, field, f"{type(exc).__name__}: {exc}") from exc
