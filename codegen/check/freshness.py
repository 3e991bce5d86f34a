"""Whether a generated tree is what the specs produce now, asked by ``opgen check`` before it builds anything.

A tree generated before a spec or the catalogue changed (a product added to an op's ``products`` without
``opgen generate``, say) builds, but from the old text: its cases then fail for reasons that have nothing to
do with the kernel ("must be one of []"). The selected ops are rendered in memory (nothing is written) and
compared with the tree, file by file. A differing file is told apart by the tree's generation manifest
(:mod:`codegen.manifest`): when its recorded input hash is not what its inputs hash to now, the specs,
templates or generator changed since the tree was generated (the tree is behind them); otherwise (the inputs
are those it was generated from, the bytes were edited since) it is a hand edit. A tree without a usable
manifest (a fresh clone, a copied op folder) cannot be told apart: its differing files count as edited. The
verdict is kept in the build cache under a hash of everything it
depends on (the generator's source, the selected specs, the catalogue, the templates, ``.clang-format`` and
the tree's files of those ops and its manifest), so a tree checked again unchanged is not rendered again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codegen.manifest import (
    MANIFEST_NAME,
    ManifestError,
    generator_version,
    input_hash,
    load_manifest,
    rendering_versions,
)
from codegen.ownership import FOREIGN, OBSOLETE
from codegen.paths import project_paths
from codegen.render import render_ops
from codegen.spec.model import Catalogue, OpSpec
from codegen.writer import expected_files, sync_tree, write_atomic


@dataclass
class Freshness:
    """How a generated tree differs from what the specs produce, by path relative to the tree: ``missing``
    files the specs produce that the tree lacks (the tree is behind the specs: ``opgen check`` refuses it),
    ``differ`` files whose text differs (edited by hand, or of a tree without a manifest: a warning),
    ``outdated`` files whose text differs and whose manifest record's input hash is not what their inputs
    hash to now (generated before the specs, templates or generator changed: ``opgen check`` refuses the
    tree), ``extra`` files in an op's folder that no template produces."""

    missing: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)

    @property
    def behind(self) -> bool:
        """Whether the tree is behind the specs: a file they produce is missing, or was generated from other
        inputs than the current ones."""
        return bool(self.missing or self.outdated)


def freshness(specs: list[OpSpec], catalogue: Catalogue, generated: Path, cache: Path | None = None) -> Freshness:
    """Renders ``specs`` (their files only, not the support matrix) with the project's templates and compares
    the text with the files under ``generated`` (read only). With ``cache`` (a writable directory) the verdict
    is read from, or kept in, ``cache/freshness/<key>.json`` (:func:`_key`).

    Raises:
        codegen.render.RenderError: rendering failed (the same error ``opgen generate`` reports).
    """
    kept = cache / "freshness" / f"{_key(specs, catalogue, generated)}.json" if cache is not None else None
    if kept is not None and kept.is_file():
        try:
            return Freshness(**json.loads(kept.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            pass  # a damaged entry: render again and replace it
    rendered = render_ops(specs, catalogue, project_paths())
    report = sync_tree(generated, expected_files(rendered, {}), sorted(s.snake for s in specs), check=True)
    outdated = _outdated(report.stale, specs, catalogue, generated)
    found = Freshness(
        missing=report.missing,
        differ=[rel for rel in report.stale if rel not in outdated],
        extra=report.extra,
        outdated=sorted(outdated),
    )
    if kept is not None:
        try:
            kept.parent.mkdir(exist_ok=True)
            write_atomic(kept, json.dumps(asdict(found)))
        except OSError:
            pass  # the cache is an optimisation: the verdict stands without it
    return found


def _outdated(differ: list[str], specs: list[OpSpec], catalogue: Catalogue, generated: Path) -> set[str]:
    """Those of ``differ`` (paths relative to ``generated``) whose record in ``generated``'s manifest holds
    an input hash other than what the file's inputs (its op's spec file, ``catalogue``, its templates, the
    style, the generator) hash to now. None without a manifest, or with one that cannot be read; a file
    the manifest has no record of (or records as not written by opgen) is not among them."""
    if not differ:
        return set()
    try:
        records = load_manifest(generated)
    except ManifestError:
        return set()
    paths = project_paths()
    spec_files = {s.snake: Path(s.path) for s in specs}
    outdated = set()
    for rel in differ:
        rec = records.get(rel)
        if rec is None or rec.input_hash in (OBSOLETE, FOREIGN):  # not an output of the current generation
            continue
        sources = [spec_files[rec.spec]] if rec.spec in spec_files else []
        now = input_hash(sources, Path(catalogue.path), paths.templates, rec.templates, paths.clang_format)
        if now != rec.input_hash:
            outdated.add(rel)
    return outdated


def _key(specs: list[OpSpec], catalogue: Catalogue, generated: Path) -> str:
    """Hex SHA-256 of what :func:`freshness` depends on: the generator's version and source, the bytes of each
    spec file and of the catalogue, every template and ``.clang-format`` (path and bytes), and the path and
    bytes of every file in the selected ops' folders of ``generated`` and of its manifest."""
    paths = project_paths()
    h = hashlib.sha256(generator_version().encode())
    h.update(rendering_versions().encode())

    def add(name: str, path: Path) -> None:
        h.update(f"\0{name}\0".encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"\0unreadable")

    for spec in sorted(specs, key=lambda s: s.snake):
        add(f"spec {spec.snake}", Path(spec.path))
    add("catalogue", Path(catalogue.path))
    add("clang-format", paths.clang_format)
    for path in sorted(p for p in paths.templates.rglob("*") if p.is_file()):
        add(f"template {path.relative_to(paths.templates).as_posix()}", path)
    h.update(f"\0tree {generated.resolve()}".encode())
    add("manifest", generated / MANIFEST_NAME)
    for spec in sorted(specs, key=lambda s: s.snake):
        folder = generated / spec.folder
        files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
        for path in files:
            add(f"generated {path.relative_to(generated).as_posix()}", path)
    return h.hexdigest()


def describe(found: Freshness, generate: str, shown: int = 3) -> str:
    """One line on what ``found`` says, naming the command that brings the tree up to date (``generate``,
    e.g. ``opgen generate``); at most ``shown`` paths of each kind are listed."""

    def some(paths: list[str]) -> str:
        more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
        return ", ".join(paths[:shown]) + more

    parts = []
    if found.missing:
        parts.append(f"{len(found.missing)} file(s) the specs produce are missing ({some(found.missing)})")
    if found.outdated:
        parts.append(
            f"{len(found.outdated)} file(s) were generated from older specs or templates ({some(found.outdated)})"
        )
    if found.differ:
        parts.append(f"{len(found.differ)} file(s) differ ({some(found.differ)})")
    return f"{'; '.join(parts)}: `{generate}` brings the tree up to date"
