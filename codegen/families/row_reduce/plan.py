"""Planning for the row_reduce family: the passes over a row, the lowering of the formulas to AscendC vector
instructions, the tiling rule and the view model.

Every tensor is viewed as ``[outer, R, inner]`` around the reduced dim (``R`` its length; ``inner`` the
product of the dims after it). A *row* is the ``R`` elements sharing ``(outer, inner)`` indices.

Two layouts (tiling field ``mode``):

- **last dim** (``inner == 1``, mode 0): rows are contiguous. When a row fits UB (``Rs = AlignUp(R, 16)``
  elements per line slot), a tile holds ``tileRows`` whole rows, loaded once; each row is reduced with the
  count form of ``ReduceMax``/``ReduceSum`` (fp32, with the documented ``sharedTmpBuffer``; on products
  without fp32 reduce instructions, Ascend910 and Ascend310P, by halving with ``Max``/``Add`` down to 64
  elements and finishing on the scalar unit). When it does not fit, the row is cut into ``chunkNum`` chunks
  of ``chunkLen`` elements (a multiple of 64) and every reduction pass reads the chunks once more.
- **strided** (``inner > 1``, mode 1): a task is one ``outer`` index and a block of ``blockWidth`` inner
  positions (a multiple of 16). Its ``R`` lines of ``blockWidth`` elements are reduced with vector ``Max``/
  ``Add`` line after line in a fixed order; when ``R`` lines do not fit UB they are cut into chunks of
  ``tileRows`` lines.

Passes: a reduction step is evaluated in the first pass after every reduction it reads; a ``sum`` of
``exp(a - m)`` where ``m`` is a ``max`` of the same pass is evaluated in ``m``'s pass with the online
combine ``s = s * exp(m_old - m_new) + sum(exp(a - m_new))``, so softmax-type ops read their input twice
when a row is cut into chunks (one reduction pass, one output pass) and once when rows fit UB. ``mean`` is
a sum multiplied by ``1 / R``. Elementwise steps that are not outputs are substituted into their users.

Trailing rows (``compute.rows: <input>``): the reduced dims are the last ``<input>.ndim`` dims, flattened
to one contiguous row of ``R`` elements (mode 0 always; ``outer`` the product of the leading dims). That input
has the row's shape and is broadcast over the rows: it is loaded once per core when rows fit UB (one line
slot every row reads) and chunk by chunk (at the chunk's offset inside the row) when they do not; it costs
line bytes, not tile bytes.

Lowering: a subformula that reads no input is a per-row value (``log(s)``; a per-row divisor becomes a
reciprocal per row and a multiply), computed once per row; in mode 0 the reductions and per-row values of a
tile's rows sit in 32-byte row slots and the element formulas read them as scalars (``Adds``/``Muls``) after
one vector-to-scalar wait per level (:attr:`Reduction.level`) of a tile; in mode 1 they are lines. A
reduction of a bare input reads its line directly; fp32 inputs and outputs are computed on in their queue
buffers. When rows fit whole, a subformula an output shares with a reduction's argument (:func:`_saves`) is
kept per element from the reduction pass (``saveBytes`` per tile element) and read by the output. Tile
queues get the spec's ``tiling.buffer_num`` buffers where UB allows (else 1), and a tile of contiguous rows is
one DMA per tensor.

Float and double attrs reach the kernel as ``float`` tiling fields ``attr<k>`` (the device attr read with
``GetAttrPointer<float>``).

Cores: the tasks (rows in mode 0, (outer, inner block) pairs in mode 1) are split evenly over
``min(coreNum, tasks)`` cores, the first ``tasksFormerNum`` taking one more; a row is never split across
cores, so every result is computed in one fixed order (deterministic).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from codegen.families.row_reduce.compute import RowReduceCompute, Step
from codegen.plan.common import (
    DtypeGroup,
    KindView,
    L0Attr,
    L0HeaderView,
    OpViews,
    ParamRow,
    ProductSupportRow,
    SignatureParam,
    StatusRow,
    TensorCheck,
    TilingField,
    TilingFieldRow,
    UtInferCase,
    arch_condition,
    common_view,
    dtype_groups,
    format_rule_text,
    l0_constant_attr,
    op_views,
    ops_nn_view,
    spec_products,
    status_row,
    tiling_field_views,
    ut_attr_value,
    ut_case_name,
    ut_device_attrs,
    ut_infer_case,
    ut_tensor,
    ut_tiling_view,
)
from codegen.plan.constraints import ConstraintChecks, constraint_view
from codegen.spec.errors import SpecError
from codegen.spec.expr import Binary, Call, Expr, Name, Num, Unary, walk
from codegen.spec.model import Catalogue, DType, DtypeCombo, OpSpec, Product
from codegen.types import ACLNN_STATUS_CODES, ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, AclnnStatus

__all__ = ["build_views", "validate"]

#: Elements a line slot is aligned to (32 bytes of a 16-bit dtype; 64 bytes of fp32).
LINE_ALIGN = 16
#: fp32 elements per 256-byte repeat: chunks of a row are a multiple of it.
CHUNK_ALIGN = 64
#: fp32 elements of the reduce work buffer (``sharedTmpBuffer`` of ReduceMax/ReduceSum, count form).
WORK_ELEMS = 1024
#: Most bytes a DataCopyPad block may move (``blockLen`` is a uint32 of bytes; kept far below).
MAX_LINE_BYTES = 1 << 30
#: NpuArchs whose ReduceSum/ReduceMax take half only (asc-devkit docs ReduceSum.md / ReduceMax.md: Atlas
#: training series products support half; emulated in runtime/include/opgen_rt/device/reduce.h): fp32 rows are
#: reduced there by halving with Max/Add and finishing on the scalar unit.
FP32_REDUCE_MISSING_ARCHS = (1001,)
#: NpuArchs with DataCacheCleanAndInvalid on GM (asc-devkit impl/basic_api/kernel_reg.h implements it for 2201,
#: 3002, 3003, 3113, 3510, 5102; the form without DcciDst also exists on the Atlas inference series, 2002;
#: hiascend atlasascendc_api_07_0177): where a product without DataCopyPad has it, a kernel writes back the
#: scalar cache lines of a partial block; elsewhere (Ascend910, an NpuArch the header does not know) it cannot.
DCCI_ARCHS = (2002, 2201, 3002, 3003, 3113, 3510, 5102)
MODE_LAST = 0
MODE_STRIDED = 1
KIND_CODES = {"max": 0, "sum": 1, "mean": 2}

TILING_FIELDS: tuple[TilingField, ...] = (
    TilingField("mode", "int64_t", "0: reduced dim is the last (rows contiguous); 1: strided (inner > 1)", "mode"),
    TilingField("outerNum", "int64_t", "product of the dims before the reduced one", "outerNum"),
    TilingField("reduceLen", "int64_t", "R: length of the reduced dim", "reduceLen"),
    TilingField("innerNum", "int64_t", "product of the dims after the reduced one", "innerNum"),
    TilingField(
        "tileRows", "int64_t", "mode 0: whole rows per tile (1 when chunked); mode 1: lines per chunk", "tileRows"
    ),
    TilingField("chunkLen", "int64_t", "mode 0: elements of a row per chunk (R when it fits)", "chunkLen"),
    TilingField("chunkNum", "int64_t", "chunks per row (1: the row fits UB and is read once)", "chunkNum"),
    TilingField("lineStride", "int64_t", "fp32 elements between line slots in UB", "lineStride"),
    TilingField(
        "blockWidth", "int64_t", "mode 1: inner positions per task (a multiple of 16); mode 0: 1", "blockWidth"
    ),
    TilingField("taskNum", "int64_t", "tasks: rows (mode 0) or outer x inner blocks (mode 1)", "taskNum"),
    TilingField("tasksPerCore", "int64_t", "tasks of a core", "taskNum / usedCores"),
    TilingField("tasksFormerNum", "int64_t", "cores that take one task more", "taskNum % usedCores"),
    TilingField("tileElems", "int64_t", "elements of a tile buffer (inputs and outputs)", "tileElems"),
    TilingField("lineElems", "int64_t", "fp32 elements of a line buffer (temporaries, reductions)", "lineElems"),
    TilingField("bufferNum", "int64_t", "buffers of each tile queue (2: double buffering)", "bufferNum"),
)


def compute_of(spec: OpSpec) -> RowReduceCompute:
    """The spec's compute model.

    Raises:
        TypeError: the spec is not of the row_reduce family.
    """
    if not isinstance(spec.compute, RowReduceCompute):
        raise TypeError(f"{spec.op}: compute is {type(spec.compute).__name__}, not RowReduceCompute")
    return spec.compute


def row_dtypes(spec: OpSpec) -> list[DType]:
    """Dtypes of the first input in spec order, each once (the dtypes the value cases and explain select)."""
    return list(dict.fromkeys(c.dtype(spec.inputs[0].name) for c in combos(spec)))


def combos(spec: OpSpec) -> list[DtypeCombo]:
    """The dtype combinations of the op's tensors, one tiling key each (the key is the position): the spec's
    ``dtype_combos``, or one per dtype of the first input with every tensor of that dtype."""
    if spec.dtype_combos:
        return list(spec.dtype_combos)
    names = [t.name for t in (*spec.inputs, *spec.outputs)]
    return [DtypeCombo(tuple((n, d) for n in names), spec.products) for d in spec.inputs[0].dtypes]


def default_combo(spec: OpSpec, dtype: DType, product: Product | None = None) -> DtypeCombo:
    """The first combination whose first input is ``dtype`` (allowed on ``product`` when given).

    Raises:
        ValueError: no such combination.
    """
    first = spec.inputs[0].name
    for c in combos(spec):
        if c.dtype(first) is dtype and (product is None or c.allowed_on(product)):
            return c
    raise ValueError(f"{spec.op} takes {', '.join(d.name for d in row_dtypes(spec))}; got {dtype.name}")


def row_outputs(spec: OpSpec) -> list[str]:
    """The outputs with one value per row (their formula reads no input, only reductions, float attrs and
    literals): of the first input's shape with the reduced dims set to 1, written once per row."""
    prog_outs = {n: e for n, e in _output_formulas(spec)}
    inputs = set(spec.input_names)
    return [n for n in spec.output_names if not any(isinstance(x, Name) and x.id in inputs for x in walk(prog_outs[n]))]


def _output_formulas(spec: OpSpec) -> list[tuple[str, Expr]]:
    """Each output's formula with the elementwise steps (outputs included) it reads substituted."""
    env: dict[str, Expr] = {}
    outs: list[tuple[str, Expr]] = []
    for st in compute_of(spec).steps:
        e = _substitute(st.expr, env)
        if st.reduction is None:
            env[st.name] = e
            if st.name in spec.output_names:
                outs.append((st.name, e))
    return outs


def row_inputs(spec: OpSpec) -> list[str]:
    """The inputs broadcast over the rows (``compute.rows``; empty for the ``dim`` form)."""
    comp = compute_of(spec)
    return [comp.rows] if comp.rows else []


def float_attrs_of(spec: OpSpec) -> list[str]:
    """The float and double attrs (spec order): the kernel reads them as fp32 tiling fields ``attr<k>``."""
    return [a.name for a in spec.attrs if a.type in ("float", "double")]


def tiling_fields(spec: OpSpec) -> tuple[TilingField, ...]:
    """:data:`TILING_FIELDS` and one ``float`` field ``attr<k>`` per float attr of ``spec``."""
    extra = tuple(
        TilingField(f"attr{k}", "float", f"float attr {name} (fp32)", f"attr{k}")
        for k, name in enumerate(float_attrs_of(spec))
    )
    return TILING_FIELDS + extra


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


# ------------------------------------------------------------------------------------------ the program


@dataclass(frozen=True)
class Reduction:
    """One reduction step: ``kind`` over ``arg`` (elementwise steps substituted), in pass ``pass_index`` (the
    passes over a chunked row); ``online_max`` is the index of the max it rescales with (online combine) or
    -1; ``level`` orders the reductions of a tile of whole rows (0: its argument reads no reduction; else one
    more than the deepest reduction it reads, so a sum that rescales with its max comes after that max)."""

    name: str
    kind: str
    arg: Expr
    pass_index: int
    online_max: int
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


def _substitute(expr: Expr, env: dict[str, Expr]) -> Expr:
    if isinstance(expr, Name):
        return env.get(expr.id, expr)
    if isinstance(expr, Unary):
        return Unary(expr.op, _substitute(expr.operand, env))
    if isinstance(expr, Binary):
        return Binary(expr.op, _substitute(expr.left, env), _substitute(expr.right, env))
    if isinstance(expr, Call):
        return Call(expr.func, tuple(_substitute(a, env) for a in expr.args))
    return expr


def _red_uses(expr: Expr, reds: dict[str, int]) -> set[int]:
    return {reds[e.id] for e in walk(expr) if isinstance(e, Name) and e.id in reds}


#: Name prefix of a per-row value inside a hoisted formula (not an identifier a spec may use: it starts with
#: an underscore pair and a digit follows).
_ROW_PREFIX = "__row"


def _reads_input(expr: Expr, inputs: set[str]) -> bool:
    return any(isinstance(e, Name) and e.id in inputs for e in walk(expr))


def _hoist(expr: Expr, inputs: set[str], values: list[Expr]) -> Expr:
    """``expr`` with every largest subformula that reads no input and is not a bare name or literal replaced by
    ``__row<j>`` (``values[j]`` is that subformula; equal subformulas share one ``j``), and ``a / b`` with a
    per-row ``b`` rewritten ``a * (1 / b)`` (one reciprocal per row, one multiply per element)."""

    def value(e: Expr) -> Expr:
        if isinstance(e, (Name, Num)):
            return e
        text = str(e)
        for j, v in enumerate(values):
            if str(v) == text:
                return Name(f"{_ROW_PREFIX}{j}")
        values.append(e)
        return Name(f"{_ROW_PREFIX}{len(values) - 1}")

    def go(e: Expr) -> Expr:
        if not _reads_input(e, inputs):
            return value(e)
        if isinstance(e, Binary):
            if e.op == "/" and not _reads_input(e.right, inputs):
                return Binary("*", go(e.left), value(Binary("/", Num(1.0), e.right)))
            return Binary(e.op, go(e.left), go(e.right))
        if isinstance(e, Unary):
            return Unary(e.op, go(e.operand))
        if isinstance(e, Call):
            return Call(e.func, tuple(go(a) for a in e.args))
        return e

    return go(expr)


def program(spec: OpSpec) -> Program:
    """The passes and the lowered formulas of a row-reduce op (see the module doc).

    ``code`` holds, per reduction (``args*``) and output (``outs*``), the formula lowered twice: with the
    reductions and per-row values as scalars (``scalar``: a tile of whole rows or a chunk of one row, mode 0)
    and as lines (``line``: a block of inner positions, mode 1); ``direct`` the input a reduction reads as
    is (-1: its argument is computed); ``rows`` the per-row values lowered on lines; ``*_uses`` the scalar
    slots (reductions ``k``, then per-row values ``NUM_RED + j``) each reads; ``row_out`` the C++ scalar of an
    output with one value per row ("" for the others)."""
    comp = compute_of(spec)
    outputs = set(spec.output_names)
    inputs = set(spec.input_names)
    env: dict[str, Expr] = {}
    reds: dict[str, int] = {}
    reductions: list[Reduction] = []
    outs: list[tuple[str, Expr]] = []
    for s in comp.steps:
        e = _substitute(s.expr, env)
        if s.reduction is not None:
            uses = _red_uses(e, reds)
            pass_index = max((reductions[u].pass_index + 1 for u in uses), default=0)
            level = max((reductions[u].level + 1 for u in uses), default=0)
            online = -1
            online_of = _online_max(s, e, reds, reductions)
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
    args = [_hoist(r.arg, inputs, values) for r in reductions]
    hoisted = [_hoist(e, inputs, values) if _reads_input(e, inputs) else e for _, e in outs]
    row_out = [_hoist(e, inputs, values) if not _reads_input(e, inputs) else None for _, e in outs]
    row_values = []
    for v in values:
        used = _red_uses(v, reds)
        row_values.append(
            RowValue(
                v,
                max((reductions[u].pass_index for u in used), default=0),
                max((reductions[u].level for u in used), default=0),
            )
        )
    lowering = _Lowering(spec, reds, len(values))
    saves = _saves(args, [e for e, r in zip(hoisted, row_out, strict=True) if r is None], inputs)
    keep = {s: j for j, s in enumerate(saves)}
    code: dict[str, Any] = {
        "args_scalar": [
            lowering.function(f"EvalArg{k}", a, scalar=True, saves=keep, returns=True) for k, a in enumerate(args)
        ],
        "args_line": [lowering.function(f"EvalArgLine{k}", a, scalar=False) for k, a in enumerate(args)],
        "direct": [lowering.inputs.get(a.id, -1) if isinstance(a, Name) else -1 for a in args],
        "outs_scalar": [
            lowering.function(f"EvalOut{k}", e, scalar=True, saves=keep, out=True) for k, e in enumerate(hoisted)
        ],
        "outs_line": [lowering.function(f"EvalOutLine{k}", e, scalar=False) for k, e in enumerate(hoisted)],
        "rows": [lowering.function(f"EvalRow{j}", v, scalar=False) for j, v in enumerate(values)],
        "row_out": [lowering.scalar(e) if e is not None else "" for e in row_out],
    }
    nred = len(reductions)

    def slots(e: Expr) -> list[int]:
        names = {x.id for x in walk(e) if isinstance(x, Name)}
        found = {reds[n] for n in names if n in reds}
        found |= {nred + int(n[len(_ROW_PREFIX) :]) for n in names if n.startswith(_ROW_PREFIX)}
        return sorted(found)

    code["arg_uses"] = [slots(a) for a in args]
    code["out_uses"] = [slots(e) if r is None else slots(r) for e, r in zip(hoisted, row_out, strict=True)]
    code["row_uses"] = [sorted(_red_uses(v, reds)) for v in values]
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
    in_args = {str(x) for a in args for x in walk(a) if not isinstance(x, (Name, Num)) and _reads_input(x, inputs)}
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
    if any(done[u].pass_index >= done[m].pass_index for u in _red_uses(inner.left, reds)):
        return -1
    return m


@dataclass(frozen=True)
class LoweredFunction:
    """A formula lowered to AscendC count-form calls: the C++ function ``name``, its body ``lines`` (one
    call each, on fp32 lines of ``n`` elements) and the formula's ``source`` text."""

    name: str
    lines: tuple[str, ...]
    source: str


_BINARY_CALLS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_UNARY_CALLS = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt"}


class _Lowering:
    """Lowers an fp32 formula to AscendC count-form vector calls on line buffers.

    Operands: inputs ``ins[i]`` (fp32 lines); reductions and per-row values (``__row<j>``) either as scalars
    ``sc[k]`` / ``sc[NUM_RED + j]`` (``scalar=True``) or as lines ``reds[k]`` / ``rows[j]``; float attrs
    ``attrs[j]`` and literals as scalars. An operation of a line and a scalar is one ``Adds``/``Muls`` (a
    difference ``s - a`` two: ``Muls`` by -1 and ``Adds``); a scalar alone is ``Duplicate``d only where a
    line must hold it (``s / a``, a formula that is one scalar). Every inner node gets a temporary
    ``tmp[slot]`` (freed when its parent is computed); the root writes ``dst``.
    """

    def __init__(self, spec: OpSpec, reds: dict[str, int], row_values: int) -> None:
        self.inputs = {n: i for i, n in enumerate(spec.input_names)}
        self.attrs = {a.name: i for i, a in enumerate(a for a in spec.attrs if a.type in ("float", "double"))}
        self.reds = reds
        self.row_values = row_values
        self.max_slots = 0

    def scalar(self, e: Expr, as_scalar: bool = True) -> str:
        """The C++ float of a scalar operand ``e`` (a reduction, a per-row value, a float attr, a literal), or
        "" when ``e`` is a line in this lowering."""
        if isinstance(e, Num):
            return f"static_cast<float>({float(e.value)!r})"
        if isinstance(e, Name):
            if e.id in self.attrs:
                return f"attrs[{self.attrs[e.id]}]"
            if as_scalar and e.id in self.reds:
                return f"sc[{self.reds[e.id]}]"
            if as_scalar and e.id.startswith(_ROW_PREFIX):
                return f"sc[NUM_RED + {e.id[len(_ROW_PREFIX) :]}]"
        return ""

    def function(
        self,
        name: str,
        expr: Expr,
        scalar: bool,
        saves: Mapping[str, int] | None = None,
        out: bool = False,
        returns: bool = False,
    ) -> LoweredFunction:
        """``expr`` lowered into ``dst``. With ``saves`` (subformula text -> index ``j``; scalar lowering of a
        tile of whole rows): a reduction argument (``out`` False) writes subformula ``j`` into ``save[j]`` when
        ``keep``, and returns the line holding its value; an output reads ``save[j]`` when ``keep`` instead of
        computing it. ``returns``: the function ends returning the line that holds the value."""
        lines: list[str] = []
        used: list[int] = []
        saves = saves or {}
        declared: dict[int, str] = {}  # kept subformulas already lowered: the line holding each
        busy: set[int] = set()  # kept subformulas being lowered

        def alloc() -> int:
            s = next(i for i in range(len(used) + 1) if i not in used)
            used.append(s)
            self.max_slots = max(self.max_slots, len(used))
            return s

        def free(s: int | None) -> None:
            if s is not None:
                used.remove(s)

        def line(e: Expr) -> str:
            """The line an operand name is, or ""."""
            if isinstance(e, Name):
                if e.id in self.inputs:
                    return f"ins[{self.inputs[e.id]}]"
                if not scalar and e.id in self.reds:
                    return f"reds[{self.reds[e.id]}]"
                if not scalar and e.id.startswith(_ROW_PREFIX):
                    return f"rows[{e.id[len(_ROW_PREFIX) :]}]"
            return ""

        def go(e: Expr, dst: str | None) -> tuple[str, int | None]:
            """Lowers a line-valued ``e`` (into ``dst``, else a temporary unless ``e`` is a line already)."""
            if dst is None and line(e):
                return line(e), None
            j = saves.get(str(e), -1)
            if j >= 0 and j in declared and dst is None:
                return declared[j], None
            if j >= 0 and j not in declared and j not in busy:
                return kept(e, j, dst)
            slot = None
            if dst is None:
                slot = alloc()
                dst = f"tmp[{slot}]"
            if line(e):  # a formula that is one line (an output equal to an input): a copy
                lines.append(f"Adds({dst}, {line(e)}, 0.0f, n);")
            elif self.scalar(e, scalar):
                lines.append(f"Duplicate({dst}, {self.scalar(e, scalar)}, n);")
            elif isinstance(e, Unary):
                a, sa = go(e.operand, None)
                lines.append(f"Muls({dst}, {a}, -1.0f, n);")
                free(sa)
            elif isinstance(e, Binary):
                ls, rs = self.scalar(e.left, scalar), self.scalar(e.right, scalar)
                if rs and e.op in "+-*/":
                    a, sa = go(e.left, None)
                    if e.op == "+":
                        lines.append(f"Adds({dst}, {a}, {rs}, n);")
                    elif e.op == "-":
                        lines.append(f"Adds({dst}, {a}, -({rs}), n);")
                    elif e.op == "*":
                        lines.append(f"Muls({dst}, {a}, {rs}, n);")
                    else:
                        lines.append(f"Muls({dst}, {a}, 1.0f / ({rs}), n);")
                    free(sa)
                elif ls and e.op in "+*":
                    b, sb = go(e.right, None)
                    lines.append(f"{'Adds' if e.op == '+' else 'Muls'}({dst}, {b}, {ls}, n);")
                    free(sb)
                elif ls and e.op == "-":
                    b, sb = go(e.right, None)
                    lines.append(f"Muls({dst}, {b}, -1.0f, n);")
                    lines.append(f"Adds({dst}, {dst}, {ls}, n);")
                    free(sb)
                else:
                    a, sa = go(e.left, None)
                    b, sb = go(e.right, None)
                    lines.append(f"{_BINARY_CALLS[e.op]}({dst}, {a}, {b}, n);")
                    free(sa)
                    free(sb)
            elif isinstance(e, Call):
                a, sa = go(e.args[0], None)
                lines.append(f"{_UNARY_CALLS[e.func]}({dst}, {a}, n);")
                free(sa)
            return dst, slot

        def kept(e: Expr, j: int, dst: str | None) -> tuple[str, int | None]:
            """Subformula ``j`` of the saves: written to ``save[j]`` (an argument) or read from it (an output)
            when ``keep``, else computed into ``dst`` or a temporary."""
            slot = alloc() if dst is None else None
            into = dst if dst is not None else f"tmp[{slot}]"
            var = f"kept{j}"
            busy.add(j)
            if not out:
                lines.append(f"const LocalTensor<float> {var} = keep ? save[{j}] : {into};")
                go(e, var)
            elif dst is not None:  # the whole output
                lines.append("if (keep) {")
                lines.append(f"Adds({dst}, save[{j}], 0.0f, n);")
                lines.append("} else {")
                go(e, dst)
                lines.append("}")
                var = dst
            else:
                lines.append(f"LocalTensor<float> {var} = save[{j}];")
                lines.append("if (!keep) {")
                go(e, into)
                lines.append(f"{var} = {into};")
                lines.append("}")
            busy.discard(j)
            declared[j] = var
            return var, slot

        result, _ = go(expr, "dst")
        if returns:
            lines.append(f"return {result};")
        return LoweredFunction(name, tuple(lines), str(expr).replace(_ROW_PREFIX, "row"))


# ------------------------------------------------------------------------------------------- the tiling


@dataclass(frozen=True)
class TilingDecision:
    """The tiling of one call on one product (units in the names; mirrors the generated tiling function)."""

    product: str
    dtype: str
    tiling_key: int
    mode: int
    outer: int
    reduce_len: int
    inner: int
    tile_rows: int
    chunk_len: int
    chunk_num: int
    line_stride: int
    block_width: int
    task_num: int
    used_cores: int
    tile_elems: int
    line_elems: int
    tile_bytes_per_elem: int
    line_bytes_per_elem: int
    budget_bytes: int
    buffer_num: int = 1
    queue_bytes_per_elem: int = 0
    save_bytes_per_elem: int = 0

    def tiling_fields(self) -> dict[str, int]:
        """The tiling struct's values by the names of :data:`TILING_FIELDS`."""
        return {
            "mode": self.mode,
            "outerNum": self.outer,
            "reduceLen": self.reduce_len,
            "innerNum": self.inner,
            "tileRows": self.tile_rows,
            "chunkLen": self.chunk_len,
            "chunkNum": self.chunk_num,
            "lineStride": self.line_stride,
            "blockWidth": self.block_width,
            "taskNum": self.task_num,
            "tasksPerCore": self.task_num // self.used_cores,
            "tasksFormerNum": self.task_num % self.used_cores,
            "tileElems": self.tile_elems,
            "lineElems": self.line_elems,
            "bufferNum": self.buffer_num,
        }


def view_dims(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """``(outer, R, inner)`` of ``shape`` around ``dim`` (negative counts from the end; a 0-d tensor is
    ``[1]``).

    Raises:
        ValueError: ``dim`` outside ``[-rank, rank)`` (``[-1, 0]`` for a 0-d tensor).
    """
    dims = shape if shape else (1,)
    rank = len(dims)
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for rank {len(shape)}")
    d = dim + rank if dim < 0 else dim
    outer = 1
    for x in dims[:d]:
        outer *= x
    inner = 1
    for x in dims[d + 1 :]:
        inner *= x
    return outer, dims[d], inner


def buffer_bytes(spec: OpSpec, dtype: DType | DtypeCombo) -> tuple[int, int]:
    """``(tile bytes per element, line bytes per element)`` of the UB split (see :func:`tiling_decision`) for
    the tensors' dtypes ``dtype`` (a combination, or the first input's dtype: its :func:`default_combo`).
    Outputs with one value per row (:func:`row_outputs`) cost :func:`row_output_bytes` instead."""
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype)
    prog = program(spec)
    rows_in = set(row_inputs(spec))
    row_outs = set(row_outputs(spec))
    # an input's queue, and the fp32 copy of a 16-bit one (an fp32 input is computed on in its queue buffer)
    tile = sum(_in_bytes(combo.dtype(t.name)) for t in spec.inputs if t.name not in rows_in)
    tile += sum(combo.dtype(t.name).itemsize for t in spec.outputs if t.name not in row_outs)
    line = line_bytes(prog) + sum(combo.dtype(n).itemsize + 4 for n in rows_in)
    return tile, line


def queue_bytes(spec: OpSpec, combo: DtypeCombo) -> int:
    """UB bytes per tile element of the tile queues (each input's and output's ``T`` buffer, without the
    inputs broadcast over the rows and the outputs with one value per row): what a second buffer per queue
    (double buffering) adds to :func:`buffer_bytes`' tile bytes."""
    rows_in, row_outs = set(row_inputs(spec)), set(row_outputs(spec))
    tensors = [t for t in spec.inputs if t.name not in rows_in] + [t for t in spec.outputs if t.name not in row_outs]
    return sum(combo.dtype(t.name).itemsize for t in tensors)


def _in_bytes(dtype: DType) -> int:
    """UB bytes per tile element of an input of ``dtype``: its queue, and an fp32 copy unless it is FLOAT."""
    return dtype.itemsize + (0 if dtype is DType.FLOAT else 4)


def line_bytes(prog: Program) -> int:
    """UB bytes per line element of the fp32 line buffers: the temporaries, each reduction's accumulator,
    partial and saved maximum, the result, argument and rescale lines, and one line per per-row value."""
    return 4 * (prog.temps + 3 * len(prog.reductions) + 3 + len(prog.row_values))


def row_output_bytes(spec: OpSpec, combo: DtypeCombo) -> int:
    """UB bytes per row of a tile taken by the row slots (32 bytes per row for each reduction and per-row
    value) and by the outputs with one value per row (their queue and an fp32 staging slot each); the kernel
    allocates ``AlignUp(tileRows, 16)`` rows of them."""
    prog = program(spec)
    slots = 32 * (len(prog.reductions) + len(prog.row_values))
    return slots + sum(combo.dtype(n).itemsize + 4 for n in row_outputs(spec))


def trailing_view_dims(shape: tuple[int, ...], row_ndim: int) -> tuple[int, int, int]:
    """``(outer, R, 1)`` of ``shape`` reduced over its last ``row_ndim`` dims (``R`` their product).

    Raises:
        ValueError: ``row_ndim`` outside ``[1, len(shape)]``.
    """
    if not 1 <= row_ndim <= len(shape):
        raise ValueError(f"{row_ndim} trailing dims do not fit a tensor of rank {len(shape)}")
    outer = 1
    for x in shape[: len(shape) - row_ndim]:
        outer *= x
    r = 1
    for x in shape[len(shape) - row_ndim :]:
        r *= x
    return outer, r, 1


def tiling_decision(
    spec: OpSpec,
    product: Product,
    shape: tuple[int, ...],
    dim: int,
    dtype: DType | DtypeCombo,
    row_ndim: int = 1,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for inputs of ``shape`` reduced along ``dim`` (``dim`` form) or
    over the last ``row_ndim`` dims (``rows`` form; ``dim`` is then not read).

    UB (``budget = ubBytes - ub_reserved_bytes - 4 * WORK_ELEMS``): tile buffers cost ``tileBytes`` per
    element (each input's ``T`` queue and a 16-bit input's fp32 copy, each output's ``T`` queue); line
    buffers ``lineBytes`` per element (temporaries, accumulators, partials, saved maxima, the result line,
    the reduction argument, the rescale factor and one line per per-row value).

    Buffers per tile queue (``bufferNum``): the spec's ``tiling.buffer_num`` (2: double buffering) wherever
    UB allows, else 1; each buffer past the first adds ``queueBytes`` (:func:`queue_bytes`) to ``tileBytes``.
    Every rule below is tried with ``bufferNum`` from the spec's down to 1, the first that fits taken.

    Mode 0 (``inner == 1``): ``Rs = AlignUp(R, 16)``; with ``rowBytes`` the per-row bytes of the row slots
    and per-row outputs (:func:`row_output_bytes`), if ``Rs * (tileBytes + lineBytes) + 16 * rowBytes <=
    budget`` whole rows fit: ``tileRows = min((budget - Rs * lineBytes - 15 * rowBytes) / (Rs * tileBytes +
    rowBytes), ceil(rows / cores))``, ``chunkLen = R``, ``chunkNum = 1``; else ``chunkLen = (budget - 16 *
    rowBytes) / (tileBytes + lineBytes)`` rounded down to 64, ``chunkNum = ceil(R / chunkLen)``,
    ``tileRows = 1``. ``dtype`` is the tensors' dtype combination (:func:`combos`; the tiling key is its
    position), or the first input's dtype for its :func:`default_combo`.
    Mode 1: ``blockWidth`` = ``AlignUp(inner, 16)``, capped so that the tasks reach the cores
    (``AlignUp(ceil(inner / ceil(cores / outer)), 16)``) and so that ``R`` lines fit (largest multiple of 16
    with ``W * (R * tileBytes + lineBytes) <= budget``); when even 16 does not fit, ``blockWidth = 16`` and
    ``tileRows = (budget - 16 * lineBytes) / (16 * tileBytes)`` lines per chunk.

    Raises:
        ValueError: a dtype the op does not take, ``dim`` out of range, or a UB too small for one chunk.
    """
    combo = dtype if isinstance(dtype, DtypeCombo) else default_combo(spec, dtype)
    if combo not in combos(spec):
        raise ValueError(f"{spec.op} does not take the dtype combination {combo.text}")
    if compute_of(spec).rows:
        outer, r, inner = trailing_view_dims(shape, row_ndim)
    else:
        outer, r, inner = view_dims(shape, dim)
    tile_1, line_b = buffer_bytes(spec, combo)
    queue_b = queue_bytes(spec, combo)
    save_b = 4 * len(program(spec).saves)  # whole rows only: the kept subformulas, fp32 per element
    bufs = list(range(spec.tiling.buffer_num, 0, -1))  # buffers per tile queue, most first
    row_b = row_output_bytes(spec, combo)
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - 4 * WORK_ELEMS
    if budget <= 0:
        raise ValueError(f"UB of {product.name} ({product.ub_bytes} bytes) cannot hold the work buffers of {spec.op}")
    cores = product.vector_core_num

    def tile_bytes(n: int) -> int:
        return tile_1 + (n - 1) * queue_b

    if inner == 1:
        mode, width = MODE_LAST, 1
        rows = outer
        rs = _align(max(r, 1), LINE_ALIGN)
        fits = [n for n in bufs if rs * (tile_bytes(n) + save_b + line_b) + LINE_ALIGN * row_b <= budget]
        if fits:
            buf_n = fits[0]
            tile_b = tile_bytes(buf_n)
            per_core = _ceil_div(max(rows, 1), cores)
            fit_rows = (budget - rs * line_b - (LINE_ALIGN - 1) * row_b) // (rs * (tile_b + save_b) + row_b)
            tile_rows = max(1, min(fit_rows, per_core))
            chunk_len, chunk_num, stride = r, 1, rs
            tile_elems, line_elems = tile_rows * rs, rs
        else:
            lens = [
                (n, (budget - LINE_ALIGN * row_b) // (tile_bytes(n) + line_b) // CHUNK_ALIGN * CHUNK_ALIGN)
                for n in bufs
            ]
            buf_n, chunk_len = next(((n, c) for n, c in lens if c > 0), lens[-1])
            if chunk_len <= 0:
                raise ValueError(f"UB of {product.name} cannot hold one chunk of {spec.op}")
            tile_b = tile_bytes(buf_n)
            chunk_num, tile_rows, stride = _ceil_div(r, chunk_len), 1, chunk_len
            tile_elems = line_elems = chunk_len
        tasks = rows
    else:
        mode = MODE_STRIDED
        width = _align(inner, LINE_ALIGN)
        width = min(width, _align(_ceil_div(inner, _ceil_div(cores, max(outer, 1))), LINE_ALIGN))
        fit_n = [(n, budget // (max(r, 1) * tile_bytes(n) + line_b) // LINE_ALIGN * LINE_ALIGN) for n in bufs]
        buf_n, fit = next(((n, f) for n, f in fit_n if f >= LINE_ALIGN), fit_n[-1])
        if fit >= LINE_ALIGN:
            width = min(width, fit)
            tile_rows, chunk_num = max(r, 1), 1
        else:
            width = LINE_ALIGN
            lines_n = [(n, (budget - LINE_ALIGN * line_b) // (LINE_ALIGN * tile_bytes(n))) for n in bufs]
            buf_n, tile_rows = next(((n, t) for n, t in lines_n if t > 0), lines_n[-1])
            if tile_rows <= 0:
                raise ValueError(f"UB of {product.name} cannot hold one line of {spec.op}")
            chunk_num = _ceil_div(r, tile_rows)
        tile_b = tile_bytes(buf_n)
        chunk_len, stride = tile_rows, width
        tile_elems, line_elems = tile_rows * width, width
        tasks = outer * _ceil_div(inner, width)
    used = max(1, min(cores, tasks))
    return TilingDecision(
        product=product.name,
        dtype=combo.dtype(spec.inputs[0].name).name,
        tiling_key=combos(spec).index(combo),
        mode=mode,
        outer=outer,
        reduce_len=r,
        inner=inner,
        tile_rows=tile_rows,
        chunk_len=chunk_len,
        chunk_num=chunk_num,
        line_stride=stride,
        block_width=width,
        task_num=tasks,
        used_cores=used,
        tile_elems=tile_elems,
        line_elems=line_elems,
        tile_bytes_per_elem=tile_b,
        line_bytes_per_elem=line_b,
        budget_bytes=budget,
        buffer_num=buf_n,
        queue_bytes_per_elem=queue_b,
        save_bytes_per_elem=save_b if mode == MODE_LAST and chunk_num == 1 else 0,
    )


def explain_tiling(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype_name: str | None) -> str:
    """The tiling decision as readable lines, for ``opgen explain``: ``shape`` is the tensors' shape, reduced
    along the last dim (the fast path; the tiling of another dim is in the op_host unit test and the check).

    Raises:
        ValueError: an empty shape, or a dtype the op does not take.
    """
    dims, dim = _split_shape(shape)
    dtype = DType[dtype_name] if dtype_name else row_dtypes(spec)[0]
    combo = default_combo(spec, dtype, product)  # the first dtype combination of that dtype on the product
    t = tiling_decision(spec, product, dims, dim, combo)
    prog = program(spec)
    reads = 1 if t.chunk_num == 1 else prog.pass_num + 1
    rows = compute_of(spec).rows
    along = f"over the last dim ({rows} [{dims[-1]}] broadcast over the rows)" if rows else f"along dim {dim}"
    dtypes = dtype.name if len(combos(spec)) == len(row_dtypes(spec)) and not spec.dtype_combos else combo.text
    lines = [
        f"tiling for {list(dims)} ({dtypes}) reduced {along}: outer {t.outer}, R {t.reduce_len}, "
        f"inner {t.inner}; tiling key {t.tiling_key}, blockDim {t.used_cores} of {product.vector_core_num}, "
        f"workspace {product.sys_workspace_bytes} bytes (system workspace only)",
        f"  mode {t.mode} ({'last dim, contiguous rows' if t.mode == MODE_LAST else 'strided, inner blocks'})",
        f"  UB budget {t.budget_bytes} bytes: {t.tile_bytes_per_elem} bytes per tile element, "
        f"{t.line_bytes_per_elem} per line element; tile {t.tile_elems} elements, line {t.line_elems}; "
        f"{t.buffer_num} buffer(s) per tile queue" + (" (double buffering)" if t.buffer_num == 2 else ""),
    ]
    if t.mode == MODE_LAST:
        lines.append(
            f"  rows per tile: {t.tile_rows}; chunks per row: {t.chunk_num} of {t.chunk_len} elements "
            f"(line stride {t.line_stride})"
        )
    else:
        lines.append(
            f"  rows per tile: {t.block_width} (inner block width); chunks per row: {t.chunk_num} of {t.tile_rows} "
            f"lines"
        )
    lines += [
        f"  cores: {t.used_cores} of {product.vector_core_num} ({t.task_num} tasks, "
        f"{t.task_num // t.used_cores} each, +1 on the first {t.task_num % t.used_cores})",
        f"  passes: {prog.pass_num} reduction pass(es) + output; each input read {reads} time(s)"
        + (f" ({rows}: once per core)" if rows and t.chunk_num == 1 else ""),
    ]
    return "\n".join(lines)


def _lowered_views(prog: Program, reds: list[str], outs: list[str]) -> dict[str, Any]:
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


#: The dim ``opgen explain --shape`` reduces along.
EXPLAIN_DIM = -1


def _names(names: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``: tensor names for the generated doc."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _split_shape(shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """The tensors' dims and the dim ``opgen explain`` reduces along (the last; a 0-d shape is one element)."""
    return tuple(shape), EXPLAIN_DIM


# --------------------------------------------------------------------------------------------- the view


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation: the spec is of this family, every device input carries an aclnn input, the
    reduced dim reaches the device as an ``int`` or ``list_int`` attr, its inputs and outputs share the dtype
    list, at most 10 dtypes.

    Raises:
        TypeError: not of this family.
        ValueError: a device input without source, a dim not carried by an int/list_int device attr,
            tensors with different dtype lists or more than 10 dtypes.
        SpecError: a dtype combination with a tensor of neither the first input's dtype nor FLOAT, an output
            whose dtype varies other than with the first input (at the combination's line), an output whose
            shape rule gives another shape than the kernel writes (at the output's line): faults the same on
            every product, so reported once.
    """
    comp = compute_of(spec)
    dev = spec.device_interface
    for carrier in dev.inputs:
        if carrier.source is None:
            raise ValueError(
                f"{spec.op}: device input '{carrier.name}' has no aclnn source; a row-reduce kernel reads every input"
            )
    for da in dev.attrs:
        if da.source is not None and spec.attr(da.source).type in ("float", "double") and da.type != "float":
            raise ValueError(f"{spec.op}: the float attr '{da.source}' must reach the device as a float device attr")
    carriers = [a for a in dev.attrs if a.source == comp.dim]
    if comp.rows:
        if comp.dim:
            raise ValueError(f"{spec.op}: give dim or rows, not both")
    elif not carriers or carriers[0].type not in ("int", "list_int"):
        raise ValueError(
            f"{spec.op}: the reduced dim '{comp.dim}' must reach the device as an int or list_int device attr"
        )
    first = spec.inputs[0].dtypes
    if not spec.dtype_combos:
        for t in (*spec.inputs, *spec.outputs):
            if t.dtypes != first:
                raise ValueError(
                    f"{spec.op}: every tensor of a row-reduce op takes the same dtypes unless the spec lists "
                    f"dtype_combos; '{t.name}' differs"
                )
    first_name = spec.inputs[0].name
    for i, c in enumerate(combos(spec)):
        for n, d in c.dtypes:
            if d is not c.dtype(first_name) and d is not DType.FLOAT:
                # a spec fault, the same on every product: at the combination's line, reported once
                raise SpecError(
                    c.loc if spec.dtype_combos else spec.loc,
                    f"dtype_combos[{i}].{n}" if spec.dtype_combos else "inputs",
                    f"in the dtype combination ({c.text}) '{n}' is {d.name}; a row-reduce tensor has the dtype "
                    f"of '{first_name}' or FLOAT",
                )
    for j, t in enumerate(spec.outputs):
        if len({c.dtype(t.name) for c in combos(spec)}) > 1 and any(
            c.dtype(t.name) is not c.dtype(first_name) for c in combos(spec)
        ):
            raise SpecError(
                spec.dtype_combos[0].loc if spec.dtype_combos else t.loc,
                "dtype_combos" if spec.dtype_combos else f"outputs[{j}].dtypes",
                f"output '{t.name}' has the dtype of '{first_name}' in every dtype combination or one fixed dtype "
                "in all of them (the L0 API allocates it so)",
            )
    prods = spec_products(spec, catalogue)
    for c in spec.dtype_combos:
        for p in prods:
            twins = [q for q in prods if q.npu_arch == p.npu_arch and c.allowed_on(q) != c.allowed_on(p)]
            if twins:
                yes, no = (p, twins[0]) if c.allowed_on(p) else (twins[0], p)
                raise ValueError(
                    f"{spec.op}: the dtype combination ({c.text}) is allowed on {yes.name} but not on {no.name}, "
                    f"which shares its NpuArch {p.npu_arch}; the generated check selects products by NpuArch"
                )
    if len(combos(spec)) > 10:
        raise ValueError(f"{spec.op}: at most 10 dtype combinations fit the tiling key")
    _validate_output_shapes(spec)
    for p in spec_products(spec, catalogue):
        for c in combos(spec):
            if c.allowed_on(p):
                # one 64-element chunk of a last-dim row and one 16-wide line of a strided row must fit
                tiling_decision(spec, p, (1, 10**9), -1, c)
                if not comp.rows:
                    tiling_decision(spec, p, (1, 10**9, 2), 1, c)


def _validate_output_shapes(spec: OpSpec) -> None:
    """Every output's ``shape`` rule states what the kernel writes: the first input's shape, or for an output
    with one value per row (:func:`row_outputs`, ``rows`` form only) the first input's shape with the reduced
    trailing dims set to 1 (e.g. ``reduced(x, rank(gamma))``). Checked on a sample call (x ``[2, 3, 5]``,
    the rows input ``[3, 5]``).

    Raises:
        ValueError: a per-row output in the ``dim`` form.
        SpecError: a shape rule giving another shape, or one that cannot be evaluated (at the output's line).
    """
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate

    comp = compute_of(spec)
    per_row = set(row_outputs(spec))
    if per_row and not comp.rows:
        raise ValueError(
            f"{spec.op}: outputs with one value per row ({', '.join(sorted(per_row))}) need the rows form "
            "(compute.rows)"
        )
    x = (2, 3, 5)
    env: dict[str, object] = {n: x for n in spec.input_names}
    if comp.rows:
        env[comp.rows] = x[1:]
    env.update({a.name: a.default if a.default is not None else 0 for a in spec.attrs})
    for j, t in enumerate(spec.outputs):
        want = (2, 1, 1) if t.name in per_row else x
        try:
            got = as_shape(evaluate(t.shape, env)) if t.shape is not None else x
        except ExprEvalError as exc:
            raise SpecError(
                t.loc, f"outputs[{j}].shape", f"the shape of '{t.name}' cannot be evaluated: {exc}"
            ) from exc
        if got != want:
            what = "one value per row" if t.name in per_row else f"the shape of '{spec.inputs[0].name}'"
            raise SpecError(
                t.loc,
                f"outputs[{j}].shape",
                f"output '{t.name}' has {what} ({list(want)} for {spec.inputs[0].name} {list(x)}"
                + (f", {comp.rows} {list(x[1:])}" if comp.rows else "")
                + f"), but its shape rule gives {list(got)}",
            )


@dataclass(frozen=True)
class DtypeKey:
    """One tiling key: its number ``key`` (the dtype combination's position, :func:`combos`), the first
    input's dtype ``name``, ``ge_name`` (``DT_*``), AscendC ``kernel_type``, ``bytes`` per element, the
    preprocessor ``guard`` of the NpuArchs without it ("": always compiled), the combination's text,
    ``ge_names`` of every tensor (inputs then outputs, ``DT_*``), ``f32_mask`` (bit ``i``: tensor ``i``,
    inputs then outputs, is FLOAT while the first input is 16-bit) and the UB bytes of the split
    (``tile_bytes``/``line_bytes`` per element with one buffer per queue, ``row_bytes`` per row, and
    ``queue_bytes`` per element a second buffer per tile queue adds; see :func:`tiling_decision`)."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    bytes: int
    guard: str
    text: str = ""
    ge_names: tuple[str, ...] = ()
    f32_mask: int = 0
    tile_bytes: int = 0
    line_bytes: int = 0
    row_bytes: int = 0
    queue_bytes: int = 0


@dataclass(frozen=True)
class ReductionView:
    """One reduction of the kernel: ``name``, ``kind`` (:data:`KIND_CODES`) and ``kind_name``, the pass it
    is evaluated in (``pass_index``) and its ``level`` in a tile of whole rows, the max it rescales with
    (``online``, -1: none), the input it reduces as is (``direct``, -1: none), the scalar slots its argument
    reads (``uses``) and the lowered argument ``fn``."""

    name: str
    kind: int
    kind_name: str
    pass_index: int
    online: int
    uses: tuple[int, ...]
    fn: LoweredFunction
    level: int = 0
    direct: int = -1


@dataclass(frozen=True)
class OutputView:
    """One output of the kernel: ``name``, the scalar slots it reads (``uses``), its lowered formula ``fn``
    and, for an output with one value per row, its C++ scalar ``row_out`` ("" for the others)."""

    name: str
    uses: tuple[int, ...]
    fn: LoweredFunction
    row_out: str = ""


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


@dataclass(frozen=True)
class FloatAttr:
    """A float attr the kernel reads: its ``name`` and its position among the spec's attrs (``index``)."""

    name: str
    index: int


@dataclass(frozen=True)
class L0ListAttr:
    """A list device attr the L0 API allocates (``executor->AllocIntArray``) from an aclnn integer: the
    device attr's ``name`` and the aclnn attr ``source`` it holds as a one-element list."""

    name: str
    source: str


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/row_reduce_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    KIND: ClassVar[str] = "op_api_cpp"
    checks: ConstraintChecks
    dfx_in: str
    dim_attr: str
    files: Mapping[str, str]
    first_input: str
    #: the L2 API's arguments of the L0 call after the tensors (the dim, fp32 casts of float attrs)
    l0_args: tuple[str, ...]
    out: str
    #: ``rows`` form: the input broadcast over the rows ("": dim form)
    rows_input: str
    #: ``rows`` form: the aclnn attrs (none is checked by the family's parameter checks)
    check_attrs: tuple[str, ...]
    signature: tuple[SignatureParam, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]
    #: the spec's ``dtype_combos`` (empty: one dtype for every tensor), each allowed on the NpuArchs ``archs``
    dtype_combos: tuple[ComboCheck, ...]
    dtype_combo_names: tuple[str, ...]
    #: the aclnnStatus name of a shape error (the spec's ``shape_status``)
    shape_status: str
    #: outputs with one value per row (their shape checked against the first input's)
    per_row_outputs: tuple[str, ...]
    l0_outputs: tuple[L0OutputView, ...]


@dataclass(frozen=True)
class ComboCheck:
    """One allowed dtype combination in the L2 check: the NpuArchs taking it (``archs``; the products text
    ``products``) and ``pairs`` of (tensor name, ``DT_*`` name) in inputs-then-outputs order."""

    archs: tuple[int, ...]
    products: str
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class L0OutputView:
    """One output the L0 API allocates: its variable ``name``, the C++ ``dtype`` expression of its
    ``op::DataType`` (the first input's, or a fixed dtype every combination gives it), ``per_row`` (one
    value per row: the first input's shape with the reduced trailing dims set to 1) and the aclnn output
    ``source`` it carries."""

    name: str
    dtype: str
    per_row: bool
    source: str


@dataclass(frozen=True)
class L0SourceView(KindView):
    """``op_api/<kernel>.cpp`` (``op_api/row_reduce_l0.cpp.j2``): the L0 wrapper launching the device op."""

    KIND: ClassVar[str] = "l0_cpp"
    dfx_in: str
    dim_attr: str
    rows_input: str
    files: Mapping[str, str]
    first_input: str
    #: the OP_ATTR values in OpDef order (``arg``: an aclnn attr, a list the L0 allocates, or a constant)
    l0_attrs: tuple[L0Attr, ...]
    #: the OP_INPUT tensors in OpDef order (aclnn input names; ``nullptr`` for an input no aclnn tensor feeds)
    l0_inputs: tuple[str, ...]
    l0_lists: tuple[L0ListAttr, ...]
    l0_params: tuple[str, ...]
    l0_outputs: tuple[L0OutputView, ...]
    l0_return: str
    #: what the L0 function returns when it fails (``nullptr``, or a tuple of them)
    l0_fail: str


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output has the first input's shape and dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    dim_attr: str
    rows_input: str
    first_input: str
    rows_index: int
    l0_outputs: tuple[L0OutputView, ...]


@dataclass(frozen=True)
class TilingSourceView(KindView):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/row_reduce_tiling.cpp.j2``): the tiling function; sizes in
    bytes, alignments and buffers in elements, ``dim_index`` the dim attr's position in the OpDef."""

    KIND: ClassVar[str] = "tiling_cpp"
    chunk_align: int
    dim_attr: str
    #: the device attr carrying ``dim_attr``, its position among the OpDef attrs, and whether it is a list
    #: (``ListInt``: read with ``GetListInt``, one element) rather than an ``Int``
    dim_device_attr: str
    dim_index: int
    dim_list: bool
    dtype_keys: tuple[DtypeKey, ...]
    files: Mapping[str, str]
    #: (tiling field, OpDef attr index, aclnn attr) of every float attr
    float_device_attrs: tuple[tuple[str, int, str], ...]
    device_inputs_n: int
    rows_index: int
    rows_input: str
    line_align: int
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_type: str
    ub_reserved_bytes: int
    work_elems: int
    #: the most buffers per tile queue (the spec's ``tiling.buffer_num``)
    buffer_num: int
    #: bytes per tile element of the kept subformulas (whole last-dim rows only)
    save_bytes: int


@dataclass(frozen=True)
class KernelView(KindView):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/row_reduce_kernel.cpp.j2``): the passes, the lowered
    formulas and one branch per tiling key."""

    KIND: ClassVar[str] = "kernel_cpp"
    dtype_keys: tuple[DtypeKey, ...]
    float_attrs: tuple[FloatAttr, ...]
    float_attrs_n: int
    #: the device input carrying each aclnn input (aclnn order), the device output of each aclnn output
    in_gm_names: tuple[str, ...]
    #: per aclnn input, ``true`` when it is broadcast over the rows (C++ literals); per reduction pass and for
    #: the output pass, whether it reads such an input
    row_in_flags: tuple[str, ...]
    #: per aclnn output, ``true`` when it has one value per row (:func:`row_outputs`)
    row_out_flags: tuple[str, ...]
    pass_reads_rows: tuple[str, ...]
    out_reads_rows: str
    rows_input: str
    inputs_n: int
    kernel_class: str
    #: the kernel entry's GM parameters: the device inputs and outputs in OpDef order
    kernel_params: tuple[str, ...]
    no_fp32_reduce_condition: str
    no_pad_condition: str
    #: the NpuArchs without DataCopyPad whose scalar cache lines the kernel writes back after a partial block
    dcci_flush_condition: str
    out_gm_names: tuple[str, ...]
    outputs_n: int
    outs: tuple[OutputView, ...]
    pass_n: int
    level_n: int
    save_n: int
    red_n: int
    reductions: tuple[ReductionView, ...]
    row_values: tuple[RowValue, ...]
    scalar_fns: tuple[LoweredView, ...]
    line_fns: tuple[LoweredView, ...]
    dispatchers: tuple[DispatchView, ...]
    steps_text: tuple[str, ...]
    temps_n: int
    work_elems: int


@dataclass(frozen=True)
class DocView(KindView):
    """``docs/<aclnn>.md`` (``docs/row_reduce_aclnn.md.j2``): the API documentation."""

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    dim_attr: str
    rows_input: str
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    steps_text: tuple[str, ...]
    tiling_lines: tuple[str, ...]


#: The views of the row-reduce templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = {
    c.KIND: c
    for c in (AclnnSourceView, L0SourceView, L0HeaderView, InferShapeView, TilingSourceView, KernelView, DocView)
}


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of a row-reduce op (:data:`VIEWS` and the shared ones).

    Raises:
        TypeError, ValueError: as :func:`validate`.
    """
    return op_views(spec, catalogue, _view_parts(spec, catalogue), VIEWS)


def _view_parts(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The view entries of a row-reduce op by name (see :func:`codegen.plan.common.common_view`).

    Raises:
        TypeError, ValueError: as :func:`validate`.
    """
    validate(spec, catalogue)
    view = common_view(spec, catalogue)
    comp = compute_of(spec)
    products: list[Product] = view["products"]
    prog = program(spec)
    no_bf16 = arch_condition(products, "bf16")
    keys = []
    for k, c in enumerate(combos(spec)):
        d = c.dtype(spec.inputs[0].name)
        tile_b, line_b = buffer_bytes(spec, c)
        has_bf16 = any(x is DType.BF16 for _, x in c.dtypes)
        keys.append(
            DtypeKey(
                key=k,
                dtype=d.name,
                ge_name=d.ge_name,
                kernel_type=d.kernel_type,
                bytes=d.itemsize,
                guard=no_bf16 if has_bf16 and no_bf16 != "0" else "",
                text=c.text,
                ge_names=tuple(
                    c.dtype(t.source).ge_name
                    for t in (*spec.device_interface.inputs, *spec.device_interface.outputs)
                    if t.source is not None
                ),
                f32_mask=sum(1 << i for i, (_, x) in enumerate(c.dtypes) if x is DType.FLOAT and x is not d),
                tile_bytes=tile_b,
                line_bytes=line_b,
                row_bytes=row_output_bytes(spec, c),
                queue_bytes=queue_bytes(spec, c),
            )
        )
    float_attrs = [a for a in spec.attrs if a.type in ("float", "double")]
    dev = spec.device_interface
    rows_in = row_inputs(spec)
    dim_index = next((i for i, a in enumerate(dev.attrs) if comp.dim and a.source == comp.dim), -1)
    dim_dev = dev.attrs[dim_index] if dim_index >= 0 else None
    l0_attrs: list[L0Attr] = []
    l0_lists: list[L0ListAttr] = []
    # the L0 parameters after the tensors, with the L2 API's argument for each (aclnn attr order)
    l0_extra: list[tuple[str, str]] = []
    for da in dev.attrs:
        if da.source is None:
            l0_attrs.append(l0_constant_attr(da))
        elif DEVICE_ATTR_TYPE_INFO[da.type].is_list:
            l0_lists.append(L0ListAttr(da.name, da.source))
            l0_attrs.append(L0Attr(da.name, f"{DEVICE_ATTR_TYPE_INFO[da.type].l0_type}{da.name}", da.name))
        elif da.type == "float":  # a float/double aclnn attr, sent as the fp32 value of a Float attr
            l0_attrs.append(L0Attr(da.name, f"float {da.source}", da.source))
            l0_extra.append((f"float {da.source}", f"static_cast<float>({da.source})"))
        else:
            l0_attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[spec.attr(da.source).type].c_type} {da.name}", da.source))
    if comp.dim:
        l0_extra.insert(0, (f"int64_t {comp.dim}", comp.dim))
    float_device = [
        (f"attr{k}", next(i for i, da in enumerate(dev.attrs) if da.source == a.name), a.name)
        for k, a in enumerate(float_attrs)
    ]

    def reads_rows(e: Expr) -> bool:
        return any(isinstance(x, Name) and x.id in rows_in for x in walk(e))

    pass_reads_rows = [
        "true" if any(reads_rows(r.arg) for r in prog.reductions if r.pass_index == p) else "false"
        for p in range(prog.pass_num)
    ]
    out_reads_rows = "true" if any(reads_rows(e) for _, e in prog.outputs) else "false"
    first = spec.inputs[0]
    # CANN's row ops (e.g. activation/softmax_v2/op_api/aclnn_softmax.cpp) require one dtype of the inputs only;
    # the output may take any listed dtype: the device op's result is cast to it (l0op::Cast).
    same_dtype_text = f" or {_names(spec.input_names)} of different dtypes" if len(spec.inputs) > 1 else ""
    out_names = _names(spec.output_names)
    per_row = row_outputs(spec)
    l0_outputs = []
    for d_out in dev.outputs:
        src = d_out.source or ""
        dts = {c.dtype(src) for c in combos(spec)}
        same = all(c.dtype(src) is c.dtype(first.name) for c in combos(spec))
        fixed = next(iter(dts)) if len(dts) == 1 else None
        dtype_cpp = f"{first.name}->GetDataType()" if same or fixed is None else f"op::DataType::{fixed.ge_name}"
        name = "result" if len(dev.outputs) == 1 else f"{d_out.name}Result"
        l0_outputs.append(L0OutputView(name, dtype_cpp, src in per_row, src))
    if len(l0_outputs) == 1:
        l0_return, l0_fail = "const aclTensor *", "nullptr"
    else:
        l0_return = f"std::tuple<{', '.join(['const aclTensor *'] * len(l0_outputs))}>"
        l0_fail = "{}"  # every element null (a macro argument cannot hold the tuple type's commas)
    dtype_text = (
        "A dtype not supported on this product, or tensor dtypes that are not one of the product's dtype "
        "combinations (see Constraints)"
        if spec.dtype_combos
        else f"A dtype not supported on this product{same_dtype_text}"
    )
    shape_text = f"a rank above {first.rank[1]}; shapes " + (
        f"that differ; `{comp.dim}` outside [-rank, rank) ([-1, 0] for a 0-d tensor)"
        if comp.dim
        else f"that differ from `{first.name}`'s; `{comp.rows}` of rank 0 or above `{first.name}`'s, empty, or not "
        f"of the shape of `{first.name}`'s last `{comp.rows}.dim()` dims"
        + "".join(f"; `{n}` not of `{first.name}`'s shape with those dims set to 1" for n in per_row)
    )
    invalid = f"{dtype_text}; "
    if spec.shape_status == int(AclnnStatus.ACLNN_ERR_PARAM_INVALID):
        invalid += f"{shape_text}; "
    status_rows = [
        status_row(AclnnStatus.ACLNN_SUCCESS, "Success."),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_NULLPTR,
            f"{', '.join([*spec.input_names, *spec.output_names])}, workspaceSize or executor is null.",
        ),
        status_row(AclnnStatus.ACLNN_ERR_PARAM_INVALID, f"{invalid}{format_rule_text(spec)}."),
    ]
    tiling_text = "The tiling function failed."
    if spec.shape_status == int(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR):
        tiling_text = f"{shape_text[0].upper()}{shape_text[1:]}; the tiling function failed."
    elif spec.shape_status != int(AclnnStatus.ACLNN_ERR_PARAM_INVALID):
        status_rows.append(status_row(AclnnStatus(spec.shape_status), f"{shape_text[0].upper()}{shape_text[1:]}."))
    status_rows.append(status_row(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR, tiling_text))
    steps_text = []
    for s in comp.steps:
        steps_text.append(f"{s.name} = {s.reduction + '(' + str(s.expr) + ')' if s.reduction else str(s.expr)}")
    tiling_lines = [
        "Every size in the tiling is int64.",
        "Tensors are viewed as `[outer, R, inner]` around the reduced dim. With `inner` = 1 whole rows are "
        "loaded per tile when they fit UB (read once), else each row is cut into chunks of a multiple of 64 "
        f"elements and read once per pass ({prog.pass_num} reduction pass(es) + the output pass). With `inner` > "
        "1 a task is a block of inner positions (a multiple of 16) whose R lines are reduced line by line.",
        "Cores: rows (or outer x inner blocks) split evenly over at most coreNum cores; a row is never split "
        "across cores, so results are bit-identical for every run.",
    ]
    example_lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            example_lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            example_lines.append(f"`{name}` = {value}")
    view.update(
        {
            "example_lines": example_lines,
            "checks": constraint_view(spec, catalogue),
            "dim_attr": comp.dim,
            "dim_device_attr": dim_dev.name if dim_dev else "",
            "dim_index": dim_index,
            "dim_list": DEVICE_ATTR_TYPE_INFO[dim_dev.type].is_list if dim_dev else False,
            "rows_input": comp.rows or "",
            "rows_index": dev.input_index(comp.rows) if comp.rows else -1,
            "pass_reads_rows": pass_reads_rows,
            "out_reads_rows": out_reads_rows,
            "check_attrs": [a.name for a in spec.attrs] if rows_in else [],
            "row_in_flags": ["true" if n in rows_in else "false" for n in spec.input_names],
            "row_out_flags": ["true" if n in row_outputs(spec) else "false" for n in spec.output_names],
            "float_device_attrs": float_device,
            "l0_args": [arg for _, arg in l0_extra],
            "l0_attrs": l0_attrs,
            "l0_inputs": [d.source or "nullptr" for d in dev.inputs],
            "l0_lists": l0_lists,
            "l0_outputs": l0_outputs,
            "dtype_combos": [
                ComboCheck(
                    archs=tuple(sorted({p.npu_arch for p in products if c.allowed_on(p)})),
                    products=", ".join(p.name for p in products if c.allowed_on(p)),
                    pairs=tuple((n, d.ge_name) for n, d in c.dtypes),
                )
                for c in spec.dtype_combos
                if any(c.allowed_on(p) for p in products)
            ],
            "dtype_combo_names": [t.name for t in (*spec.inputs, *spec.outputs)],
            "shape_status": ACLNN_STATUS_CODES[spec.shape_status],
            "per_row_outputs": per_row,
            "l0_return": l0_return,
            "l0_fail": l0_fail,
            "in_gm_names": [dev.inputs[dev.input_index(n)].name for n in spec.input_names],
            "out_gm_names": [next(d.name for d in dev.outputs if d.source == n) for n in spec.output_names],
            "first_input": first.name,
            "out": spec.output_names[0],
            "dtype_keys": keys,
            "tensor_groups": {t.name: dtype_groups(t, products) for t in (*spec.inputs, *spec.outputs)},
            "tiling_fields": tiling_field_views(tiling_fields(spec)),
            "kernel_params": [*(d.name for d in dev.inputs), *(d.name for d in dev.outputs)],
            "inputs_n": len(spec.inputs),
            "device_inputs_n": len(dev.inputs),
            "outputs_n": len(spec.outputs),
            "red_n": len(prog.reductions),
            "temps_n": max(prog.temps, 1),
            "pass_n": prog.pass_num,
            "level_n": prog.level_num,
            "save_n": len(prog.saves),
            "reductions": [
                ReductionView(
                    name=r.name,
                    kind=KIND_CODES[r.kind],
                    kind_name=r.kind,
                    pass_index=r.pass_index,
                    online=r.online_max,
                    uses=tuple(prog.code["arg_uses"][k]),
                    fn=prog.code["args_scalar"][k],
                    level=r.level,
                    direct=prog.code["direct"][k],
                )
                for k, r in enumerate(prog.reductions)
            ],
            "outs": [
                OutputView(
                    name=name,
                    uses=tuple(prog.code["out_uses"][k]),
                    fn=prog.code["outs_scalar"][k],
                    row_out=prog.code["row_out"][k],
                )
                for k, (name, _) in enumerate(prog.outputs)
            ],
            "row_values": prog.row_values,
            **_lowered_views(prog, [r.name for r in prog.reductions], [n for n, _ in prog.outputs]),
            "float_attrs": [FloatAttr(a.name, i) for i, a in enumerate(spec.attrs) if a in float_attrs],
            "float_attrs_n": len(float_attrs),
            "l0_params": [*(f"const aclTensor *{n}" for n in spec.input_names), *(d for d, _ in l0_extra)],
            "line_align": LINE_ALIGN,
            "chunk_align": CHUNK_ALIGN,
            "work_elems": WORK_ELEMS,
            "ub_reserved_bytes": spec.tiling.ub_reserved_bytes,
            "buffer_num": spec.tiling.buffer_num,
            "save_bytes": 4 * len(prog.saves),
            "tile_bytes_terms": [(t.name, "in") for t in spec.inputs] + [(t.name, "out") for t in spec.outputs],
            "line_bytes": line_bytes(prog),
            "row_in_n": len(rows_in),
            "no_pad_condition": arch_condition(products, "data_copy_pad"),
            "dcci_flush_condition": " || ".join(
                f"__NPU_ARCH__ == {a}"
                for a in sorted({p.npu_arch for p in products if not p.data_copy_pad} & set(DCCI_ARCHS))
            )
            or "0",
            "no_fp32_reduce_condition": " || ".join(
                f"__NPU_ARCH__ == {a}" for a in sorted({p.npu_arch for p in products} & set(FP32_REDUCE_MISSING_ARCHS))
            )
            or "0",
            "dfx_in": ", ".join([*spec.input_names, *([comp.dim] if comp.dim else [])]),
            "status_rows": status_rows,
            "steps_text": steps_text,
            "constraint_lines": [
                f"All tensors have the same shape{'; the inputs have one dtype' if len(spec.inputs) > 1 else ''}; "
                f"{out_names} may take any of its listed dtypes, not only {first.name}'s: the result, computed "
                f"in {first.name}'s dtype, is cast to it; `{comp.dim}` is in [-rank, rank)."
                if comp.dim
                else ("Tensor dtypes as listed below" if spec.dtype_combos else "All tensors have the same dtype")
                + f"; every tensor but `{comp.rows}`"
                + "".join(f" and `{n}`" for n in per_row)
                + f" has the shape of `{first.name}`; `{comp.rows}` has the shape of `{first.name}`'s last "
                f"`{comp.rows}.dim()` dims (1 to the rank of `{first.name}`), which are reduced as one row"
                + "".join(
                    f"; `{n}` has one value per row: `{first.name}`'s shape with those dims set to 1" for n in per_row
                )
                + ".",
                *(
                    f"Dtype combination ({c.text}) on {', '.join(p.name for p in products if c.allowed_on(p))}."
                    for c in spec.dtype_combos
                    if any(c.allowed_on(p) for p in products)
                ),
                "Empty tensors give an empty output.",
            ],
            "tiling_lines": tiling_lines,
        }
    )
    view.update(ops_nn_view(spec, products, view["opdef"]))
    view.update(ut_tiling_view(spec, ut_tiling_cases(spec, products), ut_infer_cases(spec)))
    return view


#: op_host unit-test cases: (shape, dim): rows that fit, a chunked row, a non-last dim.
UT_CASES: tuple[tuple[tuple[int, ...], int], ...] = (((8, 100), -1), ((2, 100000), 1), ((4, 33, 5), 1))


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[dict[str, Any]]:
    """The op_host unit-test tiling cases: every :data:`UT_CASES` entry on every product with the product's
    first dtype combination (per-row outputs of the reduced shape); expected key, block dim and fields from
    :func:`tiling_decision`."""
    comp = compute_of(spec)
    dev = spec.device_interface
    per_row = set(row_outputs(spec))
    cases: list[dict[str, Any]] = []
    for p in products:
        combo = next((c for c in combos(spec) if c.allowed_on(p)), None)
        if combo is None:
            continue
        dtype = combo.dtype(spec.inputs[0].name)
        for shape, dim in UT_CASES:
            d = tiling_decision(spec, p, shape, dim, combo)
            values: dict[str, int | float | bool] = {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}
            if comp.dim:
                values[comp.dim] = dim
            fields = d.tiling_fields()
            cases.append(
                {
                    "name": ut_case_name(p, dtype.name, "x".join(map(str, shape)), f"dim{dim}".replace("-", "m")),
                    "product": p.name,
                    "note": f"{combo.text if spec.dtype_combos else dtype.name} {list(shape)}, dim {dim}",
                    "inputs": [
                        ut_tensor(
                            shape[-1:] if comp.rows and d_in.source == comp.rows else shape,
                            combo.dtype(d_in.source or spec.inputs[0].name),
                        )
                        for d_in in dev.inputs
                    ],
                    "outputs": [
                        ut_tensor(
                            (*shape[:-1], 1) if d_out.source in per_row else shape, combo.dtype(d_out.source or "")
                        )
                        for d_out in dev.outputs
                    ],
                    "attrs": ut_device_attrs(spec, values),
                    "deterministic": 0,
                    "tiling_key": d.tiling_key,
                    "block_dim": d.used_cores,
                    "workspace": p.sys_workspace_bytes,
                    "fields": [{"name": n, "value": fields[n]} for n in ("mode", "reduceLen", "tileRows", "chunkNum")],
                }
            )
    return cases


def ut_infer_cases(spec: OpSpec) -> list[UtInferCase]:
    """The infershape unit-test case: the output has the first input's shape and dtype."""
    comp = compute_of(spec)
    dev = spec.device_interface
    combo = combos(spec)[0]
    per_row = set(row_outputs(spec))
    values: dict[str, int | float | bool] = {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}
    if comp.dim:
        values[comp.dim] = -1
    shape = (4, 5, 8)
    first = spec.inputs[0].name
    return [
        ut_infer_case(
            "SameShape",
            [
                ut_tensor(shape[-1:] if comp.rows and d.source == comp.rows else shape, combo.dtype(d.source or first))
                for d in dev.inputs
            ],
            ut_device_attrs(spec, values),
            [((*shape[:-1], 1) if d.source in per_row else shape, combo.dtype(d.source or first)) for d in dev.outputs],
            f"{list(shape)}, dim -1",
        )
    ]
