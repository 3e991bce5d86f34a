"""The generation manifest: for every generated file, a hash of everything it came from.

``<out>/.opgen-manifest.json`` records, per output file, the inputs it was rendered from (the spec file, the
product catalogue, the templates it used including those they extend or import, the ``.clang-format`` style,
the generator's own source and version, and the template engine's and formatter's versions) with a combined
input hash, and the hash of the text written. A later ``opgen generate`` skips every
file whose inputs and on-disk text are unchanged, without parsing a spec or starting Jinja. The manifest is a
cache: deleting it only makes the next run render everything.
"""

from __future__ import annotations

import errno
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import codegen
from codegen.inputs import InputFileError, read_input_bytes, read_input_text

MANIFEST_NAME = ".opgen-manifest.json"
_FORMAT = 1
#: Largest manifest read (bytes): a record is about 500 bytes, so this holds a hundred thousand output files.
MAX_MANIFEST_BYTES = 64 << 20
#: Largest input or output file hashed (bytes); a larger one (or one that is not a regular file) hashes as
#: ``"unreadable"``, which matches no record, so what depends on it is rendered again (and the loader or
#: writer then reports the file).
MAX_HASHED_BYTES = 64 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_hash(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read by :func:`codegen.inputs.read_input_bytes`: ``"missing"`` when it
    does not exist, ``"unreadable"`` when it is not a regular file of at most :data:`MAX_HASHED_BYTES` bytes
    (a FIFO or device is never read)."""
    try:
        return sha256_bytes(read_input_bytes(path, MAX_HASHED_BYTES))
    except InputFileError as exc:
        return "missing" if exc.errno == errno.ENOENT else "unreadable"


@lru_cache(maxsize=1)
def generator_version() -> str:
    """The package version plus a hash of the generator's Python source (any change re-renders everything)."""
    root = Path(codegen.__file__).resolve().parent
    h = hashlib.sha256(codegen.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:32]


#: The packages whose code shapes the generated text besides the generator's own: the template engine and the
#: formatter (a clang-format release formats differently).
RENDERING_PACKAGES = ("jinja2", "clang-format")


@lru_cache(maxsize=1)
def rendering_versions() -> str:
    """The installed versions of :data:`RENDERING_PACKAGES` (``name=version;``, ``name=none`` when missing),
    read from the packages' metadata without importing them."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in RENDERING_PACKAGES:
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=none")
    return ";".join(found)


@dataclass(frozen=True)
class FileRecord:
    """One output file: ``spec`` and ``catalogue`` paths relative to their roots, ``templates`` (relative to
    the template directory, dependencies included), the combined ``input_hash`` and the ``output_hash``."""

    spec: str
    templates: tuple[str, ...]
    input_hash: str
    output_hash: str


def input_hash(
    spec_files: list[Path], catalogue_file: Path, templates_dir: Path, templates: tuple[str, ...], style_file: Path
) -> str:
    """The combined hash of everything one output is made from: its spec files, the catalogue, its templates
    (with those they extend, include or import), the formatter's configuration ``style_file``
    (``.clang-format``), the generator's source and version (:func:`generator_version`) and the versions of
    the packages that render and format (:func:`rendering_versions`). The reference modules are not among
    them: ``opgen check`` reads them, generation never does."""
    h = hashlib.sha256(generator_version().encode())
    h.update(rendering_versions().encode())
    h.update(b"style")
    h.update(file_hash(style_file).encode())
    for spec_file in spec_files:
        h.update(spec_file.name.encode())
        h.update(file_hash(spec_file).encode())
    h.update(file_hash(catalogue_file).encode())
    for name in templates:
        h.update(name.encode())
        h.update(file_hash(templates_dir / name).encode())
    return h.hexdigest()


class ManifestError(Exception):
    """The manifest exists but cannot be used (not JSON, or not the structure :func:`save_manifest` writes)."""


def load_manifest(out: Path) -> dict[str, FileRecord]:
    """The manifest of ``out`` by output path (empty when missing or of another format version).

    Raises:
        ManifestError: the file is unreadable (:func:`codegen.inputs.read_input_text`: not a regular file, over
            :data:`MAX_MANIFEST_BYTES`), not JSON, or its entries are malformed (the message names the
            file and the problem; callers treat the manifest as absent and render everything).
    """
    path = out / MANIFEST_NAME
    if not path.exists() and not path.is_symlink():
        return {}
    try:
        data = json.loads(read_input_text(path, MAX_MANIFEST_BYTES))
    except InputFileError as exc:
        raise ManifestError(f"{path}: unreadable ({exc.reason})") from exc
    except ValueError as exc:
        raise ManifestError(f"{path}: unreadable ({type(exc).__name__}: {exc})") from exc
    except RecursionError:  # valid JSON nested deeper than the decoder's recursion limit ([[[[...)
        raise ManifestError(f"{path}: unreadable (JSON nested too deeply)") from None
    if isinstance(data, dict) and data.get("format") != _FORMAT and "format" in data:
        return {}  # another format version: a cache miss, not an error
    try:
        records = {}
        for rel, r in data["files"].items():
            if not isinstance(rel, str):
                raise TypeError(f"output path {rel!r} is not a string")
            parts = rel.split("/")
            if rel.startswith("/") or "\\" in rel or any(part in ("", ".", "..") for part in parts):
                raise ValueError(f"output path {rel!r} is not a plain relative path inside the output directory")
            templates = r["templates"]
            if not isinstance(templates, list) or not all(isinstance(t, str) for t in templates):
                raise TypeError(f"{rel}: templates must be a list of strings")
            fields = (r["spec"], r["input_hash"], r["output_hash"])
            if not all(isinstance(f, str) for f in fields):
                raise TypeError(f"{rel}: spec, input_hash and output_hash must be strings")
            records[rel] = FileRecord(fields[0], tuple(templates), fields[1], fields[2])
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ManifestError(f"{path}: malformed ({type(exc).__name__}: {exc})") from exc
    return records


def save_manifest(out: Path, records: dict[str, FileRecord]) -> bool:
    """Writes the manifest (sorted, no timestamps or absolute paths, so it is deterministic) unless the file
    already holds these bytes (an up-to-date read-only output directory stays untouched). Returns whether it
    wrote.

    Raises:
        OSError: the manifest could not be written.
    """
    from codegen.writer import write_atomic

    data = {
        "format": _FORMAT,
        "files": {
            rel: {
                "spec": r.spec,
                "templates": list(r.templates),
                "input_hash": r.input_hash,
                "output_hash": r.output_hash,
            }
            for rel, r in sorted(records.items())
        },
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    path = out / MANIFEST_NAME
    if file_hash(path) == sha256_bytes(text.encode("utf-8")):
        return False
    write_atomic(path, text)
    return True
