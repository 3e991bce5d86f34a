"""A build's work directory in the cache names its process and host (``opgen-build-<pid>-<host>-<random>``);
a build removes the ones that killed builds left behind on this host, and nothing else."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from pathlib import Path

from codegen.build.cache import build_workdir

HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: no process with this id exists until the kernel reuses it
    return proc.pid


def test_a_build_removes_only_the_work_directories_of_dead_processes_of_this_host(tmp_path: Path) -> None:
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = tmp_path / f"opgen-build-{dead}-{HOST}-k3j_9xq2"
        (stale / "sub").mkdir(parents=True)
        (stale / "sub" / "unit.o").write_bytes(b"half an object")
        kept = [
            tmp_path / f"opgen-build-{sleeper.pid}-{HOST}-abcdefgh",  # a live build of another process
            tmp_path / f"opgen-build-{os.getpid()}-{HOST}-abcdefgh",  # a live build of this process
            tmp_path / f"opgen-build-{dead}-0123abcd-abcdefgh",  # another host's (its pids are not ours)
            tmp_path / f"opgen-build-{dead}-abcdefgh",  # the old name, without a process id we can trust
            tmp_path / f"opgen-build-{dead}-{HOST}-abcdefgh-mine",  # not the pattern
            tmp_path / "opgen-build-notes",
            tmp_path / "lib",
        ]
        for d in kept:
            d.mkdir()
            (d / "keep.txt").write_text("mine")
        a_file = tmp_path / f"opgen-build-{dead}-{HOST}-zzzzzzzz"
        a_file.write_text("a file, not a work directory")
        target = tmp_path / "elsewhere"
        target.mkdir()
        (target / "keep.txt").write_text("mine")
        link = tmp_path / f"opgen-build-{dead}-{HOST}-linklink"
        link.symlink_to(target, target_is_directory=True)

        work = build_workdir(tmp_path)

        assert not stale.exists()
        assert all((d / "keep.txt").read_text() == "mine" for d in kept)
        assert a_file.read_text() == "a file, not a work directory"
        assert link.is_symlink() and (target / "keep.txt").read_text() == "mine"
        assert work.is_dir() and work.parent == tmp_path
        assert work.name.startswith(f"opgen-build-{os.getpid()}-{HOST}-") and len(work.name.split("-")[-1]) == 8
        # a second build keeps the first one's directory: its process (this one) is alive
        assert build_workdir(tmp_path) != work and work.is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()
