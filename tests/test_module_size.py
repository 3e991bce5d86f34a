"""Every Python module of the generator holds one idea: none is over 600 lines (a module that grows past it is
split by concern, as docs/families.md describes for the family packages)."""

from __future__ import annotations

from pathlib import Path

import codegen

MAX_LINES = 600


def test_no_codegen_module_over_600_lines() -> None:
    root = Path(codegen.__file__).parent
    sizes = {p.relative_to(root).as_posix(): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    assert len(sizes) > 200  # the package was found
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}
