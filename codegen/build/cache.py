"""The content-hashed build cache: where it is, its entries with their recorded SHA-256 and per-entry locks,
building each missing entry once across processes and threads, and a build's work directory in it."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import socket
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codegen.build.errors import BuildError, CacheWarning
from codegen.paths import configured_cache_dir


def cache_dir() -> Path:
    """The build cache (an absolute path), created when missing and checked to be a writable directory:
    ``$OPGEN_CACHE_DIR`` (a relative one is taken from the working directory), else
    ``$XDG_CACHE_HOME/ascend-opgen`` (when that is absolute), else ``~/.cache/ascend-opgen``.

    Raises:
        BuildError: the path is not a directory, cannot be created or cannot be written (one line naming
            the path and the reason; nothing is built).
    """
    path, what = configured_cache_dir()
    try:
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(f"{path} is not a directory")
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".opgen-probe-", dir=str(path))
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BuildError(
            f"build cache {path} ({what}) is not usable: {reason}; set OPGEN_CACHE_DIR to a writable directory"
        ) from None
    return path


#: Suffix of the file beside every cache entry that holds the SHA-256 of its bytes, written when it was built.
HASH_SUFFIX = ".sha256"


def _read_record(record: Path) -> str:
    """The hash recorded in ``record`` (a ``.sha256`` file beside a cache entry), stripped. At most 128 bytes
    are read: a record opgen wrote is 65 bytes, and a damaged one (a huge or garbled file) must not be read
    whole into memory; a longer one gives a text that matches no hash.

    Raises:
        OSError: it cannot be read (missing, a directory, no permission).
        UnicodeDecodeError: it is not ASCII.
    """
    with record.open("rb") as handle:
        return handle.read(128).decode("ascii").strip()


def _is_sha256(text: str) -> bool:
    """True when ``text`` is what :func:`_sha256_file` returns: 64 lower-case hex digits."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def _entry_lock(entry: Path, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock on one cache entry (a lock file beside it) shared by every process using the cache;
    yields True once held. With ``wait=False`` it yields False at once, holding nothing, when another
    process or thread holds it."""
    lock = entry.with_name(entry.name + ".lock")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "a+b")  # noqa: SIM115 - closed by the with below
    except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
        # something other than what opgen writes sits where a cache directory or lock file belongs
        raise BuildError(
            f"build cache entry {entry} cannot be used: {exc.filename or lock} is "
            f"{'a directory' if isinstance(exc, IsADirectoryError) else 'not a directory'}; remove it"
        ) from None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _cached(entry: Path) -> bool:
    """True when the cache entry ``entry`` exists and its bytes match the hash recorded when it was built.

    An entry whose bytes differ from its recorded hash (truncated, overwritten) or that cannot be read is
    deleted with a :class:`CacheWarning` naming the file, and False is returned so that the caller rebuilds
    it. An entry without a recorded hash (written by an older version, or a build interrupted between the
    rename and the hash) is deleted and rebuilt silently, as a cache miss.
    """
    if not entry.exists():
        return False
    with _entry_lock(entry):
        return _cached_locked(entry)


def _cached_locked(entry: Path) -> bool:
    """:func:`_cached` for a caller that holds the entry's lock (:func:`_entry_lock`)."""
    if not entry.exists():
        return False
    record = entry.with_name(entry.name + HASH_SUFFIX)
    for own in (entry, record):
        if own.is_dir() and not own.is_symlink():
            # opgen writes files here; a directory is not its own to delete, nor is the entry beside it then
            # known to be stale: nothing is deleted, and no rebuild is promised
            raise BuildError(f"build cache entry {own} is a directory, not a file opgen wrote; remove it")
    problem = ""
    try:
        recorded = _read_record(record)
        if not _is_sha256(recorded):
            problem = f"its hash record {record.name} is not a SHA-256 hex digest"
        elif entry.is_file() and _sha256_file(entry) == recorded:
            return True
        else:
            problem = "its bytes do not match the hash recorded when it was built"
    except FileNotFoundError:
        pass
    except UnicodeDecodeError:
        problem = f"its hash record {record.name} is not a SHA-256 hex digest"
    except OSError as exc:
        problem = f"it cannot be read ({exc})"
    if problem:
        warnings.warn(f"build cache entry {entry} is corrupt ({problem}); rebuilding it", CacheWarning, stacklevel=3)
    for stale in (entry, record):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    return False


def _commit(built: Path, entry: Path) -> None:
    """Moves the freshly built file ``built`` into the cache as ``entry`` atomically (a rename in the same
    file system) and records its hash; an entry another process committed meanwhile is kept."""
    with _entry_lock(entry):
        _commit_locked(built, entry)


def _commit_locked(built: Path, entry: Path) -> None:
    """:func:`_commit` for a caller that holds the entry's lock (:func:`_entry_lock`). ``built`` is gone
    afterwards, also when the commit fails (it may lie in the cache entry's own folder).

    Raises:
        BuildError: the entry or its hash record is a directory.
        OSError: the rename or the hash write failed.
    """
    try:
        _move_into_cache(built, entry)
    except BaseException:
        with contextlib.suppress(OSError):
            built.unlink()
        raise


def _move_into_cache(built: Path, entry: Path) -> None:
    """The steps of :func:`_commit_locked`: keep a valid entry another process committed, else rename
    ``built`` to ``entry`` and record its hash."""
    digest = _sha256_file(built)
    record = entry.with_name(entry.name + HASH_SUFFIX)
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if entry.is_file() and _sha256_file(entry) == _read_record(record):
            built.unlink()
            return
    for target in (entry, record):
        if target.is_dir() and not target.is_symlink():
            raise BuildError(f"build cache entry {target} is a directory, not a file opgen wrote; remove it")
    os.replace(built, entry)
    _write_text_atomically(record, digest + "\n")


@contextlib.contextmanager
def _building(entry: Path) -> Iterator[bool]:
    """Holds the lock of the cache entry ``entry`` while the caller finds it cached (yields True) or builds
    and commits it with :func:`_commit_locked` (yields False): a process or thread that wants the same entry
    meanwhile waits for the lock and then finds it built, instead of building it a second time."""
    if _cached(entry):  # the common case, without holding the lock
        yield True
        return
    with _entry_lock(entry):
        yield _cached_locked(entry)


def _build_each(entries: Sequence[Path], make: Callable[[int], None], jobs: int) -> int:
    """Makes the missing ones of ``entries`` (cache entries; ``make(i)`` builds ``entries[i]`` and commits it
    with :func:`_commit_locked`, called with its lock held), ``jobs`` at a time, each entry once however many
    builds want it at the same time (the two pytest-xdist workers, ``opgen check -j 2``, threads): an entry
    whose lock another build holds is left for last, and then waited for and reused. Builds that want the
    same set of entries at once so share its compiles instead of repeating them or waiting in turn. Only one
    entry's lock is held at a time.

    Returns:
        How many entries this call made (the rest were cached, or made by another build meanwhile).

    Raises:
        BuildError: from ``make``, or a cache entry that cannot be used.
    """
    made: list[int] = []

    def attempt(i: int, wait: bool) -> bool:
        """True when entries[i] is there (found or made); False when another build holds it (no wait)."""
        if _cached(entries[i]):
            return True
        with _entry_lock(entries[i], wait=wait) as held:
            if not held:
                return False
            if not _cached_locked(entries[i]):
                make(i)
                made.append(i)
            return True

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = list(pool.map(lambda i: attempt(i, False), range(len(entries))))
        list(pool.map(lambda i: attempt(i, True), [i for i, ok in enumerate(done) if not ok]))
    return len(made)


#: A build's work directory in the cache: ``opgen-build-<pid>-<host tag>-<8 characters of mkdtemp>``.
_WORKDIR = re.compile(r"opgen-build-(\d+)-([0-9a-f]{8})-[a-z0-9_]{8}")


def _host_tag() -> str:
    """8 hex digits of the host name: process ids are only meaningful on the host (and in the process
    namespace; containers get their own host names) that made them."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _process_exists(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (``kill(pid, 0)``; a process of another user exists)."""
    if pid <= 0:
        return True  # not a process id a build records: never treated as gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def build_workdir(cache: Path) -> Path:
    """A new work directory for one build in ``cache`` (the build cache), named
    ``opgen-build-<pid>-<host tag>-<random>``; before making it, removes the work directories that builds
    killed before their cleanup left behind: exactly those with that name pattern, made on this host
    (:func:`_host_tag`), whose process no longer exists. Anything else (another name, a live or foreign
    process's directory, a file or symlink) is never touched.

    Raises:
        OSError: the directory cannot be created.
    """
    tag = _host_tag()
    for entry in cache.glob("opgen-build-*"):
        m = _WORKDIR.fullmatch(entry.name)
        if m is None or m.group(2) != tag or entry.is_symlink() or not entry.is_dir():
            continue
        if not _process_exists(int(m.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"opgen-build-{os.getpid()}-{tag}-", dir=str(cache)))


def _write_text_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` through a temporary file in the same directory and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)
