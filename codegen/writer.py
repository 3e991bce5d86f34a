"""Writing generated trees: atomically, only when content changed, and a drift check for CI.

All ops are rendered in memory first; only when every spec loaded and every template rendered is anything
written, so a bad spec never leaves a half-updated tree.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for annotations: importing the renderer loads Jinja2
    from codegen.render import RenderedOp


@dataclass
class WriteReport:
    """What a generate run did, as paths relative to the output root.

    ``written`` files were created or changed, ``unchanged`` already held the same bytes, ``stale`` differ
    from what the specs produce (check mode: nothing is written), ``missing`` would be created, ``extra``
    exist under an op's folder but are produced by no template.
    """

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when the tree on disk equals what the specs produce."""
        return not (self.stale or self.missing or self.extra)


def current_umask() -> int:
    """The process's umask, read without changing it where Linux exposes it (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)  # elsewhere: the only portable way to read it is to set it and put it back
    os.umask(old)
    return old


#: Signals whose default action ends the process and that :func:`write_atomic` defers while its temporary
#: file exists (Ctrl-C, ``kill``, a closed terminal), so that an interrupted write removes the file.
_DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: The characters ``tempfile.mkstemp`` draws its 8 random name characters from (CPython ``tempfile``).
_TEMP_TAIL = re.compile(r"^[a-z0-9_]{8}$")


def temp_prefix(path: Path) -> str:
    """The name prefix of :func:`write_atomic`'s temporary file for ``path``: ``.<name>.``; the full name
    adds 8 random characters (``.softplus_tiling.h.doaod6ji``)."""
    return f".{path.name}."


def is_temp_of(name: str, target: str) -> bool:
    """Whether the file name ``name`` is one :func:`write_atomic` gives the temporary file of a file named
    ``target`` in the same folder (``.<target>.<8 random characters>``)."""
    prefix = f".{target}."
    return name.startswith(prefix) and bool(_TEMP_TAIL.match(name[len(prefix) :]))


def leftover_temps(root: Path, targets: Collection[str]) -> list[str]:
    """Temporary files a killed :func:`write_atomic` left beside the files ``targets`` (paths relative to
    ``root``): regular files (not links) named by :func:`is_temp_of` for a target in the same folder; sorted
    relative paths. Nothing else is ever listed, so removing them never deletes a file opgen did not write.
    """
    by_dir: dict[str, set[str]] = {}
    for rel in targets:
        folder, _, name = rel.rpartition("/")
        by_dir.setdefault(folder, set()).add(name)
    found: list[str] = []
    for folder, names in by_dir.items():
        base = root / folder if folder else root
        try:
            entries = list(os.scandir(base))
        except OSError:  # no such folder (yet), or unreadable: nothing of ours to find there
            continue
        for entry in entries:
            if not entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
                continue
            stem = entry.name[1:-9]  # ".<target>.<8>" -> "<target>"
            if stem in names and is_temp_of(entry.name, stem):
                found.append(f"{folder}/{entry.name}" if folder else entry.name)
    return sorted(found)


def write_atomic(path: Path, text: str) -> None:
    """Writes ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through a temporary file and a rename.

    The file gets the mode a plain ``open(path, "w")`` would give it: an existing file keeps its mode, a new
    one gets ``0o666 & ~umask`` (not ``mkstemp``'s private 0600). While the temporary file
    (:func:`temp_prefix` plus 8 random characters, beside ``path``) exists, :data:`_DEFERRED_SIGNALS` are
    held back (:func:`_signals_deferred`): an interrupt takes effect after the temporary file is renamed or
    removed, so the file is whole or absent. Only a ``SIGKILL`` or a power loss
    can leave the temporary file; :func:`leftover_temps` finds it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    with _signals_deferred():
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), dir=str(path.parent))
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Holds back :data:`_DEFERRED_SIGNALS` while the block runs: their Python handlers are replaced by one
    that records the signal, and each recorded signal is raised again once the old handlers are back (a
    Ctrl-C then raises ``KeyboardInterrupt`` after the block). Python runs signal handlers only in the main
    thread, so elsewhere, and for a signal whose handler was not set from Python, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def record(signum: int, frame: object) -> None:
        pending.append(signum)

    old = {}
    for sig in _DEFERRED_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is not None:
            old[sig] = signal.signal(sig, record)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for number in dict.fromkeys(pending):
            signal.raise_signal(number)


#: A path that names an open file descriptor: ``/dev/fd/N``, ``/proc/<self|thread-self|pid>[/task/T]/fd/N``.
_FD_LINK = re.compile(r"^/(?:dev/fd|proc/(self|thread-self|\d+)(?:/task/\d+)?/fd)/(\d+)$")
_STD_LINKS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
#: Descriptors opened by :func:`hold_output` before a run, used (and closed) by :func:`write_output`.
_HELD: dict[str, int] = {}


def _descriptor_link(path: Path | str) -> tuple[bool, int | None]:
    """Whether ``path`` goes through a file-descriptor link (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, following symbolic links on the way), and the descriptor of this process it names
    (None: none, or another process's)."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit of symbolic links in one lookup
        p = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        if p in _STD_LINKS:
            return True, _STD_LINKS[p]
        m = _FD_LINK.match(p)
        if m:
            mine = m.group(1) is None or m.group(1) in ("self", "thread-self", str(os.getpid()))
            return True, int(m.group(2)) if mine else None
        if not os.path.islink(p):
            return False, None
        p = os.path.join(os.path.dirname(p), os.readlink(p))
    return False, None


def writes_in_place(path: Path | str) -> bool:
    """Whether :func:`write_output` writes ``path`` in place: it goes through a file-descriptor link
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``: an open descriptor, even of a regular file) or is
    an existing file that is not a regular file (a FIFO, a device). A regular file or a new path is written
    through a temporary file and a rename (:func:`write_atomic`)."""
    if _descriptor_link(path)[0]:
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # a new file


def _open_in_place(path: Path | str) -> int:
    """A descriptor to write ``path`` in place: a duplicate of this process's descriptor it names (sharing
    its offset, so ``/dev/stdout`` redirected to a file follows what was printed), else the file opened
    without blocking (a FIFO without a reader fails instead of hanging) and then made blocking.

    Raises:
        OSError: the descriptor is not open, or the file cannot be opened (``ENXIO``: a FIFO with no reader).
    """
    own = _descriptor_link(path)[1]
    if own is not None:
        return os.dup(own)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = False
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_TRUNC if regular else 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO (named pipe) with no reader; start its reader first") from None
        raise
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def hold_output(path: Path | str) -> None:
    """Before a run: opens an output that :func:`write_output` writes in place (a FIFO must have a reader
    now, not only at the end) and keeps the descriptor for it; nothing for a path written atomically.

    Raises:
        OSError: the output cannot be opened (``ENXIO``: a FIFO with no reader; a closed descriptor).
    """
    if not writes_in_place(path):
        return
    fd = _open_in_place(path)
    old = _HELD.pop(os.path.abspath(path), None)
    if old is not None:
        os.close(old)
    _HELD[os.path.abspath(path)] = fd


def write_output(path: Path | str, text: str) -> None:
    """Writes the result file ``path`` (UTF-8): in place, once, where :func:`writes_in_place` says so (a
    descriptor link, a FIFO, a device: a rename would replace the device node or miss the open file),
    else atomically (:func:`write_atomic`, through a symbolic link to the file it points to).

    Raises:
        OSError: the output cannot be opened (``ENXIO``: a FIFO with no reader) or written.
    """
    if not writes_in_place(path):
        write_atomic(Path(os.path.realpath(path)), text)
        return
    fd = _HELD.pop(os.path.abspath(path), None)
    if fd is None:
        fd = _open_in_place(path)
    own = _descriptor_link(path)[1]
    for stream in (sys.stdout, sys.stderr):  # what was printed there comes first (`--json /dev/stdout`)
        try:
            if own is not None and stream is not None and stream.fileno() == own:
                stream.flush()
        except (OSError, ValueError):  # a stream without a descriptor (a test's capture) or closed
            pass
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


class WriteFailed(Exception):
    """Writing the output tree failed (a read-only file system, a full disk, permission denied): ``str()`` is
    one line naming the file, the OS's reason, and what was and was not written.

    Attributes:
        path: the file or folder that could not be written.
        error: the ``OSError`` (its ``errno``: 30 read-only, 28 no space, 13 permission denied, ...).
        written: output paths (relative) written by this run before the failure.
        unwritten: output paths this run still had to write, the failed one first.
    """

    def __init__(self, path: Path, error: OSError, written: list[str], unwritten: list[str], note: str = "") -> None:
        self.path = path
        self.error = error
        self.written = list(written)
        self.unwritten = list(unwritten)
        reason = f"[Errno {error.errno}] {error.strerror}" if error.errno is not None else str(error)
        done = f"{len(self.written)} file(s) written before it" + (
            f" ({', '.join(self.written[:3])}{', ...' if len(self.written) > 3 else ''})" if self.written else ""
        )
        left = f"{len(self.unwritten)} not written" if self.unwritten else "nothing else left to write"
        super().__init__(f"cannot write {path}: {reason}; {done}, {left}" + (f"; {note}" if note else ""))


def expected_files(rendered: list[RenderedOp], extra_files: dict[str, str] | None = None) -> dict[str, str]:
    """Every generated file's text keyed by its path relative to the output root
    (``<category>/<kernel>/<kind>/<file>``, the op's ``folder``)."""
    out: dict[str, str] = {}
    for op in rendered:
        for rel, text in op.files.items():
            out[f"{op.spec.folder}/{rel}"] = text
    out.update(extra_files or {})
    return out


def sync_tree(root: Path, files: dict[str, str], op_dirs: list[str], check: bool) -> WriteReport:
    """Brings ``root`` in line with ``files`` (or, with ``check``, only reports the differences).

    Args:
        root: output directory (``generated/``).
        files: expected content by relative path.
        op_dirs: the op folders ``files`` covers; other files inside them are reported as ``extra``.
        check: report only; write nothing.

    Raises:
        WriteFailed: a file could not be written (the files before it in path order are written, it and the
            rest are not; the message says so).
    """
    report = WriteReport()
    ordered = sorted(files)
    for i, rel in enumerate(ordered):
        path = root / rel
        text = files[rel]
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            report.unchanged.append(rel)
            continue
        if check:
            (report.stale if current is not None else report.missing).append(rel)
            continue
        try:
            write_atomic(path, text)
        except OSError as exc:
            raise WriteFailed(path, exc, report.written, [rel, *ordered[i + 1 :]]) from exc
        report.written.append(rel)
    for op_dir in op_dirs:
        base = root / op_dir
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file():
                rel = path.relative_to(root).as_posix()
                if rel not in files:
                    report.extra.append(rel)
    return report
