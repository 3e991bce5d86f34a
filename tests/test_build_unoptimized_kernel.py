"""``build_op(unoptimized_kernel=True)``: the kernel unit compiled at -O0 (the mutation tests' mutated kernels,
whose runs are judged on their results only), every other unit as in the usual build.

The compiler is a stand-in script that records each command and writes its ``-o`` file (as in
tests/test_build_once.py): the tests read the commands the builder runs, not what g++ makes of them. That an
-O0 kernel gives the usual results is what tests/test_mutations.py shows on real builds (its unmutated trees
pass and every mutant is killed as expected)."""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegen.build import BuildError, build_op, pch, toolchain
from codegen.specs import load_project

FAKE_CXX = """#!{python}
import sys
args = sys.argv[1:]
if args == ["--version"]:
    print("fake-g++ 1.0")
    sys.exit(0)
with open({log!r}, "a") as log:
    log.write("\\t".join(args) + "\\n")
out = args[args.index("-o") + 1]
with open(out, "wb") as handle:
    handle.write(("built by " + " ".join(args)).encode())
if "-MF" in args:
    with open(args[args.index("-MF") + 1], "w") as handle:
        handle.write(out + ": " + args[args.index("c++-header") + 1] + "\\n")
"""

OP, PRODUCT = "sigmoid_backward", "Ascend910B"


@pytest.fixture
def commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache and the stand-in compiler; yields the file of its commands (one a line, tab-separated)."""
    log = tmp_path / "cxx.log"
    script = tmp_path / "fake-g++"
    script.write_text(FAKE_CXX.format(python=sys.executable, log=str(log)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(toolchain, "CXX", str(script))
    toolchain.compiler_version.cache_clear()
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    yield log
    toolchain.compiler_version.cache_clear()


def _compiles(log: Path, since: int = 0) -> list[list[str]]:
    """The compile commands (``-c``) logged from line ``since`` on."""
    lines = log.read_text().splitlines()[since:]
    return [args for args in (line.split("\t") for line in lines) if "-c" in args]


def _last_opt(args: list[str]) -> str:
    """The optimisation flag that wins (g++ takes the last -O)."""
    return [a for a in args if a.startswith("-O")][-1]


def _rest(args: list[str]) -> list[str]:
    """A compile command without its optimisation flags, its forced precompiled header and its output."""
    rest = args[2:] if args[0] == "-include" and args[1].endswith(pch.PCH_HEADER) else args
    rest = rest[: rest.index("-o")] + rest[rest.index("-o") + 2 :]
    return [a for a in rest if not a.startswith("-O")]


def test_only_the_kernel_is_compiled_again_and_at_O0(commands: Path) -> None:
    catalogue, specs = load_project()
    usual = build_op(specs[OP], catalogue.get(PRODUCT), jobs=1)
    before = len(commands.read_text().splitlines())
    kernel = [a for a in _compiles(commands) if "/op_kernel/" in a[a.index("-c") + 1]]
    assert len(kernel) == 1 and _last_opt(kernel[0]) == "-O1"

    fast = build_op(specs[OP], catalogue.get(PRODUCT), jobs=1, unoptimized_kernel=True)
    assert fast.key != usual.key and fast.library != usual.library and fast.library.is_file()
    again = _compiles(commands, before)
    # the host units, glue and runtime are the usual build's cached objects: one compile, the kernel's
    assert [a[a.index("-c") + 1] for a in again] == [kernel[0][kernel[0].index("-c") + 1]]
    assert _last_opt(again[0]) == "-O0"
    # the rest of the kernel's command is the usual one (warnings, product macros, tiling header), less the
    # precompiled system headers (compiled per optimisation level) and the output file
    assert _rest(again[0]) == _rest(kernel[0])
    assert "-Wconversion" in again[0]

    # a second call finds the entry in the cache
    assert build_op(specs[OP], catalogue.get(PRODUCT), jobs=1, unoptimized_kernel=True).library == fast.library
    assert len(_compiles(commands, before)) == 1


def test_a_host_only_build_refuses_it(commands: Path) -> None:
    catalogue, specs = load_project()
    with pytest.raises(BuildError, match="unoptimized_kernel sets the kernel's flags: a host_only build has no kernel"):
        build_op(specs[OP], catalogue.get(PRODUCT), host_only=True, unoptimized_kernel=True)
    assert not commands.exists()  # refused before anything was compiled
