"""``opgen check --sanitize``: rerun the check in a child process with the ASan/UBSan runtimes preloaded
(ctypes loads instrumented libraries into a Python that is not instrumented itself)."""

from __future__ import annotations

import os
import subprocess
import sys


def _runtime(name: str) -> str:
    out = subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout.strip()
    return out


def rerun_sanitized(argv: list[str]) -> int:
    """Runs ``python -m codegen <argv>`` with libasan/libubsan preloaded; returns its exit status."""
    env = dict(os.environ)
    env["OPGEN_SANITIZE_CHILD"] = "1"
    env["LD_PRELOAD"] = " ".join(p for p in (_runtime("libasan.so"), _runtime("libubsan.so")) if os.path.isabs(p))
    # Python itself leaks by design at exit; sanitizer reports of the op code still fail the run.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return subprocess.call([sys.executable, "-m", "codegen", *argv], env=env)
