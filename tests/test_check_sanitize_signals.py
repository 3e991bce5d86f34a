"""``opgen check --sanitize`` reruns the check in a child process: a SIGTERM, SIGINT or SIGHUP to the parent
reaches the child, and the parent waits for it, so no rerun is left running (and holding stdout)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# The parent: rerun_sanitized as `opgen check --sanitize` calls it, with a stand-in for the Python it starts
# (a shell script that records its pid and sleeps: the rerun's place).
PARENT = """
import sys
from codegen.check import sanitize

sys.executable = {fake!r}
sys.exit(sanitize.rerun_sanitized(["check", "--sanitize"]))
"""


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["term", "int", "hup"])
def test_a_signal_to_the_sanitize_parent_ends_the_rerun_too(tmp_path: Path, sig: signal.Signals) -> None:
    pidfile = tmp_path / "child.pid"
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}\nexec sleep 120\n")
    fake.chmod(0o755)
    parent = subprocess.Popen([sys.executable, "-c", PARENT.format(fake=str(fake))], env=dict(os.environ))
    child = 0
    try:
        deadline = time.monotonic() + 60
        while not pidfile.exists():
            assert parent.poll() is None, "the parent ended before starting the rerun"
            assert time.monotonic() < deadline, "the rerun did not start"
            time.sleep(0.05)
        child = int(pidfile.read_text())
        parent.send_signal(sig)
        status = parent.wait(timeout=30)
        # the rerun got the signal (sleep dies of it) and the parent waited for it, exiting as it did
        assert status == 128 + sig
        assert not _alive(child)
    finally:
        if parent.poll() is None:
            parent.kill()
        if child and _alive(child):
            os.kill(child, signal.SIGKILL)
