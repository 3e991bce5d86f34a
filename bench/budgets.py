"""Check budgets (issue 18): ``python bench/budgets.py [--cold] [--ci] [--jobs N] [--json FILE]``.

Prints, as Markdown, and writes to ``--json`` (default ``bench/budgets.json``, ignored by git) with the load
average sampled every 5 s over each measurement (the machine may be shared: read times with the load):

- **warm full check**: ``opgen check -j N --json`` on the current build cache (``$OPGEN_CACHE_DIR`` or
  ``~/.cache/ascend-opgen``; primed first by an untimed run when it is empty), wall seconds; budget < 60 s
  at ``-j 2`` on a quiet 2-core machine;
- **per-case mean by op**: from that run's ``--json``, the mean of the cases' own seconds per op (cases that
  ran; copies for products covered by another product's run are not counted), and over all; budget < 5 ms;
- **cold full check** (``--cold`` only: it compiles the runtime and every library, many minutes on 2 cores;
  run it once, not in a loop): the same with ``OPGEN_CACHE_DIR`` a new empty directory;
- **``.ci/run`` split by step** (``--ci`` only: a fresh virtual environment, PyTorch, the whole test suite):
  ``.ci/run`` itself in a copy of the checkout (``git worktree``-free: the tracked files are copied, so the
  checkout's ``.venv`` is not touched), with the step split the script prints at its end (each step's
  seconds and the 1-minute load at its start and end); budget < 20 min in total.

Nothing here asserts: the figures are for the manual's check budgets (docs/benchmarks.md) and the CI budget.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import LoadSampler, machine_info, opgen_cmd, parse_passed_failed, run_timed, subprocess_env  # noqa: E402

#: Budgets of issue 18 (quiet 2-core machine, every op present).
WARM_BUDGET_S = 60.0
CASE_BUDGET_MS = 5.0
CI_BUDGET_S = 20 * 60.0


def per_op_case_means(cases: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean and count of the cases' own seconds per op, over the cases that ran (``covered_by`` empty,
    not a job-level result); ``"*"`` is every op together. Milliseconds."""
    by_op: dict[str, list[float]] = {}
    for c in cases:
        if c.get("covered_by") or "/-/" in c.get("ident", ""):
            continue
        by_op.setdefault(c["op"], []).append(float(c.get("seconds", 0.0)))
        by_op.setdefault("*", []).append(float(c.get("seconds", 0.0)))
    return {op: {"mean_ms": 1000 * sum(v) / len(v), "cases": len(v)} for op, v in sorted(by_op.items()) if v}


def timed_check(jobs: int, cache: Path | None, json_path: Path, sampler: LoadSampler) -> dict[str, Any]:
    """One full ``opgen check -j jobs --json json_path`` (``cache``: its ``OPGEN_CACHE_DIR``, None: the
    current one): wall seconds, load, exit status, passed/failed and the per-op case means."""
    env = subprocess_env({"OPGEN_CACHE_DIR": str(cache)} if cache is not None else None)
    start = time.perf_counter()
    timed = run_timed(opgen_cmd("check", "-j", str(jobs), "--json", str(json_path)), env)
    end = time.perf_counter()
    out: dict[str, Any] = {
        "seconds": timed.seconds,
        "returncode": timed.returncode,
        "load": sampler.stats(start, end),
        "passed_failed": parse_passed_failed(timed.output),
    }
    if json_path.is_file():
        cases = json.loads(json_path.read_text())["cases"]
        out["results"] = len(cases)
        out["per_op"] = per_op_case_means(cases)
    return out


#: A step line ``.ci/run`` prints at its end: ``ci-step NAME SECONDS s   load START -> END`` (a step that
#: failed: ``ci-step NAME FAILED (exit status N)``).
_CI_STEP = re.compile(r"^ci-step (\S+)\s+(?:([0-9.]+) s\s+load (\S+) -> (\S+)|FAILED \(exit status (\d+)\))$")
#: Its last line: ``ci-total SECONDS s   load average 1/5/15 min at the end: L1 L5 L15``.
_CI_TOTAL = re.compile(r"^ci-total\s+([0-9.]+) s\s+load average 1/5/15 min at the end: (\S+) (\S+) (\S+)$")


def parse_ci_steps(output: str) -> dict[str, Any]:
    """The step split ``.ci/run`` prints at its end (see the script's header): ``steps`` is a list of
    ``{"step", "seconds", "load_start", "load_end"}`` (seconds and loads ``None`` for the step that failed,
    which has ``"failed": exit status``), ``total`` the script's own wall seconds and ``load_end`` its
    1/5/15-minute load averages at the end (``None`` when the lines are missing, e.g. the script was
    killed)."""
    steps: list[dict[str, Any]] = []
    total: float | None = None
    load_end: list[float] | None = None
    for line in output.splitlines():
        m = _CI_STEP.match(line.strip())
        if m:
            name, seconds, l0, l1, failed = m.groups()
            if failed is not None:
                steps.append(
                    {"step": name, "seconds": None, "load_start": None, "load_end": None, "failed": int(failed)}
                )
            else:
                steps.append({"step": name, "seconds": float(seconds), "load_start": l0, "load_end": l1})
            continue
        t = _CI_TOTAL.match(line.strip())
        if t:
            total = float(t.group(1))
            load_end = [float(x) for x in t.groups()[1:]]
    return {"steps": steps, "total": total, "load_end": load_end}


def timed_ci(sampler: LoadSampler) -> dict[str, Any]:
    """Runs ``.ci/run`` in a copy of the tracked files (so the checkout's ``.venv`` and cache are not
    touched) and returns its wall seconds, exit status, the load sampled while it ran and the step split
    the script prints (:func:`parse_ci_steps`)."""
    work = Path(tempfile.mkdtemp(prefix="opgen-ci-budget-"))
    try:
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        for rel in files.splitlines():
            src = ROOT / rel
            if src.is_file():
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, work / rel)
        start = time.perf_counter()
        proc = subprocess.run(["bash", str(work / ".ci" / "run")], capture_output=True, text=True, check=False)
        total = time.perf_counter() - start
        split = parse_ci_steps(proc.stdout)
        return {
            "seconds": total,
            "returncode": proc.returncode,
            "load": sampler.stats(start, start + total),
            "steps": split["steps"],
            "load_end": split["load_end"],
            "tail": proc.stdout[-2000:] + proc.stderr[-2000:] if proc.returncode else "",
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _load_text(load: dict[str, Any]) -> str:
    if load.get("mean") is None:
        return "-"
    return f"{load['mean']:.2f} (max {load['max']:.2f})"


def markdown(data: dict[str, Any]) -> list[str]:
    """The report: one table of the budgets, one of the per-op case means, one of the CI steps."""
    out = ["| measurement | value | budget | load avg (1 min) |", "|---|---|---|---|"]
    for key, label in (("warm", "warm full check"), ("cold", "cold full check")):
        run = data.get(key)
        if run:
            budget = f"< {WARM_BUDGET_S:g} s" if key == "warm" else "-"
            pf = run.get("passed_failed")
            shown = f"{run['seconds']:.1f} s" + (f" ({pf[0]} passed, {pf[1]} failed)" if pf else "")
            out.append(f"| {label} (-j {data['jobs']}) | {shown} | {budget} | {_load_text(run['load'])} |")
    warm = data.get("warm") or data.get("cold")
    if warm and warm.get("per_op"):
        every = warm["per_op"]["*"]
        out.append(f"| mean case | {every['mean_ms']:.2f} ms over {every['cases']} cases | < {CASE_BUDGET_MS:g} ms | |")
    ci = data.get("ci")
    if ci:
        out.append(
            f"| .ci/run | {ci['seconds'] / 60:.1f} min | < {CI_BUDGET_S / 60:g} min | {_load_text(ci['load'])} |"
        )
    if warm and warm.get("per_op"):
        out += ["", "| op | cases run | mean case |", "|---|---|---|"]
        for op, v in warm["per_op"].items():
            if op != "*":
                out.append(f"| {op} | {v['cases']} | {v['mean_ms']:.2f} ms |")
    if ci:
        out += ["", "| .ci/run step | seconds | load avg (1 min) start -> end |", "|---|---|---|"]
        for s in ci["steps"]:
            shown = f"FAILED (exit {s['failed']})" if s.get("failed") is not None else f"{s['seconds']:.1f}"
            load = "-" if s.get("load_start") is None else f"{s['load_start']} -> {s['load_end']}"
            out.append(f"| {s['step']} | {shown} | {load} |")
    return out


def main(argv: list[str] | None = None) -> int:
    """Runs the selected measurements, prints the Markdown report, writes the JSON file."""
    p = argparse.ArgumentParser(prog="bench/budgets.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=2, help="opgen check -j (default 2)")
    p.add_argument("--cold", action="store_true", help="also the cold full check (minutes; run it once)")
    p.add_argument("--ci", action="store_true", help="also .ci/run split by step (the whole test suite)")
    p.add_argument("--no-warm", action="store_true", help="skip the warm full check")
    p.add_argument("--json", default=str(HERE / "budgets.json"), help="result file (default bench/budgets.json)")
    args = p.parse_args(argv)
    data: dict[str, Any] = {"machine": machine_info(), "jobs": args.jobs, "loadavg_at_start": os.getloadavg()}
    scratch = Path(tempfile.mkdtemp(prefix="opgen-budgets-"))
    try:
        with LoadSampler() as sampler:
            if args.cold:
                print("cold full check (a new empty build cache) ...", file=sys.stderr)
                data["cold"] = timed_check(args.jobs, scratch / "cache", scratch / "cold.json", sampler)
            if not args.no_warm:
                from codegen.build import cache_dir

                cache = None if not args.cold else scratch / "cache"
                if cache is None and not any((cache_dir() / "lib").glob("*")):
                    print("priming the build cache (untimed) ...", file=sys.stderr)
                    run_timed(opgen_cmd("check", "--quick", "-j", str(args.jobs)), subprocess_env())
                print("warm full check ...", file=sys.stderr)
                data["warm"] = timed_check(args.jobs, cache, scratch / "warm.json", sampler)
            if args.ci:
                print(".ci/run split by step (a copy of the checkout) ...", file=sys.stderr)
                data["ci"] = timed_ci(sampler)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    data["loadavg_at_end"] = os.getloadavg()
    print("\n".join(markdown(data)))
    Path(args.json).write_text(json.dumps(data, indent=1, default=str))
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
