"""Benchmark 2, checking: wall time of the full ``opgen check`` matrix, cold and warm build cache, -j 1 and -j 2.

A cold run points ``OPGEN_CACHE_DIR`` at a new empty directory, so it compiles the runtime, every
(op, product) library and every example program; the warm run that follows reuses that directory. Cases
are counted from ``--json`` (every value case under each core order, the status cases and the example
programs), passed/failed from the final ``N passed, M failed`` line. Without cold runs (``--skip-cold``) the
warm runs use the current cache (``$OPGEN_CACHE_DIR`` or ``~/.cache/ascend-opgen``), primed first by an
untimed ``opgen check --quick``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import Figure, Section, Target, Timed, opgen_cmd, parse_passed_failed, run_timed, subprocess_env, tail

#: Target from issue 6: warm full check on the 2-core machine (seconds), judged on the -j 2 run.
WARM_TARGET = Target("<", 60.0)


def case_time_breakdown(cases: list[dict[str, Any]], top: int = 5) -> dict[str, Any]:
    """Where the check's time goes: the sum of the cases' own seconds, per (op, product), and the ``top``
    slowest cases (seconds each, from the ``--json`` file)."""
    by_job: dict[str, float] = {}
    for c in cases:
        key = f"{c['op']}/{c['product']}"
        by_job[key] = by_job.get(key, 0.0) + float(c.get("seconds", 0.0))
    slowest = sorted(cases, key=lambda c: -float(c.get("seconds", 0.0)))[:top]
    return {
        "case_seconds_total": sum(by_job.values()),
        "case_seconds_by_op_product": dict(sorted(by_job.items(), key=lambda kv: -kv[1])),
        "slowest_cases": [{"ident": c["ident"], "seconds": float(c.get("seconds", 0.0))} for c in slowest],
    }


#: Subdirectories of the build cache that hold one entry per build (``codegen.build``'s layout).
_CACHE_KINDS = ("runtime", "lib", "examples")


def cache_entries(cache: Path) -> dict[str, int]:
    """How many builds the cache holds, per kind (runtime, (op, product) library, example program)."""
    return {k: sum(1 for _ in (cache / k).iterdir()) if (cache / k).is_dir() else 0 for k in _CACHE_KINDS}


def _default_cache() -> Path:
    from codegen.build import cache_dir

    return cache_dir()


def _check(jobs: int, cache: Path | None, json_path: Path, ops: list[str]) -> tuple[Timed, dict[str, Any]]:
    extra = {"OPGEN_CACHE_DIR": str(cache)} if cache is not None else None
    where = cache if cache is not None else _default_cache()
    before = cache_entries(where)
    timed = run_timed(opgen_cmd("check", *ops, "-j", str(jobs), "--json", str(json_path)), subprocess_env(extra))
    after = cache_entries(where)
    info: dict[str, Any] = {"seconds": timed.seconds, "returncode": timed.returncode, "cases": None}
    info["builds"] = {k: after[k] - before[k] for k in _CACHE_KINDS}
    counts = parse_passed_failed(timed.output)
    if counts is not None:
        info["passed"], info["failed"] = counts
    try:
        data = json.loads(json_path.read_text())
        info["cases"] = len(data["cases"])
        info["op_products"] = len({(c["op"], c["product"]) for c in data["cases"]})
        failures = [c for c in data["cases"] if not c["passed"]]
        info["failures"] = [f"{c['ident']}: {c['message'][:200]}" for c in failures[:10]]
        info.update(case_time_breakdown(data["cases"]))
    except (OSError, ValueError, KeyError):
        pass
    if info["cases"] is None or counts is None:
        info["output_tail"] = tail(timed.output, 25)
    return timed, info


def run(jobs_list: list[int], cold: bool, ops: list[str] | None = None) -> Section:
    """Runs the check benchmark for every ``-j`` value in ``jobs_list``, cold then warm (or warm only), on
    ``ops`` (default every op)."""
    ops = list(ops or [])
    sec = Section("check", "2. Checking")
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-check-") as tmp:
        if not cold:
            prime = run_timed(opgen_cmd("check", *ops, "--quick", "-j", str(max(jobs_list))), subprocess_env())
            runs["prime_quick_s"] = prime.seconds
        for jobs in jobs_list:
            cache = Path(tmp) / f"cache-j{jobs}" if cold else None
            kinds = ("cold", "warm") if cold else ("warm",)
            for kind in kinds:
                key = f"{kind}_j{jobs}"
                _, info = _check(jobs, cache, Path(tmp) / f"{key}.json", ops)
                info["cache"] = "fresh temporary directory" if cold else "current user cache"
                runs[key] = info
    sec.details["runs"] = runs
    sec.details["ops"] = ops or "all"
    scope = "".join(f" {o}" for o in ops)
    for key, info in runs.items():
        if not isinstance(info, dict):
            continue
        kind, j = key.split("_j")
        seconds = info["seconds"]
        cases = info.get("cases")
        note = ""
        if "case_seconds_total" in info:
            slow = info["slowest_cases"][:3]
            note = f"cases' own time {info['case_seconds_total']:.0f} s summed over workers; slowest: " + ", ".join(
                f"{c['ident']} {c['seconds']:.1f} s" for c in slow
            )
        builds = info.get("builds") or {}
        if any(builds.values()):
            note = (
                "builds during the run: "
                + ", ".join(f"{n} {k}" for k, n in builds.items() if n)
                + (" (not warm: sources changed, or these builds failed before)" if kind == "warm" else "")
                + "; "
                + note
            )
        if info.get("failed"):
            note = f"{info['failed']} of {info.get('passed', 0) + info['failed']} cases FAILED (see JSON); " + note
            sec.errors.append(
                f"`opgen check{scope} -j {j}` ({kind}): {info['failed']} cases failed, the time is not that of a "
                "passing check:\n" + "\n".join(f[:300] for f in info.get("failures", [])[:4])
            )
        if cases is None:
            note = f"could not read the case list (exit {info['returncode']})"
            sec.errors.append(f"`opgen check -j {j}` ({kind}) output:\n{info.get('output_tail', '')}")
        target = WARM_TARGET if kind == "warm" and j == "2" and not ops else None
        libs = f", {info['op_products']} (op, product) libraries" if info.get("op_products") else ""
        what = "full matrix" if not ops else "selected ops"
        label = (
            f"{kind} `opgen check{scope} -j {j}` ({what}, {'empty' if kind == 'cold' else 'warm'} build cache{libs})"
        )
        fig = Figure(f"check.{key}_s", label, seconds, "s", target, note=note)
        if fig.met is False:
            fig.why = warm_why(info, int(j))
        sec.figures.append(fig)
        sec.figures.append(
            Figure(
                f"check.{key}_cases_per_s",
                f"{kind} -j {j}: cases per second ({cases if cases is not None else '?'} cases)",
                cases / seconds if cases else None,
                "cases/s",
            )
        )
    sec.appendix = _per_op_table(runs)
    return sec


def warm_why(info: dict[str, Any], jobs: int) -> str:
    """Why a warm check misses its target and what would reach it: the cases' own seconds against the wall
    time, and the op/product pairs and cases that cost the most."""
    total = info.get("case_seconds_total")
    if total is None:
        return "no case list to explain the time (see the errors)"
    seconds = info["seconds"]
    by_job = list(info.get("case_seconds_by_op_product", {}).items())[:3]
    overhead = max(seconds - total / jobs, 0.0)
    text = (
        f"the cases' own time sums to {total:.0f} s, at least {total / jobs:.0f} s on {jobs} workers; the "
        f"remaining ≈ {overhead:.0f} s of the {seconds:.0f} s wall time is outside the cases' own timers (start-up, "
        "library builds or cache look-ups, workers idle at the end); costliest op/products: "
        + ", ".join(f"{k} {v:.0f} s" for k, v in by_job)
    )
    budget = WARM_TARGET.threshold
    if total / jobs > budget:
        return text + (
            f"; the cases alone exceed {budget:g} s, so the matrix's costliest cases (above) must get cheaper "
            "(smaller shapes or fewer core orders for the slow cases) or the cases must run on more workers"
        )
    return text + f"; the cases fit in {budget:g} s, so the time outside them must shrink"


def _per_op_table(runs: dict[str, Any]) -> list[str]:
    """Case seconds per op and product of every run (the cases' own time, summed over workers)."""
    keys = [k for k, v in runs.items() if isinstance(v, dict) and v.get("case_seconds_by_op_product")]
    if not keys:
        return []
    rows = sorted({name for k in keys for name in runs[k]["case_seconds_by_op_product"]})
    lines = [
        "Where the time goes: each case's own seconds, summed per op and product (library builds and worker "
        "start-up are outside the cases; the example-program case includes compiling the example).",
        "",
        "| op/product | " + " | ".join(f"{k} s" for k in keys) + " |",
        "|---|" + "---:|" * len(keys),
    ]
    for name in rows:
        cells = [runs[k]["case_seconds_by_op_product"].get(name) for k in keys]
        lines.append(f"| {name} | " + " | ".join("-" if c is None else f"{c:.1f}" for c in cells) + " |")
    return lines


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only check`")
