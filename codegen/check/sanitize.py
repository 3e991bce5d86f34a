"""``opgen check --sanitize``: rerun the check in a child process with the ASan/UBSan runtimes preloaded
(ctypes loads instrumented libraries into a Python that is not instrumented itself)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from types import FrameType

#: Signals the parent passes on to the rerun (a CI job's timeout, ``timeout(1)`` and ``kill`` send SIGTERM,
#: Ctrl-C SIGINT, a closed terminal SIGHUP): the child stops as it would itself (its ``interrupted`` line,
#: exit status 128 + N), and the parent waits for it, so no rerun is left running after its parent.
FORWARDED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _runtime(name: str) -> str:
    out = subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout.strip()
    return out


def _child_setup() -> None:
    """In the rerun, before it starts: its own process group (``setpgid(0, 0)``), and killed by SIGTERM
    should the parent die without forwarding (SIGKILL), Linux ``prctl(PR_SET_PDEATHSIG)``."""
    os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG = 1


def run_forwarding(argv: list[str], env: dict[str, str]) -> int:
    """Runs ``argv`` with ``env`` and waits for it, passing each signal of :data:`FORWARDED_SIGNALS` this
    process gets on to it meanwhile; returns its exit status (``128 + N`` when signal N ended it).

    The child runs in its own process group, so a Ctrl-C at the terminal reaches it once, through this
    process, not twice. Must run in the main thread (it installs signal handlers; the previous ones are back
    on return)."""
    proc = subprocess.Popen(argv, env=env, preexec_fn=_child_setup)

    def forward(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in FORWARDED_SIGNALS}
    try:
        returncode = proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if proc.poll() is None:  # an error here: the rerun must not outlive this process
            proc.kill()
            proc.wait()
    return 128 - returncode if returncode < 0 else returncode


def rerun_sanitized(argv: list[str]) -> int:
    """Runs ``python -m codegen <argv>`` with libasan/libubsan preloaded (:func:`run_forwarding`: SIGTERM,
    SIGINT and SIGHUP are passed on to it and waited for); returns its exit status."""
    env = dict(os.environ)
    env["OPGEN_SANITIZE_CHILD"] = "1"
    env["LD_PRELOAD"] = " ".join(p for p in (_runtime("libasan.so"), _runtime("libubsan.so")) if os.path.isabs(p))
    # Python itself leaks by design at exit; sanitizer reports of the op code still fail the run.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return run_forwarding([sys.executable, "-m", "codegen", *argv], env)
