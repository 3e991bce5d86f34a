"""A broken ``.clang-format`` is reported once, as clang-format states the problem, on one line with exit 2 and
nothing written (it was once a line naming every C++ file followed by the same message once per file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from project_copy import copy_project

from codegen.cli import main
from codegen.render import RenderError, format_cpp_files, style_problem


def _broken_style(path: Path) -> Path:
    good = (Path(__file__).resolve().parents[1] / ".clang-format").read_text()
    path.write_text(good + "garbage: [: :\n")
    return path


def test_a_broken_style_is_one_message_for_many_files(tmp_path: Path) -> None:
    style = _broken_style(tmp_path / ".clang-format")
    line_no = len(style.read_text().splitlines())
    assert style_problem(style) == f"{style}:{line_no}:11: Expected , between entries"
    with pytest.raises(RenderError) as err:
        format_cpp_files({f"op{i}/kernel.cpp": "int  x;\n" for i in range(40)}, style)
    message = str(err.value)
    assert message == f"clang-format style: {style}:{line_no}:11: Expected , between entries"
    assert "op0" not in message


def test_a_good_style_has_no_problem() -> None:
    assert style_problem(Path(__file__).resolve().parents[1] / ".clang-format") is None


def test_generate_with_a_broken_style_exits_2_on_one_line_writing_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    copy_project(root)
    style = _broken_style(root / ".clang-format")
    monkeypatch.setenv("OPGEN_ROOT", str(root))
    for argv in (["generate", "--check"], ["generate"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: clang-format style: {style}:"), err
        assert err[0].endswith(":11: Expected , between entries")
    assert not (root / "generated").exists()
