"""``opgen check`` and ``opgen report merge``: the jobs of a check run (sharded or not), the generated tree's
freshness before it, and the table, totals and result files after it."""

from __future__ import annotations

import argparse
import fnmatch
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegen.cli.options import (
    UsageError,
    _costs,
    _distinct_files,
    _dtype_names,
    _generated_dir,
    _load,
    _select,
    _version,
    _writable_file,
)
from codegen.writer import writes_in_place

if TYPE_CHECKING:  # the model imports the expression language: loaded only by commands that read specs
    from codegen.check.driver import CaseResult, Job
    from codegen.check.matrix import CaseCosts
    from codegen.spec.model import Catalogue, OpSpec, Product


def unchecked_products(specs: Mapping[str, OpSpec], wanted: Sequence[str] | None) -> list[str]:
    """One ``note:`` line per selected op that does not run on some of the ``--product`` names ``wanted``
    (catalogue names), so a product dropped for an op is never dropped silently; none without ``--product``."""
    lines = []
    for name, spec in sorted(specs.items()):
        lacks = [p for p in dict.fromkeys(wanted or ()) if p not in spec.products]
        if lacks:
            lines.append(
                f"note: {name} does not run on --product {', '.join(lacks)} (its products: "
                f"{', '.join(spec.products)}); not checked there"
            )
    return lines


def cmd_check(args: argparse.Namespace) -> int:
    from codegen.build import cache_dir
    from codegen.check.driver import CheckInterrupted, Job, run_check, select_products
    from codegen.check.matrix import CaseCosts, distinct_targets
    from codegen.check.report import progress_printer
    from codegen.paths import project_paths

    dtypes = _dtype_names(args.dtype)
    _generated_dir(args.generated)
    _distinct_files(
        [
            ("--json", args.json),
            ("--junit", args.junit),
            ("--costs", args.costs),
            ("--coverage-json", args.coverage_json),
        ]
    )
    coverage_json = _coverage_options(args)
    json_path = _writable_file(args.json, "--json") if args.json is not None else None
    junit_path = _writable_file(args.junit, "--junit") if args.junit is not None else None
    cache = cache_dir()  # an unusable build cache is one error line before any work, not a failure per job
    # a sharded run reads the --costs file (it must exist); an unsharded one records into it (created)
    costs = CaseCosts(cache / "case-costs.json") if args.costs is None else _costs(args.costs, created=not args.shard)
    catalogue, specs = _load(args)
    specs = _select(specs, args.ops)
    orders = tuple(args.core_order) if args.core_order else (("in_order",) if args.quick else ("in_order", "reversed"))
    if args.sanitize and "OPGEN_SANITIZE_CHILD" not in os.environ:
        from codegen.check.sanitize import rerun_sanitized

        return rerun_sanitized(sys.argv[1:])
    jobs = []
    filtered_out: dict[str, list[str]] = {}  # op -> the dtypes it computes on where --dtype excluded it
    generated_root = Path(args.generated) if args.generated else project_paths().generated
    if not _tree_is_current(args, specs, catalogue, generated_root, cache):
        return 2
    # the run's own coverage folder: the cache is shared by runs in other PID namespaces, so a PID alone may
    # name another run's folder
    coverage_root = Path(tempfile.mkdtemp(prefix="run-", dir=_made(cache / "coverage"))) if args.coverage else None
    for name, spec in sorted(specs.items()):
        products = select_products(spec, catalogue, args.product)
        # products with equal fingerprints share one build and one run (codegen.check.matrix)
        targets: list[tuple[Product, list[Product]]] = (
            [(p, []) for p in products] if args.all_products else distinct_targets(spec, products, generated_root)
        )
        for product, covered in targets:
            computes = [d.name for d in spec.inputs[0].dtypes_for(product)]
            if dtypes and not set(computes) & set(dtypes):
                known = filtered_out.setdefault(name, [])
                known += [d for d in computes if d not in known]
                continue  # the op computes none of the requested dtypes on this product
            jobs.append(
                Job(
                    name,
                    product.name,
                    dtypes,
                    args.quick,
                    args.generated,
                    orders,
                    args.sanitize,
                    getattr(args, "specs", None),
                    getattr(args, "products", None),
                    args.timeout,
                    covers=tuple(p.name for p in covered),
                    launched_keys_only=bool(args.sanitize),
                    coverage_dir=str(coverage_root) if coverage_root is not None else None,
                )
            )
    if not jobs:
        if coverage_root is not None:
            shutil.rmtree(coverage_root, ignore_errors=True)
        if filtered_out:
            computed = "; ".join(f"{name}: {', '.join(ds)}" for name, ds in sorted(filtered_out.items()))
            print(
                f"nothing to check: --dtype {', '.join(dtypes)} excludes every case; the selected ops compute on "
                f"({computed}) on the selected products",
                file=sys.stderr,
            )
        elif not specs:
            print("nothing to check: the spec directory holds no op spec", file=sys.stderr)
        else:
            runs_on = "; ".join(f"{name}: {', '.join(spec.products)}" for name, spec in sorted(specs.items()))
            print(
                f"nothing to check: no selected op runs on --product {', '.join(args.product or [])} "
                f"(the ops' products: {runs_on})",
                file=sys.stderr,
            )
        return 2
    for line in unchecked_products(specs if args.ops else {}, args.product):  # ops named, not all by default
        print(line, file=sys.stderr)
    if getattr(args, "case", None):
        all_jobs, jobs = jobs, _case_jobs(jobs, args.case)
        if not jobs:
            if coverage_root is not None:
                shutil.rmtree(coverage_root, ignore_errors=True)
            shown = " ".join(f"--case {shlex.quote(p)}" for p in args.case)
            full = _full_matrix_matches(all_jobs, args.case) if args.quick else 0
            hint = f"; without --quick {full} case(s) match (the quick matrix runs fewer)" if full else ""
            print(f"nothing to check: no case of the selected ops and products matches {shown}{hint}", file=sys.stderr)
            return 2
    shard, count = args.shard or (1, 1)
    plan, planned = "", None
    if args.shard:
        jobs, plan, planned = _shard_jobs(jobs, shard, count, costs)
    meta = _check_meta(args, specs, generated_root, [shard, count], plan)
    # Until the run ends, the result files say that it has not (an earlier run's files must not stand for a
    # run that is killed, SIGKILL included): `opgen report merge` refuses the JSON, the JUnit has an error.
    # (an in-place path such as /dev/stdout or a FIFO gets only the final file: nothing stale can be left there)
    running = {**meta, "interrupted": {"jobs_done": 0, "jobs_total": len(jobs), "running": True}}
    early = [p if p is not None and not writes_in_place(p) else None for p in (json_path, junit_path)]
    _write_result_files([], running, early[0], early[1], quiet=True)  # a write error shows at the end
    try:
        results = run_check(jobs, args.jobs, progress_printer(len(jobs))) if jobs else []
    except CheckInterrupted as stop:
        # the result files say what this run did (not what an earlier run left there): the finished jobs'
        # results, marked interrupted (`opgen report merge` refuses such a file)
        meta.update(interrupted={"jobs_done": stop.done, "jobs_total": stop.total})
        for line in _write_result_files(stop.results, meta, json_path, junit_path, stream=sys.stderr):
            print(line, file=sys.stderr)
        print(stop.summary(), file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        # Every worker is dead; leave at once, without the interpreter's exit handlers: concurrent.futures'
        # handler would try to wake the killed pool's manager thread and print a traceback (a closed pipe).
        os._exit(stop.exit_status)
    if not args.shard:  # a shard's times would change the plan the other shards of its matrix compute
        costs.record(results)
        costs.save()
        # an unsharded run runs every unit of its jobs: its plan is what they ran (planning it up front would
        # generate every case twice), so `opgen report merge` finds results edited out of its file later
        plan, planned = _ran_plan(jobs, results)
    meta.update(plan=plan, planned=planned)
    status = _report(results, meta, args.verbose, json_path, junit_path)
    if coverage_root is not None:
        from codegen.check.coverage import print_report

        print_report(coverage_root, coverage_json)
        shutil.rmtree(coverage_root, ignore_errors=True)
    return status


def _made(folder: Path) -> Path:
    """``folder``, created (with its parents) if missing."""
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _coverage_options(args: argparse.Namespace) -> Path | None:
    """The ``--coverage-json`` file (None without one), after checking the coverage options.

    Raises:
        UsageError: ``--coverage-json`` without ``--coverage``, ``--coverage`` with ``--sanitize`` or
            ``--shard`` (instrumented and sanitized builds are separate; a shard's report would be partial), or
            an unwritable file.
    """
    if args.coverage_json is not None and not args.coverage:
        raise UsageError("--coverage-json needs --coverage")
    if args.coverage and (args.sanitize or args.shard):
        raise UsageError(f"--coverage does not combine with {'--sanitize' if args.sanitize else '--shard'}")
    if getattr(args, "case", None) and args.shard:
        raise UsageError("--case does not combine with --shard (a shard is a part of the whole matrix)")
    return _writable_file(args.coverage_json, "--coverage-json") if args.coverage_json is not None else None


def _tree_is_current(
    args: argparse.Namespace, specs: dict[str, OpSpec], catalogue: Catalogue, generated: Path, cache: Path
) -> bool:
    """Before anything is built: whether the generated tree holds every file the selected ``specs`` produce
    (:mod:`codegen.check.freshness`). A tree behind the specs (a file they produce is missing, or a differing
    file's inputs changed since the tree's manifest recorded them: a spec, catalogue or template edited
    without ``opgen generate``) is an error line naming the command that brings it up to date, and False;
    other files whose text differs (edited by hand, or of a tree without a manifest) are a warning line, and
    the check runs them as they are. A render that fails (a project without ``.clang-format``, say) is a warning line
    too: the tree is checked as it is."""
    from codegen.check.freshness import describe, freshness
    from codegen.render import RenderError

    try:
        found = freshness([specs[name] for name in sorted(specs)], catalogue, generated, cache)
    except RenderError as exc:  # e.g. a project without .clang-format: its tree can still be checked
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(
            f"warning: cannot tell whether the tree is what the specs produce ({first}); checking it as it is",
            file=sys.stderr,
        )
        return True
    if not (found.missing or found.outdated or found.differ):
        return True
    command = ["opgen"]
    for option in ("specs", "products"):
        if getattr(args, option, None):
            command += [f"--{option}", str(getattr(args, option))]
    command.append("generate")
    if args.generated:
        command += ["--out", str(args.generated)]
    shown = args.generated or "generated/"
    line = describe(found, " ".join(command))
    if found.behind:
        print(f"error: {shown} is behind the specs: {line}; nothing was checked", file=sys.stderr)
        return False
    print(f"warning: {shown} is not what the specs produce: {line}; checking it as it is", file=sys.stderr)
    return True


def _report(
    results: list[CaseResult], meta: dict[str, Any], verbose: bool, json_path: Path | None, junit_path: Path | None
) -> int:
    """Prints the table and the totals, writes the JSON and JUnit files; the exit status (1: a failure)."""
    from codegen.check.report import print_table

    print_table(results, verbose=verbose)
    unwritten = _write_result_files(results, meta, json_path, junit_path)
    failed = sum(not r.passed for r in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    for line in unwritten:
        print(line, file=sys.stderr)
    return 2 if unwritten else 1 if failed else 0


def _write_result_files(
    results: list[CaseResult],
    meta: dict[str, Any],
    json_path: Path | None,
    junit_path: Path | None,
    stream: Any = None,
    quiet: bool = False,
) -> list[str]:
    """Writes the ``--json`` and ``--junit`` files that were asked for (``wrote PATH`` on ``stream``, default
    stdout, unless ``quiet``); returns the error line of each that could not be written. A ``meta`` with
    ``interrupted`` (a stopped run, or ``running``: the files written before the run) makes the JUnit file
    say so (:func:`codegen.check.result_files.write_junit`)."""
    from codegen.check.result_files import write_json, write_junit

    unwritten = []
    stop = meta.get("interrupted")
    unfinished = ""
    if isinstance(stop, dict):
        done, total = stop.get("jobs_done"), stop.get("jobs_total")
        unfinished = (
            f"the run has not finished: 0 of {total} (op, product) jobs done (it is running, or was killed)"
            if stop.get("running")
            else f"the run was interrupted: {done} of {total} (op, product) jobs finished; the others' cases are "
            "not in this file"
        )
    writers: list[tuple[Path | None, str, Callable[[Path], None]]] = [
        (json_path, "--json", lambda p: write_json(results, p, meta)),
        (junit_path, "--junit", lambda p: write_junit(results, p, unfinished)),
    ]
    for path, option, write in writers:
        if path is None:
            continue
        try:
            write(path)
        except OSError as exc:  # a full disk, a file removed or made read-only during the run
            unwritten.append(f"error: {option} {path}: cannot write: {exc.strerror or exc}")
        else:
            if not quiet:
                print(f"wrote {path}", file=stream or sys.stdout)
    return unwritten


def _ran_plan(jobs: list[Job], results: list[CaseResult]) -> tuple[str, list[dict[str, Any]]]:
    """The plan digest and ``planned`` jobs (:func:`codegen.check.matrix.planned_jobs`, every job, in job
    order) of an unsharded run: each job's units are the cases its product ran (not the covered products'
    copies, not a job-level failure, which stands for the job's cases)."""
    from codegen.check.matrix import Unit, idents_digest, planned_jobs

    index = {(job.spec_snake, job.product): i for i, job in enumerate(jobs)}
    units: list[Unit] = []
    for r in results:
        i = index.get((r.op, r.product))
        if i is not None and not r.covered_by and "/-/" not in r.ident:
            units.append(Unit(i, len(units), r.ident, 0))
    by_job = {job["product"] + "\0" + job["op"]: job for job in planned_jobs(jobs, units)}
    every = [
        by_job.get(f"{job.product}\0{job.spec_snake}")
        or {"op": job.spec_snake, "product": job.product, "covers": list(job.covers), "units": []}
        for job in jobs
    ]
    return idents_digest([[ident for job in every for ident in job["units"]]]), every


def _case_jobs(jobs: list[Job], patterns: list[str]) -> list[Job]:
    """``jobs`` narrowed to their units whose ident matches one of ``patterns`` (:func:`fnmatch.fnmatchcase`,
    shell-style, case-sensitive); a job with no such unit is left out."""
    from dataclasses import replace

    from codegen.check.matrix import job_units

    narrowed = []
    for i, job in enumerate(jobs):
        chosen = tuple(u.index for u in job_units(job, i) if any(fnmatch.fnmatchcase(u.ident, p) for p in patterns))
        if chosen:
            narrowed.append(replace(job, units=chosen))
    return narrowed


def _full_matrix_matches(jobs: list[Job], patterns: list[str]) -> int:
    """How many units of ``jobs`` run as the full matrix (not ``--quick``) match one of ``patterns``."""
    from dataclasses import replace

    from codegen.check.matrix import job_units

    full = [replace(job, quick=False) for job in jobs]
    return sum(
        1
        for i, job in enumerate(full)
        for u in job_units(job, i)
        if any(fnmatch.fnmatchcase(u.ident, p) for p in patterns)
    )


def _shard_jobs(
    jobs: list[Job], shard: int, count: int, costs: CaseCosts
) -> tuple[list[Job], str, list[dict[str, Any]]]:
    """The jobs of shard ``shard`` of ``count`` (each narrowed to its units), the plan's digest and what the
    shard plans to run (:func:`codegen.check.matrix.planned_jobs`)."""
    from dataclasses import replace

    from codegen.check.matrix import assign_shards, job_units, plan_digest, planned_jobs

    units = [u for i, job in enumerate(jobs) for u in job_units(job, i)]
    shards = assign_shards(units, count, costs)
    own = shards[shard - 1] if shard <= len(shards) else []  # shards past the unit count are empty
    mine: dict[int, list[int]] = {}
    for unit in own:
        mine.setdefault(unit.job, []).append(unit.index)
    print(
        f"shard {shard}/{count}: {len(own)} of {len(units)} units, in {len(mine)} of {len(jobs)} jobs",
        file=sys.stderr,
    )
    narrowed = [replace(jobs[i], units=tuple(ix)) for i, ix in sorted(mine.items())]
    return narrowed, plan_digest(shards), planned_jobs(jobs, own)


def _check_meta(
    args: argparse.Namespace, specs: dict[str, OpSpec], generated: Path, shard: list[int], plan: str
) -> dict[str, Any]:
    """The ``meta`` of the JSON (see :mod:`codegen.check.results`)."""
    from codegen.check.matrix import input_part_digests, inputs_digest
    from codegen.paths import project_paths, reference_dir_for

    paths = project_paths()
    specs_dir = Path(args.specs) if getattr(args, "specs", None) else paths.specs
    products_file = Path(args.products) if getattr(args, "products", None) else specs_dir / "products.yaml"
    folders = [specs[name].folder for name in specs]
    options = {
        "ops": sorted(specs),
        "products": sorted(args.product or []),
        "dtypes": sorted(args.dtype or []),
        "quick": bool(args.quick),
        "core_orders": list(args.core_order or []),
        "all_products": bool(args.all_products),
        "sanitize": bool(args.sanitize),
        "cases": list(getattr(args, "case", None) or []),
    }
    return {
        "opgen": _version(),
        "inputs": inputs_digest(
            specs_dir, products_file, reference_dir_for(getattr(args, "specs", None)), generated, folders
        ),
        "input_parts": input_part_digests(
            specs_dir, products_file, reference_dir_for(getattr(args, "specs", None)), generated, folders
        ),
        "options": options,
        "shard": shard,
        "plan": plan,
    }


def cmd_report_merge(args: argparse.Namespace) -> int:
    from codegen.check.result_files import MergeError, merge_results

    _distinct_files([("--json", args.json), ("--junit", args.junit), ("--costs", args.costs)], args.files)
    json_path = _writable_file(args.json, "--json") if args.json is not None else None
    junit_path = _writable_file(args.junit, "--junit") if args.junit is not None else None
    costs = _costs(args.costs, created=True) if args.costs is not None else None
    try:
        meta, results = merge_results([Path(p) for p in args.files])
    except MergeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if costs is not None:
        costs.record(results)
        costs.save()
    return _report(results, meta, args.verbose, json_path, junit_path)
