"""Ops come from specs alone: no template names an op, and no generator module branches on an op's name.

Adding an op of an existing family must be a spec and a reference, never an edit of a template or of
``codegen/`` for that op (issue "Spec-driven at scale"). The history mixes some of the first ops' commits
with generic family work, so this test states the rule over the current tree, where it can keep holding:

* no template file contains an identifier of any spec'd op (aclnn name, op name, snake name, device
  OpType and its snake form), compared case-insensitively; an op name of one word (``Take``, ``Embedding``,
  ``Softmax``) is also an English word a template may use in lower case, so it is compared in its own
  spelling (not as the start of a longer lower-case word, ``Takes``) and in lower case only where an
  underscore joins it to an identifier (``take_rows``);
* no module under ``codegen/`` compares a string with such an identifier (``==``, ``!=``, ``in``,
  ``not in``), keys a dict or set with one, or matches one in a ``case`` pattern. Docstrings and example
  text in messages are allowed: they are prose, not branches.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.model import snake_case
from codegen.specs import load_project

_, SPECS = load_project()
ROOT = project_paths().root


def _one_word(ident: str) -> bool:
    """Whether ``ident`` is one word: letters only, with at most its first one upper-case."""
    return ident.isalpha() and ident[1:] == ident[1:].lower()


def _identifiers() -> dict[str, str]:
    """Lower-cased op identifier -> the spec it belongs to."""
    out: dict[str, str] = {}
    for spec in SPECS.values():
        for ident in (spec.op, spec.aclnn_name, spec.snake, spec.op_type, snake_case(spec.op_type)):
            out[ident.lower()] = spec.snake
    return out


IDENTS = _identifiers()
#: Op names of one word in their own spelling (``Take``, ``Embedding``, ``Softmax``), lower-cased: each is also
#: an English word or a word of other names a template may use in lower case.
ONE_WORD = {s.op.lower() for s in SPECS.values() if _one_word(s.op)}
#: Every other identifier (aclnn names, OpTypes, snake names, op names of several words), searched anywhere in
#: a template's lower-cased text.
TEMPLATE_IDENTS = {ident: op for ident, op in IDENTS.items() if ident not in ONE_WORD}
#: A one-word op name -> the spec: a pattern of its own spelling that is not the start of a longer lower-case
#: word (``Takes``), or of its lower-case form joined to an identifier by an underscore (``take_rows``,
#: ``kTake``... are caught by the first; ``gather_take`` by the second).
WORDS = {
    re.compile(rf"{re.escape(s.op)}(?![a-z])|_{s.op.lower()}\b|\b{s.op.lower()}_"): s.snake
    for s in SPECS.values()
    if _one_word(s.op)
}


def test_every_op_of_the_project_is_covered() -> None:
    # The rule is only worth something if it sees the ops: the six specs and their five identifiers each
    # (the snake name of an op and of its OpType can coincide only if the OpType equals the op name).
    assert len(SPECS) >= 6
    assert {"soft_margin_loss_backward", "binary_cross_entropy_backward", "sigmoid_grad"} <= set(IDENTS)


@pytest.mark.parametrize(
    "template", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*.j2")), ids=str
)
def test_templates_name_no_op(template: str) -> None:
    text = (ROOT / template).read_text(encoding="utf-8")
    named = sorted({f"{ident} ({op})" for ident, op in TEMPLATE_IDENTS.items() if ident in text.lower()})
    named += sorted({f"{word.pattern} ({op})" for word, op in WORDS.items() if word.search(text)})
    assert named == [], f"{template} names an op: {', '.join(named)}"


def _branch_constants(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants a module compares with, uses as dict keys or set members, or matches in a case."""
    found: list[tuple[int, str]] = []

    def strings(node: ast.AST | None) -> None:
        if node is None:
            return
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                found.append((sub.lineno, sub.value))

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            strings(node.left)
            for comp in node.comparators:
                strings(comp)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                strings(key)
        elif isinstance(node, ast.Set):
            strings(node)
        elif isinstance(node, ast.MatchValue):
            strings(node.value)
    return found


@pytest.mark.parametrize(
    "module", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "codegen").rglob("*.py")), ids=str
)
def test_generator_modules_do_not_branch_on_an_op_name(module: str) -> None:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"), filename=module)
    hits = [f"{module}:{line}: {value!r}" for line, value in _branch_constants(tree) if value.lower() in IDENTS]
    assert hits == [], "generator code branches on an op name:\n" + "\n".join(hits)


def test_the_branch_detector_sees_a_branch_on_an_op_name() -> None:
    # The detector itself must fire on the forbidden shapes, or the test above could never fail.
    source = (
        "if spec.op == 'SoftMarginLossBackward':\n    pass\n"
        "X = {'embedding_dense_backward': 1}\n"
        "ok = name in {'SigmoidGrad'}\n"
        "match op:\n    case 'MseLossBackward':\n        pass\n"
        "def f():\n    '''SoftMarginLossBackward in a docstring is prose.'''\n"
    )
    values = sorted({v for _, v in _branch_constants(ast.parse(source)) if v.lower() in IDENTS})
    assert values == ["MseLossBackward", "SigmoidGrad", "SoftMarginLossBackward", "embedding_dense_backward"]


def test_new_op_files_are_spec_and_reference_only() -> None:
    # Every op's hand-written sources are exactly its spec and its reference; everything else is generated.
    for snake, spec in SPECS.items():
        assert (ROOT / "specs" / f"{snake}.yaml").is_file()
        assert (ROOT / "reference" / f"{snake}.py").is_file()
        assert Path(spec.path).name == f"{snake}.yaml"
