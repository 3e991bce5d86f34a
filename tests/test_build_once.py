"""Builds that want the same cache entry at the same time compile it once: the second waits on the entry's
lock and reuses the first's result (codegen/build.py, ``_building``). With ``pytest -n 2`` both workers
share one ``OPGEN_CACHE_DIR``, and ``opgen check -j 2`` builds in parallel, so without this they compiled
the runtime and every shared unit twice.

The compiler here is a stand-in script (``codegen.build.CXX`` patched) that records each command, waits a
little so that the builds overlap, and writes its ``-o`` file: the test counts compiler runs, not seconds.
"""

from __future__ import annotations

import stat
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import codegen.build as build
from codegen.paths import project_paths
from codegen.specs import load_project

FAKE_CXX = """#!{python}
import sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("fake-g++ 1.0")
    sys.exit(0)
with open({log!r}, "a") as log:
    log.write("\\t".join(args) + "\\n")
time.sleep(0.2)  # long enough that a second build of the same entry overlaps this one
out = args[args.index("-o") + 1]
with open(out, "wb") as handle:
    handle.write(("built by " + " ".join(args)).encode())
"""


@pytest.fixture
def fake_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache and the stand-in compiler; returns the file where it logs one line per run."""
    log = tmp_path / "cxx.log"
    script = tmp_path / "fake-g++"
    script.write_text(FAKE_CXX.format(python=sys.executable, log=str(log)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(build, "CXX", str(script))
    build.compiler_version.cache_clear()
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    yield log
    build.compiler_version.cache_clear()


def _runs(log: Path) -> tuple[Counter[str], int]:
    """(compiled source -> number of compiler runs, number of link runs) in the stand-in's log."""
    compiled: Counter[str] = Counter()
    links = 0
    for line in log.read_text().splitlines():
        args = line.split("\t")
        if "-c" in args:
            compiled[args[args.index("-c") + 1]] += 1
        elif "-shared" in args:
            links += 1
    return compiled, links


def _build_concurrently(targets: list[tuple[str, str]]) -> list[Path]:
    catalogue, specs = load_project()
    libraries: list[Path] = [Path()] * len(targets)
    errors: list[BaseException] = []

    def one(i: int, op: str, product: str) -> None:
        try:
            libraries[i] = build.build_op(specs[op], catalogue.get(product), jobs=2).library
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i, *t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return libraries


def test_the_same_library_built_twice_at_once_is_compiled_and_linked_once(fake_compiler: Path) -> None:
    first, second = _build_concurrently([("sigmoid_backward", "Ascend910B"), ("sigmoid_backward", "Ascend910B")])
    assert first == second and first.is_file()
    compiled, links = _runs(fake_compiler)
    assert compiled, "the stand-in compiler was not used"
    twice = {src: n for src, n in compiled.items() if n > 1}
    assert not twice, f"compiled more than once: {twice}"
    runtime_sources = sorted((project_paths().runtime / "src").rglob("*.cpp"))
    assert {str(s) for s in runtime_sources} <= set(compiled)
    assert links == 1


def test_two_products_at_once_share_the_host_units_and_compile_each_kernel_once(fake_compiler: Path) -> None:
    """Ascend910 and Ascend910B: the host units and the runtime once in all, the kernel once per product
    (its NpuArch macros differ), the glue (a file of each build's own) once per build, two links."""
    a, b = _build_concurrently([("sigmoid_backward", "Ascend910"), ("sigmoid_backward", "Ascend910B")])
    assert a != b and a.is_file() and b.is_file()
    compiled, links = _runs(fake_compiler)
    kernel = [src for src in compiled if "/op_kernel/" in src]
    assert len(kernel) == 1 and compiled[kernel[0]] == 2
    glue = [src for src in compiled if src.endswith("opgen_glue.cpp")]
    assert len(glue) == 2 and all(compiled[g] == 1 for g in glue)
    others = {src: n for src, n in compiled.items() if src not in kernel and src not in glue}
    assert others and all(n == 1 for n in others.values()), others
    assert links == 2
