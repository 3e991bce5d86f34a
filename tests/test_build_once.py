"""Builds that want the same cache entry at the same time compile it once: the second waits on the entry's
lock and reuses the first's result (codegen/build/cache.py, ``_build_each``). With ``pytest -n 2`` both workers
share one ``OPGEN_CACHE_DIR``, and ``opgen check -j 2`` builds in parallel, so without this they compiled
the runtime and every shared unit twice.

The compiler here is a stand-in script (``codegen.build.toolchain.CXX`` patched) that records each command, waits a
little so that the builds overlap, and writes its ``-o`` file: the test counts compiler runs, not seconds.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import codegen.build as build
from codegen.build import pch, toolchain
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

REAL_CXX = toolchain.CXX

FAKE_CXX = """#!{python}
import os, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("fake-g++ 1.0")
    sys.exit(0)
with open({log!r}, "a") as log:
    log.write("\\t".join(args) + "\\n")
# the tests of builds at once set a delay long enough that a second build of the same entry overlaps this one
time.sleep(float(os.environ.get("OPGEN_TEST_CXX_DELAY", "0")))
out = args[args.index("-o") + 1]
with open(out, "wb") as handle:
    handle.write(("built by " + " ".join(args)).encode())
if "-MF" in args:  # a dependency file, as g++ -MD writes it: here the compiled file alone
    with open(args[args.index("-MF") + 1], "w") as handle:
        handle.write(out + ": " + args[args.index("c++-header") + 1] + "\\n")
"""


@pytest.fixture
def fake_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache and the stand-in compiler; returns the file where it logs one line per run."""
    log = tmp_path / "cxx.log"
    script = tmp_path / "fake-g++"
    script.write_text(FAKE_CXX.format(python=sys.executable, log=str(log)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(toolchain, "CXX", str(script))
    toolchain.compiler_version.cache_clear()
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPGEN_TEST_CXX_DELAY", "0")
    yield log
    toolchain.compiler_version.cache_clear()


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


def _build_concurrently(targets: list[tuple[str, str]]) -> list[build.BuiltOp]:
    """Builds the (op, product) targets on one thread each, with every stand-in compiler run taking 0.2 s so
    that the builds overlap."""
    os.environ["OPGEN_TEST_CXX_DELAY"] = "0.2"  # the fixture's monkeypatch restores it after the test
    catalogue, specs = load_project()
    libraries: list[build.BuiltOp] = [None] * len(targets)  # type: ignore[list-item]
    errors: list[BaseException] = []

    def one(i: int, op: str, product: str) -> None:
        try:
            libraries[i] = build.build_op(specs[op], catalogue.get(product), jobs=2)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i, *t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return libraries


def test_the_same_library_built_twice_at_once_is_compiled_and_linked_once(
    fake_compiler: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = _build_concurrently([("sigmoid_backward", "Ascend910B"), ("sigmoid_backward", "Ascend910B")])
    first, second = (b.library for b in built)
    assert first == second and first.is_file()
    # both had to wait for a build, one linked it: its progress line says "built", the other's "by another run"
    assert [b.compiled for b in built] == [True, True]
    assert sorted(b.linked_here for b in built) == [False, True]
    from codegen.check.driver import built_progress

    for b in sorted(built, key=lambda b: b.linked_here):
        built_progress(b, 1.25)
    assert capsys.readouterr().err.splitlines() == [
        f"built sigmoid_backward for Ascend910B by another run ({first.name}, 1.2 s)",
        f"built sigmoid_backward for Ascend910B ({first.name}, 1.2 s)",
    ]
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
    a, b = (
        x.library for x in _build_concurrently([("sigmoid_backward", "Ascend910"), ("sigmoid_backward", "Ascend910B")])
    )
    assert a != b and a.is_file() and b.is_file()
    compiled, links = _runs(fake_compiler)
    kernel = [src for src in compiled if "/op_kernel/" in src]
    assert len(kernel) == 1 and compiled[kernel[0]] == 2
    glue = [src for src in compiled if src.endswith("opgen_glue.cpp")]
    assert len(glue) == 2 and all(compiled[g] == 1 for g in glue)
    others = {src: n for src, n in compiled.items() if src not in kernel and src not in glue}
    assert others and all(n == 1 for n in others.values()), others
    assert links == 2


# ---------------------------------------------------------------------------------------------------------------
# The product's name (-DOPGEN_PRODUCT_NAME) is left out of a kernel unit's key: Ascend910B and Ascend910_93
# (same NpuArch and capabilities) share one kernel object
# ---------------------------------------------------------------------------------------------------------------

_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NAME = "OPGEN_PRODUCT_NAME"
_DIRECTIVES = (f"#ifdef {_NAME}", f"#ifndef {_NAME}", f"#define {_NAME} ")


def _name_uses_outside_static_assert(text: str) -> list[str]:
    """The lines of C++ ``text`` that use the macro other than inside a ``static_assert(...)`` or in the
    directives that test or default it (comments and string literals do not count)."""
    blank_strings = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    code = _COMMENT.sub(lambda m: " " * len(m.group()), blank_strings)
    bad = []
    for m in re.finditer(rf"\b{_NAME}\b", code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        line = code[line_start : code.find("\n", m.start())].strip()
        if line.startswith(_DIRECTIVES):
            continue
        opened = code.rfind("static_assert(", 0, m.start())
        inside = opened >= 0 and code.count("(", opened, m.start()) > code.count(")", opened, m.start())
        if not inside:
            bad.append(line)
    return bad


def test_the_runtime_and_templates_use_the_product_name_only_in_static_assertions() -> None:
    """What makes the shared kernel object sound: a static_assert emits no code, and whether it fires does
    not depend on a message; glue.h's name check is in the glue unit, compiled without product macros."""
    paths = project_paths()
    files = [
        p
        for root in (paths.runtime / "include", paths.runtime / "src", paths.templates)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    ]
    seen = 0
    for path in files:
        text = path.read_text(errors="replace")
        seen += text.count(_NAME)
        assert not _name_uses_outside_static_assert(text), path
    assert seen >= 5  # the DataCopyPad and DataCacheCleanAndInvalid messages, the default, glue.h's check


def test_the_static_assert_scan_finds_a_use_in_code() -> None:
    assert _name_uses_outside_static_assert(f'static_assert(X, "on " {_NAME});\n#ifndef {_NAME}\n') == []
    assert _name_uses_outside_static_assert(f"static_assert(X);\nconst char *p = {_NAME};\n") == [
        f"const char *p = {_NAME};"
    ]
    assert _name_uses_outside_static_assert(f'// {_NAME}\nputs("{_NAME}");\n') == []


def test_a_kernel_compiles_to_the_same_object_under_either_product_name(fake_compiler: Path, tmp_path: Path) -> None:
    """The kernel command the builder runs for Ascend910B, run with the real compiler under Ascend910B's
    name and under Ascend910_93's, gives the same bytes."""
    catalogue, specs = load_project()
    build.build_op(specs["sigmoid_backward"], catalogue.get("Ascend910B"), jobs=1)
    kernel = [
        line.split("\t")
        for line in fake_compiler.read_text().splitlines()
        if "-c" in line.split("\t") and "/op_kernel/" in line
    ]
    assert len(kernel) == 1
    args = kernel[0]
    assert '-DOPGEN_PRODUCT_NAME="Ascend910B"' in args
    objects = []
    for name in ("Ascend910B", "Ascend910_93"):
        out = tmp_path / f"{name}.o"
        cmd = [a.replace('"Ascend910B"', f'"{name}"') for a in args]
        cmd[cmd.index("-o") + 1] = str(out)
        proc = subprocess.run([REAL_CXX, *cmd], capture_output=True, text=True, check=False)
        assert proc.returncode == 0 and not proc.stderr, proc.stderr[-3000:]
        objects.append(out.read_bytes())
    assert objects[0] == objects[1]


def test_products_that_differ_only_in_name_share_the_kernel_object(fake_compiler: Path) -> None:
    a, b = (
        x.library
        for x in _build_concurrently([("sigmoid_backward", "Ascend910B"), ("sigmoid_backward", "Ascend910_93")])
    )
    assert a != b and a.is_file() and b.is_file()
    compiled, links = _runs(fake_compiler)
    kernel = [src for src in compiled if "/op_kernel/" in src]
    assert len(kernel) == 1 and compiled[kernel[0]] == 1
    assert sum(1 for src in compiled if src.endswith("opgen_glue.cpp")) == 2  # each product's own facts
    assert links == 2


def test_an_op_whose_sources_name_the_product_builds_its_kernel_per_product(
    fake_compiler: Path, broken_tree: Callable[[str, str, str, str], Path]
) -> None:
    """Generated code that mentions the macro may depend on the name: then the name is part of the key."""
    rel = op_files(load_project()[1]["sigmoid_backward"])["kernel_cpp"]
    head = (project_paths().generated / "activation" / "sigmoid_grad" / rel).read_text().splitlines()[0]
    tree = broken_tree("sigmoid_backward", rel, head, f"{head}\n// reads {_NAME}")
    catalogue, specs = load_project()
    for product in ("Ascend910B", "Ascend910_93"):
        build.build_op(specs["sigmoid_backward"], catalogue.get(product), tree, jobs=1)
    compiled, _ = _runs(fake_compiler)
    kernel = [src for src in compiled if "/op_kernel/" in src]
    assert len(kernel) == 1 and compiled[kernel[0]] == 2


# ---------------------------------------------------------------------------------------------------------------
# Precompiled system headers (codegen/build/pch.py, _precompiled_std): each unit is compiled with a forced include
# of exactly the system headers it reaches, precompiled once; the object's cache key does not depend on it
# ---------------------------------------------------------------------------------------------------------------


def test_system_headers_follow_local_includes_only(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    (inc / "sub").mkdir(parents=True)
    (inc / "sub" / "b.h").write_text("#pragma once\n#include <map>\n  #  include <vector>  // spaced\n")
    (inc / "angle_local.h").write_text('#include "sub/b.h"\n#include <cstdint>\n')
    (tmp_path / "a.h").write_text('#include "sub/b.h"\n#include <angle_local.h>\n#include "missing.h"\n')
    src = tmp_path / "unit.cpp"
    src.write_text('#include "a.h"\n// #include <list> is a comment\nint x;\n')
    assert pch.system_headers([src], [inc]) == ("cstdint", "map", "vector")
    assert pch.system_headers([tmp_path / "none.cpp"], [inc]) == ()


def _compiles(log: Path) -> list[list[str]]:
    return [line.split("\t") for line in log.read_text().splitlines() if "-c" in line.split("\t")]


def test_every_unit_is_compiled_with_its_own_system_headers_precompiled(fake_compiler: Path) -> None:
    catalogue, specs = load_project()
    build.build_op(specs["sigmoid_backward"], catalogue.get("Ascend910B"), jobs=1)
    units = [args for args in _compiles(fake_compiler) if "/runtime/src/" not in args[args.index("-c") + 1]]
    assert len(units) == 7  # op_api, l0, infershape, tiling, def, kernel, glue
    include_dirs = [Path(a[2:]) for a in units[0] if a.startswith("-I")]
    for args in units:
        assert args[0] == "-include"
        assert args[1].endswith(f"/pch/{Path(args[1]).parent.name}/{pch.PCH_HEADER}")
        header = Path(args[1])
        assert header.with_name(header.name + ".gch").is_file()
        source = Path(args[args.index("-c") + 1])
        if not source.is_file():
            continue  # the glue unit, written in the build's work directory and removed with it
        forced = [Path(args[i + 1]) for i in range(2, len(args) - 1) if args[i] == "-include"]
        listed = re.findall(r"^#include <([^>]+)>$", header.read_text(), re.M)
        assert tuple(listed) == pch.system_headers([source, *forced], include_dirs)
        assert {"vector", "cstdint"} <= set(listed)
    # the headers were precompiled with the unit's options (less includes, macros and warnings)
    precompiles = [line.split("\t") for line in fake_compiler.read_text().splitlines() if "c++-header" in line]
    assert precompiles
    for a in precompiles:
        assert "-fPIC" in a and not any(x.startswith(("-I", "-D", "-W")) for x in a)


def test_the_precompiled_header_is_not_part_of_an_objects_key(
    fake_compiler: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue, specs = load_project()
    monkeypatch.setenv("OPGEN_NO_PCH", "1")
    first = build.build_op(specs["sigmoid_backward"], catalogue.get("Ascend910B"), jobs=1)
    plain = _compiles(fake_compiler)
    assert plain and not any(a[0] == "-include" and a[1].endswith(pch.PCH_HEADER) for a in plain)
    monkeypatch.delenv("OPGEN_NO_PCH")
    fake_compiler.write_text("")
    again = build.build_op(specs["sigmoid_backward"], catalogue.get("Ascend910B"), jobs=1)
    assert again.library == first.library
    assert fake_compiler.read_text() == ""  # every object and the library came from the cache


def test_no_precompiled_header_for_another_compiler(fake_compiler: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert pch.is_gcc("fake-g++ 1.0")  # the stand-in, as the tests above use it
    assert pch.is_gcc("g++ (Debian 12.2.0-14) 12.2.0") and pch.is_gcc("g++-13 (GCC) 13.2.1")
    assert not pch.is_gcc("clang version 17.0.6") and not pch.is_gcc("Ubuntu clang version 18 (g++ compatible)")
    monkeypatch.setattr(pch, "is_gcc", lambda version: False)
    catalogue, specs = load_project()
    build.build_op(specs["sigmoid_backward"], catalogue.get("Ascend910B"), jobs=1)
    assert not any(pch.PCH_HEADER in line for line in fake_compiler.read_text().splitlines())


def test_system_headers_decline_what_a_precompiled_header_could_change(tmp_path: Path) -> None:
    guarded = tmp_path / "guarded.h"
    guarded.write_text("#ifndef GUARDED_H\n#define GUARDED_H\n#include <vector>\n#endif\n")
    assert pch.system_headers([guarded], []) == ("vector",)  # the include guard's block is the header
    cases = {
        "conditional.cpp": "#if 0\n#include <cstdio>\n#endif\nint x;\n",
        "ifdef.cpp": '#include "guarded.h"\n#ifdef USE_IO\n#include <iostream>\n#endif\n',
        "assertions.cpp": "#define _GLIBCXX_ASSERTIONS 1\n#include <vector>\n",
        "ndebug.cpp": "#undef NDEBUG\n#include <cassert>\n",
        "stdc.cpp": "#define __STDC_FORMAT_MACROS\n#include <cinttypes>\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert pch.system_headers([tmp_path / name], []) is None, name
    fine = tmp_path / "fine.cpp"
    fine.write_text("#define __aicore__\n#define OPGEN_X 1\n#include <map>\n")
    assert pch.system_headers([fine], []) == ("map",)


def test_pch_options_drop_includes_and_macros_with_their_values() -> None:
    flags = ["-std=c++17", "-isystem", "/opt/sys", "-O2", "-U", "X", "-imacros", "m.h", "-DA", "-D", "B", "-fPIC"]
    flags += ["-include", "t.h", "-isystem/opt/joined", "-Wall", "-c", "unit.cpp", "-pthread"]
    assert pch._pch_flags(flags) == ["-std=c++17", "-O2", "-fPIC", "-pthread"]


def test_a_precompiled_header_is_rebuilt_when_a_file_it_read_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "unit.cpp"
    src.write_text("#include <cstdint>\nint x;\n")
    args = pch._precompiled_std(["-std=c++17", "-O1", "-fPIC", "-c", str(src)], src, [])
    assert args and args[0] == "-include"
    gch = Path(args[1] + ".gch")
    record = Path(args[1]).with_name(pch.PCH_HEADER + ".files")
    lines = record.read_text().splitlines()
    assert any(line.endswith("/cstdint") for line in lines)  # every file the compiler read, with size and time
    first = gch.stat().st_mtime_ns
    assert pch._precompiled_std(["-std=c++17", "-O1", "-fPIC", "-c", str(src)], src, []) == args
    assert gch.stat().st_mtime_ns == first  # unchanged: reused
    size, mtime, path = lines[0].split(" ", 2)
    record.write_text("\n".join([f"{int(size) + 1} {mtime} {path}", *lines[1:]]) + "\n")  # as if it changed
    assert pch._precompiled_std(["-std=c++17", "-O1", "-fPIC", "-c", str(src)], src, []) == args
    assert gch.stat().st_mtime_ns != first
    assert record.read_text().splitlines() == lines  # recorded again from the compiler's files
    monkeypatch.setenv("CPLUS_INCLUDE_PATH", str(tmp_path))  # other headers may be found: another entry
    assert pch._precompiled_std(["-std=c++17", "-O1", "-fPIC", "-c", str(src)], src, []) != args
