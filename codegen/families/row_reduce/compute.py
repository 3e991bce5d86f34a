"""The ``compute`` section of the ``row_reduce`` family: its model and its parser.

Every input and output is viewed as ``[outer, R, inner]`` around the reduced dimension named by an int64
attr (negative values count from the end). The section lists named steps in order; a step is either a
reduction along the dimension (``sum(e)``, ``max(e)``, ``mean(e)`` at the top of its formula, giving one value
per row) or an elementwise formula over the inputs, earlier steps, reduced values and float attrs. Every
output is one step::

    compute:
      dim: dim
      steps:
        - m: max(self)
        - s: sum(exp(self - m))
        - out: exp(self - m) / s

Instead of ``dim``, ``rows: <input>`` reduces over the trailing dims: the reduced dims are the last
``<input>.ndim`` dims of every other tensor, flattened to one contiguous row of ``R`` = the product of those
dims; ``<input>`` has exactly their shape and is broadcast over the rows (element ``j`` of a row reads element
``j`` of ``<input>``)::

    compute:
      rows: gamma
      steps:
        - ms: mean(x * x)
        - y: x * gamma / sqrt(ms + epsilon)

``rows`` may list several inputs (``rows: [weight, bias]``): each is broadcast over the rows and has the
row's shape; the first one's rank gives the reduced trailing dims. The first entry may instead be an
``int_array`` attr (``rows: [normalizedShape, weight, bias]``): its length gives the reduced dims and its
values must equal them; every input listed after it may then be optional. A later one may be ``optional`` with a
``default``: when the caller passes null, the kernel reads a row of that value instead (it never reads the
null tensor).

``per_row: [mean, rstd]`` (``rows`` form) names inputs with one value per row (the first input's shape with
the reduced dims set to 1; a forward pass's saved statistics): a formula reads a row's value as a scalar,
as it reads a reduction.

An output of the ``rows`` form may be a column sum, ``colsum(expr)`` (its step's whole formula): ``expr``
summed over every row of the call, one value per element of the row (the output has the row's shape), e.g.
``gradWeight: colsum(dy * (x - m) * rstd)``; no step reads it.

Elementwise functions: ``exp``, ``log``, ``sqrt``; operators ``+ - * /`` and unary minus; float literals;
float and double attrs (read as fp32). All arithmetic is fp32 (16-bit inputs are converted on load, outputs
rounded once on store).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.families.row_reduce import call_rules
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import Binary, Call, Expr, Name, Num, Unary, fp32_constant_message, parse_expr, walk
from codegen.spec.model import DType
from codegen.spec.yaml_reader import YMap, YSeq

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["call_problem", "parse_compute"]

#: The one table of the functions a step may call, each with its role: a reduction along the dim (only as a
#: step's whole formula) or an elementwise function (fp32 vector instructions Exp, Ln, Sqrt). Every list of
#: functions (the error messages' too) comes from here.
FUNCTIONS: Mapping[str, str] = {
    "sum": "reduction",
    "max": "reduction",
    "mean": "reduction",
    "colsum": "column",
    "exp": "elementwise",
    "log": "elementwise",
    "sqrt": "elementwise",
}
#: Reductions along the dim (a step's top-level call).
REDUCTIONS = tuple(f for f, role in FUNCTIONS.items() if role == "reduction")
#: Column reductions: an output's whole formula, summed over every row of the call per element of the row
#: (``rows`` form only).
COLUMNS = tuple(f for f, role in FUNCTIONS.items() if role == "column")
#: Elementwise functions of the formulas.
ELEMENT_FUNCTIONS = tuple(f for f, role in FUNCTIONS.items() if role == "elementwise")
#: The allowed functions as the error messages list them.
ALLOWED_FUNCTIONS_TEXT = (
    f"{', '.join(ELEMENT_FUNCTIONS)} (one argument, anywhere), {', '.join(REDUCTIONS)} "
    f"(one argument, as a step's whole formula) and {', '.join(COLUMNS)} (one argument, as an output's whole "
    "formula, rows form)"
)
#: Dtypes of the family's tensors (fp32 arithmetic).
ROW_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16)


@dataclass(frozen=True)
class Step:
    """One step: ``name = reduction(expr)`` (``reduction`` one of :data:`REDUCTIONS`) or ``name = expr``.

    Attributes:
        name: the step's name (an output's name for output steps).
        reduction: ``sum``, ``max``, ``mean`` or None for an elementwise step.
        expr: the elementwise formula (the reduction's argument for a reduction step).
        loc: the step's entry.
        column: an output summed over the rows (``colsum(expr)``; ``expr`` is the per-element summand): one
            value per element of the row, of the row's shape.
    """

    name: str
    reduction: str | None
    expr: Expr
    loc: SourceLoc
    column: bool = False


@dataclass(frozen=True)
class RowReduceCompute:
    """The compute model of a row-reduce op.

    Attributes:
        dim: the int64 attr naming the reduced dimension ("" when ``rows`` is given).
        steps: the steps in order.
        loc: the ``compute`` entry.
        rows: the input broadcast over the rows whose rank gives the reduced trailing dims, or the int_array
            attr whose length does (``rows_attr``); None: ``dim``.
        row_inputs: every input broadcast over the rows (``rows`` first unless it is the attr; empty: ``dim``).
        rows_attr: ``rows`` when it names an int_array attr, else "".
        per_row_inputs: the inputs with one value per row (``per_row``): of the first input's shape with the
            reduced dims set to 1 (their element count is the rows' count), each row's value a scalar of its
            formulas.
        output_mask: the ``bool_array`` attr ``output_mask`` names (one entry per output, in output order,
            aclnnLayerNormBackward's ``outputMask``), or "": output ``i`` is produced when entry ``i`` is true
            (then it must not be null: 161001); a false entry's output may be null, is neither checked nor
            written (every output is nullable), and a mask of no true entry launches nothing.
    """

    dim: str
    steps: tuple[Step, ...]
    loc: SourceLoc
    rows: str | None = None
    row_inputs: tuple[str, ...] = ()
    rows_attr: str = ""
    per_row_inputs: tuple[str, ...] = ()
    output_mask: str = ""

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: the output shape rule alone gives the first output's shape (``attrs`` unused)."""
        return shape

    def step(self, name: str) -> Step:
        """The step called ``name``.

        Raises:
            KeyError: no such step.
        """
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)


def parse_compute(node: YNode, ctx: ComputeContext) -> RowReduceCompute | None:
    """Parses and checks the ``compute`` section of a row-reduce op.

    Checks: an optional input is one broadcast over the rows after the first ``rows`` names, with a
    ``default``; exactly one of ``dim`` (an int64 attr) and ``rows`` (an input other than the
    first, or a list of distinct ones); every step
    is a one-entry mapping ``name: formula``; names are new (not a tensor or attr) except output names,
    each output is defined exactly once; formulas use only
    inputs, earlier steps, float/double attrs, literals, ``+ - * /``, unary minus, :data:`ELEMENT_FUNCTIONS`
    and, at the top only, one of :data:`REDUCTIONS`; outputs are elementwise steps; tensors use
    :data:`ROW_DTYPES`. Problems are recorded in ``ctx.reader`` at their line.

    Returns:
        The model, or None when the section has an error.
    """
    r = ctx.reader
    m = r.mapping(node, ("steps",), ("dim", "rows", "per_row", "output_mask"))
    if m is None or "steps" not in m:
        return None
    ok = True
    dim_name: str | None = None
    rows_name: str | None = None
    row_names: list[str] | None = []
    if ("dim" in m) == ("rows" in m):
        r.error(
            node,
            "give exactly one of 'dim' (the int64 attr naming the reduced dim) and 'rows' (the input "
            "broadcast over the rows, whose rank is the number of reduced trailing dims)",
        )
        return None
    if "dim" in m:
        dim_name = r.string(m["dim"])
        dim_attr = next((a for a in ctx.attrs if a.name == dim_name), None)
        if dim_name is not None and dim_name not in r.poisoned and (dim_attr is None or dim_attr.type != "int64"):
            r.error(m["dim"], f"'{dim_name}' is not an int64 attr; dim needs the int64 attr naming the reduced dim")
            ok = False
    else:
        row_names = _row_inputs(m["rows"], ctx)
        if row_names is None:
            ok = False
        else:
            rows_name = row_names[0]
    for i, t in enumerate(ctx.inputs):
        if not t.optional:
            continue
        # a null input broadcast over the rows is a line of its default the kernel fills; any other input is
        # checked, made contiguous and read by the kernel, and the first rows input gives the reduced dims
        if row_names and t.name in row_names[1:]:  # after the first entry (an input, or the int_array attr)
            if t.default is None:
                r.errors.append(
                    SpecError(
                        t.loc,
                        f"inputs[{i}].default",
                        f"optional input '{t.name}' needs a default (the value of every element when it is null, "
                        "e.g. 1 for a scale, 0 for a shift)",
                    )
                )
                ok = False
            continue
        r.errors.append(
            SpecError(
                t.loc,
                f"inputs[{i}].optional",
                f"input '{t.name}' is optional; in the row_reduce family only an input broadcast over the rows "
                "after the first one compute.rows names may be (every other input is read by the kernel)",
            )
        )
        ok = False
    per_row = _per_row_inputs(m["per_row"], ctx, row_names or [], "rows" in m) if "per_row" in m else []
    if per_row is None:
        ok, per_row = False, []
    mask = _output_mask(m["output_mask"], ctx) if "output_mask" in m else ""
    if mask is None:
        ok, mask = False, ""
    inputs = {t.name for t in ctx.inputs}
    outputs = [t.name for t in ctx.outputs]
    floats = {a.name for a in ctx.attrs if a.type in ("float", "double")}
    for t in (*ctx.inputs, *ctx.outputs):
        bad = [d.name for d in t.dtypes if d not in ROW_DTYPES]
        if bad:
            r.error(node, f"'{t.name}' has dtypes {', '.join(bad)}; the family supports FLOAT, FLOAT16, BF16")
            ok = False
    items = r.seq(m["steps"])
    if items is None:
        return None
    steps: list[Step] = []
    known: dict[str, bool] = {}  # step name -> is a reduction
    columns: set[str] = set()  # colsum() outputs
    unnamed = False  # a step whose name could not be read: later unknown names may be that step
    for item in items:
        if not isinstance(item, YMap) or len(item.entries) != 1:
            r.error(item, "a step is a one-entry mapping 'name: formula'")
            ok, unnamed = False, True
            continue
        key, value = item.entries[0]
        name = key.value
        if not isinstance(name, str) or not name.isidentifier():
            r.error(key, f"step name {name!r} is not an identifier")
            ok, unnamed = False, True
            continue
        if name in known or name in inputs or (name not in outputs and name in ctx.taken):
            r.error(key, f"step name '{name}' is already used")
            ok = False
            continue
        text = r.string(value)
        if text is None:
            r.poisoned.add(name)
            ok = False
            continue
        try:
            expr = parse_expr(text, value.loc, value.path)
        except SpecError as exc:
            r.errors.append(exc)
            r.poisoned.add(name)
            ok = False
            continue
        reduction = None
        if isinstance(expr, Call) and expr.func in REDUCTIONS:
            if len(expr.args) != 1:
                r.error(value, f"{expr.func}() takes one argument, got {len(expr.args)}")
                r.poisoned.add(name)
                ok = False
                continue
            reduction, expr = expr.func, expr.args[0]
        column = False
        if isinstance(expr, Call) and expr.func in COLUMNS:
            problem = _column_problem(name, expr, outputs, "rows" in m)
            if problem:
                r.error(value, f"step '{name}': {problem}")
                r.poisoned.add(name)
                ok = False
                continue
            column, expr = True, expr.args[0]
        problem = _check_expr(expr, inputs, known, floats, r.poisoned, any_name=unnamed)
        if not problem and column and not any(isinstance(e, Name) and e.id in inputs for e in walk(expr)):
            problem = "colsum() sums a formula of the row's elements over the rows; this one reads no input"
        read_columns = sorted({e.id for e in walk(expr) if isinstance(e, Name) and e.id in columns})
        if not problem and read_columns:
            problem = (
                f"'{read_columns[0]}' is a colsum() output (one value per element of the row, summed over every "
                "row); no step may read it"
            )
        if problem:
            r.error(value, f"step '{name}': {problem}")
            r.poisoned.add(name)  # reported: later uses of the step and a missing output are not errors again
            ok = False
            continue
        if column:
            columns.add(name)
        if name in outputs and reduction is not None:
            r.error(value, f"output '{name}' must be an elementwise step, not a {reduction}() reduction")
            ok = False
            continue
        known[name] = reduction is not None
        steps.append(Step(name, reduction, expr, item.loc, column))
    for o in outputs:
        if o not in known and o not in r.poisoned:
            r.error(node, f"output '{o}' has no step; add '- {o}: <formula>' to compute.steps")
            ok = False
    if ok and not any(s.reduction for s in steps):  # after a bad step its intent is unknown: no follow-on
        r.error(node, "the steps have no reduction (sum, max or mean); use the elementwise family")
        ok = False
    if not ok or (dim_name is None and rows_name is None):
        return None
    arrays = {a.name for a in ctx.attrs if a.type == "int_array"}
    rows_attr = rows_name if rows_name in arrays else ""
    return RowReduceCompute(
        dim=dim_name or "",
        steps=tuple(steps),
        loc=node.loc,
        rows=rows_name,
        row_inputs=tuple(n for n in row_names or () if n != rows_attr),
        rows_attr=rows_attr or "",
        per_row_inputs=tuple(per_row),
        output_mask=mask,
    )


def _output_mask(node: YNode, ctx: ComputeContext) -> str | None:
    """The attr ``compute.output_mask`` names: a ``bool_array`` of fixed length, one entry per output; no
    output may also be ``nullable`` (the mask makes each one so). None after an error (recorded at its line)."""
    r = ctx.reader
    name = r.string(node)
    if name is None:
        return None
    attr = next((a for a in ctx.attrs if a.name == name), None)
    n = len(ctx.outputs)
    if attr is None or attr.type != "bool_array":
        r.error(node, f"'{name}' is not a bool_array attr; output_mask names the bool_array with one entry per output")
        return None
    if attr.length != (n, n):
        r.error(node, f"output_mask '{name}' must have the fixed length {n} (one entry per output), not {attr.length}")
        return None
    marked = [t.name for t in ctx.outputs if t.nullable]
    if marked:
        r.error(
            node,
            f"output_mask makes every output nullable (null when its entry is false); drop nullable from "
            f"{', '.join(marked)}",
        )
        return None
    return name


def _per_row_inputs(node: YNode, ctx: ComputeContext, row_names: list[str], rows_form: bool) -> list[str] | None:
    """The names ``compute.per_row`` lists (inputs with one value per row, read as a row's scalar): each a
    required input after the first, not broadcast over the rows, named once; ``rows`` form only. None after
    an error (recorded at its line)."""
    r = ctx.reader
    items = r.seq(node) if isinstance(node, YSeq) else [node]
    if items is None:
        return None
    if not rows_form:
        r.error(node, "per_row needs the rows form (compute.rows): a per-row input has one value per row")
        return None
    names = [t.name for t in ctx.inputs]
    found: list[str] = []
    for item in items:
        name = r.string(item)
        if name is None:
            return None
        if name not in names[1:] or name in row_names:
            r.error(
                item,
                f"'{name}' is not an input after the first outside rows; per_row names the inputs with one value "
                f"per row (inputs: {', '.join(names)})",
            )
            return None
        if name in found:
            r.error(item, f"'{name}' is named twice in per_row")
            return None
        if next(t for t in ctx.inputs if t.name == name).optional:
            r.error(item, f"per-row input '{name}' is optional; a per-row input is required")
            return None
        found.append(name)
    return found


def _row_inputs(node: YNode, ctx: ComputeContext) -> list[str] | None:
    """The names ``compute.rows`` lists (one name or a non-empty list of distinct names), each an input after
    the first, the first entry possibly an int_array attr; None after an error (recorded at its line)."""
    r = ctx.reader
    names = [t.name for t in ctx.inputs]
    arrays = [a.name for a in ctx.attrs if a.type == "int_array"]
    items = r.seq(node) if isinstance(node, YSeq) else [node]
    if items is None:
        return None
    if not items:
        r.error(node, "rows is an empty list; name the inputs broadcast over the rows")
        return None
    found: list[str] = []
    for item in items:
        name = r.string(item)
        if name is None:
            return None
        if name in arrays and not found:
            found.append(name)
            continue
        if name not in names[1:]:
            r.error(
                item,
                f"'{name}' is not an input after the first; rows names the inputs broadcast over the rows "
                f"(inputs: {', '.join(names)}), after an int_array attr giving the reduced dims if any",
            )
            return None
        if name in found:
            r.error(item, f"'{name}' is named twice in rows")
            return None
        found.append(name)
    return found


def _column_problem(name: str, expr: Call, outputs: list[str], rows_form: bool) -> str:
    """'' when ``name: colsum(...)`` may be a step (an output of the ``rows`` form, one argument); else the
    problem."""
    if len(expr.args) != 1:
        return f"{expr.func}() takes one argument, got {len(expr.args)}"
    if name not in outputs:
        return f"{expr.func}() gives an output (one value per element of the row); '{name}' is not an output"
    if not rows_form:
        return (
            f"{expr.func}() needs the rows form (compute.rows): its output has the shape of the reduced trailing dims"
        )
    return ""


def _check_expr(
    expr: Expr,
    inputs: set[str],
    known: dict[str, bool],
    floats: set[str],
    reported: set[str] | frozenset[str] = frozenset(),
    any_name: bool = False,
) -> str:
    """'' when ``expr`` uses only what an elementwise formula of the family may use; else the problem. Names in
    ``reported`` (steps, tensors or attrs whose definition was already reported as wrong), and with
    ``any_name`` (after a step whose name could not be read) every name, are accepted."""
    for e in walk(expr):
        if isinstance(e, Name):
            if any_name or e.id in reported:
                continue
            if e.id not in inputs and e.id not in known and e.id not in floats:
                allowed = ", ".join([*sorted(inputs), *known, *sorted(floats)])
                return f"'{e.id}' is not an input, an earlier step or a float attr; allowed: {allowed}"
        elif isinstance(e, Call):
            if e.func in REDUCTIONS:
                return f"{e.func}() may only be the whole formula of a step (one reduction per step)"
            if e.func in COLUMNS:
                return f"{e.func}() may only be the whole formula of an output step"
            if e.func not in FUNCTIONS:
                return f"unknown function {e.func}(); allowed: {ALLOWED_FUNCTIONS_TEXT}"
            if len(e.args) != 1:
                return f"{e.func}() takes one argument, got {len(e.args)}"
        elif isinstance(e, Binary):
            if e.op not in "+-*/" or len(e.op) != 1:
                return f"operator '{e.op}' is not allowed; allowed: + - * /"
        elif isinstance(e, Unary):
            if e.op != "-":
                return f"unary '{e.op}' is not allowed; only unary minus"
        elif isinstance(e, Num):
            if isinstance(e.value, bool):
                return "boolean literals are not allowed"
        else:
            return f"'{e}' is not allowed in a row formula (arithmetic, {', '.join(ELEMENT_FUNCTIONS)} only)"
    return fp32_constant_message(expr) or ""


def call_problem(
    compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 shape rules the call breaks, ``(input or attr, why)``, or None
    (:func:`codegen.families.row_reduce.call_rules.call_problem`; any other compute object: None)."""
    if not isinstance(compute, RowReduceCompute):
        return None
    return call_rules.call_problem(compute, shapes, attrs)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.row_reduce import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
    _call_problem: contract.ComputeCallProblem = _self
