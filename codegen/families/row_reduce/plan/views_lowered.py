"""The kernel view's lowered formulas: one C++ function per reduction argument, output and per-row
value (on scalars and on lines), and the switches that dispatch over them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.families.row_reduce.plan.lowering import LoweredFunction
from codegen.families.row_reduce.plan.program import Program


@dataclass(frozen=True)
class LoweredView:
    """A lowered formula the kernel defines: ``what`` it computes, its function ``fn``, and ``returns``: it
    returns the line holding its value (a reduction argument on scalars)."""

    what: str
    fn: LoweredFunction
    returns: bool = False


@dataclass(frozen=True)
class DispatchView:
    """A switch over lowered functions: its C++ ``name``, the ``fns`` by index, ``scalar`` (they take the
    row's scalars and the kept subformulas) or not (they take lines), ``returns`` (the line of the value)."""

    name: str
    fns: tuple[str, ...]
    scalar: bool
    returns: bool = False


def lowered_views(prog: Program, reds: list[str], outs: list[str]) -> dict[str, Any]:
    """The kernel view's lowered functions (``scalar_fns``, ``line_fns``) and their ``dispatchers``."""
    c = prog.code
    row_fns = [LoweredView(f"per-row value {j}", f) for j, f in enumerate(c["rows"])]
    scalar = [
        LoweredView(f"argument of reduction {k} ({n})", f, True) for k, (n, f) in enumerate(zip(reds, c["args_scalar"]))
    ]
    scalar += [LoweredView(f"output {n}", f) for n, f in zip(outs, c["outs_scalar"], strict=True)]
    line = [LoweredView(f"argument of reduction {k} ({n})", f) for k, (n, f) in enumerate(zip(reds, c["args_line"]))]
    line += [LoweredView(f"output {n}", f) for n, f in zip(outs, c["outs_line"], strict=True)]
    line += row_fns
    return {
        "scalar_fns": scalar,
        "line_fns": line,
        "dispatchers": [
            DispatchView("EvalArg", tuple(f.name for f in c["args_scalar"]), True, True),
            DispatchView("EvalOut", tuple(f.name for f in c["outs_scalar"]), True),
            DispatchView("EvalArgLine", tuple(f.name for f in c["args_line"]), False),
            DispatchView("EvalOutLine", tuple(f.name for f in c["outs_line"]), False),
            DispatchView("EvalRow", tuple(f.name for f in c["rows"]), False),
        ],
    }
