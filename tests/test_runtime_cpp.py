"""The runtime's own C++ test programs (device-side rules with deliberately broken kernels, SyncAll and
atomics, half/bf16 conversions; host-side statuses, views, OpDef JSON), run from pytest."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codegen.paths import project_paths

pytestmark = pytest.mark.heavy(60)  # about 60 s alone: scheduled before lighter files


def _run(script: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["bash", str(script), *args], capture_output=True, text=True, check=False, timeout=3000, env=env
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    return proc.stdout


def test_device_runtime_programs() -> None:
    """The device programs compiled at -O0 (the script's EXTRA_FLAGS come after its -O2): they assert results
    and faults, never times (``--no-bench``), and the script took 52 CPU s at -O0 against 61 at -O2 (faster
    compiles, slower SoftMarginLossGrad sweeps). The runtime's sources are held to -O2's warnings
    elsewhere: the builder compiles them at -O2 for every op library and fails on any warning."""
    env = {**os.environ, "EXTRA_FLAGS": "-O0"}
    out = _run(project_paths().runtime / "tests_device" / "run.sh", "--no-bench", env=env)
    assert " 0 failed" in out


def test_host_runtime_programs() -> None:
    """The host programs compiled at -O0 as the device ones are (statuses, views and JSON do not depend on
    the optimisation level; every op library compiles the runtime at -O2, warnings as errors)."""
    out = _run(project_paths().runtime / "tests_host" / "run.sh", env={**os.environ, "EXTRA_FLAGS": "-O0"})
    assert "FAIL" not in out
