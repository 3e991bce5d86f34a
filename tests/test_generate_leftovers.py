"""Interrupted writes: an interrupt during :func:`codegen.writer.write_atomic` leaves no temporary file, and
``opgen generate`` removes the temporaries a killed run left beside files it writes (and nothing else); an
up-to-date output directory is not written at all (not even its manifest)."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from codegen.manifest import MANIFEST_NAME
from codegen.paths import project_paths
from codegen.writer import write_atomic


def test_interrupt_during_atomic_write_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_mkstemp = tempfile.mkstemp

    def mkstemp_then_ctrl_c(*args: object, **kwargs: object) -> tuple[int, str]:
        made = real_mkstemp(*args, **kwargs)  # type: ignore[call-overload]
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C right after the temporary file exists
        return made  # type: ignore[no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_ctrl_c)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as a fresh process has it
    try:
        with pytest.raises(KeyboardInterrupt):
            write_atomic(tmp_path / "a.h", "int x;\n")
    finally:
        signal.signal(signal.SIGINT, before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.h"]
    assert (tmp_path / "a.h").read_text() == "int x;\n"


def _opgen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codegen", *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def with_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed generated tree, copied and generated into once (which writes its manifest)."""
    copy = tmp_path_factory.mktemp("leftovers") / "g"
    shutil.copytree(project_paths().generated, copy)
    run = _opgen("generate", "--out", str(copy))
    assert run.returncode == 0 and (copy / MANIFEST_NAME).is_file(), run.stderr
    return copy


@pytest.fixture
def out(with_manifest: Path, tmp_path: Path) -> Path:
    """A private copy of :func:`with_manifest` (generating into it skips every file)."""
    copy = tmp_path / "g"
    shutil.copytree(with_manifest, copy)
    return copy


def test_leftover_temporaries_are_removed_and_nothing_else(out: Path) -> None:
    host = next(out.glob("*/*/op_host"))
    target = sorted(p.name for p in host.iterdir() if p.is_file())[0]
    ours = [host / f".{target}.doaod6ji", out / f".{MANIFEST_NAME}.t6mlpgkg"]
    theirs = [host / f".{target}.ab", host / f".{target}.notmine", host / ".unknown.h.doaod6ji"]
    for p in ours + theirs:
        p.write_text("x")
    rel = [p.relative_to(out).as_posix() for p in ours]
    check = _opgen("generate", "--check", "--out", str(out))
    assert (
        "note: left (`opgen generate` removes them) 2 temporary file(s) of an interrupted opgen write: " in check.stderr
    )
    assert rel[0] not in check.stdout and rel[1] not in check.stdout  # not "not written by opgen"
    assert f"not written by opgen: {theirs[0].relative_to(out).as_posix()}" in check.stdout
    for p in theirs:
        p.unlink()
    assert _opgen("generate", "--check", "--out", str(out)).returncode == 0  # temporaries alone: clean
    for p in theirs:
        p.write_text("x")
    run = _opgen("generate", "--prune", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert f"note: removed 2 temporary file(s) of an interrupted opgen write: {', '.join(sorted(rel))}" in run.stderr
    assert not any(p.exists() for p in ours)
    assert all(p.read_text() == "x" for p in theirs)


def test_up_to_date_read_only_output_is_not_written(out: Path) -> None:
    manifest = out / MANIFEST_NAME
    before = manifest.stat().st_mtime_ns
    os.chmod(out, stat.S_IRUSR | stat.S_IXUSR)
    try:
        run = _opgen("generate", "--out", str(out))
    finally:
        os.chmod(out, stat.S_IRWXU)
    assert run.returncode == 0, run.stderr
    assert "0 written" in run.stdout
    assert manifest.stat().st_mtime_ns == before
