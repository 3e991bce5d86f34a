"""Rendering: view models through Jinja2 templates into formatted, deterministic file contents.

Templates are found by family: ``<kind dir>/<family>_<name>.j2`` wins over the shared ``<kind dir>/<name>.j2``.
C++ output is formatted with clang-format (the PyPI ``clang-format`` package) using the project's
``.clang-format``; Markdown is only stripped of trailing blanks. Nothing here writes files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from codegen import registry
from codegen.paths import ProjectPaths, configured_cache_dir
from codegen.plan.views import OpViews
from codegen.spec.errors import SpecError, SpecErrors
from codegen.spec.model import Catalogue, OpSpec

#: Template (kind directory, base name) for every generated file kind of :func:`codegen.spec.generated_names.op_files`.
TEMPLATE_NAMES: dict[str, tuple[str, str]] = {
    "op_api_h": ("op_api", "aclnn.h.j2"),
    "cmake": ("build", "CMakeLists.txt.j2"),
    "proto_h": ("op_graph", "proto.h.j2"),
    "infershape_cpp": ("op_host", "infershape.cpp.j2"),
    "binary_json": ("op_host", "binary.json.j2"),
    "op_api_cpp": ("op_api", "aclnn.cpp.j2"),
    "l0_h": ("op_api", "l0.h.j2"),
    "l0_cpp": ("op_api", "l0.cpp.j2"),
    "tiling_h": ("op_host", "tiling.h.j2"),
    "tiling_cpp": ("op_host", "tiling.cpp.j2"),
    "def_cpp": ("op_host", "def.cpp.j2"),
    "kernel_cpp": ("op_kernel", "kernel.cpp.j2"),
    "doc_md": ("docs", "aclnn.md.j2"),
    "example_cpp": ("examples", "example.cpp.j2"),
    "ut_tiling_cpp": ("tests", "test_tiling.cpp.j2"),
    "ut_infershape_cpp": ("tests", "test_infershape.cpp.j2"),
    "ut_tiling_def_h": ("tests", "tiling_def.h.j2"),
    "tests_cmake": ("build", "ut_dir_CMakeLists.txt.j2"),
    "tests_ut_cmake": ("build", "ut_dir_CMakeLists.txt.j2"),
    "ut_cmake": ("build", "ut_CMakeLists.txt.j2"),
}


class RenderError(Exception):
    """A template failed to render or clang-format failed; the message names the op and the template."""


def _capfirst(text: str) -> str:
    return text[:1].upper() + text[1:]


def _md_cell(text: object) -> str:
    """``text`` for a cell of a Markdown table: each ``|`` escaped (``\\|``), so spec text cannot add a
    column."""
    return str(text).replace("|", "\\|")


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
    env.filters["md_cell"] = _md_cell
    return env


def template_for(env: jinja2.Environment, family: str, kind: str) -> str:
    """The template path rendering file ``kind`` of an op of ``family`` (``binary_json:<soc>`` uses the
    ``binary_json`` template)."""
    directory, name = TEMPLATE_NAMES[kind.split(":")[0]]
    specific = f"{directory}/{family}_{name}"
    try:
        env.get_template(specific)
    except jinja2.TemplateNotFound:
        return f"{directory}/{name}"
    return specific


def clang_format_binary() -> str:
    """Path of the clang-format executable: the native binary the ``clang-format`` PyPI package ships (its
    console script is a Python wrapper that costs an interpreter start per call), else the wrapper next to
    this interpreter, else ``clang-format`` on PATH.

    Raises:
        RenderError: clang-format is not installed.
    """
    try:
        import clang_format  # type: ignore[import-untyped]

        native = Path(clang_format.get_executable("clang-format"))
        if native.is_file() and os.access(native, os.X_OK):
            return str(native)
    except (ImportError, AttributeError):
        pass
    wrapper = Path(sys.executable).parent / "clang-format"
    if wrapper.exists():
        return str(wrapper)
    found = shutil.which("clang-format")
    if found:
        return found
    raise RenderError("clang-format not found: install the 'clang-format' package (pip install clang-format)")


#: Where formatted sources are kept, under the cache (:func:`codegen.paths.configured_cache_dir`).
FORMAT_CACHE = "format"


def _format_key(tool: bytes, rel: str, text: str) -> str:
    """The cache key of formatting ``text`` (at relative path ``rel``, whose suffix picks the language) with
    ``tool`` (:func:`_format_tool`, the clang-format and style of the run): a SHA-256 in hex."""
    h = hashlib.sha256(tool)
    h.update(Path(rel).suffix.encode() + b"\0")
    h.update(text.encode())
    return h.hexdigest()


def _format_tool(binary: str, style: bytes) -> bytes:
    """What every key of one formatting run shares: the clang-format at ``binary`` (its path, size and
    modification time stand for its version) and the style file's bytes, as one digest (read once per run)."""
    st = os.stat(binary)
    h = hashlib.sha256()
    for part in (binary, str(st.st_size), str(st.st_mtime_ns)):
        h.update(part.encode() + b"\0")
    h.update(hashlib.sha256(style).digest())
    return h.digest()


def _cached_format(directory: Path, key: str) -> str | None:
    """The formatted text kept under ``key``, or None when there is none or the entry is damaged: an entry is
    the SHA-256 of the text on its first line, then the text, and one whose text does not match (truncated,
    edited) is not used (the file is formatted again and the entry rewritten)."""
    try:
        data = (directory / key[:2] / key).read_bytes()
    except OSError:
        return None
    digest, sep, body = data.partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    try:
        return body.decode()
    except UnicodeDecodeError:
        return None


def _keep_format(directory: Path, key: str, text: str) -> None:
    """Keeps ``text`` under ``key`` (written to a temporary file and renamed, so a reader sees a whole entry or
    none). The cache only saves time: a failure to write it is ignored."""
    body = text.encode()
    try:
        folder = directory / key[:2]
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=str(folder))
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(tmp, folder / key)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass


def format_cpp_files(texts: dict[str, str], style_file: Path) -> dict[str, str]:
    """Formats many C++ sources with one clang-format process and the project style.

    ``texts`` maps a relative path (its suffix picks the language, as ``--assume-filename`` would) to the
    source text; the result maps the same paths to the formatted text. A source formatted before with the
    same clang-format and style is taken from the cache's ``format/`` folder (``$OPGEN_CACHE_DIR``, see
    :func:`codegen.paths.configured_cache_dir`; an unusable cache is not used). The others are written to a
    private temporary directory, formatted in place by a single ``clang-format -i`` call and read back, so
    the cost is at most one process start for a whole generation, not one per file. Deterministic for equal
    input.

    Raises:
        RenderError: a path is absolute or escapes the temporary directory, clang-format is not installed, the
            style file cannot be read, or clang-format failed (its stderr, which names the file, is in the
            message).
    """
    if not texts:
        return {}
    for rel in texts:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise RenderError(f"clang-format: bad relative path {rel!r}")
    binary = clang_format_binary()
    try:
        style = style_file.read_bytes()
    except OSError as exc:
        raise RenderError(f"clang-format style: cannot read {style_file}: {exc.strerror or exc}") from None
    cache = configured_cache_dir()[0] / FORMAT_CACHE
    tool = _format_tool(binary, style)
    keys = {rel: _format_key(tool, rel, text) for rel, text in texts.items()}
    done: dict[str, str] = {}
    for rel, key in keys.items():
        hit = _cached_format(cache, key)
        if hit is not None:
            done[rel] = hit
    missing = {rel: text for rel, text in texts.items() if rel not in done}
    if missing:
        formatted = _run_clang_format(binary, missing, style_file)
        for rel, text in formatted.items():
            _keep_format(cache, keys[rel], text)
        done.update(formatted)
    return {rel: done[rel] for rel in texts}


def _run_clang_format(binary: str, texts: dict[str, str], style_file: Path) -> dict[str, str]:
    """One ``clang-format -i`` run over copies of ``texts`` (relative path -> text) in a private temporary
    directory; the formatted texts by the same paths.

    Raises:
        RenderError: a path escapes the temporary directory, or clang-format failed.
    """
    with tempfile.TemporaryDirectory(prefix="opgen-format-") as tmp:
        root = Path(tmp)
        targets: dict[str, Path] = {}
        for rel, text in texts.items():
            target = (root / rel).resolve()
            if Path(rel).is_absolute() or root.resolve() not in target.parents:
                raise RenderError(f"clang-format: bad relative path {rel!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode())
            targets[rel] = target
        proc = subprocess.run(
            [binary, f"--style=file:{style_file}", "-i", *(str(t) for t in targets.values())],
            capture_output=True,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )
        if proc.returncode != 0:
            raise RenderError(_format_failure(proc.stderr.decode(errors="replace"), style_file, root, len(texts)))
        return {rel: target.read_bytes().decode() for rel, target in targets.items()}


def style_problem(style_file: Path) -> str | None:
    """What is wrong with the clang-format configuration ``style_file``, as clang-format states it once
    (``.clang-format:13:11: Expected , between entries``, the path as given), or None when clang-format reads
    it. One ``clang-format --dump-config`` process; asked only after a formatting run failed.

    Raises:
        RenderError: clang-format is not installed.
    """
    proc = subprocess.run(
        [clang_format_binary(), "--dump-config", f"--style=file:{style_file}"],
        capture_output=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    if proc.returncode == 0:
        return None
    lines = [line.strip() for line in proc.stderr.decode(errors="replace").splitlines() if line.strip()]
    first = lines[0] if lines else f"clang-format exited with status {proc.returncode}"
    return re.sub(r": error: ", ": ", first, count=1).rstrip("!")


def _format_failure(stderr: str, style_file: Path, root: Path, count: int) -> str:
    """One line on a failed ``clang-format -i`` run over ``count`` files copied under ``root``: the style
    file's problem when the style is what failed (stated once, not once per file), else clang-format's first
    message line with the temporary directory taken out of the paths."""
    problem = style_problem(style_file)
    if problem is not None:
        return f"clang-format style: {problem}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = lines[0] if lines else "no message"
    for prefix in (str(root.resolve()) + os.sep, str(root) + os.sep):
        first = first.replace(prefix, "")
    return f"clang-format failed ({count} file(s) formatted together): {first}"


def format_cpp(text: str, style_file: Path, filename: str) -> str:
    """Formats one C++ ``text`` (named ``filename``, a relative path) with clang-format and the project style.

    Raises:
        RenderError: clang-format failed (its stderr is in the message).
    """
    return format_cpp_files({filename: text}, style_file)[filename]


#: A preprocessor ``#if`` whose condition is a constant: ``0``, ``1``, ``(0)``, ``!(0)``, ``!1``, ... (a planner
#: states "no product lacks the feature" as the condition ``0``), with an optional trailing ``//`` comment.
_CONSTANT_IF = re.compile(r"\s*#\s*if\s+(!?)\s*(\(?)\s*([01])\s*\)?\s*(?://.*)?$")
_DIRECTIVE = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")


def fold_constant_ifs(text: str) -> str:
    """``text`` (C++ source) with every ``#if`` on a constant condition resolved: the branch the constant
    selects kept without its directives, the other branch (``#else``/``#elif`` or the ``#if`` body) left out.
    A constant-false ``#if`` followed by ``#elif C`` keeps ``#if C`` and the rest of the chain. Other
    conditionals, nested or not, are kept as they are (a directive inside a left-out branch goes with it).
    Lines are compared one by one; a directive continued over lines (``\\``) is not constant here."""
    out: list[str] = []
    # one frame per open conditional: [constant, active (its current branch is kept), done (a branch was kept)]
    stack: list[list[bool]] = []
    for line in text.splitlines(keepends=True):
        live = all(active for constant, active, _ in stack if constant)
        directive = _DIRECTIVE.match(line)
        word = directive.group(1) if directive else ""
        constant_if = _CONSTANT_IF.match(line) if word == "if" else None
        if constant_if:
            value = (constant_if.group(3) == "1") != (constant_if.group(1) == "!")
            stack.append([True, value, value])
            continue
        if word in ("if", "ifdef", "ifndef"):
            stack.append([False, True, True])
        elif stack and stack[-1][0] and word in ("elif", "else"):
            frame = stack[-1]
            if frame[2]:
                frame[1] = False
            elif word == "else":
                frame[1] = frame[2] = True
            else:  # `#if 0 ... #elif C`: the chain goes on as `#if C`
                stack[-1] = [False, True, True]
                if all(active for constant, active, _ in stack[:-1] if constant):
                    out.append(re.sub(r"#(\s*)elif", r"#\1if", line, count=1))
            continue
        elif word == "endif" and stack and stack.pop()[0]:
            continue  # the end of a constant block
        if live:
            out.append(line)
    return "".join(out)


@dataclass(frozen=True)
class RenderedOp:
    """All files of one op: ``files`` maps paths relative to the op's folder to their text."""

    spec: OpSpec
    files: dict[str, str]
    templates: dict[str, str]


#: Most plan errors (a product whose resources cannot hold an op, ...) one render reports; the rest are counted.
MAX_PLAN_ERRORS = 10


def _located(spec: OpSpec, catalogue: Catalogue, exc: ValueError, failing: tuple[str, ...] = ()) -> SpecError:
    """A planner's ValueError as a SpecError at the catalogue entry of the product it names (a whole word of
    the message: ``Ascend910`` is not named by ``Ascend910B``), with the advice to change the catalogue or the
    op's products; a message about that product's UB when the op reserves UB bytes is at the spec's ``tiling``
    entry (the reserve takes part of it). A message that names no product is a fault of the op: at the op's
    spec, saying on which of its products (``failing``, the products whose planning raised it; empty or all:
    every product) it fails."""
    named = [
        i
        for i, p in enumerate(catalogue.products)
        if p.name in spec.products and re.search(rf"(?<![\w]){re.escape(p.name)}(?![\w])", str(exc))
    ]
    if named:
        i = named[0]
        reserved = spec.tiling.ub_reserved_bytes
        if reserved > 0 and re.search(r"\bUB\b", str(exc)):  # the op's reserve takes part of that UB
            product = catalogue.products[i]
            return SpecError(
                spec.tiling.loc,
                "tiling.ub_reserved_bytes",
                f"{exc} with {reserved} of its {product.ub_bytes} UB bytes reserved; lower the reserve, or change "
                "the product catalogue or the op's products",
            )
        loc, field = catalogue.products[i].loc, f"products[{i}]"
        return SpecError(loc, field, f"{exc} ({spec.path}); change the product catalogue or the op's products")
    if not failing or set(failing) == set(spec.products):
        return SpecError(spec.loc, "op", f"{exc}; change the op's spec (the same on every product of the op)")
    return SpecError(
        spec.loc,
        "products",
        f"{exc} (on {', '.join(failing)}); change the op's spec, the product catalogue or the op's products",
    )


def _build_views(family: registry.Family, spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """The family validates ``spec`` at plan time, then builds its views.

    Raises:
        SpecErrors: a planner's ValueError (e.g. a product whose UB cannot hold one tile of the op) for every
            product of the op that fails, each at the catalogue entry of the product it names: the op is
            planned once per product to find them all. An error that names no product is reported once, at
            the op's spec (:func:`_located`).
        SpecError: the family's own located error (e.g. a formula without vector instructions).
    """
    try:
        family.validate(spec, catalogue)
        return family.build_views(spec, catalogue)
    except ValueError as exc:
        first = _located(spec, catalogue, exc)
    failures: dict[str, tuple[ValueError, list[str]]] = {}  # by message: one error, the products raising it
    if len(spec.products) > 1:
        for name in spec.products:
            one = dataclasses.replace(spec, products=(name,))
            try:
                family.validate(one, catalogue)
                family.build_views(one, catalogue)
            except ValueError as exc:
                failures.setdefault(str(exc), (exc, []))[1].append(name)
            except (SpecError, SpecErrors):
                continue  # not a resource error of this product: the first error stands for the op
    errors = [_located(spec, catalogue, exc, tuple(names)) for exc, names in failures.values()]
    raise SpecErrors(errors or [first])


def render_ops(
    specs: Sequence[OpSpec], catalogue: Catalogue, paths: ProjectPaths, env: jinja2.Environment | None = None
) -> list[RenderedOp]:
    """Renders every file of each spec in ``specs`` (results in the same order); the C++ files of all of
    them are formatted by one clang-format process (:func:`format_cpp_files`).

    Each file is rendered from the typed view of its kind (:meth:`codegen.plan.views.OpViews.view_for`):
    the template sees the view's fields and ``file_kind``, nothing else.

    Raises:
        RenderError: unknown family, a family whose view of a kind is not that kind's frozen view dataclass,
            a template error (with op, template name and line), or clang-format failure.
        SpecErrors: plan errors (:func:`_build_views`) of every op, ordered by file and line: the first
            :data:`MAX_PLAN_ERRORS` and the count of the others (``omitted``); nothing is rendered.
    """
    env = env or make_environment(paths.templates)
    pending: list[tuple[OpSpec, dict[str, str], dict[str, str]]] = []
    cpp: dict[str, str] = {}
    plan_errors: list[SpecError] = []
    for spec in specs:
        try:
            family = registry.family(spec.family)
        except registry.UnknownFamily as exc:
            raise RenderError(f"{spec.path}: {exc.args[0]}") from exc
        if spec.example is None:
            # every op folder holds a runnable example program, built from the spec's example call
            plan_errors.append(
                SpecError(
                    spec.loc,
                    "example",
                    "the spec has no example; `opgen generate` builds the op's example program from it "
                    "(docs/spec.md: example): give its input shapes, dtypes and values, attrs and output",
                )
            )
            continue
        try:
            views = _build_views(family, spec, catalogue)
        except SpecErrors as exc:
            plan_errors.extend(exc.errors)
            continue
        except SpecError as exc:
            plan_errors.append(exc)
            continue
        if plan_errors:
            continue  # nothing is written: plan the remaining ops only to report their errors too
        files: dict[str, str] = {}
        used: dict[str, str] = {}
        for kind, rel in views.files.items():
            if rel in used:  # the loader refuses such names; never let one file silently replace another
                other = next(k for k, r in views.files.items() if r == rel)
                raise RenderError(f"{spec.op}: {rel} is both the {other} and the {kind} file; nothing was written")
            name = template_for(env, spec.family, kind)
            try:
                view = views.view_for(kind)
            except TypeError as exc:
                raise RenderError(f"{spec.op}: family '{spec.family}': {exc}") from exc
            try:
                text = env.get_template(name).render(**view.context(), file_kind=kind)
            except jinja2.TemplateError as exc:
                lineno = getattr(exc, "lineno", None)
                where = f"{name}:{lineno}" if lineno else name
                raise RenderError(f"{spec.op}: template {where}: {exc}") from exc
            if rel.endswith((".cpp", ".h")):
                text = fold_constant_ifs(text)
                cpp[f"{spec.folder}/{rel}"] = text
            else:
                text = "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"
            files[rel] = text
            used[rel] = name
        pending.append((spec, files, used))
    if plan_errors:
        ordered = sorted(plan_errors, key=lambda e: (e.loc.file, e.loc.line))
        raise SpecErrors(ordered[:MAX_PLAN_ERRORS], omitted=max(0, len(ordered) - MAX_PLAN_ERRORS))
    formatted = format_cpp_files(cpp, paths.clang_format)
    out: list[RenderedOp] = []
    for spec, files, used in pending:
        for rel in files:
            key = f"{spec.folder}/{rel}"
            if key in formatted:
                files[rel] = formatted[key]
        out.append(RenderedOp(spec, files, used))
    return out


def render_op(
    spec: OpSpec, catalogue: Catalogue, paths: ProjectPaths, env: jinja2.Environment | None = None
) -> RenderedOp:
    """Renders every file of ``spec`` (see :func:`render_ops`).

    Raises:
        RenderError: unknown family, a template error (with template name and line), or clang-format failure.
    """
    return render_ops([spec], catalogue, paths, env)[0]


#: Per environment: template name -> the names it extends, includes or imports directly (parsing a template
#: costs milliseconds; a generation asks for the closure of every output file).
_DIRECT_REFS: weakref.WeakKeyDictionary[jinja2.Environment, dict[str, tuple[str, ...]]] = weakref.WeakKeyDictionary()


def _direct_refs(env: jinja2.Environment, name: str) -> tuple[str, ...]:
    from jinja2 import meta

    cache = _DIRECT_REFS.setdefault(env, {})
    if name not in cache:
        assert env.loader is not None
        source, _, _ = env.loader.get_source(env, name)
        cache[name] = tuple(ref for ref in meta.find_referenced_templates(env.parse(source)) if ref)
    return cache[name]


def template_closure(env: jinja2.Environment, name: str) -> tuple[str, ...]:
    """``name`` and every template it extends, includes or imports, recursively (sorted).

    Each template is parsed once per environment; a template edited after that is seen by a new environment
    (every ``opgen generate`` makes one).
    """
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_direct_refs(env, current))
    return tuple(sorted(seen))
