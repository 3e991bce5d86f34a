"""The ``compute`` section of the ``foreach`` family: its model and its parser.

A foreach op applies one formula to every tensor of a tensor list (``list: true``), element by element:
``out[i] = f(x[i])`` for each tensor ``i`` of the list. The section maps the output list to its formula, in the
project's formula language (parsed by :func:`codegen.spec.expr.parse_expr`, the parser the elementwise family
uses)::

    compute:
      out: "sqrt(x)"

The formula is lowered to the AscendC vector instructions of :data:`UNARY_FUNCTIONS`: for now a call of one
of them on the one input list. Every problem is recorded at its line; the model is frozen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import Call, Name, parse_expr, to_source
from codegen.spec.model import DType
from codegen.spec.yaml_reader.nodes import YScalar

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["parse_compute"]


@dataclass(frozen=True)
class UnaryFunction:
    """A formula function the family lowers to one AscendC vector instruction.

    Attributes:
        name: the formula's function name (``sqrt``).
        instruction: the AscendC API (``Sqrt``: ``Sqrt(dst, src, count)``, asc-devkit
            include/basic_api/kernel_operator_vec_unary_intf.h).
        words: the function in words, for the API document.
    """

    name: str
    instruction: str
    words: str


#: The unary functions the family's kernels compute, by formula name.
UNARY_FUNCTIONS: dict[str, UnaryFunction] = {f.name: f for f in (UnaryFunction("sqrt", "Sqrt", "the square root"),)}

#: The dtypes the family's kernels take (FLOAT16 and BF16 tiles are computed in fp32 where the op says so).
FOREACH_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16)


@dataclass(frozen=True)
class ForeachCompute:
    """The formula of a foreach op.

    Attributes:
        source: the input tensor list the formula reads.
        dest: the output tensor list it writes (``dest[i]`` has ``source[i]``'s shape and dtype).
        function: the unary function applied to every element (:data:`UNARY_FUNCTIONS`).
        formula: the formula's text, as written.
        loc: the ``compute`` entry.
    """

    source: str
    dest: str
    function: UnaryFunction
    formula: str
    loc: SourceLoc

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: each output tensor has its input tensor's shape (``attrs`` unused)."""
        return shape


def parse_compute(node: YNode, ctx: ComputeContext) -> ForeachCompute | None:
    """Parses and checks the ``compute`` section of a foreach op.

    Checks: the op has one input and one output, both tensor lists (``list: true``) of dtypes among
    :data:`FOREACH_DTYPES`, the output of the input's dtypes and with the input's shape (``shape: <input>``); the
    section has exactly one key, the output's name, whose formula is a call of a function of
    :data:`UNARY_FUNCTIONS` on the input. Every problem is recorded in ``ctx.reader`` at its line.

    Returns:
        The model, or None when a key is missing or wrong.
    """
    r = ctx.reader
    out_names = [t.name for t in ctx.outputs]
    m = r.mapping(node, out_names[:1])
    if m is None:
        return None
    ok = True
    if len(ctx.inputs) != 1 or len(ctx.outputs) != 1:
        r.error(node, "a foreach op has one input tensor list and one output tensor list")
        return None
    src, dst = ctx.inputs[0], ctx.outputs[0]
    for t in (src, dst):
        if not t.is_list:
            r.error(node, f"'{t.name}' must be a tensor list (list: true): a foreach op maps lists to lists")
            ok = False
        ok = ctx.require_dtypes(node, t, FOREACH_DTYPES, "the foreach kernels take") and ok
    if tuple(dst.dtypes) != tuple(src.dtypes):
        r.error(node, f"'{dst.name}' must have the dtypes of '{src.name}' ({', '.join(d.name for d in src.dtypes)})")
        ok = False
    if dst.shape is None or to_source(dst.shape) != src.name:
        r.error(node, f"'{dst.name}' must have the shape rule '{src.name}' (out[i] has x[i]'s shape)")
        ok = False
    formula_node = m[dst.name]
    text = r.string(formula_node)
    if text is None:
        return None
    assert isinstance(formula_node, YScalar)
    try:
        expr = parse_expr(text, formula_node.loc, formula_node.path or "compute")
    except SpecError as exc:
        r.error(formula_node, exc.message)
        return None
    allowed = ", ".join(f"{f}({src.name})" for f in UNARY_FUNCTIONS)
    if not (
        isinstance(expr, Call)
        and expr.func in UNARY_FUNCTIONS
        and len(expr.args) == 1
        and isinstance(expr.args[0], Name)
        and expr.args[0].id == src.name
    ):
        r.error(formula_node, f"the foreach family computes {allowed}; got '{text}'")
        return None
    if not ok:
        return None
    return ForeachCompute(src.name, dst.name, UNARY_FUNCTIONS[expr.func], text, node.loc)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocol (codegen.registry.contract)
    from codegen.families.foreach import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
