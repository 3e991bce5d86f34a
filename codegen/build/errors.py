"""What a build reports: :class:`BuildError`, the build cache's :class:`CacheWarning`, and the one-line
``warning: ...`` format the tool's processes print those warnings in."""

from __future__ import annotations

import warnings


def _format_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
) -> str:
    """Warnings of the tool's own kinds as one ``warning: ...`` line (others keep Python's format)."""
    if issubclass(category, CacheWarning):
        return f"warning: {message}\n"
    return _PYTHON_FORMAT_WARNING(message, category, filename, lineno, line)


_PYTHON_FORMAT_WARNING = warnings.formatwarning


def use_tool_warning_format() -> None:
    """Makes this process print the tool's warnings (:class:`CacheWarning`) as ``warning: ...`` lines, as the
    README shows them: the command, and the check's pool and case worker processes (whose stderr the user
    sees too)."""
    warnings.formatwarning = _format_warning


class BuildError(Exception):
    """A compile or link step failed; ``log`` holds the compiler's output and the command."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message if not log else f"{message}\n{log}")
        self.log = log


class CacheWarning(UserWarning):
    """A build cache entry was corrupt (its bytes no longer match the hash recorded when it was built); the
    message names the file, which is rebuilt."""
