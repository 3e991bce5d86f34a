"""Every `opgen` command the manual shows in a shell block runs and exits as the manual says.

The commands are those of the fenced ``bash``/``sh``/``shell``/``console`` blocks of ``README.md`` and
``docs/**/*.md``: each ``&&``-separated part of a line whose program is ``opgen`` (``.venv/bin/opgen``
alike). They run as ``python -m codegen ARGS`` in the page's order, in a small copy of the project, one per
page (:func:`project_copy.copy_project` and the whole ``runtime/``: the catalogue, the first op of each
family and every op a command names, generated before the page's first command), so a command that writes
(``opgen new``, ``opgen generate``) writes there, never into the checkout. A trailing ``# exit N`` comment
on the line is the exit status the manual promises (default 0). Pages showing the same command list (the
README's tour is the getting-started page's) share one run.

Full runs too long for a test are replaced by their ``--help`` form, and the manual says which: an HTML
comment ``<!-- doc-test: help SUBCOMMAND... -->`` right before a block makes every command of those
subcommands in that block run as ``opgen SUBCOMMAND --help`` (exit 0, a usage text): ``opgen check -j 2``
(the whole matrix, minutes) is replaced so. Every other command runs in full; the manual keeps them cheap
(``--quick`` on one product, ``explain --no-model``, the check of a new op that stops at its reference stub).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from project_copy import copy_project

from codegen.paths import project_paths
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(30)  # about 10-30 s alone (a project copy generated, one op built): scheduled early

ROOT = project_paths().root
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(
    r"^(?:<!-- doc-test: (?P<marker>[^>]*?) -->\n)?```(?:bash|sh|shell|console)\n(?P<body>.*?)^```\n",
    re.MULTILINE | re.DOTALL,
)
_EXIT = re.compile(r"#\s*exit (\d+)\b")


@dataclass(frozen=True)
class DocCommand:
    """One ``opgen`` command of a page: its arguments after ``opgen``, the exit status the page promises,
    and whether the test runs its ``--help`` form instead (the page's ``doc-test: help`` marker)."""

    args: tuple[str, ...]
    exit_status: int
    help_only: bool

    def argv(self) -> list[str]:
        """The arguments the test passes to ``python -m codegen``."""
        if not self.help_only:
            return list(self.args)
        sub = [a for a in self.args if not a.startswith("-")][: 2 if self.args[0] == "report" else 1]
        return [*sub, "--help"]


def doc_commands(text: str) -> list[DocCommand]:
    """The ``opgen`` commands of the shell blocks of a Markdown ``text``, in order.

    Raises:
        ValueError: a ``doc-test`` marker that is not ``help SUBCOMMAND...``, or one naming a subcommand its
            block does not run (a marker left behind by an edit).
    """
    found: list[DocCommand] = []
    for block in _FENCE.finditer(text):
        help_subs: set[str] = set()
        if block["marker"] is not None:
            words = block["marker"].split()
            if len(words) < 2 or words[0] != "help":
                raise ValueError(f"doc-test marker {block['marker']!r}: expected 'help SUBCOMMAND...'")
            help_subs = set(words[1:])
        used: set[str] = set()
        for line in block["body"].replace("\\\n", " ").splitlines():
            line = line.removeprefix("$ ").strip()
            status = _EXIT.search(line)
            code, _, _ = line.partition(" #")
            for part in code.split("&&"):
                words = shlex.split(part)
                if not words or Path(words[0]).name != "opgen":
                    continue
                args = tuple(words[1:])
                sub = args[0] if args else ""
                used.add(sub)
                found.append(DocCommand(args, int(status[1]) if status else 0, sub in help_subs))
        if help_subs - used:
            raise ValueError(f"doc-test marker names {sorted(help_subs - used)}, which its block does not run")
    return found


def test_the_extractor_reads_commands_exits_and_markers() -> None:
    text = (
        "```bash\n.venv/bin/pip install -e . && .venv/bin/opgen generate && opgen list   # note\n```\n"
        "```python\nopgen = 1\n```\n"
        "<!-- doc-test: help check -->\n```bash\n$ opgen check -j 2\nopgen explain Op \\\n  --no-model\n"
        "opgen check op --quick    # exit 1: reference not implemented\n```\n"
    )
    assert doc_commands(text) == [
        DocCommand(("generate",), 0, False),
        DocCommand(("list",), 0, False),
        DocCommand(("check", "-j", "2"), 0, True),
        DocCommand(("explain", "Op", "--no-model"), 0, False),
        DocCommand(("check", "op", "--quick"), 1, True),
    ]
    assert DocCommand(("check", "-j", "2"), 0, True).argv() == ["check", "--help"]
    assert DocCommand(("report", "merge", "a.json"), 0, True).argv() == ["report", "merge", "--help"]
    with pytest.raises(ValueError, match="which its block does not run"):
        doc_commands("<!-- doc-test: help new -->\n```bash\nopgen list\n```\n")
    with pytest.raises(ValueError, match="expected 'help SUBCOMMAND"):
        doc_commands("<!-- doc-test: skip -->\n```bash\nopgen list\n```\n")


def _commands_by_page() -> dict[Path, list[DocCommand]]:
    return {page: doc_commands(page.read_text(encoding="utf-8")) for page in PAGES}


def test_the_readme_and_getting_started_show_the_two_commands() -> None:
    pages = _commands_by_page()
    for page in (ROOT / "README.md", ROOT / "docs" / "getting-started.md"):
        shown = {c.args for c in pages[page]}
        assert ("generate",) in shown and ("check", "-j", "2") in shown, page


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project copy (one per page: a page may start the op another page starts) holding every op the
    commands name (snake names, op names, aclnn names or OpTypes), generated; and the environment that
    points ``opgen`` at it."""
    _, specs = load_project()
    names = {n: snake for snake, s in specs.items() for n in (snake, s.op, s.aclnn_name, s.op_type)}
    named = {names[a] for cmds in _commands_by_page().values() for c in cmds for a in c.args if a in names}
    root = tmp_path / "project"
    copy_project(root, sorted(named))
    shutil.copytree(project_paths().runtime, root / "runtime", dirs_exist_ok=True)  # the sources builds need
    env = {**os.environ, "OPGEN_ROOT": str(root)}
    first = subprocess.run([sys.executable, "-m", "codegen", "generate"], cwd=root, env=env, capture_output=True)
    assert first.returncode == 0, first.stderr
    return root, env


def _distinct_pages() -> list[list[Path]]:
    """The pages with commands, grouped by their command list: pages that show the same commands in the same
    order with the same promises (the README's tour is the getting-started page's) run them once."""
    groups: dict[tuple[DocCommand, ...], list[Path]] = {}
    for page, commands in _commands_by_page().items():
        if commands:
            groups.setdefault(tuple(commands), []).append(page)
    return list(groups.values())


@pytest.mark.parametrize("pages", _distinct_pages(), ids=lambda ps: "+".join(p.name for p in ps))
def test_every_command_of_the_page_exits_as_it_says(pages: list[Path], project: tuple[Path, dict[str, str]]) -> None:
    page = pages[0]
    root, env = project
    for command in doc_commands(page.read_text(encoding="utf-8")):
        got = subprocess.run(
            [sys.executable, "-m", "codegen", *command.argv()],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        shown = "opgen " + shlex.join(command.args)
        assert got.returncode == (0 if command.help_only else command.exit_status), (
            f"{page.name}: `{shown}` exited {got.returncode}\n{got.stdout[-3000:]}\n{got.stderr[-3000:]}"
        )
        if command.help_only:
            assert got.stdout.startswith("usage: opgen"), got.stdout[:200]
