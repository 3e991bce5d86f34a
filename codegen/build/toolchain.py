"""The host C++ toolchain a build runs: the compiler command and its flags, its version (part of every cache
key), and running one compiler command that dies with its caller and fails on any warning."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from functools import lru_cache
from typing import Any

from codegen.build.errors import BuildError

CXX = os.environ.get("CXX", "g++")


# -fno-gnu-unique and -Bsymbolic keep every library's runtime state its own when several (op, product)
# libraries are loaded into one Python process.
BASE_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-Wall", "-Wextra", "-pthread", "-fno-gnu-unique")


LINK_FLAGS = ("-Wl,-Bsymbolic",)


#: Extra warnings (errors, like all warnings) for the generated sources, not the runtime: host code (L2 API,
#: tiling, OpDef, example) builds clean with implicit narrowing and sign changes reported; kernels with
#: narrowing reported (an offset or length held in a 32-bit type is a compile-time failure). Kernels are
#: not held to -Wsign-conversion: the AscendC signatures they call take uint32_t/uint64_t counts and
#: indices that the kernels compute in int64_t (see README, "64-bit offsets").
HOST_WARNING_FLAGS = ("-Wconversion", "-Wsign-conversion")


KERNEL_WARNING_FLAGS = ("-Wconversion",)


#: The kernel units' optimisation level (after BASE_FLAGS' -O2, so it wins). A kernel is a large template
#: instantiation (one per tiling key: dtype x strategy) over the emulated AscendC headers: -O1 compiles it
#: about 40% faster than -O2 (EmbeddingDenseBackward's 108 keys: 11 s against 19 s) and the emulated runs
#: are as fast within a few percent, since their time goes to the runtime's instruction checks, which stay
#: -O2. Floating-point results do not depend on it (ISO C++17 without -ffast-math: no contraction).
KERNEL_OPT_FLAGS = ("-O1",)


#: The kernel units' optimisation level in a build for a result-only run (``build_op(unoptimized_kernel=True)``,
#: e.g. the mutation tests' kernels): -O0 compiles a kernel about twice as fast as -O1 (EmbeddingDenseBackward on
#: Ascend910B for 40 of its tiling keys: 2.7 s against 5.7 s CPU) and its emulated runs take about 1.5x the CPU
#: time (its 215 mutation-test cases: 3.0 s against 1.9 s). Results do not change (see KERNEL_OPT_FLAGS); the
#: warnings that only g++'s optimisers emit are not reported for such a build.
UNOPTIMIZED_KERNEL_FLAGS = ("-O0",)


#: gcov instrumentation of an op's generated units (``opgen check --coverage``): counters updated atomically
#: (the emulator runs cores on several threads); source paths recorded absolute. The counts of a unit
#: compiled to ``<dir>/<name>.o`` go to ``<dir>/<name>.gcda``; a run redirects them with ``GCOV_PREFIX`` and
#: ``GCOV_PREFIX_STRIP`` (gcc manual, "Data File Relocation to Support Cross-Profiling").
COVERAGE_FLAGS = ("--coverage", "-fprofile-update=atomic", "-fprofile-abs-path")


#: A sanitized build (``opgen check --sanitize``): AddressSanitizer and UBSan on every unit and the runtime, at
#: -O0, where ASan checks every access the source makes (none is kept in a register) and the instrumented
#: compile is quickest (the CI sanitize lane from an empty cache: 184 s of CPU with -O1, 142 s with -O0, the
#: cases no slower to run). UBSan's object-size check, which needs the optimiser, is left to ASan's bounds.
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O0")


@lru_cache(maxsize=1)
def compiler_version() -> str:
    """First line of ``g++ --version`` (part of every cache key).

    Raises:
        BuildError: the compiler is missing.
    """
    try:
        out = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"C++ compiler '{CXX}' not usable: {exc}") from exc
    return out.splitlines()[0] if out else CXX


def _prctl() -> Any:
    """libc's ``prctl``, resolved once in the parent (None off Linux or without it): the child of a fork
    must not load libraries before its exec."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def _die_with_parent() -> None:
    """In a compiler child before its exec: be killed when the thread that started it dies
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so a killed ``opgen`` (even ``kill -9``) takes the compiler driver
    with it; the driver's own child (``cc1plus``, ``as``) is not signalled and ends with its file, in seconds,
    writing only inside the build's temporary directory."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1


def _run(cmd: list[str], what: str) -> None:
    """Runs one compiler command (the calling thread waits for it, so the death signal above stays armed).

    Raises:
        BuildError: the command failed or wrote anything to stderr (warnings are errors for generated code).
    """
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, preexec_fn=_die_with_parent)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed", f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    if proc.stderr.strip():
        # Warnings are errors for generated code: the acceptance bar is warning-free -Wall -Wextra.
        raise BuildError(f"{what} produced warnings", f"$ {' '.join(cmd)}\n{proc.stderr}")
