"""Reading a document, choosing its format, and writing the starter spec (nothing on any error)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from codegen.aclnn_doc.common import Products
from codegen.aclnn_doc.emit import Written, emit_spec
from codegen.aclnn_doc.markdown_doc import parse_markdown_doc
from codegen.aclnn_doc.model import ApiDoc, DocError, OutputError, Question
from codegen.aclnn_doc.text_doc import looks_like_text_doc, parse_text_doc
from codegen.inputs import InputFileError, read_input_bytes
from codegen.spec.model import Catalogue, snake_case
from codegen.spec.naming import is_upper_camel
from codegen.writer import write_atomic

__all__ = ["MAX_DOC_BYTES", "ImportResult", "import_doc", "read_doc"]

#: Largest document read, in bytes. ops-nn's aclnn documents are 10-40 KB with their example program; a
#: larger file is not one (and would only cost time).
MAX_DOC_BYTES = 1 << 20


@dataclass(frozen=True)
class ImportResult:
    """What ``opgen import`` did: the spec written, the document read and each question as
    ``(spec line, question)``."""

    path: Path
    doc: ApiDoc
    questions: tuple[tuple[int, Question], ...]


def read_doc(path: Path) -> str:
    """The text of a document, ``\\n`` line ends.

    Raises:
        DocError: unreadable or not a regular file (a FIFO, a device: :func:`codegen.inputs.read_input_bytes`), empty,
            larger than :data:`MAX_DOC_BYTES`, binary (a NUL byte) or not UTF-8
            (each at the line of the first offending byte).
    """
    file = str(path)
    try:
        raw = read_input_bytes(path, MAX_DOC_BYTES)
    except InputFileError as exc:
        raise DocError(file, 1, f"cannot read the document: {exc.reason}") from None
    if not raw.strip():
        raise DocError(file, 1, "the document is empty")
    nul = raw.find(b"\0")
    if nul >= 0:
        raise DocError(file, raw.count(b"\n", 0, nul) + 1, "binary file (a NUL byte); expected an aclnn document")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DocError(file, line, f"not UTF-8 text (byte {raw[exc.start]:#04x}); expected an aclnn document") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_doc(path: Path, catalogue: Catalogue) -> ApiDoc:
    """Reads a document in either format (the English rendering when it has ``•`` bullets and no HTML
    table or code block, else ops-nn Markdown).

    Raises:
        DocError: see :func:`read_doc`, :func:`~codegen.aclnn_doc.text_doc.parse_text_doc` and
            :func:`~codegen.aclnn_doc.markdown_doc.parse_markdown_doc`; an op name that is not UpperCamelCase.
    """
    text = read_doc(path)
    products = Products(catalogue)
    if looks_like_text_doc(text):
        doc = parse_text_doc(text, str(path), products)
    else:
        doc = parse_markdown_doc(text, str(path), products)
    doc.left_out_products = list(products.left_out)
    if not is_upper_camel(doc.op):
        raise DocError(str(path), doc.op_line, f"aclnn name 'aclnn{doc.op}' is not aclnn + UpperCamelCase")
    return doc


def import_doc(
    doc_path: Path,
    catalogue: Catalogue,
    families: tuple[str, ...],
    specs_dir: Path,
    out: Path | None = None,
    family: str | None = None,
    force: bool = False,
) -> ImportResult:
    """Writes the starter spec of an aclnn document.

    Args:
        doc_path: the document (English rendering or ops-nn Markdown).
        catalogue: the product catalogue whose ``doc_term``/``doc_aliases`` map the document's products.
        families: the registered op families (``--family`` must be one).
        specs_dir: where the spec goes without ``out`` (as ``<snake_case(op)>.yaml``).
        out: the spec file to write, or None.
        family: the op family, or None (then the spec asks for it).
        force: overwrite an existing spec file.

    Returns:
        The file written, the document read and the questions with their spec lines.

    Raises:
        DocError: the document cannot be read (nothing is written) or ``--family`` is unknown.
        OutputError: the spec cannot go to its path: it exists and ``force`` is off, it is no regular file (a
            directory, ``/dev/null``), its folder is missing or the write fails (nothing is written).
    """
    if family is not None and family not in families:
        raise DocError(str(doc_path), 1, f"unknown family '{family}'; families: {', '.join(families)}")
    if out is not None:  # a wrong --out is reported before the document is read
        _check_target(out, force)
    doc = parse_doc(doc_path, catalogue)
    written: Written = emit_spec(doc, catalogue, family, families)
    target = out if out is not None else specs_dir / f"{snake_case(doc.op)}.yaml"
    _check_target(target, force)
    try:
        write_atomic(target, written.text)
    except OSError as exc:
        raise OutputError(str(target), f"cannot write the spec: {exc.strerror or exc}; nothing was written") from None
    return ImportResult(target, doc, tuple(written.questions))


def _check_target(target: Path, force: bool) -> None:
    """Raises :class:`OutputError` when the spec cannot be written to ``target``."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise OutputError(str(target), "its folder does not exist; nothing was written") from None
        return
    except OSError as exc:
        raise OutputError(str(target), f"cannot use it: {exc.strerror or exc}; nothing was written") from None
    if stat.S_ISDIR(mode):
        raise OutputError(str(target), "is a directory, not a spec file; nothing was written")
    if not stat.S_ISREG(mode):
        raise OutputError(str(target), "is not a regular file (a device, FIFO or socket); nothing was written")
    if not force:
        raise OutputError(str(target), "the spec file exists; nothing was written (--force overwrites it)")
