"""Every file opgen reads (spec, catalogue, manifest, cost table, result file) goes through one reader that
refuses what is not a regular file below a stated size: no hang on a FIFO or ``/dev/urandom``, no unbounded
read of ``/dev/zero`` or a huge file. Each special kind is tried on each reader; the CLI prints one line and
exits 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from codegen.check.matrix import MAX_COST_TABLE_BYTES, CaseCosts
from codegen.check.result_files import MAX_RESULT_BYTES, MergeError, read_json
from codegen.inputs import MAX_SPEC_BYTES, InputFileError, read_input_bytes
from codegen.manifest import MANIFEST_NAME, MAX_MANIFEST_BYTES, ManifestError, file_hash, load_manifest
from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_specs

SPECIAL_KINDS = ("directory", "fifo", "dev_zero", "dev_urandom", "huge")


def _special(tmp: Path, name: str, kind: str, limit: int) -> Path:
    """A path named ``name`` under ``tmp`` of the given special ``kind`` (a sparse file of ``limit + 1``
    bytes for ``huge``; a symbolic link to the device for the device kinds)."""
    path = tmp / name
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "dev_urandom":
        path.symlink_to("/dev/urandom")
    else:
        with path.open("wb") as handle:
            handle.truncate(limit + 1)
    return path


def _within(seconds: float, call: Callable[[], object]) -> BaseException | None:
    """Runs ``call`` in a thread; the exception it raised (None when it returned). Fails the test when it
    has not finished within ``seconds`` (a hang), instead of hanging the suite."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"no answer within {seconds} s (a read that hangs)"
    return outcome[0]


REASONS = {
    "directory": "a directory, not a regular file",
    "fifo": "a FIFO (named pipe), not a regular file",
    "dev_zero": "a character device, not a regular file",
    "dev_urandom": "a character device, not a regular file",
    "huge": "more than the",
}


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_shared_reader_refuses_each_special_kind(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, "x", kind, 1000)
    exc = _within(10, lambda: read_input_bytes(path, 1000))
    assert isinstance(exc, InputFileError)
    assert REASONS[kind] in exc.reason
    assert str(exc).startswith(f"{path}: cannot read: ")
    assert "\n" not in str(exc)


def test_shared_reader_reads_a_regular_file_up_to_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "x"
    path.write_bytes(b"a" * 1000)
    assert read_input_bytes(path, 1000) == b"a" * 1000
    exc = _within(10, lambda: read_input_bytes(path, 999))
    assert isinstance(exc, InputFileError) and "1,000 bytes, more than the 999 bytes allowed" in exc.reason
    missing = _within(10, lambda: read_input_bytes(tmp_path / "none", 10))
    assert isinstance(missing, InputFileError) and missing.errno == 2


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_spec_file_of_each_special_kind(tmp_path: Path, kind: str) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    _special(specs, "bad_op.yaml", kind, MAX_SPEC_BYTES)
    exc = _within(30, lambda: load_specs(specs))
    assert isinstance(exc, SpecErrors)
    assert f"{specs / 'bad_op.yaml'}:1: yaml: cannot read the file: " in str(exc)
    assert REASONS[kind] in str(exc)


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_manifest_of_each_special_kind(tmp_path: Path, kind: str) -> None:
    _special(tmp_path, MANIFEST_NAME, kind, MAX_MANIFEST_BYTES)
    exc = _within(10, lambda: load_manifest(tmp_path))
    assert isinstance(exc, ManifestError) and REASONS[kind] in str(exc)
    # an input or output that is such a file hashes as unreadable (never fresh), without reading it
    assert _within(10, lambda: file_hash(tmp_path / MANIFEST_NAME)) is None
    assert file_hash(tmp_path / MANIFEST_NAME) == "unreadable"


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_cost_table_of_each_special_kind(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, "costs.json", kind, MAX_COST_TABLE_BYTES)
    exc = _within(10, lambda: CaseCosts.read(path, created=False))
    assert isinstance(exc, ValueError) and REASONS[kind] in str(exc)


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
def test_result_file_of_each_special_kind(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, "shard.json", kind, MAX_RESULT_BYTES)
    exc = _within(10, lambda: read_json(path))
    assert isinstance(exc, MergeError) and REASONS[kind] in str(exc)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "dev_urandom"])
def test_cli_catalogue_of_a_special_kind_is_one_line_and_exit_2(tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, "products.yaml", kind, MAX_SPEC_BYTES)
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "--products", str(path), "generate", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"{path.resolve()}:1: yaml: cannot read the file: {REASONS[kind]}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
