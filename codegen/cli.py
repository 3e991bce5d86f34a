"""The ``opgen`` command line (also ``python -m codegen``)."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegen.spec.errors import SpecError, SpecErrors
from codegen.writer import hold_output, writes_in_place

if TYPE_CHECKING:  # the model imports the expression language: loaded only by commands that read specs
    from codegen.check.driver import CaseResult, Job
    from codegen.check.matrix import CaseCosts
    from codegen.spec.model import Catalogue, OpSpec, Product


def _version() -> str:
    """The installed distribution's version (``ascend-opgen``), or ``unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ascend-opgen")
    except PackageNotFoundError:
        return "unknown (not installed)"


class UsageError(Exception):
    """A command-line value is invalid; ``main`` prints the message and exits 2 before any work starts."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    # a wait longer than threading.TIMEOUT_MAX is an OverflowError in the worker's queue
    if not 0 < value <= threading.TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(
            f"must be a positive finite number of seconds, at most {threading.TIMEOUT_MAX:.0f}, got {text}"
        )
    return value


def _dtype_names(names: list[str] | None) -> tuple[str, ...]:
    """The ``--dtype`` values, each checked against the aclDataType names.

    Raises:
        UsageError: an unknown name (the message lists the valid ones).
    """
    from codegen.spec.model import DType

    valid = [d.name for d in DType]
    for name in names or ():
        if name not in valid:
            raise UsageError(f"unknown dtype '{name}'; valid dtypes: {', '.join(valid)}")
    return tuple(names or ())


def _writable_file(path_text: str, option: str, *, output_only: bool = True) -> Path:
    """``path_text`` checked to be a file this process can create or overwrite (before a long run).

    With ``output_only`` (a file the command only writes), a path :func:`codegen.writer.write_output` writes
    in place (a FIFO, a device, ``/dev/stdout``) is opened here and kept open for the end of the run
    (:func:`codegen.writer.hold_output`); a file that is read too (a cost table) is refused by its reader
    when it is not a regular file.

    Raises:
        UsageError: the path is empty, the directory does not exist, the path is a directory, either is
            not writable, or an in-place output cannot be opened (a FIFO with no reader).
    """
    if not path_text:
        raise UsageError(f"{option}: an empty path; give a file name")
    path = Path(path_text)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{option} {path_text}: is a directory")
    if output_only and writes_in_place(path):  # a FIFO, a device, /dev/stdout: opened now (a FIFO needs its reader now)
        try:
            hold_output(path)
        except OSError as exc:
            raise UsageError(f"{option} {path_text}: cannot write: {exc.strerror or exc}") from None
        return path
    if not parent.is_dir():
        raise UsageError(f"{option} {path_text}: directory {parent} does not exist")
    if (path.exists() and not os.access(path, os.W_OK)) or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path_text}: not writable")
    return path


def _distinct_files(named: list[tuple[str, str | None]], inputs: Sequence[str] = ()) -> None:
    """The files ``named`` (``(option, path or None)``) are different files, and none is one of ``inputs``
    (the result files a merge reads): one path given twice would have one output overwrite the other (a
    cost table replaced by the JSON results, an input replaced before it is read).

    Raises:
        UsageError: two options, or an option and an input, name the same file (symbolic links followed).
    """
    seen: dict[str, str] = {os.path.realpath(p): f"input {p}" for p in inputs}
    for option, text in named:
        if text is None:
            continue
        key = os.path.realpath(text)
        if key in seen:
            raise UsageError(f"{option} {text} is the same file as {seen[key]}: give each output its own path")
        seen[key] = f"{option} {text}"


def _costs(path_text: str, *, created: bool) -> CaseCosts:
    """The ``--costs`` table (:meth:`codegen.check.matrix.CaseCosts.read`), before any work.

    Raises:
        UsageError: the file cannot be used (missing where it is only read, unreadable, not a cost table).
    """
    from codegen.check.matrix import CaseCosts

    if created:  # the run records into it: an unwritable place would lose the times silently
        _writable_file(path_text, "--costs", output_only=False)
    try:
        return CaseCosts.read(Path(path_text), created=created)
    except ValueError as exc:
        raise UsageError(f"--costs {path_text}: {exc}") from None


def _load(args: argparse.Namespace) -> tuple[Catalogue, dict[str, OpSpec]]:
    from codegen.specs import load_project

    return load_project(getattr(args, "specs", None), getattr(args, "products", None))


def _select(specs: dict[str, OpSpec], names: list[str]) -> dict[str, OpSpec]:
    from codegen.specs import resolve_op

    if not names:
        return specs
    return {resolve_op(n, specs).snake: resolve_op(n, specs) for n in names}


def cmd_list(args: argparse.Namespace) -> int:
    from codegen.registry import family_names

    catalogue, specs = _load(args)
    print("ops:")
    for name in sorted(specs):
        s = specs[name]
        # a whole-tensor reduction epilogue (compute.reduce) shows as "<family> + sum"
        family = s.family + (" + sum" if getattr(s.compute, "reduce", None) is not None else "")
        print(f"  {name:32s} {s.aclnn_name:36s} family={family:18s} products={','.join(s.products)}")
    print("families:")
    for family in sorted({*family_names(), *(s.family for s in specs.values())}):
        members = sorted(n for n, s in specs.items() if s.family == family)
        print(f"  {family:32s} {len(members)} op(s): {', '.join(members) or '-'}")
    print("products:")
    for p in catalogue.products:
        print(
            f"  {p.name:14s} NpuArch {p.npu_arch}  UB {p.ub_bytes} bytes  {p.vector_core_num} vector cores  "
            f"bf16={'yes' if p.bf16 else 'no'}  DataCopyPad={'yes' if p.data_copy_pad else 'no'}"
        )
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from codegen.generate import run_generate

    result = run_generate(
        out=Path(args.out) if args.out else None,
        specs_dir=Path(args.specs) if args.specs else None,
        products_file=Path(args.products) if args.products else None,
        ops=args.ops,
        check=args.check,
        force=args.force,
        prune=args.prune,
        dry_run=args.dry_run,
    )
    report = result.report
    for text in result.warnings:
        print(f"warning: {text}", file=sys.stderr)
    if args.check:
        if result.clean:
            shown = args.out if args.out else "generated/"
            print(f"{shown} is up to date ({len(report.unchanged)} files)")
            return 0
        for rel in report.stale:
            print(f"stale: {rel}")
        for rel in report.missing:
            print(f"missing: {rel}")
        for rel in report.extra:
            print(f"not produced by any template: {rel}")
        for name in result.orphans:
            print(f"not produced by any spec: {name}/")
        advice = []
        if report.stale or report.missing:
            advice.append("`opgen generate` rewrites the stale and missing files")
        if report.extra or result.orphans:
            advice.append("`opgen generate --prune` removes the files and folders no template or spec produces")
        print(f"to update: {'; '.join(advice)}", file=sys.stderr)
        return 1
    if result.dry_run:
        for rel in report.stale + report.missing:
            print(f"would write {rel}")
    for rel in report.written:
        print(f"wrote {rel}")
    if args.verbose:
        for rel in result.skipped:
            print(f"skipped {rel} (inputs unchanged)")
    if result.dry_run:
        print(
            f"dry run: {len(report.stale) + len(report.missing)} would be written, "
            f"{len(result.skipped)} skipped (inputs unchanged); nothing was written or removed"
        )
    else:
        print(
            f"{len(report.written)} written, {len(report.unchanged)} rendered and unchanged, "
            f"{len(result.skipped)} skipped (inputs unchanged)"
        )
    verb = "would move" if result.dry_run else "moved"
    for rel, target in result.moved.items():
        print(f"{verb} {rel} to {target} (the op's folder moved; opgen did not write it or it was changed)")
    for rel, target in result.left.items():
        print(f"warning: left {rel} where it is: the op's folder moved and {target} is taken", file=sys.stderr)
    for name in result.orphans:
        print(f"warning: {name}/ is produced by no spec", file=sys.stderr)
    for rel in result.strays:
        print(f"warning: {rel} is produced by no template", file=sys.stderr)
    if args.prune or result.dry_run:
        for rel in result.prunable:
            if rel in result.pruned:
                print(f"pruned {rel}")
            else:
                print(f"would prune {rel}")
        for rel in result.pruned:
            if rel.endswith("/"):
                print(f"pruned {rel} (empty)")
        for rel, why in result.kept.items():
            print(f"kept {rel} ({why}; remove it by hand if unwanted)", file=sys.stderr)
    elif result.prunable:
        print(
            f"`opgen generate --prune` removes the {len(result.prunable)} file(s) opgen wrote that nothing "
            "produces any more (`--dry-run` lists them)",
            file=sys.stderr,
        )
    for rel in result.foreign:
        print(
            f"error: kept {rel} (it exists and opgen did not write it: no manifest record, no generator banner); "
            "move it away to let opgen write there",
            file=sys.stderr,
        )
    return 1 if result.foreign else 0


def cmd_build(args: argparse.Namespace) -> int:
    from codegen.build import build_op

    _generated_dir(args.generated)
    catalogue, specs = _load(args)
    spec = next(iter(_select(specs, [args.op]).values()))
    product = catalogue.get(args.product)
    if product.name not in spec.products:
        raise UsageError(
            f"{spec.aclnn_name} is not supported on {product.name}; its products: {', '.join(spec.products)} "
            f"({spec.path})"
        )
    built = build_op(
        spec, catalogue.get(args.product), Path(args.generated) if args.generated else None, sanitize=args.sanitize
    )
    print(built.library)
    return 0


def _generated_dir(text: str | None) -> None:
    """``--generated``: when given, an existing directory (a missing one is a usage error before any work,
    not a build failure reported per job)."""
    if text is not None and not Path(text).is_dir():
        what = "does not exist" if not Path(text).exists() else "is not a directory"
        raise UsageError(f"--generated {text}: {what}; give the directory `opgen generate --out` wrote")


#: The most parts ``--shard K/N`` splits the check matrix into. Every part is a job that builds (or restores)
#: the (op, product) libraries its cases use and plans the whole matrix, so past a few hundred parts that
#: repeated work, not the cases, is what a part spends its time on; CI matrices stay far below it (GitHub
#: Actions runs at most 256 jobs of one matrix). A larger N is a typo more likely than a plan.
MAX_SHARDS = 1024


def _shard(text: str) -> tuple[int, int]:
    """``K/N`` of ``--shard`` (1 <= K <= N <= :data:`MAX_SHARDS`)."""
    k_text, sep, n_text = text.partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if not sep or n < 1 or not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N (e.g. 2/4), got {text!r}")
    if n > MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"N must be at most {MAX_SHARDS} (see --help), got {text!r}")
    return k, n


def cmd_check(args: argparse.Namespace) -> int:
    from codegen.build import cache_dir
    from codegen.check.driver import CheckInterrupted, Job, run_check, select_products
    from codegen.check.matrix import CaseCosts, distinct_targets
    from codegen.check.report import progress_printer
    from codegen.paths import project_paths

    dtypes = _dtype_names(args.dtype)
    _generated_dir(args.generated)
    _distinct_files([("--json", args.json), ("--junit", args.junit), ("--costs", args.costs)])
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
                )
            )
    if not jobs:
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
    return _report(results, meta, args.verbose, json_path, junit_path)


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


def cmd_new(args: argparse.Namespace) -> int:
    from codegen.new import NewOpError, new_op
    from codegen.paths import project_paths, reference_dir_for

    specs_dir = Path(args.specs) if args.specs else project_paths().specs
    reference_dir = reference_dir_for(args.specs)  # where `opgen check` reads it from
    try:
        written = new_op(args.op, args.family, specs_dir, reference_dir)
    except NewOpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print("next: edit both, then `opgen generate` and `opgen check` the op")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from codegen.aclnn_doc import DocError, OutputError, import_doc
    from codegen.paths import project_paths
    from codegen.registry import families
    from codegen.spec import load_catalogue

    specs_dir = Path(args.specs) if args.specs else project_paths().specs
    catalogue = load_catalogue(Path(args.products) if args.products else specs_dir / "products.yaml")
    try:
        result = import_doc(
            Path(args.doc),
            catalogue,
            tuple(f.name for f in families()),
            specs_dir,
            out=Path(args.out) if args.out else None,
            family=args.family,
            force=args.force,
        )
    except DocError as exc:
        print(str(exc), file=sys.stderr)
        print("1 document error; nothing was written", file=sys.stderr)
        return 2
    except OutputError as exc:  # the --out path (or specs/<op>.yaml), not the document
        print(f"error: {'--out ' if args.out else ''}{exc}", file=sys.stderr)
        return 2
    print(f"wrote {result.path}")
    for line, q in result.questions:
        print(f"{result.path}:{line}: QUESTION(doc line {q.line}): {q.text}")
    print(f"{len(result.questions)} question(s) to answer in the spec before it loads")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from codegen.explain import explain

    catalogue, specs = _load(args)
    spec = next(iter(_select(specs, [args.op]).values()))
    product = catalogue.get(args.product)  # an unsupported product is explained, marked NOT SUPPORTED
    if args.dtype is not None:
        _dtype_names([args.dtype])
        supported = [d.name for d in spec.inputs[0].dtypes_for(product)]
        if args.dtype not in supported:
            raise UsageError(
                f"{spec.aclnn_name} does not compute on {args.dtype} on {product.name}; "
                f"dtypes there: {', '.join(supported)}"
            )
    if args.shape is not None:
        from codegen.explain import parse_shape

        try:
            parse_shape(args.shape)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    try:
        print(explain(spec, product, args.shape, args.dtype))
        if args.shape is not None and not args.no_model:
            from codegen.explain import model_section

            section = model_section(spec, product, args.shape, args.dtype)
            if section:
                print(section)
    except ValueError as exc:
        raise UsageError(f"explain {spec.op} --shape {args.shape}: {exc}") from exc
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``opgen`` (subcommands list, generate, build, check, explain)."""
    parser = argparse.ArgumentParser(prog="opgen", description="Generate and check Ascend operator sources.")
    parser.add_argument("--version", action="version", version=f"opgen {_version()}")
    parser.add_argument("--specs", help="spec directory (default: the project's specs/)")
    parser.add_argument("--products", help="alternative product catalogue YAML")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="ops, families, products").set_defaults(func=cmd_list)
    g = sub.add_parser("generate", help="render specs into generated/")
    g.add_argument("ops", nargs="*", help="ops to generate (snake name or OpType); default all")
    g.add_argument("--out", help="output directory (default generated/)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 and list stale files")
    g.add_argument("--force", action="store_true", help="ignore the manifest: re-render every file")
    g.add_argument(
        "--prune",
        action="store_true",
        help="delete the files opgen wrote into the output directory (per its manifest) that no spec or template "
        "produces any more; nothing else is deleted",
    )
    g.add_argument(
        "--dry-run", action="store_true", help="write and delete nothing: list what would be written and pruned"
    )
    g.add_argument("-v", "--verbose", action="store_true", help="also list the files skipped")
    g.set_defaults(func=cmd_generate)
    b = sub.add_parser("build", help="compile an op for a product; print the library path")
    b.add_argument("op")
    b.add_argument("--product", required=True)
    b.add_argument("--generated", help="generated tree to build (default generated/)")
    b.add_argument("--sanitize", action="store_true")
    b.set_defaults(func=cmd_build)
    from codegen.check.legend import LEGEND

    c = sub.add_parser(
        "check",
        help="build, run and compare against NumPy references",
        description="Build every (op, product), run its case matrix, compare with the NumPy references and "
        "print a table; exit 1 when a case fails.",
        epilog=f"The result table: {LEGEND}",
    )
    c.add_argument("ops", nargs="*", help="ops (snake name or OpType); default all")
    c.add_argument("--product", action="append", help="only this product (repeatable)")
    c.add_argument("--dtype", action="append", help="only this dtype (repeatable), e.g. FLOAT16")
    c.add_argument("--generated", help="check the sources in this directory instead of generated/")
    c.add_argument("--quick", action="store_true", help="a reduced matrix (no large shapes, one core order)")
    c.add_argument(
        "--sanitize",
        action="store_true",
        help="build and run with AddressSanitizer + UBSan (the kernel compiled for the tiling keys the cases launch)",
    )
    c.add_argument(
        "--core-order",
        action="append",
        choices=["in_order", "reversed", "shuffle", "concurrent"],
        help="core scheduling mode(s) for every value case",
    )
    c.add_argument("--json", help="write every result with emulator counters to this file")
    c.add_argument("-j", "--jobs", type=_positive_int, default=1, help="worker processes (at least 1)")
    c.add_argument(
        "--timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="time limit of every case (default: 60 s plus 1 s per MiB of the case's tensors, x4 with --sanitize)",
    )
    c.add_argument("-v", "--verbose", action="store_true", help="list every case, not only failures")
    c.add_argument(
        "--all-products",
        action="store_true",
        help="build and run every product, also those whose fingerprint equals another's (by default such a "
        "product's results are copies of the product that ran, marked 'ran as')",
    )
    c.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="run the K-th of N cost-balanced parts of the matrix (join the parts' --json with `opgen report merge`); "
        f"N is at most {MAX_SHARDS}: each part builds the libraries its cases use and plans the whole matrix, so "
        "more parts repeat that work more than they split the cases' time (CI matrices are smaller: GitHub "
        "Actions runs at most 256 jobs of one matrix)",
    )
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per case) to FILE")
    c.add_argument(
        "--costs",
        metavar="FILE",
        help="case cost table that --shard balances by (it must exist) and an unsharded run records into "
        "(created when missing); a file that is not a cost table is an error (default: case-costs.json in the "
        "build cache)",
    )
    c.set_defaults(func=cmd_check)
    r = sub.add_parser("report", help="work with `opgen check --json` result files")
    rsub = r.add_subparsers(dest="report_command", required=True)
    m = rsub.add_parser(
        "merge",
        help="join the --json files of the shards of one matrix: the table and exit status of one full run",
        description="Join the --json files of `opgen check --shard K/N` runs (all N shards of one plan) and print "
        "the table and totals one full run prints; exit 1 when a case failed, 2 when the files do not make one "
        "matrix (a shard missing or given twice, overlapping cases, different specs, options or opgen versions).",
    )
    m.add_argument("files", nargs="+", help="the shards' JSON files")
    m.add_argument("--json", help="write the merged results to this file")
    m.add_argument("--junit", metavar="FILE", help="write JUnit XML of the merged results to FILE")
    m.add_argument(
        "--costs",
        metavar="FILE",
        help="record the merged case times in this cost table (for the next `opgen check --shard --costs FILE`; "
        "created when missing, an existing file that is not a cost table is an error)",
    )
    m.add_argument("-v", "--verbose", action="store_true", help="list every case, not only failures")
    m.set_defaults(func=cmd_report_merge)
    n = sub.add_parser("new", help="write a starter spec and a reference stub for a new op")
    n.add_argument("op", help="aclnn name without the prefix, UpperCamelCase (e.g. MseLossBackward)")
    n.add_argument("--family", required=True, help="op family (one with a starter; see `opgen list`)")
    n.set_defaults(func=cmd_new)
    im = sub.add_parser("import", help="write a starter spec from an aclnn API document")
    im.add_argument("doc", help="aclnnXxx document: ops-nn Markdown (docs/aclnnXxx.md) or its English rendering")
    im.add_argument("--out", help="spec file to write (default: <specs>/<op_snake>.yaml)")
    im.add_argument("--family", help="op family (see `opgen list`); without it the spec asks for one")
    im.add_argument("--force", action="store_true", help="overwrite an existing spec file")
    im.set_defaults(func=cmd_import)
    e = sub.add_parser("explain", help="normalized spec and the tiling decision for a shape")
    e.add_argument("op")
    e.add_argument("--product", required=True)
    e.add_argument(
        "--shape",
        help="output shape, e.g. 1024,4096 or 1024x4096 ('x' separates too: 0x10 is [0, 10]; 'scalar' or '' for a 0-d "
        "tensor); index ops: numWeights,D[,N]",
    )
    e.add_argument("--dtype", help="compute dtype (default: the first supported)")
    e.add_argument(
        "--no-model",
        action="store_true",
        help="with --shape: leave out the performance model (it builds the op and runs the call on the emulator)",
    )
    e.set_defaults(func=cmd_explain)
    return parser


def _value_options(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """The option strings of ``parser`` and its subcommands: ``(those taking one value, all of them)``."""
    valued: set[str] = set()
    every: set[str] = set()
    todo = [parser]
    while todo:
        current = todo.pop()
        for action in current._actions:
            every.update(action.option_strings)
            if action.option_strings and action.nargs is None and action.const is None:
                valued.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return valued, every


def _values_joined(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with each value that starts with '-' joined to its option (``--shape -1,4`` becomes
    ``--shape=-1,4``), so that the option's own check reports the value instead of argparse's "expected one
    argument". A value that is itself an option of opgen is left alone (argparse reports the missing value)."""
    valued, every = _value_options(parser)
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        following = argv[i + 1] if i + 1 < len(argv) else None
        if token in valued and following is not None and following.startswith("-") and following not in every:
            out.append(f"{token}={following}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 check failure or stale output, 2 usage/spec error)."""
    from codegen.build import use_tool_warning_format

    use_tool_warning_format()
    parser = build_parser()
    args, extra = parser.parse_known_args(_values_joined(parser, list(sys.argv[1:] if argv is None else argv)))
    if extra:
        # op names after an option (`check X --quick Y`): argparse leaves those after the first group unparsed
        if isinstance(getattr(args, "ops", None), list) and not any(e.startswith("-") for e in extra):
            args.ops.extend(extra)
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C outside a check run (which prints its own summary)
        print(f"interrupted: opgen {args.command} stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error of the tool
        sys.stdout = None
        return 0
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SpecErrors as exc:
        print(str(exc), file=sys.stderr)
        print(f"{exc.count} spec error(s); nothing was written", file=sys.stderr)
        return 2
    except SpecError as exc:  # a spec problem found after loading (while planning or rendering)
        print(str(exc), file=sys.stderr)
        print("1 spec error(s); nothing was written", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from codegen.build import BuildError
        from codegen.generate import GenerateError
        from codegen.render import RenderError
        from codegen.writer import WriteFailed

        if isinstance(exc, (BuildError, RenderError, GenerateError, FileNotFoundError, WriteFailed)):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
