"""What a reference module (or generated code) prints while ``opgen check`` runs goes to stderr: stdout holds
only the table, the totals and the result-file paths (``--json /dev/stdout`` relies on it). A reference that
printed at import time put its text on the check's stdout, in the main process (``-j 1``) and in a pool
worker (``-j N``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codegen.check.reference import load_reference
from codegen.specs import load_project


def test_what_a_reference_prints_on_import_goes_to_stderr(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _, specs = load_project()
    (tmp_path / "sigmoid_backward.py").write_text(
        'print("hello from the reference")\ndef reference(gradOutput, output):\n    return gradOutput\n'
    )
    module = load_reference(specs["sigmoid_backward"], tmp_path)
    assert callable(module.reference)
    out, err = capfd.readouterr()
    assert out == "" and err == "hello from the reference\n"
    assert sys.stdout is not sys.stderr  # the redirection ends with the import


def test_a_check_pool_worker_sends_what_is_printed_to_stderr() -> None:
    code = (
        "import os, sys\n"
        "from codegen.check.driver import _pool_worker_init\n"
        "_pool_worker_init()\n"
        "print('printed by python')\n"
        "sys.stdout.flush()\n"
        "os.write(1, b'written to fd 1\\n')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[-2:] == ["printed by python", "written to fd 1"]
