"""The aclnn parameters only the host reads: ``device.host_attrs`` (attrs the device op does not take) and
``device.host_inputs`` (optional inputs it does not take), and the check that no ``compute`` expression reads
one of them (the kernel gets its attrs and inputs from the device op).
"""

from __future__ import annotations

import ast

from codegen.spec.loader.state import ParseState
from codegen.spec.model import AttrSpec, TensorSpec
from codegen.spec.yaml_reader import YMap, YNode, YScalar, YSeq


def host_attrs_unread(
    st: ParseState,
    node: YNode,
    host_attrs: tuple[str, ...],
    key: str = "host_attrs",
    shape_keys: tuple[str, ...] = (),
) -> None:
    """Records each expression string of the ``compute`` section that names a parameter of ``host_attrs`` (the
    names listed in ``device.<key>``: ``host_attrs`` or ``host_inputs``): the kernel gets its attrs and inputs
    from the device op, which does not take those. The values of the mapping keys ``shape_keys`` (the family's
    keys that only state checked shapes) are not read."""
    if isinstance(node, YMap):
        for k, value in node.entries:
            if k.value not in shape_keys:
                host_attrs_unread(st, value, host_attrs, key, shape_keys)
    elif isinstance(node, YSeq):
        for item in node.items:
            host_attrs_unread(st, item, host_attrs, key, shape_keys)
    elif isinstance(node, YScalar) and isinstance(node.value, str):
        try:
            tree = ast.parse(node.value.strip(), mode="eval")
        except SyntaxError:
            return  # reported by the family's compute parser
        read = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(host_attrs))
        if read:
            st.r.error(
                node,
                f"the compute reads {', '.join(read)}, listed in device.{key}: the device op does not "
                "take it, so the kernel cannot read it",
            )


def read_host_attrs(st: ParseState, node: YNode, attrs: tuple[AttrSpec, ...]) -> tuple[str, ...]:
    """``device.host_attrs``: aclnn attr names (each once) the device op does not take."""
    names = {a.name for a in attrs}
    allowed = ", ".join(a.name for a in attrs) or "(none)"
    out = st.r.distinct_strings(
        node,
        lambda name: None if name in names else f"'{name}' is not an aclnn attr; allowed: {allowed}",
        lambda name: f"'{name}' is listed twice",
    )
    return tuple(out)


def read_host_inputs(st: ParseState, node: YNode, inputs: tuple[TensorSpec, ...]) -> tuple[str, ...]:
    """``device.host_inputs``: optional aclnn inputs (each once) the device op does not take: the L2 API checks
    them (dtype, and shape when given) and launches nothing with them (ops-nn's aclnnLayerNormBackward
    ``biasOptional``). A required input, a name that is no aclnn input or one listed twice is recorded at it."""
    by_name = {t.name: t for t in inputs}
    allowed = ", ".join(t.name for t in inputs if t.optional) or "(none)"

    def problem(name: str) -> str | None:
        t = by_name.get(name)
        if t is None:
            return f"'{name}' is not an aclnn input; allowed: {allowed}"
        if not t.optional:
            return f"aclnn input '{name}' is required: only an optional input may be left off the device op"
        return None

    out = st.r.distinct_strings(node, problem, lambda name: f"'{name}' is listed twice")
    return tuple(out)
