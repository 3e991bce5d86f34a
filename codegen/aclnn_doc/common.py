"""Reading rules both document formats share: C types, dtype and format names, product terms, value sets,
ranks, conditions and LaTeX formulas.

The aclnn C types and what a spec makes of them follow CANN's aclnn headers (``aclnn/acl_meta.h``:
``aclTensor``, ``aclScalar``; attributes are plain C types) and the spec format (README "The spec format").
"""

from __future__ import annotations

import ast
import json
import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from codegen.aclnn_doc.model import DocError, DocParam
from codegen.spec.catalogue import doc_term_key
from codegen.spec.model import ACL_FORMATS, PRIVATE_ACL_FORMATS, Catalogue
from codegen.spec.naming import C_ONLY_KEYWORDS, CPP_KEYWORDS, name_problem, value_name_problem
from codegen.types import ATTR_TYPE_INFO, GRAPH_DATA_TYPES, DType

#: The marker the English rendering leaves where its source had a link or a styled term.
DAMAGE = "[object Object]"

#: aclnn C parameter types (``const`` and spaces removed) -> (kind, spec attr type).
C_TYPES: Mapping[str, tuple[str, str | None]] = {
    "aclTensor*": ("tensor", None),
    "aclTensorList*": ("tensor_list", None),
    "aclScalar*": ("attr", "scalar"),
    "int64_t": ("attr", "int64"),
    "uint64_t": ("attr", "uint64"),
    "bool": ("attr", "bool"),
    "double": ("attr", "double"),
    "float": ("attr", "float"),
    "char*": ("attr", "string"),
    "aclIntArray*": ("attr", "int_array"),
    "aclBoolArray*": ("attr", "bool_array"),
}
#: aclnn types that exist but that no spec family takes (a clear error rather than a wrong spec).
UNSUPPORTED_C_TYPES = frozenset({"aclScalarList*", "aclFloatArray*", "int32_t", "int8_t"})
#: The two-phase API's own phase-1 parameters (``uint64_t *workspaceSize``, ``aclOpExecutor **executor``).
TRAILING_C_TYPES = frozenset({"uint64_t*", "aclOpExecutor**"})

#: Dtype names documents use -> spec names (the rest are spec names already).
_DTYPE_ALIASES = {"FLOAT32": "FLOAT", "BFLOAT16": "BF16", "FP32": "FLOAT", "FP16": "FLOAT16", "HALF": "FLOAT16"}
FORMATS = tuple(ACL_FORMATS) + tuple(PRIVATE_ACL_FORMATS)


def c_type_key(ctype: str) -> str:
    """``const aclTensor *`` -> ``aclTensor*``: the type without ``const`` and spaces."""
    return re.sub(r"\s+", "", re.sub(r"\bconst\b", "", ctype))


def spec_param_name(name: str) -> tuple[str, str]:
    """The spec name of a document's parameter name and its ``header_name`` (``""`` when the spec name is the
    document's).

    A name C and C++ accept but Python reserves (aclnnSoftshrinkBackward's ``lambda``) cannot name a spec
    parameter (expressions could not mention it); the spec then names it as PyTorch does, without its last
    letter (``lambd``), or with a trailing ``_`` where that is no usable name, and keeps CANN's name as
    ``header_name`` (the generated header and document use it). Any other name is returned unchanged.
    """
    if not keyword.iskeyword(name) or name in CPP_KEYWORDS or name in C_ONLY_KEYWORDS:
        return name, ""
    for candidate in (name[:-1], f"{name}_"):
        if candidate and name_problem(candidate) is None:
            return candidate, name
    return name, ""


def check_param_name(name: str, file: str, line: int, seen: dict[str, int]) -> None:
    """Refuses a parameter name the spec loader would refuse (:func:`codegen.spec.naming.name_problem`: not
    an ASCII C identifier, a C/C++/Python keyword, a reserved or header-macro name) or one an earlier
    parameter has; records it in ``seen`` (name -> document line).

    Raises:
        DocError: at ``line``, naming the rule.
    """
    problem = name_problem(name)
    if problem:
        raise DocError(file, line, f"parameter name: {problem} (a spec cannot name a parameter so)")
    if name in seen:
        raise DocError(
            file,
            line,
            f"duplicate parameter name '{name}' (also the parameter at line {seen[name]}); names must be unique",
        )
    seen[name] = line


def dtype_name(word: str) -> str | None:
    """The spec dtype name of a document's dtype word (``BFLOAT16`` -> ``BF16``, ``int32`` -> ``INT32``),
    or None when it is no dtype."""
    w = word.strip().strip("`").upper()
    w = _DTYPE_ALIASES.get(w, w)
    return w if w in DType.__members__ else None


def dtype_list(text: str, file: str, line: int, skipped: list[str] | None = None) -> tuple[str, ...]:
    """The dtypes of a list such as ``FLOAT, FLOAT16, or BFLOAT16``, ``FLOAT、FLOAT16``, ``FLOAT / BF16`` or
    ``INT64数据类型`` (a
    trailing 数据类型/类型, "data type", is dropped from each word). A CANN data type
    no spec dtype names (``COMPLEX64``, ``INT4``: a ``ge::DataType`` opgen does not compute) is left out and
    appended to ``skipped`` (each once), when the caller gives that list.

    Raises:
        DocError: a word of the list is no dtype (or a CANN data type opgen does not compute, without
            ``skipped``).
    """
    # a Chinese noun after the name (``INT64数据类型``, ``BFLOAT16类型``: "the INT64 data type") is no part of it
    split = re.split(r",|、|，|/|\bor\b|\band\b|\s+", text.strip().rstrip(".。"))
    words = [w for w in (re.sub(r"(?:数据)?类型$", "", w.strip()) for w in split) if w]
    out: list[str] = []
    for w in words:
        d = dtype_name(w)
        cann = w.strip().strip("`").upper()
        if d is None and skipped is not None and cann in GRAPH_DATA_TYPES:
            if cann not in skipped:
                skipped.append(cann)
            continue
        if d is None:
            raise DocError(file, line, f"unknown data type '{w.strip()}'; known: {', '.join(DType.__members__)}")
        if d not in out:
            out.append(d)
    return tuple(out)


def format_list(text: str) -> tuple[str, ...]:
    """The storage formats a text names (``ND``, ``NCHW``, ...), in order; () when it names none."""
    found = re.findall(
        r"(?<![A-Za-z0-9_])(" + "|".join(sorted(FORMATS, key=len, reverse=True)) + r")(?![A-Za-z0-9_])", text
    )
    return tuple(dict.fromkeys(found))


class Products:
    """Maps a document's product terms to catalogue names through ``doc_term`` and ``doc_aliases``
    (compared without case and whitespace, :func:`codegen.spec.catalogue.doc_term_key`); a term of the
    catalogue's ``uncatalogued_doc_terms`` names a product the catalogue does not describe (left out)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.order = [p.name for p in catalogue.products]
        self.by_key: dict[str, str] = {}
        for p in catalogue.products:
            for term in (p.doc_term, *p.doc_aliases):
                self.by_key.setdefault(doc_term_key(term), p.name)
        self.outside = {doc_term_key(t) for t in catalogue.uncatalogued_doc_terms}
        self.known = sorted({p.doc_term for p in catalogue.products})
        #: ``(line, term)`` of each uncatalogued term read (left out of the spec), once per term
        self.left_out: list[tuple[int, str]] = []

    def lookup(self, term: str) -> str | None:
        """The catalogue name of one term, or None."""
        return self.by_key.get(doc_term_key(term.replace(DAMAGE, "")))

    def resolve(self, term: str, file: str, line: int) -> str | None:
        """The catalogue name of one term; None for an ``uncatalogued_doc_terms`` term (recorded in
        :attr:`left_out`).

        Raises:
            DocError: the term names no catalogued product and is no uncatalogued term.
        """
        name = self.lookup(term)
        clean = term.replace(DAMAGE, "").strip()
        if name is None and doc_term_key(clean) in self.outside:
            if clean not in (t for _, t in self.left_out):
                self.left_out.append((line, clean))
            return None
        if name is None:
            raise DocError(
                file,
                line,
                f"unknown product term '{term.replace(DAMAGE, '').strip()}'; the catalogue (specs/products.yaml "
                f"doc_term, doc_aliases) knows: {'; '.join(self.known)}",
            )
        return name

    def resolve_all(self, terms: Iterable[str], file: str, line: int) -> tuple[tuple[str, ...], bool]:
        """The catalogue names of several terms, and whether any term was given (so ``((), True)`` means
        every term names a product outside the catalogue).

        Raises:
            DocError: see :meth:`resolve`.
        """
        listed = list(terms)
        names = (self.resolve(t, file, line) for t in listed)
        return tuple(n for n in names if n is not None), bool(listed)

    def sort(self, names: Iterable[str]) -> tuple[str, ...]:
        """``names`` once each, in catalogue order."""
        s = set(names)
        return tuple(n for n in self.order if n in s)


#: Where an integer value list starts: an integer and an opening parenthesis (``0 ('none')``, ``0(none)``).
_ITEM_START = re.compile(r"(?<![A-Za-z0-9_.])-?\d+\s*[(（]")
#: One item, exactly: the integer and its name, quoted or bare, in parentheses.
_ITEM = re.compile(
    r"(?P<value>-?\d+)\s*[(（]\s*(?:'(?P<q1>[^']*)'|\"(?P<q2>[^\"]*)\"|‘(?P<q3>[^’]*)’|(?P<bare>[^()（）'\"‘’]*?))\s*[)）]"
)
#: Characters a YAML reader takes as line breaks or refuses, besides those JSON escapes.
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def quoted(text: str) -> str:
    """``text`` as a one-line double-quoted string that YAML and JSON read back as ``text`` (JSON's escapes,
    plus ``\\uXXXX`` for what YAML reads as a line break or refuses: NEL, U+2028, C1 controls, ...)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


@dataclass(frozen=True)
class ValueSet:
    """An integer attribute's documented value list: ``values`` when every item was read exactly, else
    ``question`` (what could not be read, one line)."""

    values: tuple[tuple[int, str], ...] = ()
    question: str = ""


def value_set(text: str, attr_type: str, label: str, file: str, line: int) -> ValueSet | None:
    """An integer attribute's documented values, ``0 ('none') | 1 ('mean') | 2 ('sum')`` or
    ``0(none)|1(mean)|2(sum)``, or None when the text has no such list (an item followed by ``|``).

    Every item, from the first ``N (`` to the end of the ``|``-separated list, must be read exactly as an
    integer and a name the spec loader takes (:func:`codegen.spec.naming.value_name_problem`); otherwise
    the whole list is a question.

    Raises:
        DocError: at ``line``: a value listed twice, or beyond ``attr_type``'s C range.
    """
    start = _ITEM_START.search(text)
    if start is None or not re.search(r"[|｜]", text[start.start() :]):
        return None
    parts = re.split(r"[|｜]", text[start.start() :])
    items: list[tuple[int, str]] = []
    for k, raw in enumerate(parts):
        seg = raw.strip()
        m = _ITEM.match(seg)
        if k == len(parts) - 1:  # the list ends where the sentence goes on
            if m and re.match(r"(?:$|[\s.。,，;；])", seg[m.end() :]):
                seg = seg[: m.end()]
            else:
                seg = re.split(r"[.。;；]\s|[.。;；]$|,\s|，", seg, maxsplit=1)[0].strip()
                m = _ITEM.match(seg)
        if m is None or m.end() != len(seg):
            return ValueSet(question=f"the value list of {label} cannot be read exactly: item {quoted(seg)}")
        name = next(g for g in (m.group("q1"), m.group("q2"), m.group("q3"), m.group("bare"), "") if g is not None)
        problem = value_name_problem(name.strip() if m.group("bare") is not None else name)
        if problem:
            return ValueSet(
                question=f"the value list of {label} cannot be read exactly: item {quoted(seg)} ({problem})"
            )
        items.append((int(m.group("value")), name.strip()))
    lo, hi = ATTR_TYPE_INFO[attr_type].int_range or (0, 0)
    seen: dict[int, str] = {}
    for value, name in items:
        if not lo <= value <= hi:
            raise DocError(file, line, f"value {value} of {label} is beyond its C type {attr_type}_t ({lo}..{hi})")
        if value in seen:
            raise DocError(file, line, f"value {value} of {label} is listed twice ('{seen[value]}' and '{name}')")
        if name in seen.values():
            raise DocError(file, line, f"value name '{name}' of {label} is listed twice")
        seen[value] = name
    return ValueSet(values=tuple(items))


def string_values(text: str) -> list[str] | None:
    """A string attribute's documented values (``'none' | 'tanh'`` or ``'none'、'tanh'``), or None."""
    items = re.findall(r"['\"‘“]([A-Za-z0-9_.-]{1,64})['\"’”]", text)
    return list(dict.fromkeys(items)) if len(items) >= 2 else None


def rank_of(text: str) -> tuple[int, int] | None:
    """A tensor's rank range from a description (``2 to 8 dimensions``, ``ranges from 1 to 8``, ``has 2
    dimensions``, ``1-8``, ``支持维度2-8维``, ``维度为2维``), or None."""
    patterns = [
        r"(?:supports|ranges from|from)\s+(\d+)\s+to\s+(\d+)(?:\s+dimensions)?",
        r"(\d+)\s+to\s+(\d+)\s+dimensions",
        r"维度\s*(\d+)\s*[-~至到]\s*(\d+)\s*维",
        r"^\s*(\d+)\s*[-~]\s*(\d+)\s*$",
    ]
    for rx in patterns:
        m = re.search(rx, text)
        if m:
            return int(m.group(1)), int(m.group(2))
    m = re.search(r"has\s+(\d+)\s+dimensions|维度为\s*(\d+)\s*维|^\s*(\d+)\s*$", text)
    if m:
        n = int(next(g for g in m.groups() if g))
        return n, n
    return None


def broadcast_shape(text: str, inputs: list[str]) -> str | None:
    """``broadcast(a, b, ...)`` when an output's description says its shape is the broadcast of two or more
    inputs it names (in signature order), else None."""
    if "broadcast" not in text.lower():
        return None
    named = [n for n in inputs if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", text)]
    return f"broadcast({', '.join(named)})" if len(named) >= 2 else None


def condition(text: str, params: Mapping[str, DocParam]) -> str | None:
    """A spec condition from words: ``When indices is INT32`` / ``indices为int32时`` -> ``dtype(indices) ==
    INT32``; ``If flag is set to true`` -> ``flag`` (a bool attr). None when the words name no parameter
    or no value."""
    m = re.search(r"\b(?:when|if)\s+(\w+)\s+is\s+(?:set\s+to\s+)?(\w+)", text, re.IGNORECASE) or re.search(
        r"([A-Za-z_][A-Za-z0-9_]*)\s*为\s*([A-Za-z0-9_]+)\s*时", text
    )
    if not m:
        return None
    name, value = m.group(1), m.group(2)
    p = params.get(name)
    if p is None:
        return None
    if p.kind in ("input", "output"):
        d = dtype_name(value)
        return f"dtype({name}) == {d}" if d else None
    if p.attr_type == "bool" and value.lower() in ("true", "false"):
        return name if value.lower() == "true" else f"not {name}"
    return None


def says_condition(text: str) -> bool:
    """Whether a sentence states a condition (so a constraint under it depends on one)."""
    return bool(re.search(r"\b(?:if|when|unless)\b|若|当|如果|对于.*场景", text, re.IGNORECASE))


def definition(text: str, params: Mapping[str, DocParam]) -> tuple[str, str] | None:
    """A name the words define from a tensor's last dimension (``the last dimension of grad is defined as
    embeddingDim``, ``设定grad最后一维为embeddingDim``) as ``(name, "dim(grad, -1)")``, or None."""
    m = re.search(r"last\s+dimension\s+of\s+(\w+)\s+is\s+defined\s+as\s+(\w+)", text, re.IGNORECASE) or re.search(
        r"设定\s*([A-Za-z_][A-Za-z0-9_]*)\s*最后一维为\s*([A-Za-z_][A-Za-z0-9_]*)", text
    )
    if m and m.group(1) in params and params[m.group(1)].kind in ("input", "output"):
        return m.group(2), f"dim({m.group(1)}, -1)"
    return None


_LATEX_WORDS = [
    (r"\left", ""),
    (r"\right", ""),
    (r"\%", "%"),
    (r"\times", "*"),
    (r"\cdot", "*"),
    (r"\leq", "<="),
    (r"\geq", ">="),
    (r"\neq", "!="),
    (r"\le", "<="),
    (r"\ge", ">="),
    (r"\lt", "<"),
    (r"\gt", ">"),
    (r"\,", " "),
    (r"\ ", " "),
]


def _expand_frac(s: str) -> str | None:
    while (i := s.find(r"\frac")) >= 0:
        parts: list[str] = []
        j = i + len(r"\frac")
        for _ in range(2):
            while j < len(s) and s[j] == " ":
                j += 1
            if j >= len(s) or s[j] != "{":
                return None
            depth, k = 0, j
            while k < len(s):
                depth += {"{": 1, "}": -1}.get(s[k], 0)
                if depth == 0:
                    break
                k += 1
            if depth:
                return None
            parts.append(s[j + 1 : k])
            j = k + 1
        s = f"{s[:i]}(({parts[0]}) / ({parts[1]})){s[j:]}"
    return s


class _IntegerDivision(ast.NodeTransformer):
    """Keeps ``//`` (a document's plain ``/``) only between integer operands; elsewhere it is ``/``."""

    def __init__(self, integers: frozenset[str]) -> None:
        self.integers = integers

    def is_int(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int) and not isinstance(node.value, bool)
        if isinstance(node, ast.Name):
            return node.id in self.integers
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("dim", "numel", "rank")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.is_int(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            return self.is_int(node.left) and self.is_int(node.right)
        return False

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.FloorDiv) and not (self.is_int(node.left) and self.is_int(node.right)):
            node.op = ast.Div()
        return node


def latex(tex: str, integers: frozenset[str]) -> tuple[str, str | None] | None:
    """A LaTeX formula of a constraints section as spec text.

    ``\\frac{a}{b}`` is a real division; a plain ``a / b`` transcribes C++ and is ``//`` (truncating) where
    both operands are integers (names in ``integers``, integer literals, ``dim``/``numel``/``rank``).

    Returns:
        ``(expression, None)`` for a relation (``embeddingDim < \\frac{...}{36}``), ``(expression, name)``
        for a definition ``name = ...``, or None when it is not a formula the spec language can hold.
    """
    s = tex.strip().strip("$").strip()
    target = None
    m = re.match(r"^([A-Za-z_]\w*)\s*=(?!=)(.*)$", s, re.DOTALL)
    if m:
        target, s = m.group(1), m.group(2)
    s = s.replace("/", "//")
    expanded = _expand_frac(s)
    if expanded is None:
        return None
    s = expanded
    for word, repl in _LATEX_WORDS:
        s = s.replace(word, repl)
    s = s.replace("{", "(").replace("}", ")")
    if "\\" in s or "=" in s.replace("<=", "").replace(">=", "").replace("!=", "").replace("==", ""):
        return None
    try:
        tree = ast.parse(" ".join(s.split()), mode="eval")
    except SyntaxError:
        return None
    body = _IntegerDivision(integers).visit(tree).body
    if target is None and not isinstance(body, ast.Compare):
        return None
    return ast.unparse(body), target


def first_sentence(text: str) -> str:
    """The first sentence of a description, without damage markers and with spaces collapsed."""
    clean = " ".join(text.replace(DAMAGE, " ").split())
    m = re.match(r"(.+?[.。])(?:\s|$)", clean)
    return (m.group(1) if m else clean).strip()
