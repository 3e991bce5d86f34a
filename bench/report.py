"""The Markdown report of a benchmark run: the machine, one section per benchmark, then every target's verdict."""

from __future__ import annotations

from typing import Any

from bench.common import Figure, Section, fmt_num


def value_text(f: Figure) -> str:
    """The figure's value with its unit (``ERROR`` when it could not be measured)."""
    if f.value is None:
        return "ERROR" if f.error else "-"
    unit = f.unit
    if unit == "%":
        return f"{fmt_num(f.value)}%"
    if unit == "x":
        return f"{fmt_num(f.value)}×"
    return f"{fmt_num(f.value)} {unit}".rstrip()


def target_text(f: Figure) -> str:
    """The target as text (``%`` and ``×`` attached), or empty."""
    if f.target is None:
        return ""
    if f.unit == "%":
        return f"{f.target.op} {f.target.threshold:g}%"
    if f.unit == "x":
        return f"{f.target.op} {f.target.threshold:g}×"
    return f.target.text(f.unit)


def verdict(f: Figure) -> str:
    """``✅ met``, ``❌ MISSED`` or empty (no target or no value)."""
    if f.met is None:
        return ""
    return "✅ met" if f.met else "❌ MISSED"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def figure_table(figures: list[Figure]) -> list[str]:
    """A Markdown table: measure, value, target, verdict, note."""
    lines = ["| measure | value | target | verdict | note |", "|---|---:|---|---|---|"]
    for f in figures:
        lines.append(
            f"| {_cell(f.label)} | {value_text(f)} | {target_text(f)} | {verdict(f)} | {_cell(f.note or f.error)} |"
        )
    return lines


def machine_lines(meta: dict[str, Any]) -> list[str]:
    """The machine block: CPU, versions, load while the suite ran, commit, command."""
    m = meta["machine"]
    load = meta.get("load", {})
    start = meta.get("loadavg_start")
    end = meta.get("loadavg_end")
    rows = [
        ("CPUs available (nproc) / online", f"{m.get('nproc')} / {m.get('cpu_count')}"),
        ("CPU model", m.get("cpu_model")),
        ("memory", f"{m.get('memory_gb')} GB"),
        ("platform", m.get("platform")),
        ("python / numpy / torch", f"{m.get('python')} / {m.get('numpy')} / {m.get('torch')}"),
        ("compiler", m.get("gxx")),
        ("commit", f"{m.get('git_commit')} ({m.get('git_modified_files')} tracked files modified)"),
        ("codegen imported from", meta.get("codegen_file")),
        (
            "load average (1 min)",
            f"start {fmt_num(start)}, end {fmt_num(end)}, sampled mean {fmt_num(load.get('mean'))}, "
            f"max {fmt_num(load.get('max'))} ({load.get('count', 0)} samples)",
        ),
        ("command", f"`{meta.get('command')}`"),
        ("mode", "QUICK (not for quoting)" if meta.get("quick") else "full"),
        ("suite wall time", f"{fmt_num(meta.get('seconds'))} s"),
    ]
    lines = ["| | |", "|---|---|"]
    lines += [f"| {k} | {_cell(str(v))} |" for k, v in rows]
    return lines


def render(meta: dict[str, Any], sections: list[Section]) -> str:
    """The whole report as Markdown text."""
    out = ["# ascend-opgen benchmarks", "", *machine_lines(meta), ""]
    for sec in sections:
        out += [f"## {sec.title}", "", f"_section wall time {fmt_num(sec.seconds)} s_", ""]
        if sec.markdown:
            out += [*sec.markdown, ""]
            judged = [f for f in sec.figures if f.target is not None]
            if judged:
                out += ["Targets:", "", *figure_table(judged), ""]
        else:
            out += [*figure_table(sec.figures), ""]
        if sec.appendix:
            out += [*sec.appendix, ""]
        for err in sec.errors:
            out += ["**ERROR**:", "", "```", err.strip(), "```", ""]
    all_judged = [f for sec in sections for f in sec.figures if f.target is not None]
    missed = [f for f in all_judged if f.met is False]
    unmeasured = [f for f in all_judged if f.met is None]
    out += [
        "## Targets",
        "",
        f"{sum(f.met is True for f in all_judged)} met, {len(missed)} missed, {len(unmeasured)} not measured.",
        "",
    ]
    if missed:
        out += ["Missed:", "", *figure_table(missed), ""]
    errors = sum(len(s.errors) for s in sections)
    if errors:
        out += [f"{errors} error(s) above: some figures could not be measured.", ""]
    return "\n".join(out)
