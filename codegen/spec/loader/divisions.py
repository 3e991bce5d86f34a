"""Cross-entry rule: no host expression divides by a value that may be 0, or holds a constant part that
overflows int64.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from codegen import registry
from codegen.spec.expr import Expr, to_source
from codegen.spec.expr import names as expr_names
from codegen.spec.loader.state import ParseState
from codegen.spec.model import ATTR_TYPES, AttrSpec, Constraint, TensorSpec
from codegen.spec.naming import PLATFORM_NAMES
from codegen.spec.rules.atoms import SHAPE_ATOMS, atomize
from codegen.spec.rules.guards import excludes_zero
from codegen.spec.rules.overflow import constant_problem
from codegen.spec.rules.zero_division import nonzero_condition, zero_division
from codegen.spec.yaml_reader import YMap, YNode, YScalar, YSeq, map_entries


def zero_divisors(
    st: ParseState,
    m: dict[str, YNode],
    partial_outputs: list[tuple[TensorSpec, YNode | None]],
    outputs: tuple[TensorSpec, ...],
    compute: object,
    constraints: list[Constraint],
    attrs: tuple[AttrSpec, ...],
    products: tuple[str, ...],
    inputs: tuple[TensorSpec, ...] = (),
    family: str = "",
) -> None:
    """Cross-entry rule: no host expression (and no tensor-free part of a formula) divides (``/``,
    ``//``, ``%``) by anything that may be 0 unless it is provably nonzero (see
    :func:`codegen.spec.rules.zero_division.zero_division`): a literal 0, an attr (unless its ``values``, an
    unconditional constraint on all the op's products (for a constraint's own expressions: an earlier
    one, or its ``when``) or a guard exclude 0), ``rank()`` of a tensor whose rank rule allows 0,
    ``numel()``/``dim()`` (0 for an empty tensor; a family may declare names nonzero where its tiling
    runs only for a non-empty output, see :meth:`codegen.registry.Family.division_sites`). ``//`` and
    ``%`` by an integer 0 are a SIGFPE in the generated C++; ``/`` gives inf or NaN. Also, no host
    expression may hold a constant part that overflows int64 (:func:`codegen.spec.rules.overflow.constant_problem`)."""
    tensors = {t.name: t for t in (*inputs, *outputs)}
    domains: dict[str, tuple[int, ...] | None] = {}
    for a in attrs:
        if a.type in ("int64", "uint64"):
            domains[a.name] = tuple(v for v, _ in a.values) if a.values is not None else None
        elif a.type == "bool":
            domains[a.name] = (0, 1)
        elif a.type in ATTR_TYPES:
            domains[a.name] = None
    attr_names = set(domains)

    def with_atoms(e: Expr, defs: Mapping[str, Expr] | None = None) -> dict[str, tuple[int, ...] | None]:
        found = dict(domains)
        for x in [e, *(defs or {}).values()]:
            for name in expr_names(atomize(x)) - attr_names:
                call = name.split("(", 1)
                if len(call) != 2 or call[0] not in SHAPE_ATOMS:
                    continue
                arg = call[1].split(",", 1)[0].rstrip(")").strip()
                t = tensors.get(arg)
                if call[0] == "rank" and t is not None:
                    found[name] = tuple(range(t.rank[0], t.rank[1] + 1))
                else:
                    found[name] = None
        return found

    def excluded(cs: Sequence[Constraint]) -> set[str]:
        out: set[str] = set()
        for c in cs:
            if c.when is not None or not set(c.products) >= set(products):
                continue
            require = atomize(c.require)
            out |= {n for n in expr_names(require) if excludes_zero(require, n, True)}
        return out

    def assumed(cs: Sequence[Constraint]) -> list[Expr]:
        """The requires of the unconditional constraints of every product among ``cs``."""
        return [c.require for c in cs if c.when is None and set(c.products) >= set(products)]

    always_nonzero = set(PLATFORM_NAMES)

    def report(
        node: YNode,
        e: Expr,
        gone: set[str],
        defs: Mapping[str, Expr] | None = None,
        nonzero: Collection[str] = (),
        opaque: Collection[str] = (),
        assume: Sequence[Expr] = (),
    ) -> None:
        doms = with_atoms(e, defs)
        found = zero_division(e, doms, gone, defs, {*always_nonzero, *nonzero}, opaque, assume)
        if found is None:
            problem = constant_problem(e)
            if problem is not None:
                st.r.error(node, problem)
            return
        attr, divisor = found.attr, to_source(found.divisor)
        effect = (
            "a division by 0 gives inf or nan in the host code"
            if found.op == "/"
            else "an integer division by 0 crashes the host code"
        )
        if not attr:
            st.r.error(node, f"'{e}' divides by '{divisor}', which is 0 ({effect}); divide by a nonzero value")
            return
        if attr in attr_names:
            what = f"attr '{attr}'," if found.bare else f"'{divisor}', an expression of attr '{attr}',"
        else:
            why = " (0 for a 0-d tensor)" if attr.startswith("rank(") else " (0 for an empty tensor)"
            what = f"'{attr}'{why}," if found.bare else f"'{divisor}', an expression of '{attr}'{why},"
        if found.bare:
            cond, also = f"{attr} != 0", f' (or "{attr} > 0")'
        else:
            cond, also = nonzero_condition(found.divisor, doms), ""
        st.r.error(
            node,
            f"'{e}' divides by {what} which may be 0 ({effect}); add a constraint such as "
            f"require: \"{cond}\"{also}, or guard the division: '... if {cond} else ...'",
        )

    gone_all = excluded(constraints)
    assumed_all = assumed(constraints)
    for (_, shape_node), out in zip(partial_outputs, outputs):
        if shape_node is not None and out.shape is not None:
            report(shape_node, out.shape, gone_all, assume=assumed_all)
    if family and compute is not None and isinstance(m.get("compute"), YMap):
        for site, e, how in registry.family(family).division_sites(compute, m["compute"], inputs, outputs):
            report(site, e, gone_all, assume=assumed_all, **how)
    constraints_node = m.get("constraints")
    items = constraints_node.items if isinstance(constraints_node, YSeq) else []
    by_name = {c.name: c for c in constraints}
    for item in items:
        im = {key.value: v for key, v in map_entries(item)}
        name_node = im.get("name")
        c = by_name.get(str(name_node.value)) if isinstance(name_node, YScalar) else None
        if c is None:
            continue
        earlier = constraints[: constraints.index(c)]
        gone = excluded(earlier)
        assume = assumed(earlier)
        if c.when is not None:
            report(im["when"], c.when, set(gone), assume=assume)
            when = atomize(c.when)
            gone |= {n for n in expr_names(when) if excludes_zero(when, n, True)}
            assume = [*assume, c.when]
        let_nodes = {key.value: v for key, v in map_entries(im.get("let"))}
        let_defs: dict[str, Expr] = {}
        for ln, le in c.let:
            report(let_nodes[ln], le, set(gone), let_defs, assume=assume)
            let_defs[ln] = le
        report(im["require"], c.require, set(gone), let_defs, assume=assume)
