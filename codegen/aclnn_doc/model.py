"""What ``opgen import`` reads from an aclnn API document, before it becomes a starter spec.

Both document formats (:mod:`codegen.aclnn_doc.text_doc`, :mod:`codegen.aclnn_doc.markdown_doc`) fill one
:class:`ApiDoc`; :mod:`codegen.aclnn_doc.emit` writes it as a spec. Every fact keeps the document line it
came from, so a question in the spec names its line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ApiDoc", "DocConstraint", "DocError", "DocParam", "DtypeRule", "OutputError", "Question"]


class DocError(Exception):
    """A document ``opgen import`` cannot turn into a spec at all.

    Attributes:
        file: the document's path as given.
        line: 1-based line of the problem (1 for a problem of the whole file).
        message: what is wrong and, where it helps, what was expected.

    ``str(error)`` is ``f"{file}:{line}: {message}"``.
    """

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(file, line, message)
        self.file = file
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class OutputError(Exception):
    """The starter spec cannot be written where it should go (``--out`` or ``specs/<op>.yaml``): a problem
    of that path, not of the document. Nothing is written.

    Attributes:
        path: the spec path as given.
        message: what is wrong with it.

    ``str(error)`` is ``f"{path}: {message}"``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Question:
    """Something the document does not say (or says in a damaged passage) that the spec needs.

    Attributes:
        line: the document line it is about (the nearest one when the document is silent).
        text: the question, one line.
        proposal: a YAML value the importer would pick ("" for none); the user confirms or replaces it.
    """

    line: int
    text: str
    proposal: str = ""


@dataclass(frozen=True)
class DtypeRule:
    """One dtype statement of a tensor: ``products`` (catalogue names; empty: every product) may hold
    ``dtypes`` (spec names, in the document's order), or with ``remove`` may not."""

    products: tuple[str, ...]
    dtypes: tuple[str, ...]
    line: int
    remove: bool = False


@dataclass
class DocParam:
    """One phase-1 parameter of the aclnn API (``workspaceSize`` and ``executor`` are not kept).

    Attributes:
        name: the C name, or None where the document's text is damaged.
        ctype: the C type as the document writes it, spaces normalised (``const aclTensor*``, ``int64_t``).
        kind: ``input``, ``output`` (aclTensor parameters) or ``attr``.
        attr_type: for attrs the spec's type (``int64 uint64 bool double float scalar string int_array
            bool_array``).
        line: the document line of the parameter's entry.
        description: the first sentence of its description (may be "").
        const: for outputs, whether the prototype declares it ``const aclTensor *``; None when not written.
        optional: an optional input (``...Optional`` name, or the document says so).
        dtype_rules: what the document says of its dtypes.
        formats: the storage formats it names, and their line; None when it names none.
        rank: ``(lo, hi)`` and its line, or None.
        values: an attr's value set: ``[(int, name)]`` or ``[str]`` (string attrs), with its line; or None.
        values_question: an integer attr's value list that could not be read exactly (the question), or "".
        default: an attr's documented default (YAML text) or None.
        shape: an output's shape rule (spec expression) or None.
        damaged: the document's entry holds a damaged passage.
        dtype_words: the document's data types in words rather than a list (``与self保持一致``), or "".
        skipped_dtypes: CANN data types the document lists that no spec dtype names (``COMPLEX64``): left
            out of the spec, and said so in a comment.
        is_list: an ``aclTensorList *`` parameter (a spec tensor with ``list: true``).
        header_name: the document's (CANN's) name where ``name`` had to differ from it (a Python keyword:
            :func:`codegen.aclnn_doc.common.spec_param_name`), else "".
    """

    name: str | None
    ctype: str
    kind: str
    attr_type: str | None
    line: int
    description: str = ""
    const: bool | None = None
    optional: bool = False
    dtype_rules: list[DtypeRule] = field(default_factory=list)
    formats: tuple[tuple[str, ...], int] | None = None
    rank: tuple[tuple[int, int], int] | None = None
    values: tuple[list[tuple[int, str]] | list[str], int] | None = None
    values_question: str = ""
    default: str | None = None
    shape: str | None = None
    damaged: bool = False
    dtype_words: str = ""
    header_name: str = ""
    skipped_dtypes: list[str] = field(default_factory=list)
    is_list: bool = False


@dataclass
class DocConstraint:
    """A documented limit that is a status rule: phase 1 refuses a call where ``require`` is false.

    Attributes:
        line: the line of the formula (or sentence) it comes from.
        products: catalogue names it applies to (empty: every product of the op).
        when: spec conditions read from the document, joined with ``and``.
        when_question: a condition the document states in words that could not be read, or None.
        lets: ``(name, expression or None, line, context)`` definitions in order; None when it could not be
            read (a question quoting ``context``).
        require: the spec expression that must hold, or None where the formula could not be read (a
            question quoting ``text``).
        text: the document's words for it (for the message).
    """

    line: int
    products: tuple[str, ...]
    when: list[str]
    when_question: Question | None
    lets: list[tuple[str, str | None, int, str]]
    require: str | None
    text: str


@dataclass
class ApiDoc:
    """Everything read from one document.

    Attributes:
        path: the document's path as given.
        op: the aclnn name without ``aclnn``; op_line its line.
        params: phase-1 parameters in C order.
        products: catalogue names the op supports, in catalogue order, and the line of the support list
            (0 when the document has none and the products were taken from the terms it names).
        summary: the operator's description (one paragraph) and its line; damaged when it holds damage.
        deterministic: True/False when the document says, else None; deterministic_line its line.
        constraints: status rules read from the constraints section.
        limits: ``(line, text)`` documented limits that are no status rule (precision, performance).
        statuses: ``(line, code, name, description)`` rows of the error-code table.
        folder: the ops-nn op folder the document links to as its source (``soft_margin_loss_grad``), and its
            line; ("", 0) when it links none.
        left_out_products: ``(line, term)`` of the product terms the document names for products the
            catalogue does not describe (its ``uncatalogued_doc_terms``), left out of the spec.
    """

    path: str
    op: str
    op_line: int
    params: list[DocParam]
    products: tuple[tuple[str, ...], int]
    summary: tuple[str, int, bool]
    deterministic: tuple[bool | None, int] = (None, 0)
    constraints: list[DocConstraint] = field(default_factory=list)
    limits: list[tuple[int, str]] = field(default_factory=list)
    statuses: list[tuple[int, int, str, str]] = field(default_factory=list)
    folder: tuple[str, int] = ("", 0)
    left_out_products: list[tuple[int, str]] = field(default_factory=list)
