"""Formatted sources kept in the cache (``codegen.render.format_cpp_files``, ``<cache>/format/``): a source formatted
before is not formatted again, a damaged entry is formatted again and rewritten, and generation does not need a
usable cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import render
from codegen.paths import project_paths

STYLE = project_paths().root / ".clang-format"
TEXTS = {"a/x.cpp": "int  f( int a ){return a+1;}\n", "a/x.h": "#pragma once\nint  g( );\n"}
#: what the project style makes of TEXTS (written here by hand from .clang-format: 2-space indent, no one-line
#: functions)
FORMATTED = {"a/x.cpp": "int f(int a) {\n  return a + 1;\n}\n", "a/x.h": "#pragma once\nint g();\n"}


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / render.FORMAT_CACHE).rglob("*") if p.is_file())


def test_a_formatted_source_is_kept_and_not_formatted_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert render.format_cpp_files(TEXTS, STYLE) == FORMATTED
    assert len(_entries(tmp_path / "cache")) == 2

    def refuse(*args: object) -> dict[str, str]:
        raise AssertionError("clang-format ran for a source in the cache")

    monkeypatch.setattr(render, "_run_clang_format", refuse)
    assert render.format_cpp_files(TEXTS, STYLE) == FORMATTED


def test_a_damaged_entry_is_formatted_again_and_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    render.format_cpp_files(TEXTS, STYLE)
    ran: list[list[str]] = []
    real = render._run_clang_format

    def counting(binary: str, texts: dict[str, str], style: Path) -> dict[str, str]:
        ran.append(sorted(texts))
        return real(binary, texts, style)

    monkeypatch.setattr(render, "_run_clang_format", counting)
    for entry in _entries(tmp_path / "cache"):
        data = entry.read_bytes()
        if b"return" in data:  # the .cpp's entry: its text edited after its digest was written
            entry.write_bytes(data.replace(b"a + 1", b"a + 2"))
    assert render.format_cpp_files(TEXTS, STYLE) == FORMATTED
    assert ran == [["a/x.cpp"]]
    assert render.format_cpp_files(TEXTS, STYLE) == FORMATTED
    assert ran == [["a/x.cpp"]]  # rewritten whole: a hit the second time


def test_formatting_works_without_a_writable_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache should be\n")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(blocker))
    assert render.format_cpp_files(TEXTS, STYLE) == FORMATTED
    assert blocker.read_text() == "a file where the cache should be\n"


def test_another_style_is_another_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    render.format_cpp_files(TEXTS, STYLE)
    wide = tmp_path / ".clang-format"
    wide.write_text(STYLE.read_text().replace("IndentWidth: 2", "IndentWidth: 4"))
    assert "IndentWidth: 4" in wide.read_text()
    assert render.format_cpp_files(TEXTS, wide)["a/x.cpp"] == "int f(int a) {\n    return a + 1;\n}\n"
    assert len(_entries(tmp_path / "cache")) == 4
