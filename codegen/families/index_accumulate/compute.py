"""The ``compute`` section of the ``index_accumulate`` family: its model and its parser.

An index-accumulate op adds rows of a source tensor into rows of an output selected by an index tensor
(``out[index[i]] += rows[i]``), optionally skipping a padding row and scaling by the occurrence count of
each index. The spec names which tensors and attrs play each role::

    compute:
      accumulate: out                  # output [num_rows, D]
      rows: grad                       # input [..., D], viewed as [N, D]
      index: indices                   # input with N elements
      num_rows: numWeights             # integer attr: rows of the output
      padding: paddingIdx              # optional integer attr: row never written (negative: none)
      count_scaling: scaleGradByFreq   # optional bool attr: divide by the index's occurrence count

The family registry (:mod:`codegen.registry`) finds the parser as ``parse_compute``. It uses only the reader of its
:class:`~codegen.spec.scopes.ComputeContext`, so this module does not import the loader at run time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import SourceLoc
from codegen.spec.model import AttrSpec, DType, TensorSpec
from codegen.spec.naming import a_or_an

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["call_problem", "parse_compute"]

#: Index dtypes the family's kernels decode (floating ones toward zero, BOOL as 0/1), in key order.
INDEX_DTYPES: tuple[DType, ...] = (
    DType.FLOAT,
    DType.FLOAT16,
    DType.DOUBLE,
    DType.INT32,
    DType.INT64,
    DType.INT16,
    DType.INT8,
    DType.UINT8,
    DType.BOOL,
)
#: Dtypes of the source rows and of the output (accumulated in fp32).
ROW_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16)

_INTEGER_ATTR_TYPES = ("int64", "uint64")


@dataclass(frozen=True)
class IndexAccumulateCompute:
    """What each tensor and attr of an index-accumulate op is.

    Attributes:
        accumulate: the output receiving the sums, ``[num_rows, D]``.
        rows: the input whose rows are added, ``[..., D]`` viewed as ``[N, D]``.
        index: the input holding one output row per source row (``N`` elements, any shape).
        num_rows: the integer attr giving the number of output rows.
        padding: the integer attr naming the output row that is never written (negative as int64: none),
            or None.
        count_scaling: the bool attr that divides each contribution by its index's occurrence count in the
            whole index tensor, or None.
        loc: the ``compute`` entry.
    """

    accumulate: str
    rows: str
    index: str
    num_rows: str
    padding: str | None
    count_scaling: str | None
    loc: SourceLoc

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: the output shape rule alone gives the first output's shape (``attrs`` unused)."""
        return shape


def _find_tensor(tensors: tuple[TensorSpec, ...], name: str) -> TensorSpec | None:
    return next((t for t in tensors if t.name == name), None)


def _find_attr(attrs: tuple[AttrSpec, ...], name: str) -> AttrSpec | None:
    return next((a for a in attrs if a.name == name), None)


def parse_index_accumulate_compute(node: YNode, ctx: ComputeContext) -> IndexAccumulateCompute | None:
    """Parses and checks the ``compute`` section of an index-accumulate op.

    Checks: each key names a tensor or attr of the right kind (``accumulate`` an output, ``rows`` and
    ``index`` two different inputs, ``num_rows``/``padding`` int64 or uint64 attrs, ``count_scaling`` a bool
    attr); the index input's dtypes are among :data:`INDEX_DTYPES`; the rows input and the output use
    :data:`ROW_DTYPES`; the rows input has rank at least 2 and the output rank exactly 2. Every problem is
    recorded in ``ctx.reader`` at its line.

    Returns:
        The model, or None when a required key is missing or names the wrong kind of entry.
    """
    r = ctx.reader
    m = r.mapping(node, ("accumulate", "rows", "index", "num_rows"), ("padding", "count_scaling"))
    if m is None:
        return None
    ok = True
    inputs = ", ".join(t.name for t in ctx.inputs)
    outputs = ", ".join(t.name for t in ctx.outputs)

    def tensor_role(key: str, among: tuple[TensorSpec, ...], kind: str, allowed: str) -> TensorSpec | None:
        nonlocal ok
        if key not in m:
            ok = False
            return None
        name = r.string(m[key])
        found = _find_tensor(among, name) if name is not None else None
        if found is None:
            if name is not None:
                r.error(m[key], f"'{name}' is not an {kind}; allowed: {allowed}")
            ok = False
        return found

    def attr_role(key: str, types: tuple[str, ...]) -> AttrSpec | None:
        nonlocal ok
        if key not in m:
            return None
        name = r.string(m[key])
        found = _find_attr(ctx.attrs, name) if name is not None else None
        fitting = ", ".join(a.name for a in ctx.attrs if a.type in types) or "(none)"
        if found is None:
            if name is not None:
                r.error(m[key], f"'{name}' is not an attr; allowed ({' or '.join(types)} attrs): {fitting}")
            ok = False
        elif found.type not in types:
            wanted = " or ".join(types)
            r.error(
                m[key], f"attr '{found.name}' is {found.type}; {key} needs {a_or_an(wanted)} {wanted} attr: {fitting}"
            )
            ok = False
            return None
        return found

    out = tensor_role("accumulate", ctx.outputs, "output", outputs)
    rows = tensor_role("rows", ctx.inputs, "input", inputs)
    index = tensor_role("index", ctx.inputs, "input", inputs)
    if "num_rows" not in m:
        ok = False
    num_rows = attr_role("num_rows", _INTEGER_ATTR_TYPES)
    padding = attr_role("padding", _INTEGER_ATTR_TYPES)
    scaling = attr_role("count_scaling", ("bool",))
    if rows is not None and index is not None and rows.name == index.name:
        r.error(m["index"], f"index and rows must be different inputs, both are '{rows.name}'")
        ok = False
    if index is not None and not ctx.require_dtypes(m["index"], index, INDEX_DTYPES, "the family decodes index dtypes"):
        ok = False
    for key, t in (("rows", rows), ("accumulate", out)):
        if t is None:
            continue
        if not ctx.require_dtypes(m[key], t, ROW_DTYPES, "the family accumulates in fp32 and supports"):
            ok = False
    if rows is not None and ctx.ranks_read(rows) and rows.rank[0] < 2:
        r.error(
            m["rows"],
            f"rows input '{rows.name}' needs rank at least 2 ([..., D]), but its rank starts at {rows.rank[0]}",
        )
        ok = False
    if out is not None and ctx.ranks_read(out) and out.rank != (2, 2):
        r.error(
            m["accumulate"],
            f"output '{out.name}' must have rank exactly 2 ([num_rows, D]), got {out.rank[0]}-{out.rank[1]}",
        )
        ok = False
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 1:
        r.error(
            node,
            f"the family takes exactly two inputs (rows, index) and one output, got inputs [{inputs}] and "
            f"outputs [{outputs}]",
        )
        ok = False
    roles = {a.name for a in (num_rows, padding, scaling) if a is not None}
    for a in ctx.attrs:
        if a.name not in roles and ok:
            r.error(node, f"attr '{a.name}' has no role in compute; give it one of num_rows, padding, count_scaling")
            ok = False
    if not ok or out is None or rows is None or index is None or num_rows is None:
        return None
    return IndexAccumulateCompute(
        accumulate=out.name,
        rows=rows.name,
        index=index.name,
        num_rows=num_rows.name,
        padding=padding.name if padding is not None else None,
        count_scaling=scaling.name if scaling is not None else None,
        loc=node.loc,
    )


#: The family's compute parser (see :mod:`codegen.registry`).
parse_compute = parse_index_accumulate_compute


def call_problem(
    compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 rules the call breaks, ``(input, why)``, or None: the rows input
    ``[..., D]`` holds one row per element of the index (the generated L2 API's ``RowCount`` check; the output's
    ``[num_rows, D]`` is its shape rule). Any other compute object: None."""
    if not isinstance(compute, IndexAccumulateCompute):
        return None
    rows, index = shapes.get(compute.rows), shapes.get(compute.index)
    if rows is None or index is None or not rows:
        return None
    count = math.prod(rows[:-1])
    if count != math.prod(index):
        return compute.index, (
            f"{compute.rows} {list(rows)} has {count} rows once its leading axes are flattened, but "
            f"{compute.index} {list(index)} has {math.prod(index)} elements; they must be equal"
        )
    return None


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.index_accumulate import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
    _call_problem: contract.ComputeCallProblem = _self
