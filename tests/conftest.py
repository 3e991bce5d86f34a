"""Shared fixtures: a private build cache for the test session (unless OPGEN_CACHE_DIR is set), the built ops
of the session (each (op, product) built and loaded once), and a helper that copies the generated tree of an
op into a temporary directory for deliberate breakage."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from codegen.paths import project_paths

if TYPE_CHECKING:
    from codegen.runner import OpCallable


def _import_project_modules() -> None:
    """Imports every module of ``codegen`` and ``bench`` (``__main__`` modules excepted), so that the set of
    project modules loaded is the same whatever test file runs first.

    Hypothesis (6.1xx) seeds its draws with number constants it collects from the source of every local module
    in ``sys.modules`` at the time a test runs; ``derandomize=True`` fixes the random seed, not that pool. A
    property test that ran first in a worker, with fewer modules loaded, drew other examples than the same
    test run after others, so its outcome depended on the file order ``pytest -n 2 --dist loadfile`` chose."""
    import importlib
    import pkgutil

    import bench
    import codegen

    for package in (codegen, bench):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.endswith(".__main__"):
                importlib.import_module(info.name)


def pytest_configure(config: pytest.Config) -> None:
    """Loads every project module first (:func:`_import_project_modules`), then keeps the file order of
    :func:`pytest_collection_modifyitems` under ``--dist loadfile``: pytest-xdist (3.x) by default re-sorts the
    files by their number of tests (``--loadscope-reorder``), which put files of few but long tests (the
    heavy-marked test_new_products.py, test_runtime_cpp.py, test_select_path.py) last, where one worker ran
    them while the other idled. The option only orders the work; every test still runs.

    The pytest-xdist controller (``-n N`` with N >= 1, in the process that has no ``workerinput``) runs no test,
    so it skips the imports (about 2.4 s of CPU, PyTorch's import most of it); the workers, and a run
    without workers, import as before."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    controller = bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")
    if not controller:
        _import_project_modules()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Test files marked ``heavy`` (``pytestmark = pytest.mark.heavy(seconds)``, the file's rough time alone
    on a quiet 2-core machine) run first, longest first: with ``pytest -n 2 --dist loadfile`` a long file
    started last would leave one worker running it alone while the other idles. The other files follow,
    most tests first (pytest-xdist's own order, which :func:`pytest_configure` turns off so that this one
    reaches the scheduler). The sort is stable, so tests keep their order within a file and files with
    equal keys theirs. A ``heavy`` mark on single tests of a file counts for the whole file (the largest such
    mark), so a file's tests stay together."""
    per_file: dict[str, int] = {}
    heavy: dict[str, float] = {}
    for item in items:
        file = item.nodeid.split("::", 1)[0]
        per_file[file] = per_file.get(file, 0) + 1
        mark = item.get_closest_marker("heavy")
        if mark is not None and mark.args:
            heavy[file] = max(heavy.get(file, 0.0), float(mark.args[0]))

    def cost(item: pytest.Item) -> tuple[float, int]:
        file = item.nodeid.split("::", 1)[0]
        if file in heavy:
            return (-heavy[file], 0)
        return (0.0, -per_file[file])

    items.sort(key=cost)


@pytest.fixture(scope="session", autouse=True)
def _build_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    if "OPGEN_CACHE_DIR" not in os.environ:
        # A persistent per-user cache keeps repeated test runs fast; CI starts from an empty one.
        os.environ["OPGEN_CACHE_DIR"] = str(Path.home() / ".cache" / "ascend-opgen-tests")


def _session_builds(host_only: bool) -> Callable[[str, str], OpCallable]:
    """``get(op, product)``: the :class:`codegen.runner.OpCallable` of the project's generated op (any name
    :func:`codegen.specs.resolve_op` takes: one build per op) on a catalogue product, built through the build
    cache (``build_op(host_only=...)``) and loaded once per test session; ValueError for a product the op does not
    list."""
    from codegen.build import build_op
    from codegen.runner import OpCallable
    from codegen.specs import load_project, resolve_op

    built: dict[tuple[str, str], OpCallable] = {}

    def get(op: str, product: str) -> OpCallable:
        catalogue, specs = load_project()
        spec = resolve_op(op, specs)
        if product not in spec.products:  # as compile_op refuses it
            raise ValueError(f"{spec.aclnn_name} does not support {product}; its products: {spec.products}")
        if (spec.snake, product) not in built:
            built[(spec.snake, product)] = OpCallable(build_op(spec, catalogue.get(product), host_only=host_only))
        return built[(spec.snake, product)]

    return get


@pytest.fixture(scope="session")
def built_op(_build_cache: None) -> Callable[[str, str], OpCallable]:
    """``built_op(op, product)``: the op's full library (:func:`_session_builds`). Callers must not change what
    a later test relies on: run options are set per call, so plain calls are safe."""
    return _session_builds(host_only=False)


@pytest.fixture(scope="session")
def host_built_op(_build_cache: None) -> Callable[[str, str], OpCallable]:
    """``host_built_op(op, product)``: the op's library without its kernel (:func:`_session_builds`;
    ``build_op(host_only=True)``: the L2 and L0 APIs, tiling, InferShape and OpDef registration, whose objects
    the full build shares through the build cache), for a test that reads the registry or calls the tiling only."""
    return _session_builds(host_only=True)


@pytest.fixture
def broken_tree(tmp_path: Path) -> Callable[[str, str, str, str], Path]:
    """``broken_tree(op, relative_file, old, new)`` copies the op's folder of ``generated/`` (``op`` a snake
    name, ``relative_file`` inside the op's folder) to a temporary tree at the same place, replaces ``old`` by
    ``new`` once in the file (the replacement must apply) and returns the tree's root."""

    def make(op: str, rel: str, old: str, new: str) -> Path:
        from codegen.specs import load_project

        folder = load_project()[1][op].folder
        root = tmp_path / "generated"
        if not (root / folder).exists():
            shutil.copytree(project_paths().generated / folder, root / folder)
        path = root / folder / rel
        text = path.read_text()
        assert old in text, f"mutation anchor not found in {rel}: {old!r}"
        path.write_text(text.replace(old, new, 1))
        return root

    return make
