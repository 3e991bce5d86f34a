"""The macros of the headers generated code includes, read from the C++ preprocessor and recorded in
``codegen/spec/header_macros.txt`` for the spec loader, which refuses them as names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from codegen.build import toolchain
from codegen.build.errors import BuildError
from codegen.build.toolchain import BASE_FLAGS, compiler_version
from codegen.paths import ProjectPaths, project_paths

#: The recorded macros of the headers generated code includes (:func:`header_macros_of_generated_code`),
#: which the spec loader refuses as names (:data:`codegen.spec.naming.HEADER_MACROS`).
HEADER_MACROS_FILE = Path(__file__).resolve().parent.parent / "spec" / "header_macros.txt"


_INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*([<"])([^>"{}]+)[>"]', re.MULTILINE)


_LINE_MARKER = re.compile(r'^# \d+ "([^"]*)"')


_DEFINE = re.compile(r"^#define ([A-Za-z_][A-Za-z0-9_]*)")


_UNDEF = re.compile(r"^#undef ([A-Za-z_][A-Za-z0-9_]*)")


def template_includes(templates: Path) -> list[str]:
    """Every ``#include`` of the templates under ``templates`` that names a fixed header (not one built from
    the op's names), as written (``<vector>``, ``"kernel_operator.h"``), sorted."""
    found: set[str] = set()
    for path in sorted(templates.rglob("*.j2")):
        for bracket, name in _INCLUDE_LINE.findall(path.read_text(encoding="utf-8")):
            found.add(f"<{name}>" if bracket == "<" else f'"{name}"')
    return sorted(found)


def header_macros_of_generated_code(paths: ProjectPaths | None = None) -> dict[str, str]:
    """The object-like and function-like macros that the headers the generated code includes define, by name,
    each with the header that defines it (relative to its include directory when it is a project header, else
    as the compiler found it), from the C++ compiler's preprocessor (``$CXX -E -dD``, the build's language
    standard and the runtime's include directory, with its copy of ops-nn's ``tests/ut/common`` in front as
    for the unit tests, an NPU arch macro set as for a kernel). Names the C++
    standard reserves (``__x``, ``_X``) are left out: the loader refuses them anyway. A header the compiler
    does not have (``gtest/gtest.h`` where Google Test is not installed) is skipped by ``__has_include``.

    Raises:
        BuildError: the compiler is not usable or the preprocessor failed.
    """
    paths = paths or project_paths()
    include_dir = paths.runtime / "include"
    lines = []
    for header in template_includes(paths.templates):
        lines += [f"#if __has_include({header})", f"#include {header}", "#endif"]
    # the op_host unit tests include ops-nn's tests/ut/common headers by file name
    ut_common = include_dir / "tests" / "ut" / "common"
    cmd = [
        toolchain.CXX,
        BASE_FLAGS[0],
        "-E",
        "-dD",
        f"-I{ut_common}",
        f"-I{include_dir}",
        "-D__NPU_ARCH__=2201",
        "-x",
        "c++",
        "-",
    ]
    try:
        proc = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"C++ compiler '{toolchain.CXX}' not usable: {exc}") from exc
    if proc.returncode != 0:
        raise BuildError("preprocessing the generated code's headers failed", f"$ {' '.join(cmd)}\n{proc.stderr}")
    macros: dict[str, str] = {}
    current = ""
    for line in proc.stdout.splitlines():
        marker = _LINE_MARKER.match(line)
        if marker:
            current = marker.group(1)
            continue
        undef = _UNDEF.match(line)
        if undef:
            macros.pop(undef.group(1), None)
            continue
        define = _DEFINE.match(line)
        if define and current not in ("<built-in>", "<command-line>", "<stdin>"):
            name = define.group(1)
            if not (name.startswith("__") or re.match(r"_[A-Z]", name)):
                where = Path(current)
                try:
                    shown = where.resolve().relative_to(include_dir.resolve()).as_posix()
                except ValueError:
                    shown = where.name
                macros.setdefault(name, shown)
    return dict(sorted(macros.items()))


def record_header_macros(paths: ProjectPaths | None = None) -> Path:
    """Writes :data:`HEADER_MACROS_FILE` from :func:`header_macros_of_generated_code` (run it after a template
    includes another header, or on a new compiler or C library; a test compares the two). Returns its path.

    Raises:
        BuildError: as :func:`header_macros_of_generated_code`.
    """
    macros = header_macros_of_generated_code(paths)
    head = [
        "# Macros of the headers the generated code includes (name, tab, defining header): the spec loader refuses",
        "# them as names. Source: codegen.build.header_macros.header_macros_of_generated_code(), the preprocessor's",
        "# -E -dD over every fixed #include of templates/ with runtime/include on the include path,",
        f"# {compiler_version()}.",
        '# Re-record: python -c "from codegen.build import record_header_macros; record_header_macros()"',
    ]
    HEADER_MACROS_FILE.write_text("\n".join([*head, *(f"{k}\t{v}" for k, v in macros.items())]) + "\n")
    return HEADER_MACROS_FILE
