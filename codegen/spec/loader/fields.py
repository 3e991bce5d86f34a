"""Field readers several sections share: names (UpperCamelCase, tensor and attr names, ``header_name``), rank
ranges, fp32 constants, values within a dtype's range and product lists.
"""

from __future__ import annotations

from codegen.spec.errors import SpecError
from codegen.spec.expr import Num, fp32_constant_message
from codegen.spec.loader.state import ParseState
from codegen.spec.model import MAX_RANK, AttrSpec, TensorSpec
from codegen.spec.naming import _C_IDENT, CPP_KEYWORDS, MAX_NAME_CHARS, TOO_LONG, is_upper_camel
from codegen.spec.scopes import _claim
from codegen.spec.yaml_reader import YNode, YScalar, YSeq
from codegen.types import FLOAT_DTYPE_MAX

#: Where a tensor's or attr's ``description`` lands (the reason a line break in it is refused).
IN_PARAM_TABLE = "it is a cell of the API document's parameter table"


def read_upper_camel(st: ParseState, node: YNode, example: str) -> str:
    """An UpperCamelCase name of at most :data:`MAX_NAME_CHARS` characters (``example`` shows one in the
    message), or ``""`` (recorded)."""
    s = st.r.string(node)
    if s is None:
        return ""
    if len(s) > MAX_NAME_CHARS:
        st.r.error(node, TOO_LONG)
        return ""
    if not is_upper_camel(s):
        st.r.error(
            node, f"'{s}' is not UpperCamelCase (ASCII letters and digits, starting with a capital, e.g. {example})"
        )
        return ""
    return s


def read_rank(st: ParseState, node: YNode) -> tuple[int, int]:
    """A ``rank`` range ``[lo, hi]`` with ``0 <= lo <= hi <=`` :data:`MAX_RANK`; ``(0, MAX_RANK)`` (recorded)
    when it is not one."""
    items = st.r.seq(node)
    if items is None:
        return (0, MAX_RANK)
    if len(items) != 2:
        st.r.error(node, f"expected [lo, hi] (two integers), got a list of {len(items)}")
        return (0, MAX_RANK)
    lo, hi = st.r.integer(items[0]), st.r.integer(items[1])
    if lo is None or hi is None:
        return (0, MAX_RANK)
    if not 0 <= lo <= hi <= MAX_RANK:
        st.r.error(node, f"rank range [{lo}, {hi}] is invalid; need 0 <= lo <= hi <= {MAX_RANK}")
        return (0, MAX_RANK)
    return (lo, hi)


def read_tensor_name(st: ParseState, node: YNode, fallback: str) -> str:
    """The tensor or attr name; an invalid name still reserves its text to avoid follow-on errors."""
    raw = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None
    name = st.r.name(node)
    if name is not None:
        if not _claim(st.r, st.taken, node, name):
            st.r.poisoned.add(name)
        return name
    if raw:
        st.r.poisoned.add(raw)
    return raw or fallback


def read_fp32_constant(st: ParseState, node: YNode) -> float | None:
    """A finite number within the constant rule's range (:func:`fp32_constant_message`: the device gets
    it as a float32), or None (recorded)."""
    number = st.r.number(node)
    if number is None:
        return None
    message = fp32_constant_message(Num(float(number)))
    if message is not None:
        st.r.error(node, message)
        return None
    return float(number)


def header_name_clashes(st: ParseState, params: list[TensorSpec | AttrSpec]) -> None:
    """Reports a ``header_name`` that is another parameter's name in the aclnn header (its ``c_name``)."""
    for p in params:
        others = [o.name for o in params if o is not p and o.c_name == p.c_name]
        if p.header_name and others:
            st.r.errors.append(
                SpecError(
                    p.loc,
                    f"{p.name}.header_name",
                    f"'{p.c_name}' is also the header name of parameter '{others[0]}'",
                )
            )


def read_header_name(st: ParseState, node: YNode | None, name: str) -> str:
    """A parameter's ``header_name`` (``""`` when absent): a C identifier, not a C++ keyword, other than
    ``name`` (:meth:`header_name_clashes` compares it with the other parameters)."""
    if node is None:
        return ""
    r = st.r
    text = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None
    if text is None or not _C_IDENT.fullmatch(text) or text in CPP_KEYWORDS:
        r.error(node, "header_name must be a C identifier and not a C++ keyword")
        return ""
    if text == name:
        r.error(node, f"header_name '{text}' is the parameter's name; leave header_name out")
        return ""
    return text


def within_dtype(st: ParseState, node: YNode, value: float, dtype: str, why: str = "") -> float | None:
    """``value``, or None (recorded, with ``why`` appended: why ``dtype`` is the one) when it is beyond the
    finite range of the floating dtype ``dtype`` (:data:`FLOAT_DTYPE_MAX`; another name is not checked): the
    call would pass an infinity."""
    limit = FLOAT_DTYPE_MAX.get(dtype)
    if limit is not None and abs(value) > limit:
        st.r.error(node, f"{value:g} is beyond {dtype}'s range (+-{limit:.9g}){why}")
        return None
    return value


def read_products(st: ParseState, node: YNode) -> tuple[str, ...]:
    """A non-empty list of distinct catalogue product names (not checked against the catalogue when it is
    None); problems recorded, bad items left out."""
    catalogue = st.catalogue
    if isinstance(node, YSeq) and not node.items:
        known = ", ".join(sorted(catalogue.names)) if catalogue else "the catalogue's products"
        st.r.error(node, f"empty product list; give at least one of: {known}")

    def unknown(p: str) -> str | None:
        if catalogue is not None and p not in catalogue:
            return f"unknown product '{p}'; allowed: {', '.join(sorted(catalogue.names))}"
        return None

    return tuple(st.r.distinct_strings(node, unknown, lambda p: f"duplicate product '{p}'"))
