"""64-bit arithmetic: every generated source compiles clean with implicit-conversion warnings as errors.

The generated host code (L2 API, tiling, OpDef, example) is compiled with ``-Wconversion -Wsign-conversion``
and the kernels with ``-Wconversion`` (every op under its first product's NpuArch macros, one op of each
template signature under every NpuArch it supports: :func:`_targets`), all against
``runtime/include``, any warning an error: an offset, length or size narrowed to 32 bits, or a signed value
passed where an unsigned one is taken without an explicit conversion, fails here. The library's units are
compiled by the builder ``opgen check`` uses (``codegen.build``, which fails on any compiler output); this
test states the flags literally and checks the builder passes them, so that dropping a flag from the builder
does not go unnoticed; the example program, not part of the library, is compiled here.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import template_paths

from codegen.build import BuildError, build_op
from codegen.build.toolchain import BASE_FLAGS, CXX, HOST_WARNING_FLAGS, KERNEL_WARNING_FLAGS
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(70)  # about 70 s alone: scheduled before lighter files

STRICT = ("-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror")
HOST = ("-Wconversion", "-Wsign-conversion")
KERNEL = ("-Wconversion",)


def _targets() -> list[tuple[str, str]]:
    """(op, product) pairs: every op on its first product (what the op's own text brings: its formula's code,
    names, attr values), and each op of :func:`template_paths.representatives` once per NpuArch it supports
    (the kernel's macros and the product's capabilities select template paths; ops of one template signature
    take the same ones, so one of them stands for the rest there)."""
    catalogue, specs = load_project()
    targets = {(spec.snake, spec.products[0]) for spec in specs.values()}
    for op in template_paths.representatives(specs, catalogue, list(catalogue.products)):
        spec = specs[op]
        seen: set[int] = set()
        for p in spec.products:
            arch = catalogue.get(p).npu_arch
            if arch not in seen:
                seen.add(arch)
                targets.add((spec.snake, p))
    return sorted(targets)


def test_the_builder_compiles_with_the_strict_flags() -> None:
    """The flags stated here are those ``build_op`` passes (host units: HOST, kernels: KERNEL, all with
    -Wall -Wextra), so the builds below are held to them."""
    assert {"-Wall", "-Wextra"} <= set(BASE_FLAGS)
    assert set(HOST) <= set(HOST_WARNING_FLAGS)
    assert set(KERNEL) <= set(KERNEL_WARNING_FLAGS)


@pytest.mark.parametrize(("op", "product"), _targets(), ids=lambda v: str(v))
def test_generated_sources_build_clean_with_conversion_warnings(op: str, product: str) -> None:
    """Every translation unit of the op's library (L2 API, L0, infershape, tiling, OpDef, the kernel under
    this NpuArch's macros) through the real builder, which fails on any compiler output: warnings are
    errors. On the op's first product the objects are shared with the other tests' builds through the build
    cache; on the other NpuArchs of a representative the kernel is compiled at -O0 (``unoptimized_kernel``: half
    the compile, the same front-end diagnostics, -Wconversion among them; no other test runs those builds)."""
    catalogue, specs = load_project()
    spec = specs[op]
    try:
        build_op(spec, catalogue.get(product), unoptimized_kernel=product != spec.products[0])
    except BuildError as exc:
        pytest.fail(str(exc)[-6000:])


@pytest.mark.parametrize("op", sorted(load_project()[1]), ids=str)
def test_example_program_builds_clean_with_conversion_warnings(op: str) -> None:
    spec = load_project()[1][op]
    paths = project_paths()
    root = paths.generated / spec.folder
    cmd = [CXX, *STRICT, *HOST, f"-I{paths.runtime / 'include'}", f"-I{root / 'op_api'}"]
    cmd.append(str(root / op_files(spec)["example_cpp"]))
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
