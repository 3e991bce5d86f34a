"""``opgen generate``: specs → rendered trees → ``generated/`` (or ``--out``), all or nothing."""

from __future__ import annotations

from pathlib import Path

from codegen.paths import ProjectPaths, project_paths
from codegen.render import RenderedOp, make_environment, render_op
from codegen.spec.model import Catalogue, OpSpec
from codegen.writer import WriteReport, expected_files, sync_tree


def render_all(specs: dict[str, OpSpec], catalogue: Catalogue, paths: ProjectPaths | None = None) -> list[RenderedOp]:
    """Renders every op in ``specs`` (sorted by name) in memory.

    Raises:
        codegen.render.RenderError: a template or clang-format failed.
    """
    paths = paths or project_paths()
    env = make_environment(paths.templates)
    return [render_op(specs[name], catalogue, paths, env) for name in sorted(specs)]


def generate(
    specs: dict[str, OpSpec], catalogue: Catalogue, out: Path | None = None, check: bool = False
) -> WriteReport:
    """Renders all ``specs`` and synchronises ``out`` (default ``generated/``); with ``check`` writes nothing.

    Raises:
        codegen.render.RenderError: rendering failed (nothing was written).
    """
    paths = project_paths()
    rendered = render_all(specs, catalogue, paths)
    root = out or paths.generated
    return sync_tree(root, expected_files(rendered), sorted(specs), check)
