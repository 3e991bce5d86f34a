"""ops-nn's own Markdown source of an aclnn API document (``<category>/<op>/docs/aclnnXxx.md``).

Its shape (hicann/ops-nn, e.g. ``loss/soft_margin_loss_grad/docs/aclnnSoftMarginLossBackward.md``): a
``# aclnnXxx`` title; ``## 产品支持情况``, a list (``- <term>...</term>：支持``/``不支持``) or table (``√``/``×``)
of product terms; ``## 功能说明``; ``## 函数原型`` with the C prototypes in a ```` ```Cpp ```` block; a section
``## aclnnXxxGetWorkspaceSize`` holding the parameter table (HTML, in a few documents a Markdown pipe table;
columns 参数名, 输入/输出, 描述, 使用说明, 数据类型, 数据格式, 维度(shape), 非连续Tensor),
per-product dtype exceptions (``- <term>...</term>：参数`x`
的数据类型不支持BFLOAT16``) and the error-code table (返回值/返回码, 错误码, 描述; ``rowspan`` cells); and
``## 约束说明``, bullets with ``<term>`` scopes and ``$$`` LaTeX blocks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from codegen.aclnn_doc.common import (
    C_TYPES,
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
from codegen.types import ACLNN_STATUS_CODES, ARRAY_ATTR_TYPES

__all__ = ["parse_markdown_doc"]

#: Parameter-table headers (Chinese as ops-nn writes them, English as its translations do) -> column role.
_COLUMNS = {
    "参数名": "name",
    "parameter": "name",
    "输入/输出": "role",
    "input/output": "role",
    "描述": "desc",
    "description": "desc",
    "使用说明": "usage",
    "usage": "usage",
    "数据类型": "dtypes",
    "data type": "dtypes",
    "数据格式": "formats",
    "data format": "formats",
    "维度(shape)": "shape",
    "shape": "shape",
}


@dataclass
class _Table:
    line: int
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (line, cell texts), rowspans filled in


def _cell_text(raw: str) -> str:
    text = re.sub(r"<br\s*/?>|</li>|</p>", "\n", raw)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return "\n".join(" ".join(ln.split()) for ln in text.split("\n") if ln.strip())


#: A Markdown pipe-table row (``| a | b |``, indented in a list) and the rule under its header (``|---|:-:|``).
_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")


def _pipe_cells(line: str) -> list[str]:
    """The cells of a pipe-table row: split at each ``|`` not escaped as ``\\|`` (which is a ``|`` of the text)."""
    inner = line.strip()[1:-1]
    return [_cell_text(c.replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", inner)]


def _tables(lines: list[str], lo: int, hi: int, file: str) -> list[_Table]:
    """The tables between ``lines[lo:hi]``: HTML tables (``rowspan`` cells filled in) and Markdown pipe tables."""
    tables: list[_Table] = []
    i = lo
    while i < hi:
        if _PIPE_ROW.match(lines[i]) and i + 1 < hi and _PIPE_RULE.match(lines[i + 1]):
            stop = i + 2
            while stop < hi and _PIPE_ROW.match(lines[stop]):
                stop += 1
            piped = [(k + 1, _pipe_cells(lines[k])) for k in (i, *range(i + 2, stop))]
            tables.append(_Table(i + 1, [h.lower() for h in piped[0][1]], piped[1:]))
            i = stop
            continue
        if "<table" not in lines[i]:
            i += 1
            continue
        end = next((k for k in range(i, len(lines)) if "</table>" in lines[k]), None)
        if end is None:
            raise DocError(file, i + 1, "the HTML table starting here is not closed (</table> missing: truncated?)")
        chunk = "\n".join(lines[i : end + 1])
        starts = [m.start() for m in re.finditer(r"<tr\b", chunk)]
        if len(starts) != len(re.findall(r"</tr>", chunk)):
            last = chunk.count("\n", 0, starts[-1]) + i + 1 if starts else i + 1
            raise DocError(file, last, "a table row is not closed (<tr> without </tr>: truncated table?)")
        rows: list[tuple[int, list[str]]] = []
        pending: dict[int, tuple[int, str]] = {}
        for m in re.finditer(r"<tr\b[^>]*>(.*?)</tr>", chunk, re.DOTALL):
            row_line = chunk.count("\n", 0, m.start()) + i + 1
            cells: list[str] = []
            given = list(re.finditer(r"<t[dh]\b([^>]*)>(.*?)</t[dh]>", m.group(1), re.DOTALL))
            col = 0
            for c in given:
                while col in pending:
                    left, text = pending[col]
                    cells.append(text)
                    pending = {k: v for k, v in pending.items() if k != col} | (
                        {col: (left - 1, text)} if left > 1 else {}
                    )
                    col += 1
                text = _cell_text(c.group(2))
                span = re.search(r'rowspan="(\d+)"', c.group(1))
                if span and int(span.group(1)) != 1:  # 0: to the end of the table (HTML's table model)
                    pending[col] = (int(span.group(1)) - 1 if int(span.group(1)) else len(starts), text)
                cells.append(text)
                col += 1
            while col in pending:
                left, text = pending.pop(col)
                cells.append(text)
                if left > 1:
                    pending[col] = (left - 1, text)
                col += 1
            rows.append((row_line, cells))
        if not rows:
            raise DocError(file, i + 1, "the table has no rows")
        header = [h.lower() for h in rows[0][1]]
        tables.append(_Table(i + 1, header, rows[1:]))
        i = end + 1
    return tables


def _section(lines: list[str], title: re.Pattern[str]) -> tuple[int, int] | None:
    start = next((i for i, ln in enumerate(lines) if ln.startswith("## ") and title.search(ln)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return start + 1, end


def _prototype(text: str, op: str) -> tuple[int, list[tuple[str, str, bool]]] | None:
    """The phase-1 prototype's ``(line, [(name, ctype, const)])``, or None when the document has none."""
    m = re.search(rf"aclnnStatus\s+aclnn{op}GetWorkspaceSize\s*\(([^)]*)\)", text)
    if m is None:
        return None
    out = []
    for part in m.group(1).split(","):
        pm = re.match(r"^\s*(const\s+)?([A-Za-z_]\w*)\s*([*\s]*?)\s*([A-Za-z_]\w*)\s*$", part)
        if pm is None:
            continue
        ctype = f"{pm.group(1) or ''}{pm.group(2)}{pm.group(3).replace(' ', '')}"
        out.append((pm.group(4), ctype, bool(pm.group(1))))
    return text.count("\n", 0, m.start()) + 1, out


def _param_row(cells: dict[str, str], row_line: int, file: str, proto: dict[str, str]) -> DocParam | None:
    """One parameter-table row; ``proto`` gives the prototype's type of each name (for a cell without one)."""
    cell = cells["name"].replace("`", "")  # a name in code style (`x`) is the name
    nm = re.match(r"^\s*([A-Za-z_]\w*)\s*[（(]\s*([^）)]+?)\s*[）)]\s*$", cell)
    bare = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*", cell)
    if nm is not None:
        name, ctype = nm.group(1), " ".join(nm.group(2).split())
    elif bare is not None and bare.group(1) in proto:
        name, ctype = bare.group(1), proto[bare.group(1)]
    else:
        raise DocError(
            file,
            row_line,
            f"cannot read the parameter cell '{cells['name'][:80]}'; expected 'name（type）' (or a name the prototype "
            "declares)",
        )
    key = c_type_key(ctype)
    if key in TRAILING_C_TYPES:
        return None
    if key in UNSUPPORTED_C_TYPES:
        raise DocError(file, row_line, f"parameter type '{ctype}' of '{name}' is not supported by the spec format")
    if key not in C_TYPES:
        raise DocError(
            file, row_line, f"unknown parameter type '{ctype}' of '{name}'; known: {', '.join(sorted(C_TYPES))}"
        )
    kind, attr_type = C_TYPES[key]
    words = f"{cells.get('desc', '')}\n{cells.get('usage', '')}"
    is_list = kind == "tensor_list"
    if kind in ("tensor", "tensor_list"):
        kind = "output" if "输出" in cells["role"] or "output" in cells["role"].lower() else "input"
    p = DocParam(
        name=name,
        ctype=ctype,
        kind=kind,
        attr_type=attr_type,
        line=row_line,
        description=first_sentence(cells.get("desc", "")),
        optional=name.endswith("Optional") or "可选" in words or "optional" in words.lower(),
        is_list=is_list,
    )
    dtypes = cells.get("dtypes", "-").strip()
    if (
        dtypes
        and dtypes not in ("-", "/")
        and attr_type not in ("string", "bool", "int64", "uint64", "double", "float", "int_array", "bool_array")
    ):
        if re.sub(r"(?:数据)?类型(?=[、，\s]|$)|[、，\s]", "", dtypes).isascii():
            p.dtype_rules.append(DtypeRule((), dtype_list(dtypes, file, row_line, p.skipped_dtypes), row_line))
        else:  # words ("与self保持一致", the same as self's): the user answers with a list
            p.dtype_words = dtypes
    formats = format_list(cells.get("formats", ""))
    if formats:
        p.formats = (formats, row_line)
    shape = cells.get("shape", "-").strip()
    r = rank_of(shape) if shape and shape != "-" else None
    if r:
        p.rank = (r, row_line)
    if attr_type in ("int64", "uint64"):
        vs = value_set(words, attr_type, f"'{name}'", file, row_line)
        if vs is not None and vs.question:
            p.values_question = vs.question
        elif vs is not None:
            p.values = (list(vs.values), row_line)
    elif attr_type == "string":
        svals = string_values(cells.get("usage", ""))
        p.values = (svals, row_line) if svals else None
    d = re.search(r"缺省值为\s*([-+0-9.eE]+|true|false)|default(?: value)? is\s+([-+0-9.eE]+|true|false)", words)
    if d and kind == "attr" and attr_type not in ARRAY_ATTR_TYPES:
        p.default = d.group(1) or d.group(2)
    return p


def parse_markdown_doc(text: str, file: str, products: Products) -> ApiDoc:
    """Reads ops-nn's Markdown source of an aclnn document.

    Args:
        text: the document (decoded, ``\\n`` line ends).
        file: its path as given (for errors).
        products: the catalogue's product terms.

    Returns:
        What it says.

    Raises:
        DocError: no aclnn name, no parameter table, a truncated table (an unclosed table or row, a parameter
            row with fewer cells than the header), a parameter the prototype does not list or a prototype parameter the
            table lacks (the prototype's order is the op's), an unknown or unsupported parameter type, an
            unknown product term or dtype, an error-code row whose
            name and code disagree.
    """
    lines = text.split("\n")
    title = next(((i, m) for i, ln in enumerate(lines) if (m := re.match(r"^#\s+aclnn(\w+)\s*$", ln))), None)
    proto_name = re.search(r"aclnn(\w+?)GetWorkspaceSize", text)
    if title is None and proto_name is None:
        raise DocError(
            file, 1, "no aclnn API name: expected a '# aclnnXxx' title or the prototype aclnnXxxGetWorkspaceSize"
        )
    op = title[1].group(1) if title else proto_name.group(1)  # type: ignore[union-attr]
    op_line = title[0] + 1 if title else text.count("\n", 0, proto_name.start()) + 1  # type: ignore[union-attr]
    # products
    support = _section(lines, re.compile(r"产品支持|Product Support", re.IGNORECASE))
    supported: list[str] = []
    support_line = 0
    if support:
        for i in range(*support):
            ln = lines[i]
            terms = re.findall(r"<term>(.*?)</term>", ln)
            if not terms:
                continue
            support_line = support_line or i + 1
            yes = ("√" in ln) or (re.search(r"[：:]\s*支持", ln) is not None) or "supported" in ln.lower()
            no = ("×" in ln) or ("不支持" in ln) or "not supported" in ln.lower()
            if yes and not no:
                supported.extend(products.resolve_all(terms, file, i + 1)[0])
    # the phase-1 section: parameter table, dtype exceptions, error codes
    phase1 = _section(lines, re.compile(rf"^##\s+aclnn{op}GetWorkspaceSize\s*$"))
    if phase1 is None:
        raise DocError(file, op_line, f"no parameter table: expected a section '## aclnn{op}GetWorkspaceSize'")
    tables = _tables(lines, phase1[0], phase1[1], file)
    proto = _prototype(text, op)
    proto_types = {n: t for n, t, _ in proto[1]} if proto else {}
    ptable = next((t for t in tables if "参数名" in t.header or "parameter" in t.header), None)
    if ptable is None:
        raise DocError(
            file, phase1[0], f"no parameter table (a <table> with a 参数名 column) in aclnn{op}GetWorkspaceSize"
        )
    for row_line, cells in ptable.rows:  # every column of a parameter row counts: a short row is damage
        if len(cells) != len(ptable.header):
            raise DocError(
                file,
                row_line,
                f"the table row has {len(cells)} cells but the header {len(ptable.header)} (truncated table?)",
            )
    cols = [_COLUMNS.get(h) for h in ptable.header]
    if "name" not in cols or "role" not in cols:
        raise DocError(file, ptable.line, "the parameter table needs the columns 参数名 and 输入/输出")
    params: list[DocParam] = []
    seen: dict[str, int] = {}
    for row_line, cells in ptable.rows:
        named = {c: v for c, v in zip(cols, cells, strict=True) if c}
        p = _param_row(named, row_line, file, proto_types)
        if p is not None:
            p.name, p.header_name = spec_param_name(p.name or "")
            check_param_name(p.name, file, row_line, seen)
            params.append(p)
    if not params:
        raise DocError(file, ptable.line, "the parameter table names no aclnn parameter (only workspaceSize/executor)")
    by_name = {p.header_name or p.name: p for p in params if p.name}  # the document's names
    if proto is not None:
        proto_line, proto_params = proto
        listed = [(n, t, c) for n, t, c in proto_params if c_type_key(t) not in TRAILING_C_TYPES]
        if sorted(n for n, *_ in listed) != sorted(by_name):
            raise DocError(
                file,
                proto_line,
                f"the prototype's parameters {[n for n, *_ in listed]} are not the table's "
                f"{list(by_name)} (the same names)",
            )
        # the prototype decides the order (the C signature); the table is matched by name
        params = [by_name[n] for n, *_ in listed]
        for (_, ctype, const), p in zip(listed, params, strict=True):
            if c_type_key(ctype) != c_type_key(p.ctype):
                raise DocError(file, p.line, f"'{p.name}' is {ctype} in the prototype but {p.ctype} in the table")
            if p.kind == "output":
                p.const = const
    inputs = [p.name for p in params if p.kind == "input" and p.name]
    for p in params:
        if p.kind == "output" and all(q.name for q in params):  # a damaged name could be one of the operands
            usage = next((c for r, c in ptable.rows if r == p.line), [])
            p.shape = broadcast_shape(" ".join(usage), inputs)
    for i in range(ptable.line, phase1[1]):
        m = re.match(r"^\s*[-*]\s+((?:<term>.*?</term>[、，,\s]*)+)[：:](.*)$", lines[i])
        if not m or "不支持" not in m.group(2):
            continue
        names, _ = products.resolve_all(re.findall(r"<term>(.*?)</term>", m.group(1)), file, i + 1)
        if not names:  # only products outside the catalogue
            continue
        which = re.findall(r"`(\w+)`", m.group(2).split("不支持")[0])
        dtypes = dtype_list(m.group(2).split("不支持", 1)[1], file, i + 1, [])
        for w in which:
            if w in by_name:
                by_name[w].dtype_rules.append(DtypeRule(names, dtypes, i + 1, remove=True))
    statuses: list[tuple[int, int, str, str]] = []
    etable = next((t for t in tables if "错误码" in t.header or "error code" in t.header), None)
    if etable is not None and len(etable.header) >= 3:
        for row_line, cells in etable.rows:
            if len(cells) == 1 and statuses and cells[0].strip():
                # a description alone: one more case of the code above (its rowspan counted one row short)
                above = statuses[-1]
                statuses.append((row_line, above[1], above[2], " ".join(cells[0].split())))
                continue
            cells = cells + [""] * (3 - len(cells))  # HTML's table model: a short row's missing cells are empty
            name, code_text, desc = cells[0].strip(" `"), cells[1].strip(" `"), cells[2]
            if not code_text.isdigit() or ACLNN_STATUS_CODES.get(int(code_text)) != name:
                raise DocError(
                    file, row_line, f"error code '{code_text}' and name '{name}' do not match an aclnnStatus of CANN"
                )
            statuses.append((row_line, int(code_text), name, " ".join(desc.split())))
        # a name-and-code row without a description whose rowspan carries the code into described rows
        described = {code for _, code, _, desc in statuses if desc}
        statuses = [row for row in statuses if row[3] or row[1] not in described]
    # summary and determinism
    intro = _section(lines, re.compile(r"功能说明|Function Description", re.IGNORECASE))
    summary = ("", op_line, False)
    if intro:
        for i in range(*intro):
            body = re.sub(r"^\s*[-*]?\s*(?:接口功能|算子功能|Function)\s*[：:]\s*", "", lines[i]).strip()
            if body:
                body = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", body)
                summary = (" ".join(re.sub(r"<[^>]+>", "", body).split()), i + 1, False)
                break
    deterministic: tuple[bool | None, int] = (None, 0)
    for i, ln in enumerate(lines):
        if "默认非确定性实现" in ln or re.search(r"non-?deterministic implementation", ln, re.IGNORECASE):
            deterministic = (False, i + 1)
            break
        if "默认确定性实现" in ln or re.search(r"defaults to a deterministic", ln, re.IGNORECASE):
            deterministic = (True, i + 1)
            break
    # ops-nn names an op's folder like its files (the kernel stem): the document's source link ends with it
    link = re.search(r"ops-nn/(?:tree|blob)/[^/\s)]+/(?:[\w-]+/)*([a-z][a-z0-9_]*)/?\)", text)
    folder = (link.group(1), text.count("\n", 0, link.start()) + 1) if link else ("", 0)
    doc = ApiDoc(
        path=file,
        op=op,
        op_line=op_line,
        params=params,
        products=(products.sort(supported), support_line),
        summary=summary,
        deterministic=deterministic,
        statuses=statuses,
        folder=folder,
    )
    section = _section(lines, re.compile(r"约束说明|Constraints", re.IGNORECASE))
    bullets: list[Bullet] = []
    if section:
        in_formula = False
        for i in range(*section):
            ln = lines[i]
            if ln.strip() == "$$":
                if bullets:
                    last = bullets[-1]
                    bullets[-1] = Bullet(last.line, last.indent, last.text + ("$$" if not in_formula else "$$ "))
                in_formula = not in_formula
                continue
            if in_formula:
                if bullets:
                    last = bullets[-1]
                    bullets[-1] = Bullet(last.line, last.indent, f"{last.text} {ln.strip()}")
                continue
            m = re.match(r"^(\s*)[-*]\s+(.*)$", ln)
            if m:
                bullets.append(Bullet(i + 1, len(m.group(1)), m.group(2).strip()))
            elif ln.strip() and not ln.lstrip().startswith(("<!--", "|")) and bullets:
                last = bullets[-1]
                bullets[-1] = Bullet(last.line, last.indent, f"{last.text} {ln.strip()}")
    scoped = read_constraints(doc, bullets, products, file, lambda head: re.findall(r"<term>(.*?)</term>", head))
    if not support_line:
        mentioned = [n for p in params for r in p.dtype_rules for n in r.products]
        doc.products = (products.sort([*mentioned, *scoped]), 0)
    return doc
