"""The build cache is verified, never trusted: a corrupt entry (a truncated shared library) is rebuilt with a
warning naming it instead of reaching ``dlopen``, and an unusable cache directory is one error line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
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


CALL = f"""
import numpy as np, codegen
f = codegen.compile_op({OP!r}, {PRODUCT!r})
y = np.array([0.25, 0.5, 0.75], np.float32)
print(f(gradOutput=np.ones(3, np.float32), output=y).tolist())
"""


def test_a_truncated_cached_library_is_rebuilt_with_a_warning_naming_it(private_cache: Path) -> None:
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    assert built.library.is_relative_to(private_cache)
    size = built.library.stat().st_size
    with built.library.open("r+b") as handle:
        handle.truncate(size // 3)
    proc = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr  # before: SIGBUS (-7) inside dlopen
    assert f"build cache entry {built.library} is corrupt" in proc.stderr
    assert proc.stdout.strip() == str([0.25 * 0.75, 0.5 * 0.5, 0.75 * 0.25])
    assert built.library.stat().st_size == size


def test_opgen_build_rebuilds_a_corrupt_entry(private_cache: Path) -> None:
    catalogue, specs = load_project()
    built = build_op(specs[OP], catalogue.get(PRODUCT))
    good = built.library.read_bytes()
    built.library.write_bytes(good[:-100] + b"\0" * 100)  # same size, other bytes
    with pytest.warns(CacheWarning, match=f"build cache entry {built.library} is corrupt"):
        again = build_op(specs[OP], catalogue.get(PRODUCT))
    assert again.library == built.library and again.library.read_bytes() == good


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
