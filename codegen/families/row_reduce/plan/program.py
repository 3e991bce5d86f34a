"""The planned computation of a row-reduce op: its reductions in passes and levels (the online
max-sum combine), the per-row values, the subformulas kept per element, and the lowered formulas."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codegen.families.row_reduce.compute import Step
from codegen.families.row_reduce.plan.formulas import ROW_PREFIX, hoist, reads_input, red_uses, substitute
from codegen.families.row_reduce.plan.lowering import Lowering
from codegen.families.row_reduce.plan.tensors import compute_of
from codegen.spec.expr import Binary, Call, Expr, Name, Num, Unary, to_source, walk
from codegen.spec.model import OpSpec

#: The kind of a per-row input's entry among the reductions (``compute.per_row``): its value is loaded from GM
#: into the row's scalar slot, never reduced.
LOAD = "load"


@dataclass(frozen=True)
class Reduction:
    """One reduction step: ``kind`` over ``arg`` (elementwise steps substituted), in pass ``pass_index`` (the
    passes over a chunked row); ``online`` is the index of the reduction of the same pass it is combined with
    chunk by chunk (:func:`_online_max`: a max it rescales with; :func:`_online_mean`: a mean its squares are
    centred on), or -1; ``level`` orders the reductions of a tile of whole rows (0: its argument reads no
    reduction; else one more than the deepest reduction it reads, so a sum that rescales with its max comes
    after that max). A per-row input is an entry of kind :data:`LOAD`, pass and level -1 (loaded before every
    pass and level)."""

    name: str
    kind: str
    arg: Expr
    pass_index: int
    online: int
    level: int = 0


@dataclass(frozen=True)
class RowValue:
    """A per-row value: a formula over reductions, float attrs and literals (no input) that an element formula
    reads, computed once per row (``1 / s``, ``log(s)``, ``1 / sqrt(ms + epsilon)``). ``pass_index`` / ``level``:
    those of the deepest reduction it reads (it is evaluated right after it)."""

    expr: Expr
    pass_index: int
    level: int


@dataclass(frozen=True)
class Program:
    """The planned computation: reductions (in order), outputs' formulas, per-row values, passes, the lowered
    C++ (``code``: see :func:`program`)."""

    reductions: tuple[Reduction, ...]
    outputs: tuple[tuple[str, Expr], ...]
    pass_num: int
    temps: int
    code: dict[str, Any] = field(default_factory=dict)
    row_values: tuple[RowValue, ...] = ()
    saves: tuple[str, ...] = ()

    @property
    def level_num(self) -> int:
        """Levels of a tile of whole rows (one vector-to-scalar wait each)."""
        return max(r.level for r in self.reductions) + 1


def program(spec: OpSpec) -> Program:
    """The passes and the lowered formulas of a row-reduce op (see :mod:`codegen.families.row_reduce.plan`).

    ``code`` holds, per reduction (``args*``) and output (``outs*``), the formula lowered twice: with the
    reductions and per-row values as scalars (``scalar``: a tile of whole rows or a chunk of one row, mode 0)
    and as lines (``line``: a block of inner positions, mode 1); ``direct`` the input a reduction reads as
    is (-1: its argument is computed), ``out_direct`` the input an output is as is (-1: computed); ``rows`` the
    per-row values lowered on lines; ``*_uses`` the scalar
    slots (reductions ``k``, then per-row values ``NUM_RED + j``) each reads; ``row_out`` the C++ scalar of an
    output with one value per row ("" for the others)."""
    comp = compute_of(spec)
    outputs = set(spec.output_names)
    inputs = set(spec.input_names) - set(comp.per_row_inputs)  # per element (a per-row input is a row scalar)
    env: dict[str, Expr] = {}
    reds: dict[str, int] = {}
    reductions: list[Reduction] = []
    for n in comp.per_row_inputs:  # loaded, not reduced: ready before every reduction (pass and level -1)
        reds[n] = len(reductions)
        reductions.append(Reduction(n, LOAD, Name(n), -1, -1, -1))
    outs: list[tuple[str, Expr]] = []
    for s in comp.steps:
        e = substitute(s.expr, env)
        if s.reduction is not None:
            uses = red_uses(e, reds)
            pass_index = max((reductions[u].pass_index + 1 for u in uses), default=0)
            level = max((reductions[u].level + 1 for u in uses), default=0)
            online = -1
            online_of = max(_online_max(s, e, reds, reductions), _online_mean(s, e, reds, reductions))
            if online_of >= 0:
                pass_index, online = reductions[online_of].pass_index, online_of
            reds[s.name] = len(reductions)
            reductions.append(Reduction(s.name, s.reduction, e, pass_index, online, level))
        elif s.name in outputs:
            outs.append((s.name, e))
            env[s.name] = e  # a later step may read an output (rstd in y = x * rstd * gamma)
        else:
            env[s.name] = e
    order = {n: i for i, n in enumerate(spec.output_names)}
    outs.sort(key=lambda o: order[o[0]])
    values: list[Expr] = []
    args = [hoist(r.arg, inputs, values) for r in reductions]
    hoisted = [hoist(e, inputs, values) if reads_input(e, inputs) else e for _, e in outs]
    row_out = [hoist(e, inputs, values) if not reads_input(e, inputs) else None for _, e in outs]
    row_values = []
    for v in values:
        used = red_uses(v, reds)
        row_values.append(
            RowValue(
                v,
                max([0, *(reductions[u].pass_index for u in used)]),
                max([0, *(reductions[u].level for u in used)]),
            )
        )
    lowering = Lowering(spec, reds, len(values))
    saves = _saves(args, [e for e, r in zip(hoisted, row_out, strict=True) if r is None], inputs)
    keep = {s: j for j, s in enumerate(saves)}
    # a tile of whole rows evaluates the arguments level by level, in reduction order within a level, row by row:
    # a subformula an earlier argument kept is read by the later ones, never computed again
    args_scalar: dict[int, Any] = {}
    ready: frozenset[int] = frozenset()
    for k in sorted(range(len(args)), key=lambda k: (reductions[k].level, k)):
        fn = lowering.function(f"EvalArg{k}", args[k], scalar=True, saves=keep, returns=True, ready=ready)
        args_scalar[k] = fn
        ready |= fn.kept
    code: dict[str, Any] = {
        "args_scalar": [args_scalar[k] for k in range(len(args))],
        "args_line": [lowering.function(f"EvalArgLine{k}", a, scalar=False) for k, a in enumerate(args)],
        "direct": [
            lowering.inputs.get(a.id, -1) if isinstance(a, Name) and r.kind != LOAD else -1
            for a, r in zip(args, reductions, strict=True)
        ],
        "outs_scalar": [
            lowering.function(f"EvalOut{k}", e, scalar=True, saves=keep, out=True) for k, e in enumerate(hoisted)
        ],
        "outs_line": [lowering.function(f"EvalOutLine{k}", e, scalar=False) for k, e in enumerate(hoisted)],
        "out_direct": [lowering.inputs.get(e.id, -1) if isinstance(e, Name) else -1 for e in hoisted],
        "rows": [lowering.function(f"EvalRow{j}", v, scalar=False) for j, v in enumerate(values)],
        "row_out": [lowering.scalar(e) if e is not None else "" for e in row_out],
    }
    nred = len(reductions)

    def slots(e: Expr) -> list[int]:
        names = {x.id for x in walk(e) if isinstance(x, Name)}
        found = {reds[n] for n in names if n in reds}
        found |= {nred + int(n[len(ROW_PREFIX) :]) for n in names if n.startswith(ROW_PREFIX)}
        return sorted(found)

    code["arg_uses"] = [slots(a) for a in args]
    code["out_uses"] = [slots(e) if r is None else slots(r) for e, r in zip(hoisted, row_out, strict=True)]
    code["row_uses"] = [sorted(red_uses(v, reds)) for v in values]
    return Program(
        reductions=tuple(reductions),
        outputs=tuple(outs),
        pass_num=max(r.pass_index for r in reductions) + 1,
        temps=lowering.max_slots,
        code=code,
        row_values=tuple(row_values),
        saves=tuple(saves),
    )


def _saves(args: list[Expr], outs: list[Expr], inputs: set[str]) -> list[str]:
    """The subformulas (their text) an output computes that a reduction's argument computes too (``exp(self -
    m)`` of softmax, ``self - m`` of log-softmax): kept in UB per element when rows fit whole, so the output
    reads them instead of computing them again. Largest first; a bare input is never one."""
    in_args = {str(x) for a in args for x in walk(a) if not isinstance(x, (Name, Num)) and reads_input(x, inputs)}
    found: list[str] = []

    def go(e: Expr) -> None:
        if str(e) in in_args:
            if str(e) not in found:
                found.append(str(e))
            return
        if isinstance(e, Binary):
            go(e.left)
            go(e.right)
        elif isinstance(e, Unary):
            go(e.operand)
        elif isinstance(e, Call):
            for a in e.args:
                go(a)

    for o in outs:
        go(o)
    return found


def _online_max(step: Step, arg: Expr, reds: dict[str, int], done: list[Reduction]) -> int:
    """The index of the max reduction ``m`` when ``step`` is ``sum(exp(a - m))`` with ``a`` reading only
    reductions of earlier passes than ``m``; else -1."""
    if step.reduction != "sum" or not isinstance(arg, Call) or arg.func != "exp":
        return -1
    inner = arg.args[0]
    if not (isinstance(inner, Binary) and inner.op == "-" and isinstance(inner.right, Name)):
        return -1
    m = reds.get(inner.right.id, -1)
    if m < 0 or done[m].kind != "max":
        return -1
    if any(done[u].pass_index >= done[m].pass_index for u in red_uses(inner.left, reds)):
        return -1
    return m


def _online_mean(step: Step, arg: Expr, reds: dict[str, int], done: list[Reduction]) -> int:
    """The index of the mean reduction ``m`` when ``step`` is ``sum`` or ``mean`` of ``(a - m) * (a - m)`` with
    ``a`` the argument ``m`` averages, reading only reductions of earlier passes than ``m``; else -1.

    Such a step shares ``m``'s pass: chunk by chunk, ``m`` is kept as the running mean of the elements seen
    and the step's sum of squares is centred on it, the earlier chunks' sum moved to the new mean with
    ``Σ (a - m_new)² = Σ (a - m_old)² + seen · (m_old - m_new)²`` (the parallel form of the variance
    update, Chan, Golub and LeVeque, "Algorithms for computing the sample variance", 1983), so a row cut
    into chunks is read once for both."""
    if step.reduction not in ("sum", "mean") or not isinstance(arg, Binary) or arg.op != "*":
        return -1
    if to_source(arg.left) != to_source(arg.right):
        return -1
    diff = arg.left
    if not (isinstance(diff, Binary) and diff.op == "-" and isinstance(diff.right, Name)):
        return -1
    m = reds.get(diff.right.id, -1)
    if m < 0 or done[m].kind != "mean" or to_source(done[m].arg) != to_source(diff.left):
        return -1
    if any(done[u].pass_index >= done[m].pass_index for u in red_uses(diff.left, reds)):
        return -1
    return m
