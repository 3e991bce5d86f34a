"""Rendering: view models through Jinja2 templates into formatted, deterministic file contents.

Templates are found by family: ``<kind dir>/<family>_<name>.j2`` wins over the shared ``<kind dir>/<name>.j2``.
C++ output is formatted with clang-format (the PyPI ``clang-format`` package) using the project's
``.clang-format``; Markdown is only stripped of trailing blanks. Nothing here writes files.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from codegen.paths import ProjectPaths
from codegen.spec.model import Catalogue, OpSpec

#: Template (kind directory, base name) for every generated file kind of :func:`codegen.plan.common.op_files`.
TEMPLATE_NAMES: dict[str, tuple[str, str]] = {
    "op_api_h": ("op_api", "aclnn.h.j2"),
    "op_api_cpp": ("op_api", "aclnn.cpp.j2"),
    "tiling_h": ("op_host", "tiling.h.j2"),
    "tiling_cpp": ("op_host", "tiling.cpp.j2"),
    "def_cpp": ("op_host", "def.cpp.j2"),
    "kernel_cpp": ("op_kernel", "kernel.cpp.j2"),
    "doc_md": ("docs", "aclnn.md.j2"),
    "example_cpp": ("examples", "example.cpp.j2"),
}

ViewBuilder = Callable[[OpSpec, Catalogue], dict[str, Any]]


class RenderError(Exception):
    """A template failed to render or clang-format failed; the message names the op and the template."""


def _family_builders() -> dict[str, ViewBuilder]:
    from codegen.plan import elementwise

    builders: dict[str, ViewBuilder] = {"elementwise": elementwise.build_view}
    try:
        from codegen.plan import index_accumulate
    except ImportError:  # the family is optional until its module exists
        pass
    else:
        builders["index_accumulate"] = index_accumulate.build_view
    return builders


def _capfirst(text: str) -> str:
    return text[:1].upper() + text[1:]


def make_environment(templates: Path) -> jinja2.Environment:
    """A Jinja2 environment with ``StrictUndefined`` (a missing view-model key is an error, never blank)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["basename"] = posixpath.basename
    env.filters["capfirst"] = _capfirst
    return env


def template_for(env: jinja2.Environment, family: str, kind: str) -> str:
    """The template path rendering file ``kind`` of an op of ``family``."""
    directory, name = TEMPLATE_NAMES[kind]
    specific = f"{directory}/{family}_{name}"
    try:
        env.get_template(specific)
    except jinja2.TemplateNotFound:
        return f"{directory}/{name}"
    return specific


def clang_format_binary() -> str:
    """Path of the clang-format executable of the ``clang-format`` PyPI package (or on PATH).

    Raises:
        RenderError: clang-format is not installed.
    """
    candidates = [Path(sys.executable).parent / "clang-format"]
    for c in candidates:
        if c.exists():
            return str(c)
    found = shutil.which("clang-format")
    if found:
        return found
    raise RenderError("clang-format not found: install the 'clang-format' package (pip install clang-format)")


def format_cpp(text: str, style_file: Path, filename: str) -> str:
    """Formats C++ ``text`` with clang-format and the project style; deterministic for equal input.

    Raises:
        RenderError: clang-format failed (its stderr is in the message).
    """
    proc = subprocess.run(
        [clang_format_binary(), f"--style=file:{style_file}", f"--assume-filename={filename}"],
        input=text.encode(),
        capture_output=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    if proc.returncode != 0:
        raise RenderError(f"clang-format failed on {filename}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


@dataclass(frozen=True)
class RenderedOp:
    """All files of one op: ``files`` maps paths relative to the op's folder to their text."""

    spec: OpSpec
    files: dict[str, str]
    templates: dict[str, str]


def render_op(
    spec: OpSpec, catalogue: Catalogue, paths: ProjectPaths, env: jinja2.Environment | None = None
) -> RenderedOp:
    """Renders every file of ``spec``.

    Raises:
        RenderError: unknown family, a template error (with template name and line), or clang-format failure.
    """
    builders = _family_builders()
    if spec.family not in builders:
        raise RenderError(
            f"{spec.path}: family '{spec.family}' has no view builder; known: {', '.join(sorted(builders))}"
        )
    env = env or make_environment(paths.templates)
    view = builders[spec.family](spec, catalogue)
    files: dict[str, str] = {}
    used: dict[str, str] = {}
    for kind, rel in view["files"].items():
        name = template_for(env, spec.family, kind)
        try:
            text = env.get_template(name).render(**view)
        except jinja2.TemplateError as exc:
            lineno = getattr(exc, "lineno", None)
            where = f"{name}:{lineno}" if lineno else name
            raise RenderError(f"{spec.op}: template {where}: {exc}") from exc
        if rel.endswith((".cpp", ".h")):
            text = format_cpp(text, paths.clang_format, rel)
        else:
            text = "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"
        files[rel] = text
        used[rel] = name
    return RenderedOp(spec, files, used)


def template_closure(env: jinja2.Environment, name: str) -> tuple[str, ...]:
    """``name`` and every template it extends, includes or imports, recursively (sorted)."""
    from jinja2 import meta

    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        assert env.loader is not None
        source, _, _ = env.loader.get_source(env, current)
        for ref in meta.find_referenced_templates(env.parse(source)):
            if ref:
                todo.append(ref)
    return tuple(sorted(seen))
