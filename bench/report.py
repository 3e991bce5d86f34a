"""The Markdown report of a benchmark run: the machine, one section per benchmark, then every target's verdict.

The summary parts (:func:`targets_table`, :func:`missed_lines`, :func:`readme_block`) work on the JSON form
of the figures (``Figure.to_json()``), so the manual's benchmark block can be rendered again from a result file.
"""

from __future__ import annotations

import re
from typing import Any

from bench.common import Section, fmt_num

#: Context figures (no target) the manual's benchmark block shows next to the judged ones (regular expressions on ids).
README_CONTEXT = (
    r"generation\.forced_per_op_ms",
    r"check\.\w+_s",
    r"check\.\w+_cases_per_s",
    r"emulator\.\w+\.in_order\.call_vs_(reference|torch)",
    r"emulator\.edb\.concurrent\.call_vs_reference",
)
_TRAFFIC_ID = re.compile(r"traffic\.(?P<op>\w+)\.(?P<variant>\w+)\.(?P<product>\w+)\.(?P<size>\w+)\.(?P<metric>\w+)")


def value_text(f: dict[str, Any]) -> str:
    """The figure's value with its unit (``ERROR`` when it could not be measured)."""
    value, unit = f.get("value"), f.get("unit", "")
    if value is None:
        return "ERROR" if f.get("error") else "-"
    if unit == "%":
        return f"{fmt_num(value)}%"
    if unit == "x":
        return f"{fmt_num(value)}×"
    return f"{fmt_num(value)} {unit}".rstrip()


def target_text(f: dict[str, Any]) -> str:
    """The target as text (``%`` and ``×`` attached, other units after a space), or empty."""
    target = f.get("target")
    if not target:
        return ""
    unit = f.get("unit", "")
    bound = f"{target['op']} {target['threshold']:g}"
    if unit == "%":
        return bound + "%"
    if unit == "x":
        return bound + "×"
    return f"{bound} {unit}".rstrip()


def verdict(f: dict[str, Any]) -> str:
    """``✅ met``, ``❌ MISSED`` or empty (no target or no value)."""
    met = f.get("met")
    if met is None:
        return ""
    return "✅ met" if met else "❌ MISSED"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def figure_table(figures: list[dict[str, Any]]) -> list[str]:
    """A Markdown table of figures (JSON form): measure, value, target, verdict, note."""
    lines = ["| measure | value | target | verdict | note |", "|---|---:|---|---|---|"]
    for f in figures:
        note = f.get("note") or f.get("error") or ""
        lines.append(f"| {_cell(f['label'])} | {value_text(f)} | {target_text(f)} | {verdict(f)} | {_cell(note)} |")
    return lines


def targets_table(figures: list[dict[str, Any]]) -> list[str]:
    """One Markdown table of every figure with a target (JSON form): measure, value, target, verdict."""
    lines = ["| measure | value | target | verdict |", "|---|---:|---|---|"]
    for f in figures:
        if f.get("target"):
            lines.append(f"| {_cell(f['label'])} | {value_text(f)} | {target_text(f)} | {verdict(f)} |")
    return lines


def missed_lines(figures: list[dict[str, Any]]) -> list[str]:
    """One bullet per missed target: the figure, its value against the target, why and what would reach it."""
    lines = []
    for f in figures:
        if f.get("met") is False:
            why = f.get("why") or "(the section measured nothing that explains it)"
            lines.append(f"- **{_cell(f['label'])}**: {value_text(f)}, target {target_text(f)}. {why}.")
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
    """The whole report as Markdown text: the machine, each section, then one table of every target and, for
    each missed one, why and what would reach it."""
    out = ["# ascend-opgen benchmarks", "", *machine_lines(meta), ""]
    for sec in sections:
        load = sec.load or {}
        out += [
            f"## {sec.title}",
            "",
            f"_section wall time {fmt_num(sec.seconds)} s; load average while it ran: mean "
            f"{fmt_num(load.get('mean'))}, max {fmt_num(load.get('max'))} on {meta['machine'].get('nproc')} CPUs_",
            "",
        ]
        if sec.markdown:
            out += [*sec.markdown, ""]
        else:
            out += [*figure_table([f.to_json() for f in sec.figures]), ""]
        if sec.appendix:
            out += [*sec.appendix, ""]
        for err in sec.errors:
            out += ["**ERROR**:", "", "```", err.strip(), "```", ""]
    judged = [f.to_json() for sec in sections for f in sec.figures if f.target is not None]
    missed = missed_lines(judged)
    out += [
        "## Targets",
        "",
        f"{sum(f['met'] is True for f in judged)} met, {len(missed)} missed, "
        f"{sum(f['met'] is None for f in judged)} not measured.",
        "",
        *targets_table(judged),
        "",
    ]
    if missed:
        out += ["Missed targets: why, and what would reach them (from this run's measurements):", "", *missed, ""]
    errors = sum(len(s.errors) for s in sections)
    if errors:
        out += [f"{errors} error(s) above: some figures could not be measured.", ""]
    return "\n".join(out)


def _traffic_table(figures: dict[str, dict[str, Any]]) -> list[str]:
    """Data movement at the large shape, judged variants: one row per op, variant and product."""
    rows: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    for fid, f in figures.items():
        m = _TRAFFIC_ID.fullmatch(fid)
        if m and f.get("target") and m["metric"] in ("gm_ratio", "balance", "ub_pct", "dma_mean_bytes"):
            rows.setdefault((m["op"], m["variant"].replace("_", " "), m["product"]), {})[m["metric"]] = f
    if not rows:
        return []
    first = next(iter(rows.values()))

    def head(metric: str, name: str) -> str:
        f = first.get(metric)
        return f"{name} ({target_text(f)})" if f else name

    lines = [
        f"| op (large shape) | variant | product | GM bytes ÷ minimum | {head('balance', 'balance')} "
        f"| {head('ub_pct', 'UB high-water')} | mean DMA bytes |",
        "|---|---|---|---:|---:|---:|---:|",
    ]

    def cell(f: dict[str, Any] | None, with_target: bool = False) -> str:
        if f is None:
            return "-"
        met = f.get("met")
        mark = "" if met is None else (" ✅" if met else " ❌")
        return value_text(f) + (f" ({target_text(f)})" if with_target else "") + mark

    for (op, variant, product), figs in sorted(rows.items()):
        lines.append(
            f"| {op} | {variant} | {product} | {cell(figs.get('gm_ratio'), True)} | {cell(figs.get('balance'))} "
            f"| {cell(figs.get('ub_pct'))} | {cell(figs.get('dma_mean_bytes'), True)} |"
        )
    return lines


def readme_block(data: dict[str, Any]) -> list[str]:
    """The figures of the manual's benchmark page (docs/benchmarks.md) from a result file (the JSON
    ``bench/run.py`` writes): where and when they were measured, one table of the targets and key context
    figures, the large-shape data movement per op and product, and why each missed target is missed."""
    meta, figures = data["meta"], data["figures"]
    m = meta["machine"]
    load = meta.get("load", {})
    when = str(meta.get("started", "?"))[:10]
    lines = [
        f"Measured {when} on commit `{m.get('git_commit')}`"
        + (f" (+{m['git_modified_files']} modified files)" if m.get("git_modified_files") else "")
        + f", {m.get('nproc')} × {m.get('cpu_model')}, Python {m.get('python')}, NumPy {m.get('numpy')}, "
        f"PyTorch {m.get('torch')}; load average mean {fmt_num(load.get('mean'))}, max {fmt_num(load.get('max'))}"
        f" while the suite ran; `{meta.get('command')}`"
        + (" — **QUICK run, not a measurement to quote**" if meta.get("quick") else "")
        + ".",
        "",
    ]
    earlier: dict[str, list[str]] = {}
    for name, run in (meta.get("earlier") or {}).items():
        modified = f" (+{run['git_modified_files']} modified files)" if run.get("git_modified_files") else ""
        source = (
            f"{str(run.get('started', '?'))[:10]} on commit `{run.get('git_commit')}`{modified}, `{run.get('command')}`"
        )
        earlier.setdefault(source, []).append(name)
    if earlier:  # an --only run merged into an earlier result file: the first line covers only its sections
        ran = ", ".join(n for n in data["sections"] if n not in meta["earlier"])
        lines[0] = lines[0][:-1] + f" (sections {ran})."
        lines[1:1] = [f"Sections {', '.join(names)}: measured {source}." for source, names in earlier.items()]
    context = [re.compile(p) for p in README_CONTEXT]
    shown = [
        f
        for fid, f in figures.items()
        if not fid.startswith("traffic.") and (f.get("target") or any(c.fullmatch(fid) for c in context))
    ]
    shown += [f for fid, f in figures.items() if fid == "traffic.ub_pct_max_all"]
    lines += ["| measure | value | target | verdict |", "|---|---:|---|---|"]
    lines += [f"| {_cell(f['label'])} | {value_text(f)} | {target_text(f)} | {verdict(f)} |" for f in shown]
    traffic = _traffic_table(figures)
    if traffic:
        lines += ["", *traffic]
    missed = missed_lines(list(figures.values()))
    if missed:
        lines += ["", "Missed targets, why, and what would reach them:", "", *missed]
    return lines
