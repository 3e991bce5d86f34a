"""Helpers of the `opgen import` tests: the interface of a loaded spec as plain values, answering an imported
starter's questions, and evaluating constraints on a call.

The interface is written out here from the spec model's fields (not through the importer), so a test that
compares two interfaces compares what the specs say.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from codegen.paths import project_paths
from codegen.spec import load_catalogue, load_op_spec
from codegen.spec.expr import evaluate
from codegen.spec.model import Catalogue, OpSpec
from codegen.types import DType

QUESTION = re.compile(r"^QUESTION\(doc line [0-9]+\)")
#: aclnn C types of the spec's attr kinds (CANN's aclnn headers).
C_TYPE = {
    "int64": "int64_t",
    "uint64": "uint64_t",
    "bool": "bool",
    "double": "double",
    "float": "float",
    "scalar": "const aclScalar*",
    "string": "char*",
}


def catalogue() -> Catalogue:
    """The project's product catalogue."""
    return load_catalogue(project_paths().specs / "products.yaml")


def hand_written(stem: str) -> OpSpec:
    """The project's hand-written spec ``specs/<stem>.yaml``."""
    return load_op_spec(project_paths().specs / f"{stem}.yaml", catalogue())


def params(spec: OpSpec) -> list[tuple[str, str]]:
    """The phase-1 parameters before workspaceSize/executor as ``(name, C type)``, in C order."""
    kinds: dict[str, str] = {t.name: "const aclTensor*" for t in spec.inputs}
    kinds |= {a.name: C_TYPE[a.type] for a in spec.attrs}
    kinds |= {t.name: "const aclTensor*" if t.const else "aclTensor*" for t in spec.outputs}
    order = spec.signature or tuple(kinds)
    return [(n, kinds[n]) for n in order]


def dtypes_per_product(spec: OpSpec, cat: Catalogue) -> dict[tuple[str, str], frozenset[str]]:
    """``(tensor, product) -> dtype names`` for every tensor on every product of the op."""
    return {
        (t.name, p): frozenset(d.name for d in t.dtypes_for(cat.get(p)))
        for t in (*spec.inputs, *spec.outputs)
        for p in spec.products
    }


def attrs(spec: OpSpec) -> list[tuple[str, str, object, tuple[str, ...]]]:
    """``(name, type, value set, aclScalar dtypes)`` of each attr."""
    return [(a.name, a.type, a.values, a.scalar_dtypes) for a in spec.attrs]


def questions(tree: object, path: str = "") -> dict[str, str]:
    """Every placeholder of an imported starter (plain YAML data), keyed by the loader's field path."""
    found: dict[str, str] = {}
    if isinstance(tree, dict):
        for k, v in tree.items():
            found |= questions(v, f"{path}.{k}" if path else str(k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            found |= questions(v, f"{path}[{i}]")
    elif isinstance(tree, str) and QUESTION.match(tree):
        found[path] = tree
    return found


def answer(tree: Any, answers: Mapping[str, object], path: str = "") -> Any:
    """``tree`` with each placeholder replaced by ``answers[its path]``."""
    if isinstance(tree, dict):
        return {k: answer(v, answers, f"{path}.{k}" if path else str(k)) for k, v in tree.items()}
    if isinstance(tree, list):
        return [answer(v, answers, f"{path}[{i}]") for i, v in enumerate(tree)]
    if isinstance(tree, str) and QUESTION.match(tree):
        return answers[path]
    return tree


def load_answered(tree: Any, stem: str, directory: Path) -> OpSpec:
    """Writes an answered starter as ``directory/<stem>.yaml`` and loads it."""
    path = directory / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(tree, sort_keys=False, allow_unicode=True))
    return load_op_spec(path, catalogue())


@dataclass(frozen=True)
class FakeTensor:
    """What the expression functions read of a tensor: its shape and dtype."""

    shape: tuple[int, ...]
    dtype: DType


def rejected(spec: OpSpec, product: str, values: Mapping[str, object], core_num: int) -> list[str]:
    """The names of the spec's constraints that refuse a call on ``product``."""
    env: dict[str, object] = {**DType.__members__, **values, "coreNum": core_num, "ubBytes": 196608}
    out = []
    for c in spec.constraints:
        if c.products and product not in c.products:
            continue
        local = dict(env)
        if c.when is not None and not evaluate(c.when, local):
            continue
        for name, expr in c.let:
            local[name] = evaluate(expr, local)
        if not evaluate(c.require, local):
            out.append(c.name)
    return out
