"""Value cases of an elementwise op's attributes: every float attribute away from its default at once under
each code path, and accepted calls on the edge of each attribute constraint."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from codegen.check.cases import (
    Case,
)
from codegen.check.constraints import applicable, rejected_by
from codegen.spec.expr import Compare, Name, Num, walk
from codegen.spec.model import AttrSpec, DType, OpSpec, Product

#: The values the combined-attribute cases give the float attributes, one each in spec order (distinct, so
#: a kernel that reads one attribute's tiling field for another's shows; none of them 0, 1 or a default).
COMBINED_FLOAT_VALUES = (0.7, 1.3, 2.5, 0.35, 1.9, 3.1)
#: Most combinations of the code-path attributes (strings, enumerations, bools) the combined cases run.
MAX_ATTR_COMBINATIONS = 8


def _code_path_attrs(spec: OpSpec) -> list[AttrSpec]:
    """The attributes of ``spec`` that select a code path rather than scale a value: strings, bools and
    attributes with enumerated values (``approximate``, ``isResult``, ``reduction``)."""
    return [a for a in spec.attrs if a.type in ("string", "bool") or a.values]


def _combined_attr_cases(
    spec: OpSpec,
    dt: DType,
    inputs: list[str],
    attr_values: dict[str, list[Any]],
    default_attrs: dict[str, Any],
    value_case: Callable[..., Case],
) -> Iterator[Case]:
    """Every float attribute away from its default at once (:data:`COMBINED_FLOAT_VALUES`), under each
    combination of the values of the attributes that select a code path (at most
    :data:`MAX_ATTR_COMBINATIONS`): the one-attribute cases leave the others at their defaults, so a scale
    applied in one branch only (ELU's ``isResult`` with ``scale`` and ``inputScale`` not 1) never showed.
    Nothing when the op has no float attribute; a constraint drops the combinations it rejects."""
    floats = [a for a in spec.attrs if a.type in ("float", "double", "scalar") and not a.values]
    if not floats:
        return
    float_names = {a.name for a in floats}
    paths = _code_path_attrs(spec)
    base = {
        **default_attrs,
        **{a.name: COMBINED_FLOAT_VALUES[i % len(COMBINED_FLOAT_VALUES)] for i, a in enumerate(floats)},
    }
    for values in itertools.islice(itertools.product(*(attr_values[a.name] for a in paths)), MAX_ATTR_COMBINATIONS):
        chosen = dict(zip((a.name for a in paths), values))
        attrs = {**base, **chosen}
        label = " ".join(f"{k}={v}" for k, v in attrs.items() if k in chosen or k in float_names)
        yield value_case(dt, "attrs", dict.fromkeys(inputs, (4, 33)), f"combined {label} [4, 33]", attrs)


#: Most accepted calls one constraint's edges add.
MAX_EDGE_CASES = 4


def _constraint_edge_cases(
    spec: OpSpec,
    product: Product,
    dt: DType,
    inputs: list[str],
    default_attrs: dict[str, Any],
    value_case: Callable[..., Case],
) -> Iterator[Case]:
    """Accepted calls on the edge of each attribute constraint: for every comparison of an attribute with a
    literal in the constraint (``alpha < 0``), the attribute at that literal, under each value of the bool
    attributes (``isResult`` true and false); the ones no constraint rejects run as value cases (at most
    :data:`MAX_EDGE_CASES` per constraint). The status cases break each constraint once, well inside; a
    check written with ``<=`` for the documented ``<`` refused these calls unseen (LeakyReluBackward's
    ``negativeSlope = 0`` with ``selfIsResult``)."""
    by_name = {a.name: a for a in spec.attrs}
    bools = [a.name for a in spec.attrs if a.type == "bool"]
    seen: set[tuple[tuple[str, Any], ...]] = set()
    for c in applicable(spec, product):
        edges: list[tuple[str, float]] = []
        for e in (c.require, *([c.when] if c.when is not None else [])):
            for node in walk(e):
                if not isinstance(node, Compare):
                    continue
                for attr, lit in ((node.left, node.right), (node.right, node.left)):
                    if (
                        isinstance(attr, Name)
                        and attr.id in by_name
                        and by_name[attr.id].type in ("float", "double", "scalar")
                        and isinstance(lit, Num)
                        and not isinstance(lit.value, bool)
                    ):
                        edges.append((attr.id, float(lit.value)))
        made = 0
        for name, value in edges:
            for flags in itertools.product((False, True), repeat=len(bools)):
                attrs = {**default_attrs, name: value, **dict(zip(bools, flags))}
                key = tuple(sorted(attrs.items()))
                if made >= MAX_EDGE_CASES or key in seen:
                    continue
                case = value_case(dt, "attrs", dict.fromkeys(inputs, (4, 33)), "", attrs)
                if rejected_by(spec, product, case.params) is not None:
                    continue
                seen.add(key)
                made += 1
                shown = " ".join(f"{k}={attrs[k]}" for k in (name, *bools))
                case.name = f"at the edge of a constraint ({c.require}): {shown} [4, 33]"
                yield case
