"""The English rendering of an aclnn API document (the project's seeds, ``/work/shared/seeds/*.txt``).

Its shape: a description line (``Operator function: ...`` or ``Description: ...``), the two-phase
sentence naming ``aclnnXxxGetWorkspaceSize``, then for phase 1 a ``• Parameters`` list of bullets
``• name (type, role): description`` with per-product dtype sub-bullets ``• <terms>: The data type can be
A, B, or C.``, a ``• Returns`` block, the same for phase 2, a constraints section of bullets (product
terms, conditions, ``$$...$$`` LaTeX formulas) and the example. Links and styled terms of the source were
lost in rendering: they read ``[object Object]`` (or vanish, leaving ``The can be ND.``).
"""

from __future__ import annotations

import re

from codegen.aclnn_doc.common import (
    C_TYPES,
    DAMAGE,
    TRAILING_C_TYPES,
    UNSUPPORTED_C_TYPES,
    Products,
    broadcast_shape,
    c_type_key,
    check_param_name,
    dtype_list,
    first_sentence,
    format_list,
    rank_of,
    spec_param_name,
    string_values,
    value_set,
)
from codegen.aclnn_doc.constraints import Bullet, read_constraints
from codegen.aclnn_doc.model import ApiDoc, DocError, DocParam, DtypeRule

__all__ = ["looks_like_text_doc", "parse_text_doc"]

_BULLET = re.compile(r"^(\s*)•\s*(.*)$")
_PARAM = re.compile(r"^(?P<name>.+?)\s*\((?P<type>[^(),]+?)\s*,\s*(?P<role>[^()]+?)\)\s*:\s*(?P<desc>.*)$")
_DTYPES = re.compile(r"data type (?:can be|must be one of|supports?)\s+(.+?)(?:\.\s|\.$|$)", re.IGNORECASE)


def looks_like_text_doc(text: str) -> bool:
    """Whether ``text`` is the English rendering (bullets ``•``) rather than ops-nn Markdown."""
    return "•" in text and "<table" not in text and "```" not in text


def _terms(text: str) -> list[str]:
    return [t for t in re.split(r",\s*(?:and\s+)?|\s+and\s+", text.replace(DAMAGE, " ")) if t.strip()]


def _tensor_facts(p: DocParam, desc: str, file: str, line: int) -> None:
    for sentence in re.split(r"(?<=\.)\s+", desc):
        low = sentence.lower()
        if "data type" in low:
            m = _DTYPES.search(sentence)
            if m:
                p.dtype_rules.append(DtypeRule((), dtype_list(m.group(1), file, line, p.skipped_dtypes), line))
        elif p.formats is None and re.search(r"\b(?:can be|supports?|format)\b", low):
            formats = format_list(sentence)
            if formats:
                p.formats = (formats, line)
    r = rank_of(desc)
    if r:
        p.rank = (r, line)


def parse_text_doc(text: str, file: str, products: Products) -> ApiDoc:
    """Reads the English rendering of an aclnn document.

    Args:
        text: the document (decoded, ``\\n`` line ends).
        file: its path as given (for errors).
        products: the catalogue's product terms.

    Returns:
        What it says; damaged passages become questions.

    Raises:
        DocError: no ``aclnnXxxGetWorkspaceSize`` name, no parameter list, no ``• Returns`` block after it
            (a truncated document), a parameter entry that cannot be read, an unknown or unsupported parameter
            type, an unknown product term or dtype.
    """
    lines = text.split("\n")
    op_m = next(((i, m) for i, ln in enumerate(lines) if (m := re.search(r"aclnn(\w+?)GetWorkspaceSize", ln))), None)
    if op_m is None:
        raise DocError(file, 1, "no aclnn API name: expected the phase-1 name aclnnXxxGetWorkspaceSize")
    op = op_m[1].group(1)
    start = next((i for i, ln in enumerate(lines) if re.match(r"^\s*•\s*Parameters:?\s*$", ln)), None)
    returns = next((i for i, ln in enumerate(lines) if re.match(r"^\s*•\s*Returns", ln)), len(lines))
    if start is None or start > returns:  # the first list after a Returns block is phase 2's
        raise DocError(file, op_m[0] + 1, "no parameter list: expected a '• Parameters' section of phase 1")
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*•\s*Returns", lines[i])), len(lines))
    if end == len(lines):  # the constraints section starts after the last Returns block
        raise DocError(
            file,
            len(text.rstrip().split("\n")),
            "the document ends inside phase 1's parameter list: expected its '• Returns' block (truncated?)",
        )
    bullets = [(i, m) for i in range(start + 1, end) if (m := _BULLET.match(lines[i]))]
    if not bullets:
        raise DocError(file, start + 1, "empty parameter list: no '• name (type, role): description' entries")
    level = min(len(m.group(1)) for _, m in bullets)
    params: list[DocParam] = []
    mentioned: list[str] = []
    current: DocParam | None = None
    raw_desc: dict[int, str] = {}
    seen: dict[str, int] = {}
    for i, m in bullets:
        line = i + 1
        body = m.group(2).strip()
        if len(m.group(1)) > level:
            if current is None or current.kind == "attr":
                continue
            sub = re.match(r"^(?P<terms>.+?):\s*(?P<rest>.*)$", body)
            d = _DTYPES.search(sub.group("rest")) if sub else None
            if sub and d:
                names, given = products.resolve_all(_terms(sub.group("terms")), file, line)
                if given and not names:  # only products outside the catalogue
                    continue
                mentioned.extend(names)
                current.dtype_rules.append(
                    DtypeRule(names, dtype_list(d.group(1), file, line, current.skipped_dtypes), line)
                )
            continue
        pm = _PARAM.match(body)
        if pm is None:
            raise DocError(
                file,
                line,
                f"cannot read the parameter entry '{body[:80]}'; expected '• name (type, role): description'",
            )
        ctype = " ".join(pm.group("type").split())
        key = c_type_key(ctype)
        name = pm.group("name").strip()
        damaged = DAMAGE in name  # lost in rendering: a question; any other name follows the spec's rule
        if key in TRAILING_C_TYPES:
            current = None
            continue
        header_name = ""
        if not damaged:
            name, header_name = spec_param_name(name)
            check_param_name(name, file, line, seen)
        if key in UNSUPPORTED_C_TYPES:
            raise DocError(file, line, f"parameter type '{ctype}' of '{name}' is not supported by the spec format")
        if key not in C_TYPES:
            raise DocError(
                file, line, f"unknown parameter type '{ctype}' of '{name}'; known: {', '.join(sorted(C_TYPES))}"
            )
        kind, attr_type = C_TYPES[key]
        role = pm.group("role").lower()
        is_list = kind == "tensor_list"
        if kind in ("tensor", "tensor_list"):
            kind = "output" if "output" in role else "input"
        desc = pm.group("desc")
        raw_desc[line] = desc
        p = DocParam(
            name=None if damaged else name,
            ctype=ctype,
            kind=kind,
            attr_type=attr_type,
            line=line,
            description=first_sentence(desc),
            optional=not damaged and (name.endswith("Optional") or "optional" in role),
            damaged=damaged or DAMAGE in desc,
            header_name=header_name,
            is_list=is_list,
        )
        if kind != "attr":
            _tensor_facts(p, desc, file, line)
        elif attr_type == "scalar" and (d := _DTYPES.search(desc)):
            p.dtype_rules.append(DtypeRule((), dtype_list(d.group(1), file, line, p.skipped_dtypes), line))
        elif attr_type == "string":
            vals = string_values(desc)
            p.values = (vals, line) if vals else None
        elif attr_type in ("int64", "uint64"):
            vs = value_set(desc, attr_type, f"'{name}'" if not damaged else f"the {ctype} parameter", file, line)
            if vs is not None and vs.question:
                p.values_question = vs.question
            elif vs is not None:
                p.values = (list(vs.values), line)
        params.append(p)
        current = p
    if not params:
        raise DocError(file, start + 1, "the parameter list names no aclnn parameter (only workspaceSize/executor)")
    inputs = [p.name for p in params if p.kind == "input" and p.name]
    for p in params:
        if p.kind == "output" and all(q.name for q in params):  # a damaged name could be one of the operands
            p.shape = broadcast_shape(raw_desc[p.line], inputs)
    summary_i = next(
        (i for i, ln in enumerate(lines) if re.match(r"^\s*(?:Operator function|Description|Function)\s*:", ln)), None
    )
    if summary_i is None:
        summary = ("", 1, True)
    else:
        raw = lines[summary_i].split(":", 1)[1]
        summary = (" ".join(raw.replace(DAMAGE, " ").split()), summary_i + 1, DAMAGE in raw)
    det_i = next((i for i, ln in enumerate(lines) if re.search(r"deterministic", ln, re.IGNORECASE)), None)
    deterministic: tuple[bool | None, int] = (None, 0)
    for i in range(det_i or 0, len(lines)) if det_i is not None else ():
        if re.search(r"non-?deterministic implementation", lines[i], re.IGNORECASE):
            deterministic = (False, i + 1)
            break
        if re.search(r"defaults to a deterministic implementation", lines[i], re.IGNORECASE):
            deterministic = (True, i + 1)
            break
    # the constraints section: after the last Returns block, up to the example
    last_returns = max(i for i, ln in enumerate(lines) if re.match(r"^\s*•\s*Returns", ln))
    stop = next(
        (i for i in range(last_returns, len(lines)) if lines[i].startswith("The following example")), len(lines)
    )
    section = [
        Bullet(i + 1, len(m.group(1)), m.group(2).strip())
        for i in range(last_returns + 1, stop)
        if (m := _BULLET.match(lines[i]))
    ]
    doc = ApiDoc(
        path=file,
        op=op,
        op_line=op_m[0] + 1,
        params=params,
        products=(products.sort(mentioned), 0),
        summary=summary,
        deterministic=deterministic,
    )
    scoped = read_constraints(doc, section, products, file, scope_terms=_terms)
    doc.products = (products.sort([*mentioned, *scoped]), 0)
    return doc
