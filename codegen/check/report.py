"""Terminal output of ``opgen check``: a progress line per (op, product) and the results table."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from codegen.check.driver import CaseResult
from codegen.check.legend import LEGEND
from codegen.check.results import NO_MESSAGE, covered_name


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


#: Most characters of a failure message the terminal shows (the ``--json`` and ``--junit`` files hold all).
MAX_TERMINAL_MESSAGE = 4000


def terminal_text(message: str) -> str:
    """A failure message as the terminal shows it: control characters other than newline and tab (an ESC
    that would start a terminal escape sequence, a carriage return that would overwrite the line) written as
    their Python escapes (``\\x1b``), and a message longer than :data:`MAX_TERMINAL_MESSAGE` characters cut
    there with a note of how much more the result files hold."""
    cut = message[:MAX_TERMINAL_MESSAGE]
    if not cut.isprintable():
        cut = "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] if ord(c) < 0x10000 else c for c in cut)
    if len(message) > MAX_TERMINAL_MESSAGE:
        more = len(message) - MAX_TERMINAL_MESSAGE
        cut += f" ... ({more} more characters: the --json and --junit files hold the whole message)"
    return cut


COLUMNS = ("op", "product", "dtype", "shape / case", "result", "max abs err", "bound", "max ULP err", "bound from")


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf"
    return f"{x:.3g}"


def _row_values(rs: list[CaseResult]) -> tuple[str, str, str, str]:
    """max abs err, the bound at that case's worst element, max ULP err and the bound sources of ``rs``."""
    compared = [r for r in rs if r.bound_source] or rs
    worst = max(compared, key=lambda r: r.max_abs_err)
    sources = sorted({r.bound_source for r in rs if r.bound_source})
    shown_bound = _fmt(worst.bound) if worst.bound_source else "-"
    return (
        _fmt(worst.max_abs_err),
        shown_bound,
        _fmt(max(r.max_ulp_err for r in rs)),
        ", ".join(sources) or "-",
    )


def product_label(r: CaseResult) -> str:
    """The product cell of a result: its product, with ``(ran as P)`` when product P's run covered it."""
    return f"{r.product} (ran as {r.covered_by})" if r.covered_by else r.product


def print_table(results: list[CaseResult], verbose: bool = False) -> None:
    """Prints op, product, dtype, shape, case, result, max abs error, the bound accepted there, max ULP error
    and where the bound came from (:data:`COLUMNS`), then :data:`LEGEND`; failures always, every case with
    ``verbose``, else one summary row per (op, product, dtype)."""
    console = Console(width=200)
    table = Table(show_lines=False)
    for col in COLUMNS:
        table.add_column(col)
    if verbose:
        for r in results:
            row = (r.op, product_label(r), r.dtype, escape(r.name), "pass" if r.passed else "FAIL")
            table.add_row(*row, *_row_values([r]))
    else:
        groups: dict[tuple[str, str, str], list[CaseResult]] = {}
        for r in results:
            groups.setdefault((r.op, product_label(r), r.dtype), []).append(r)
        for (op, product, dtype), rs in groups.items():
            ok = sum(r.passed for r in rs)
            table.add_row(
                op,
                product,
                dtype,
                f"{len(rs)} case" if len(rs) == 1 else f"{len(rs)} cases",
                "pass" if ok == len(rs) else f"FAIL {len(rs) - ok}",
                *_row_values(rs),
            )
    console.print(table)
    console.print(LEGEND, highlight=False, markup=False)
    for ident, text in failure_lines(results):
        # the ident and message are data (a fault's "[pipe race]", a shape "[4, 8]"), never rich markup
        message = terminal_text(text) if text.strip() else NO_MESSAGE
        console.print(f"[red]FAIL[/red] {escape(ident)}: {escape(message)}", markup=True, highlight=False)


def failure_lines(results: list[CaseResult]) -> list[tuple[str, str]]:
    """``(ident, message)`` of each failed result, in order, for the terminal: failures of one op with the
    same ident and message on several products once the product's name is set aside (one cause, such as a
    reference that does not import or a build error, fails every product's job alike) are one line, the
    first's ident followed by ``(also on P2, P3)``. The result files keep every failure."""
    groups: dict[tuple[str, str, str], list[CaseResult]] = {}
    for r in results:
        if not r.passed:
            key = (r.op, covered_name(r.ident, r.product, "\0"), covered_name(r.message, r.product, "\0"))
            groups.setdefault(key, []).append(r)
    lines = []
    for rs in groups.values():
        others = [r.product for r in rs[1:]]
        lines.append((rs[0].ident + (f" (also on {', '.join(others)})" if others else ""), rs[0].message))
    return lines
