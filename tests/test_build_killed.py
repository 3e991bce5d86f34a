"""A killed build leaves no compiler behind: every compiler child of codegen.build is armed with
PR_SET_PDEATHSIG, so even ``kill -9`` of opgen ends the g++ it started (Linux)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pids_running(argv_text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        if cmdline == argv_text and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_kill_9_of_the_builder_ends_its_compiler_child():
    stamp = f"{os.getpid()}.{time.monotonic_ns() % 1000}"
    child = f"sleep 61.{stamp.replace('.', '')}"
    code = f"from codegen.build.toolchain import _run; _run({child.split()!r}, 'a stand-in compiler')"
    builder = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not _pids_running(child):
            assert builder.poll() is None, "the builder ended before its child started"
            assert time.monotonic() < deadline, "the stand-in compiler never started"
            time.sleep(0.05)
        os.kill(builder.pid, signal.SIGKILL)
        builder.wait()
        deadline = time.monotonic() + 10
        while _pids_running(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _pids_running(child)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"the compiler child outlived the killed builder: {left}"
    finally:
        if builder.poll() is None:
            builder.kill()
            builder.wait()
