"""The ``attrs`` section: each host attribute's type, allowed values (integers with names, or strings),
default and aclScalar dtypes, and the check of one attr value against its type.
"""

from __future__ import annotations

import math
import re
from typing import cast

from codegen.spec.expr import FLOAT32_MAX, INT64_MAX, INT64_MIN
from codegen.spec.loader.fields import IN_PARAM_TABLE, read_header_name, read_tensor_name, within_dtype
from codegen.spec.loader.state import ParseState
from codegen.spec.model import (
    ANY_LENGTH,
    MAX_ARRAY_LENGTH,
    SCALAR_ACL_IDS,
    SCALAR_DTYPES_DEFAULT,
    AttrSpec,
    number_scalar_dtype,
)
from codegen.spec.naming import a_or_an, value_name_problem
from codegen.spec.yaml_reader import YNode, YScalar, YSeq
from codegen.spec.yaml_reader.nodes import _describe, _join, _show_key
from codegen.spec.yaml_reader.reader import _names
from codegen.types import ARRAY_ATTR_TYPES, ATTR_TYPE_INFO

#: A value of a ``string`` attr (a ``char *`` parameter): a short token.
_STRING_VALUE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def read_attr(st: ParseState, node: YNode) -> AttrSpec:
    """One entry of ``attrs`` (``name``, ``type``, ``description``; ``values``, ``default``, ``dtypes``,
    ``header_name``, ``length``, ``const``). An attr whose type is unknown is poisoned (expressions naming it are not
    checked). Problems are recorded; the returned attr then holds what could be read."""
    r = st.r
    m = (
        r.mapping(
            node, ("name", "type", "description"), ("values", "default", "dtypes", "header_name", "length", "const")
        )
        or {}
    )
    name = read_tensor_name(st, m["name"], "<attr>") if "name" in m else "<attr>"
    type_ = ""
    if "type" in m:
        t = r.string(m["type"])
        if t is not None and t not in ATTR_TYPE_INFO:
            r.error(m["type"], f"unknown attr type '{t}'; allowed: {', '.join(sorted(ATTR_TYPE_INFO))}")
        elif t is not None:
            type_ = t
    if not type_:
        r.poisoned.add(name)
    description = (r.line(m["description"], IN_PARAM_TABLE) or "") if "description" in m else ""
    if type_ in ARRAY_ATTR_TYPES:
        return _read_array_attr(st, node, m, name, type_, description)
    if "length" in m and type_:
        r.error(m["length"], f"length is only allowed for {' and '.join(ARRAY_ATTR_TYPES)} attrs, not {type_}")
    if type_ == "string":
        values = read_string_values(st, m.get("values"), node, name)
    else:
        values = read_attr_values(st, m["values"], type_) if "values" in m else None
    default: int | float | bool | str | None = None
    if "default" in m and type_ == "string":
        d = m["default"].value if isinstance(m["default"], YScalar) else None
        if values is None:
            pass  # the values were reported; the default cannot be checked against them
        elif not isinstance(d, str) or d not in [n for _, n in values]:
            r.error(m["default"], f"default must be one of the values of '{name}': {_names(values)}")
        else:
            default = d
    elif "default" in m and type_:
        default = read_attr_value(st, m["default"], type_, values, "default")
    scalar_dtypes: tuple[str, ...] = SCALAR_DTYPES_DEFAULT if type_ == "scalar" else ()
    if "dtypes" in m:
        if type_ != "scalar":
            r.error(m["dtypes"], f"dtypes are only allowed for scalar attrs, not {type_ or 'this type'}")
        else:
            listed = r.distinct_strings(m["dtypes"], _scalar_dtype_problem, lambda text: f"duplicate dtype '{text}'")
            if listed:
                scalar_dtypes = tuple(listed)
            elif isinstance(m["dtypes"], YSeq) and not m["dtypes"].items:
                r.error(m["dtypes"], f"empty dtype list; give at least one of: {', '.join(SCALAR_ACL_IDS)}")
    if type_ == "scalar" and isinstance(default, float) and "default" in m:
        # a call that leaves the attr out passes the default as a number: an aclScalar of the attr's number
        # dtype (DOUBLE where it takes one, else its first floating dtype)
        dtype = number_scalar_dtype(scalar_dtypes)
        why = f": a call leaving '{name}' out passes its default as {a_or_an(dtype)} {dtype} aclScalar"
        kept = within_dtype(st, m["default"], default, dtype, why)
        if kept is None:
            default = None
    if "default" in m and default is None:
        st.unread_defaults.add(name)
    header_name = read_header_name(st, m.get("header_name"), name)
    const = False
    if "const" in m and type_ in ("scalar", "string"):
        kind = "const aclScalar *" if type_ == "scalar" else "char *"
        r.error(m["const"], f"const is only for a by-value attr; a {type_} attr is a '{kind}' as CANN declares it")
    elif "const" in m:
        const = bool(r.boolean(m["const"]))
    return AttrSpec(name, type_, values, default, description, node.loc, scalar_dtypes, header_name, None, const)


def _read_array_attr(
    st: ParseState, node: YNode, m: dict[str, YNode], name: str, type_: str, description: str
) -> AttrSpec:
    """An ``int_array`` or ``bool_array`` attr: its ``length`` (required: an integer ``n`` or a range
    ``[lo, hi]`` within ``1..MAX_ARRAY_LENGTH``, or ``any``: any length, 0 included, unchecked by the L2 API,
    as aclnnIndexFillTensor's index) and an optional ``default`` (a list of that many integers
    within int64, or booleans). ``values`` and ``dtypes`` are refused. Expression scopes leave arrays out, so
    an expression naming one is an unknown name."""
    r = st.r
    for key in ("values", "dtypes", "const"):
        if key in m:
            what = "is" if key == "const" else "are"
            r.error(m[key], f"{key} {what} not allowed for {a_or_an(type_)} {type_} attr")
    length: tuple[int, int] | None = None
    if "length" not in m:
        r.error(
            node,
            f"{type_} attr '{name}' needs length: an integer (a fixed length) or [lo, hi], within "
            f"1..{MAX_ARRAY_LENGTH}, or '{ANY_LENGTH}'",
            field=_join(node.path, "length"),
        )
    elif not (isinstance(m["length"], YScalar) and m["length"].value == ANY_LENGTH):
        length = _read_length(st, m["length"])
    default: tuple[int, ...] | tuple[bool, ...] | None = None
    if "default" in m:
        default = read_array_value(st, m["default"], type_, length, "default")
        if default is None:
            st.unread_defaults.add(name)
    header_name = read_header_name(st, m.get("header_name"), name)
    return AttrSpec(name, type_, None, default, description, node.loc, (), header_name, length)


def _read_length(st: ParseState, node: YNode) -> tuple[int, int] | None:
    """An array attr's ``length``: ``n`` -> ``(n, n)``, ``[lo, hi]`` -> ``(lo, hi)``, with
    ``1 <= lo <= hi <=`` :data:`MAX_ARRAY_LENGTH`; None (recorded) otherwise."""
    r = st.r
    if isinstance(node, YSeq):
        if len(node.items) != 2:
            r.error(node, f"expected a length n or [lo, hi] (two integers), got a list of {len(node.items)}")
            return None
        lo, hi = r.integer(node.items[0]), r.integer(node.items[1])
        if lo is None or hi is None:
            return None
    else:
        lo = hi = r.integer(node)
        if lo is None or hi is None:
            return None
    if not 1 <= lo <= hi <= MAX_ARRAY_LENGTH:
        shown = f"[{lo}, {hi}]" if isinstance(node, YSeq) else str(lo)
        r.error(node, f"length {shown} is invalid; need 1 <= lo <= hi <= {MAX_ARRAY_LENGTH}")
        return None
    return (lo, hi)


def read_array_value(
    st: ParseState, node: YNode, type_: str, length: tuple[int, int] | None, what: str
) -> tuple[int, ...] | tuple[bool, ...] | None:
    """A value of an array attr (its ``default``, or the example's value; ``what`` names it in messages): a
    list of integers within int64 (``int_array``) or of true/false (``bool_array``) whose length is within
    ``length``; None (recorded) otherwise."""
    r = st.r
    if not isinstance(node, YSeq):
        r.error(node, f"{what} of {a_or_an(type_)} {type_} attr must be a list, got {_describe(node)}")
        return None
    values: list[int | bool] = []
    for item in node.items:
        v = read_attr_value(st, item, "bool" if type_ == "bool_array" else "int64", None, f"an element of {what}")
        if v is None:
            return None
        values.append(cast(int | bool, v))
    if length is not None and not length[0] <= len(values) <= length[1]:
        lo, hi = length
        r.error(node, f"{what} has {len(values)} elements; the length must be {lo if lo == hi else f'{lo}..{hi}'}")
        return None
    return tuple(values)


def read_string_values(
    st: ParseState, node: YNode | None, attr_node: YNode, name: str
) -> tuple[tuple[int, str], ...] | None:
    """The allowed strings of a ``string`` attr (a YAML list) as ``((0, text), (1, text), ...)``; each is
    also registered as the meaning of the string literal ``"text"`` in expressions (its index)."""
    r = st.r
    if node is None:
        r.error(
            attr_node,
            f"string attr '{name}' needs values: the list of strings it accepts",
            field=_join(attr_node.path, "values"),
        )
        r.strings_reported = True
        return None
    if not isinstance(node, YSeq) or not node.items:
        r.error(node, f"values of a string attr are a non-empty list of strings, got {_describe(node)}")
        r.strings_reported = True
        return None
    out: list[tuple[int, str]] = []
    for item in node.items:
        text = item.value if isinstance(item, YScalar) else None
        if not isinstance(text, str) or not _STRING_VALUE.fullmatch(text):
            r.error(item, "a string value must be 1-64 characters of letters, digits, '_', '-' and '.'")
            continue
        if text in [n for _, n in out]:
            r.error(item, f"duplicate value '{text}'")
            continue
        key = f'"{text}"'
        if key in r.string_literals and r.string_literals[key] != len(out):
            r.error(
                item, f"'{text}' is a value of another string attr at another position; literals would be ambiguous"
            )
            continue
        r.string_literals[key] = len(out)
        out.append((len(out), text))
    return tuple(out)


def read_attr_values(st: ParseState, node: YNode, type_: str) -> tuple[tuple[int, str], ...] | None:
    """The ``values`` of an ``int64``/``uint64`` attr: a mapping of integers within the type's range to
    distinct value names, as ``((value, name), ...)`` in file order; None (recorded) for another type, a
    node that is not a mapping, or an empty one. A bad entry is recorded and left out."""
    r = st.r
    if type_ and type_ not in ("int64", "uint64"):
        r.error(node, f"values are only allowed for int64 and uint64 attrs, not {type_}")
        return None
    entries = r.mapping_entries(node, "integer value to name, e.g. {0: none, 1: mean}")
    if entries is None:
        return None
    if not entries:
        r.error(node, "empty values; map at least one integer to a name, or leave values out")
        return None
    info = ATTR_TYPE_INFO.get(type_)
    lo, hi = (info and info.int_range) or (INT64_MIN, INT64_MAX)
    out: list[tuple[int, str]] = []
    used: dict[str, int] = {}
    for key, value in entries:
        k = key.value
        if isinstance(k, bool) or not isinstance(k, int):
            r.error(
                key,
                f"value key {_show_key(k)} is not an integer; values map integers to names, e.g. {{0: none, 1: mean}}",
            )
            continue
        if not lo <= k <= hi:
            r.error(key, f"value {k} is out of range for {type_ or 'int64'}; allowed: {lo}..{hi}")
            continue
        label = r.string(value)
        if label is None:
            continue
        problem = value_name_problem(label)
        if problem:
            r.error(value, problem)
            continue
        if label in used:
            r.error(value, f"duplicate value name '{label}' (also value {used[label]})")
            continue
        used[label] = k
        out.append((k, label))
    return tuple(out)


def read_attr_value(
    st: ParseState, node: YNode, type_: str, values: tuple[tuple[int, str], ...] | None, what: str
) -> int | float | bool | None:
    """A value of an attr of type ``type_`` (its ``default``, or the example's value; ``what`` names it in
    messages): one of ``values`` for a string attr or an integer attr that has them, true/false for a bool, an
    integer within the type's range for ``int64``/``uint64``, a finite number (within float32's range for a
    ``float`` attr, returned as a float) otherwise. None (recorded) when it is not."""
    r = st.r
    v = node.value if isinstance(node, YScalar) else None
    if type_ == "string":
        if values is None:
            return None  # the attr's values were reported: no value can be checked against them
        names = [n for _, n in values]
        if not isinstance(v, str) or v not in names:
            r.error(node, f"{what} must be one of {', '.join(names)}, got {_describe(node)}")
            return None
        return v  # type: ignore[return-value]
    if type_ == "bool":
        if not isinstance(v, bool):
            r.error(node, f"{what} must be true or false for a bool attr, got {_describe(node)}")
            return None
        return v
    if type_ in ("int64", "uint64"):
        if isinstance(v, bool) or not isinstance(v, int):
            r.error(node, f"{what} must be an integer for {a_or_an(type_)} {type_} attr, got {_describe(node)}")
            return None
        lo, hi = ATTR_TYPE_INFO[type_].int_range or (INT64_MIN, INT64_MAX)
        if not lo <= v <= hi:
            r.error(node, f"{what} {v} is out of range for {type_}; allowed: {lo}..{hi}")
            return None
        if values is not None and v not in {k for k, _ in values}:
            allowed = ", ".join(f"{k} ({n})" for k, n in values)
            r.error(node, f"{what} {v} is not one of the values; allowed: {allowed}")
            return None
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        r.error(node, f"{what} must be a finite number for {a_or_an(type_)} {type_} attr, got {_describe(node)}")
        return None
    if type_ == "float" and abs(v) > FLOAT32_MAX:
        # a C float parameter: the literal `<v>F` would not fit (g++ -Woverflow) and the Python API refuses it
        r.error(node, f"{what} must be within float32's range (+-{FLOAT32_MAX:.9g}) for a float attr, got {float(v)!r}")
        return None
    return float(v)


def _scalar_dtype_problem(text: str) -> str | None:
    """Why ``text`` is not a dtype an aclScalar may have (:data:`SCALAR_ACL_IDS`), or None."""
    if text not in SCALAR_ACL_IDS:
        return f"unknown aclScalar dtype '{text}'; allowed: {', '.join(SCALAR_ACL_IDS)}"
    return None
