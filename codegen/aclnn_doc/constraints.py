"""The constraints section of an aclnn document as status rules (both formats).

The section is a tree of bullets: product scopes (``<terms>:``), conditions in words (``When indices is
INT32, ...``), definitions (``$$countsSize = ...$$``, ``the last dimension of grad is defined as
embeddingDim``) and relations (``$$embeddingDim < \\frac{...}{36}$$``). Each relation becomes a
:class:`~codegen.aclnn_doc.model.DocConstraint` that phase 1 checks (the spec's ``constraints:``) with the
conditions of its ancestors as ``when`` and the definitions of its ancestors and their siblings as ``let``s.
Bullets without a formula are kept as documented limits (precision, performance).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from codegen.aclnn_doc.common import DAMAGE, Products, condition, definition, latex, says_condition
from codegen.aclnn_doc.model import ApiDoc, DocConstraint, Question
from codegen.spec.expr import DEFAULT_FUNCTIONS
from codegen.types import DType

__all__ = ["Bullet", "read_constraints"]

#: Names a constraint may read besides the op's parameters and its lets (README "constraints").
_PLATFORM_NAMES = frozenset({"coreNum", "ubBytes"})
_FORMULA = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)


@dataclass(frozen=True)
class Bullet:
    """One bullet of the section: its document line, indentation (columns) and text (``$$`` formulas
    inline)."""

    line: int
    indent: int
    text: str


def _plain(text: str) -> str:
    return " ".join(re.sub(r"</?\w+[^>]*>", "", text.replace(DAMAGE, " ")).replace("`", "").split())


def _scope(
    b: Bullet, products: Products, file: str, scope_terms: Callable[[str], list[str]]
) -> tuple[tuple[str, ...], str] | None:
    """``(products, rest)`` when the bullet names product terms before its colon (``products`` is empty when
    they all name products outside the catalogue), else None."""
    m = re.match(r"^(?P<head>.+?)\s*[:：]\s*(?P<rest>.*)$", b.text, re.DOTALL)
    if m is None:
        return None
    head = m.group("head")
    if DAMAGE not in head and "<term>" not in head:
        return None
    names, given = products.resolve_all(scope_terms(head), file, b.line)
    return (names, m.group("rest")) if names or given else None


def read_constraints(
    doc: ApiDoc, bullets: list[Bullet], products: Products, file: str, scope_terms: Callable[[str], list[str]]
) -> list[str]:
    """Adds the section's status rules to ``doc.constraints`` and its other limits to ``doc.limits``.

    Args:
        doc: the document read so far (its parameters name what a formula may read).
        bullets: the section's bullets in document order.
        products: the catalogue's product terms.
        file: the document's path (for errors).
        scope_terms: splits the text before a scope bullet's colon into product terms.

    Returns:
        The catalogue names the section's scopes name (the op's products, where no support list says).

    Raises:
        DocError: a scope names an unknown product term.
    """
    params = {p.name: p for p in doc.params if p.name}
    parents: list[int | None] = []
    stack: list[int] = []
    for i, b in enumerate(bullets):
        while stack and bullets[stack[-1]].indent >= b.indent:
            stack.pop()
        parents.append(stack[-1] if stack else None)
        stack.append(i)
    scopes = [_scope(b, products, file, scope_terms) for b in bullets]
    # a bullet scoped to products outside the catalogue only, and the bullets under it, say nothing of the spec
    dropped: set[int] = set()
    for i, s in enumerate(scopes):
        if (s is not None and not s[0]) or parents[i] in dropped:
            dropped.add(i)
    if dropped:
        keep = [i for i in range(len(bullets)) if i not in dropped]
        renumber = {old: new for new, old in enumerate(keep)}
        bullets = [bullets[i] for i in keep]
        scopes = [scopes[i] for i in keep]
        parents = [None if parents[i] is None else renumber[parents[i]] for i in keep]  # type: ignore[index]
    has_child = {p for p in parents if p is not None}
    mentioned = [n for s in scopes if s for n in s[0]]
    # definitions by the bullet whose children may read them (a formula bullet's parent)
    defined: dict[int | None, list[tuple[str, str, int]]] = {}
    relations: list[tuple[int, str | None, str]] = []
    integers = {n for n, p in params.items() if p.attr_type in ("int64", "uint64")} | _PLATFORM_NAMES
    for i, b in enumerate(bullets):
        d = definition(_plain(b.text), params)
        if d:
            defined.setdefault(i, []).append((d[0], d[1], b.line))
            integers.add(d[0])
    for i, b in enumerate(bullets):
        formulas = _FORMULA.findall(b.text)
        for tex in formulas:
            read = latex(tex, frozenset(integers))
            if read is not None and read[1] is not None:
                defined.setdefault(parents[i], []).append((read[1], read[0], b.line))
            else:
                relations.append((i, read[0] if read else None, " ".join(tex.split())))
        text = _plain(_FORMULA.sub(" ", b.text))
        if not formulas and i not in has_child and text and "deterministic" not in text and "确定性" not in text:
            s = scopes[i]
            if s is None or s[1].strip():
                doc.limits.append((b.line, _plain(s[1]) if s else text))
    known = set(params) | _PLATFORM_NAMES | set(DType.__members__) | set(DEFAULT_FUNCTIONS)
    for i, require, tex in relations:
        chain: list[int] = []
        j: int | None = i
        while j is not None:
            chain.append(j)
            j = parents[j]
        chain.reverse()  # outermost first
        scope = next((s[0] for k in reversed(chain) if (s := scopes[k])), ())
        when: list[str] = []
        question: Question | None = None
        lets: list[tuple[str, str | None, int, str]] = []
        for k in chain:
            if scopes[k]:
                continue
            words = _plain(_FORMULA.sub(" ", bullets[k].text))
            c = condition(words, params)
            if c:
                when.append(c)
            elif says_condition(words) and question is None:
                question = Question(
                    bullets[k].line,
                    f"which condition does '{_first_clause(words)}' state? write it with the op's parameters",
                )
            for owner in (k, parents[k]):
                for name, expr, line in defined.get(owner, []):
                    if all(name != n for n, *_ in lets):
                        lets.append((name, expr, line, ""))
        if require is not None:
            used = set(re.findall(r"[A-Za-z_]\w*", require)) | {
                n for _, e, *_ in lets if e for n in re.findall(r"[A-Za-z_]\w*", e)
            }
            for name in sorted(used - known - {n for n, *_ in lets}, key=require.find):
                context = next(
                    (_plain(bullets[k].text) for k in reversed(chain) if name in bullets[k].text), _plain(tex)
                )
                lets.insert(0, (name, None, bullets[i].line, context))
        doc.constraints.append(
            DocConstraint(
                line=bullets[i].line,
                products=scope,
                when=when,
                when_question=question,
                lets=lets,
                require=require,
                text=tex,
            )
        )
    return mentioned


def _first_clause(text: str) -> str:
    m = re.match(r"(.+?)[,，。.](?:\s|$)", text)
    return (m.group(1) if m else text)[:120]
