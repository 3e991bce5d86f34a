"""Command-line values checked before any work starts (counts, seconds, dtypes, output files, shards), the
usage error they raise, and what every subcommand reads first: the tool's version, the project's specs."""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codegen.writer import hold_output, writes_in_place

if TYPE_CHECKING:  # the model imports the expression language: loaded only by commands that read specs
    from codegen.check.matrix import CaseCosts
    from codegen.spec.model import Catalogue, OpSpec


def _version() -> str:
    """The installed distribution's version (``ascend-opgen``), or ``unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ascend-opgen")
    except PackageNotFoundError:
        return "unknown (not installed)"


class UsageError(Exception):
    """A command-line value is invalid; ``main`` prints the message and exits 2 before any work starts."""


def _family_option(name: str | None) -> str | None:
    """A command's ``--family`` value, checked before any work: None (not given) or the name of a registered
    family (:func:`codegen.registry.family_names`).

    Raises:
        UsageError: no such family (the message names ``--family`` and the families; exit 2).
    """
    from codegen.registry import family_names

    known = family_names()
    if name is not None and name not in known:
        raise UsageError(f"--family: no family {name!r}; the families are: {', '.join(known)}")
    return name


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    # a wait longer than threading.TIMEOUT_MAX is an OverflowError in the worker's queue
    if not 0 < value <= threading.TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(
            f"must be a positive finite number of seconds, at most {threading.TIMEOUT_MAX:.0f}, got {text}"
        )
    return value


def _dtype_names(names: list[str] | None) -> tuple[str, ...]:
    """The ``--dtype`` values, each checked against the aclDataType names.

    Raises:
        UsageError: an unknown name (the message lists the valid ones).
    """
    from codegen.spec.model import DType

    valid = [d.name for d in DType]
    for name in names or ():
        if name not in valid:
            raise UsageError(f"unknown dtype '{name}'; valid dtypes: {', '.join(valid)}")
    return tuple(names or ())


def _writable_file(path_text: str, option: str, *, output_only: bool = True) -> Path:
    """``path_text`` checked to be a file this process can create or overwrite (before a long run).

    With ``output_only`` (a file the command only writes), a path :func:`codegen.writer.write_output` writes
    in place (a FIFO, a device, ``/dev/stdout``) is opened here and kept open for the end of the run
    (:func:`codegen.writer.hold_output`); a file that is read too (a cost table) is refused by its reader
    when it is not a regular file.

    Raises:
        UsageError: the path is empty, the directory does not exist, the path is a directory, either is
            not writable, or an in-place output cannot be opened (a FIFO with no reader).
    """
    if not path_text:
        raise UsageError(f"{option}: an empty path; give a file name")
    path = Path(path_text)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{option} {path_text}: is a directory")
    if output_only and writes_in_place(path):  # a FIFO, a device, /dev/stdout: opened now (a FIFO needs its reader now)
        try:
            hold_output(path)
        except OSError as exc:
            raise UsageError(f"{option} {path_text}: cannot write: {exc.strerror or exc}") from None
        return path
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{option} {path_text}: directory {parent} {what}")
    if (path.exists() and not os.access(path, os.W_OK)) or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path_text}: not writable")
    if output_only:
        _probe_atomic_write(path, option, path_text)
    return path


def _probe_atomic_write(path: Path, option: str, path_text: str) -> None:
    """Creates and removes one temporary file where :func:`codegen.writer.write_atomic` will write ``path``
    (its real parent folder), so a folder that refuses new files although its mode allows them (``/sys``,
    ``/proc``, a read-only mount, for root too) fails before the run, not after it.

    Raises:
        UsageError: the temporary file cannot be created there (the OS's reason).
    """
    real_parent = Path(os.path.realpath(path)).parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.probe.", dir=str(real_parent))
    except OSError as exc:
        raise UsageError(f"{option} {path_text}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(tmp)  # the probe file is this process's own


def _distinct_files(named: list[tuple[str, str | None]], inputs: Sequence[str] = ()) -> None:
    """The files ``named`` (``(option, path or None)``) are different files, and none is one of ``inputs``
    (the result files a merge reads): one path given twice would have one output overwrite the other (a
    cost table replaced by the JSON results, an input replaced before it is read).

    Raises:
        UsageError: two options, or an option and an input, name the same file (symbolic links followed).
    """
    seen: dict[str, str] = {os.path.realpath(p): f"input {p}" for p in inputs}
    for option, text in named:
        if text is None:
            continue
        key = os.path.realpath(text)
        if key in seen:
            raise UsageError(f"{option} {text} is the same file as {seen[key]}: give each output its own path")
        seen[key] = f"{option} {text}"


def _costs(path_text: str, *, created: bool) -> CaseCosts:
    """The ``--costs`` table (:meth:`codegen.check.matrix.CaseCosts.read`), before any work.

    Raises:
        UsageError: the file cannot be used (missing where it is only read, unreadable, not a cost table).
    """
    from codegen.check.matrix import CaseCosts

    if created:  # the run records into it: an unwritable place would lose the times silently
        _writable_file(path_text, "--costs", output_only=False)
    try:
        return CaseCosts.read(Path(path_text), created=created)
    except ValueError as exc:
        raise UsageError(f"--costs {path_text}: {exc}") from None


def _load(args: argparse.Namespace) -> tuple[Catalogue, dict[str, OpSpec]]:
    from codegen.specs import load_project

    return load_project(getattr(args, "specs", None), getattr(args, "products", None))


def _select(specs: dict[str, OpSpec], names: list[str]) -> dict[str, OpSpec]:
    from codegen.specs import resolve_op

    if not names:
        return specs
    return {resolve_op(n, specs).snake: resolve_op(n, specs) for n in names}


def apply_spec_dir_defaults(args: argparse.Namespace) -> None:
    """With ``--specs DIR`` the generated tree is ``DIR/../generated`` (:func:`codegen.paths.generated_dir_for`):
    ``generate`` writes there when ``--out`` is not given; ``check``, ``build`` and ``explain`` (its performance
    model's build) read it when ``--generated`` is not given and it exists (otherwise the project's
    ``generated/``, for a spec directory that copies the project's specs).

    Raises:
        UsageError: ``--specs`` names no directory, or (``generate`` without ``--out``) a directory whose
            generated tree would be the project's ``generated/`` (a spec directory inside the checkout).
    """
    from codegen.paths import generated_dir_for, project_paths

    specs = getattr(args, "specs", None)
    if specs is None:
        return
    if not specs:
        raise UsageError("--specs '': give a directory of op specs holding products.yaml")
    if not Path(specs).is_dir():
        what = "does not exist" if not Path(specs).exists() else "is not a directory"
        raise UsageError(f"--specs {specs}: {what}; give a directory of op specs holding products.yaml")
    tree = generated_dir_for(specs)
    command = getattr(args, "command", None)
    if command == "generate" and not args.out:
        project = project_paths()
        if tree.resolve() == project.generated.resolve() and Path(specs).resolve() != project.specs.resolve():
            raise UsageError(
                f"--specs {specs}: its generated tree {tree} is the project's generated/, which holds the "
                "project's ops (generate would rewrite its listing and --prune would remove their folders); "
                "put the spec directory in a folder of its own (DIR/../generated is written) or pass --out"
            )
        args.out = str(tree)
    elif command in ("check", "build", "explain") and not getattr(args, "generated", None) and tree.is_dir():
        args.generated = str(tree)


def _generated_dir(text: str | None) -> None:
    """``--generated``: when given, an existing directory (a missing one is a usage error before any work,
    not a build failure reported per job)."""
    if text is not None and not Path(text).is_dir():
        what = "does not exist" if not Path(text).exists() else "is not a directory"
        raise UsageError(f"--generated {text}: {what}; give the directory `opgen generate --out` wrote")


#: The most parts ``--shard K/N`` splits the check matrix into. Every part is a job that builds (or restores)
#: the (op, product) libraries its cases use and plans the whole matrix, so past a few hundred parts that
#: repeated work, not the cases, is what a part spends its time on; CI matrices stay far below it (GitHub
#: Actions runs at most 256 jobs of one matrix). A larger N is a typo more likely than a plan.
MAX_SHARDS = 1024


def _shard(text: str) -> tuple[int, int]:
    """``K/N`` of ``--shard`` (1 <= K <= N <= :data:`MAX_SHARDS`)."""
    k_text, sep, n_text = text.partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if not sep or n < 1 or not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N (e.g. 2/4), got {text!r}")
    if n > MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"N must be at most {MAX_SHARDS} (see --help), got {text!r}")
    return k, n
