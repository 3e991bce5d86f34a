"""The benchmark suite's driver: options, the sections in order, the Markdown report and the JSON file."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import ROOT, LoadSampler, Section, machine_info

SECTIONS = ("generation", "emulator", "traffic", "row_traffic", "gather_traffic", "list_traffic", "check")
#: Report order (the numbering of issue 6); execution order is ``SECTIONS`` (the long check runs last).
REPORT_ORDER = ("generation", "check", "emulator", "traffic", "row_traffic", "gather_traffic", "list_traffic")
#: Version of the JSON layout (``compare.py`` checks it).
SCHEMA = 1


def build_parser() -> argparse.ArgumentParser:
    """Options of ``bench/run.py``."""
    p = argparse.ArgumentParser(
        prog="bench/run.py",
        description="ascend-opgen benchmarks: generation, opgen check, emulator throughput, data movement. "
        "Prints one Markdown report on stdout (progress on stderr) and writes a JSON file.",
    )
    p.add_argument(
        "--json", default=str(ROOT / "bench" / "results.json"), help="result file (default bench/results.json)"
    )
    p.add_argument("--markdown", help="also write the report to this file")
    p.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        help="run only this section (repeatable); default all, in the order " + ", ".join(SECTIONS),
    )
    p.add_argument("--reps", type=int, help="repetitions per timing (default 5; 2 with --quick)")
    p.add_argument("--skip-cold", action="store_true", help="no cold-cache `opgen check` runs (the slow part)")
    p.add_argument(
        "--check-jobs",
        default="1,2",
        help="comma-separated -j values for `opgen check` (default 1,2; --quick: 2)",
    )
    p.add_argument(
        "--check-op",
        action="append",
        help="check only this op (repeatable; default the full matrix, every op)",
    )
    p.add_argument(
        "--sizes",
        default="small,medium,large,dist",
        help="shape classes of the data-movement matrix (default small,medium,large,dist; dist: every index "
        "distribution x D in 1, 8, 128, 4096)",
    )
    p.add_argument(
        "--update-docs",
        action="store_true",
        help="after the run, write the figures between the bench markers of docs/benchmarks.md (refused for --quick)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="fast iteration: --skip-cold, 2 repetitions, -j 2 only; the report is marked QUICK",
    )
    return p


def _check_codegen() -> str:
    import codegen

    path = str(Path(codegen.__file__).resolve())
    if not path.startswith(str(ROOT)):
        print(f"[bench] warning: codegen imported from {path}, not from {ROOT}", file=sys.stderr)
    return path


def main(argv: list[str] | None = None) -> int:
    """Runs the selected sections, prints the report, writes the JSON; exit 0 (1 if a section crashed)."""
    args = build_parser().parse_args(argv)
    reps = args.reps or (2 if args.quick else 5)
    cold = not (args.skip_cold or args.quick)
    jobs = [2] if args.quick and args.check_jobs == "1,2" else [int(j) for j in args.check_jobs.split(",") if j]
    sizes = tuple(s for s in args.sizes.split(",") if s)
    selected = [s for s in SECTIONS if not args.only or s in args.only]

    from bench import checking, emulator, gather_traffic, generation, list_traffic, row_traffic, traffic
    from bench.report import render

    runners: dict[str, Callable[[], Section]] = {
        "generation": lambda: generation.run(reps),
        "emulator": lambda: emulator.run(reps),
        "traffic": lambda: traffic.run(sizes=sizes),
        "row_traffic": lambda: row_traffic.run(),
        "gather_traffic": lambda: gather_traffic.run(),
        "list_traffic": lambda: list_traffic.run(),
        "check": lambda: checking.run(jobs, cold, args.check_op),
    }
    meta: dict[str, Any] = {
        "schema": SCHEMA,
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "argv": sys.argv[1:] if argv is None else argv,
        "quick": bool(args.quick),
        "reps": reps,
        "cold_check": cold,
        "check_jobs": jobs,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine_info(),
        "codegen_file": _check_codegen(),
        "opgen_cache_dir": os.environ.get("OPGEN_CACHE_DIR", "(default ~/.cache/ascend-opgen)"),
        "loadavg_start": os.getloadavg()[0],
    }
    sections: list[Section] = []
    crashed = False
    suite_start = time.perf_counter()
    with LoadSampler() as sampler:
        for name in selected:
            print(f"[bench] {name} ...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            try:
                sec = runners[name]()
            except Exception as exc:  # one broken section must not lose the others
                crashed = True
                sec = Section(name, name)
                sec.errors.append(f"section crashed: {type(exc).__name__}: {exc}")
            sec.seconds = time.perf_counter() - start
            sec.load = sampler.stats(start, time.perf_counter())
            print(f"[bench] {name} done in {sec.seconds:.1f} s", file=sys.stderr, flush=True)
            sections.append(sec)
    meta["seconds"] = time.perf_counter() - suite_start
    meta["loadavg_end"] = os.getloadavg()[0]
    meta["load"] = sampler.stats()
    sections.sort(key=lambda s: REPORT_ORDER.index(s.name) if s.name in REPORT_ORDER else len(REPORT_ORDER))
    text = render(meta, sections)
    print(text)
    data = result_data(meta, sections)
    if args.only and Path(args.json).is_file():  # the other sections of the file are kept, not dropped
        try:
            data = merge_results(json.loads(Path(args.json).read_text()), data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(
                f"[bench] {args.json} not written: --only merges into it, but it is not a result file ({exc}); "
                "give another --json",
                file=sys.stderr,
            )
            return 1
        kept = sorted(set(data["sections"]) - {s.name for s in sections})
        print(f"[bench] kept the sections {', '.join(kept) or '(none)'} of {args.json}", file=sys.stderr)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(data, indent=1, default=float) + "\n")
    print(f"[bench] wrote {args.json}", file=sys.stderr)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
        print(f"[bench] wrote {args.markdown}", file=sys.stderr)
    if args.update_docs:
        from bench.readme import PAGE, update_page

        try:
            update_page(data, ROOT / PAGE)
            print(f"[bench] wrote the figures into {PAGE}", file=sys.stderr)
        except ValueError as exc:
            print(f"[bench] {PAGE} not updated: {exc}", file=sys.stderr)
            return 1
    return 1 if crashed else 0


def run_info(meta: dict[str, Any]) -> dict[str, Any]:
    """What a section records of the run that measured it: ``started``, ``command``, ``git_commit``,
    ``git_modified_files`` and ``quick``."""
    machine = meta.get("machine", {})
    return {
        "started": meta.get("started"),
        "command": meta.get("command"),
        "git_commit": machine.get("git_commit"),
        "git_modified_files": machine.get("git_modified_files"),
        "quick": bool(meta.get("quick")),
    }


def result_data(meta: dict[str, Any], sections: list[Section]) -> dict[str, Any]:
    """The JSON content of a run: ``schema``, ``meta``, ``sections.<name>`` (each with ``run``, the run that
    measured it: :func:`run_info`) and every figure by id."""
    return {
        "schema": SCHEMA,
        "meta": meta,
        "sections": {s.name: {**s.to_json(), "run": run_info(meta)} for s in sections},
        "figures": {f.id: f.to_json() for s in sections for f in s.figures},
    }


def merge_results(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The result file of an ``--only`` run ``new`` merged into the earlier result file ``old``: ``new``'s
    sections replace those of the same name, ``old``'s other sections stay with their figures, in
    :data:`REPORT_ORDER`. ``meta`` is ``new``'s, with ``earlier``: the kept sections' runs by section name
    (a section without ``run``, from an older file, gets ``old``'s meta), and ``quick`` true when any part
    is from a quick run.

    Raises:
        ValueError: ``old`` is of another schema or not a result file.
        KeyError, TypeError: ``old`` lacks the structure :func:`result_data` writes.
    """
    if not isinstance(old, dict) or old.get("schema") != SCHEMA:
        raise ValueError(f"schema {old.get('schema') if isinstance(old, dict) else None!r}, expected {SCHEMA}")
    fresh = new["sections"]
    kept = {
        name: {**sec, "run": sec.get("run") or run_info(old["meta"])}
        for name, sec in old["sections"].items()
        if name not in fresh
    }
    merged = {**kept, **fresh}
    order = sorted(merged, key=lambda n: REPORT_ORDER.index(n) if n in REPORT_ORDER else len(REPORT_ORDER))
    sections = {name: merged[name] for name in order}
    meta = {**new["meta"], "earlier": {name: sec["run"] for name, sec in kept.items()}}
    meta["quick"] = bool(new["meta"].get("quick")) or any(run.get("quick") for run in meta["earlier"].values())
    return {
        "schema": SCHEMA,
        "meta": meta,
        "sections": sections,
        "figures": {f["id"]: f for sec in sections.values() for f in sec["figures"]},
    }
