"""``opgen generate``: specs → rendered trees → ``generated/`` (or ``--out``), all or nothing, incrementally.

Every run first decides, from the manifest (:mod:`codegen.manifest`), which output files could have changed:
a file whose spec, catalogue, templates (with their dependencies) and generator source are unchanged, and
whose text on disk is what was written, is skipped without rendering. If anything must be rendered, *all*
specs are loaded and validated first (a bad spec writes nothing), then only the affected ops are rendered and
only files whose text changed are written. ``--check`` always renders everything and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegen.manifest import (
    MANIFEST_NAME,
    FileRecord,
    ManifestError,
    file_hash,
    input_hash,
    load_manifest,
    save_manifest,
    sha256_bytes,
)
from codegen.ownership import (
    ALL_SPECS,
    FOREIGN,
    OBSOLETE,
    has_banner,
    is_foreign,
    owned_folders,
    prune_plan,
    recorded_op_folders,
    relocate,
    remove_files,
    stray_files,
)
from codegen.paths import ProjectPaths, project_paths, spec_files
from codegen.spec.model import Catalogue, OpSpec
from codegen.writer import WriteFailed, WriteReport, expected_files, leftover_temps, sync_tree

if TYPE_CHECKING:  # the renderer (Jinja2) is imported only when something is rendered
    from codegen.render import RenderedOp

#: The support matrix at the root of the generated tree (ops x products x dtypes, linking each op's doc).
OPERATORS_FILE = "OPERATORS.md"
OPERATORS_TEMPLATE = "docs/operators.md.j2"


def render_all(specs: dict[str, OpSpec], catalogue: Catalogue, paths: ProjectPaths | None = None) -> list[RenderedOp]:
    """Renders every op in ``specs`` (sorted by name) in memory.

    Raises:
        codegen.render.RenderError: a template or clang-format failed.
    """
    from codegen.render import make_environment, render_ops

    paths = paths or project_paths()
    env = make_environment(paths.templates)
    return render_ops([specs[name] for name in sorted(specs)], catalogue, paths, env)


def operators_view(specs: dict[str, OpSpec], catalogue: Catalogue) -> dict[str, Any]:
    """View model of ``OPERATORS.md``: one row per op, one column per catalogue product."""
    rows = []
    for name in sorted(specs):
        spec = specs[name]
        cells = []
        for p in catalogue.products:
            if p.name in spec.products:
                cells.append(", ".join(d.name for d in spec.inputs[0].dtypes_for(p)))
            else:
                cells.append("-")
        rows.append(
            {
                "aclnn": spec.aclnn_name,
                "doc": f"{spec.folder}/docs/{spec.aclnn_name}.md",
                "family": spec.family,
                "dtype_of": spec.inputs[0].name,
                "cells": cells,
            }
        )
    return {"products": [p.name for p in catalogue.products], "rows": rows}


def render_operators(specs: dict[str, OpSpec], catalogue: Catalogue, paths: ProjectPaths) -> str:
    """The text of ``OPERATORS.md``."""
    from codegen.render import make_environment

    env = make_environment(paths.templates)
    text = env.get_template(OPERATORS_TEMPLATE).render(**operators_view(specs, catalogue))
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"


def generate(
    specs: dict[str, OpSpec], catalogue: Catalogue, out: Path | None = None, check: bool = False
) -> WriteReport:
    """Renders all ``specs`` (and the support matrix) and synchronises ``out`` (default ``generated/``);
    with ``check`` writes nothing. Not incremental: see :func:`run_generate` for the CLI's behaviour.

    Raises:
        codegen.render.RenderError: rendering failed (nothing was written).
    """
    paths = project_paths()
    rendered = render_all(specs, catalogue, paths)
    root = out or paths.generated
    files = expected_files(rendered, {OPERATORS_FILE: render_operators(specs, catalogue, paths)})
    return sync_tree(root, files, [specs[name].folder for name in sorted(specs)], check)


class GenerateError(Exception):
    """A generate request that cannot be carried out (unknown op, an output path that is not a directory);
    raised before anything is written."""


@dataclass
class GenerateResult:
    """What :func:`run_generate` did. ``report`` covers the files it rendered; ``skipped`` lists files left
    alone because nothing they come from changed; ``orphans`` are op folders of ours (see
    :func:`owned_folders`) that no spec produces any more and ``strays`` files inside an op's folder that no
    template of the op produces. ``prunable`` is what ``--prune`` removes (or, with ``dry_run``, would
    remove): only files the manifest records as written by this tool into this output directory and still
    holding the bytes it wrote; ``pruned`` what was removed (files, and folders that became empty, with a
    trailing ``/``); ``kept`` maps files a prune leaves alone to the reason. ``warnings`` are problems that
    did not stop the run; ``dry_run`` is True when nothing was written or removed."""

    report: WriteReport
    skipped: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    prunable: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    #: output paths where a file exists that opgen did not write (no manifest record, no generator banner):
    #: left as they are, never overwritten
    foreign: list[str] = field(default_factory=list)
    #: files of an op's former folder (the op's folder changed: another category or kernel name, or the
    #: layout before categories) that opgen did not write or that were changed since, moved to the same
    #: place in the op's folder: old path -> new path
    moved: dict[str, str] = field(default_factory=dict)
    #: such files left in the former folder because the op's folder already holds that path: old path -> the
    #: path that is taken
    left: dict[str, str] = field(default_factory=dict)
    #: temporary files a killed earlier write left beside files opgen writes
    #: (:func:`codegen.writer.leftover_temps`): removed by a run that writes, named by ``--check`` and a dry run
    leftovers: list[str] = field(default_factory=list)
    dry_run: bool = False

    @property
    def clean(self) -> bool:
        """True when the output tree holds exactly what the specs produce (no stray op folder either)."""
        return self.report.clean and not self.orphans and not self.strays and not self.foreign


def _spec_files(specs_dir: Path) -> dict[str, Path]:
    return {p.stem: p for p in spec_files(specs_dir)}


def _record_hash(rec: FileRecord, spec_files: dict[str, Path], catalogue_file: Path, paths: ProjectPaths) -> str:
    if rec.spec == ALL_SPECS:
        sources = [spec_files[name] for name in sorted(spec_files)]
    else:
        sources = [spec_files[rec.spec]] if rec.spec in spec_files else []
    return input_hash(sources, catalogue_file, paths.templates, rec.templates, paths.clang_format)


def _load_project(specs_dir: Path, products_file: Path | None) -> tuple[Catalogue, dict[str, OpSpec]]:
    """:func:`codegen.specs.load_project`, imported on first use (a no-change run never loads a spec)."""
    from codegen.specs import load_project

    return load_project(specs_dir, products_file)


def run_generate(
    out: Path | None = None,
    specs_dir: Path | None = None,
    products_file: Path | None = None,
    ops: list[str] | None = None,
    check: bool = False,
    force: bool = False,
    prune: bool = False,
    dry_run: bool = False,
) -> GenerateResult:
    """The ``opgen generate`` command.

    Args:
        out: output root (default ``generated/``).
        specs_dir: spec directory (default the project's ``specs/``).
        products_file: product catalogue (default ``<specs_dir>/products.yaml``).
        ops: restrict to these ops (snake names or OpTypes); the support matrix always covers every spec.
        check: render everything, write nothing, report differences.
        force: ignore the manifest for skipping and re-render (still writing only changed text).
        prune: delete the files this tool wrote into ``out`` (as its manifest records, with unchanged bytes)
            that no spec or template produces any more, and the folders that become empty by it; nothing
            else is ever deleted.
        dry_run: write and delete nothing; ``report.stale``/``report.missing`` are what would be written and
            ``prunable`` what ``prune`` would delete.

    Raises:
        codegen.spec.errors.SpecErrors: a spec is invalid (nothing written).
        codegen.render.RenderError: rendering failed (nothing written).
        GenerateError: ``out`` exists and is not a directory (nothing written).
        codegen.writer.WriteFailed: a file, the manifest or a prune could not be written (a read-only file
            system, a full disk, permission denied); the message says what was and was not written.
        KeyError: an unknown op in ``ops`` (nothing written; the message lists the known ones).

    A manifest that cannot be read is treated as absent (everything is rendered, nothing is pruned) with a
    warning in ``GenerateResult.warnings``.
    """
    paths = project_paths()
    root = out or paths.generated
    if root.exists() and not root.is_dir():
        raise GenerateError(f"output path {root} exists and is not a directory")
    sdir = specs_dir or paths.specs
    catalogue_file = products_file or sdir / "products.yaml"
    spec_files = _spec_files(sdir)
    if ops:
        from codegen.specs import resolve_op

        for op in ops:
            if op not in spec_files:
                resolve_op(op, _load_project(sdir, products_file)[1])  # KeyError naming the op

    warnings: list[str] = []
    try:
        owned = load_manifest(root)  # every file this tool recorded writing into root
    except ManifestError as exc:
        owned = {}
        warnings.append(f"{exc}; ignoring it and rendering every file" + ("; nothing is pruned" if prune else ""))

    if check:
        catalogue, specs = _load_project(sdir, products_file)
        checked = GenerateResult(generate(specs, catalogue, root, check=True), warnings=warnings)
        report = checked.report
        checked.leftovers = leftover_temps(
            root, [*report.unchanged, *report.stale, *report.missing, *owned, MANIFEST_NAME]
        )
        report.extra = [rel for rel in report.extra if rel not in checked.leftovers]
        # A differing file opgen did not write is not stale: generating would keep it, not rewrite it.
        op_folders = sorted({s.folder for s in specs.values()}, key=len, reverse=True)
        checked.foreign = [
            rel
            for rel in checked.report.stale
            if is_foreign(root, rel, None, owned, next((f for f in op_folders if rel.startswith(f"{f}/")), ""))
        ]
        checked.report.stale = [rel for rel in checked.report.stale if rel not in checked.foreign]
        # A file no template produces that opgen did not write (no record, no banner; or kept as foreign): --prune
        # keeps it, so it is named as the user's.
        theirs = [
            rel
            for rel in checked.report.extra
            if ((r := owned.get(rel)) is None and not has_banner(root / rel))
            or (r is not None and r.input_hash == FOREIGN)
        ]
        checked.foreign += theirs
        checked.report.extra = [rel for rel in checked.report.extra if rel not in theirs]
        checked.orphans = owned_folders(root, {s.folder for s in specs.values()}, owned)
        return checked

    result = GenerateResult(WriteReport(), warnings=warnings, dry_run=dry_run)
    manifest: dict[str, FileRecord] = dict(owned)
    live = {} if force else {rel: r for rel, r in owned.items() if r.input_hash != OBSOLETE}
    stale_ops: set[str] = set()
    matrix_stale = True
    wanted = set(spec_files)
    for op in spec_files:
        records = {rel: r for rel, r in live.items() if r.spec == op}
        fresh = bool(records) and all(
            _record_hash(r, spec_files, catalogue_file, paths) == r.input_hash
            and file_hash(root / rel) == r.output_hash
            for rel, r in records.items()
        )
        if fresh:
            result.skipped.extend(sorted(records))
        else:
            stale_ops.add(op)
    matrix = live.get(OPERATORS_FILE)
    if (
        matrix
        and _record_hash(matrix, spec_files, catalogue_file, paths) == matrix.input_hash
        and file_hash(root / OPERATORS_FILE) == matrix.output_hash
    ):
        matrix_stale = False
        result.skipped.append(OPERATORS_FILE)

    if stale_ops or matrix_stale:
        catalogue, specs = _load_project(sdir, products_file)  # validates every spec: all errors or nothing
        if ops:
            from codegen.specs import resolve_op

            wanted = {resolve_op(o, specs).snake for o in ops}
        todo = sorted(stale_ops & wanted)
        from codegen.render import make_environment, render_ops, template_closure

        env = make_environment(paths.templates)
        rendered = render_ops([specs[name] for name in todo], catalogue, paths, env)
        extra = {}
        if matrix_stale:
            extra[OPERATORS_FILE] = render_operators(specs, catalogue, paths)
        files = expected_files(rendered, extra)
        # A file at an output path that opgen did not write (no record in the manifest, no banner) belongs to
        # the user: it is named and left alone, never overwritten.
        folder_of = {f"{o.spec.folder}/{rel}": o.spec.folder for o in rendered for rel in o.files}
        result.foreign = sorted(
            rel for rel in files if is_foreign(root, rel, files[rel], owned, folder_of.get(rel, ""))
        )
        for rel in result.foreign:
            del files[rel]
        # A file opgen wrote and someone edited since: generating repairs it, and says so.
        edited = [
            rel
            for rel in files
            if (r := owned.get(rel)) is not None
            and r.input_hash != FOREIGN
            and r.output_hash
            and (root / rel).is_file()
            and file_hash(root / rel) != r.output_hash
        ]
        result.report = sync_tree(root, files, [specs[name].folder for name in todo], check=dry_run)
        rewritten = set(result.report.stale if dry_run else result.report.written)
        verb = "would overwrite" if dry_run else "overwrote"
        result.warnings += [f"{verb} {rel} (edited since opgen wrote it)" for rel in edited if rel in rewritten]
        former = recorded_op_folders(owned)
        for op_render in rendered:
            snake, folder = op_render.spec.snake, op_render.spec.folder
            # An op whose folder changed (another category or kernel name, or the layout before categories):
            # its former folder moves into the new one, keeping every file opgen did not write.
            for old in sorted(former.get(snake, set()) - {folder}):
                removed, moved, left = relocate(root, old, folder, owned, files, dry_run)
                result.moved.update(moved)
                result.left.update(left)
                for rel in [*removed, *moved]:
                    manifest.pop(rel, None)
            # A file the op's templates no longer produce stays recorded as ours (obsolete): --prune may
            # remove it later, and it is never taken for a fresh output.
            produced = {f"{folder}/{rel}" for rel in op_render.templates}
            for rel, r in list(manifest.items()):
                if r.spec == snake and rel not in produced and r.input_hash != FOREIGN:
                    manifest[rel] = FileRecord(r.spec, (), OBSOLETE, r.output_hash)
            for rel, name in op_render.templates.items():
                key = f"{folder}/{rel}"
                if key not in files:  # a foreign file kept in its place: not ours, re-rendered next run
                    manifest[key] = FileRecord(snake, (), FOREIGN, "")
                    continue
                deps = template_closure(env, name)
                rec = FileRecord(snake, deps, "", sha256_bytes(files[key].encode()))
                manifest[key] = FileRecord(
                    rec.spec, deps, _record_hash(rec, spec_files, catalogue_file, paths), rec.output_hash
                )
        if matrix_stale and OPERATORS_FILE in files:
            deps = template_closure(env, OPERATORS_TEMPLATE)
            rec = FileRecord(ALL_SPECS, deps, "", sha256_bytes(extra[OPERATORS_FILE].encode()))
            manifest[OPERATORS_FILE] = FileRecord(
                ALL_SPECS, deps, _record_hash(rec, spec_files, catalogue_file, paths), rec.output_hash
            )
        result.skipped = [s for s in result.skipped if s not in files]

    # Temporary files of a write that was killed (SIGKILL) beside files opgen writes: removed, never reported as
    # strays or foreign files.
    targets = [*manifest, MANIFEST_NAME]
    if stale_ops or matrix_stale:
        targets += files
    result.leftovers = leftover_temps(root, targets)
    if not dry_run:
        for rel in result.leftovers:
            try:
                (root / rel).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise WriteFailed(
                    root / rel, exc, result.report.written, [], "removing leftover temporary files"
                ) from exc
    # The op folders of the current specs: a rendered op's, else (skipped: unchanged) the one its records hold.
    current: dict[str, str] = {}
    for op, folders in recorded_op_folders({rel: r for rel, r in manifest.items() if r.input_hash != OBSOLETE}).items():
        if op in spec_files and len(folders) == 1:
            current[op] = next(iter(folders))
    if stale_ops or matrix_stale:
        current.update((o.spec.snake, o.spec.folder) for o in rendered)
    result.orphans = owned_folders(root, set(current.values()), manifest)
    candidates: list[str] = []
    for name in result.orphans:
        candidates += [r for r in stray_files(root, name, ()) if r not in result.leftovers]
    for op, folder in sorted(current.items()):
        produced = {rel for rel, r in manifest.items() if r.spec == op and r.input_hash != OBSOLETE}
        if produced:  # without records (an op not rendered yet) there is nothing to compare with
            found = stray_files(root, folder, produced)
            result.strays += [r for r in found if r not in result.foreign and r not in result.leftovers]
    candidates += result.strays
    result.prunable, result.kept = prune_plan(root, candidates, manifest)
    # Records of files gone from disk are dropped; so are obsolete records of files that were changed.
    manifest = {
        rel: r
        for rel, r in manifest.items()
        if (root / rel).is_file() or (r.input_hash != OBSOLETE and (r.spec in spec_files or r.spec == ALL_SPECS))
    }
    if dry_run:
        return result
    if prune:
        try:
            result.pruned = remove_files(root, result.prunable)
        except OSError as exc:
            where = Path(exc.filename) if exc.filename else root
            raise WriteFailed(where, exc, result.report.written, [], "pruning stopped there") from exc
        manifest = {rel: r for rel, r in manifest.items() if rel not in set(result.pruned)}
    try:
        root.mkdir(parents=True, exist_ok=True)
        save_manifest(root, manifest)
    except OSError as exc:
        where = Path(exc.filename) if exc.filename else root / MANIFEST_NAME
        note = "the manifest was not updated (the next run renders those files again)"
        raise WriteFailed(where, exc, result.report.written, [], note) from exc
    return result
