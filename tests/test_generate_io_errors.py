"""A write that fails (read-only file system, full disk, permission denied) is one line saying what was and
was not written, exit 2, never a traceback."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import codegen.generate
import codegen.writer
from codegen.cli import main
from codegen.paths import project_paths

OP = "mse_loss"


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    """A spec directory with the catalogue and one op."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("products.yaml", f"{OP}.yaml"):
        shutil.copy(project_paths().specs / name, folder / name)
    return folder


def test_a_full_disk_on_the_third_file_is_one_line(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    real = codegen.writer.write_atomic
    calls: list[Path] = []

    def failing(path: Path, text: str) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, text)

    monkeypatch.setattr(codegen.writer, "write_atomic", failing)
    out = tmp_path / "out"
    assert main(["--specs", str(specs), "generate", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"error: cannot write {calls[2]}: [Errno 28] No space left on device; ")
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert len(written) == 2
    assert f"2 file(s) written before it ({written[0]}, {written[1]}), " in lines[0]
    assert lines[0].endswith(" not written")


def test_a_read_only_file_system_at_the_manifest_is_one_line(
    specs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    def read_only(out: Path, records: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(out / ".opgen-manifest.json"))

    monkeypatch.setattr(codegen.generate, "save_manifest", read_only)
    out = tmp_path / "out"
    assert main(["--specs", str(specs), "generate", "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    files = [p for p in out.rglob("*") if p.is_file()]
    assert err == [
        f"error: cannot write {out / '.opgen-manifest.json'}: [Errno 30] Read-only file system; "
        f"{len(files)} file(s) written before it ({', '.join(sorted(p.relative_to(out).as_posix() for p in files)[:3])}"
        ", ...), nothing else left to write; the manifest was not updated (the next run renders those files again)"
    ]


def _read_only_prefix(folder: Path) -> list[str]:
    """A command prefix that runs the rest with ``folder`` on a read-only file system (a read-only tmpfs
    mounted there in a private mount namespace, ``unshare -rm``); ``[]`` with ``folder`` made read-only by its
    mode where namespaces are not available to a user whose permissions count (not root)."""
    mount = ["unshare", "-rm", "sh", "-c", f'mount -t tmpfs -o ro tmpfs "{folder}" && exec "$@"', "sh"]
    if shutil.which("unshare"):
        probe = subprocess.run([*mount, "true"], capture_output=True, check=False, timeout=60)
        if probe.returncode == 0:
            return mount
    if os.geteuid() == 0:
        pytest.skip("no mount namespace here, and root writes through a read-only mode")
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    return []


def test_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    prefix = _read_only_prefix(locked)
    proc = subprocess.run(
        [*prefix, sys.executable, "-m", "codegen", "generate", "--out", str(locked / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith(f"error: cannot write {locked / 'out'}/")
    reason = "[Errno 30] Read-only file system" if prefix else "[Errno 13] Permission denied"
    assert f": {reason}; 0 file(s) written before it, " in lines[0]
    assert lines[0].endswith(" not written")
    locked.chmod(0o755)
    assert not (locked / "out").exists()
