"""Crash isolation for ``opgen check``: the cases of one (op, product) run in a worker process.

Generated host and kernel code runs inside the process that loads its library, so a fault the emulator does
not catch (an integer division by zero in a tiling function is ``SIGFPE``, a wild pointer ``SIGSEGV``) would
kill the checker and every result with it. :func:`run_isolated` therefore runs the cases of an (op, product)
in a child process (``python -m codegen.check.worker_main``), started once, not once per case, and kept
for the next (op, product) of the same ``opgen check`` worker once it finishes a job. The child announces
each case before running it and sends its result after. When the child dies, the case it announced becomes
a failed case naming the signal, and a new child continues from the next case; the rest of the matrix still
runs.

Every case has a time limit (:func:`case_timeout`: derived from the case's size, or ``opgen check
--timeout``): a case that does not finish in time (a reference or kernel that never returns) is killed with
its worker and becomes a failed case of kind ``timeout``; a new worker continues with the next case. The
generated example program runs last, in the worker too, under the same limit. A worker ignores SIGINT and
dies with its parent, so Ctrl-C on ``opgen check`` leaves no process behind.

Protocol: the parent writes one JSON request per job, a line, to the child's stdin, and closes it to end
the child. The child answers each with JSON lines on its original stdout (``begin`` and ``result`` per
case, ``done`` at the end of the job); it moves its own C-level stdout to stderr first, so text printed by
generated code or the runtime cannot corrupt the protocol. Its stderr goes to a temporary file: what a job
wrote there is quoted (its tail) in a crash report and otherwise passed through to the parent's stderr when
the job ends.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO, Any

from codegen.check.cases import Case
from codegen.check.results import CaseResult

#: The environment variable naming the descriptor of a worker's one-byte reference flag file (inherited).
REFERENCE_FLAG_FD_ENV = "OPGEN_CHECK_REFERENCE_FLAG_FD"

#: Bytes of the worker's stderr quoted in a crash report.
STDERR_TAIL = 2000
#: Default time limit of one case: this many seconds ...
BASE_TIMEOUT_SECONDS = 60.0
#: ... plus one second per this many bytes of the case's tensors (inputs and a passed output) ...
BYTES_PER_EXTRA_SECOND = 1 << 20
#: ... times this under ``--sanitize`` (AddressSanitizer and UBSan slow the emulator down) ...
SANITIZE_TIMEOUT_FACTOR = 4.0
#: ... and times this under ``--coverage`` (a gcov-instrumented build, without optimisation, counts every
#: line and branch: a 64-bit offset case's probe launch of a long formula took over 60 s)
COVERAGE_TIMEOUT_FACTOR = 4.0
#: Seconds a worker may take to start (imports, loading the specs and the reference) or to prepare the next
#: unit (building the example program); beyond that it is killed and the job fails with a ``timeout``.
STARTUP_TIMEOUT_SECONDS = 600.0


#: The runtime's tiling-key listing mode (runtime/src/device/launch.cpp, RunKernel): when this environment
#: variable names a file, every kernel launch appends its tiling key to it (a decimal line) and returns
#: without running the kernel.
LIST_TILING_KEYS_ENV = "OPGEN_RT_LIST_TILING_KEYS"


def case_timeout(case: Case | None, limit: float | None, sanitize: bool, coverage: bool = False) -> float:
    """Seconds one unit may run: ``limit`` (``opgen check --timeout``) when given, else
    :data:`BASE_TIMEOUT_SECONDS` plus a second per :data:`BYTES_PER_EXTRA_SECOND` bytes of the case's
    array parameters, times :data:`SANITIZE_TIMEOUT_FACTOR` with ``sanitize`` and
    :data:`COVERAGE_TIMEOUT_FACTOR` with ``coverage``. ``case`` None is the example program (no arrays)."""
    if limit is not None:
        return float(limit)
    nbytes = 0
    for value in case.params.values() if case is not None else ():
        nbytes += int(getattr(value, "nbytes", 0) or 0)
    seconds = BASE_TIMEOUT_SECONDS + nbytes / BYTES_PER_EXTRA_SECOND
    return seconds * (SANITIZE_TIMEOUT_FACTOR if sanitize else 1.0) * (COVERAGE_TIMEOUT_FACTOR if coverage else 1.0)


def die_with_parent() -> None:
    """Makes this process ignore SIGINT (the parent handles Ctrl-C) and, on Linux, be killed when its parent
    dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so an interrupted ``opgen check`` leaves no worker behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1


def signal_name(returncode: int) -> str:
    """``SIGFPE (signal 8)`` for a process killed by signal 8 (``returncode`` -8), else ``exit status N``."""
    if returncode < 0:
        try:
            return f"{signal.Signals(-returncode).name} (signal {-returncode})"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


def case_units(cases: list[Case], core_orders: tuple[str, ...]) -> list[tuple[Case, str | None]]:
    """The runs of a case matrix: every in-order value case once per requested core order (with the order
    as a name suffix when there are several), every other case (status cases, cases with their own order,
    ``determinism`` cases, which run every order themselves) once as it is. Returns ``(case, suffix)``
    pairs; each case is a copy with its ``core_order`` set."""
    units: list[tuple[Case, str | None]] = []
    for case in cases:
        if case.core_order != "in_order" or case.expect_status is not None or case.mode is not None:
            units.append((case, None))
            continue
        for order in core_orders:
            units.append((replace(case, core_order=order), order if len(core_orders) > 1 else None))
    return units


def unit_ident(case: Case, suffix: str | None) -> str:
    """The ident of a unit of :func:`case_units`: the case's, with the core order suffix when it has one."""
    return f"{case.ident} ({suffix})" if suffix else case.ident


def _lost_result(info: dict[str, Any], kind: str, message: str, seconds: float) -> Any:
    """The failed result of a case whose process did not report one (``kind`` ``crash`` or ``timeout``)."""
    return CaseResult(
        info["ident"],
        info["op"],
        info["product"],
        info["dtype"],
        info["shape"],
        info["name"],
        False,
        0,
        0.0,
        0.0,
        message,
        seconds,
        kind=kind,
    )


def _crash_result(
    info: dict[str, Any], returncode: int, stderr_tail: str, reference: Path | None = None, in_ref: bool = False
) -> Any:
    """The failed result (kind ``crash``) of a case whose process died with ``returncode``. When the worker
    died inside a reference function (``in_ref``: its reference flag was set) or its fault report
    (:mod:`faulthandler`, in ``stderr_tail``) shows the ``reference`` file on the stack, the message says the
    reference crashed or ended the process, not the generated code."""
    tail = stderr_tail.strip()
    if reference is not None and (in_ref or in_reference(tail, reference)):
        what = f"crashed with {signal_name(returncode)} in the reference {reference}"
        if returncode >= 0:
            what = f"crashed: the reference {reference} ended its process with {signal_name(returncode)}"
        message = f"{what} (case {info['ident']}); the other cases ran in a new process"
    else:
        message = (
            f"crashed: the process running case {info['ident']} was killed by {signal_name(returncode)} "
            f"(a fault in the generated host or kernel code); the other cases ran in a new process"
        )
    message += f"\n{tail[-STDERR_TAIL:]}" if tail else ""
    return _lost_result(info, "crash", message, 0.0)


def in_reference(stderr_text: str, reference: Path) -> bool:
    """Whether the last Python stack a dying worker printed (:mod:`faulthandler`'s ``Fatal Python error``
    report, most recent call first) runs through the ``reference`` file."""
    report = stderr_text.rfind("Fatal Python error")
    return report >= 0 and f'File "{reference}"' in stderr_text[report:]


def _timeout_result(info: dict[str, Any], seconds: float, limited: bool) -> Any:
    how = "the --timeout" if limited else "its time limit (derived from its size; `opgen check --timeout S` sets it)"
    message = (
        f"timeout: case {info['ident']} did not finish within {seconds:g} s, {how}; its process was killed "
        "(a reference or kernel that never returns?) and the other cases ran in a new process"
    )
    return _lost_result(info, "timeout", message, seconds)


def _lines(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


#: Cases of one job that may run past their time limit one after the other before the rest of the job is
#: given up (a reference or kernel that hangs on every input would otherwise cost a full limit per case).
TIMEOUTS_IN_A_ROW = 3


#: Cases of one job whose process crashed one after the other before the rest of the job is given up (a
#: reference or kernel that crashes on every input would otherwise cost a new worker per case).
CRASHES_IN_A_ROW = 3


def _job_failure(job: Any, name: str, message: str, kind: str) -> Any:
    """A failed result of a whole (op, product) job rather than of one case (``<op>/<product>/-/<name>``)."""
    ident = f"{job.spec_snake}/{job.product}/-/{name}"
    return CaseResult(ident, job.spec_snake, job.product, "-", "-", name, False, 0, 0.0, 0.0, message, 0.0, kind=kind)


def _abandoned_result(job: Any, count: int) -> Any:
    """The failed result (kind ``timeout``) that ends a job after ``count`` timeouts in a row."""
    return _job_failure(
        job,
        "remaining cases",
        f"timeout: {count} cases in a row ran past their time limit (a reference or kernel that never returns?); "
        "the remaining cases of this (op, product) were not run",
        "timeout",
    )


def _abandoned_after_crashes(job: Any, count: int) -> Any:
    """The failed result (kind ``crash``) that ends a job after ``count`` crashed cases in a row."""
    return _job_failure(
        job,
        "remaining cases",
        f"crash: {count} cases in a row crashed their process (see those cases); "
        "the remaining cases of this (op, product) were not run",
        "crash",
    )


def _reference_file(job: Any) -> Path | None:
    """The reference module a job's worker imports (``<specs_dir>/../reference/<op>.py``), resolved."""
    from codegen.paths import reference_dir_for

    try:
        return (reference_dir_for(job.specs_dir) / f"{job.spec_snake}.py").resolve()
    except Exception:  # no project found: the message then does not name the reference
        return None


class _Worker:
    """A running worker process (``python -m codegen.check.worker_main``): its protocol lines (read by a
    thread into ``lines``; None after the last), and its stderr, a temporary file read with ``pread`` so the
    worker's own writes keep their offset."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.err = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 (lives as long as the worker; end() closes it)
        # one byte the worker sets while a reference function runs (codegen.check.reference.REFERENCE_RUNNING)
        self.flag = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 (closed by end(), as err)
        self.flag.write(b"\0")
        self.flag.flush()
        fd = self.flag.fileno()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "codegen.check.worker_main"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            pass_fds=(fd,),
            env={**os.environ, **(env or {}), REFERENCE_FLAG_FD_ENV: str(fd)},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=_lines, args=(self.proc.stdout, self.lines), daemon=True).start()

    def send(self, request: dict[str, Any]) -> None:
        """Writes one job request (a JSON line); a worker that died meanwhile shows as the end of its lines."""
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()

    def stderr_size(self) -> int:
        """Bytes the worker has written to its stderr so far."""
        return os.fstat(self.err.fileno()).st_size

    def stderr_since(self, offset: int) -> str:
        """What the worker wrote to its stderr after ``offset`` bytes."""
        size = self.stderr_size()
        return os.pread(self.err.fileno(), max(0, size - offset), offset).decode("utf-8", errors="replace")

    def stop(self, kill: bool) -> int:
        """Ends the worker (SIGKILL with ``kill``, else by closing its stdin, killed if it does not exit
        within :data:`STOP_SECONDS`) and waits for it; returns its exit status (``-N`` for signal N)."""
        if kill:
            self.proc.kill()
        else:
            with contextlib.suppress(OSError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        returncode = self.proc.wait()
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        return returncode

    def reference_was_running(self) -> bool:
        """Whether the worker's reference flag is set: it was inside a reference function (``reference`` or
        ``tolerance``) when it last stopped, so a death now is the reference's."""
        try:
            return os.pread(self.flag.fileno(), 1, 0) == b"\1"
        except (OSError, ValueError):
            return False

    def end(self, kill: bool) -> int:
        """:meth:`stop`, then closes the stderr and flag files; returns the exit status."""
        returncode = self.stop(kill)
        self.err.close()
        self.flag.close()
        return returncode


def _wait_or_kill(worker: _Worker) -> int:
    """The exit status of a worker whose protocol lines ended (it is exiting); killed after
    :data:`STOP_SECONDS` should it still run (it closed its stdout but lives on)."""
    try:
        return worker.proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        return worker.stop(kill=True)


#: Seconds an idle worker may take to exit after its stdin is closed before it is killed.
STOP_SECONDS = 10.0

#: The idle worker of this process (kept after a job that finished, for the next job) and the pid that owns
#: it: a process forked from the owner (a pool worker) must not use or end the owner's worker.
_IDLE: tuple[int, _Worker] | None = None
_IDLE_LOCK = threading.Lock()


def _take_worker() -> tuple[_Worker, bool]:
    """The idle worker of this process (``(worker, True)``), or a new one (``(worker, False)``)."""
    global _IDLE
    with _IDLE_LOCK:
        idle, _IDLE = _IDLE, None
    if idle is not None and idle[0] == os.getpid():
        if idle[1].proc.poll() is None:
            return idle[1], True
        idle[1].end(kill=True)
    return _Worker(), False


def _keep_worker(worker: _Worker) -> None:
    """Keeps ``worker`` for the next job of this process (ending an idle one kept before)."""
    global _IDLE
    with _IDLE_LOCK:
        previous, _IDLE = _IDLE, (os.getpid(), worker)
    if previous is not None and previous[0] == os.getpid():
        previous[1].end(kill=True)


def stop_idle_worker() -> None:
    """Ends the idle worker of this process, if any (closing its stdin; it exits). Runs at exit; a worker also
    exits when its parent dies (:func:`die_with_parent`) or closes the pipe to it."""
    global _IDLE
    with _IDLE_LOCK:
        idle, _IDLE = _IDLE, None
    if idle is not None and idle[0] == os.getpid():
        idle[1].end(kill=False)


atexit.register(stop_idle_worker)


def run_isolated(
    job: Any, library: Path, key: str, list_tiling_keys: Path | None = None, env: dict[str, str] | None = None
) -> list[Any]:
    """Runs the case matrix of ``job`` (a :class:`codegen.check.driver.Job`) against the built ``library``
    in worker processes; returns the :class:`codegen.check.driver.CaseResult` list in case order.

    With ``list_tiling_keys`` (a file path) the worker runs the job in the runtime's tiling-key listing mode
    (environment variable :data:`LIST_TILING_KEYS_ENV`, example program included): every launch appends its
    tiling key to that file instead of running the kernel, so the results are no verdicts (see
    :func:`codegen.check.driver.launched_tiling_keys`).

    A worker serves one job after another: one that finished a job is kept (per process) for the next, so
    the interpreter, NumPy, ml_dtypes and the specs are loaded once per ``opgen check`` worker rather than
    once per (op, product) (about 1-3 s each). Every job still loads its own library and reference; the
    libraries keep their runtime state apart (``-fno-gnu-unique``, ``-Bsymbolic``: codegen/build/toolchain.py).

    A worker that dies while running a case (any signal, or an exit without its results) makes that case a
    failed result naming the signal and the case (and the reference, when its fault report shows the
    reference on the stack); a new worker resumes at the next case, so at most one worker per crash is
    started. After :data:`CRASHES_IN_A_ROW` crashed cases in a row (or :data:`TIMEOUTS_IN_A_ROW` timeouts) the
    rest of the job is given up with one failed ``remaining cases`` result. A worker that dies outside a case
    (at start-up) ends the job with one failed ``worker`` result quoting its stderr. A worker is killed after
    a timeout, a crash or an interruption, never reused; a kept worker that died while idle (killed from
    outside) is replaced by a new one before the job's first case, without a failed result.

    With ``env`` (environment variables: a coverage run's ``GCOV_PREFIX``) the job's workers are new processes
    with those variables, never kept: each exits normally at the end of the job, which writes its counts.
    """
    results: list[CaseResult] = []
    start = 0
    in_a_row = 0  # cases that ran past their time limit one after the other
    crashed_in_a_row = 0  # cases whose process crashed one after the other
    request = {"job": asdict(job), "library": str(library), "key": key}
    if list_tiling_keys is not None:
        request["list_tiling_keys"] = str(list_tiling_keys)
    while True:
        worker, reused = _take_worker() if env is None else (_Worker(env), False)
        offset = worker.stderr_size()
        answered = False  # whether the worker sent any line for this request
        try:
            worker.send({**request, "start": start})
            pending: dict[str, Any] | None = None
            finished = timed_out = False
            deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
            while True:
                try:
                    line = worker.lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    timed_out = True
                    break
                if line is None:
                    break
                answered = True
                msg = json.loads(line)
                if "begin" in msg:
                    pending = msg
                    deadline = time.monotonic() + float(msg["timeout"])
                elif "result" in msg:
                    results.append(CaseResult(**msg["result"]))
                    in_a_row = crashed_in_a_row = 0
                    pending = None
                    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
                elif "done" in msg:
                    finished = True
                    break
        except BaseException:  # Ctrl-C (KeyboardInterrupt) or an error here: the worker must not survive
            worker.end(kill=True)
            raise
        if finished:
            stderr_text = worker.stderr_since(offset)
            if env is None:
                _keep_worker(worker)
            else:
                worker.end(kill=False)
            if stderr_text:
                sys.stderr.write(stderr_text)
            return results
        # a timeout is killed; a worker whose lines ended is exiting (or killed should it linger)
        returncode = worker.stop(kill=True) if timed_out else _wait_or_kill(worker)
        stderr_text = worker.stderr_since(offset)
        in_ref = worker.reference_was_running()
        worker.end(kill=True)
        if reused and not answered and not timed_out:
            continue  # a kept worker that died while idle (killed from outside): the job starts in a new one
        if timed_out and pending is not None:
            results.append(_timeout_result(pending, float(pending["timeout"]), job.timeout is not None))
            start = int(pending["begin"]) + 1
            in_a_row += 1
            if in_a_row >= TIMEOUTS_IN_A_ROW:
                results.append(_abandoned_result(job, in_a_row))
                return results
            continue
        if pending is None:
            why = (
                f"timeout: the check worker started no case within {STARTUP_TIMEOUT_SECONDS:g} s and was killed"
                if timed_out
                else f"the check worker ended with {signal_name(returncode)} outside a case"
            )
            message = f"{why}:\n" + stderr_text.strip()[-STDERR_TAIL:]
            results.append(_job_failure(job, "worker", message, "timeout" if timed_out else "crash"))
            return results
        results.append(_crash_result(pending, returncode, stderr_text, _reference_file(job), in_ref))
        start = int(pending["begin"]) + 1
        crashed_in_a_row += 1
        if crashed_in_a_row >= CRASHES_IN_A_ROW:
            results.append(_abandoned_after_crashes(job, crashed_in_a_row))
            return results
