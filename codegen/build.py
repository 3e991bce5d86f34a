"""Building generated sources on the host: one shared library per (op, product), cached by content hash.

Each library holds the op's generated C++ (op_api, tiling, OpDef, kernel), a small glue translation unit
written here (the kernel's registration under its OpType and the product's facts, which the CANN build
system would otherwise provide) and the runtime emulation. Object files are cached in the user cache
directory under a SHA-256 of everything that determines them (source text of the file and every header it
can include, compiler flags and ``g++ --version``), so unchanged inputs are never compiled twice.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from codegen.paths import ProjectPaths, project_paths
from codegen.registry import family
from codegen.spec.generated_names import op_files
from codegen.spec.model import DType, OpSpec, Product

CXX = os.environ.get("CXX", "g++")
# -fno-gnu-unique and -Bsymbolic keep every library's runtime state its own when several (op, product)
# libraries are loaded into one Python process.
BASE_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-Wall", "-Wextra", "-pthread", "-fno-gnu-unique")
LINK_FLAGS = ("-Wl,-Bsymbolic",)
#: Extra warnings (errors, like all warnings) for the generated sources, not the runtime: host code (L2 API,
#: tiling, OpDef, example) builds clean with implicit narrowing and sign changes reported; kernels with
#: narrowing reported (an offset or length held in a 32-bit type is a compile-time failure). Kernels are
#: not held to -Wsign-conversion: the AscendC signatures they call take uint32_t/uint64_t counts and
#: indices that the kernels compute in int64_t (see README, "64-bit offsets").
HOST_WARNING_FLAGS = ("-Wconversion", "-Wsign-conversion")
KERNEL_WARNING_FLAGS = ("-Wconversion",)
#: The kernel units' optimisation level (after BASE_FLAGS' -O2, so it wins). A kernel is a large template
#: instantiation (one per tiling key: dtype x strategy) over the emulated AscendC headers: -O1 compiles it
#: about 40% faster than -O2 (EmbeddingDenseBackward's 108 keys: 11 s against 19 s) and the emulated runs
#: are as fast within a few percent, since their time goes to the runtime's instruction checks, which stay
#: -O2. Floating-point results do not depend on it (ISO C++17 without -ffast-math: no contraction).
KERNEL_OPT_FLAGS = ("-O1",)
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1")


def _format_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
) -> str:
    """Warnings of the tool's own kinds as one ``warning: ...`` line (others keep Python's format)."""
    if issubclass(category, CacheWarning):
        return f"warning: {message}\n"
    return _PYTHON_FORMAT_WARNING(message, category, filename, lineno, line)


_PYTHON_FORMAT_WARNING = warnings.formatwarning


def use_tool_warning_format() -> None:
    """Makes this process print the tool's warnings (:class:`CacheWarning`) as ``warning: ...`` lines, as the
    README shows them: the command, and the check's pool and case worker processes (whose stderr the user
    sees too)."""
    warnings.formatwarning = _format_warning


class BuildError(Exception):
    """A compile or link step failed; ``log`` holds the compiler's output and the command."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message if not log else f"{message}\n{log}")
        self.log = log


class CacheWarning(UserWarning):
    """A build cache entry was corrupt (its bytes no longer match the hash recorded when it was built); the
    message names the file, which is rebuilt."""


def _configured_cache_dir() -> tuple[Path, str]:
    env = os.environ.get("OPGEN_CACHE_DIR")
    if env:
        return Path(env), "OPGEN_CACHE_DIR"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "ascend-opgen", "the default build cache"


def cache_dir() -> Path:
    """The build cache, created when missing and checked to be a writable directory: ``$OPGEN_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/ascend-opgen``, else ``~/.cache/ascend-opgen``.

    Raises:
        BuildError: the path is not a directory, cannot be created or cannot be written (one line naming
            the path and the reason; nothing is built).
    """
    path, what = _configured_cache_dir()
    try:
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(f"{path} is not a directory")
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".opgen-probe-", dir=str(path))
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BuildError(
            f"build cache {path} ({what}) is not usable: {reason}; set OPGEN_CACHE_DIR to a writable directory"
        ) from None
    return path


#: Suffix of the file beside every cache entry that holds the SHA-256 of its bytes, written when it was built.
HASH_SUFFIX = ".sha256"


def _read_record(record: Path) -> str:
    """The hash recorded in ``record`` (a ``.sha256`` file beside a cache entry), stripped. At most 128 bytes
    are read: a record opgen wrote is 65 bytes, and a damaged one (a huge or garbled file) must not be read
    whole into memory; a longer one gives a text that matches no hash.

    Raises:
        OSError: it cannot be read (missing, a directory, no permission).
        UnicodeDecodeError: it is not ASCII.
    """
    with record.open("rb") as handle:
        return handle.read(128).decode("ascii").strip()


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@contextlib.contextmanager
def _entry_lock(entry: Path, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock on one cache entry (a lock file beside it) shared by every process using the cache;
    yields True once held. With ``wait=False`` it yields False at once, holding nothing, when another
    process or thread holds it."""
    lock = entry.with_name(entry.name + ".lock")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "a+b")  # noqa: SIM115 - closed by the with below
    except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
        # something other than what opgen writes sits where a cache directory or lock file belongs
        raise BuildError(
            f"build cache entry {entry} cannot be used: {exc.filename or lock} is "
            f"{'a directory' if isinstance(exc, IsADirectoryError) else 'not a directory'}; remove it"
        ) from None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _cached(entry: Path) -> bool:
    """True when the cache entry ``entry`` exists and its bytes match the hash recorded when it was built.

    An entry whose bytes differ from its recorded hash (truncated, overwritten) or that cannot be read is
    deleted with a :class:`CacheWarning` naming the file, and False is returned so that the caller rebuilds
    it. An entry without a recorded hash (written by an older version, or a build interrupted between the
    rename and the hash) is deleted and rebuilt silently, as a cache miss.
    """
    if not entry.exists():
        return False
    with _entry_lock(entry):
        return _cached_locked(entry)


def _cached_locked(entry: Path) -> bool:
    """:func:`_cached` for a caller that holds the entry's lock (:func:`_entry_lock`)."""
    if not entry.exists():
        return False
    record = entry.with_name(entry.name + HASH_SUFFIX)
    for own in (entry, record):
        if own.is_dir() and not own.is_symlink():
            # opgen writes files here; a directory is not its own to delete, nor is the entry beside it then
            # known to be stale: nothing is deleted, and no rebuild is promised
            raise BuildError(f"build cache entry {own} is a directory, not a file opgen wrote; remove it")
    problem = ""
    try:
        recorded = _read_record(record)
        if entry.is_file() and _sha256_file(entry) == recorded:
            return True
        problem = "its bytes do not match the hash recorded when it was built"
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"it cannot be read ({exc})"
    if problem:
        warnings.warn(f"build cache entry {entry} is corrupt ({problem}); rebuilding it", CacheWarning, stacklevel=3)
    for stale in (entry, record):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    return False


def _commit(built: Path, entry: Path) -> None:
    """Moves the freshly built file ``built`` into the cache as ``entry`` atomically (a rename in the same
    file system) and records its hash; an entry another process committed meanwhile is kept."""
    with _entry_lock(entry):
        _commit_locked(built, entry)


def _commit_locked(built: Path, entry: Path) -> None:
    """:func:`_commit` for a caller that holds the entry's lock (:func:`_entry_lock`)."""
    digest = _sha256_file(built)
    record = entry.with_name(entry.name + HASH_SUFFIX)
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if entry.is_file() and _sha256_file(entry) == _read_record(record):
            built.unlink()
            return
    for target in (entry, record):
        if target.is_dir() and not target.is_symlink():
            raise BuildError(f"build cache entry {target} is a directory, not a file opgen wrote; remove it")
    os.replace(built, entry)
    _write_text_atomically(record, digest + "\n")


@contextlib.contextmanager
def _building(entry: Path) -> Iterator[bool]:
    """Holds the lock of the cache entry ``entry`` while the caller finds it cached (yields True) or builds
    and commits it with :func:`_commit_locked` (yields False): a process or thread that wants the same entry
    meanwhile waits for the lock and then finds it built, instead of building it a second time."""
    if _cached(entry):  # the common case, without holding the lock
        yield True
        return
    with _entry_lock(entry):
        yield _cached_locked(entry)


def _build_each(entries: Sequence[Path], make: Callable[[int], None], jobs: int) -> None:
    """Makes the missing ones of ``entries`` (cache entries; ``make(i)`` builds ``entries[i]`` and commits it
    with :func:`_commit_locked`, called with its lock held), ``jobs`` at a time, each entry once however many
    builds want it at the same time (the two pytest-xdist workers, ``opgen check -j 2``, threads): an entry
    whose lock another build holds is left for last, and then waited for and reused. Builds that want the
    same set of entries at once so share its compiles instead of repeating them or waiting in turn. Only one
    entry's lock is held at a time.

    Raises:
        BuildError: from ``make``, or a cache entry that cannot be used.
    """

    def attempt(i: int, wait: bool) -> bool:
        """True when entries[i] is there (found or made); False when another build holds it (no wait)."""
        if _cached(entries[i]):
            return True
        with _entry_lock(entries[i], wait=wait) as held:
            if not held:
                return False
            if not _cached_locked(entries[i]):
                make(i)
            return True

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = list(pool.map(lambda i: attempt(i, False), range(len(entries))))
        list(pool.map(lambda i: attempt(i, True), [i for i, ok in enumerate(done) if not ok]))


@lru_cache(maxsize=1)
def compiler_version() -> str:
    """First line of ``g++ --version`` (part of every cache key).

    Raises:
        BuildError: the compiler is missing.
    """
    try:
        out = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"C++ compiler '{CXX}' not usable: {exc}") from exc
    return out.splitlines()[0] if out else CXX


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


def _prctl() -> Any:
    """libc's ``prctl``, resolved once in the parent (None off Linux or without it): the child of a fork
    must not load libraries before its exec."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def _die_with_parent() -> None:
    """In a compiler child before its exec: be killed when the thread that started it dies
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so a killed ``opgen`` (even ``kill -9``) takes the compiler driver
    with it; the driver's own child (``cc1plus``, ``as``) is not signalled and ends with its file, in seconds,
    writing only inside the build's temporary directory."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1


def _run(cmd: list[str], what: str) -> None:
    """Runs one compiler command (the calling thread waits for it, so the death signal above stays armed).

    Raises:
        BuildError: the command failed or wrote anything to stderr (warnings are errors for generated code).
    """
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, preexec_fn=_die_with_parent)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed", f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    if proc.stderr.strip():
        # Warnings are errors for generated code: the acceptance bar is warning-free -Wall -Wextra.
        raise BuildError(f"{what} produced warnings", f"$ {' '.join(cmd)}\n{proc.stderr}")


#: The kernel macro naming the product (``-DOPGEN_PRODUCT_NAME="<name>"``, see :func:`product_macros`). The
#: runtime uses it only inside ``static_assert`` declarations (their messages, and glue.h's name check),
#: which emit no code and fire or not independently of the name: a kernel unit that compiles gives the same
#: object for every product name (a test guards both facts). So the kernel's cache key leaves it out unless
#: the op's own generated sources mention it, and products with equal NpuArch and capabilities (Ascend910B
#: and Ascend910_93) share one kernel object, as :mod:`codegen.check.matrix` lets them share one run. The
#: compiler still gets the macro, so a failing build names the product it was built for.
PRODUCT_NAME_MACRO = "-DOPGEN_PRODUCT_NAME="


def product_macros(product: Product) -> list[str]:
    """Preprocessor definitions a kernel is compiled with on ``product`` (as the CANN toolchain sets
    ``__NPU_ARCH__``), plus the emulator's capability switches."""
    return [
        f"-D__NPU_ARCH__={product.npu_arch}",
        f'-DOPGEN_PRODUCT_NAME="{product.name}"',
        f"-DOPGEN_HAS_DATACOPYPAD={1 if product.data_copy_pad else 0}",
    ]


def glue_source(spec: OpSpec, product: Product) -> str:
    """The glue translation unit: registers the kernel for its OpType and defines the product's facts."""
    dev = spec.device_interface  # the kernel takes the device op's inputs and outputs, workspace and tiling
    n_args = len(dev.inputs) + len(dev.outputs) + family(spec.family).scratch_outputs(spec) + 2
    params = ", ".join(["GM_ADDR"] * n_args)
    args = ", ".join(f"a[{i}]" for i in range(n_args))
    atomic = ", ".join(f"opgen_rt::DtypeId::{d.name}" for d in product.atomic_add_dtypes)
    return (
        "// Written by ascend-opgen's builder (the CANN build system's role): kernel registration and product.\n"
        '#include "opgen_rt/glue.h"\n'
        f'extern "C" void {spec.kernel}({params});\n'
        f"static void opgen_entry_{spec.kernel}(uint8_t **a) {{ {spec.kernel}({args}); }}\n"
        f"OPGEN_RT_REGISTER_KERNEL({spec.op_type}, {spec.kernel}, opgen_entry_{spec.kernel});\n"
        f'OPGEN_RT_DEFINE_PRODUCT("{product.name}", "{product.config_name}", {product.soc_version}, '
        f"{product.npu_arch}, {product.ub_bytes}, 0, {product.vector_core_num}, "
        f"{'true' if product.bf16 else 'false'}, {'true' if product.data_copy_pad else 'false'}, "
        f"{{{atomic}}}, {product.queue_buffer_cap}, {'true' if product.hw_sync_all else 'false'}, "
        f"{product.sys_workspace_bytes}{cost_model_initializer(product)});\n"
    )


def cost_model_initializer(product: Product) -> str:
    """The trailing ``opgen_rt::CostModel`` argument of ``OPGEN_RT_DEFINE_PRODUCT`` for ``product`` (with its
    leading comma), or ``""`` when the catalogue gives the product no cost model (the emulator then keeps no
    timeline). Bandwidth goes in as bytes per second; every other figure as the catalogue gives it."""
    m = product.cost_model
    if m is None:
        return ""
    per = ", ".join(f"{v.cycles_per_repeat!r}" for v in m.vector)
    lat = ", ".join(f"{v.latency_cycles!r}" for v in m.vector)
    return (
        f", opgen_rt::CostModel{{true, {m.clock_mhz.value!r}, {m.gm_bandwidth_gbps.value * 1e9!r}, "
        f"{m.core_gm_bytes_per_cycle.value!r}, {m.dma_fixed_cycles.value!r}, {{{per}}}, {{{lat}}}, "
        f"{m.scalar_access_cycles.value!r}, {m.scalar_wait_cycles.value!r}}}"
    )


@dataclass(frozen=True)
class BuiltOp:
    """A compiled (op, product): ``library`` is the shared object; ``key`` its cache key; ``compiled`` whether
    this call linked it (False: the build cache already held it)."""

    spec: OpSpec
    product: Product
    library: Path
    key: str
    sanitize: bool
    compiled: bool = False


def _kernel_tiling_type(spec: OpSpec) -> str:
    return f"optiling::{spec.op_type}TilingData"


#: A build's work directory in the cache: ``opgen-build-<pid>-<host tag>-<8 characters of mkdtemp>``.
_WORKDIR = re.compile(r"opgen-build-(\d+)-([0-9a-f]{8})-[a-z0-9_]{8}")


def _host_tag() -> str:
    """8 hex digits of the host name: process ids are only meaningful on the host (and in the process
    namespace; containers get their own host names) that made them."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _process_exists(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (``kill(pid, 0)``; a process of another user exists)."""
    if pid <= 0:
        return True  # not a process id a build records: never treated as gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def build_workdir(cache: Path) -> Path:
    """A new work directory for one build in ``cache`` (the build cache), named
    ``opgen-build-<pid>-<host tag>-<random>``; before making it, removes the work directories that builds
    killed before their cleanup left behind: exactly those with that name pattern, made on this host
    (:func:`_host_tag`), whose process no longer exists. Anything else (another name, a live or foreign
    process's directory, a file or symlink) is never touched.

    Raises:
        OSError: the directory cannot be created.
    """
    tag = _host_tag()
    for entry in cache.glob("opgen-build-*"):
        m = _WORKDIR.fullmatch(entry.name)
        if m is None or m.group(2) != tag or entry.is_symlink() or not entry.is_dir():
            continue
        if not _process_exists(int(m.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"opgen-build-{os.getpid()}-{tag}-", dir=str(cache)))


def build_op(
    spec: OpSpec,
    product: Product,
    generated_dir: Path | None = None,
    paths: ProjectPaths | None = None,
    sanitize: bool = False,
    jobs: int = 2,
    tiling_keys: Collection[int] | None = None,
) -> BuiltOp:
    """Compiles ``spec`` for ``product`` into a shared library (or returns the cached one).

    Args:
        spec: the op.
        product: the target product.
        generated_dir: the generated tree (``generated/`` by default); the op's folder is ``<dir>/<snake>``.
        paths: project paths (found automatically by default).
        sanitize: build with AddressSanitizer and UBSan (a separate cache entry).
        jobs: parallel compiler processes.
        tiling_keys: compile only these tiling keys' branches of the kernel (``-DOPGEN_TILING_KEYS``, see
            runtime/include/kernel_operator.h), as the CANN toolchain compiles a kernel per key; a launch of
            any other key is refused with a ``[tiling key not built]`` kernel fault. ``None`` (the default):
            every key. A kernel of many keys compiles several times faster for a few of them; a separate
            cache entry.

    Raises:
        BuildError: a source is missing, ``tiling_keys`` is empty or holds a value outside uint64, or
            compiling or linking failed (compiler output attached).
    """
    key_filter: list[str] = []
    if tiling_keys is not None:
        keys = sorted(set(tiling_keys))
        if not keys or any(not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < 2**64 for k in keys):
            raise BuildError(f"tiling_keys must be a non-empty set of uint64 integers, got {tiling_keys!r}")
        key_filter = [f"-DOPGEN_TILING_KEYS={','.join(f'{k}ULL' for k in keys)}"]
    paths = paths or project_paths()
    root = (generated_dir or paths.generated) / spec.snake
    files = op_files(spec)
    sources = {k: root / rel for k, rel in files.items()}
    for kind in ("op_api_cpp", "l0_cpp", "infershape_cpp", "tiling_cpp", "def_cpp", "kernel_cpp"):
        if not sources[kind].is_file():
            raise BuildError(f"{sources[kind]} not found: run `opgen generate` (or pass the right --generated)")
    flags = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else ())]
    include = [f"-I{paths.runtime / 'include'}", f"-I{root / 'op_api'}", f"-I{root / 'op_host'}"]
    glue = glue_source(spec, product)
    runtime_digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    op_digest = _tree_digest([root])
    h = hashlib.sha256()
    for part in (
        compiler_version(),
        " ".join(flags),
        " ".join((*HOST_WARNING_FLAGS, *KERNEL_OPT_FLAGS, *KERNEL_WARNING_FLAGS)),
        runtime_digest,
        op_digest,
        glue,
        " ".join(product_macros(product)),
        " ".join(key_filter),
    ):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()[:24]
    cache = cache_dir()
    out_dir = cache / "lib" / key
    library = out_dir / f"lib{spec.snake}_{product.name}.so"
    if _cached(library):
        return BuiltOp(spec, product, library, key, sanitize)
    with _entry_lock(library):  # makes its directory (a BuildError when a file sits in the way)
        pass

    work = build_workdir(cache)
    try:
        glue_path = work / "opgen_glue.cpp"
        glue_path.write_text(glue)
        units: list[tuple[Path, list[str]]] = [
            (sources["op_api_cpp"], [*HOST_WARNING_FLAGS]),
            (sources["l0_cpp"], [*HOST_WARNING_FLAGS]),
            (sources["infershape_cpp"], [*HOST_WARNING_FLAGS]),
            (sources["tiling_cpp"], [*HOST_WARNING_FLAGS]),
            (sources["def_cpp"], [*HOST_WARNING_FLAGS]),
            (
                sources["kernel_cpp"],
                [
                    *KERNEL_OPT_FLAGS,
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
        runtime_objs = _runtime_objects(paths, flags, runtime_digest, jobs)
        # What every unit of the op can include besides its own text: the op's headers and the runtime's.
        headers = _tree_digest([root], (".h", ".hpp", ".inc")) + _tree_digest([paths.runtime / "include"])
        # __FILE__ in the op's sources (the OP_LOG macros) names `<op>/op_api/...`, wherever the tree is, so
        # an object does not depend on the tree's location and copies of a tree share their unchanged units.
        prefix_map = f"-fmacro-prefix-map={root}={spec.snake}"
        # The product's name is part of a unit's key only when the op's own sources mention the macro.
        op_reads_name = any(
            PRODUCT_NAME_MACRO[2:-1] in p.read_text(errors="replace")
            for p in root.rglob("*")
            if p.is_file() and p.suffix in (".h", ".hpp", ".cpp", ".inc")
        )
        commands = [[CXX, *flags, *include, prefix_map, *extra, "-c", str(src)] for src, extra in units]
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
                .replace(str(root), spec.snake)
                .replace(str(work), "build")
            )
            unit_key = hashlib.sha256(described.encode() + b"\0" + src.read_bytes()).hexdigest()[:24]
            return cache / "obj" / unit_key / f"{name}.o"

        objs = [unit_entry(src, command) for (src, _), command in zip(units, commands)]

        def compile_unit(i: int) -> None:
            tmp = work / objs[i].name
            # the precompiled system headers first (not part of the unit's key: the code is the same)
            pch = _precompiled_std(commands[i][1:], units[i][0], include_dirs)
            command = [commands[i][0], *pch, *commands[i][1:]]
            _run([*command, "-o", str(tmp)], f"compiling {units[i][0].name} for {product.name}")
            _commit_locked(tmp, objs[i])

        _build_each(objs, compile_unit, jobs)

        def link(_: int) -> None:
            tmp_lib = work / library.name
            _run(
                [CXX, *flags, "-shared", *LINK_FLAGS, "-o", str(tmp_lib), *map(str, objs), *map(str, runtime_objs)],
                f"linking {library.name}",
            )
            _commit_locked(tmp_lib, library)

        _build_each([library], link, 1)  # another build linking the same library meanwhile: reused
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return BuiltOp(spec, product, library, key, sanitize, compiled=True)


#: The header a unit is compiled with first (``-include``) when it reaches system headers, precompiled per
#: compiler, options and header set (:func:`_precompiled_std`).
PCH_HEADER = "opgen_std.h"
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)[ \t]*(\S*)", re.M)
_DEPTH_STEP = {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}
#: Macros the C and C++ libraries read to configure themselves (``_GLIBCXX_ASSERTIONS``, ``_GNU_SOURCE``,
#: ``_FILE_OFFSET_BITS``, ``__STDC_FORMAT_MACROS``, ``NDEBUG``, ...): an underscore and a capital letter,
#: ``__STDC_``/``__USE_``, or ``NDEBUG``. (The emulation's ``__aicore__``/``__gm__`` are not of them.)
_LIBRARY_CONFIG = re.compile(r"_[A-Z]|__STDC_|__USE_|NDEBUG\b")
#: Environment variables that change which system headers the compiler finds (part of a PCH's key).
_PCH_ENVIRONMENT = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX")


def system_headers(sources: Sequence[Path], include_dirs: Sequence[Path]) -> tuple[str, ...] | None:
    """The system headers (``#include <name>`` not found in ``include_dirs``) that ``sources`` reach through
    their includes, followed across every header found in ``include_dirs`` or beside its includer, sorted;
    None when precompiling them could change what the unit means: a system header included inside an
    ``#if`` block (other than a header's include guard: it may not be compiled at all), or a ``#define`` or
    ``#undef`` of a macro the libraries read (:data:`_LIBRARY_CONFIG`, e.g. ``_GLIBCXX_ASSERTIONS``) in any
    file the unit reaches, which would come after the precompiled headers instead of before them. A header
    that is not found anywhere is left out (the compiler reports it)."""
    found: set[str] = set()
    seen: set[Path] = set()
    todo = [Path(p) for p in sources]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        depth, guard = 0, None
        directives = list(_DIRECTIVE.finditer(text))
        for k, m in enumerate(directives):
            word, arg = m.group(1), m.group(2)
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
                nxt = directives[k + 1] if k + 1 < len(directives) else None
                if (
                    word == "ifndef"
                    and depth == 1
                    and guard is None
                    and nxt is not None
                    and nxt.group(1) == "define"
                    and nxt.group(2) == arg
                ):
                    guard = arg  # the include guard: its block is the whole header
            elif word == "endif":
                depth -= 1
            elif word in ("define", "undef") and arg != guard and _LIBRARY_CONFIG.match(arg):
                return None
        for inc in _INCLUDE.finditer(text):
            quote, name = inc.group(1), inc.group(2)
            where = ([path.parent] if quote == '"' else []) + list(include_dirs)
            found_at = next((d / name for d in where if (d / name).is_file()), None)
            if found_at is not None:
                todo.append(found_at)
                continue
            if quote != "<":
                continue
            # the #if depth at the include, less the include guard's block
            level = sum(_DEPTH_STEP.get(m.group(1), 0) for m in directives if m.start() < inc.start())
            if level > (1 if guard is not None else 0):
                return None
            found.add(name)
    return tuple(sorted(found))


#: Options left out of a precompiled header's command, with the value that follows them ...
_PCH_DROPPED_WITH_VALUE = ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-I", "-D", "-U")
#: ... and those spelled in one argument.
_PCH_DROPPED = ("-I", "-D", "-U", "-W", "-fmacro-prefix-map=", "-isystem", "-iquote", "-idirafter")


def _pch_flags(command_flags: Sequence[str]) -> list[str]:
    """The options of a unit's command (its arguments after the compiler) that a precompiled header must be
    built with: all but the source file, ``-c``, include paths, macro definitions and removals, forced
    includes, warnings and path maps (none of them changes how system headers compile: the op's macros and
    headers are not in them, and GCC refuses a precompiled header whose content a macro of the unit would change)."""
    out: list[str] = []
    skip = False
    for arg in command_flags:
        if skip:
            skip = False
            continue
        if arg in _PCH_DROPPED_WITH_VALUE:
            skip = True  # the option and its value, the next argument
            continue
        if arg == "-c" or not arg.startswith("-") or arg.startswith(_PCH_DROPPED):
            continue  # the source file, compile-only, and the options above
        out.append(arg)
    return out


def is_gcc(version: str) -> bool:
    """Whether ``version`` (the first line of ``<compiler> --version``) names GCC's C++ compiler."""
    return "clang" not in version.lower() and bool(re.search(r"g\+\+|\bGCC\b|\bgcc\b", version))


def _precompiled_std(command: Sequence[str], source: Path, include_dirs: Sequence[Path]) -> list[str]:
    """``["-include", <cache>/pch/<key>/opgen_std.h]``, with ``opgen_std.h.gch`` beside it, for the unit that
    ``command`` (its arguments after the compiler) compiles from ``source``: the system headers the unit
    reaches (:func:`system_headers`, its forced includes too), precompiled with the options of ``command``
    that matter (:func:`_pch_flags`), once per compiler, options and header set, like any cache entry.

    System headers are most of a unit's compile time (about 1.5 s of CPU of a 3.5 s kernel unit and half of
    a 1-2 s host unit with GCC 12). The unit sees exactly the declarations it saw before, since the header
    holds only what it includes anyway (each system header is self-contained, so the order does not
    matter; :func:`system_headers` declines a unit where it could), so its code is the same (the object's
    bytes may differ in section order), and GCC uses a ``.gch`` only where it is valid for the compile (same
    compiler and language, compatible options, no macro of the unit that the headers mention), otherwise
    reading the header text.
    The precompiled header records the size and time of every file it read (``-MD``); one that changed (a
    library update under the same ``--version``) makes the next use build it again, as do other ``CPATH``
    or ``CPLUS_INCLUDE_PATH`` values (part of its key). Empty (no precompiled header) for a compiler other
    than GCC, with ``OPGEN_NO_PCH`` set, for a unit that reaches no system header or that
    :func:`system_headers` declines, or when building the header fails (the unit then compiles as before).
    """
    if os.environ.get("OPGEN_NO_PCH") or not is_gcc(compiler_version()):
        return []
    forced = [Path(command[i + 1]) for i, arg in enumerate(command[:-1]) if arg == "-include"]
    names = system_headers([source, *forced], include_dirs)
    if not names:
        return []
    text = "// Written by opgen: the system headers of one kind of unit, precompiled (codegen/build.py).\n"
    text += "".join(f"#include <{name}>\n" for name in names)
    flags = _pch_flags(command)
    where = [
        f"{v}={os.environ.get(v, '')}" for v in ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX")
    ]
    key = hashlib.sha256("\0".join([compiler_version(), *flags, *where, text]).encode()).hexdigest()[:24]
    gch = cache_dir() / "pch" / key / f"{PCH_HEADER}.gch"
    header = gch.with_name(PCH_HEADER)
    deps = gch.with_name(f"{PCH_HEADER}.files")

    def make(_: int) -> None:
        tmp = gch.with_name(f".{gch.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        depfile = tmp.with_suffix(".d")
        try:
            _run(
                [CXX, *flags, "-x", "c++-header", str(header), "-MD", "-MF", str(depfile), "-o", str(tmp)],
                "precompiling system headers",
            )
            _write_text_atomically(deps, _file_stamps(_depfile_paths(depfile)))
            _commit_locked(tmp, gch)
        finally:
            for leftover in (tmp, depfile):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()

    try:
        with _entry_lock(gch):  # makes the directory
            if not header.is_file() or header.read_text(errors="replace") != text:
                _write_text_atomically(header, text)
            # a system header that changed since (a library update with the same `--version`): build again
            if gch.is_file() and _stamps_changed(deps):
                gch.unlink()
        _build_each([gch], make, 1)
    except (BuildError, OSError):
        return []
    return ["-include", str(header)]


def _write_text_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` through a temporary file in the same directory and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def _depfile_paths(depfile: Path) -> list[str]:
    """The prerequisites of a ``-MD`` dependency file (its target and line continuations dropped)."""
    body = depfile.read_text(errors="replace").replace("\\\n", " ")
    return [p for p in body.split(":", 1)[-1].split() if p]


def _file_stamps(paths: Sequence[str]) -> str:
    """One line per file: its size, modification time (ns) and path."""
    lines = []
    for p in paths:
        st = os.stat(p)
        lines.append(f"{st.st_size} {st.st_mtime_ns} {p}")
    return "\n".join(lines) + "\n"


def _stamps_changed(record: Path) -> bool:
    """Whether a file that :func:`_file_stamps` recorded in ``record`` changed, is gone, or the record is
    missing or unreadable."""
    try:
        lines = record.read_text(errors="replace").splitlines()
        for line in lines:
            size, mtime, path = line.split(" ", 2)
            st = os.stat(path)
            if (st.st_size, st.st_mtime_ns) != (int(size), int(mtime)):
                return True
    except (OSError, ValueError):
        return True
    return not lines


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
            _run(
                [CXX, *flags, f"-I{paths.runtime / 'include'}", "-c", str(srcs[i]), "-o", str(tmp)],
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
    root = (generated_dir or paths.generated) / built.spec.snake
    src = root / op_files(built.spec)["example_cpp"]
    h = hashlib.sha256((built.key + src.read_text()).encode()).hexdigest()[:24]
    exe = cache_dir() / "examples" / h / f"example_{built.spec.snake}_{built.product.name}"
    tmp = exe.with_name(f".{exe.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    flags = [*BASE_FLAGS, *HOST_WARNING_FLAGS, *(SANITIZE_FLAGS if built.sanitize else ())]
    with _building(exe) as hit:
        if not hit:
            _run(
                [
                    CXX,
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
    return exe


__all__ = [
    "BuildError",
    "BuiltOp",
    "CacheWarning",
    "DType",
    "build_example",
    "build_op",
    "cache_dir",
    "glue_source",
    "use_tool_warning_format",
]


#: The recorded macros of the headers generated code includes (:func:`header_macros_of_generated_code`),
#: which the spec loader refuses as names (:data:`codegen.spec.naming.HEADER_MACROS`).
HEADER_MACROS_FILE = Path(__file__).resolve().parent / "spec" / "header_macros.txt"
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
        CXX,
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
        raise BuildError(f"C++ compiler '{CXX}' not usable: {exc}") from exc
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
        "# them as names. Source: codegen.build.header_macros_of_generated_code(), the preprocessor's -E -dD over",
        "# every fixed #include of templates/ with runtime/include on the include path,",
        f"# {compiler_version()}.",
        '# Re-record: python -c "from codegen.build import record_header_macros; record_header_macros()"',
    ]
    HEADER_MACROS_FILE.write_text("\n".join([*head, *(f"{k}\t{v}" for k, v in macros.items())]) + "\n")
    return HEADER_MACROS_FILE
