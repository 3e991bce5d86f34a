"""The ``opgen check`` driver: build every (op, product), run its case matrix, compare, report."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from codegen import registry
from codegen.build import BuildError, build_op
from codegen.check.cases import Case, determinism_cases, format_cases
from codegen.check.offsets import with_probe_cap
from codegen.check.reference import ReferenceLoadError, load_reference
from codegen.check.results import CaseResult, Job, covered_name
from codegen.paths import project_paths, reference_dir_for
from codegen.spec.model import Catalogue, DType, OpSpec, Product
from codegen.types import compute_dtypes


class CasePlanError(ValueError):
    """The case matrix of an (op, product) leaves a dtype the spec lists untested (see
    :func:`unvalued_dtypes`); ``dtype`` is the first such dtype's name, ``str()`` says why."""

    def __init__(self, message: str, dtype: str) -> None:
        super().__init__(message)
        self.dtype = dtype


def _leading_dtype(label: str) -> str:
    """The first dtype name of a case's dtype label (``FLOAT16+FLOAT``, ``FLOAT16 (out FLOAT)``,
    ``FLOAT/INT64`` -> ``FLOAT16``, ``FLOAT16``, ``FLOAT``)."""
    match = re.match(r"[A-Z][A-Z0-9_]*", label)
    return match.group(0) if match else label


def unvalued_dtypes(dtypes: list[DType], cases: list[Case]) -> list[str]:
    """The names of ``dtypes`` (the first input's dtypes listed for a product) that no value case of
    ``cases`` computes in (a case's dtype label starts with its first input's dtype), in ``dtypes`` order. A
    ``tiling_2g`` probe (:mod:`codegen.check.offsets`) computes no values and does not count."""
    valued = {_leading_dtype(c.dtype) for c in cases if c.expect_status is None and c.mode != "tiling_2g"}
    return [d.name for d in dtypes if d.name not in valued]


def cases_for(spec: OpSpec, product: Product, dtype_filter: set[str] | None, quick: bool) -> list[Case]:
    """The case matrix of ``spec`` on ``product`` (family-specific generator), the probe's access cap set by
    ``quick`` (:func:`codegen.check.offsets.with_probe_cap`).

    Raises:
        CasePlanError: not ``quick`` (which may keep one representative dtype), and a dtype the spec lists
            for ``product`` (and ``dtype_filter`` selects) has no value case: the spec's constraints refuse
            every call of it that the family planned. The message names the dtype, the product and the
            constraints on the product that name the dtype (else all of them), with their ``file:line``.
    """
    dtypes = [d for d in compute_dtypes(spec, product) if not dtype_filter or d.name in dtype_filter]
    cases = with_probe_cap(list(registry.family(spec.family).check_cases(spec, product, dtypes, quick)), quick)
    missing = [] if quick else unvalued_dtypes(dtypes, cases)
    if missing:
        on = [c for c in spec.constraints if product.name in c.products]
        named = [c for c in on if any(d in f"{c.when} {c.require}" for d in missing)] or on
        why = "; ".join(
            f"{c.name} ({c.loc}: " + (f"when {c.when}, " if c.when is not None else "") + f"require {c.require})"
            for c in named
        )
        raise CasePlanError(
            f"{spec.aclnn_name} lists {', '.join(missing)} on {product.name} but no value case of "
            f"{'it' if len(missing) == 1 else 'them'} is left: "
            + (f"the spec's constraints refuse every planned call ({why})" if named else "none was planned")
            + "; fix the constraint or drop the dtype from the product",
            missing[0],
        )
    return [*determinism_cases(spec, cases), *format_cases(spec, cases)]


def run_job(job: Job) -> list[CaseResult]:
    """Builds (op, product), runs its case matrix (each value case under every requested core order on
    its first run) and the example program; then copies every result to each product ``job.covers``
    (:func:`covered_copies`). Runs in a worker process."""
    results = _run_job(job)
    return [*results, *(c for name in job.covers for c in covered_copies(results, job.product, name))]


def covered_copies(results: list[CaseResult], ran: str, product: str) -> list[CaseResult]:
    """``results`` of product ``ran`` as results of ``product`` (same fingerprint): the product name replaced
    in ident and message, ``covered_by`` set to ``ran``."""
    return [
        replace(
            r,
            ident=covered_name(r.ident, ran, product),
            product=product,
            message=covered_name(r.message, ran, product),
            covered_by=ran,
        )
        for r in results
    ]


def _run_job(job: Job) -> list[CaseResult]:
    from codegen.specs import load_project

    catalogue, specs = load_project(job.specs_dir, job.products_file)
    spec = specs[job.spec_snake]
    product = catalogue.get(job.product)
    ident = f"{spec.snake}/{product.name}"
    try:
        reference_dir = reference_dir_for(job.specs_dir)
        ref = load_reference(spec, reference_dir)
        if not getattr(ref, "REFERENCE_IMPLEMENTED", True):
            shown = f"reference/{spec.snake}.py" if job.specs_dir is None else str(reference_dir / f"{spec.snake}.py")
            raise FileNotFoundError(f"reference not implemented: {shown} is a stub (REFERENCE_IMPLEMENTED = False)")
    except (FileNotFoundError, ReferenceLoadError) as exc:
        return [
            CaseResult(
                f"{ident}/-/reference",
                spec.snake,
                product.name,
                "-",
                "-",
                "reference",
                False,
                0,
                0.0,
                0.0,
                str(exc),
                0.0,
            )
        ]
    try:  # a spec whose constraints leave a listed dtype without value cases fails before anything is built
        if not job.quick:  # (the quick matrix is not held to it: see cases_for)
            cases_for(spec, product, set(job.dtype_filter) or None, job.quick)
    except CasePlanError as exc:
        return [
            CaseResult(
                f"{ident}/{exc.dtype}/plan",
                spec.snake,
                product.name,
                exc.dtype,
                "-",
                "plan",
                False,
                0,
                0.0,
                0.0,
                str(exc),
                0.0,
            )
        ]
    generated = Path(job.generated) if job.generated else None
    try:
        keys = launched_tiling_keys(job, spec, product, generated) if job.launched_keys_only else None
        began = time.perf_counter()
        coverage = job.coverage_dir is not None
        built = build_op(spec, product, generated, sanitize=job.sanitize, jobs=1, tiling_keys=keys, coverage=coverage)
        built_progress(built, time.perf_counter() - began)
    except BuildError as exc:
        return [
            CaseResult(
                f"{ident}/-/build",
                spec.snake,
                product.name,
                "-",
                "-",
                "build",
                False,
                0,
                0.0,
                0.0,
                str(exc)[:4000],
                0.0,
            )
        ]
    # The cases run in a worker process: a crash of generated code fails one case, not the run.
    from codegen.check.worker import run_isolated

    if job.coverage_dir is None:
        return run_isolated(job, built.library, built.key)  # the example program runs last, in the worker too
    from codegen.check import coverage as cov

    folder = cov.job_dir(Path(job.coverage_dir), spec.snake, product.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    results = run_isolated(job, built.library, built.key, env=cov.worker_env(folder, built.coverage_notes))
    root = (generated or project_paths().generated) / spec.folder
    cov.collect(folder, built.coverage_notes, spec.folder, root, product.npu_arch)
    return results


def built_progress(built: Any, seconds: float) -> None:
    """One line on stderr when ``built`` (a :class:`codegen.build.BuiltOp`) was compiled rather than found in
    the build cache: ``built <op> for <product> (<library>, <seconds> s)``, or ``built ... by another run``
    when another process or thread linked the library while this one waited for it (each may have compiled
    some of its units). A cold cache compiles for minutes before the first (op, product) job finishes; these
    lines show it working. Never on stdout, so ``--json /dev/stdout`` stays one JSON document."""
    if built.compiled:
        kind = ", sanitized" if built.sanitize else ""
        who = "" if built.linked_here else " by another run"
        print(
            f"built {built.spec.snake} for {built.product.name}{who} ({built.library.name}{kind}, {seconds:.1f} s)",
            file=sys.stderr,
            flush=True,
        )


def launched_tiling_keys(job: Job, spec: OpSpec, product: Product, generated: Path | None) -> set[int] | None:
    """The tiling keys the units of ``job`` (its cases and the example program, ``job.units`` of them when
    sharded) launch on ``product``: a pre-pass that builds the op without sanitizers and with every key
    (:func:`codegen.build.build_op`, the cached build a plain ``opgen check`` uses) and runs the job's units
    in a check worker in the runtime's tiling-key listing mode (:data:`codegen.check.worker.LIST_TILING_KEYS_ENV`):
    each launch records its key and runs no kernel, so the pre-pass costs the host code and the references,
    not the emulation. A call's keys are fixed by its host code (the tiling) before any kernel runs, so a
    real run launches the same ones. ``opgen check --sanitize`` compiles its instrumented kernel for these
    keys only; a launch of another key would be a ``[tiling key not built]`` kernel fault (a failed case,
    never a pass).

    Returns None (build every key) when the plain build fails (the instrumented build then reports the
    error) or no unit launched a kernel.
    """
    from codegen.check.worker import run_isolated

    try:
        began = time.perf_counter()
        plain = build_op(spec, product, generated, sanitize=False, jobs=1)
        built_progress(plain, time.perf_counter() - began)
    except BuildError:
        return None
    with tempfile.TemporaryDirectory(prefix="opgen-keys-") as tmp:
        listing = Path(tmp) / "tiling-keys"
        run_isolated(replace(job, sanitize=False, launched_keys_only=False), plain.library, plain.key, listing)
        text = listing.read_text(encoding="ascii") if listing.is_file() else ""
    keys = {int(line) for line in text.split()}
    return keys or None


class Terminated(KeyboardInterrupt):
    """SIGTERM reached :func:`run_check`'s process (a CI timeout, ``timeout(1)``, ``kill``): it stops the run as
    Ctrl-C does."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


class CheckInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped :func:`run_check`: ``results`` of the ``done`` jobs that finished (of
    ``total``), in job order; every worker process was killed. ``signal`` is ``SIGINT`` or ``SIGTERM``."""

    def __init__(self, results: list[CaseResult], done: int, total: int, signal_name: str = "SIGINT") -> None:
        super().__init__(f"interrupted after {done} of {total} jobs")
        self.results, self.done, self.total = results, done, total
        self.signal = signal_name

    @property
    def exit_status(self) -> int:
        """The shell's status of a process stopped by the signal: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + (signal.SIGTERM if self.signal == "SIGTERM" else signal.SIGINT)

    def summary(self) -> str:
        """One line: what ran before the interruption."""
        failed = sum(not r.passed for r in self.results)
        how = "interrupted" if self.signal == "SIGINT" else f"interrupted ({self.signal})"
        return (
            f"{how}: {self.done} of {self.total} (op, product) jobs finished ({len(self.results)} cases in "
            f"them: {len(self.results) - failed} passed, {failed} failed); the cases of the jobs that were stopped "
            "are not counted"
        )


def _pool_worker_init() -> None:
    from codegen.build import use_tool_warning_format
    from codegen.check.worker import die_with_parent

    die_with_parent()
    use_tool_warning_format()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (a forked worker inherits it)
    # what a reference module or generated code prints in this process goes to stderr: stdout is the
    # parent's table (and `--json /dev/stdout`); the pool talks to the parent through its own pipes
    sys.stdout.flush()
    os.dup2(2, 1)


def run_check(
    jobs: list[Job], workers: int, progress: Callable[[Job, list[CaseResult]], None] | None = None
) -> list[CaseResult]:
    """Runs ``jobs`` on at most ``workers`` processes (never more than there are jobs); calls ``progress`` as
    each finishes; results in job order.

    Raises:
        CheckInterrupted: Ctrl-C (KeyboardInterrupt) or SIGTERM (handled as Ctrl-C while this runs in the
            main thread); every worker process is killed first.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        return _run_check(jobs, workers, progress)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _run_check(
    jobs: list[Job], workers: int, progress: Callable[[Job, list[CaseResult]], None] | None
) -> list[CaseResult]:
    results: dict[int, list[CaseResult]] = {}
    workers = max(1, min(workers, len(jobs)))  # never more processes than jobs (each job is one process)

    def interrupted(exc: KeyboardInterrupt) -> CheckInterrupted:
        done = [r for i in sorted(results) for r in results[i]]
        how = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
        return CheckInterrupted(done, len(results), len(jobs), how)

    if workers <= 1:
        try:
            for i, job in enumerate(jobs):
                results[i] = run_job(job)
                if progress:
                    progress(job, results[i])
        except KeyboardInterrupt as exc:
            raise interrupted(exc) from None
    else:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_pool_worker_init)
        try:
            futures = {pool.submit(run_job, job): i for i, job in enumerate(jobs)}
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                if progress:
                    progress(jobs[i], results[i])
        except KeyboardInterrupt as exc:
            processes = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                process.kill()  # its case workers die with it (die_with_parent)
            pool.shutdown(wait=False, cancel_futures=True)
            raise interrupted(exc) from None
        pool.shutdown()
    return [r for i in sorted(results) for r in results[i]]


def select_products(spec: OpSpec, catalogue: Catalogue, wanted: list[str] | None) -> list[Product]:
    """The products ``spec`` supports, narrowed to ``wanted`` (unknown names raise KeyError)."""
    if wanted:
        for name in wanted:
            catalogue.get(name)
    return [catalogue.get(p) for p in spec.products if not wanted or p in wanted]


__all__ = ["CaseResult", "CheckInterrupted", "Job", "run_check", "run_job", "sys"]
