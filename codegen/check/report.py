"""Terminal output of ``opgen check``: a progress line per (op, product) and the results table."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from codegen.check.driver import CaseResult


def progress_printer(total: int) -> Callable[[Any, list[CaseResult]], None]:
    """A callback printing ``[k/total] op product: n passed, m failed`` as each job finishes (to stderr)."""
    done = [0]

    def show(job: Any, results: list[CaseResult]) -> None:
        done[0] += 1
        failed = sum(not r.passed for r in results)
        print(
            f"[{done[0]}/{total}] {job.spec_snake} {job.product}: {len(results) - failed} passed, {failed} failed",
            file=sys.stderr,
            flush=True,
        )

    return show


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf"
    return f"{x:.3g}"


def print_table(results: list[CaseResult], verbose: bool = False) -> None:
    """Prints op, product, dtype, shape, case, result, max abs error and max ULP error; failures always,
    every case with ``verbose``, else one summary row per (op, product, dtype)."""
    console = Console(width=200)
    table = Table(show_lines=False)
    for col in ("op", "product", "dtype", "shape / case", "result", "max abs err", "max ULP err"):
        table.add_column(col)
    if verbose:
        rows = results
        for r in rows:
            table.add_row(
                r.op,
                r.product,
                r.dtype,
                f"{r.name}",
                "pass" if r.passed else "FAIL",
                _fmt(r.max_abs_err),
                _fmt(r.max_ulp_err),
            )
    else:
        groups: dict[tuple[str, str, str], list[CaseResult]] = {}
        for r in results:
            groups.setdefault((r.op, r.product, r.dtype), []).append(r)
        for (op, product, dtype), rs in groups.items():
            ok = sum(r.passed for r in rs)
            table.add_row(
                op,
                product,
                dtype,
                f"{len(rs)} cases",
                "pass" if ok == len(rs) else f"FAIL {len(rs) - ok}",
                _fmt(max(r.max_abs_err for r in rs)),
                _fmt(max(r.max_ulp_err for r in rs)),
            )
    console.print(table)
    for r in results:
        if not r.passed:
            console.print(f"[red]FAIL[/red] {r.ident}: {r.message}", markup=True, highlight=False)
