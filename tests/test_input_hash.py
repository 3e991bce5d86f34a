"""The manifest's input hash covers every input that shapes a generated file: after any one of them changes,
``opgen generate`` renders the files made from it again (it once skipped everything after a `.clang-format`
edit, and `generate --check` then gave advice that did not work)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from project_copy import copy_project

import codegen.manifest
from codegen.generate import OPERATORS_FILE, run_generate
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(70)  # about 70 s alone (14 generations of a small project copy)


def _rendered(result: object) -> set[str]:
    report = result.report  # type: ignore[attr-defined]
    return {*report.written, *report.unchanged}


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_each_kind_of_input_makes_its_outputs_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    ops = copy_project(root)
    monkeypatch.setenv("OPGEN_ROOT", str(root))
    first = run_generate()
    every = _rendered(first)
    assert every and not first.skipped
    assert not _rendered(run_generate())  # nothing changed: everything skipped

    op = ops[0]
    folder = load_project(root / "specs")[1][op].folder
    op_files = {rel for rel in every if rel.startswith(folder + "/")}
    edits: list[tuple[str, Callable[[], None], set[str]]] = [
        ("a spec", lambda: _append(root / "specs" / f"{op}.yaml", "\n# edited\n"), op_files | {OPERATORS_FILE}),
        ("the catalogue", lambda: _append(root / "specs" / "products.yaml", "\n# edited\n"), every),
        # every op's document uses it; an op whose output is stale is rendered whole
        (
            "a template",
            lambda: _append(root / "templates" / "docs" / "aclnn.md.j2", "{# edited #}\n"),
            every - {OPERATORS_FILE},
        ),
        ("the formatter's style", lambda: _append(root / ".clang-format", "# edited\n"), every),
        ("the generator", lambda: monkeypatch.setattr(codegen.manifest, "generator_version", lambda: "other"), every),
        (
            "the formatter's version",
            lambda: monkeypatch.setattr(codegen.manifest, "rendering_versions", lambda: "clang-format=0"),
            every,
        ),
    ]
    for what, edit, expected in edits:
        edit()
        assert _rendered(run_generate()) == expected, what
        assert not _rendered(run_generate()), f"{what}: the second run renders nothing"


def test_a_style_edit_is_written_by_plain_generate_and_check_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    copy_project(root)
    monkeypatch.setenv("OPGEN_ROOT", str(root))
    run_generate()
    style = root / ".clang-format"
    style.write_text(style.read_text().replace("IndentWidth: 2", "IndentWidth: 4"))
    stale = run_generate(check=True).report.stale
    assert stale and all(rel.endswith((".cpp", ".h")) for rel in stale)
    assert sorted(run_generate().report.written) == sorted(stale)  # what `generate --check` advises works
    assert run_generate(check=True).clean
