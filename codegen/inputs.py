"""The one way opgen reads a file it is given or keeps: a regular file, below a stated size, within a time.

Specs, the product catalogue, the generation manifest, cost tables and ``opgen check --json`` result files are
all read through :func:`read_input_bytes` (or :func:`read_input_text`). A path that is not a regular file (a
directory, a FIFO, a socket, a character device such as ``/dev/zero`` or ``/dev/urandom``) is refused before a
byte is read; a FIFO is opened without blocking, so a FIFO with no writer cannot hang the open. A regular file
larger than the caller's limit is refused from its size, and the read stops at the limit plus one byte (a file
growing while it is read) and at the time limit, so no input can take unbounded memory or time.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

#: Largest spec or product catalogue read (bytes). The largest spec of the project is about 11 KiB; a YAML
#: document of a MiB is no hand-written spec, and the located nodes of a huge one take far more memory.
MAX_SPEC_BYTES = 1 << 20
#: Longest time one read of an input file may take (seconds): a local file of the largest size any reader
#: allows reads in well under a second; a file on a stalled network mount fails instead of hanging.
READ_SECONDS = 30.0
#: Bytes asked of the kernel per read call (the time limit is checked between calls).
_CHUNK = 1 << 20


class InputFileError(OSError):
    """A file that opgen reads cannot be used: missing, unreadable, not a regular file, over its size limit or
    too slow to read. ``str()`` is one line, ``<path>: cannot read: <reason>``; ``reason`` holds the reason alone
    (``[Errno 2] No such file or directory``, ``a FIFO (named pipe), not a regular file``, ...)."""

    def __init__(self, path: Path | str, reason: str, errno: int | None = None) -> None:
        if errno is None:
            super().__init__(f"{path}: cannot read: {reason}")
        else:  # OSError(errno, text) sets .errno: a caller tells a missing file (ENOENT) from the rest
            super().__init__(errno, f"{path}: cannot read: {reason}")
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: cannot read: {self.reason}"


def _kind(mode: int) -> str:
    """The kind of a file that is not a regular file, as a user names it."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _os_reason(exc: OSError) -> str:
    return f"[Errno {exc.errno}] {exc.strerror}" if exc.errno is not None else str(exc)


def _plural_bytes(n: int) -> str:
    return f"{n:,} byte" + ("" if n == 1 else "s")


def read_input_bytes(path: Path | str, max_bytes: int, seconds: float = READ_SECONDS) -> bytes:
    """The bytes of the regular file ``path``, read with a size and a time limit.

    Args:
        path: the file (a symbolic link is followed to what it names).
        max_bytes: the largest size accepted (bytes); the caller's stated limit for this kind of file.
        seconds: the time limit of the whole read (checked between reads of at most 1 MiB).

    Raises:
        InputFileError: the file is missing or unreadable (the OS's reason), is a directory, FIFO, socket or
            device (named as such), is larger than ``max_bytes`` (its size and the limit), grows past the
            limit while it is read, or takes longer than ``seconds``.
    """
    deadline = time.monotonic() + seconds
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputFileError(path, _os_reason(exc), exc.errno) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(path, f"{_kind(st.st_mode)}, not a regular file")
        if st.st_size > max_bytes:
            raise InputFileError(path, f"{_plural_bytes(st.st_size)}, more than the {_plural_bytes(max_bytes)} allowed")
        parts: list[bytes] = []
        total = 0
        while True:
            if time.monotonic() > deadline:
                raise InputFileError(path, f"not read within {seconds:g} s")
            try:
                chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            except OSError as exc:
                raise InputFileError(path, _os_reason(exc), exc.errno) from None
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise InputFileError(path, f"it grew past the {_plural_bytes(max_bytes)} allowed while it was read")
        return b"".join(parts)
    finally:
        os.close(fd)


def read_input_text(path: Path | str, max_bytes: int, seconds: float = READ_SECONDS) -> str:
    """:func:`read_input_bytes` decoded as UTF-8.

    Raises:
        InputFileError: as :func:`read_input_bytes`, or the bytes are not UTF-8 (with the offset).
    """
    data = read_input_bytes(path, max_bytes, seconds)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, f"not UTF-8 text (byte {exc.start})") from None
