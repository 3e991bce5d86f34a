"""Benchmark 1, generation: ``opgen generate`` wall time in fresh processes, and where it goes, in-process.

Each repetition uses a new empty directory: a forced run (``opgen generate --force --out DIR``, every op and
product rendered and every file written), then a no-change run into the same directory (``opgen generate
--out DIR``, which the manifest should turn into a skip). Both are fresh processes, so interpreter start-up
and imports are included; those are measured separately (``python -c pass``, ``python -c 'import
codegen.cli, codegen.generate'`` and one ``-X importtime`` run), as is the start of one clang-format process
(the generator starts one per C++ file).

In-process (no start-up): ``run_generate`` forced and unchanged, uncached spec loading, ``render_all``, and
every op rendered with :func:`codegen.render.render_op` in a fresh Jinja2 environment (what a CLI run pays
per op) with ``codegen.render.format_cpp_files`` wrapped to time the clang-format subprocesses. The forced output
is also compared with the checked-out ``generated/``, which sections 3 and 4 build and run.
"""

from __future__ import annotations

import filecmp
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import (
    ROOT,
    Figure,
    Section,
    Target,
    opgen_cmd,
    run_timed,
    subprocess_env,
    summary,
    tail,
)

#: Targets from issue 6 (seconds).
FORCED_TARGET = Target("<", 2.0)
NO_CHANGE_TARGET = Target("<", 0.5)

_SUMMARY = re.compile(r"(\d+) written, (\d+) rendered and unchanged, (\d+) skipped")
_MANIFEST = ".opgen-manifest.json"
#: The modules every ``opgen generate`` run imports (start-up cost separate from the work).
_IMPORTS = "import codegen.cli, codegen.generate"
_IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (.*)$")


def _parse_generate(output: str) -> dict[str, int] | None:
    found = _SUMMARY.findall(output)
    if not found:
        return None
    written, unchanged, skipped = (int(x) for x in found[-1])
    return {"written": written, "rendered_unchanged": unchanged, "skipped": skipped}


def import_breakdown(env: dict[str, str], top: int = 6) -> list[dict[str, Any]]:
    """Where the imports of ``_IMPORTS`` spend their time in a fresh process (``python -X importtime``): the
    ``top`` costliest of codegen's own modules (by self time, microseconds) and of the third-party packages
    (by cumulative time), together sorted by that cost."""
    proc = run_timed([sys.executable, "-X", "importtime", "-c", _IMPORTS], env)
    stdlib = set(getattr(sys, "stdlib_module_names", ()))
    costs: dict[str, int] = {}
    for line in proc.output.splitlines():
        m = _IMPORTTIME.match(line)
        if not m:
            continue
        name = m.group(3).strip()
        top_level = name.split(".")[0]
        if top_level == "codegen":
            costs[name] = costs.get(name, 0) + int(m.group(1))
        elif "." not in name and name not in stdlib and not name.startswith("_"):
            costs[name] = max(costs.get(name, 0), int(m.group(2)))
    ranked = sorted(costs.items(), key=lambda kv: -kv[1])[:top]
    return [
        {"module": name, "us": us, "kind": "self" if name.startswith("codegen") else "cumulative"}
        for name, us in ranked
    ]


def clang_format_probe(reps: int) -> dict[str, Any]:
    """Seconds to start the clang-format that :func:`codegen.render.clang_format_binary` picks and, when the
    ``clang-format`` PyPI package is importable, its native executable (``--version``, median of ``reps``)."""
    from codegen.render import clang_format_binary

    used = clang_format_binary()
    result: dict[str, Any] = {
        "used": used,
        "used_s": summary([run_timed([used, "--version"]).seconds for _ in range(reps)]),
    }
    try:
        import clang_format  # type: ignore[import-untyped]

        native = str(clang_format.get_executable("clang-format"))
    except (ImportError, AttributeError):
        return result
    if Path(native).is_file():
        result["native"] = native
        result["native_s"] = summary([run_timed([native, "--version"]).seconds for _ in range(reps)])
    return result


def compare_trees(fresh: Path, committed: Path) -> dict[str, Any]:
    """Files of ``fresh`` (a forced generation) that differ from, or are missing in, ``committed``
    (``generated/``), and files only ``committed`` has; the manifest is ignored."""

    def files(root: Path) -> set[str]:
        if not root.is_dir():
            return set()
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name != _MANIFEST}

    a, b = files(fresh), files(committed)
    differ = sorted(rel for rel in a & b if not filecmp.cmp(fresh / rel, committed / rel, shallow=False))
    return {
        "files": len(a),
        "differ": differ,
        "missing_in_generated": sorted(a - b),
        "only_in_generated": sorted(b - a),
    }


def _in_process(reps: int, scratch: Path) -> dict[str, Any]:
    """In-process milliseconds (medians over ``reps``): spec loading (uncached), ``run_generate`` forced into
    an empty directory and with no change, ``render_all``, and per op ``render_op`` in a fresh environment with
    the clang-format share (``codegen.render.format_cpp_files`` wrapped)."""
    import codegen.render as render_mod
    from codegen.generate import render_all, run_generate
    from codegen.paths import project_paths
    from codegen.spec.loader import load_specs
    from codegen.specs import load_project

    paths = project_paths()
    load_ms: list[float] = []
    for _ in range(reps):
        start = time.perf_counter()
        load_specs(paths.specs)
        load_ms.append((time.perf_counter() - start) * 1e3)
    catalogue, specs = load_project()

    forced_ms: list[float] = []
    no_change_ms: list[float] = []
    for i in range(reps):
        out = scratch / f"inproc{i}"
        start = time.perf_counter()
        run_generate(out=out, force=True)
        forced_ms.append((time.perf_counter() - start) * 1e3)
        start = time.perf_counter()
        run_generate(out=out)
        no_change_ms.append((time.perf_counter() - start) * 1e3)

    original: Callable[..., dict[str, str]] = render_mod.format_cpp_files
    fmt_calls: list[float] = []

    def timed_format(*args: Any, **kwargs: Any) -> dict[str, str]:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            fmt_calls.append((time.perf_counter() - start) * 1e3)

    per_op: dict[str, dict[str, list[float]]] = {
        name: {"render_ms": [], "clang_format_ms": [], "clang_format_calls": []} for name in specs
    }
    files: dict[str, int] = {}
    all_ms: list[float] = []
    render_mod.format_cpp_files = timed_format
    try:
        for _ in range(reps):
            for name in sorted(specs):
                fmt_calls.clear()
                env = render_mod.make_environment(paths.templates)
                start = time.perf_counter()
                rendered = render_mod.render_op(specs[name], catalogue, paths, env)
                per_op[name]["render_ms"].append((time.perf_counter() - start) * 1e3)
                per_op[name]["clang_format_ms"].append(sum(fmt_calls))
                per_op[name]["clang_format_calls"].append(float(len(fmt_calls)))
                files[name] = len(rendered.files)
            start = time.perf_counter()
            render_all(specs, catalogue, paths)
            all_ms.append((time.perf_counter() - start) * 1e3)
    finally:
        render_mod.format_cpp_files = original
    return {
        "load_specs_ms": summary(load_ms),
        "run_generate_forced_ms": summary(forced_ms),
        "run_generate_no_change_ms": summary(no_change_ms),
        "render_all_ms": summary(all_ms),
        "ops": {
            name: {
                "files": files.get(name, 0),
                "products": list(specs[name].products),
                "render_ms": summary(v["render_ms"]),
                "clang_format_ms": summary(v["clang_format_ms"]),
                "clang_format_calls": int(max(v["clang_format_calls"], default=0)),
            }
            for name, v in per_op.items()
        },
    }


def run(reps: int) -> Section:
    """Runs the generation benchmark with ``reps`` repetitions of each measurement."""
    sec = Section("generation", "1. Generation")
    env = subprocess_env()
    bare = [run_timed([sys.executable, "-c", "pass"], env).seconds for _ in range(reps)]
    imports = [run_timed([sys.executable, "-c", _IMPORTS], env).seconds for _ in range(reps)]
    slowest = import_breakdown(env)
    try:
        probe = clang_format_probe(reps)
    except Exception as exc:  # the generator may not find clang-format: the generate runs will say more
        probe = {}
        sec.errors.append(f"clang-format probe: {type(exc).__name__}: {exc}")
    forced: list[float] = []
    no_change: list[float] = []
    counts: dict[str, Any] = {}
    inproc: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-gen-") as tmp:
        last = Path(tmp)
        for i in range(reps):
            out = Path(tmp) / f"rep{i}"
            first = run_timed(opgen_cmd("generate", "--force", "--out", str(out)), env)
            if first.returncode != 0:
                sec.errors.append(f"`opgen generate --force` exited {first.returncode}:\n{tail(first.output)}")
                break
            second = run_timed(opgen_cmd("generate", "--out", str(out)), env)
            if second.returncode != 0:
                sec.errors.append(f"`opgen generate` (no change) exited {second.returncode}:\n{tail(second.output)}")
                break
            forced.append(first.seconds)
            no_change.append(second.seconds)
            counts = {"forced": _parse_generate(first.output), "no_change": _parse_generate(second.output)}
            last = out
        sync = compare_trees(last, ROOT / "generated") if forced else {}
        try:
            inproc = _in_process(reps, Path(tmp))
        except Exception as exc:  # a broken generator is reported, never a crash of the suite
            sec.errors.append(f"in-process generation failed: {type(exc).__name__}: {exc}")
    sec.details.update(
        {
            "python_bare_s": summary(bare),
            "python_imports_s": summary(imports),
            "slowest_imports": slowest,
            "clang_format": probe,
            "forced_s": summary(forced),
            "no_change_s": summary(no_change),
            "file_counts": counts,
            "generated_vs_fresh": sync,
            "in_process": inproc,
        }
    )
    med = statistics.median
    nc_note = ""
    if counts.get("no_change") and counts["no_change"]["written"] + counts["no_change"]["rendered_unchanged"]:
        nc_note = f"the no-change run rendered files: {counts['no_change']}"
    files_note = ""
    if counts.get("forced"):
        files_note = f"{counts['forced']['written']} files written"
    sec.figures += [
        Figure(
            "generation.forced_s",
            f"forced `opgen generate --force --out TMP` (all ops and products, fresh process, median of {reps})",
            med(forced) if forced else None,
            "s",
            FORCED_TARGET,
            note=files_note,
        ),
        Figure(
            "generation.no_change_s",
            f"no-change `opgen generate --out TMP` (same TMP, fresh process, median of {reps})",
            med(no_change) if no_change else None,
            "s",
            NO_CHANGE_TARGET,
            note=nc_note,
        ),
        Figure("generation.python_bare_s", "fresh process: bare interpreter (`python -c pass`)", med(bare), "s"),
        Figure(
            "generation.python_imports_s",
            f"fresh process: interpreter + `{_IMPORTS}` (what every `opgen generate` imports)",
            med(imports),
            "s",
            note="costliest (one -X importtime run; codegen modules self time, packages cumulative): "
            + ", ".join(f"{r['module']} {r['us'] / 1e3:.0f} ms" for r in slowest),
        ),
    ]
    if probe:
        used_ms = probe["used_s"]["median"] * 1e3
        sec.figures.append(
            Figure(
                "generation.clang_format_start_ms",
                f"start of the clang-format codegen runs once per C++ file (`{probe['used']} --version`)",
                used_ms,
                "ms",
            )
        )
        if "native_s" in probe:
            sec.figures.append(
                Figure(
                    "generation.clang_format_native_start_ms",
                    f"start of the clang-format package's native executable (`{probe['native']} --version`)",
                    probe["native_s"]["median"] * 1e3,
                    "ms",
                    note="the same program without the Python console-script wrapper"
                    if probe["native"] != probe["used"]
                    else "codegen already runs the native executable",
                )
            )
    if sync:
        stale = sync["differ"] + sync["missing_in_generated"] + sync["only_in_generated"]
        sec.figures.append(
            Figure(
                "generation.generated_stale_files",
                "files of the checked-out generated/ that differ from a forced generation (sections 3-4 build it)",
                float(len(stale)),
                "files",
                note=", ".join(stale[:6]),
            )
        )
    forced_fig, no_change_fig = sec.figures[0], sec.figures[1]
    if inproc and forced_fig.met is False:
        forced_fig.why = forced_why(forced_fig.value or 0.0, med(imports), inproc, probe)
    if no_change_fig.met is False:
        no_change_fig.why = no_change_why(no_change_fig.value or 0.0, med(bare), med(imports), inproc, slowest)
    if not inproc:
        return sec
    if forced:
        n_ops = len(inproc["ops"])
        sec.figures.append(
            Figure(
                "generation.forced_per_op_ms",
                f"forced `opgen generate` per op (median wall time ÷ {n_ops} ops, start-up included)",
                med(forced) * 1e3 / n_ops if n_ops else None,
                "ms",
            )
        )
    sec.figures += [
        Figure(
            "generation.inproc_forced_ms",
            "in-process: run_generate(force=True) into an empty directory",
            _m(inproc["run_generate_forced_ms"]),
            "ms",
        ),
        Figure(
            "generation.inproc_no_change_ms",
            "in-process: run_generate() with nothing changed",
            _m(inproc["run_generate_no_change_ms"]),
            "ms",
        ),
        Figure(
            "generation.load_specs_ms",
            "in-process: load and validate every spec and the catalogue (uncached load_specs)",
            _m(inproc["load_specs_ms"]),
            "ms",
        ),
        Figure(
            "generation.render_all_ms",
            "in-process: render_all (every op, one Jinja2 environment, nothing written)",
            _m(inproc["render_all_ms"]),
            "ms",
        ),
    ]
    for name, op in sorted(inproc["ops"].items()):
        render_ms = _m(op["render_ms"])
        fmt_ms = _m(op["clang_format_ms"])
        share = ""
        if render_ms and fmt_ms is not None:
            share = f"{fmt_ms:.0f} ms ({fmt_ms / render_ms:.0%}) in {op['clang_format_calls']} clang-format processes"
        sec.figures.append(
            Figure(
                f"generation.op.{name}.render_ms",
                f"in-process render_op {name} ({op['files']} files, {len(op['products'])} products, fresh environment)",
                render_ms,
                "ms",
                note=share,
            )
        )
    return sec


def forced_why(forced_s: float, imports_s: float, inproc: dict[str, Any], probe: dict[str, Any]) -> str:
    """Why the forced run misses its target and what would reach it, from the measurements: the clang-format
    share of the per-op renders, the start of one clang-format process (the wrapper codegen runs and the
    native executable), interpreter start-up plus imports (all seconds)."""
    ops = inproc.get("ops", {})
    fmt_s = sum((_m(op["clang_format_ms"]) or 0.0) for op in ops.values()) / 1e3
    calls = sum(int(op["clang_format_calls"]) for op in ops.values())
    render_s = sum((_m(op["render_ms"]) or 0.0) for op in ops.values()) / 1e3
    parts = [
        f"{calls} clang-format processes take {fmt_s:.2f} s of the {render_s:.2f} s the ops' renders take in "
        f"process; start-up (interpreter + imports) is {imports_s:.2f} s of the {forced_s:.2f} s"
    ]
    used_s = (probe.get("used_s") or {}).get("median")
    native_s = (probe.get("native_s") or {}).get("median")
    if used_s is not None and native_s is not None and probe.get("native") != probe.get("used") and calls:
        # the wrapper's start-up cannot save more than the time measured in clang-format
        saved = min(calls * max(used_s - native_s, 0.0), fmt_s)
        estimate = max(forced_s - saved, imports_s)
        parts.append(
            f"starting `{Path(probe['used']).name}` takes {used_s * 1e3:.0f} ms (a Python console-script wrapper), "
            f"the package's native executable {native_s * 1e3:.1f} ms: running the native executable would save "
            f"≈ {saved:.2f} s (estimate: forced run ≈ {estimate:.2f} s, "
            + ("within" if FORCED_TARGET.met(estimate) else "still above")
            + f" the {FORCED_TARGET.threshold:g} s target)"
        )
        if not FORCED_TARGET.met(estimate):
            parts.append("formatting every file in one clang-format process, or in parallel, would be needed too")
    else:
        parts.append(
            "fewer clang-format processes (one process for every file, or several in parallel) would cut most of it"
        )
    return "; ".join(parts)


def no_change_why(
    no_change_s: float, bare_s: float, imports_s: float, inproc: dict[str, Any], slowest: list[dict[str, Any]]
) -> str:
    """Why the no-change run misses its target and what would reach it: the share of imports (interpreter plus
    imports minus the bare interpreter, seconds), the in-process no-change work (milliseconds) and the
    costliest imports."""
    work = _m(inproc.get("run_generate_no_change_ms", {})) if inproc else None
    heavy = ", ".join(f"{r['module']} {r['us'] / 1e3:.0f} ms" for r in slowest[:4])
    import_s = max(imports_s - bare_s, 0.0)
    text = f"imports take {import_s:.2f} s of the {no_change_s:.2f} s (bare interpreter {bare_s:.2f} s)"
    if import_s > no_change_s:
        text += " (measured apart, under load: the two figures are not consistent)"
    if work is not None:
        text += f"; the no-change work itself {work:.0f} ms in process"
    text += f"; costliest imports: {heavy}"
    estimate = max(no_change_s - import_s, bare_s + (work or 0.0) / 1e3)
    if NO_CHANGE_TARGET.met(estimate):
        return (
            text + f"; deciding 'nothing changed' before importing Jinja2 and the spec machinery would reach it "
            f"(estimate ≈ {estimate:.2f} s)"
        )
    return text + f"; even without the imports it would take ≈ {estimate:.2f} s: the no-change work must shrink"


def _m(s: dict[str, Any]) -> float | None:
    value = s.get("median")
    return None if value is None else float(value)


if __name__ == "__main__":
    sys.exit(f"{__file__} is one section of the benchmark suite: run `python bench/run.py --only generation`")
