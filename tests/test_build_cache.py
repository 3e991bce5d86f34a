"""The build cache is verified, never trusted: a corrupt entry (a truncated shared library) is rebuilt with a
warning naming it instead of reaching ``dlopen``, and an unusable cache directory is one error line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen.build import BuildError, CacheWarning, build_op, cache_dir
from codegen.specs import load_project

OP, PRODUCT = "sigmoid_backward", "Ascend910B"


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of its own, seeded with the session's compiled runtime objects (they are verified too)."""
    shared = cache_dir()
    catalogue, specs = load_project()
    build_op(specs[OP], catalogue.get(PRODUCT))  # makes sure the session cache holds the runtime objects
    cache = tmp_path / "cache"
    shutil.copytree(shared / "runtime", cache / "runtime")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(scope="module")
def _built_cache_seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache made once per module the way :func:`private_cache` is, then holding ``OP`` built for
    ``PRODUCT`` (the build cache is content-addressed: entries name no absolute path, so copies stay valid)."""
    shared = cache_dir()
    catalogue, specs = load_project()
    build_op(specs[OP], catalogue.get(PRODUCT))
    seed = tmp_path_factory.mktemp("built_cache") / "cache"
    shutil.copytree(shared / "runtime", seed / "runtime")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPGEN_CACHE_DIR", str(seed))
        build_op(specs[OP], catalogue.get(PRODUCT))
    return seed


@pytest.fixture
def built_cache(_built_cache_seed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of its own that already holds ``OP`` built for ``PRODUCT`` (a copy of the module's seed, so
    the tests that damage an entry do not each compile the op first)."""
    cache = tmp_path / "cache"
    shutil.copytree(_built_cache_seed, cache)
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(cache))
    return cache


CALL = f"""
import numpy as np, codegen
f = codegen.compile_op({OP!r}, {PRODUCT!r})
y = np.array([0.25, 0.5, 0.75], np.float32)
print(f(gradOutput=np.ones(3, np.float32), output=y).tolist())
"""


def test_a_truncated_cached_library_is_rebuilt_with_a_warning_naming_it(built_cache: Path) -> None:
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    assert built.library.is_relative_to(built_cache)
    size = built.library.stat().st_size
    with built.library.open("r+b") as handle:
        handle.truncate(size // 3)
    proc = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr  # before: SIGBUS (-7) inside dlopen
    assert f"build cache entry {built.library} is corrupt" in proc.stderr
    assert proc.stdout.strip() == str([0.25 * 0.75, 0.5 * 0.5, 0.75 * 0.25])
    assert built.library.stat().st_size == size


def test_opgen_build_rebuilds_a_corrupt_entry(built_cache: Path) -> None:
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    good = built.library.read_bytes()
    built.library.write_bytes(good[:-100] + b"\0" * 100)  # same size, other bytes
    with pytest.warns(CacheWarning, match=f"build cache entry {built.library} is corrupt"):
        again = build_op(specs[OP], catalogue.get(PRODUCT))
    assert again.library == built.library and again.library.read_bytes() == good
    assert (built.compiled, again.compiled) == (False, True)  # a cache hit, then a rebuild
    assert build_op(specs[OP], catalogue.get(PRODUCT)).compiled is False


@pytest.mark.parametrize("record_bytes", [b"zz\n", "ü".encode()], ids=["not-hex", "not-ascii"])
def test_a_garbled_hash_record_is_named_as_such_not_as_a_byte_mismatch(built_cache: Path, record_bytes: bytes) -> None:
    """A ``.sha256`` record that holds no SHA-256 digest says so; the library's own bytes were never at fault."""
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    record = built.library.with_name(built.library.name + ".sha256")
    good = record.read_text()
    record.write_bytes(record_bytes)
    want = f"build cache entry {built.library} is corrupt (its hash record {record.name} is not a SHA-256 hex digest)"
    with pytest.warns(CacheWarning, match=re.escape(want)):
        build_op(specs[OP], catalogue.get(PRODUCT))
    assert record.read_text() == good


def test_check_prints_a_line_per_library_it_compiles(built_cache: Path, tmp_path: Path) -> None:
    """A cold cache compiles for minutes before a job finishes: each library compiled is one stderr line (never
    on stdout, where ``--json /dev/stdout`` writes), a cached one none."""
    catalogue, specs = load_project()
    library = build_op(specs[OP], catalogue.get(PRODUCT)).library
    library.unlink()
    report = tmp_path / "check.json"
    args = ["check", OP, "--quick", "--product", PRODUCT, "--dtype", "FLOAT", "-j", "1", "--json", str(report)]
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "codegen", *args], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(report.read_text())["failed"] == 0 and "built " not in proc.stdout
        runs.append(proc)
    built = [line for line in runs[0].stderr.splitlines() if line.startswith("built ")]
    assert len(built) == 1 and built[0].startswith(f"built {OP} for {PRODUCT} ({library.name}, "), runs[0].stderr
    assert "built " not in runs[1].stderr


def test_a_cache_path_naming_a_file_is_one_error_line(tmp_path: Path) -> None:
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    env = {**os.environ, "OPGEN_CACHE_DIR": str(target)}
    for args in (["build", OP, "--product", PRODUCT], ["check", OP, "--product", PRODUCT, "--quick"]):
        proc = subprocess.run(
            [sys.executable, "-m", "codegen", *args], env=env, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2
        assert proc.stderr == (
            f"error: build cache {target} (OPGEN_CACHE_DIR) is not usable: {target} is not a directory; "
            "set OPGEN_CACHE_DIR to a writable directory\n"
        )
    assert target.read_text() == "x"


def test_a_read_only_cache_directory_is_a_build_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests may run as root, for whom a chmod 0o555 directory stays writable: the OS error is simulated.
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path))

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(BuildError) as info:
        cache_dir()
    assert str(info.value) == (
        f"build cache {tmp_path} (OPGEN_CACHE_DIR) is not usable: Permission denied; "
        "set OPGEN_CACHE_DIR to a writable directory"
    )
    np.testing.assert_equal(list(tmp_path.iterdir()), [])


def test_a_relative_cache_directory_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPGEN_CACHE_DIR", "relcache")
    assert cache_dir() == tmp_path / "relcache"
    assert (tmp_path / "relcache").is_dir()
    # a relative XDG_CACHE_HOME is ignored (XDG Base Directory specification): the home default is used
    monkeypatch.delenv("OPGEN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "xdg")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "ascend-opgen"
    assert not (tmp_path / "xdg").exists()


def _compiled_units(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records the source file name of every compile command ``build_op`` runs from now on."""
    import codegen.build.toolchain as toolchain

    seen: list[str] = []
    run = toolchain._run

    def recording(cmd: list[str], what: str) -> None:
        if "-c" in cmd:
            seen.append(Path(cmd[cmd.index("-c") + 1]).name)
        run(cmd, what)

    monkeypatch.setattr(toolchain, "_run", recording)
    return seen


def test_products_share_the_objects_they_compile_the_same_way(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host units have no product macros: the second product compiles only its kernel (other
    __NPU_ARCH__ and name) and glue, and links the host objects the first one cached."""
    catalogue, specs = load_project()
    spec = specs[OP]
    seen = _compiled_units(monkeypatch)
    build_op(spec, catalogue.get("Ascend910B"))
    kernel = f"{spec.kernel}.cpp"
    host = [f"aclnn_{spec.snake}.cpp", kernel, f"{spec.kernel}_infershape.cpp", f"{spec.kernel}_tiling.cpp"]
    assert sorted(seen) == sorted([*host, f"{spec.kernel}_def.cpp", kernel, "opgen_glue.cpp"])
    seen.clear()
    second = build_op(spec, catalogue.get("Ascend950"))
    assert sorted(seen) == sorted([kernel, "opgen_glue.cpp"])
    assert len(list((private_cache / "obj").rglob("*.o"))) == 9
    y = np.array([0.25, 0.5], np.float32)
    from codegen.runner import OpCallable

    got = OpCallable(second)(gradOutput=np.ones(2, np.float32), output=y)
    assert got.tolist() == [0.25 * 0.75, 0.5 * 0.5]


def test_an_edited_copy_of_a_tree_recompiles_only_the_edited_unit(
    built_cache: Path, monkeypatch: pytest.MonkeyPatch, broken_tree: Callable[[str, str, str, str], Path]
) -> None:
    """Objects do not depend on where the tree lies (``__FILE__`` is mapped to ``<category>/<kernel>/...``): a copy of
    the generated tree with one edited source rebuilds that source only (the glue unit's entry was named
    after the temporary build directory, so it was compiled again each time and left a new object behind);
    an edited header rebuilds every unit."""
    catalogue, specs = load_project()
    spec = specs[OP]
    build_op(spec, catalogue.get(PRODUCT))
    seen = _compiled_units(monkeypatch)
    tiling = f"op_host/{spec.kernel}_tiling.cpp"
    root = broken_tree(OP, tiling, "#include", "// edited copy\n#include")
    build_op(spec, catalogue.get(PRODUCT), root)
    assert sorted(seen) == [f"{spec.kernel}_tiling.cpp"]
    assert not [p for p in (built_cache / "obj").rglob("*.o") if p.name.startswith("opgen-build")]
    seen.clear()
    header = f"op_host/{spec.kernel}_tiling.h"
    (root / spec.folder / header).write_text((root / spec.folder / header).read_text() + "\n// edited header\n")
    build_op(spec, catalogue.get(PRODUCT), root)
    assert len(seen) == 7


def test_a_corrupt_cached_object_is_rebuilt_with_a_warning(built_cache: Path) -> None:
    catalogue, specs = load_project()
    build_op(specs[OP], catalogue.get(PRODUCT))
    objects = sorted((built_cache / "obj").rglob("*.o"))
    victim = next(o for o in objects if o.name.startswith("op_host_") and "tiling" in o.name)
    good = victim.read_bytes()
    victim.write_bytes(good[: len(good) // 2])
    with pytest.warns(CacheWarning, match=f"build cache entry {victim} is corrupt"):
        build_op(specs[OP], catalogue.get("Ascend950"))
    assert victim.read_bytes() == good


def test_a_directory_where_a_cache_file_belongs_is_a_build_error_naming_it(built_cache: Path) -> None:
    """A cached library, its hash record or its lock replaced by a directory, or the cache's ``lib`` replaced
    by a file: a BuildError naming the path (one line from the CLI), never a traceback, and opgen deletes
    nothing it did not write."""
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    library = built.library.read_bytes()
    for victim in (built.library, built.library.with_name(built.library.name + ".sha256")):
        victim.unlink()
        victim.mkdir()
        (victim / "keep").write_text("x")
        # no "corrupt ...; rebuilding it" warning before the error (nothing is rebuilt), and the library
        # beside a record that is a directory is kept, not deleted as stale
        with pytest.raises(BuildError, match=f"build cache entry {victim} is a directory"), warnings.catch_warnings():
            warnings.simplefilter("error", CacheWarning)
            build_op(specs[OP], catalogue.get(PRODUCT))
        assert (victim / "keep").read_text() == "x"
        if victim != built.library:
            assert built.library.read_bytes() == library
        shutil.rmtree(victim)
        if victim == built.library:
            victim.write_bytes(library)  # as built: its record matches again
    lock = built.library.with_name(built.library.name + ".lock")
    lock.unlink()
    lock.mkdir()
    with pytest.raises(BuildError, match=f"build cache entry {built.library} cannot be used: {lock} is a directory"):
        build_op(specs[OP], catalogue.get(PRODUCT))
    lock.rmdir()
    shutil.rmtree(built_cache / "lib")
    (built_cache / "lib").write_text("not a directory")
    with pytest.raises(BuildError, match=r"cannot be used: .* is not a directory; remove it"):
        build_op(specs[OP], catalogue.get(PRODUCT))
    assert (built_cache / "lib").read_text() == "not a directory"


def test_a_huge_damaged_hash_record_is_rebuilt_without_reading_it_whole(built_cache: Path) -> None:
    """A ``.sha256`` record grown to gigabytes (a sparse file here) is a corrupt entry: the build reads at most
    a few bytes of it and rebuilds, in a process limited to 1 GiB of address space above its start."""
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    record = built.library.with_name(built.library.name + ".sha256")
    good = record.read_text()
    with record.open("r+b") as handle:
        handle.truncate(4 << 30)  # 4 GiB of zero bytes, no disk blocks
    code = (
        "import resource, warnings\n"
        "from codegen.build import build_op\n"
        "from codegen.specs import load_project\n"
        "catalogue, specs = load_project()\n"
        "used = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()\n"
        "resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), resource.RLIM_INFINITY))\n"
        f"build_op(specs[{OP!r}], catalogue.get({PRODUCT!r}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]  # before: MemoryError reading the record
    assert f"build cache entry {built.library} is corrupt" in proc.stderr
    assert record.read_text() == good


@pytest.mark.parametrize(
    "setup",
    [
        "from codegen.check.driver import _pool_worker_init as init",  # the check's pool worker processes
        "from codegen.build import use_tool_warning_format as init",  # the command (cli.main) and case workers
    ],
)
def test_a_cache_warning_in_any_check_process_is_one_warning_line(setup: str) -> None:
    """A corrupt entry found by a pool worker printed Python's `file:line: CacheWarning: ...` and the source
    line, where the manual promises `warning: build cache entry <path> is corrupt (...); rebuilding it`."""
    code = (
        f"{setup}\ninit()\nimport warnings\nfrom codegen.build import CacheWarning\n"
        "warnings.warn('build cache entry X is corrupt (size); rebuilding it', CacheWarning)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (0, "warning: build cache entry X is corrupt (size); rebuilding it\n")


def test_a_failed_commit_removes_the_built_file_from_the_entry_folder(tmp_path: Path) -> None:
    """A hash record replaced by a directory made the commit fail (rightly) but left the example's
    `.<name>.<pid>.<tid>.tmp` in the cache entry's folder for good."""
    from codegen.build.cache import HASH_SUFFIX, _commit_locked

    entry = tmp_path / "example_op_Ascend910B"
    built = tmp_path / ".example_op_Ascend910B.1.2.tmp"
    built.write_bytes(b"\x7fELF built")
    (tmp_path / (entry.name + HASH_SUFFIX)).mkdir()
    with pytest.raises(BuildError, match="is a directory, not a file opgen wrote; remove it"):
        _commit_locked(built, entry)
    assert sorted(p.name for p in tmp_path.iterdir()) == [entry.name + HASH_SUFFIX]
