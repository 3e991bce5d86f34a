"""The ``compute`` section of the ``foreach`` family: its model and its parser.

A foreach op applies one formula to every tensor of a tensor list (``list: true``), element by element:
``out[i] = f(x[i])`` for each tensor ``i`` of the list. The section maps the output list to its formula, in the
project's formula language (parsed by :func:`codegen.spec.expr.parse_expr`, the parser the elementwise family
uses)::

    compute:
      out: "sqrt(x)"

The formula is lowered to one AscendC vector instruction: a call of a function of :data:`UNARY_FUNCTIONS` on
the one input list (``sqrt(x)``), an operator of :data:`BINARY_OPERATORS` between the two input lists
(``x1 * x2``), each tensor of the second list of its tensor's shape in the first, or an operator of
:data:`SCALAR_OPERATORS` (or a call of :data:`SCALAR_FUNCTIONS`, ``max(x, scalar)``) between the one input list
and a ``scalar`` attr (``x * scalar``: the aclScalar
reaches the kernel as a one-element device tensor, the spec's ``device`` input carrying the attr), or, over any
number of input lists and a scalar attr, a formula of :data:`LIST_FORMS` (``x1 + weight * (x2 - x1)``,
``x1 + scalar * x2 * x3``: a short instruction sequence whose result lands in an input list's tile). Every
problem is recorded at its line; the model is frozen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import NO_LOC, SourceLoc, SpecError
from codegen.spec.expr import Binary, Call, Expr, Name, parse_expr, to_source
from codegen.spec.model import DType
from codegen.spec.yaml_reader.nodes import YScalar

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["call_problem", "parse_compute"]


@dataclass(frozen=True)
class UnaryFunction:
    """A formula function or operator the family lowers to one AscendC vector instruction.

    Attributes:
        name: the formula's function name (``sqrt``) or operator (``*``).
        instruction: the AscendC API (``Sqrt(dst, src, count)``, asc-devkit
            include/basic_api/kernel_operator_vec_unary_intf.h; ``Mul(dst, src0, src1, count)``,
            kernel_operator_vec_binary_intf.h).
        words: the function in words, for the API document.
        arity: the input lists it reads (1: a function call or a scalar operator, 2: a binary operator).
        scalar: whether it takes a scalar attr as its second operand (``Muls(dst, src, scalarValue, count)``,
            kernel_operator_vec_binary_scalar_intf.h).
        fused: for a :data:`SCALED_OPERATORS` form, the instruction that computes ``a <op> scalar * b`` in one
            into ``a``'s tile (``Axpy(a, b, scalarValue, count)``: ``a[i] = b[i] * scalarValue + a[i]``,
            kernel_operator_vec_ternary_scalar_intf.h), which the kernel runs where ``a`` is a scratch tile whose
            value is dead afterwards (BF16's fp32 copy of the tile: one instruction fewer than ``Muls`` then the
            operator); None where the operator has none.
        pattern: for a :data:`LIST_FORMS` entry, the formula it lowers, its input lists as ``{0}``, ``{1}``, ...
            (in spec order) and the scalar attr as ``{s}``; None otherwise.
        steps: for a :data:`LIST_FORMS` entry, the C++ statements of its ``Apply(t, count)``: vector instructions
            on the input lists' tiles ``t[0]``, ``t[1]``, ... (scratch: each may be overwritten) in the compute
            dtype ``C`` with the scalar ``value``, ending in ``return k;``, the tile that holds the result (the
            kernel copies that tile out, or casts it back, as ops-nn's "implicit output" foreach kernels).
        integer: whether the instruction (and ``Muls`` before it in a scaled form) takes int16_t and int32_t
            tiles, so an INT32 or INT16 list is computed in its own dtype (asc-devkit: ``Add``, ``Sub``, ``Mul``,
            ``Adds``, ``Muls`` and ``Maxs`` take half, float, int16_t and int32_t on NpuArch 2201 and 3510;
            ``Sqrt``, ``Div`` and ``Axpy`` take half and float; ``Power``'s integer form is left out, see
            :data:`SCALAR_FUNCTIONS`). An integer add or product wraps around (two's complement), as the vector
            unit's.
    """

    name: str
    instruction: str
    words: str
    arity: int = 1
    scalar: bool = False
    fused: str | None = None
    pattern: str | None = None
    steps: tuple[str, ...] = ()
    integer: bool = False


#: The unary functions the family's kernels compute, by formula name.
UNARY_FUNCTIONS: dict[str, UnaryFunction] = {f.name: f for f in (UnaryFunction("sqrt", "Sqrt", "the square root"),)}
#: The binary operators between two lists, by formula operator.
BINARY_OPERATORS: dict[str, UnaryFunction] = {
    f.name: f
    for f in (
        UnaryFunction("+", "Add", "the sum", 2, integer=True),
        UnaryFunction("-", "Sub", "the difference", 2, integer=True),
        UnaryFunction("*", "Mul", "the product", 2, integer=True),
        UnaryFunction("/", "Div", "the quotient", 2),
    )
}

#: The operators between an input list and a scalar attr, by formula operator.
SCALAR_OPERATORS: dict[str, UnaryFunction] = {
    f.name: f
    for f in (
        UnaryFunction("+", "Adds", "the sum with the scalar", 1, True, integer=True),
        UnaryFunction("*", "Muls", "the product with the scalar", 1, True, integer=True),
    )
}

#: The functions of an input list and a scalar attr, by formula name (``max(x, scalar)``: ``Maxs``, whose
#: result for a NaN element is the scalar: the vector max returns the other operand for a NaN; ``pow(x, scalar)``:
#: the advanced API ``Power`` with a scalar exponent; its int32_t form is not modelled, so ``pow`` takes floating
#: lists only).
SCALAR_FUNCTIONS: dict[str, UnaryFunction] = {
    f.name: f
    for f in (
        UnaryFunction("max", "Maxs", "the larger of each element and the scalar", 1, True, integer=True),
        # Power(dst, src, src1Scalar, calCount): asc-devkit include/adv_api/math/power.h, the scalar exponent
        # form without sharedTmpBuffer (its temporary space is UB the compiler reserves for it)
        UnaryFunction("pow", "Power", "each element raised to the power of the scalar", 1, True),
    )
}

#: The operators between two lists whose second operand is scaled by a scalar attr first (``x1 + alpha * x2``:
#: ``Muls`` of the second tile, then the operator, or the one ``fused`` instruction into the first tile where
#: that tile is scratch; ops-nn's ForeachAddList kernel runs ``Axpy``), by formula operator.
SCALED_OPERATORS: dict[str, UnaryFunction] = {
    f.name: f
    for f in (
        UnaryFunction("+", "Add", "the sum with the scalar times the second list", 2, True, "Axpy", integer=True),
    )
}

#: Formulas over two or more input lists and a scalar attr, each lowered to a short sequence of vector
#: instructions on the lists' tiles whose result lands in one of them (no output tile: the kernel copies the result
#: tile out), by pattern (see :attr:`UnaryFunction.pattern` and :attr:`UnaryFunction.steps`). Each is the
#: instruction sequence of ops-nn's kernel of that formula (foreach/foreach_lerp_scalar: Sub, then Axpy from the
#: nearer end, choosing it by ``|weight| < 0.5`` as PyTorch's lerp does; foreach/foreach_addcmul_scalar: Mul,
#: then Axpy), with no cast of an input again.
LIST_FORMS: tuple[UnaryFunction, ...] = (
    UnaryFunction(
        "lerp",
        "SubAxpy",
        "the linear interpolation from the first list to the second by the scalar",
        2,
        True,
        None,
        "{0} + {s} * ({1} - {0})",
        (
            "const float weight = static_cast<float>(value);",
            "if (weight < 0.5f && weight > -0.5f) {  // from the start: x1 + w * (x2 - x1)",
            "  Sub(t[1], t[1], t[0], count);",
            "  PipeBarrier<PIPE_V>();",
            "  Axpy(t[0], t[1], value, count);",
            "  return 0;",
            "}",
            "// from the end: x2 + (w - 1) * (x2 - x1)",
            "Sub(t[0], t[1], t[0], count);",
            "PipeBarrier<PIPE_V>();",
            "Axpy(t[1], t[0], static_cast<C>(weight - 1.0f), count);",
            "return 1;",
        ),
    ),
    UnaryFunction(
        "addcmul",
        "MulAxpy",
        "the first list plus the scalar times the product of the other two",
        3,
        True,
        None,
        "{0} + {s} * {1} * {2}",
        (
            "Mul(t[1], t[1], t[2], count);",
            "PipeBarrier<PIPE_V>();",
            "Axpy(t[0], t[1], value, count);",
            "return 0;",
        ),
    ),
)

#: The dtypes the family's kernels take (FLOAT16 and BF16 tiles are computed in fp32 where the op says so; INT32
#: and INT16 in their own dtype, by an instruction whose ``integer`` is set).
FOREACH_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16, DType.INT32, DType.INT16)
#: The integer dtypes of :data:`FOREACH_DTYPES` (a formula whose instruction takes no integers lists none).
FOREACH_INTEGER_DTYPES: tuple[DType, ...] = (DType.INT32, DType.INT16)
#: The integer dtypes a scalar form's list may have: its aclScalar reaches the kernel as a tensor of the list's
#: dtype (ops-nn's V2 APIs convert the scalar of an INT16 list to INT32, a column the family has no kernel for).
FOREACH_SCALAR_INTEGER_DTYPES: tuple[DType, ...] = (DType.INT32,)


@dataclass(frozen=True)
class ForeachCompute:
    """The formula of a foreach op.

    Attributes:
        sources: the input tensor lists the formula reads, in its order (one per list operand of ``function``).
        dest: the output tensor list it writes (``dest[i]`` has ``sources[0][i]``'s shape and dtype).
        function: the function or operator applied to every element (:data:`UNARY_FUNCTIONS`,
            :data:`BINARY_OPERATORS`).
        formula: the formula's text, as written.
        loc: the ``compute`` entry.
        scalar: the scalar attr the formula reads (a :data:`SCALAR_OPERATORS` form), or None.
        in_float: the ``computed_in_float`` key: list dtypes (FLOAT16) whose tiles the kernel casts to FLOAT and
            computes there, as ops-nn's kernel of the op does (its AddcMulScalarAdapter for half); BF16 tiles
            always are. Empty: a FLOAT16 list is computed in the dtype its scalar reaches the kernel in.
    """

    sources: tuple[str, ...]
    dest: str
    function: UnaryFunction
    formula: str
    loc: SourceLoc
    scalar: str | None = None
    in_float: tuple[DType, ...] = ()

    @property
    def implicit_output(self) -> bool:
        """Whether the result lands in an input list's tile (a :data:`LIST_FORMS` entry): the kernel has no output
        tiles."""
        return bool(self.function.steps)

    @property
    def source(self) -> str:
        """The first input list (its tensors' shapes and dtype are every list's)."""
        return self.sources[0]

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: each output tensor has its input tensor's shape (``attrs`` unused)."""
        return shape


def parse_compute(node: YNode, ctx: ComputeContext) -> ForeachCompute | None:
    """Parses and checks the ``compute`` section of a foreach op.

    Checks: every input and the one output are tensor lists (``list: true``) of dtypes among
    :data:`FOREACH_DTYPES`, all of the first input's dtypes, the output with the shape rule ``<first input>``;
    the section has exactly one key, the output's name, whose formula is a call of a function of
    :data:`UNARY_FUNCTIONS` on the one input, an operator of :data:`BINARY_OPERATORS` between the two
    inputs in their spec order, one of :data:`SCALAR_OPERATORS` between the one input and the op's one
    ``scalar`` attr (``x * scalar``) or a call of :data:`SCALAR_FUNCTIONS` on both (``max(x, scalar)``), or
    with two inputs and a scalar attr one of :data:`SCALED_OPERATORS` (``x1 + alpha * x2``), or with any number
    of inputs and a scalar attr a pattern of :data:`LIST_FORMS` with the inputs in their spec order; an
    integer dtype (:data:`FOREACH_INTEGER_DTYPES`) only where the formula's instruction takes it (``integer``),
    INT16 in no scalar form (:data:`FOREACH_SCALAR_INTEGER_DTYPES`). Every problem is recorded in ``ctx.reader``
    at its line.

    Returns:
        The model, or None when a key is missing or wrong.
    """
    r = ctx.reader
    out_names = [t.name for t in ctx.outputs]
    named = [t.name for t in ctx.inputs] + out_names + [a.name for a in ctx.attrs]
    if any(n.startswith("<") for n in named):  # an entry without a name, reported at its line: no formula to read
        return None
    m = r.mapping(node, out_names[:1], ("computed_in_float",))
    if m is None:
        return None
    ok = True
    in_float: tuple[DType, ...] = ()
    if "computed_in_float" in m and ctx.inputs:
        listed = r.strings(m["computed_in_float"])
        for item, name in listed:
            if name != DType.FLOAT16.name or DType.FLOAT16 not in ctx.inputs[0].dtypes:
                why = "" if name == DType.FLOAT16.name else " (BF16 is always computed in FLOAT, FLOAT in itself)"
                r.error(item, f"computed_in_float lists FLOAT16, a dtype of '{ctx.inputs[0].name}'; got '{name}'{why}")
                ok = False
        in_float = (DType.FLOAT16,) if ok and listed else ()
    if not ctx.inputs or len(ctx.outputs) != 1:
        r.error(node, "a foreach op has one or more input tensor lists and one output tensor list")
        return None
    src, dst = ctx.inputs[0], ctx.outputs[0]
    for t in (*ctx.inputs, dst):
        if not t.is_list:
            r.error(node, f"'{t.name}' must be a tensor list (list: true): a foreach op maps lists to lists")
            ok = False
        ok = ctx.require_dtypes(node, t, FOREACH_DTYPES, "the foreach kernels take") and ok
        if ctx.dtypes_read(t, src) and tuple(t.dtypes) != tuple(src.dtypes):
            r.error(node, f"'{t.name}' must have the dtypes of '{src.name}' ({', '.join(d.name for d in src.dtypes)})")
            ok = False
    if dst.shape is not None and to_source(dst.shape) != src.name:  # a missing rule was reported
        r.error(node, f"'{dst.name}' must have the shape rule '{src.name}' (out[i] has {src.name}[i]'s shape)")
        ok = False
    formula_node = m.get(dst.name)
    if formula_node is None:  # reported by the mapping
        return None
    text = r.string(formula_node)
    if text is None:
        return None
    assert isinstance(formula_node, YScalar)
    try:
        expr = parse_expr(text, formula_node.loc, formula_node.path or "compute")
    except SpecError as exc:
        r.error(formula_node, exc.message)
        return None
    names = tuple(t.name for t in ctx.inputs)
    scalars = tuple(a.name for a in ctx.attrs if a.type == "scalar")
    scalar = scalars[0] if len(scalars) == 1 else None
    function = _list_form(expr, names, scalar) or (
        _scaled(expr, names, scalar) if len(names) == 2 and scalar is not None else _lowering(expr, names, scalar)
    )
    if function is None:
        forms = [_form_text(f, names, scalar) for f in LIST_FORMS if f.arity == len(names) and scalar is not None]
        if len(names) == 1 and scalar is None:
            forms += [f"{f}({names[0]})" for f in UNARY_FUNCTIONS]
        elif len(names) == 1:
            forms += [f"{names[0]} {o} {scalar}" for o in SCALAR_OPERATORS]
            forms += [f"{f}({names[0]}, {scalar})" for f in SCALAR_FUNCTIONS]
        elif len(names) == 2 and scalar is not None:
            forms += [f"{names[0]} {o} {scalar} * {names[1]}" for o in SCALED_OPERATORS]
        elif len(names) == 2:
            forms += [f"{names[0]} {o} {names[1]}" for o in BINARY_OPERATORS]
        with_scalar = " and a scalar attr" if scalar is not None else ""
        computes = ", ".join(forms) if forms else f"no formula over {len(names)} input lists{with_scalar}"
        r.error(formula_node, f"the foreach family computes {computes}; got '{text}'")
        return None
    integers = [d for d in src.dtypes if d in FOREACH_INTEGER_DTYPES]
    if integers and not function.integer:
        r.error(
            node,
            f"'{src.name}' lists {', '.join(d.name for d in integers)}, but {function.instruction} (the lowering of "
            f"'{text}') takes floating tiles only",
        )
        ok = False
    narrow = [d for d in integers if d not in FOREACH_SCALAR_INTEGER_DTYPES]
    if function.integer and function.scalar and narrow:
        r.error(
            node,
            f"'{src.name}' lists {', '.join(d.name for d in narrow)}, but a scalar form's integer lists are "
            f"{', '.join(d.name for d in FOREACH_SCALAR_INTEGER_DTYPES)} (the scalar is a tensor of the list's dtype)",
        )
        ok = False
    if not ok:
        return None
    return ForeachCompute(names, dst.name, function, text, node.loc, scalar if function.scalar else None, in_float)


def _lowering(expr: object, names: tuple[str, ...], scalar: str | None) -> UnaryFunction | None:
    """The instruction of ``expr`` over the input lists ``names`` (in their order) and the scalar attr
    ``scalar`` (None: the op has none), or None for another form."""
    if len(names) == 1 and isinstance(expr, Call) and expr.func in UNARY_FUNCTIONS and len(expr.args) == 1:
        arg = expr.args[0]
        return UNARY_FUNCTIONS[expr.func] if isinstance(arg, Name) and arg.id == names[0] else None
    if len(names) == 1 and scalar is not None and isinstance(expr, Call) and expr.func in SCALAR_FUNCTIONS:
        args = [a.id for a in expr.args if isinstance(a, Name)]
        return SCALAR_FUNCTIONS[expr.func] if args == [names[0], scalar] else None
    if not isinstance(expr, Binary) or not isinstance(expr.left, Name) or not isinstance(expr.right, Name):
        return None
    pair = (expr.left.id, expr.right.id)
    if len(names) == 2 and expr.op in BINARY_OPERATORS and pair == names:
        return BINARY_OPERATORS[expr.op]
    if len(names) == 1 and scalar is not None and expr.op in SCALAR_OPERATORS and pair == (names[0], scalar):
        return SCALAR_OPERATORS[expr.op]
    return None


def _form_text(form: UnaryFunction, names: tuple[str, ...], scalar: str | None) -> str:
    """``form``'s pattern with the input lists ``names`` and the scalar attr written in."""
    assert form.pattern is not None
    return form.pattern.format(*names, s=scalar)


def _list_form(expr: object, names: tuple[str, ...], scalar: str | None) -> UnaryFunction | None:
    """The :data:`LIST_FORMS` entry whose pattern, with the input lists ``names`` (spec order) and the scalar attr
    written in, is ``expr`` (compared in the formula language's canonical text), or None."""
    if scalar is None or not isinstance(expr, Expr):
        return None
    text = to_source(expr)
    for form in LIST_FORMS:
        if form.arity != len(names):
            continue
        want = parse_expr(_form_text(form, names, scalar), NO_LOC, "compute")
        if to_source(want) == text:
            return form
    return None


def _scaled(expr: object, names: tuple[str, ...], scalar: str | None) -> UnaryFunction | None:
    """The operator of ``x1 <op> scalar * x2`` over the two input lists ``names`` and the scalar attr, or None."""
    if len(names) != 2 or scalar is None or not isinstance(expr, Binary) or expr.op not in SCALED_OPERATORS:
        return None
    left, right = expr.left, expr.right
    if not (isinstance(left, Name) and left.id == names[0] and isinstance(right, Binary) and right.op == "*"):
        return None
    a, b = right.left, right.right
    if isinstance(a, Name) and isinstance(b, Name) and (a.id, b.id) == (scalar, names[1]):
        return SCALED_OPERATORS[expr.op]
    return None


def call_problem(
    compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 rules the call breaks, ``(input, why)``, or None: element ``i`` of each
    input list after the first has the shape of element ``i`` of the first (the example gives one tensor per list;
    the generated L2 API's ``CheckListShapesEqual``). Any other compute object: None."""
    if not isinstance(compute, ForeachCompute):
        return None
    shapes_of = [shapes[n] for n in compute.sources if n in shapes]
    for n in compute.sources[1:]:
        if n in shapes and shapes_of and shapes[n] != shapes_of[0]:
            first = compute.sources[0]
            return n, f"{n}[0] (shape {list(shapes[n])}) must have the shape of {first}[0] {list(shapes_of[0])}"
    return None


if TYPE_CHECKING:  # mypy checks this module against the contract's protocol (codegen.registry.contract)
    from codegen.families.foreach import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
    _call_problem: contract.ComputeCallProblem = _self
