"""The manual's `opgen explain` examples are what the command prints today (not a stale copy).

Every line of README.md or a page of docs/ of the form ``\\`opgen explain ARGS\\`:`` followed by a fenced
block is run as ``python -m codegen explain ARGS``; its output must equal the block exactly.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from codegen.paths import project_paths

ROOT = project_paths().root
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_EXAMPLE = re.compile(r"^`opgen explain (?P<args>[^`]+)`:\n\n```\n(?P<block>.*?)```\n", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    texts = [page.read_text(encoding="utf-8") for page in PAGES]
    return [(m["args"], m["block"]) for text in texts for m in _EXAMPLE.finditer(text)]


def test_the_manual_shows_explain_for_both_seed_ops() -> None:
    ops = {shlex.split(args)[0] for args, _ in _examples()}
    assert {"SoftMarginLossBackward", "EmbeddingDenseBackward"} <= ops


@pytest.mark.parametrize(("args", "block"), _examples(), ids=[a for a, _ in _examples()])
def test_readme_explain_output_is_current(args: str, block: str) -> None:
    got = subprocess.run(
        [sys.executable, "-m", "codegen", "explain", *shlex.split(args)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert got == block, f"the manual's block for `opgen explain {args}` is stale; paste the command's output:\n{got}"
