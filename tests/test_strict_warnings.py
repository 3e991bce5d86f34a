"""64-bit arithmetic: every generated source compiles clean with implicit-conversion warnings as errors.

The generated host code (L2 API, tiling, OpDef, example) is compiled with ``-Wconversion -Wsign-conversion``
and the kernels with ``-Wconversion`` (each under the macros of every NpuArch the op supports), all against
``runtime/include`` with ``-Werror``: an offset, length or size narrowed to 32 bits, or a signed value passed
where an unsigned one is taken without an explicit conversion, fails here. ``opgen check`` builds with the
same flags (``codegen.build.HOST_WARNING_FLAGS``/``KERNEL_WARNING_FLAGS``); this test states them literally, so
that dropping a flag from the builder does not go unnoticed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codegen.build import CXX, _kernel_tiling_type, op_files, product_macros
from codegen.paths import project_paths
from codegen.specs import load_project

STRICT = ("-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror")
HOST = ("-Wconversion", "-Wsign-conversion")
KERNEL = ("-Wconversion",)


def _units() -> list[tuple[str, str, str]]:
    """(op, product, file kind) for every generated source; kernels once per NpuArch of the op."""
    catalogue, specs = load_project()
    units = []
    for spec in specs.values():
        for kind in ("op_api_cpp", "tiling_cpp", "def_cpp", "example_cpp"):
            units.append((spec.snake, spec.products[0], kind))
        seen: set[int] = set()
        for p in spec.products:
            arch = catalogue.get(p).npu_arch
            if arch not in seen:
                seen.add(arch)
                units.append((spec.snake, p, "kernel_cpp"))
    return units


@pytest.mark.parametrize(("op", "product", "kind"), _units(), ids=lambda v: str(v))
def test_generated_source_builds_clean_with_conversion_warnings(op: str, product: str, kind: str) -> None:
    catalogue, specs = load_project()
    spec = specs[op]
    paths = project_paths()
    root = paths.generated / op
    files = op_files(spec)
    cmd = [CXX, *STRICT, f"-I{paths.runtime / 'include'}", f"-I{root / 'op_api'}", f"-I{root / 'op_host'}"]
    if kind == "kernel_cpp":
        cmd += [*KERNEL, *product_macros(catalogue.get(product)), "-include", str(root / files["tiling_h"])]
        cmd += [f"-DOPGEN_KERNEL_TILING_TYPE={_kernel_tiling_type(spec)}"]
    else:
        cmd += [*HOST]
    cmd.append(str(root / files[kind]))
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr[-4000:]


def test_the_flags_reject_a_32_bit_offset(tmp_path: Path) -> None:
    """The kernel flags turn an int64 offset held in an int32 into a build failure (what they are for)."""
    src = tmp_path / "narrow.cpp"
    src.write_text(
        "#include <cstdint>\nint32_t f(int64_t block, int64_t len) { int32_t offset = block * len; return offset; }\n"
    )
    proc = subprocess.run([CXX, *STRICT, *KERNEL, str(src)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "-Werror=conversion" in proc.stderr
