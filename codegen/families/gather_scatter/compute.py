"""The ``compute`` section of the ``gather_scatter`` family: its parser (the model is
:mod:`codegen.families.gather_scatter.model`).

A gather/scatter op views a tensor as ``[P, A, Q]`` around ``dim`` (``A`` = the extent of ``dim``, ``P`` and
``Q`` the products of the dims before and after it) and moves rows ``[p, i, :]`` of ``Q`` elements as an
index tensor says. The one direction so far is the row gather::

    compute:
      direction: gather    # out[p, k, q] = source[p, index[k], q]
      source: self         # input read by index
      index: index         # INT32/INT64 input: the K positions along dim
      dest: out            # output of the source's dtype
      dim: dim             # the dim (below)
      negative_index: zero # optional: zero (default) or wrap

``dim`` is one of three kinds, each with its output shape rule (the output's ``shape`` must be written so):

- an int64 attr (IndexSelect): the dim, in ``[-rank, rank)`` (a 0-d source counts as rank 1); the index is
  0-d or 1-d and the output is the source's shape with dim's extent ``numel(index)``:
  ``replaced(self, dim, numel(index))``;
- a constant integer ``d`` (Embedding: 0), below the source's smallest rank: the index has any rank and its
  shape takes dim ``d``'s place: ``inserted(weight, 0, indices)``;
- ``flatten`` (Take): the source is read as one row of ``numel(source)`` elements of one element each (``P =
  Q = 1``), the index has any rank and the output its shape: ``inserted(shape(numel(self)), 0, index)``.

``direction: gather_elements`` (Gather, ``torch.gather``) picks one element per index element instead of
rows: the index has the source's rank (a 0-d tensor counts as rank 1), each of its extents outside ``dim`` at
most the source's, and ``out[i...] = source[i... with dim's coordinate replaced by index[i...]]``; ``dim``
must be an int64 attr and the output has the index's shape: ``index``.

``direction: fill`` (aclnnIndexFillTensor, ``Tensor.index_fill``) writes instead of reading by index: ``out``
is ``source`` with every slice along ``dim`` whose position ``index`` names set to one value::

    compute:
      direction: fill      # out[p, a, q] = value if a is in index, else source[p, a, q]
      source: self         # the one input
      index: index         # an int_array attr (length: any): the positions along dim; [-A, 0) counts from the end
      dest: out            # output of the source's dtype and shape
      dim: dim             # an int64 attr, in [-rank, rank) (a 0-d source counts as rank 1)
      value: value         # a scalar attr: the fill value

The op has one input, one output and these three attrs; the output's shape rule is the source's name. The
device op takes the index array and the value as tensors (:meth:`GatherScatterCompute.device_interface`): the
L2 API hands it the positions wrapped, sorted and distinct (INT64) and the value as one element of the
source's dtype. An index value outside ``[-A, A)`` is refused in phase 1 (161002), as CANN does.

``negative_index`` says what an index below 0 selects: ``zero`` a row of zeros (as any value outside ``[0,
A)``), ``wrap`` the row ``index + A`` when that is in ``[0, A)`` (PyTorch's rule), a row of zeros otherwise.

``direction: scatter_add`` (aclnnScatterAdd, ``Tensor.scatter_add``) adds instead of reading: ``out`` is
``source`` with ``src[c]`` added at ``c`` with dim's coordinate replaced by ``index[c]``, for every element ``c``
of ``index`` (duplicates add up)::

    compute:
      direction: scatter_add  # out = source; out[c with dim <- index[c]] += src[c]
      source: self            # the tensor added into (out has its shape and dtype)
      index: index            # INT32/INT64 input of source's rank: extents <= src's, and <= source's outside dim
      src: src                # the input the added elements come from (source's dtypes)
      dest: out
      dim: dim                # an int64 attr, in [-rank, rank) (a 0-d tensor counts as rank 1)

The op has these three inputs, one output and the one attr; the output's shape rule is the source's name. An
index outside ``[0, A)`` adds nothing (CANN documents only values inside it). The kernel is the shared
element scatter-add (``templates/common/scatter_kernel.j2``, :mod:`codegen.plan.scatter`).

``direction: index_add`` (aclnnIndexAdd, ``Tensor.index_add``) is the row form: the same keys plus ``alpha`` (a
scalar attr, the op's second attr); the index is 0-d or 1-d (``K`` positions), src has the source's extents
except ``K`` along dim, and ``out[..., index[k], ...] += alpha * src[..., k, ...]``. The device op takes alpha as
a one-element tensor of the source's dtype; the kernel is the same element scatter walking src's elements.

The family registry (:mod:`codegen.registry`) finds the parser as ``parse_compute``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from codegen.families.gather_scatter import call_rules
from codegen.families.gather_scatter.model import (
    DIRECTIONS,
    ELEMENTS,
    FILL,
    FLATTEN,
    INDEX_ADD,
    INDEX_DTYPES,
    NEGATIVE_POLICIES,
    SCATTER_ADD,
    GatherScatterCompute,
)
from codegen.spec.expr import to_source
from codegen.spec.model import TensorSpec
from codegen.spec.yaml_reader.nodes import YScalar, _join

if TYPE_CHECKING:
    from codegen.spec.scopes import ComputeContext
    from codegen.spec.yaml_reader import Reader, YNode

__all__ = ["call_problem", "parse_compute"]


def parse_gather_scatter_compute(node: YNode, ctx: ComputeContext) -> GatherScatterCompute | None:
    """Parses and checks the ``compute`` section of a gather/scatter op.

    Checks: ``direction`` is one of :data:`DIRECTIONS`; ``source`` and ``index`` name two different inputs
    and ``dest`` the one output; the index input's dtypes are among :data:`INDEX_DTYPES`; the output's dtypes
    equal the source's; ``dim`` names an int64 attr (the index's rank is then at most 1, or for
    ``gather_elements`` the source's rank range), or is an integer
    below the source's smallest rank, or ``flatten``; ``negative_index`` is one of :data:`NEGATIVE_POLICIES`;
    the output's ``shape`` is the rule of ``dim``'s kind (:meth:`GatherScatterCompute.shape_rule`); the op has
    exactly these two inputs, one output and one attr (none when ``dim`` is not an attr). Every problem is
    recorded in ``ctx.reader`` at its line.

    Returns:
        The model, or None when a key is missing or wrong.
    """
    r = ctx.reader
    m = r.mapping(node, ("direction", "source", "index", "dest", "dim"), ("negative_index", "value", "src", "alpha"))
    if m is None:
        return None
    direction_node = m.get("direction")
    if isinstance(direction_node, YScalar) and direction_node.value == FILL:
        return _parse_fill(node, m, ctx)
    if isinstance(direction_node, YScalar) and direction_node.value in (SCATTER_ADD, INDEX_ADD):
        return _parse_scatter(node, ctx, str(direction_node.value))
    if "value" in m:
        r.error(m["value"], f"value is only allowed with direction {FILL}")
        return None
    if "src" in m:
        r.error(m["src"], f"src is only allowed with direction {SCATTER_ADD} or {INDEX_ADD}")
        return None
    if "alpha" in m:
        r.error(m["alpha"], f"alpha is only allowed with direction {INDEX_ADD}")
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
    dim: str | None = None
    dim_const: int | None = None
    flatten = False
    dim_node = m.get("dim")
    if isinstance(dim_node, YScalar) and isinstance(dim_node.value, int) and not isinstance(dim_node.value, bool):
        dim_const = r.integer(dim_node, 0, 7)
        ok = ok and dim_const is not None
    elif isinstance(dim_node, YScalar) and dim_node.value == FLATTEN:
        dim_const, flatten = 0, True
    else:
        dim = name_of("dim", attrs, f"an attr, an integer or '{FLATTEN}'")
    negative = "zero"
    if "negative_index" in m:
        policy = r.string(m["negative_index"])
        if policy is not None and policy not in NEGATIVE_POLICIES:
            r.error(m["negative_index"], f"negative_index '{policy}' is not one of: {', '.join(NEGATIVE_POLICIES)}")
            ok = False
        elif policy is None:
            ok = False
        else:
            negative = policy
    if source is not None and source == index:
        r.error(m["index"], f"index and source must be different inputs, both are '{source}'")
        ok = False
    if index is not None:
        t = inputs[index]
        if not ctx.require_dtypes(m["index"], t, INDEX_DTYPES, "an index input takes"):
            ok = False
        if dim is not None and t.rank[1] > 1 and direction != ELEMENTS and ctx.ranks_read(t):
            r.error(m["index"], f"index input '{index}' must have rank 0 or 1 with an attr dim, got up to {t.rank[1]}")
            ok = False
    if (
        source is not None
        and dim_const is not None
        and not flatten
        and ctx.ranks_read(inputs[source])
        and dim_const >= inputs[source].rank[0]
    ):
        r.error(m["dim"], f"dim {dim_const} is not below the smallest rank of '{source}' ({inputs[source].rank[0]})")
        ok = False
    if source is not None and dest is not None and not _same_dtypes(ctx, inputs[source], outputs[dest]):
        r.error(
            m["dest"],
            f"output '{dest}' must list the dtypes and product_dtypes of '{source}' in the same order (it takes "
            "its dtype)",
        )
        ok = False
    if dim is not None and attrs[dim].type != "int64":
        r.error(m["dim"], f"attr '{dim}' is {attrs[dim].type}; dim needs an int64 attr")
        ok = False
    if direction == ELEMENTS and dim_node is not None and dim is None:
        r.error(m["dim"], "direction gather_elements needs an int64 attr as dim")
        ok = False
    if (
        direction == ELEMENTS
        and source is not None
        and index is not None
        and ctx.ranks_read(inputs[source], inputs[index])
        and inputs[source].rank != inputs[index].rank
    ):
        r.error(
            m["index"],
            f"index input '{index}' must have the rank range of '{source}' for gather_elements "
            f"({list(inputs[source].rank)}), got {list(inputs[index].rank)}",
        )
        ok = False
    want_attrs = 1 if dim is not None else 0
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 1 or len(ctx.attrs) != want_attrs:
        r.error(
            node,
            "the family takes exactly two inputs (source, index), one output and "
            + ("one attr (dim)" if dim is not None else "no attr (dim is a constant or flatten)"),
        )
        ok = False
    if not ok or direction is None or source is None or index is None or dest is None:
        return None
    if dim is None and dim_const is None:
        return None
    model = GatherScatterCompute(
        direction, source, index, dest, dim, dim_const, flatten, negative, node.loc, direction == ELEMENTS
    )
    out = outputs[dest]
    if out.shape is not None and to_source(out.shape) != model.shape_rule():
        r.error(
            m["dest"],
            f"output '{dest}' must have shape '{model.shape_rule()}' for this dim, got '{to_source(out.shape)}'",
        )
        return None
    return model


def _parse_fill(node: YNode, m: Mapping[str, YNode], ctx: ComputeContext) -> GatherScatterCompute | None:
    """The ``direction: fill`` form: ``source`` the one input, ``dest`` the one output (the source's dtypes in
    order, shape rule the source's name), ``dim`` an int64 attr, ``index`` an int_array attr of any length
    (``length: any``), ``value`` a scalar attr, no ``negative_index`` (a value in ``[-A, 0)`` counts from the
    end; others are refused in phase 1) and no other input, output or attr. Every problem is recorded in
    ``ctx.reader`` at its line; None then."""
    r = ctx.reader
    ok = True
    inputs = {t.name: t for t in ctx.inputs}
    outputs = {t.name: t for t in ctx.outputs}
    attrs = {a.name: a for a in ctx.attrs}
    names: dict[str, str] = {}
    wanted = (
        ("source", inputs, None, "an input"),
        ("dest", outputs, None, "an output"),
        ("dim", attrs, "int64", "an int64 attr"),
        ("index", attrs, "int_array", "an int_array attr"),
        ("value", attrs, "scalar", "a scalar attr"),
    )
    ok = _resolve_roles(node, m, ctx, FILL, wanted, names)
    if "negative_index" in m:
        r.error(
            m["negative_index"], f"direction {FILL} takes no negative_index (a value in [-A, 0) counts from the end)"
        )
        ok = False
    if "index" in names and attrs[names["index"]].length is not None:
        r.error(
            m["index"], f"int_array attr '{names['index']}' must have length: any (CANN takes any number of positions)"
        )
        ok = False
    if "source" in names and "dest" in names and not _same_dtypes(ctx, inputs[names["source"]], outputs[names["dest"]]):
        r.error(
            m["dest"],
            f"output '{names['dest']}' must list the dtypes and product_dtypes of '{names['source']}' in the same "
            "order",
        )
        ok = False
    if len(ctx.inputs) != 1 or len(ctx.outputs) != 1 or len(ctx.attrs) != 3:
        r.error(node, f"direction {FILL} takes exactly one input, one output and three attrs (dim, index, value)")
        ok = False
    if not ok:
        return None
    model = GatherScatterCompute(
        FILL, names["source"], names["index"], names["dest"], names["dim"], None, False, "wrap", node.loc,
        value=names["value"],
    )  # fmt: skip
    return _with_output_shape(model, outputs, m, r)


def _parse_scatter(node: YNode, ctx: ComputeContext, direction: str) -> GatherScatterCompute | None:
    """The ``direction: scatter_add`` and ``index_add`` forms: ``source``, ``index`` and ``src`` name the op's
    three inputs (the index's dtypes among :data:`INDEX_DTYPES`, src's and the output's dtypes the source's,
    src of the source's rank range; the index of it too for scatter_add, of rank 0 to 1 for index_add),
    ``dest`` its one output (shape rule the source's name), ``dim`` an int64 attr and, for index_add only,
    ``alpha`` a scalar attr (its only other attr); no ``negative_index`` (a value outside ``[0, A)`` adds
    nothing). Every problem is recorded in ``ctx.reader`` at its line; None then."""
    r = ctx.reader
    rows = direction == INDEX_ADD
    keys = ("direction", "source", "index", "src", "dest", "dim")
    m = r.mapping(node, (*keys, "alpha") if rows else keys, ())
    if m is None:
        return None
    inputs = {t.name: t for t in ctx.inputs}
    outputs = {t.name: t for t in ctx.outputs}
    attrs = {a.name: a for a in ctx.attrs}
    names: dict[str, str] = {}
    wanted = (
        ("source", inputs, None, "an input"),
        ("index", inputs, None, "an input"),
        ("src", inputs, None, "an input"),
        ("dest", outputs, None, "an output"),
        ("dim", attrs, "int64", "an int64 attr"),
        *((("alpha", attrs, "scalar", "a scalar attr"),) if rows else ()),
    )
    ok = _resolve_roles(node, m, ctx, direction, wanted, names)
    if len({names.get(k) for k in ("source", "index", "src")} - {None}) < sum(
        k in names for k in ("source", "index", "src")
    ):
        r.error(node, f"direction {direction} takes three different inputs as source, index and src")
        ok = False
    if "index" in names and not ctx.require_dtypes(
        m["index"], inputs[names["index"]], INDEX_DTYPES, "an index input takes"
    ):
        ok = False
    for key in ("src", "dest"):
        if "source" in names and key in names:
            t = (inputs if key == "src" else outputs)[names[key]]
            if not _same_dtypes(ctx, inputs[names["source"]], t):
                r.error(
                    m[key],
                    f"'{names[key]}' must list the dtypes and product_dtypes of '{names['source']}' in the same order",
                )
                ok = False
    for key in ("src",) if rows else ("index", "src"):
        if (
            "source" in names
            and key in names
            and ctx.ranks_read(inputs[names[key]], inputs[names["source"]])
            and inputs[names[key]].rank != inputs[names["source"]].rank
        ):
            r.error(m[key], f"input '{names[key]}' must have the rank range of '{names['source']}'")
            ok = False
    if rows and "index" in names and inputs[names["index"]].rank[1] > 1:
        r.error(m["index"], f"index input '{names['index']}' must have rank 0 or 1 for direction {INDEX_ADD}")
        ok = False
    n_attrs = 2 if rows else 1
    if len(ctx.inputs) != 3 or len(ctx.outputs) != 1 or len(ctx.attrs) != n_attrs:
        what = "two attrs (dim, alpha)" if rows else "one attr (dim)"
        r.error(node, f"direction {direction} takes exactly three inputs, one output and {what}")
        ok = False
    if not ok:
        return None
    model = GatherScatterCompute(
        direction, names["source"], names["index"], names["dest"], names["dim"], None, False, "zero", node.loc,
        src=names["src"], alpha=names.get("alpha"),
    )  # fmt: skip
    return _with_output_shape(model, outputs, m, r)


def _resolve_roles(
    node: YNode,
    m: Mapping[str, YNode],
    ctx: ComputeContext,
    direction: str,
    wanted: tuple[tuple[str, Mapping[str, object], str | None, str], ...],
    names: dict[str, str],
) -> bool:
    """Resolves each role of ``wanted`` (key, the inputs/outputs/attrs by name it must name one of, the attr
    type it needs or None, what it must be) to the name the spec gives at ``m[key]``, into ``names``; a
    missing key, a name of nothing ``wanted`` allows, or one of the wrong kind is recorded in ``ctx.reader``
    at its line. Whether every role resolved."""
    r = ctx.reader
    ok = True
    for key, among, kind, what in wanted:
        if key not in m:
            r.error(node, f"direction {direction} needs '{key}' ({what})", field=_join(node.path, key))
            ok = False
            continue
        name = r.string(m[key])
        if name is None:
            ok = False
            continue
        if name not in among or (kind is not None and getattr(among[name], "type", None) != kind):
            r.error(m[key], f"'{name}' is not {what}; direction {direction} takes {what} as {key}")
            ok = False
            continue
        names[key] = name
    return ok


def _with_output_shape(
    model: GatherScatterCompute, outputs: Mapping[str, TensorSpec], m: Mapping[str, YNode], r: Reader
) -> GatherScatterCompute | None:
    """``model`` when its output's shape rule, if the spec writes one, is the model's; else the error is
    recorded at the spec's ``dest`` line and None returned."""
    out = outputs[model.dest]
    if out.shape is not None and to_source(out.shape) != model.shape_rule():
        r.error(
            m["dest"], f"output '{model.dest}' must have shape '{model.shape_rule()}', got '{to_source(out.shape)}'"
        )
        return None
    return model


def _same_dtypes(ctx: ComputeContext, source: TensorSpec, dest: TensorSpec) -> bool:
    """Whether ``dest`` takes ``source``'s dtype list on every product: the same ``dtypes`` and
    ``product_dtypes`` (product names in any order, each list in the same order); True when either list was
    not read (reported there: :meth:`ComputeContext.dtypes_read`)."""
    if not ctx.dtypes_read(source, dest):
        return True
    return source.dtypes == dest.dtypes and dict(source.product_dtypes) == dict(dest.product_dtypes)


#: The family's compute parser (see :mod:`codegen.registry`).
parse_compute = parse_gather_scatter_compute


def call_problem(
    compute: object, shapes: Mapping[str, tuple[int, ...]], attrs: Mapping[str, object]
) -> tuple[str, str] | None:
    """The first of the family's own phase-1 shape rules the call breaks, ``(input or attr, why)``, or None
    (:func:`codegen.families.gather_scatter.call_rules.call_problem`; any other compute object: None)."""
    if not isinstance(compute, GatherScatterCompute):
        return None
    return call_rules.call_problem(compute, shapes, attrs)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import compute as _self
    from codegen.registry import contract

    _contract: contract.Compute = _self
    _call_problem: contract.ComputeCallProblem = _self
