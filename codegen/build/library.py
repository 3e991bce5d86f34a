"""Building one (op, product): its shared library (the op's generated units, the glue unit and the runtime,
each object cached by content) and its example program linked against it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from codegen.build import toolchain
from codegen.build.cache import _build_each, _building, _cached, _commit_locked, _entry_lock, build_workdir, cache_dir
from codegen.build.errors import BuildError
from codegen.build.glue import PRODUCT_NAME_MACRO, _kernel_tiling_type, glue_source, product_macros
from codegen.build.pch import _precompiled_std
from codegen.build.toolchain import (
    BASE_FLAGS,
    COVERAGE_FLAGS,
    HOST_WARNING_FLAGS,
    KERNEL_OPT_FLAGS,
    KERNEL_WARNING_FLAGS,
    LINK_FLAGS,
    SANITIZE_FLAGS,
    UNOPTIMIZED_KERNEL_FLAGS,
    compiler_version,
)
from codegen.paths import ProjectPaths, project_paths
from codegen.spec.generated_names import op_files
from codegen.spec.model import OpSpec, Product


def _tree_digest(roots: Iterable[Path], suffixes: tuple[str, ...] = (".h", ".hpp", ".cpp", ".inc")) -> str:
    """SHA-256 (hex) of the relative paths and bytes of the files under ``roots`` whose suffix is in
    ``suffixes`` (C++ sources and headers by default)."""
    h = hashlib.sha256()
    for root in roots:
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in suffixes)
        for p in files:
            h.update(p.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class BuiltOp:
    """A compiled (op, product): ``library`` is the shared object; ``key`` its cache key; ``compiled`` whether
    this call had to build it (False: the build cache already held it); ``linked_here`` whether this call
    linked it (False when another build linked it while this one waited for the entry)."""

    spec: OpSpec
    product: Product
    library: Path
    key: str
    sanitize: bool
    compiled: bool = False
    linked_here: bool = False
    #: with ``coverage``: the gcov notes (``.gcno``) of the op's instrumented units, beside their cached
    #: objects; a run writes each unit's counts as ``<GCOV_PREFIX>/<note's stem>.gcda`` (see
    #: :data:`codegen.build.toolchain.COVERAGE_FLAGS`)
    coverage_notes: tuple[Path, ...] = ()


def build_op(
    spec: OpSpec,
    product: Product,
    generated_dir: Path | None = None,
    paths: ProjectPaths | None = None,
    sanitize: bool = False,
    jobs: int = 2,
    tiling_keys: Collection[int] | None = None,
    coverage: bool = False,
    host_only: bool = False,
    unoptimized_kernel: bool = False,
) -> BuiltOp:
    """Compiles ``spec`` for ``product`` into a shared library (or returns the cached one).

    Args:
        spec: the op.
        product: the target product.
        generated_dir: the generated tree (``generated/`` by default); the op's folder is ``<dir>/<category>/<kernel>``
            (``spec.folder``).
        paths: project paths (found automatically by default).
        sanitize: build with AddressSanitizer and UBSan, every unit at -O0
            (:data:`~codegen.build.toolchain.SANITIZE_FLAGS`; a separate cache entry).
        jobs: parallel compiler processes.
        tiling_keys: compile only these tiling keys' branches of the kernel (``-DOPGEN_TILING_KEYS``, see
            runtime/include/kernel_operator.h), as the CANN toolchain compiles a kernel per key; a launch of
            any other key is refused with a ``[tiling key not built]`` kernel fault. ``None`` (the default):
            every key. A kernel of many keys compiles several times faster for a few of them; a separate
            cache entry.
        coverage: instrument the op's generated units (not the glue unit nor the runtime) for gcov
            (:data:`~codegen.build.toolchain.COVERAGE_FLAGS`), without precompiled headers; a separate cache
            entry for the library and for each instrumented unit, whose ``.gcno`` is kept beside its object.
        host_only: leave the kernel out: the library holds the op's host units (op_api, L0, infershape,
            tiling, OpDef), a glue unit that defines the product but registers no kernel, and the runtime.
            Its OpDef, infershape and tiling answer as the full library's do (the same host objects); an aclnn
            call fails in phase 1, where the L0 op looks up the kernel ("no kernel is registered for OpType").
            For what calls only the OpDef, infershape or tiling (ops-nn's op_host unit tests, OpDef queries),
            it saves the kernel's compile, by far the longest of an op. A separate cache entry; not with
            ``tiling_keys``.
        unoptimized_kernel: compile the kernel unit at -O0
            (:data:`~codegen.build.toolchain.UNOPTIMIZED_KERNEL_FLAGS`) instead of
            :data:`~codegen.build.toolchain.KERNEL_OPT_FLAGS`: about half the kernel's compile time, for a build
            whose runs are judged on their results, never timed (the mutation tests' mutated kernels). The same
            results; warnings that only the optimisers emit are not reported. A separate cache entry for the
            library and the kernel's object; the host units, glue and runtime are the usual ones.

    Raises:
        BuildError: a source is missing, ``tiling_keys`` is empty, holds a value outside uint64 or is given
            with ``host_only``, ``unoptimized_kernel`` is given with ``host_only``, or compiling or linking
            failed (compiler output attached).
    """
    key_filter: list[str] = []
    if tiling_keys is not None and host_only:
        raise BuildError("tiling_keys select kernel branches: a host_only build has no kernel")
    if unoptimized_kernel and host_only:
        raise BuildError("unoptimized_kernel sets the kernel's flags: a host_only build has no kernel")
    # A sanitized kernel stays at SANITIZE_FLAGS' -O0 (the instrumented -O1 compile is the longest of a
    # sanitized build: EmbeddingDenseBackward on Ascend910B, every tiling key, 52 s against 18 s).
    kernel_opt = UNOPTIMIZED_KERNEL_FLAGS if unoptimized_kernel or sanitize else KERNEL_OPT_FLAGS
    if tiling_keys is not None:
        keys = sorted(set(tiling_keys))
        if not keys or any(not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < 2**64 for k in keys):
            raise BuildError(f"tiling_keys must be a non-empty set of uint64 integers, got {tiling_keys!r}")
        key_filter = [f"-DOPGEN_TILING_KEYS={','.join(f'{k}ULL' for k in keys)}"]
    paths = paths or project_paths()
    root = (generated_dir or paths.generated) / spec.folder
    files = op_files(spec)
    sources = {k: root / rel for k, rel in files.items()}
    required = ["op_api_cpp", "l0_cpp", "infershape_cpp", "tiling_cpp", "def_cpp"]
    for kind in required if host_only else [*required, "kernel_cpp"]:
        if not sources[kind].is_file():
            raise BuildError(
                f"{sources[kind]} not found: run `opgen generate` (with the same --specs, if any) or pass the right "
                "--generated"
            )
    flags = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else ())]
    include = [f"-I{paths.runtime / 'include'}", f"-I{root / 'op_api'}", f"-I{root / 'op_host'}"]
    glue = glue_source(spec, product, kernel=not host_only)
    runtime_digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    op_digest = _tree_digest([root])
    h = hashlib.sha256()
    for part in (
        compiler_version(),
        " ".join(flags),
        " ".join((*HOST_WARNING_FLAGS, *kernel_opt, *KERNEL_WARNING_FLAGS)),
        runtime_digest,
        op_digest,
        glue,
        " ".join(product_macros(product)),
        " ".join(key_filter),
        " ".join(COVERAGE_FLAGS) if coverage else "",
        *(["host only"] if host_only else []),  # (the glue differs too)
    ):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()[:24]
    cache = cache_dir()
    out_dir = cache / "lib" / key
    library = out_dir / f"lib{spec.snake}_{product.name}.so"
    instrument = [*COVERAGE_FLAGS] if coverage else []
    if _cached(library):
        return BuiltOp(spec, product, library, key, sanitize, coverage_notes=_notes(library, coverage))
    with _entry_lock(library):  # makes its directory (a BuildError when a file sits in the way)
        pass

    work = build_workdir(cache)
    try:
        glue_path = work / "opgen_glue.cpp"
        glue_path.write_text(glue)
        units: list[tuple[Path, list[str]]] = [
            (sources["op_api_cpp"], [*HOST_WARNING_FLAGS, *instrument]),
            (sources["l0_cpp"], [*HOST_WARNING_FLAGS, *instrument]),
            (sources["infershape_cpp"], [*HOST_WARNING_FLAGS, *instrument]),
            (sources["tiling_cpp"], [*HOST_WARNING_FLAGS, *instrument]),
            (sources["def_cpp"], [*HOST_WARNING_FLAGS, *instrument]),
            (
                sources["kernel_cpp"],
                [
                    *instrument,
                    *kernel_opt,
                    *KERNEL_WARNING_FLAGS,
                    *product_macros(product),
                    *key_filter,
                    "-include",
                    str(sources["tiling_h"]),
                    f"-DOPGEN_KERNEL_TILING_TYPE={_kernel_tiling_type(spec)}",
                ],
            ),
            (glue_path, []),
        ]
        if host_only:
            units = [unit for unit in units if unit[0] != sources["kernel_cpp"]]
        runtime_objs = _runtime_objects(paths, flags, runtime_digest, jobs)
        # What every unit of the op can include besides its own text: the op's headers and the runtime's.
        headers = _tree_digest([root], (".h", ".hpp", ".inc")) + _tree_digest([paths.runtime / "include"])
        # __FILE__ in the op's sources (the OP_LOG macros) names `<category>/<kernel>/op_api/...`, wherever the
        # tree is, so an object does not depend on the tree's location and copies of a tree share their
        # unchanged units.
        prefix_map = f"-fmacro-prefix-map={root}={spec.folder}"
        # The product's name is part of a unit's key only when the op's own sources mention the macro.
        op_reads_name = any(
            PRODUCT_NAME_MACRO[2:-1] in p.read_text(errors="replace")
            for p in root.rglob("*")
            if p.is_file() and p.suffix in (".h", ".hpp", ".cpp", ".inc")
        )
        commands = [[toolchain.CXX, *flags, *include, prefix_map, *extra, "-c", str(src)] for src, extra in units]
        include_dirs = [Path(arg[2:]) for arg in include]

        def unit_entry(src: Path, command: list[str]) -> Path:
            # One cache entry per translation unit, keyed by its text, the headers it can include and its
            # command (less the product's name, see PRODUCT_NAME_MACRO): products that compile a unit the
            # same way (every host unit; the kernel on products with the same NpuArch and capabilities)
            # share it, and a change to one source recompiles only that unit.
            # op_api/<kernel>.cpp and op_kernel/<kernel>.cpp; the glue unit lives in the temporary work
            # directory, whose random name must not name the entry (it was never found again)
            name = f"{'build' if src.parent == work else src.parent.name}_{src.stem}"
            keyed = [a for a in command if op_reads_name or not a.startswith(PRODUCT_NAME_MACRO)]
            described = (
                "\0".join([compiler_version(), headers, *keyed])
                .replace(str(root), spec.folder)
                .replace(str(work), "build")
            )
            unit_key = hashlib.sha256(described.encode() + b"\0" + src.read_bytes()).hexdigest()[:24]
            return cache / "obj" / unit_key / f"{name}.o"

        objs = [unit_entry(src, command) for (src, _), command in zip(units, commands)]

        def compile_unit(i: int) -> None:
            tmp = work / objs[i].name
            # the precompiled system headers first (not part of the unit's key: the code is the same)
            # (none for an instrumented unit: its objects never mix with uninstrumented precompiled code)
            pch = [] if coverage else _precompiled_std(commands[i][1:], units[i][0], include_dirs)
            command = [commands[i][0], *pch, *commands[i][1:]]
            toolchain._run([*command, "-o", str(tmp)], f"compiling {units[i][0].name} for {product.name}")
            if COVERAGE_FLAGS[0] in command:  # the notes first: a committed object always has its notes
                os.replace(tmp.with_suffix(".gcno"), objs[i].with_suffix(".gcno"))
            _commit_locked(tmp, objs[i])

        _build_each(objs, compile_unit, jobs)

        def link(_: int) -> None:
            tmp_lib = work / library.name
            toolchain._run(
                [
                    toolchain.CXX,
                    *flags,
                    "-shared",
                    *LINK_FLAGS,
                    *instrument,
                    "-o",
                    str(tmp_lib),
                    *map(str, objs),
                    *map(str, runtime_objs),
                ],
                f"linking {library.name}",
            )
            _commit_locked(tmp_lib, library)

        linked = _build_each([library], link, 1) == 1  # another build linking it meanwhile: reused
        if coverage:
            listing = [objs[i].with_suffix(".gcno") for i, (src, _) in enumerate(units) if src != glue_path]
            library.with_name(library.name + NOTES_SUFFIX).write_text("".join(f"{n}\n" for n in listing))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    notes = _notes(library, coverage)
    return BuiltOp(spec, product, library, key, sanitize, compiled=True, linked_here=linked, coverage_notes=notes)


#: Beside an instrumented library: the paths of its units' gcov notes, one a line.
NOTES_SUFFIX = ".gcno-list"


def _notes(library: Path, coverage: bool) -> tuple[Path, ...]:
    """The gcov notes of an instrumented ``library`` (none without ``coverage``, or when its list is gone)."""
    listing = library.with_name(library.name + NOTES_SUFFIX)
    if not coverage or not listing.is_file():
        return ()
    return tuple(Path(line) for line in listing.read_text().split("\n") if line)


def _runtime_objects(paths: ProjectPaths, flags: list[str], digest: str, jobs: int) -> list[Path]:
    """Compiles the runtime's sources once per (flags, runtime content); returns the cached objects."""
    h = hashlib.sha256("\0".join([compiler_version(), " ".join(flags), digest]).encode()).hexdigest()[:24]
    out_dir = cache_dir() / "runtime" / h
    srcs = sorted((paths.runtime / "src").rglob("*.cpp"))
    objs = [out_dir / (s.relative_to(paths.runtime / "src").as_posix().replace("/", "__")[:-4] + ".o") for s in srcs]
    if all(_cached(obj) for obj in objs):
        return objs
    out_dir.mkdir(parents=True, exist_ok=True)

    def compile_one(i: int) -> None:
        tmp = objs[i].with_name(f".{objs[i].stem}.{os.getpid()}.{threading.get_ident()}.tmp.o")
        try:
            toolchain._run(
                [toolchain.CXX, *flags, f"-I{paths.runtime / 'include'}", "-c", str(srcs[i]), "-o", str(tmp)],
                f"compiling runtime {srcs[i].name}",
            )
            _commit_locked(tmp, objs[i])
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    _build_each(objs, compile_one, jobs)
    return objs


def build_example(built: BuiltOp, generated_dir: Path | None = None, paths: ProjectPaths | None = None) -> Path:
    """Compiles the op's generated example program against its library; returns the executable (cached).

    Raises:
        BuildError: compiling or linking failed.
    """
    paths = paths or project_paths()
    root = (generated_dir or paths.generated) / built.spec.folder
    src = root / op_files(built.spec)["example_cpp"]
    h = hashlib.sha256((built.key + src.read_text()).encode()).hexdigest()[:24]
    exe = cache_dir() / "examples" / h / f"example_{built.spec.snake}_{built.product.name}"
    tmp = exe.with_name(f".{exe.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    flags = [*BASE_FLAGS, *HOST_WARNING_FLAGS, *(SANITIZE_FLAGS if built.sanitize else ())]
    with _building(exe) as hit:
        if not hit:
            try:
                toolchain._run(
                    [
                        toolchain.CXX,
                        *flags,
                        f"-I{paths.runtime / 'include'}",
                        f"-I{root / 'op_api'}",
                        str(src),
                        "-o",
                        str(tmp),
                        str(built.library),
                        f"-Wl,-rpath,{built.library.parent}",
                    ],
                    f"compiling example of {built.spec.op}",
                )
                _commit_locked(tmp, exe)
            finally:  # a failed compile or commit leaves nothing in the entry folder
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
    return exe
