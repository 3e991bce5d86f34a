"""The kernel unit tests' tiling header (``tests/ut/op_kernel/<kernel>_tiling_def.h``) of every generated op
folder reads back what the op's host tiling data writes.

ops-nn's kernel UT build force-includes that header when it compiles ``op_kernel/<kernel>.cpp`` on the CPU
(hicann/ops-nn cmake/ut.cmake, AddOpTestCase), so its struct must have the fields of
``op_host/<kernel>_tiling.h`` at the same byte offsets. One program, built against ``runtime/``, includes every
op's tiling header and tiling_def header, sets each host field to its own value through ``set_<field>``,
saves the host tiling data to a buffer with ``SaveToBuffer`` and reads the buffer with the op's
``GET_TILING_DATA``; it prints every field read back, which must be the value set.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from codegen.build.toolchain import CXX
from codegen.paths import project_paths
from codegen.specs import load_project

PATHS = project_paths()
_, SPECS = load_project()
_FIELD = re.compile(r"TILING_DATA_FIELD_DEF\(\s*(\w+),\s*(\w+)\s*\)")
_ARRAY = re.compile(r"TILING_DATA_FIELD_DEF_ARR\(\s*(\w+),\s*(\d+),\s*(\w+)\s*\)")
_CLASS = re.compile(r"BEGIN_TILING_DATA_DEF\((\w+)\)")


def _program(folders: list[Path]) -> tuple[str, list[str]]:
    """The C++ program over ``folders`` and the lines it must print (``<kernel>.<field> <value>``): one function
    per op, right after its headers (each tiling_def header defines its own ``GET_TILING_DATA``)."""
    parts, calls, expected = [], [], []
    value = 0
    for folder in folders:
        kernel = folder.name
        host = (folder / "op_host" / f"{kernel}_tiling.h").read_text()
        cls = _CLASS.search(host)
        assert cls, f"{kernel}: no BEGIN_TILING_DATA_DEF"
        sets, prints = [], []
        fields = _FIELD.findall(host)
        arrays = _ARRAY.findall(host)
        readable = len(fields) + len(arrays)
        assert readable == host.count("TILING_DATA_FIELD_DEF"), f"{kernel}: a field the test cannot read"
        for c_type, name in fields:
            value += 1
            sets.append(f"host.set_{name}(static_cast<{c_type}>({value}));")
            prints.append(f'std::printf("{kernel}.{name} %lld\\n", static_cast<long long>(tilingData.{name}));')
            expected.append(f"{kernel}.{name} {value}")
        for c_type, count, name in arrays:  # an array: its elements value, value + 1, ...; its first and last read
            n = int(count)
            sets.append(f"{c_type} {name}Values[{n}];")
            fill = f"{name}Values[i] = static_cast<{c_type}>({value + 1} + i);"
            sets.append(f"for (int i = 0; i < {n}; ++i) {{ {fill} }}")
            sets.append(f"host.set_{name}({name}Values);")
            for k in (0, n - 1):
                prints.append(
                    f'std::printf("{kernel}.{name}[{k}] %lld\\n", static_cast<long long>(tilingData.{name}[{k}]));'
                )
                expected.append(f"{kernel}.{name}[{k}] {value + 1 + k}")
            value += n
        parts += [
            "#undef GET_TILING_DATA",
            f'#include "{folder}/op_host/{kernel}_tiling.h"',
            f'#include "{folder}/tests/ut/op_kernel/{kernel}_tiling_def.h"',
            f"static void Check_{kernel}() {{",
            f"optiling::{cls.group(1)} host;",
            *sets,
            "std::vector<uint8_t> bytes(host.GetDataSize());",
            "host.SaveToBuffer(bytes.data(), bytes.size());",
            "uint8_t *tiling = bytes.data();",
            "GET_TILING_DATA(tilingData, tiling);",
            *prints,
            "}",
        ]
        calls.append(f"Check_{kernel}();")
    source = "\n".join(
        [
            "#include <cstdio>",
            "#include <vector>",
            "#define __gm__",
            '#include "register/tilingdata_base.h"',
            "namespace opgen_rt {",
            "bool RegisterTilingClassMeta(const char *, const TilingClassMeta &) { return true; }",
            "}",
            *parts,
            "int main() {",
            *calls,
            "return 0;",
            "}",
        ]
    )
    return source + "\n", expected


def test_every_tiling_def_reads_the_host_tiling_data(tmp_path: Path) -> None:
    """Every op folder's kernel-UT GET_TILING_DATA reads each host tiling field back with the value set."""
    folders = sorted({(PATHS.generated / s.folder).resolve() for s in SPECS.values()})
    assert len(folders) == len(SPECS)  # no two specs share an op folder
    for folder in folders:
        assert (folder / "tests" / "ut" / "op_kernel" / f"{folder.name}_tiling_def.h").is_file(), folder
    source, expected = _program(folders)
    (tmp_path / "t.cpp").write_text(source)
    exe = tmp_path / "t"
    include = PATHS.runtime / "include"
    build = subprocess.run(
        [CXX, "-std=c++17", "-O0", f"-I{include}", str(tmp_path / "t.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == expected
    assert len(expected) > 29 * 5  # every op has its core split fields at least
