"""A small private copy of the project for tests of generation itself (incremental writes, pruning, the
manifest): those properties do not depend on how many ops there are, only on every family's templates being
rendered, so the copy keeps the first op (by name) of each family plus the ops a test names, and rendering it
costs a fraction of the whole tree."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from codegen.paths import project_paths
from codegen.specs import load_project


def ops_for_a_small_copy(named: Iterable[str] = ()) -> list[str]:
    """The snake names of the first op of each family of the project's specs (sorted by name) and of
    ``named`` (snake names; a name the project does not have raises ``KeyError``), sorted."""
    _, specs = load_project()
    chosen: dict[str, str] = {}
    for name in sorted(specs):
        chosen.setdefault(specs[name].family, name)
    unknown = [name for name in named if name not in specs]
    if unknown:  # a misspelt op must fail loudly, not shrink the copy
        raise KeyError(f"no such ops in the project: {unknown}")
    return sorted({*chosen.values(), *named})


def copy_project(root: Path, named: Iterable[str] = (), readme: bool = False) -> list[str]:
    """Copies into ``root`` (created) what ``OPGEN_ROOT`` needs to generate: ``specs/`` (the catalogue and the
    specs of :func:`ops_for_a_small_copy` of ``named``), ``templates/``, ``reference/``,
    ``runtime/include/`` and ``.clang-format`` (and, when ``readme``, the user documents: ``README.md``,
    ``mkdocs.yml`` and the manual ``docs/``). Returns the copied ops' snake names; every family of the project
    is among them."""
    src = project_paths()
    ops = ops_for_a_small_copy(named)
    (root / "specs").mkdir(parents=True)
    shutil.copy(src.specs / "products.yaml", root / "specs" / "products.yaml")
    for op in ops:
        shutil.copy(src.specs / f"{op}.yaml", root / "specs" / f"{op}.yaml")
    for name in ("templates", "reference"):
        shutil.copytree(src.root / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(src.runtime / "include", root / "runtime" / "include")
    shutil.copy(src.clang_format, root / ".clang-format")
    if readme:
        shutil.copy(src.root / "README.md", root / "README.md")
        shutil.copy(src.root / "mkdocs.yml", root / "mkdocs.yml")
        shutil.copytree(src.root / "docs", root / "docs")
    return ops


def spec_dir_with_reference(root: Path, op: str, reference: str) -> Path:
    """A spec directory ``root/specs`` holding the project's catalogue and ``op``'s spec, with ``reference``
    (Python source) as the op's reference module in ``root/reference`` (where ``opgen --specs`` looks for
    it). Returns the spec directory."""
    paths = project_paths()
    (root / "specs").mkdir(parents=True)
    shutil.copy(paths.specs / f"{op}.yaml", root / "specs")
    shutil.copy(paths.specs / "products.yaml", root / "specs")
    (root / "reference").mkdir()
    (root / "reference" / f"{op}.py").write_text(reference)
    return root / "specs"
