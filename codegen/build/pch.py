"""Precompiled system headers: the system headers a translation unit reaches, the options a precompiled
header is built with, and the cached ``.gch`` a unit is compiled with first."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

from codegen.build import toolchain
from codegen.build.cache import _build_each, _commit_locked, _entry_lock, _write_text_atomically, cache_dir
from codegen.build.errors import BuildError
from codegen.build.toolchain import compiler_version

#: The header a unit is compiled with first (``-include``) when it reaches system headers, precompiled per
#: compiler, options and header set (:func:`_precompiled_std`).
PCH_HEADER = "opgen_std.h"


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)[ \t]*(\S*)", re.M)


_DEPTH_STEP = {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}


#: Macros the C and C++ libraries read to configure themselves (``_GLIBCXX_ASSERTIONS``, ``_GNU_SOURCE``,
#: ``_FILE_OFFSET_BITS``, ``__STDC_FORMAT_MACROS``, ``NDEBUG``, ...): an underscore and a capital letter,
#: ``__STDC_``/``__USE_``, or ``NDEBUG``. (The emulation's ``__aicore__``/``__gm__`` are not of them.)
_LIBRARY_CONFIG = re.compile(r"_[A-Z]|__STDC_|__USE_|NDEBUG\b")


#: Environment variables that change which system headers the compiler finds (part of a PCH's key).
_PCH_ENVIRONMENT = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX")


def system_headers(sources: Sequence[Path], include_dirs: Sequence[Path]) -> tuple[str, ...] | None:
    """The system headers (``#include <name>`` not found in ``include_dirs``) that ``sources`` reach through
    their includes, followed across every header found in ``include_dirs`` or beside its includer, sorted;
    None when precompiling them could change what the unit means: a system header included inside an
    ``#if`` block (other than a header's include guard: it may not be compiled at all), or a ``#define`` or
    ``#undef`` of a macro the libraries read (:data:`_LIBRARY_CONFIG`, e.g. ``_GLIBCXX_ASSERTIONS``) in any
    file the unit reaches, which would come after the precompiled headers instead of before them. A header
    that is not found anywhere is left out (the compiler reports it)."""
    found: set[str] = set()
    seen: set[Path] = set()
    todo = [Path(p) for p in sources]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        depth, guard = 0, None
        directives = list(_DIRECTIVE.finditer(text))
        for k, m in enumerate(directives):
            word, arg = m.group(1), m.group(2)
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
                nxt = directives[k + 1] if k + 1 < len(directives) else None
                if (
                    word == "ifndef"
                    and depth == 1
                    and guard is None
                    and nxt is not None
                    and nxt.group(1) == "define"
                    and nxt.group(2) == arg
                ):
                    guard = arg  # the include guard: its block is the whole header
            elif word == "endif":
                depth -= 1
            elif word in ("define", "undef") and arg != guard and _LIBRARY_CONFIG.match(arg):
                return None
        for inc in _INCLUDE.finditer(text):
            quote, name = inc.group(1), inc.group(2)
            where = ([path.parent] if quote == '"' else []) + list(include_dirs)
            found_at = next((d / name for d in where if (d / name).is_file()), None)
            if found_at is not None:
                todo.append(found_at)
                continue
            if quote != "<":
                continue
            # the #if depth at the include, less the include guard's block
            level = sum(_DEPTH_STEP.get(m.group(1), 0) for m in directives if m.start() < inc.start())
            if level > (1 if guard is not None else 0):
                return None
            found.add(name)
    return tuple(sorted(found))


#: Options left out of a precompiled header's command, with the value that follows them ...
_PCH_DROPPED_WITH_VALUE = ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-I", "-D", "-U")


#: ... and those spelled in one argument.
_PCH_DROPPED = ("-I", "-D", "-U", "-W", "-fmacro-prefix-map=", "-isystem", "-iquote", "-idirafter")


def _pch_flags(command_flags: Sequence[str]) -> list[str]:
    """The options of a unit's command (its arguments after the compiler) that a precompiled header must be
    built with: all but the source file, ``-c``, include paths, macro definitions and removals, forced
    includes, warnings and path maps (none of them changes how system headers compile: the op's macros and
    headers are not in them, and GCC refuses a precompiled header whose content a macro of the unit would change)."""
    out: list[str] = []
    skip = False
    for arg in command_flags:
        if skip:
            skip = False
            continue
        if arg in _PCH_DROPPED_WITH_VALUE:
            skip = True  # the option and its value, the next argument
            continue
        if arg == "-c" or not arg.startswith("-") or arg.startswith(_PCH_DROPPED):
            continue  # the source file, compile-only, and the options above
        out.append(arg)
    return out


def is_gcc(version: str) -> bool:
    """Whether ``version`` (the first line of ``<compiler> --version``) names GCC's C++ compiler."""
    return "clang" not in version.lower() and bool(re.search(r"g\+\+|\bGCC\b|\bgcc\b", version))


def _precompiled_std(command: Sequence[str], source: Path, include_dirs: Sequence[Path]) -> list[str]:
    """``["-include", <cache>/pch/<key>/opgen_std.h]``, with ``opgen_std.h.gch`` beside it, for the unit that
    ``command`` (its arguments after the compiler) compiles from ``source``: the system headers the unit
    reaches (:func:`system_headers`, its forced includes too), precompiled with the options of ``command``
    that matter (:func:`_pch_flags`), once per compiler, options and header set, like any cache entry.

    System headers are most of a unit's compile time (about 1.5 s of CPU of a 3.5 s kernel unit and half of
    a 1-2 s host unit with GCC 12). The unit sees exactly the declarations it saw before, since the header
    holds only what it includes anyway (each system header is self-contained, so the order does not
    matter; :func:`system_headers` declines a unit where it could), so its code is the same (the object's
    bytes may differ in section order), and GCC uses a ``.gch`` only where it is valid for the compile (same
    compiler and language, compatible options, no macro of the unit that the headers mention), otherwise
    reading the header text.
    The precompiled header records the size and time of every file it read (``-MD``); one that changed (a
    library update under the same ``--version``) makes the next use build it again, as do other ``CPATH``
    or ``CPLUS_INCLUDE_PATH`` values (part of its key). Empty (no precompiled header) for a compiler other
    than GCC, with ``OPGEN_NO_PCH`` set, for a unit that reaches no system header or that
    :func:`system_headers` declines, or when building the header fails (the unit then compiles as before).
    """
    if os.environ.get("OPGEN_NO_PCH") or not is_gcc(compiler_version()):
        return []
    forced = [Path(command[i + 1]) for i, arg in enumerate(command[:-1]) if arg == "-include"]
    names = system_headers([source, *forced], include_dirs)
    if not names:
        return []
    text = "// Written by opgen: the system headers of one kind of unit, precompiled (codegen/build/pch.py).\n"
    text += "".join(f"#include <{name}>\n" for name in names)
    flags = _pch_flags(command)
    where = [
        f"{v}={os.environ.get(v, '')}" for v in ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX")
    ]
    key = hashlib.sha256("\0".join([compiler_version(), *flags, *where, text]).encode()).hexdigest()[:24]
    gch = cache_dir() / "pch" / key / f"{PCH_HEADER}.gch"
    header = gch.with_name(PCH_HEADER)
    deps = gch.with_name(f"{PCH_HEADER}.files")

    def make(_: int) -> None:
        tmp = gch.with_name(f".{gch.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        depfile = tmp.with_suffix(".d")
        try:
            toolchain._run(
                [toolchain.CXX, *flags, "-x", "c++-header", str(header), "-MD", "-MF", str(depfile), "-o", str(tmp)],
                "precompiling system headers",
            )
            _write_text_atomically(deps, _file_stamps(_depfile_paths(depfile)))
            _commit_locked(tmp, gch)
        finally:
            for leftover in (tmp, depfile):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()

    try:
        with _entry_lock(gch):  # makes the directory
            if not header.is_file() or header.read_text(errors="replace") != text:
                _write_text_atomically(header, text)
            # a system header that changed since (a library update with the same `--version`): build again
            if gch.is_file() and _stamps_changed(deps):
                gch.unlink()
        _build_each([gch], make, 1)
    except (BuildError, OSError):
        return []
    return ["-include", str(header)]


def _depfile_paths(depfile: Path) -> list[str]:
    """The prerequisites of a ``-MD`` dependency file (its target and line continuations dropped)."""
    body = depfile.read_text(errors="replace").replace("\\\n", " ")
    return [p for p in body.split(":", 1)[-1].split() if p]


def _file_stamps(paths: Sequence[str]) -> str:
    """One line per file: its size, modification time (ns) and path."""
    lines = []
    for p in paths:
        st = os.stat(p)
        lines.append(f"{st.st_size} {st.st_mtime_ns} {p}")
    return "\n".join(lines) + "\n"


def _stamps_changed(record: Path) -> bool:
    """Whether a file that :func:`_file_stamps` recorded in ``record`` changed, is gone, or the record is
    missing or unreadable."""
    try:
        lines = record.read_text(errors="replace").splitlines()
        for line in lines:
            size, mtime, path = line.split(" ", 2)
            st = os.stat(path)
            if (st.st_size, st.st_mtime_ns) != (int(size), int(mtime)):
                return True
    except (OSError, ValueError):
        return True
    return not lines
