"""Syntax-check the generated tree against the public CANN headers, outside this repository, and report the
errors per file kind.

Every file kind of every generated op folder is compiled with ``g++ -std=c++17 -fsyntax-only`` (nothing is
built or linked) against header roots the caller names, never against this repository's ``runtime/``:

=============  ==============================================  ==============================================
kind           files                                           include roots (in this order)
=============  ==============================================  ==============================================
def            ``op_host/<kernel>_def.cpp``                    host set
tiling         ``op_host/<kernel>_tiling.cpp``                 host set
infershape     ``op_host/<kernel>_infershape.cpp``             host set
aclnn          ``op_api/aclnn_*.cpp``                          host set
l0             the other ``op_api/*.cpp``                      host set
proto          ``op_graph/<kernel>_proto.h``                   host set
ut             ``tests/ut/op_host/test_*.cpp``                 ops-nn ``tests/ut/common``, metadef
                                                               ``inc/external/base/context_builder`` and
                                                               ``inc/external/exe_graph`` (as ops-nn's
                                                               ``tests/ut/common/CMakeLists.txt``), gtest,
                                                               host set
kernel         ``op_kernel/<kernel>.cpp``, once per product    asc-devkit + asc-tools CPU-debug set, with
               of the op's spec                                ``-DASCENDC_CPU_DEBUG=1 -D__NPU_ARCH__=<arch>``
                                                               and ``-include tests/ut/op_kernel/<kernel>_
                                                               tiling_def.h`` (as ops-nn's kernel UT build,
                                                               cmake/ut.cmake AddOpTestCase, compiles it)
example        ``examples/test_aclnn_*.cpp``                   the op's ``op_api`` (for the installed
                                                               ``include/aclnnop``), opbase ``include/nnopbase``
                                                               and ``include/aclnnop``, runtime ``include/
                                                               external``: what a CANN install's ``include``
                                                               holds of them (opbase's cmake/package.cmake),
                                                               as ops-nn's build.sh ``run_example`` compiles an
                                                               example with ``-I include -I include/aclnnop``
=============  ==============================================  ==============================================

The kernel set is asc-devkit's ``include``, ``include/utils``, ``include/basic_api``, ``include/basic_api/
interface``, ``include/adv_api``, its root, ``impl``, ``impl/basic_api``, ``impl/adv_api``, ``impl/utils``;
asc-tools ``cpudebug/include``, ``cpudebug/utils/include``, ``libraries/lib/include``; the ``--asc-stub``
directory (``stub_fun.h``); the ``--asc-gen`` directory; libboundscheck ``include``; metadef ``inc/external``;
runtime ``include/external`` (``acl/acl.h``, which asc-tools' ``kernel_simt_cpu.h`` includes on NpuArch 3510).

Two of the headers the kernels reach are not in any repository but made by asc-devkit's build:

- ``stub_fun.h`` (``--asc-stub``): asc-devkit kept it in ``tests/unit/basic_api/ut/stub/`` until its commit
  808795a01 ("refactor tests"); take that directory from a ``git archive 808795a01^`` of asc-devkit. Keep a
  current asc-devkit as the ``--asc-devkit`` root: at 808795a01^ its headers still call the Ascend950
  architecture NpuArch 3101 and have no 3510 branch (the product catalogue's and today's asc-devkit's).
- ``kernel_tiling/kernel_tiling.h`` (``--asc-gen``, the directory that holds ``kernel_tiling/``): asc-devkit's
  ``impl/adv_api/CMakeLists.txt`` (target ``gen_kernel_tiling``) runs its script
  ``impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py`` with the tiling-data definitions directory
  ``include/adv_api`` and the output file; from the ``--asc-devkit`` root::

      python3 impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py include/adv_api \\
          GEN/kernel_tiling/kernel_tiling.h

One name the asc-devkit headers of NpuArch 3510 call is a builtin of the CANN device compiler that no public
header declares (``__isfinite``); the kernel checks of that NpuArch force-include
``tools/public_header_shims/cce_builtins.h``, which declares it as asc-devkit's own CPU tests define it.

The host set is metadef ``inc/external``, ``inc/external/asc``, ``inc``; ge ``inc/graph_metadef/external``
(``graph/operator_reg.h``, which hicann/metadef no longer holds); opbase ``include/nnopbase``, ``include``;
ops-nn ``common/stub/op_api``, ``common/inc/op_api``; asc-devkit ``include/utils``, ``include``; runtime
``include/external``, ``pkg_inc``; libboundscheck ``include`` (``securec.h``). A root not given is left
out, and a header only it provides is reported missing.

Usage (each root is a checkout or ``git archive`` of the public repository)::

    python tools/compile_public_headers.py --metadef M --opbase O --ops-nn N --asc-devkit A --asc-tools T \\
        --runtime R --ge G --securec S [--asc-stub STUB] [--asc-gen GEN] [--gtest GTEST_INCLUDE] \\
        [--generated generated] [-j 2] [--kind K ...] [--folder F ...]

Prints one line per failing file (its first error) and a table: files, files with errors, error lines per
kind and how many of them are located in a generated file (the rest are in the public headers), and every
missing header with the kinds it stops. Exit status 1 when any file has an error.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from codegen.specs import load_project  # noqa: E402

#: (root option, sub-directory) of the host include set, in search order.
HOST_DIRS = (
    ("metadef", "inc/external"),
    ("metadef", "inc/external/asc"),
    ("metadef", "inc"),
    ("ge", "inc/graph_metadef/external"),
    ("opbase", "include/nnopbase"),
    ("opbase", "include"),
    ("ops_nn", "common/stub/op_api"),
    ("ops_nn", "common/inc/op_api"),
    ("asc_devkit", "include/utils"),
    ("asc_devkit", "include"),
    ("runtime", "include/external"),
    ("runtime", "pkg_inc"),
    ("securec", "include"),
)
#: The kernel (CPU-debug) include set: asc-devkit's interface and implementation directories, asc-tools'
#: cpudebug headers and its libraries/lib/include (stub_fun.h), securec and metadef.
KERNEL_DIRS = (
    ("asc_devkit", "include"),
    ("asc_devkit", "include/utils"),
    ("asc_devkit", "include/basic_api"),
    ("asc_devkit", "include/basic_api/interface"),
    ("asc_devkit", "include/adv_api"),
    ("asc_devkit", ""),
    ("asc_devkit", "impl"),
    ("asc_devkit", "impl/basic_api"),
    ("asc_devkit", "impl/adv_api"),
    ("asc_devkit", "impl/utils"),
    ("asc_tools", "cpudebug/include"),
    ("asc_tools", "cpudebug/utils/include"),
    ("asc_tools", "libraries/lib/include"),
    ("asc_stub", ""),
    ("asc_gen", ""),
    ("securec", "include"),
    ("metadef", "inc/external"),
    ("runtime", "include/external"),
)
#: The example set: the public headers an aclnn caller sees in a CANN install's include directory (opbase
#: installs include/nnopbase/aclnn as include/aclnn and include/aclnnop as include/aclnnop; runtime's
#: include/external holds acl/).
EXAMPLE_DIRS = (
    ("opbase", "include/nnopbase"),
    ("opbase", "include/aclnnop"),
    ("runtime", "include/external"),
)
KINDS = ("def", "tiling", "infershape", "aclnn", "l0", "proto", "ut", "kernel", "example")
_MISSING = re.compile(r"fatal error: (\S+): No such file or directory")


@dataclass(frozen=True)
class Unit:
    """One compile: the file kind, the generated file, extra include directories and macros."""

    kind: str
    path: Path
    includes: tuple[Path, ...]
    macros: tuple[str, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Result:
    """A compile's outcome: its unit, the error lines (``error:`` and ``fatal error:``) and missing headers."""

    unit: Unit
    errors: tuple[str, ...]
    missing: tuple[str, ...]


def _dirs(roots: dict[str, Path | None], table: tuple[tuple[str, str], ...]) -> list[Path]:
    """The directories of ``table`` whose root was given and exists."""
    out = []
    for key, sub in table:
        root = roots.get(key)
        if root is not None and (root / sub).is_dir():
            out.append(root / sub)
    return out


def plan(generated: Path, roots: dict[str, Path | None], gtest: Path | None, kinds: set[str]) -> list[Unit]:
    """Every compile of ``generated`` (an ops-nn layout tree, ``<category>/<folder>``) of the ``kinds`` asked;
    kernels once per product of the op's spec (found by its kernel name)."""
    catalogue, specs = load_project()
    by_kernel = {s.kernel: s for s in specs.values()}
    host = _dirs(roots, HOST_DIRS)
    kernel_dirs = _dirs(roots, KERNEL_DIRS)
    example_dirs = _dirs(roots, EXAMPLE_DIRS)
    # ops-nn's tests/ut/common/CMakeLists.txt adds <include>/base/context_builder and <include>/exe_graph
    ut_table = (
        ("ops_nn", "tests/ut/common"),
        ("metadef", "inc/external/base/context_builder"),
        ("metadef", "inc/external/exe_graph"),
    )
    ut_dirs = _dirs(roots, ut_table) + ([gtest] if gtest else [])
    units: list[Unit] = []
    for folder in sorted(p.parent for p in generated.glob("*/*/CMakeLists.txt")):
        own = (folder / "op_host", folder / "op_api", folder / "op_kernel")
        for path in sorted(folder.glob("op_host/*.cpp")):
            kind = next((k for k in ("def", "tiling", "infershape") if path.stem.endswith(f"_{k}")), "")
            if kind:
                units.append(Unit(kind, path, (*own, *host)))
        for path in sorted(folder.glob("op_api/*.cpp")):
            units.append(Unit("aclnn" if path.name.startswith("aclnn_") else "l0", path, (*own, *host)))
        for path in sorted(folder.glob("op_graph/*_proto.h")):
            units.append(Unit("proto", path, (*own, *host)))
        for path in sorted(folder.glob("tests/ut/op_host/test_*.cpp")):
            units.append(Unit("ut", path, (*own, *ut_dirs, *host)))
        for path in sorted(folder.glob("examples/test_aclnn_*.cpp")):
            units.append(Unit("example", path, (folder / "op_api", *example_dirs)))
        spec = by_kernel.get(folder.name)
        tiling_def = folder / "tests" / "ut" / "op_kernel" / f"{folder.name}_tiling_def.h"
        forced = ("-include", str(tiling_def)) if tiling_def.is_file() else ()
        for path in sorted(folder.glob("op_kernel/*.cpp")):
            for name in spec.products if spec else ():
                product = catalogue.get(name)
                shims = ("-include", str(CCE_BUILTINS)) if product.npu_arch in CCE_BUILTIN_ARCHS else ()
                macros = ("-DASCENDC_CPU_DEBUG=1", f"-D__NPU_ARCH__={product.npu_arch}", *forced, *shims)
                units.append(Unit("kernel", path, (*own, *kernel_dirs), macros, name))
    return [u for u in units if u.kind in kinds]


#: What the CANN device compiler provides as builtins and g++ lacks, declared for the kernel checks of the NpuArch
#: whose asc-devkit headers call it (tools/public_header_shims/cce_builtins.h says which and where from).
CCE_BUILTINS = PROJECT / "tools" / "public_header_shims" / "cce_builtins.h"
CCE_BUILTIN_ARCHS = frozenset({3510})


def compile_unit(unit: Unit, cxx: str) -> Result:
    """Syntax-check one unit (``-fsyntax-only``: no output file); its error lines and missing headers."""
    lang = ["-x", "c++"] if unit.path.suffix == ".h" else []
    cmd = [cxx, "-std=c++17", "-fsyntax-only", "-w", *unit.macros, *(f"-I{d}" for d in unit.includes)]
    proc = subprocess.run([*cmd, *lang, str(unit.path)], capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stderr.splitlines() if " error: " in ln or "fatal error:" in ln]
    if proc.returncode != 0 and not lines:
        lines = [proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"]
    missing = tuple(m.group(1) for ln in lines if (m := _MISSING.search(ln)))
    return Result(unit, tuple(lines), missing)


def report(results: list[Result], generated: Path) -> int:
    """Print the failing files and the per-kind table (``in generated``: the error lines located in a file of
    ``generated``; the others are located in the public headers); 1 when any file failed."""
    files: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    missing: dict[str, set[str]] = defaultdict(set)
    for r in results:
        files[r.unit.kind] += 1
        if r.errors:
            failed[r.unit.kind] += 1
            errors[r.unit.kind] += len(r.errors)
            ours[r.unit.kind] += sum(1 for e in r.errors if e.startswith(f"{generated}/"))
            where = r.unit.path.relative_to(generated)
            print(f"{r.unit.kind:10} {where}{' [' + r.unit.label + ']' if r.unit.label else ''}: {r.errors[0]}")
        for header in r.missing:
            missing[header].add(r.unit.kind)
    print(f"\n{'kind':10} {'files':>6} {'failed':>6} {'errors':>6} {'in generated':>12}")
    for kind in KINDS:
        if files[kind]:
            print(f"{kind:10} {files[kind]:6} {failed[kind]:6} {errors[kind]:6} {ours[kind]:12}")
    for header, kinds in sorted(missing.items()):
        print(f"missing header {header}: {', '.join(k for k in KINDS if k in kinds)}")
    return 1 if sum(failed.values()) else 0


def main(argv: list[str] | None = None) -> int:
    """Parse the header roots, compile every unit with ``-j`` workers and print the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    for name in ("metadef", "opbase", "ops-nn", "asc-devkit", "asc-tools", "runtime", "ge", "securec"):
        ap.add_argument(f"--{name}", type=Path, help=f"root of the public {name} sources")
    ap.add_argument(
        "--asc-stub",
        type=Path,
        help="directory holding asc-devkit's CPU-debug stub_fun.h (asc-devkit kept it public in "
        "tests/unit/basic_api/ut/stub/ until its commit 808795a01)",
    )
    ap.add_argument(
        "--asc-gen",
        type=Path,
        help="directory holding kernel_tiling/kernel_tiling.h as asc-devkit's build generates it "
        "(impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py include/adv_api DIR/kernel_tiling/kernel_tiling.h)",
    )
    ap.add_argument("--gtest", type=Path, help="googletest include directory (the one holding gtest/gtest.h)")
    ap.add_argument("--generated", type=Path, default=PROJECT / "generated")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    ap.add_argument("--folder", action="append", help="only this op folder, e.g. gelu_grad (repeatable)")
    args = ap.parse_args(argv)
    roots = {k: getattr(args, k) for k in ("metadef", "opbase", "ops_nn", "asc_devkit", "asc_tools", "runtime")}
    roots |= {"ge": args.ge, "securec": args.securec, "asc_stub": args.asc_stub, "asc_gen": args.asc_gen}
    generated = args.generated.resolve()
    units = plan(generated, roots, args.gtest, set(args.kind or KINDS))
    if args.folder:
        units = [u for u in units if u.path.relative_to(generated).parts[1] in args.folder]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda u: compile_unit(u, args.cxx), units))
    return report(results, generated)


if __name__ == "__main__":
    sys.exit(main())
