"""Preprocessor conditionals on a constant: a planner states "no product of the op lacks the feature" as the
condition ``0`` (:func:`codegen.plan.products.archs_condition`); rendering leaves such a block out and keeps
its other branch without directives (:func:`codegen.render.fold_constant_ifs`), so no generated source holds
dead ``#if 0`` code."""

from __future__ import annotations

import re

import pytest

from codegen.paths import project_paths
from codegen.render import fold_constant_ifs

GENERATED = project_paths().root / "generated"

#: A preprocessor #if on a constant, in any of the spellings a template could print.
CONSTANT_IF = re.compile(r"^\s*#\s*if\s+!?\s*\(?\s*[01]\s*\)?\s*(//.*)?$", re.MULTILINE)


def test_no_generated_source_holds_a_constant_if() -> None:
    sources = [p for p in GENERATED.rglob("*") if p.suffix in (".cpp", ".h")]
    assert len(sources) > 100
    found = [
        f"{p.relative_to(GENERATED)}: {m.group(0).strip()}"
        for p in sources
        for m in CONSTANT_IF.finditer(p.read_text())
    ]
    assert found == []


@pytest.mark.parametrize(
    ("source", "folded"),
    [
        # false: the #else branch stays, unwrapped; a conditional nested in it is kept whole
        ("a\n#if 0\nb\n#if X\nc\n#endif\n#else\nd\n#ifdef Y\ne\n#endif\n#endif\nf\n", "a\nd\n#ifdef Y\ne\n#endif\nf\n"),
        # false without #else: the block goes
        ("a\n#if 0\nb\n#endif\nc\n", "a\nc\n"),
        # negated false (`#if !(0)`, with a trailing comment): the body stays, the #else branch goes
        ("#if !(0)  // one core\nb\n#else\nc\n#endif\n", "b\n"),
        ("  #  if 1\nb\n#else\nc\n#endif\n", "b\n"),
        ("#if !(1)\nb\n#else\nc\n#endif\n", "c\n"),
        # `#if 0 ... #elif C`: the chain goes on as `#if C`
        ("#if 0\nb\n#elif Z\nc\n#else\nd\n#endif\n", "#if Z\nc\n#else\nd\n#endif\n"),
        # true with #elif: everything after the kept branch goes
        ("#if 1\nb\n#elif W\nc\n#else\nd\n#endif\ne\n", "b\ne\n"),
        # constant blocks nested in each other and in a real conditional
        (
            "#if __NPU_ARCH__ == 1001\n#if 0\nb\n#else\n#if 1\nc\n#endif\n#endif\n#endif\n",
            "#if __NPU_ARCH__ == 1001\nc\n#endif\n",
        ),
        # not constants: kept as they are
        ("#if 10\nb\n#endif\n#if 0 || X\nc\n#endif\n", "#if 10\nb\n#endif\n#if 0 || X\nc\n#endif\n"),
    ],
)
def test_constant_conditionals_are_folded(source: str, folded: str) -> None:
    assert fold_constant_ifs(source) == folded
