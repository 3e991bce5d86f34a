"""The ``compute`` section of the ``gather_scatter`` family: its model and its parser.

A gather/scatter op views a tensor as ``[P, A, Q]`` around ``dim`` (``A`` = the extent of ``dim``, ``P`` and
``Q`` the products of the dims before and after it) and moves rows ``[p, i, :]`` of ``Q`` elements as an
index tensor says. The one direction so far is the row gather::

    compute:
      direction: gather    # out[p, k, q] = source[p, index[k], q]
      source: self         # input read by index
      index: index         # INT32/INT64 input, 0-d or 1-d: the K positions along dim
      dest: out            # output, the source's shape with dim's extent K, the source's dtype
      dim: dim             # int64 attr: the dim, in [-rank, rank) (a 0-d source counts as rank 1)

The family registry (:mod:`codegen.registry`) finds the parser as ``parse_compute``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codegen.spec.errors import SourceLoc
from codegen.spec.model import DType

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import YNode

__all__ = ["parse_compute"]

#: The directions the family generates.
DIRECTIONS: tuple[str, ...] = ("gather",)
#: Index dtypes the kernels read (the tiling key's index digit is the position).
INDEX_DTYPES: tuple[DType, ...] = (DType.INT32, DType.INT64)


@dataclass(frozen=True)
class GatherScatterCompute:
    """What each tensor and attr of a gather/scatter op is.

    Attributes:
        direction: ``gather`` (read by index, write dense).
        source: the input the rows are read from, viewed as ``[P, A, Q]``.
        index: the index input (0-d or 1-d, INT32 or INT64): ``K`` positions along ``dim``.
        dest: the output, ``[P, K, Q]`` in the source's dims, of the source's dtype.
        dim: the int64 attr naming the dim.
        loc: the ``compute`` entry.
    """

    direction: str
    source: str
    index: str
    dest: str
    dim: str
    loc: SourceLoc

    def first_output_shape(self, shape: tuple[int, ...], attrs: Mapping[str, object]) -> tuple[int, ...]:
        """``shape``: the output shape rule alone gives the output's shape (``attrs`` unused)."""
        return shape


def parse_gather_scatter_compute(node: YNode, ctx: ComputeContext) -> GatherScatterCompute | None:
    """Parses and checks the ``compute`` section of a gather/scatter op.

    Checks: ``direction`` is one of :data:`DIRECTIONS`; ``source`` and ``index`` name two different inputs
    and ``dest`` the one output; the index input's dtypes are among :data:`INDEX_DTYPES` and its rank at most
    1; the output's dtypes equal the source's; ``dim`` names an int64 attr; the op has exactly these two
    inputs, one output and one attr. Every problem is recorded in ``ctx.reader`` at its line.

    Returns:
        The model, or None when a key is missing or wrong.
    """
    r = ctx.reader
    m = r.mapping(node, ("direction", "source", "index", "dest", "dim"), ())
    if m is None:
        return None
    ok = True
    inputs = {t.name: t for t in ctx.inputs}
    outputs = {t.name: t for t in ctx.outputs}
    attrs = {a.name: a for a in ctx.attrs}

    def name_of(key: str, among: Mapping[str, object], kind: str) -> str | None:
        nonlocal ok
        name = r.string(m[key]) if key in m else None
        if name is None:
            ok = False
            return None
        if name not in among:
            r.error(m[key], f"'{name}' is not {kind}; allowed: {', '.join(among) or '(none)'}")
            ok = False
            return None
        return name

    direction = r.string(m["direction"]) if "direction" in m else None
    if direction is not None and direction not in DIRECTIONS:
        r.error(m["direction"], f"direction '{direction}' is not one of: {', '.join(DIRECTIONS)}")
        ok = False
    source = name_of("source", inputs, "an input")
    index = name_of("index", inputs, "an input")
    dest = name_of("dest", outputs, "an output")
    dim = name_of("dim", attrs, "an attr")
    if source is not None and source == index:
        r.error(m["index"], f"index and source must be different inputs, both are '{source}'")
        ok = False
    if index is not None:
        t = inputs[index]
        bad = [d.name for d in t.dtypes if d not in INDEX_DTYPES]
        if bad:
            r.error(
                m["index"],
                f"index input '{index}' has dtypes {', '.join(bad)}; "
                f"allowed: {', '.join(d.name for d in INDEX_DTYPES)}",
            )
            ok = False
        if t.rank[1] > 1:
            r.error(m["index"], f"index input '{index}' must have rank 0 or 1, got up to {t.rank[1]}")
            ok = False
    if source is not None and dest is not None and inputs[source].dtypes != outputs[dest].dtypes:
        r.error(m["dest"], f"output '{dest}' must list the dtypes of '{source}' in the same order (it takes its dtype)")
        ok = False
    if dim is not None and attrs[dim].type != "int64":
        r.error(m["dim"], f"attr '{dim}' is {attrs[dim].type}; dim needs an int64 attr")
        ok = False
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 1 or len(ctx.attrs) != 1:
        r.error(node, "the family takes exactly two inputs (source, index), one output and one attr (dim)")
        ok = False
    if not ok or direction is None or source is None or index is None or dest is None or dim is None:
        return None
    return GatherScatterCompute(direction, source, index, dest, dim, node.loc)


#: The family's compute parser (see :mod:`codegen.registry`).
parse_compute = parse_gather_scatter_compute

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
