"""Writes an :class:`~codegen.aclnn_doc.model.ApiDoc` as a starter spec (YAML text).

What the document says is written as spec values; what it does not say (or says in a damaged passage) is
a question: a comment ``# QUESTION(doc line N): ...`` on the line above the key and, as the key's value, the
placeholder string ``"QUESTION(doc line N): ...; proposed: <value>"``, which the spec loader refuses
(:data:`codegen.spec.yaml_reader.QUESTION_RE`) until the user writes the answer in its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codegen.aclnn_doc.common import quoted
from codegen.aclnn_doc.model import ApiDoc, DocConstraint, DocParam, Question
from codegen.spec.model import MAX_RANK, Catalogue, snake_case
from codegen.types import ARRAY_ATTR_TYPES, AclnnStatus, DType

__all__ = ["Written", "emit_spec"]

#: Tiling choices are the op's, not the document's: the starter takes the values ``opgen new`` starters use.
_TILING = (
    "tiling:                              # the op's own choices (not in the document)\n"
    "  buffer_num: 2\n  ub_reserved_bytes: 0\n  min_bytes_per_core: 32768"
)
#: Status codes every spec has without saying so: null pointers and invalid parameters (README "The spec").
_IMPLICIT_STATUSES = frozenset({int(AclnnStatus.ACLNN_ERR_PARAM_NULLPTR), int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)})


@dataclass
class Written:
    """The starter spec: its text and each question with the spec line it is at (1-based)."""

    text: str
    questions: list[tuple[int, Question]] = field(default_factory=list)


def _q(text: str) -> str:
    """A YAML double-quoted scalar on one line (JSON's string syntax is YAML's; :func:`quoted`)."""
    return quoted(text)


#: What would end a YAML comment line early or make the file unreadable (line breaks, control characters).
_COMMENT_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _number(text: str) -> str:
    """A documented default as a YAML number every YAML reader takes as one (``1e-6`` -> ``1.0e-06``: YAML
    1.1 readers need the dot), or ``true``/``false``."""
    if text in ("true", "false"):
        return text
    value = float(text)
    if value.is_integer() and re.fullmatch(r"[-+]?[0-9]+", text):
        return str(int(value))
    mantissa, _, exponent = repr(value).partition("e")
    return f"{mantissa if '.' in mantissa else mantissa + '.0'}{'e' + exponent if exponent else ''}"


def _flow(items: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join(items) + "]"


class _Out:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.questions: list[tuple[int, Question]] = []

    def add(self, text: str) -> None:
        self.lines.extend(text.split("\n"))

    def ask(self, indent: str, key: str, q: Question) -> None:
        head = f"QUESTION(doc line {q.line}): {q.text}"
        comment = _COMMENT_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", head)
        self.lines.append(f"{indent.replace('-', ' ')}# {comment}")
        value = f"{head}; proposed: {q.proposal}" if q.proposal else head
        self.lines.append(f"{indent}{key}: {_q(value)}")
        self.questions.append((len(self.lines), q))


def _label(p: DocParam) -> str:
    return f"'{p.name}'" if p.name else f"the {p.ctype} parameter"


def _dtypes(out: _Out, indent: str, p: DocParam, products: tuple[str, ...], catalogue: Catalogue) -> None:
    if p.skipped_dtypes:
        out.add(
            f"{indent.replace('-', ' ')}# the document also lists {', '.join(p.skipped_dtypes)}: no spec dtype "
            "names them (opgen does not compute them), so they are left out"
        )
    if p.dtype_words:
        words = " ".join(p.dtype_words.split())
        out.ask(indent, "dtypes", Question(p.line, f"the data types of {_label(p)} are given in words: '{words}'"))
        return
    if not p.dtype_rules:
        out.ask(indent, "dtypes", Question(p.line, f"the document gives no data types of {_label(p)}"))
        return
    per: dict[str, list[str]] = {}
    for prod in products:
        have: list[str] = []
        for rule in p.dtype_rules:
            if not rule.remove and (not rule.products or prod in rule.products):
                have.extend(d for d in rule.dtypes if d not in have)
        for rule in p.dtype_rules:
            if rule.remove and prod in rule.products:
                have = [d for d in have if d not in rule.dtypes]
        per[prod] = have
    union: list[str] = []
    for rule in p.dtype_rules:
        union.extend(d for d in rule.dtypes if d not in union and not rule.remove)
    line = p.dtype_rules[0].line
    for prod in products:
        derived = [d for d in union if catalogue.get(prod).supports(DType[d])]
        # a dtype the product lacks (BF16 without bf16) is dropped there by the spec as by the hardware; a
        # documented list narrower than the derivation is what a spec's dtypes cannot say
        if set(derived) - set(per[prod]):
            out.ask(
                indent,
                "dtypes",
                Question(
                    line,
                    f"on {prod} the document lists {_flow(per[prod] or ['none'])} for {_label(p)}, but a spec's "
                    f"dtypes give {_flow(derived)} there (each product keeps what it supports): narrow the op's "
                    "products, or list the combinations with dtype_combos (where the family takes it)",
                    _flow(union),
                ),
            )
            return
    out.add(f"{indent}dtypes: {_flow(union)}")


def _tensor(out: _Out, p: DocParam, doc: ApiDoc, catalogue: Catalogue) -> None:
    ind = "    "
    if p.name is None:
        out.ask("  - ", "name", Question(p.line, f"the parameter's name is damaged in the document ({p.ctype})"))
    else:
        out.add(f"  - name: {p.name}")
    if p.header_name:
        out.add(f"    header_name: {p.header_name}   # the document's (CANN's) name, which a spec cannot use")
    if p.is_list:
        out.add(f"{ind}list: true   # an aclTensorList (a family with tensor lists takes it)")
    _dtypes(out, ind, p, doc.products[0], catalogue)
    if p.rank and 0 <= p.rank[0][0] <= p.rank[0][1] <= MAX_RANK:
        out.add(f"{ind}rank: [{p.rank[0][0]}, {p.rank[0][1]}]")
    elif p.rank:
        lo, hi = p.rank[0]
        out.ask(
            ind,
            "rank",
            Question(
                p.rank[1],
                f"the document gives the rank range {lo}-{hi} of {_label(p)}, which is not one a tensor can have "
                f"(need 0 <= lo <= hi <= {MAX_RANK}); write [lo, hi]",
            ),
        )
    else:
        out.ask(ind, "rank", Question(p.line, f"the document gives no rank range of {_label(p)}; write [lo, hi]"))
    if p.formats:
        out.add(f"{ind}formats: {_flow(p.formats[0])}")
    else:
        out.ask(ind, "formats", Question(p.line, f"the document names no storage format of {_label(p)}", "[ND]"))
    if p.description and not p.damaged:
        out.add(f"{ind}description: {_q(p.description)}")
    else:
        out.ask(ind, "description", Question(p.line, f"describe {_label(p)} (the document's text is damaged)"))
    if p.optional:
        out.add(f"{ind}optional: true")
        out.ask(ind, "default", Question(p.line, f"the value a formula uses where {_label(p)} is null"))
    if p.kind == "output":
        if p.shape:
            out.add(f"{ind}shape: {_q(p.shape)}")
        else:
            out.ask(ind, "shape", Question(p.line, f"the shape rule of {_label(p)} (a spec expression)"))
        if p.const is None:
            out.ask(
                ind,
                "const",
                Question(p.line, f"does the prototype declare {_label(p)} as const aclTensor *? (true or false)"),
            )
        elif p.const:
            out.add(f"{ind}const: true")


def _attr(out: _Out, p: DocParam) -> None:
    ind = "    "
    if p.name is None:
        out.ask("  - ", "name", Question(p.line, f"the parameter's name is damaged in the document ({p.ctype})"))
    else:
        out.add(f"  - name: {p.name}")
    if p.header_name:
        out.add(f"    header_name: {p.header_name}   # the document's (CANN's) name, which a spec cannot use")
    out.add(f"{ind}type: {p.attr_type}")
    if p.values_question:
        out.ask(
            ind, "values", Question(p.line, f"{p.values_question}; write {{integer: name, ...}} (names: C identifiers)")
        )
    elif p.values:
        vals, _ = p.values
        if p.attr_type == "string":
            out.add(f"{ind}values: {_flow([_q(str(v)) for v in vals])}")
        else:
            pairs = [item for item in vals if isinstance(item, tuple)]
            out.add(f"{ind}values: {{{', '.join(f'{v}: {_q(n)}' for v, n in pairs)}}}")
    elif p.attr_type == "string":
        out.ask(ind, "values", Question(p.line, f"the strings {_label(p)} accepts (a list)"))
    if p.attr_type in ARRAY_ATTR_TYPES:
        # the document states the length in words (e.g. 'from 1 to the rank of input'), or not at all
        out.ask(ind, "length", Question(p.line, f"the lengths {_label(p)} accepts: n or [lo, hi] within 1..8"))
    if p.attr_type == "scalar":
        scalar = sorted({d for r in p.dtype_rules for d in r.dtypes}, key=list(DType.__members__).index)
        if scalar:
            out.add(f"{ind}dtypes: {_flow(scalar)}")
    if p.default is not None:
        out.add(f"{ind}default: {_number(p.default)}")
    if p.description and not p.damaged:
        out.add(f"{ind}description: {_q(p.description)}")
    else:
        out.ask(ind, "description", Question(p.line, f"describe {_label(p)} (the document's text is damaged)"))


def _constraint(out: _Out, c: DocConstraint, name: str) -> None:
    out.add(f"  - name: {name}")
    if c.products:
        out.add(f"    products: {_flow(c.products)}")
    if c.when_question is not None:
        q = c.when_question
        out.ask("    ", "when", Question(q.line, q.text, " and ".join(c.when)))
    elif c.when:
        out.add(f"    when: {_q(' and '.join(c.when))}")
    if c.lets:
        out.add("    let:")
        for let, expr, line, context in c.lets:
            if expr is None:
                out.ask(
                    "      ", let, Question(line, f"define {let} with the op's parameters (the document: '{context}')")
                )
            else:
                out.add(f"      {let}: {_q(expr)}")
    if c.require is None:
        out.ask("    ", "require", Question(c.line, f"write the documented limit '{c.text}' as a spec condition"))
        message = f"the documented limit of line {c.line} does not hold"
    else:
        out.add(f"    require: {_q(c.require)}")
        message = f"documented limit (line {c.line}): {c.require} must hold"
    out.add(f"    message: {_q(message)}")


def emit_spec(doc: ApiDoc, catalogue: Catalogue, family: str | None, families: tuple[str, ...]) -> Written:
    """The starter spec of a document.

    Args:
        doc: what the document says.
        catalogue: the product catalogue (per-product dtype derivation).
        family: the op family the user named (``--family``), or None (a question).
        families: every registered family (for the question's text).

    Returns:
        The YAML text and its questions; the text always ends with a newline.
    """
    out = _Out()
    out.add(f"# Starter spec written by `opgen import` from {doc.path} (aclnn{doc.op}).")
    out.add('# Answer every QUESTION (write the answer in place of its "QUESTION(...)" value); until then the spec')
    out.add("# does not load.")
    out.add(f"op: {doc.op}")
    folder, folder_line = doc.folder
    if folder:  # ops-nn's folder is named like the op's kernel files; the OpType is usually its UpperCamelCase
        camel = "".join(w.capitalize() for w in folder.split("_"))
        out.ask("", "op_type", Question(folder_line, f"the device OpType (the source folder is {folder})", camel))
        out.ask("", "kernel", Question(folder_line, "the kernel file stem (the source folder's name)", folder))
    else:
        out.ask("", "op_type", Question(doc.op_line, "the device OpType (the document does not name it)", doc.op))
        out.ask(
            "",
            "kernel",
            Question(doc.op_line, "the kernel file stem (the document does not name it)", snake_case(doc.op)),
        )
    categories = ", ".join(catalogue.categories)
    out.ask("", "category", Question(folder_line or doc.op_line, f"the ops-nn category folder ({categories})"))
    if family:
        out.add(f"family: {family}")
    else:
        out.ask("", "family", Question(doc.op_line, f"which family computes this op ({', '.join(families)})"))
    text, line, damaged = doc.summary
    if text and not damaged:
        out.add(f"summary: {_q(text)}")
    else:
        what = "damaged" if text else "missing"
        out.ask("", "summary", Question(line, f"describe the op (the document's description is {what})", _q(text)))
    names, support_line = doc.products
    for line, term in doc.left_out_products:
        out.add(f"# doc line {line}: '{term}' names a product the catalogue does not describe (left out)")
    if support_line:
        out.add(f"products: {_flow(names)}")
    else:
        out.ask(
            "",
            "products",
            Question(
                doc.op_line,
                "the document has no product support list (proposed: the products its dtype lists and limits name)",
                _flow(names),
            ),
        )
    det = doc.deterministic[0]
    if det is None:
        out.ask("", "deterministic", Question(doc.op_line, "is the op deterministic? (the document does not say)"))
    else:
        out.add(f"deterministic: {'true' if det else 'false'}")
    inputs = [p for p in doc.params if p.kind == "input"]
    outputs = [p for p in doc.params if p.kind == "output"]
    attrs = [p for p in doc.params if p.kind == "attr"]
    out.add("inputs:" if inputs else "inputs: []")
    for p in inputs:
        _tensor(out, p, doc, catalogue)
    if attrs:
        out.add("attrs:")
        for p in attrs:
            _attr(out, p)
    out.add("outputs:" if outputs else "outputs: []")
    for p in outputs:
        _tensor(out, p, doc, catalogue)
    order = [p.name or "?" for p in doc.params]
    if order != [p.name or "?" for p in (*inputs, *attrs, *outputs)]:
        out.add(f"signature: {_flow(order)}")
    out.ask("", "compute", Question(doc.op_line, "the family's compute section (the math is not read from documents)"))
    out.ask(
        "",
        "example",
        Question(
            doc.op_line,
            "the example call the op's example program makes: inputs with shape, dtype and values, attrs, output "
            "(docs/spec.md: example; the document's sample code is not read)",
        ),
    )
    out.add(_TILING)
    if doc.constraints:
        out.add("constraints:")
        seen: dict[str, int] = {}
        for c in doc.constraints:
            base = f"doc_line_{c.line}"
            seen[base] = seen.get(base, 0) + 1
            _constraint(out, c, base if seen[base] == 1 else f"{base}_{seen[base]}")
    for line, code, name, desc in doc.statuses:
        if code not in _IMPLICIT_STATUSES:
            out.ask(
                "",
                "shape_status",
                Question(
                    line,
                    f"the error table lists {code} ({name}): '{desc}'; keep shape_status {code} if a tensor of a wrong "
                    "shape or rank returns it (where the family takes shape_status), else delete this line",
                    str(code),
                ),
            )
            break
    if doc.limits:
        out.add("# Documented limits that are no status rule (kept for the notes):")
        for line, text in doc.limits:
            out.add(f"#   doc line {line}: {' '.join(text.split())}")
    return Written("\n".join(out.lines) + "\n", out.questions)
