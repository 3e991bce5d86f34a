"""The calls a spec makes itself must pass its own constraints: the worked example's call, and a call that
omits the attrs that have defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from codegen.spec.expr import ExprEvalError, evaluate, to_source
from codegen.spec.expr import names as expr_names
from codegen.spec.loader.state import ParseState
from codegen.spec.model import AttrSpec, Constraint, DType, Example, TensorSpec
from codegen.spec.yaml_reader import YMap, YNode, YScalar, YSeq
from codegen.types import AclnnStatus


def _rejecting_products(
    st: ParseState, c: Constraint, scope: Mapping[str, object], products: tuple[str, ...]
) -> tuple[list[str], Mapping[str, object]]:
    """The products of ``products`` (in the catalogue) on which ``c`` rejects the call ``scope`` describes
    (names of tensors, attrs and dtypes; ``coreNum``/``ubBytes`` are added per product), and the
    environment of the last rejection (its let values fill the message). A constraint that cannot be
    evaluated on ``scope`` rejects nothing."""
    rejected_on: list[str] = []
    seen_env: Mapping[str, object] = scope
    for p in c.products:
        if p not in products or st.catalogue is None or p not in st.catalogue:
            continue
        product = st.catalogue.get(p)
        env = {**scope, "coreNum": product.vector_core_num, "ubBytes": product.ub_bytes}
        try:
            if c.when is not None and not evaluate(c.when, env):
                continue
            for let_name, e in c.let:
                env[let_name] = evaluate(e, env)
            if not bool(evaluate(c.require, env)):
                rejected_on.append(p)
                seen_env = env
        except (ExprEvalError, ArithmeticError, ValueError, TypeError):
            continue
    return rejected_on, seen_env


def defaults_within_constraints(
    st: ParseState,
    node: YNode,
    constraints: Sequence[Constraint],
    attrs: tuple[AttrSpec, ...],
    products: tuple[str, ...],
) -> None:
    """Records an error at an attr's ``default`` for each constraint that reads only attrs (and platform
    values) that all have defaults and rejects those defaults on a product it applies to: the default
    is the value of a call that omits the attr (the Python API, the check's base call), which phase 1
    would then refuse. Reported at the default of the first such attr the constraint reads."""
    default_nodes: dict[str, YNode] = {}
    for item in node.items if isinstance(node, YSeq) else []:
        if isinstance(item, YMap):
            fields = {str(k.value): v for k, v in item.entries}
            name = fields.get("name")
            if isinstance(name, YScalar) and "default" in fields:
                default_nodes[str(name.value)] = fields["default"]
    by_name = {a.name: a for a in attrs}
    defaults = {a.name: a.expr_value(a.default) for a in attrs if a.default is not None}
    platform = {"coreNum", "ubBytes", *DType.__members__}
    for c in constraints:
        let_names = {n for n, _ in c.let}
        read = set().union(*(expr_names(e) for e in (c.require, *(e for _, e in c.let)))) - let_names
        if c.when is not None:
            read |= expr_names(c.when)
        attrs_read = [a.name for a in attrs if a.name in read]
        if not attrs_read or not read <= set(attrs_read) | platform or any(n not in defaults for n in attrs_read):
            continue
        scope: dict[str, object] = {name: d for name, d in DType.__members__.items()}
        scope.update({n: defaults[n] for n in attrs_read})
        rejected_on, seen_env = _rejecting_products(st, c, scope, products)
        where = default_nodes.get(attrs_read[0])
        if rejected_on and where is not None:
            shown = ", ".join(f"{n} {by_name[n].default!r}" for n in attrs_read)
            st.r.error(
                where,
                f"the default ({shown}) violates constraint '{c.name}' ({to_source(c.require)}) on "
                f"{', '.join(rejected_on)}: {_fill_placeholders(c.message, seen_env)}; a call that omits "
                "the attr would fail with status "
                f"{c.status}. Pick a default the constraint accepts",
            )


def example_within_constraints(
    st: ParseState,
    node: YNode,
    example: Example,
    constraints: Sequence[Constraint],
    attrs: tuple[AttrSpec, ...],
    outputs: tuple[TensorSpec, ...],
    products: tuple[str, ...],
) -> None:
    """Records an error at the example's ``attrs`` (else the example) for each constraint that rejects the
    example call on a product it applies to: the generated example program runs on any of the op's
    products, and phase 1 would refuse it there. The example's tensors, its attrs (defaults filled in)
    and each product's ``coreNum``/``ubBytes`` make the environment; a constraint that cannot be
    evaluated on it (it reads an absent optional tensor, or a product not in the catalogue) is skipped."""
    scope: dict[str, object] = {name: d for name, d in DType.__members__.items()}
    scope.update({name: t for name, t in example.inputs})
    if outputs:
        scope[outputs[0].name] = example.output
    by_name = {a.name: a for a in attrs}
    for name, value in example.attrs:
        scope[name] = by_name[name].expr_value(value) if name in by_name else value
    where = next((v for k, v in node.entries if k.value == "attrs"), node) if isinstance(node, YMap) else node
    for c in constraints:
        rejected_on, seen_env = _rejecting_products(st, c, scope, products)
        if rejected_on:
            text = _fill_placeholders(c.message, seen_env)
            st.r.error(
                where,
                f"the example call violates constraint '{c.name}' ({to_source(c.require)}) on "
                f"{', '.join(rejected_on)}: {text}; the example program would fail there with status "
                f"{c.status}. Change the example's attrs or tensors",
            )


def _fill_placeholders(message: str, env: Mapping[str, object]) -> str:
    """``message`` with each ``{name}`` that ``env`` holds replaced by its value (others kept as written)."""
    return re.sub(r"\{(\w+)\}", lambda k: str(env.get(k.group(1), k.group(0))), message)


def example_within_family_rules(
    st: ParseState,
    node: YNode,
    example: Example,
    problem: Callable[[Mapping[str, tuple[int, ...]], Mapping[str, object]], tuple[str, str] | None],
) -> None:
    """Records an error at the example's entry of the tensor or attr at fault (else the example) when the
    example call breaks a rule of the family's phase 1 (``problem``: the family's
    :meth:`codegen.registry.Family.call_problem` for the op's compute): the generated example program
    would fail with 161002 (ACLNN_ERR_PARAM_INVALID) there. The example's attrs hold the defaults of those it
    leaves out."""
    shapes = {name: t.shape for name, t in example.inputs}
    found = problem(shapes, dict(example.attrs))
    if found is None:
        return
    name, why = found
    where = node
    for section in ("attrs", "inputs"):
        entries = dict(_entries(node)).get(section)
        hit = dict(_entries(entries)).get(name) if entries is not None else None
        if hit is not None:
            where = hit
            break
    st.r.error(
        where,
        f"the example call breaks a rule phase 1 applies: {why}; the example program would fail with status "
        f"{int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)} (ACLNN_ERR_PARAM_INVALID). Change the example's attrs or tensors",
    )


def _entries(node: YNode | None) -> list[tuple[object, YNode]]:
    """The ``(key, value node)`` entries of a mapping node (none for another node)."""
    return [(k.value, v) for k, v in node.entries] if isinstance(node, YMap) else []
