"""The ``inputs`` and ``outputs`` sections: each tensor's name, dtypes, rank, formats and flags (an output's
shape rule is read once the attrs are, by :mod:`codegen.spec.loader.document`).
"""

from __future__ import annotations

from codegen import registry
from codegen.spec.loader.fields import IN_PARAM_TABLE, read_fp32_constant, read_header_name, read_rank, read_tensor_name
from codegen.spec.loader.state import ParseState
from codegen.spec.model import ACL_FORMATS, MAX_RANK, PRIVATE_ACL_FORMATS, TensorSpec
from codegen.spec.yaml_reader import YNode


def read_tensor(st: ParseState, node: YNode, index: int, is_output: bool) -> tuple[TensorSpec, YNode | None]:
    """One entry of ``inputs`` (``is_output`` False) or ``outputs`` (index ``index``, named so when its name
    is unusable), and the node of an output's ``shape`` (None for an input): the shape rule is read once
    every input and attr is known. Problems are recorded."""
    required = ["name", "dtypes", "rank", "description"] + (["shape"] if is_output else [])
    optional = (["const", "nullable"] if is_output else ["optional", "default"]) + ["formats", "header_name", "list"]
    m = st.r.mapping(node, required, optional) or {}
    kind = "output" if is_output else "input"
    name = read_tensor_name(st, m["name"], f"<{kind} {index}>") if "name" in m else f"<{kind} {index}>"
    dtypes = st.r.dtypes(m["dtypes"]) if "dtypes" in m else ()
    if "dtypes" in m and st.r.unread_dtypes(m["dtypes"]):
        st.unread_dtypes.add(name)
    rank = read_rank(st, m["rank"]) if "rank" in m else (0, MAX_RANK)
    description = (st.r.line(m["description"], IN_PARAM_TABLE) or "") if "description" in m else ""
    optional_flag = bool(st.r.boolean(m["optional"])) if "optional" in m else False
    const = bool(st.r.boolean(m["const"])) if "const" in m else False
    nullable = bool(st.r.boolean(m["nullable"])) if "nullable" in m else False
    if nullable and index == 0:
        st.r.error(
            m["nullable"],
            "the first output cannot be nullable (the op's result; its shape decides whether a kernel runs); "
            "make a later output nullable",
        )
    default: float | None = None
    if "default" in m:
        if not optional_flag:
            st.r.error(m["default"], "a default is only allowed on an optional input (optional: true)")
        else:
            default = read_fp32_constant(st, m["default"])
    formats: tuple[str, ...] = ("ND",)
    if "formats" in m:
        listed = st.r.distinct_strings(m["formats"], _format_problem, lambda text: f"duplicate format '{text}'")
        if listed and "ND" not in listed:
            st.r.error(m["formats"], "formats must include ND")
        formats = tuple(listed) or ("ND",)
    header_name = read_header_name(st, m.get("header_name"), name)
    is_list = bool(st.r.boolean(m["list"])) if "list" in m else False
    if is_list and st.family:
        takers = [f.name for f in registry.families() if f.tensor_lists]
        if st.family not in takers:
            takes = f"the {', '.join(takers)} family only" if takers else "no family"
            st.r.error(m["list"], f"'{st.family}' takes no tensor list (an aclTensorList); {takes} does")
    spec = TensorSpec(
        name,
        dtypes,
        rank,
        description,
        optional_flag,
        None,
        node.loc,
        const,
        default,
        formats,
        header_name,
        nullable,
        is_list=is_list,
    )
    return spec, m.get("shape")


def read_tensors(
    st: ParseState, node: YNode | None, what: str, is_output: bool
) -> list[tuple[TensorSpec, YNode | None]]:
    """The tensors of the list ``node`` (``what`` is ``inputs`` or ``outputs``; an empty list is recorded),
    each with its ``shape`` node as :func:`read_tensor` gives it."""
    if node is None:
        return []
    items = st.r.seq(node)
    if items is None:
        return []
    if not items:
        st.r.error(node, f"empty {what} list; an op needs at least one {what[:-1]}")
    return [read_tensor(st, item, i, is_output) for i, item in enumerate(items)]


def _format_problem(text: str) -> str | None:
    """Why ``text`` is not a storage format a tensor may list (a private format, or no ``aclFormat``), or None."""
    if text in PRIVATE_ACL_FORMATS:
        return (
            f"'{text}' is a private format (another data layout), which the generated kernels do not "
            f"read; allowed: {', '.join(ACL_FORMATS)}"
        )
    if text not in ACL_FORMATS:
        return f"unknown format '{text}'; allowed: {', '.join(ACL_FORMATS)}"
    return None
