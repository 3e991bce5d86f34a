"""Shared pieces of the benchmark suite: figures with targets, timing helpers, subprocesses, the machine.

Every measured value ends up as a :class:`Figure` (a stable ``id``, a value in a stated unit and, where the
issue sets one, a target it is judged against); sections also keep raw details for the JSON file.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: The checkout the suite belongs to (``bench/..``): the codegen package, specs and generated/ it measures.
ROOT = Path(__file__).resolve().parent.parent

#: Comparison operators a target may use.
_OPS = {"<": lambda v, t: v < t, "<=": lambda v, t: v <= t, ">": lambda v, t: v > t, ">=": lambda v, t: v >= t}


@dataclass(frozen=True)
class Target:
    """A bound a figure must satisfy: ``value <op> threshold`` (same unit as the figure's value)."""

    op: str
    threshold: float

    def met(self, value: float) -> bool:
        """Whether ``value`` satisfies the bound."""
        return bool(_OPS[self.op](value, self.threshold))

    def text(self, unit: str, scale: float = 1.0) -> str:
        """The bound as shown in the report, e.g. ``< 2 s`` (threshold times ``scale``, then ``unit``)."""
        return f"{self.op} {self.threshold * scale:g}{(' ' + unit) if unit else ''}".rstrip()


@dataclass
class Figure:
    """One reported value.

    Attributes:
        id: stable key used by ``compare.py`` (``section.name[...]``).
        label: what was measured, for the report.
        value: the measurement in ``unit`` (None when it could not be measured; ``error`` says why).
        unit: ``s``, ``ms``, ``cases/s``, ``x`` (a ratio), ``%``, ``MB`` (10^6 bytes) ...
        target: the bound from the issue, or None for context figures.
        met: the verdict (None without target or value).
        note: a short explanation of the value (what it consists of).
        error: why no value could be measured.
        why: for a missed target, why it is missed and what would reach it, derived from the section's own
            measurements (empty when met, or when the section has nothing measured to say).
    """

    id: str
    label: str
    value: float | None
    unit: str
    target: Target | None = None
    met: bool | None = None
    note: str = ""
    error: str = ""
    why: str = ""

    def __post_init__(self) -> None:
        if self.target is not None and self.value is not None and self.met is None:
            self.met = self.target.met(self.value)

    def to_json(self) -> dict[str, Any]:
        """The figure as a JSON-ready dict (the target as ``{"op", "threshold"}``)."""
        data = asdict(self)
        data["target"] = None if self.target is None else {"op": self.target.op, "threshold": self.target.threshold}
        return data


@dataclass
class Section:
    """The result of one benchmark: figures, raw details (JSON only), Markdown and errors.

    ``markdown`` replaces the generic figure table of the report (the judged figures are still listed after
    it); ``appendix`` is printed after either.
    """

    name: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    markdown: list[str] = field(default_factory=list)
    appendix: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    load: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The section as a JSON-ready dict."""
        return {
            "title": self.title,
            "seconds": self.seconds,
            "load": self.load,
            "figures": [f.to_json() for f in self.figures],
            "details": self.details,
            "errors": self.errors,
        }


def fmt_num(x: float | None, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits, without exponent for ordinary magnitudes; ``-`` for None."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 10 ** (digits + 3) or ax < 1e-4:
        return f"{x:.{digits - 1}e}"
    if ax >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    decimals = digits - 1 - int(f"{ax:e}".split("e")[1])
    return f"{x:.{max(decimals, 0)}f}"


def summary(samples: Sequence[float]) -> dict[str, Any]:
    """Median, min, max (same unit as ``samples``) and the samples themselves."""
    if not samples:
        return {"median": None, "min": None, "max": None, "samples": []}
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "samples": list(samples),
    }


def subprocess_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of child processes: ``ROOT`` first on ``PYTHONPATH`` (so ``python -m codegen`` runs
    this checkout's package whatever is installed), plus ``extra``."""
    env = dict(os.environ)
    old = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + old if old else "")
    env.setdefault("PYTHONHASHSEED", "0")
    if extra:
        env.update(extra)
    return env


@dataclass
class Timed:
    """A finished child process: wall time in seconds, exit code and its output (stdout + stderr)."""

    seconds: float
    returncode: int
    output: str


def run_timed(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Timed:
    """Runs ``cmd`` to completion and measures its wall time (seconds, ``time.perf_counter``)."""
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd),
        cwd=str(cwd or ROOT),
        env=env or subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    return Timed(time.perf_counter() - start, proc.returncode, proc.stdout)


def opgen_cmd(*args: str) -> list[str]:
    """The command running ``opgen <args>`` with this interpreter (``python -m codegen``)."""
    return [sys.executable, "-m", "codegen", *args]


def tail(text: str, lines: int = 15) -> str:
    """The last ``lines`` lines of ``text`` (for error messages)."""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _first_line(cmd: Sequence[str]) -> str:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, check=False, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"
    return out.strip().splitlines()[0] if out.strip() else "unavailable"


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (else ``platform.processor()``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    """The machine and software the numbers come from (CPU count and model, memory in GB, versions, commit)."""
    import numpy

    info: dict[str, Any] = {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "gxx": _first_line([os.environ.get("CXX", "g++"), "--version"]),
    }
    try:
        import torch

        info["torch"] = f"{torch.__version__} ({torch.get_num_threads()} intra-op threads)"
    except ImportError:
        info["torch"] = "not installed"
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        info["memory_gb"] = round(pages / 1e9, 1)
    except (ValueError, OSError, AttributeError):
        info["memory_gb"] = None
    info["git_commit"] = _first_line(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"])
    try:
        status = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        info["git_modified_files"] = len([line for line in status.splitlines() if line.strip()])
    except OSError:
        info["git_modified_files"] = None
    return info


class LoadSampler:
    """Samples the 1-minute load average (runnable processes) every ``period`` seconds in a daemon thread;
    ``samples`` holds ``(time.perf_counter() seconds, load)`` pairs."""

    def __init__(self, period: float = 5.0) -> None:
        self.period = period
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError):
                self.samples.append((time.perf_counter(), os.getloadavg()[0]))
            self._stop.wait(self.period)

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.period + 1)

    def stats(self, start: float | None = None, end: float | None = None) -> dict[str, Any]:
        """Mean and max load average (processes) of the samples taken between ``start`` and ``end``
        (``time.perf_counter()`` seconds; default all), and their count."""
        values = [load for t, load in list(self.samples) if (start is None or t >= start) and (end is None or t <= end)]
        if not values:
            return {"mean": None, "max": None, "count": 0}
        return {"mean": statistics.fmean(values), "max": max(values), "count": len(values)}


@contextlib.contextmanager
def stopwatch() -> Iterator[list[float]]:
    """Yields a one-element list that holds the elapsed wall time (seconds) after the block."""
    box = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - start


_CASES_LINE = re.compile(r"(\d+) passed, (\d+) failed")


def parse_passed_failed(output: str) -> tuple[int, int] | None:
    """``(passed, failed)`` from the last ``N passed, M failed`` line of ``opgen check`` output, or None."""
    found = _CASES_LINE.findall(output)
    if not found:
        return None
    passed, failed = found[-1]
    return int(passed), int(failed)
