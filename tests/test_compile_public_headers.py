"""tools/compile_public_headers.py plans a compile of every C++ file the generated tree holds.

The public-header check is run by hand against checkouts of the public CANN repositories (its docstring says
which); these tests need none of them: they check its plan over the committed tree with stand-in roots, so that
a generated file kind it does not compile (the examples once) fails here instead of going unchecked.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from codegen.paths import project_paths

PATHS = project_paths()
TOOL = PATHS.root / "tools" / "compile_public_headers.py"
GENERATED = PATHS.root / "generated"
ROOT_KEYS = ("metadef", "opbase", "ops_nn", "asc_devkit", "asc_tools", "runtime", "ge", "securec")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compile_public_headers", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return _tool()


def _roots(tmp_path: Path) -> dict[str, Path | None]:
    """Stand-in roots holding every sub-directory the tool's tables name (empty: nothing is compiled)."""
    roots: dict[str, Path | None] = {}
    for key in (*ROOT_KEYS, "asc_stub", "asc_gen"):
        roots[key] = tmp_path / key
        roots[key].mkdir()  # type: ignore[union-attr]
    for line in TOOL.read_text(encoding="utf-8").splitlines():
        if m := re.match(r'\s*\("(\w+)", "([^"]*)"\),', line):
            (tmp_path / m.group(1) / m.group(2)).mkdir(parents=True, exist_ok=True)
    return roots


def test_every_generated_cpp_file_is_compiled(tool: ModuleType, tmp_path: Path) -> None:
    units = tool.plan(GENERATED.resolve(), _roots(tmp_path), tmp_path / "gtest", set(tool.KINDS))
    planned = {u.path for u in units}
    sources = {p.resolve() for p in GENERATED.glob("*/*/**/*.cpp")}
    assert len(sources) > 300, len(sources)
    assert sources - planned == set(), sorted(str(p.relative_to(GENERATED.resolve())) for p in sources - planned)


def test_kernels_are_compiled_once_per_product_of_the_spec(tool: ModuleType, tmp_path: Path) -> None:
    units = tool.plan(GENERATED.resolve(), _roots(tmp_path), None, {"kernel"})
    specs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((PATHS.root / "specs").glob("*.yaml"))]
    expected = sum(len(s["products"]) for s in specs if "products" in s and "op" in s)
    assert len(units) == expected
    labels = {(u.path, u.label) for u in units}
    assert len(labels) == len(units)  # no product twice for one kernel


def test_an_example_sees_only_what_a_cann_install_gives_an_aclnn_caller(tool: ModuleType, tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    units = tool.plan(GENERATED.resolve(), roots, None, {"example"})
    assert len(units) == len(list(GENERATED.glob("*/*/examples/test_aclnn_*.cpp"))) > 40
    for u in units:
        folder = u.path.parent.parent
        assert u.includes == (
            folder / "op_api",
            roots["opbase"] / "include/nnopbase",  # type: ignore[operator]
            roots["opbase"] / "include/aclnnop",  # type: ignore[operator]
            roots["runtime"] / "include/external",  # type: ignore[operator]
        ), u
        assert u.macros == ()
