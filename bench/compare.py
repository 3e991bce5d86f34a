"""Compare two benchmark result files: ``python bench/compare.py A.json B.json [--threshold PCT] [--all]``.

Prints Markdown: what differs between the two runs (commit, machine, load, mode), then every figure present
in both with its value in A and B, B ÷ A, and whether it got better or worse (judged by its target's
direction, or lower-is-better for times and higher-is-better for rates), and the figures only one run has.
Figures whose relative change is below ``--threshold`` percent are hidden unless ``--all`` is given or their
verdict against the target changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

_LOWER_IS_BETTER_UNITS = {"s", "ms", "MB"}
_HIGHER_IS_BETTER_UNITS = {"cases/s"}


def load(path: str) -> dict[str, Any]:
    """Reads a result file written by ``bench/run.py``.

    Raises:
        SystemExit: the file is missing or not a result file.
    """
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or "figures" not in data:
        raise SystemExit(f"{path}: not a bench/run.py result file (no 'figures')")
    return data


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 1000 or abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:.4g}"


def direction(fig: dict[str, Any]) -> int:
    """-1 when lower values are better, +1 when higher are, 0 when unknown."""
    target = fig.get("target")
    if target:
        return -1 if target["op"] in ("<", "<=") else 1
    if fig.get("unit") in _LOWER_IS_BETTER_UNITS:
        return -1
    if fig.get("unit") in _HIGHER_IS_BETTER_UNITS:
        return 1
    return 0


def _verdict(fig: dict[str, Any]) -> str:
    met = fig.get("met")
    return "" if met is None else ("met" if met else "MISSED")


def meta_lines(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """A table of the run metadata that matters for comparing (commit, machine, load, mode)."""
    ma, mb = a.get("meta", {}), b.get("meta", {})
    rows = [
        ("commit", lambda m: f"{m['machine'].get('git_commit')} (+{m['machine'].get('git_modified_files')} modified)"),
        ("started", lambda m: m.get("started")),
        ("nproc / CPU", lambda m: f"{m['machine'].get('nproc')} / {m['machine'].get('cpu_model')}"),
        ("python / numpy", lambda m: f"{m['machine'].get('python')} / {m['machine'].get('numpy')}"),
        ("torch", lambda m: m["machine"].get("torch")),
        ("load mean / max", lambda m: f"{_num(m.get('load', {}).get('mean'))} / {_num(m.get('load', {}).get('max'))}"),
        ("mode", lambda m: "quick" if m.get("quick") else "full"),
    ]
    lines = ["| | A | B |", "|---|---|---|"]
    for name, get in rows:
        try:
            va, vb = str(get(ma)), str(get(mb))
        except (KeyError, TypeError, AttributeError):
            continue
        lines.append(f"| {name} | {va} | {vb} |")
    sa, sb = a.get("sections", {}), b.get("sections", {})
    for sec in [k for k in sa if k in sb]:
        la, lb = sa[sec].get("load") or {}, sb[sec].get("load") or {}
        lines.append(f"| load mean while {sec} ran | {_num(la.get('mean'))} | {_num(lb.get('mean'))} |")
    return lines


def compare(a: dict[str, Any], b: dict[str, Any], threshold_pct: float, show_all: bool) -> list[str]:
    """The Markdown lines comparing result files ``a`` and ``b``."""
    fa, fb = a["figures"], b["figures"]
    lines = ["# Benchmark comparison", "", *meta_lines(a, b), ""]
    lines += [
        "| figure | unit | A | B | B ÷ A | change | target | verdict A → B |",
        "|---|---|---:|---:|---:|---|---|---|",
    ]
    hidden = 0
    for fid in [k for k in fa if k in fb]:
        x, y = fa[fid], fb[fid]
        va, vb = x.get("value"), y.get("value")
        ratio = vb / va if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va else None
        verdict_changed = _verdict(x) != _verdict(y)
        rel = abs(ratio - 1) * 100 if ratio is not None else (0.0 if va == vb else 100.0)
        if not show_all and not verdict_changed and rel < threshold_pct:
            hidden += 1
            continue
        d = direction(y)
        change = ""
        if ratio is not None and ratio != 1 and d:
            change = "better" if (ratio < 1) == (d < 0) else "worse"
        target = y.get("target") or x.get("target")
        target_text = f"{target['op']} {_num(target['threshold'])}" if target else ""
        verdict = f"{_verdict(x)} → {_verdict(y)}" if (x.get("met") is not None or y.get("met") is not None) else ""
        label = str(y.get("label", fid)).replace("|", "\\|")
        lines.append(
            f"| `{fid}`<br>{label} | {y.get('unit', '')} | {_num(va)} | {_num(vb)} | {_num(ratio)} | {change} "
            f"| {target_text} | {verdict} |"
        )
    if hidden:
        lines += [
            "",
            f"{hidden} figure(s) changed by less than {threshold_pct:g}% and are not shown (--all shows them).",
        ]
    only_a = [k for k in fa if k not in fb]
    only_b = [k for k in fb if k not in fa]
    if only_a:
        lines += ["", "Only in A: " + ", ".join(f"`{k}`" for k in only_a)]
    if only_b:
        lines += ["", "Only in B: " + ", ".join(f"`{k}`" for k in only_b)]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line: two result files, optional ``--threshold`` (percent) and ``--all``."""
    p = argparse.ArgumentParser(prog="bench/compare.py", description="Compare two bench/run.py result files.")
    p.add_argument("a", help="the baseline result file (JSON)")
    p.add_argument("b", help="the new result file (JSON)")
    p.add_argument("--threshold", type=float, default=2.0, help="hide changes below this many percent (default 2)")
    p.add_argument("--all", action="store_true", help="show every figure present in both")
    args = p.parse_args(argv)
    a, b = load(args.a), load(args.b)
    if a.get("schema") != b.get("schema"):
        print(f"warning: result schemas differ ({a.get('schema')} vs {b.get('schema')})", file=sys.stderr)
    try:
        print("\n".join(compare(a, b, args.threshold, args.all)), flush=True)
    except BrokenPipeError:  # output piped into head: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
