"""Where the project's data lives: specs, templates, runtime sources, references and generated output.

Two layouts are supported. In a source checkout (the directory holding ``specs/products.yaml``,
``templates/`` and ``runtime/``) everything is read from the checkout, and ``generated/`` is the committed
output. In a wheel install the same directories are shipped inside the package as ``codegen/_data/``.
``OPGEN_ROOT`` overrides the search and names a checkout explicitly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_MARKERS = ("specs/products.yaml", "templates", "runtime/include")


def _is_root(path: Path) -> bool:
    return all((path / marker).exists() for marker in _MARKERS)


@dataclass(frozen=True)
class ProjectPaths:
    """Absolute locations of the project's data directories.

    Attributes:
        root: the checkout, or the package's ``_data`` directory for a wheel install.
        specs: op specs and ``products.yaml``.
        templates: Jinja2 templates.
        runtime: the C++ host emulation (``include/`` and ``src/``).
        reference: NumPy reference modules, one per op.
        generated: the generated tree checked by default.
        clang_format: the ``.clang-format`` style file applied to generated C++.
        is_checkout: True for a source checkout, False for an installed package.
    """

    root: Path
    specs: Path
    templates: Path
    runtime: Path
    reference: Path
    generated: Path
    clang_format: Path
    is_checkout: bool


def _from_root(root: Path, is_checkout: bool) -> ProjectPaths:
    return ProjectPaths(
        root=root,
        specs=root / "specs",
        templates=root / "templates",
        runtime=root / "runtime",
        reference=root / "reference",
        generated=root / "generated",
        clang_format=root / ".clang-format",
        is_checkout=is_checkout,
    )


def project_paths() -> ProjectPaths:
    """Finds the project data: ``$OPGEN_ROOT``, else the checkout this package runs from, else ``_data``.

    Raises:
        FileNotFoundError: no checkout and no packaged data were found (a broken install).
    """
    env = os.environ.get("OPGEN_ROOT")
    if env:
        root = Path(env).resolve()
        if not _is_root(root):
            raise FileNotFoundError(f"OPGEN_ROOT={env} does not hold specs/products.yaml, templates/ and runtime/")
        return _from_root(root, True)
    here = Path(__file__).resolve().parent
    checkout = here.parent
    if _is_root(checkout):
        return _from_root(checkout, True)
    data = here / "_data"
    if _is_root(data):
        return _from_root(data, False)
    raise FileNotFoundError(f"ascend-opgen data not found next to {here}: reinstall the package")


def reference_dir_for(specs_dir: str | Path | None) -> Path:
    """The reference directory that belongs to a spec directory: ``<specs_dir>/../reference``.

    ``None`` (the project's specs) gives the project's ``reference/``. ``opgen new`` writes reference stubs
    there and ``opgen check`` imports references from there, so an out-of-tree spec directory keeps its
    references next to it.
    """
    if specs_dir is None:
        return project_paths().reference
    return Path(specs_dir).parent / "reference"


def generated_dir_for(specs_dir: str | Path) -> Path:
    """The generated tree that belongs to a spec directory other than the project's: ``<specs_dir>/../generated``
    (beside its ``reference/``). ``opgen --specs DIR generate`` writes there unless ``--out`` says otherwise, so a
    scratch spec directory never rewrites the project's ``generated/``."""
    return Path(specs_dir).parent / "generated"


#: File name suffixes of op specs (``.yml`` is the same YAML, as users write it).
SPEC_SUFFIXES = (".yaml", ".yml")
#: Catalogue file names that are never op specs.
CATALOGUE_NAMES = ("products.yaml", "products.yml")


def is_editor_artifact(name: str) -> bool:
    """Whether a file name is a hidden file or an editor's lock, backup or autosave file, never a spec:
    ``.x.yaml`` (hidden; vim's ``.x.yaml.swp``; Emacs's lock ``.#x.yaml``), ``x.yaml~`` and ``#x.yaml#``."""
    return name.startswith((".", "#")) or name.endswith(("~", "#"))


def resolved_path(path: Path) -> Path:
    """``path`` with its symlinks resolved, or its absolute form when they cannot be (a symlink loop: reading
    the file later reports the loop as an unreadable file, one line naming it, instead of a traceback here)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def spec_files(directory: Path, catalogue: Path | None = None) -> list[Path]:
    """The op spec files of ``directory``, sorted by name: every ``*.yaml`` and ``*.yml`` except the
    catalogue (``products.yaml``/``products.yml`` or the file ``catalogue``), hidden files and editor
    artifacts (:func:`is_editor_artifact`). Two files with one stem (``x.yaml`` and ``x.yml``) are both
    returned; the loader reports the clash."""
    skip = resolved_path(catalogue) if catalogue is not None else None
    found = []
    for path in sorted(directory.iterdir()) if directory.is_dir() else []:
        if path.suffix not in SPEC_SUFFIXES or path.name in CATALOGUE_NAMES or is_editor_artifact(path.name):
            continue
        if skip is not None and resolved_path(path) == skip:
            continue
        found.append(path)
    return found


def configured_cache_dir() -> tuple[Path, str]:
    """Where the cache is configured to be, absolute, and how it was chosen (for messages): ``$OPGEN_CACHE_DIR``
    (a relative one is taken from the working directory once, so paths printed and handed to the compiler stay
    valid wherever they are used), else ``$XDG_CACHE_HOME/ascend-opgen`` when that is absolute (a relative
    ``XDG_CACHE_HOME`` is ignored, as the XDG Base Directory specification says), else
    ``~/.cache/ascend-opgen``. Nothing is created or checked here (:func:`codegen.build.cache.cache_dir` does)."""
    env = os.environ.get("OPGEN_CACHE_DIR")
    if env:
        return Path(env).expanduser().absolute(), "OPGEN_CACHE_DIR"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "ascend-opgen", "the default build cache"
