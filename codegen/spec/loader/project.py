"""Loading op specs from files: one spec against its catalogue, or a directory of specs with the cross-file
checks (two specs with one ``op``, ``op_type`` or ``kernel``; output paths that would collide).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from codegen.paths import spec_files
from codegen.spec.catalogue import CATALOGUE_FILE, _load_catalogue, _sorted
from codegen.spec.errors import SourceLoc, SpecError, SpecErrors
from codegen.spec.generated_names import describe_kind, op_files, output_path_collisions, producer_text, tree_files
from codegen.spec.loader.document import parse_op_spec
from codegen.spec.loader.state import ParseState
from codegen.spec.model import Catalogue, OpSpec
from codegen.spec.yaml_reader import Reader, YNode, map_entries, read_yaml


def _load_op_spec(
    path: Path, catalogue: Catalogue | None, errors: list[SpecError]
) -> tuple[OpSpec | None, YNode | None]:
    before = len(errors)
    root = read_yaml(path, errors)
    if root is None:
        return None, None
    spec = parse_op_spec(ParseState(root, path, catalogue, Reader(errors)))
    return (spec if len(errors) == before else None), root


def _producers(first: tuple[OpSpec | None, str], second: tuple[OpSpec | None, str]) -> str:
    """Two colliding producers as a message names them (one op's two file kinds without repeating the op)."""
    if first[0] is not None and first[0] is second[0]:
        return f"{describe_kind(first[1])} and {describe_kind(second[1])} of {first[0].op}"
    return f"{producer_text(first)} and {producer_text(second)}"


def _key_loc(root: YNode | None, key: str, default: SourceLoc) -> SourceLoc:
    """The line of the spec's top-level ``key``; for a ``kernel`` the spec derives (no such key), the line of
    the ``op_type`` it comes from; ``default`` when neither is there."""
    keys = {k.value: k.loc for k, _ in map_entries(root)}
    return keys.get(key) or (keys.get("op_type") if key == "kernel" else None) or default


def _collision_errors(specs: list[OpSpec], catalogue: Catalogue, roots: Mapping[str, YNode | None]) -> list[SpecError]:
    """Every pair of output paths that the generation of ``specs`` would write over each other
    (:func:`~codegen.spec.generated_names.output_path_collisions`), each at the spec key whose name shapes the
    colliding path: ``kernel`` when the path changes with the kernel name, else ``op``."""
    products = {p.name: p for p in catalogue.products}
    errors: list[SpecError] = []
    for rel, first, second, how in output_path_collisions(tree_files(specs, products)):
        spec, kind = second if second[0] is not None else first
        if spec is None:
            continue  # two root files: never from a spec
        renamed = dataclasses.replace(spec, kernel=spec.kernel + "x")
        known = [products[p] for p in spec.products if p in products]
        key = "kernel" if op_files(renamed, known).get(kind) != op_files(spec, known).get(kind) else "op"
        loc = _key_loc(roots.get(spec.snake), key, spec.loc)
        errors.append(
            SpecError(
                loc,
                key,
                f"output path collision: {rel}: {how}, {_producers(first, second)}; choose another {key} name",
            )
        )
    return errors


def load_op_spec(path: str | Path, catalogue: Catalogue) -> OpSpec:
    """Loads and validates one op spec.

    Args:
        path: the spec file; its stem must be ``snake_case(op)``.
        catalogue: the product catalogue the spec's product names refer to.

    Returns:
        The op spec.

    Raises:
        SpecErrors: every problem in the file (see the module doc and DESIGN.md "The spec"), ordered by line.
    """
    errors: list[SpecError] = []
    spec, root = _load_op_spec(Path(path), catalogue, errors)
    if spec is not None:
        errors.extend(_collision_errors([spec], catalogue, {spec.snake: root}))
    if errors or spec is None:
        raise SpecErrors(_sorted(errors))
    return spec


def load_specs(spec_dir: str | Path, catalogue_path: str | Path | None = None) -> tuple[Catalogue, dict[str, OpSpec]]:
    """Loads the product catalogue and every op spec of a directory.

    Args:
        spec_dir: directory of op specs: every ``*.yaml`` and ``*.yml`` except the catalogue, hidden files and
            editor lock/backup files (:func:`codegen.paths.spec_files`) is a spec.
        catalogue_path: the product catalogue (default ``<spec_dir>/products.yaml``).

    Returns:
        ``(catalogue, specs)`` with ``specs`` keyed by file stem (= ``snake_case(op)``), sorted by stem.

    Raises:
        SpecErrors: every problem of the catalogue and of all specs, plus cross-file ones (two specs with
            one ``op``, ``op_type`` or ``kernel``). When the catalogue is invalid the specs are still
            checked, without the product-name checks.
    """
    directory = Path(spec_dir)
    cat_path = Path(catalogue_path) if catalogue_path is not None else directory / CATALOGUE_FILE
    errors: list[SpecError] = []
    catalogue = _load_catalogue(cat_path, errors)
    specs: dict[str, OpSpec] = {}
    roots: dict[str, YNode | None] = {}
    firsts: dict[tuple[str, str], tuple[OpSpec, YNode | None]] = {}
    stems: dict[str, Path] = {}
    for path in spec_files(directory, cat_path):
        if path.stem in stems:
            errors.append(
                SpecError(
                    SourceLoc(str(path), 1),
                    "op",
                    f"{path.name} and {stems[path.stem].name} both define op file '{path.stem}'; keep one of them",
                )
            )
            continue
        stems[path.stem] = path
        spec, root = _load_op_spec(path, catalogue, errors)
        if spec is None:
            continue
        clash = False
        for key in ("op", "op_type", "kernel"):
            value = getattr(spec, key)
            other, other_root = firsts.setdefault((key, value), (spec, root))
            if other is not spec:
                loc = _key_loc(root, key, spec.loc)
                there = _key_loc(other_root, key, other.loc)
                errors.append(SpecError(loc, key, f"{key} '{value}' is also used by {there} (another spec)"))
                clash = True
        if not clash:
            specs[path.stem] = spec
            roots[spec.snake] = root
    if catalogue is not None:
        errors.extend(_collision_errors(list(specs.values()), catalogue, roots))
    if errors or catalogue is None:
        raise SpecErrors(_sorted(errors))
    return catalogue, specs
