"""The ``compute`` section of the elementwise family: its model, its scope and its parser.

Nothing here writes files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codegen.families.elementwise.rules import elementwise_host_problem, formula_problem
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import (
    VECTOR_SIGNATURES,
    Call,
    Expr,
    ExprType,
    Name,
    Scope,
    fp32_constant_message,
    to_source,
)
from codegen.spec.model import (
    ATTR_TYPES,
    AttrSpec,
    DType,
    TensorSpec,
)
from codegen.spec.scopes import (
    ComputeContext,
    scalar_scope,
)
from codegen.spec.yaml_reader import Reader, YMap, YNode
from codegen.spec.yaml_reader.nodes import _describe

__all__ = ["division_sites", "parse_compute"]

#: The kinds of a whole-tensor reduction epilogue, the keys of ``compute.reduce`` besides ``attr``: the attr
#: value that keeps the elementwise output (``none``), and the values that reduce it to a 0-d sum or mean.
REDUCE_KINDS: tuple[str, ...] = ("none", "mean", "sum")


@dataclass(frozen=True)
class ReduceEpilogue:
    """The optional whole-tensor reduction after the formula (``compute.reduce``).

    ``compute.reduce: {attr: reduction, none: 0, mean: 1, sum: 2}``: the integer attr ``attr`` selects, per
    call, the elementwise output (its value ``none``), or the fp32 sum of the formula over every element of
    the broadcast shape (``sum``), or that sum divided by the element count (``mean``); the last two write a
    0-d output. The values come from the spec (each one of the attr's declared ``values``); any other value
    of the attr is rejected by the aclnn API (its ``values`` check, 161002).
    """

    attr: str
    none: int
    mean: int
    sum: int

    @property
    def values(self) -> dict[str, int]:
        """The attr value of each kind, by kind name (``none``, ``mean``, ``sum``)."""
        return {"none": self.none, "mean": self.mean, "sum": self.sum}

    def reduces(self, value: object) -> bool:
        """Whether the attr value ``value`` selects the sum or the mean (a 0-d output)."""
        return value in (self.mean, self.sum) and not isinstance(value, bool)


@dataclass(frozen=True)
class ElementwiseCompute:
    """The ``compute`` section of an elementwise op.

    Attributes:
        promote: inputs whose dtypes are promoted to one common compute dtype (may be empty).
        scalars: host-evaluated scalars, ``(name, expr)`` in spec order, over attrs, ``numel/rank/dim/dtype``
            of tensors, ``coreNum``, ``ubBytes`` and earlier scalars.
        outputs: ``(output name, formula)`` in output order; a formula is over input names, scalar names,
            numbers and the elementwise functions.
        loc: the ``compute`` entry.
        scalar_types: the inferred type of each scalar (INT or FLOAT), in the order of ``scalars``.
        reduce: the whole-tensor reduction epilogue (``compute.reduce``), or None.
    """

    promote: tuple[str, ...]
    scalars: tuple[tuple[str, Expr], ...]
    outputs: tuple[tuple[str, Expr], ...]
    loc: SourceLoc
    scalar_types: tuple[tuple[str, ExprType], ...] = ()
    reduce: ReduceEpilogue | None = None

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``()`` when the reduction attr's value in ``attrs`` selects the mean or the sum (the epilogue
        writes a 0-d output), else ``shape`` (the elementwise output)."""
        if self.reduce is not None and self.reduce.reduces(attrs.get(self.reduce.attr)):
            return ()
        return shape


def elementwise_scope(
    inputs: Sequence[TensorSpec], scalars: Sequence[tuple[str, ExprType]], attrs: Sequence[AttrSpec] = ()
) -> Scope:
    """Scope of elementwise output formulas: input names (one element each, FLOAT), scalar names, attribute
    names (host values, typed as in host expressions) and the functions of ``VECTOR_SIGNATURES``
    (``sigmoid exp log abs sqrt min max relu tanh erf log1p rsqrt sign clamp pow where``)."""
    allowed = {t.name: ExprType.FLOAT for t in inputs}
    attr_types = {a.name: a.expr_type for a in attrs if a.type in ATTR_TYPES}
    allowed.update(attr_types)
    allowed.update(dict(scalars))
    groups = (
        ("inputs", tuple(t.name for t in inputs)),
        ("attrs", tuple(attr_types)),
        ("scalars", tuple(n for n, _ in scalars)),
    )
    return Scope(allowed, VECTOR_SIGNATURES, groups)


def _check_elementwise_tensors(r: Reader, ctx: ComputeContext) -> None:
    """Elementwise rules on tensors: every optional input has a ``default`` (the value the formula uses when
    it is null), at least one input is required (its dtype selects the kernel), an output shape that names
    one input (``shape: self``: the other inputs broadcast to it) names a required one, and a
    ``broadcast(...)`` output shape has every input, optional ones included, among its arguments (the API's
    shape check covers only those; the kernel broadcasts every input to the output)."""
    reported = {e.field for e in r.errors}
    for i, t in enumerate(ctx.inputs):
        # a default that is there but wrong was reported at it already (one mistake, one error)
        if t.optional and t.default is None and f"inputs[{i}].default" not in reported:
            r.errors.append(
                SpecError(
                    t.loc,
                    f"inputs[{i}].default",
                    f"optional input '{t.name}' needs a default: the value the formula uses when it is null",
                )
            )
    if ctx.inputs and all(t.optional for t in ctx.inputs):
        r.errors.append(SpecError(ctx.inputs[0].loc, "inputs", "an elementwise op needs at least one required input"))
    _check_elementwise_dtypes(r, ctx)
    by_name = {t.name: t for t in ctx.inputs}
    for i, out in enumerate(ctx.outputs):
        # checked once the file's entries before compute have no errors of their own (a misnamed or extra
        # input is reported as such, not again as missing from the rule)
        clean = not any(e.loc.file == out.loc.file for e in r.errors)
        if clean and isinstance(out.shape, Call) and out.shape.func == "broadcast":
            named = {a.id for a in out.shape.args if isinstance(a, Name)}
            for t in ctx.inputs:
                if t.name not in named:
                    what = "optional input" if t.optional else "input"
                    r.errors.append(
                        SpecError(
                            out.loc,
                            f"outputs[{i}].shape",
                            f"{what} '{t.name}' is not an argument of the shape rule {to_source(out.shape)}: its "
                            "shape would never be checked (a shape that does not broadcast would fail in "
                            f"l0op::BroadcastTo instead of answering 161002); add it to broadcast(...)",
                        )
                    )
        if isinstance(out.shape, Name) and out.shape.id in by_name and by_name[out.shape.id].optional:
            r.errors.append(
                SpecError(
                    out.loc,
                    f"outputs[{i}].shape",
                    f"'{out.shape.id}' is optional; an output shape may only name a required input",
                )
            )


#: Dtypes the elementwise kernel computes on: FLOAT in place, FLOAT16/BF16 cast to fp32 and back.
ELEMENTWISE_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16)
#: Integer dtypes an elementwise spec may list where its formula only selects among its inputs and integer
#: literals by comparing inputs with host values (the kernel's element program, checked when it is compiled:
#: :func:`codegen.families.elementwise.plan.variants.check_integer_programs`): 32-bit elements are selected as
#: they are, 8-bit ones through half (exact).
INTEGER_DTYPES: tuple[DType, ...] = (DType.INT32, DType.INT8, DType.UINT8)


def _check_elementwise_dtypes(r: Reader, ctx: ComputeContext) -> None:
    """Elementwise dtype rules: only :data:`ELEMENTWISE_DTYPES` (the kernel computes in float) and
    :data:`INTEGER_DTYPES` (whose program is checked when compiled), and every
    input and output lists the same dtypes in the same order as the first required input (the device op
    gets every tensor in the one compute dtype, and the OpDef pairs the tensors' dtype lists by position)."""
    if not ctx.dtypes_read(*ctx.inputs, *ctx.outputs) or any(
        e.field.endswith("dtypes") or ".dtypes[" in e.field for e in r.errors
    ):
        return  # a list with errors of its own would only repeat them here
    known = (*ELEMENTWISE_DTYPES, *INTEGER_DTYPES)
    allowed = ", ".join(d.name for d in known)
    tensors = [(f"inputs[{i}]", t) for i, t in enumerate(ctx.inputs)]
    tensors += [(f"outputs[{i}]", t) for i, t in enumerate(ctx.outputs)]
    reference = next((t for t in ctx.inputs if not t.optional), None)
    for field, t in tensors:
        bad = [d.name for d in t.dtypes if d not in known]
        if bad:
            r.errors.append(
                SpecError(
                    t.loc,
                    f"{field}.dtypes",
                    f"'{t.name}' lists {', '.join(bad)}, which the elementwise family does not compute on "
                    f"(its kernel computes in float, and selects integers); allowed: {allowed}",
                )
            )
        elif (
            reference is not None
            and t is not reference
            and t.dtypes != reference.dtypes
            and not any(d not in known for d in reference.dtypes)
        ):
            r.errors.append(
                SpecError(
                    t.loc,
                    f"{field}.dtypes",
                    f"'{t.name}' lists [{', '.join(d.name for d in t.dtypes)}] but '{reference.name}' lists "
                    f"[{', '.join(d.name for d in reference.dtypes)}]; the tensors of an elementwise op must "
                    "list the same dtypes in the same order (the device op computes all of them in one dtype "
                    "and its OpDef pairs the lists by position)",
                )
            )


def parse_elementwise_compute(node: YNode, ctx: ComputeContext) -> ElementwiseCompute | None:
    """Parses the ``compute`` section of the elementwise family.

    Keys: ``promote`` (inputs promoted to one compute dtype), ``scalars`` (name -> host expression in
    :func:`scalar_scope`, integer or float), ``reduce`` (optional, a :class:`ReduceEpilogue`: ``attr`` names an
    integer attr with declared ``values``, and ``none``/``mean``/``sum`` give three distinct ones of them), and
    one formula per output name (in :func:`elementwise_scope`).

    Returns:
        The model, or None when the node is not a mapping.
    """
    r = ctx.reader
    output_names = [t.name for t in ctx.outputs]
    m = r.mapping(node, output_names, ("promote", "scalars", "reduce"))
    if m is None:
        return None
    for out in ctx.outputs:
        if out.name in ("promote", "scalars", "reduce"):
            r.error(node, f"an elementwise output cannot be called '{out.name}' (a key of compute)")
    input_names = [t.name for t in ctx.inputs]
    _check_elementwise_tensors(r, ctx)
    promote: list[str] = []
    if "promote" in m:
        for item, name in r.strings(m["promote"]):
            if name not in input_names:
                r.error(item, f"'{name}' is not an input; allowed: {', '.join(input_names)}")
            elif name in promote:
                r.error(item, f"duplicate input '{name}'")
            else:
                promote.append(name)
    scalars: list[tuple[str, Expr]] = []
    types: list[tuple[str, ExprType]] = []
    if "scalars" in m:
        sm = m["scalars"]
        if not isinstance(sm, YMap):
            r.error(sm, f"expected a mapping of scalar name to expression, got {_describe(sm)}")
        else:
            for key, value in sm.entries:
                scalar = r.name(key) if isinstance(key.value, str) else None
                if scalar is None:
                    if not isinstance(key.value, str):
                        r.error(key, f"scalar name {key.value!r} is not a string")
                    continue
                if not ctx.claim(key, scalar):
                    continue
                scope = scalar_scope(ctx.inputs, ctx.outputs, ctx.attrs, types)
                e, typ = r.expr(value, scope, (ExprType.INT, ExprType.FLOAT), f"scalar '{scalar}'")
                host_problem = elementwise_host_problem(e, input_names) if e is not None else None
                if e is not None and not host_problem:
                    constant = fp32_constant_message(e)
                    host_problem = f"scalar '{scalar}': {constant}" if constant else None
                if host_problem:
                    r.error(value, host_problem)
                    e = None
                if e is not None and typ is not None:
                    scalars.append((scalar, e))
                    types.append((scalar, typ))
                else:
                    types.append((scalar, ExprType.FLOAT))  # keep the name known to the formulas
                    r.poisoned.add(scalar)
    outputs: list[tuple[str, Expr]] = []
    scope = elementwise_scope(ctx.inputs, types, ctx.attrs)
    for name in output_names:
        if name in m:
            e, _ = r.expr(m[name], scope, (ExprType.INT, ExprType.FLOAT), f"the formula of '{name}'")
            problem = formula_problem(e, input_names) if e is not None else None
            if e is not None and not problem:
                constant = fp32_constant_message(e)
                problem = f"the formula of '{name}': {constant}" if constant else None
            if problem:
                r.error(m[name], problem)
            elif e is not None:
                outputs.append((name, e))
    reduce = _parse_reduce(m["reduce"], ctx) if "reduce" in m else None
    return ElementwiseCompute(tuple(promote), tuple(scalars), tuple(outputs), node.loc, tuple(types), reduce)


def _parse_reduce(node: YNode, ctx: ComputeContext) -> ReduceEpilogue | None:
    """``compute.reduce``: ``{attr: <integer attr>, none: <value>, mean: <value>, sum: <value>}``; errors name
    the field (an unknown attr, an attr without declared ``values``, a value the attr does not declare, two
    kinds sharing a value, a declared value no kind maps, an op with more than one output, an output whose
    rank excludes 0-d)."""
    r = ctx.reader
    m = r.mapping(node, ("attr", *REDUCE_KINDS))
    if m is None:
        return None
    if "attr" not in m:
        return None  # the missing key is recorded
    attr_name = r.string(m["attr"])
    attr = next((a for a in ctx.attrs if a.name == attr_name), None)
    if attr_name is None:
        return None
    if attr is None:
        allowed = ", ".join(a.name for a in ctx.attrs) or "none"
        r.error(m["attr"], f"'{attr_name}' is not an attr of the op; allowed: {allowed}")
        return None
    if attr.type not in ("int64", "uint64") or not attr.values:
        r.error(m["attr"], f"attr '{attr_name}' must be an integer attr with declared values (e.g. {{0: none}})")
        return None
    declared = [v for v, _ in attr.values]
    values: dict[str, int] = {}
    for kind in REDUCE_KINDS:
        if kind not in m:
            continue  # the missing key is recorded
        v = r.integer(m[kind])
        if v is None:
            continue
        if v not in declared:
            r.error(m[kind], f"{v} is not a declared value of '{attr_name}' ({', '.join(map(str, declared))})")
        elif v in values.values():
            r.error(m[kind], f"{v} is already the value of another reduction kind")
        else:
            values[kind] = v
    if len(ctx.outputs) != 1:
        r.error(node, "a reduce epilogue needs exactly one output")
        return None
    if len(values) != len(REDUCE_KINDS):
        return None
    unmapped = [v for v in declared if v not in values.values()]
    if unmapped:
        # the kernel knows none, mean and sum only: another declared value would reach it unchecked
        r.error(
            m["attr"],
            f"attr '{attr_name}' declares {', '.join(map(str, unmapped))}, which compute.reduce does not map; "
            f"its values must be exactly the none, mean and sum values",
        )
        return None
    lo = ctx.outputs[0].rank[0]
    if lo > 0:
        r.error(
            node,
            f"output '{ctx.outputs[0].name}' has rank [{lo}, {ctx.outputs[0].rank[1]}], but mean and sum return a "
            f"0-d tensor; its rank must start at 0",
        )
        return None
    return ReduceEpilogue(attr_name, values["none"], values["mean"], values["sum"])


#: The family's compute parser (see :mod:`codegen.registry`).
parse_compute = parse_elementwise_compute


def division_sites(
    compute: object, compute_node: YNode, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> Iterator[tuple[YNode, Expr, dict[str, Any]]]:
    """The scalars and formulas of an elementwise compute section, for the loader's division-by-zero check:
    ``(node, expr, {"defs", "nonzero", "opaque"})``. Scalars and formulas see the scalars' definitions; the
    tiling function runs only for a non-empty output (``numel(<output>)`` is nonzero there); a formula's
    input values are opaque (any element value)."""
    if not isinstance(compute, ElementwiseCompute) or not isinstance(compute_node, YMap):
        return
    compute_nodes = {k.value: v for k, v in compute_node.entries}
    defs = dict(compute.scalars)
    # The tiling function runs only for a non-empty output (the op API returns before it otherwise).
    tiling_nonzero = {f"numel({o.name})" for o in outputs}
    scalars_node = compute_nodes.get("scalars")
    for key, value in scalars_node.entries if isinstance(scalars_node, YMap) else []:
        if key.value in defs:
            yield value, defs[key.value], {"defs": defs, "nonzero": tiling_nonzero}
    for name, formula in compute.outputs:
        if name in compute_nodes:
            how = {"defs": defs, "nonzero": tiling_nonzero, "opaque": [t.name for t in inputs]}
            yield compute_nodes[name], formula, how


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.elementwise import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
    _division_sites: contract.ComputeDivisionSites = _self
