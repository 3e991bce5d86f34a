"""The aclnn signature's keys: the order of the phase-1 parameters (``signature``) and CANN's header names
of phase 2's parameters (``phase2_header_names``).
"""

from __future__ import annotations

from codegen.spec.loader.state import ParseState
from codegen.spec.model import PHASE2_NAMES, AttrSpec, TensorSpec
from codegen.spec.naming import _C_IDENT, CPP_KEYWORDS
from codegen.spec.yaml_reader import YNode, YScalar


def read_phase2_header_names(st: ParseState, node: YNode) -> tuple[str, str, str, str]:
    """The ``phase2_header_names`` mapping (a phase-2 parameter's usual name -> CANN's header name of it,
    for those that differ) as the four names in order."""
    r = st.r
    m = r.mapping(node, (), PHASE2_NAMES) or {}
    names = list(PHASE2_NAMES)
    for i, usual in enumerate(PHASE2_NAMES):
        item = m.get(usual)
        if item is None:
            continue
        text = item.value if isinstance(item, YScalar) and isinstance(item.value, str) else None
        if text is None or not _C_IDENT.fullmatch(text) or text in CPP_KEYWORDS:
            r.error(item, "a header name must be a C identifier and not a C++ keyword")
        elif text == usual:
            r.error(item, f"'{usual}' is already the name; leave it out")
        elif text in names:
            r.error(item, f"'{text}' is already the name of another phase-2 parameter")
        else:
            names[i] = text
    return (names[0], names[1], names[2], names[3])


def read_signature(
    st: ParseState,
    node: YNode,
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    attrs: tuple[AttrSpec, ...],
) -> tuple[str, ...] | None:
    """The ``signature`` key: the order of the aclnn phase-1 parameters (before ``workspaceSize`` and
    ``executor``), as names of the spec's inputs, attrs and outputs, each exactly once. Problems are
    recorded (an unknown or repeated name at its line, missing names at the list's line); None then."""
    r = st.r
    items = r.seq(node)
    if items is None:
        return None
    known = [t.name for t in inputs] + [a.name for a in attrs] + [t.name for t in outputs]
    order: list[str] = []
    named = r.strings(node)
    ok = len(named) == len(items)  # a non-string item is recorded by strings()
    for item, name in named:
        if name not in known:
            r.error(item, f"'{name}' is not an input, attr or output of the op; allowed: {', '.join(known)}")
            ok = False
        elif name in order:
            r.error(item, f"'{name}' is listed twice; each parameter appears once")
            ok = False
        else:
            order.append(name)
    missing = [n for n in known if n not in order]
    if ok and missing:
        r.error(node, f"the signature must list every input, attr and output once; missing: {', '.join(missing)}")
        ok = False
    return tuple(order) if ok else None
