"""The runtime's own C++ test programs (device-side rules with deliberately broken kernels, SyncAll and
atomics, half/bf16 conversions; host-side statuses, views, OpDef JSON), run from pytest."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codegen.paths import project_paths

pytestmark = pytest.mark.heavy(60)  # about 60 s alone: scheduled before lighter files


def _run(script: Path, *args: str) -> str:
    proc = subprocess.run(["bash", str(script), *args], capture_output=True, text=True, check=False, timeout=3000)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    return proc.stdout


def test_device_runtime_programs() -> None:
    out = _run(project_paths().runtime / "tests_device" / "run.sh", "--no-bench")
    assert " 0 failed" in out


def test_host_runtime_programs() -> None:
    out = _run(project_paths().runtime / "tests_host" / "run.sh")
    assert "FAIL" not in out
