"""Loading and validating op specs: the op parser and the directory loader.

The spec stage is split in four modules: :mod:`codegen.spec.yaml_reader` reads YAML into located nodes
and gives typed access to them (:class:`~codegen.spec.yaml_reader.Reader`), :mod:`codegen.spec.naming`
holds the naming rules, :mod:`codegen.spec.catalogue` loads the product catalogue, and this module parses
each op spec against an explicit schema into the frozen model of :mod:`codegen.spec.model`; every problem
becomes a :class:`~codegen.spec.errors.SpecError` and the loaders raise all of them together as
:class:`~codegen.spec.errors.SpecErrors`. Checks that relate entries (unique names, expression names, the
example against the tensors, tiling against the products) run after the fields parse.

The loader knows no family by name: ``family:`` must name a package of the family registry
(:mod:`codegen.registry`), which parses the family's ``compute`` section (a
:data:`~codegen.spec.scopes.ComputeParser`), says whether a ``device`` section is allowed and gives the
family's expressions to check for a division by zero.

Nothing here writes files.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
import string
import struct
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import cast

from codegen import registry
from codegen.paths import spec_files
from codegen.registry import FamilyName, family_names
from codegen.spec.catalogue import (
    CATALOGUE_FILE,
    UB_BLOCK_BYTES,
    _load_catalogue,
    _sorted,
    load_catalogue,
)
from codegen.spec.errors import SourceLoc, SpecError, SpecErrors
from codegen.spec.expr import (
    FLOAT32_MAX,
    INT64_MAX,
    INT64_MIN,
    Expr,
    ExprEvalError,
    ExprType,
    Num,
    as_shape,
    evaluate,
    fp32_constant_message,
    to_source,
)
from codegen.spec.expr import names as expr_names
from codegen.spec.generated_names import (
    describe_kind,
    generated_name_problems,
    op_files,
    output_path_collisions,
    producer_text,
    tree_files,
)
from codegen.spec.model import (
    ACL_FORMATS,
    ACLNN_STATUS_CODES,
    ATTR_TYPES,
    DEVICE_ATTR_TYPES,
    MAX_RANK,
    PHASE2_NAMES,
    PRIVATE_ACL_FORMATS,
    SCALAR_ACL_IDS,
    SCALAR_DTYPES_DEFAULT,
    AttrSpec,
    Catalogue,
    Constraint,
    DeviceAttr,
    DeviceInterface,
    DeviceTensor,
    DType,
    DtypeCombo,
    Example,
    ExampleTensor,
    FamilyCompute,
    OpSpec,
    TensorSpec,
    TilingSpec,
    absent_optional_shapes,
    snake_case,
)
from codegen.spec.naming import (
    _C_IDENT,
    CPP_KEYWORDS,
    MAX_NAME_CHARS,
    PLATFORM_NAMES,
    RESERVED_NAMES,
    TOO_LONG,
    a_or_an,
    is_upper_camel,
    kernel_problem,
    ops_nn_folder,
    value_name_problem,
)
from codegen.spec.rules import (
    SHAPE_ATOMS,
    atomize,
    constant_problem,
    excludes_zero,
    nonzero_condition,
    zero_division,
)
from codegen.spec.scopes import (
    ComputeContext,
    _claim,
    constraint_scope,
    shape_scope,
)
from codegen.spec.yaml_reader import (
    Reader,
    YMap,
    YNode,
    YScalar,
    YSeq,
    _describe,
    _join,
    _names,
    _show_key,
    read_yaml,
)
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, FLOAT_DTYPE_MAX, AclnnStatus

#: A value of a ``string`` attr (a ``char *`` parameter): a short token.
_STRING_VALUE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")

__all__ = [
    "load_catalogue",
    "load_op_spec",
    "load_specs",
]


def _carrier_entries(r: Reader, items: Sequence[YNode], names: Collection[str], carried: set[str]) -> Iterator[YNode]:
    """Yields the entries of a device ``inputs``/``outputs``/``attrs`` list; after each entry that recorded an
    error, its ``from`` (when it names one of ``names``) joins ``carried``, and an entry whose ``from`` names
    none of them is counted in ``carried`` as the marker ``""``: the caller then reports no aclnn name as
    missing (the entry that failed may have been meant to carry it; the failure itself was reported)."""
    for item in items:
        before = len(r.errors)
        yield item
        if len(r.errors) == before:
            continue
        source = None
        if isinstance(item, YMap):
            source = next((v.value for k, v in item.entries if k.value == "from" and isinstance(v, YScalar)), None)
        carried.add(source if isinstance(source, str) and source in names else "")


def _families() -> list[str]:
    return list(family_names())


# ---------------------------------------------------------------------------------------------- op spec

_ROOT_REQUIRED = (
    "op",
    "op_type",
    "category",
    "family",
    "summary",
    "products",
    "deterministic",
    "inputs",
    "outputs",
    "compute",
    "tiling",
)
_ROOT_OPTIONAL = (
    "kernel",
    "attrs",
    "signature",
    "device",
    "constraints",
    "notes",
    "example",
    "deterministic_gm_atomics",
    "dtype_combos",
    "shape_status",
    "phase2_header_names",
)


class _OpParser:
    """Parses one op spec document; problems go to ``reader.errors``."""

    def __init__(self, root: YNode, path: Path, catalogue: Catalogue | None, r: Reader) -> None:
        self.root = root
        self.path = path
        self.catalogue = catalogue
        self.r = r
        self.taken: dict[str, tuple[str, SourceLoc]] = {}
        self.op_products: tuple[str, ...] = ()  # the op's products, once parsed
        #: the tensors whose ``dtypes`` hold an item naming no dtype (reported there): other entries are not
        #: checked against their dtypes, as the unknown name may have meant any dtype
        self.unread_dtypes: set[str] = set()

    # -- helpers

    def upper_camel(self, node: YNode, example: str) -> str:
        s = self.r.string(node)
        if s is None:
            return ""
        if len(s) > MAX_NAME_CHARS:
            self.r.error(node, TOO_LONG)
            return ""
        if not is_upper_camel(s):
            self.r.error(
                node, f"'{s}' is not UpperCamelCase (ASCII letters and digits, starting with a capital, e.g. {example})"
            )
            return ""
        return s

    def rank(self, node: YNode) -> tuple[int, int]:
        items = self.r.seq(node)
        if items is None:
            return (0, MAX_RANK)
        if len(items) != 2:
            self.r.error(node, f"expected [lo, hi] (two integers), got a list of {len(items)}")
            return (0, MAX_RANK)
        lo, hi = self.r.integer(items[0]), self.r.integer(items[1])
        if lo is None or hi is None:
            return (0, MAX_RANK)
        if not 0 <= lo <= hi <= MAX_RANK:
            self.r.error(node, f"rank range [{lo}, {hi}] is invalid; need 0 <= lo <= hi <= {MAX_RANK}")
            return (0, MAX_RANK)
        return (lo, hi)

    def tensor_name(self, node: YNode, fallback: str) -> str:
        """The tensor or attr name; an invalid name still reserves its text to avoid follow-on errors."""
        raw = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None
        name = self.r.name(node)
        if name is not None:
            if not _claim(self.r, self.taken, node, name):
                self.r.poisoned.add(name)
            return name
        if raw:
            self.r.poisoned.add(raw)
        return raw or fallback

    # -- sections

    def tensor(self, node: YNode, index: int, is_output: bool) -> tuple[TensorSpec, YNode | None]:
        required = ["name", "dtypes", "rank", "description"] + (["shape"] if is_output else [])
        optional = (["const"] if is_output else ["optional", "default"]) + ["formats", "header_name"]
        m = self.r.mapping(node, required, optional) or {}
        kind = "output" if is_output else "input"
        name = self.tensor_name(m["name"], f"<{kind} {index}>") if "name" in m else f"<{kind} {index}>"
        dtypes = self.r.dtypes(m["dtypes"]) if "dtypes" in m else ()
        if "dtypes" in m and self.r.unread_dtypes(m["dtypes"]):
            self.unread_dtypes.add(name)
        rank = self.rank(m["rank"]) if "rank" in m else (0, MAX_RANK)
        description = (self.r.string(m["description"]) or "") if "description" in m else ""
        optional_flag = bool(self.r.boolean(m["optional"])) if "optional" in m else False
        const = bool(self.r.boolean(m["const"])) if "const" in m else False
        default: float | None = None
        if "default" in m:
            if not optional_flag:
                self.r.error(m["default"], "a default is only allowed on an optional input (optional: true)")
            else:
                default = self.fp32_constant(m["default"])
        formats: tuple[str, ...] = ("ND",)
        if "formats" in m:
            listed = []
            for item, text in self.r.strings(m["formats"]):
                if text in PRIVATE_ACL_FORMATS:
                    self.r.error(
                        item,
                        f"'{text}' is a private format (another data layout), which the generated kernels do not "
                        f"read; allowed: {', '.join(ACL_FORMATS)}",
                    )
                elif text not in ACL_FORMATS:
                    self.r.error(item, f"unknown format '{text}'; allowed: {', '.join(ACL_FORMATS)}")
                elif text in listed:
                    self.r.error(item, f"duplicate format '{text}'")
                else:
                    listed.append(text)
            if listed and "ND" not in listed:
                self.r.error(m["formats"], "formats must include ND")
            formats = tuple(listed) or ("ND",)
        header_name = self.header_name(m.get("header_name"), name)
        spec = TensorSpec(
            name, dtypes, rank, description, optional_flag, None, node.loc, const, default, formats, header_name
        )
        return spec, m.get("shape")

    def fp32_constant(self, node: YNode) -> float | None:
        """A finite number within the constant rule's range (:func:`fp32_constant_message`: the device gets
        it as a float32), or None (recorded)."""
        number = self.r.number(node)
        if number is None:
            return None
        message = fp32_constant_message(Num(float(number)))
        if message is not None:
            self.r.error(node, message)
            return None
        return float(number)

    def header_name_clashes(self, params: list[TensorSpec | AttrSpec]) -> None:
        """Reports a ``header_name`` that is another parameter's name in the aclnn header (its ``c_name``)."""
        for p in params:
            others = [o.name for o in params if o is not p and o.c_name == p.c_name]
            if p.header_name and others:
                self.r.errors.append(
                    SpecError(
                        p.loc,
                        f"{p.name}.header_name",
                        f"'{p.c_name}' is also the header name of parameter '{others[0]}'",
                    )
                )

    def header_name(self, node: YNode | None, name: str) -> str:
        """A parameter's ``header_name`` (``""`` when absent): a C identifier, not a C++ keyword, other than
        ``name`` (:meth:`header_name_clashes` compares it with the other parameters)."""
        if node is None:
            return ""
        r = self.r
        text = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None
        if text is None or not _C_IDENT.fullmatch(text) or text in CPP_KEYWORDS:
            r.error(node, "header_name must be a C identifier and not a C++ keyword")
            return ""
        if text == name:
            r.error(node, f"header_name '{text}' is the parameter's name; leave header_name out")
            return ""
        return text

    def attr(self, node: YNode) -> AttrSpec:
        r = self.r
        m = r.mapping(node, ("name", "type", "description"), ("values", "default", "dtypes", "header_name")) or {}
        name = self.tensor_name(m["name"], "<attr>") if "name" in m else "<attr>"
        type_ = ""
        if "type" in m:
            t = r.string(m["type"])
            if t is not None and t not in ATTR_TYPES:
                r.error(m["type"], f"unknown attr type '{t}'; allowed: {', '.join(sorted(ATTR_TYPES))}")
            elif t is not None:
                type_ = t
        if not type_:
            r.poisoned.add(name)
        description = (r.string(m["description"]) or "") if "description" in m else ""
        if type_ == "string":
            values = self.string_values(m.get("values"), node, name)
        else:
            values = self.attr_values(m["values"], type_) if "values" in m else None
        default: int | float | bool | str | None = None
        if "default" in m and type_ == "string":
            d = m["default"].value if isinstance(m["default"], YScalar) else None
            if not isinstance(d, str) or d not in [n for _, n in values or ()]:
                r.error(m["default"], f"default must be one of the values of '{name}': {_names(values)}")
            else:
                default = d
        elif "default" in m and type_:
            default = self.attr_value(m["default"], type_, values, "default")
        scalar_dtypes: tuple[str, ...] = SCALAR_DTYPES_DEFAULT if type_ == "scalar" else ()
        if "dtypes" in m:
            if type_ != "scalar":
                r.error(m["dtypes"], f"dtypes are only allowed for scalar attrs, not {type_ or 'this type'}")
            else:
                listed: list[str] = []
                for item, text in r.strings(m["dtypes"]):
                    if text not in SCALAR_ACL_IDS:
                        r.error(item, f"unknown aclScalar dtype '{text}'; allowed: {', '.join(SCALAR_ACL_IDS)}")
                    elif text in listed:
                        r.error(item, f"duplicate dtype '{text}'")
                    else:
                        listed.append(text)
                if listed:
                    scalar_dtypes = tuple(listed)
                elif isinstance(m["dtypes"], YSeq) and not m["dtypes"].items:
                    r.error(m["dtypes"], f"empty dtype list; give at least one of: {', '.join(SCALAR_ACL_IDS)}")
        header_name = self.header_name(m.get("header_name"), name)
        return AttrSpec(name, type_, values, default, description, node.loc, scalar_dtypes, header_name)

    def string_values(self, node: YNode | None, attr_node: YNode, name: str) -> tuple[tuple[int, str], ...] | None:
        """The allowed strings of a ``string`` attr (a YAML list) as ``((0, text), (1, text), ...)``; each is
        also registered as the meaning of the string literal ``"text"`` in expressions (its index)."""
        r = self.r
        if node is None:
            r.error(
                attr_node,
                f"string attr '{name}' needs values: the list of strings it accepts",
                field=_join(attr_node.path, "values"),
            )
            return None
        if not isinstance(node, YSeq) or not node.items:
            r.error(node, f"values of a string attr are a non-empty list of strings, got {_describe(node)}")
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

    def attr_values(self, node: YNode, type_: str) -> tuple[tuple[int, str], ...] | None:
        r = self.r
        if type_ and type_ not in ("int64", "uint64"):
            r.error(node, f"values are only allowed for int64 and uint64 attrs, not {type_}")
            return None
        if not isinstance(node, YMap):
            r.error(
                node, f"expected a mapping of integer value to name, e.g. {{0: none, 1: mean}}, got {_describe(node)}"
            )
            return None
        if not node.entries:
            r.error(node, "empty values; map at least one integer to a name, or leave values out")
            return None
        info = ATTR_TYPE_INFO.get(type_)
        lo, hi = (info and info.int_range) or (INT64_MIN, INT64_MAX)
        out: list[tuple[int, str]] = []
        used: dict[str, int] = {}
        for key, value in node.entries:
            k = key.value
            if isinstance(k, bool) or not isinstance(k, int):
                r.error(
                    key,
                    f"value key {_show_key(k)} is not an integer; "
                    "values map integers to names, e.g. {0: none, 1: mean}",
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

    def attr_value(
        self, node: YNode, type_: str, values: tuple[tuple[int, str], ...] | None, what: str
    ) -> int | float | bool | None:
        r = self.r
        v = node.value if isinstance(node, YScalar) else None
        if type_ == "string":
            names = [n for _, n in values or ()]
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
            r.error(
                node, f"{what} must be within float32's range (+-{FLOAT32_MAX:.9g}) for a float attr, got {float(v)!r}"
            )
            return None
        return float(v)

    def tiling(self, node: YNode) -> TilingSpec:
        r = self.r
        m = r.mapping(node, ("buffer_num", "ub_reserved_bytes", "min_bytes_per_core")) or {}
        buffer_num = r.integer(m["buffer_num"], 1, 8) if "buffer_num" in m else None
        reserved = r.integer(m["ub_reserved_bytes"], 0, INT64_MAX) if "ub_reserved_bytes" in m else None
        if reserved is not None and reserved % UB_BLOCK_BYTES:
            r.error(m["ub_reserved_bytes"], f"{reserved} is not a multiple of {UB_BLOCK_BYTES} (the UB block size)")
        min_bytes = r.integer(m["min_bytes_per_core"], 1, INT64_MAX) if "min_bytes_per_core" in m else None
        return TilingSpec(buffer_num or 1, reserved or 0, min_bytes or 1, node.loc)

    def example_tensor(self, node: YNode, tensor: TensorSpec | None, need_values: bool) -> ExampleTensor | None:
        r = self.r
        m = r.mapping(
            node,
            ("shape", "dtype", "values") if need_values else ("shape", "dtype"),
            () if need_values else ("values",),
        )
        if m is None:
            return None
        shape: list[int] = []
        ok = True
        if "shape" in m:
            for item in r.seq(m["shape"]) or []:
                d = r.integer(item, 0)
                ok = ok and d is not None
                shape.append(d or 0)
            if tensor is not None and isinstance(m["shape"], YSeq):
                lo, hi = tensor.rank
                if not lo <= len(shape) <= hi:
                    r.error(m["shape"], f"rank {len(shape)} is outside the rank range [{lo}, {hi}] of '{tensor.name}'")
        else:
            ok = False
        dtype = r.dtype(m["dtype"]) if "dtype" in m else None
        if dtype is not None and tensor is not None and tensor.dtypes and dtype not in tensor.dtypes:
            if tensor.name not in self.unread_dtypes:  # else the unknown dtype listed may have meant this one
                allowed = ", ".join(d.name for d in tensor.dtypes)
                r.error(m["dtype"], f"dtype {dtype.name} is not accepted by '{tensor.name}'; allowed: {allowed}")
        elif dtype is not None and self.catalogue is not None:
            # The example program runs on any of the op's products: its dtypes must exist on all of them.
            names = set(self.catalogue.names)
            lacking = [p for p in self.op_products if p in names and not self.catalogue.get(p).supports(dtype)]
            if lacking:
                everywhere = [
                    d.name
                    for d in (tensor.dtypes if tensor is not None else ())
                    if all(self.catalogue.get(p).supports(d) for p in self.op_products if p in names)
                ]
                r.error(
                    m["dtype"],
                    f"dtype {dtype.name} does not exist on {', '.join(lacking)}, one of the op's products, and the "
                    f"example program runs on any of them; use a dtype every product has: {', '.join(everywhere)}",
                )
        values: tuple[float | int | bool, ...] | None = None
        if "values" in m:
            items = r.seq(m["values"])
            if items is not None:
                vals = [self.example_value(item, dtype) for item in items]
                values = tuple(v for v in vals if v is not None)
                need = math.prod(shape)
                if ok and len(items) != need:
                    r.error(m["values"], f"{len(items)} values for shape {shape}; need {need}")
        if dtype is None or not ok:
            return None
        return ExampleTensor(tuple(shape), dtype, values, node.loc)

    def example_value(self, node: YNode, dtype: DType | None) -> float | int | bool | None:
        v = node.value if isinstance(node, YScalar) else None
        if isinstance(v, bool):
            if dtype is DType.BOOL:
                return v
            self.r.error(node, f"expected a number for dtype {dtype.name if dtype else '?'}, got {_describe(node)}")
            return None
        if dtype is DType.BOOL:
            if v in (0, 1) and isinstance(v, int):
                return bool(v)
            self.r.error(node, f"expected true, false, 0 or 1 for dtype BOOL, got {_describe(node)}")
            return None
        if dtype is not None and dtype.is_integer:
            if not isinstance(v, int):
                self.r.error(node, f"expected an integer for dtype {dtype.name}, got {_describe(node)}")
                return None
            bits = dtype.itemsize * 8
            lo, hi = (0, (1 << bits) - 1) if dtype.name.startswith("U") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if not lo <= v <= hi:
                self.r.error(node, f"{v} is out of range for {dtype.name}; allowed: {lo}..{hi}")
                return None
            return v
        number = self.r.number(node)
        if number is None:
            return None
        return self.within_dtype(node, float(number), dtype.name if dtype is not None else "")

    def within_dtype(self, node: YNode, value: float, dtype: str) -> float | None:
        """``value``, or None (recorded) when it is beyond the finite range of the floating dtype ``dtype``
        (:data:`FLOAT_DTYPE_MAX`; another name is not checked): the example program would hold an infinity."""
        limit = FLOAT_DTYPE_MAX.get(dtype)
        if limit is not None and abs(value) > limit:
            self.r.error(node, f"{value:g} is beyond {dtype}'s range (+-{limit:.9g})")
            return None
        return value

    def example(
        self,
        node: YNode,
        inputs: tuple[TensorSpec, ...],
        attrs: tuple[AttrSpec, ...],
        outputs: tuple[TensorSpec, ...],
        compute: FamilyCompute | None = None,
    ) -> Example | None:
        """The ``example`` section; its output shape must be the shape rule's for the example's inputs, as
        the family's compute adjusts it for the example's attrs (:meth:`FamilyCompute.first_output_shape`:
        a reduction's mean or sum is 0-d)."""
        r = self.r
        m = r.mapping(node, ("inputs", "output"), ("attrs",))
        if m is None:
            return None
        by_name = {t.name: t for t in inputs}
        got: dict[str, ExampleTensor] = {}
        ok = True
        if "inputs" in m:
            im = m["inputs"]
            if not isinstance(im, YMap):
                r.error(im, f"expected a mapping of input name to tensor, got {_describe(im)}")
                ok = False
            else:
                for key, value in im.entries:
                    if key.value not in by_name:
                        r.error(key, f"{_show_key(key.value)} is not an input; allowed: {', '.join(by_name)}")
                        ok = False
                        continue
                    et = self.example_tensor(value, by_name[str(key.value)], True)
                    if et is None:
                        ok = False
                    else:
                        got[str(key.value)] = et
                for t in inputs:
                    if not t.optional and t.name not in got and not any(k.value == t.name for k, _ in im.entries):
                        r.error(im, f"missing example input '{t.name}'; every required input needs one")
                        ok = False
        attr_values: dict[str, int | float | bool] = {}
        attr_by_name = {a.name: a for a in attrs}
        if "attrs" in m:
            am = m["attrs"]
            if not isinstance(am, YMap):
                r.error(am, f"expected a mapping of attr name to value, got {_describe(am)}")
                ok = False
            else:
                for key, value in am.entries:
                    a = attr_by_name.get(str(key.value)) if isinstance(key.value, str) else None
                    if a is None:
                        allowed = ", ".join(attr_by_name) or "(none)"
                        r.error(key, f"{_show_key(key.value)} is not an attr; allowed: {allowed}")
                        ok = False
                        continue
                    v = self.attr_value(value, a.type, a.values, "value") if a.type else None
                    if a.type == "scalar" and a.scalar_dtypes[:1] == ("FLOAT",) and isinstance(v, float):
                        # the example program makes the aclScalar from a C float (its first dtype)
                        v = self.within_dtype(value, v, "FLOAT")
                    if v is None:
                        ok = False
                    else:
                        attr_values[a.name] = v
        for a in attrs:
            if a.name not in attr_values and a.default is not None:
                attr_values[a.name] = a.default  # type: ignore[assignment]
                d = a.default
                limit = FLOAT_DTYPE_MAX["FLOAT"]
                if a.scalar_dtypes[:1] == ("FLOAT",) and isinstance(d, float) and abs(d) > limit:
                    # the default becomes the example program's C float value (a host-side double elsewhere)
                    r.error(
                        m.get("attrs", node),
                        f"the default {d:g} of '{a.name}' is the example's value, and it is beyond FLOAT's range "
                        f"(+-{limit:.9g}); give '{a.name}' an example value within it",
                    )
                    ok = False
            elif a.name not in attr_values and not any(k.value == a.name for k, _ in _entries(m.get("attrs"))):
                where = m.get("attrs", node)
                r.error(where, f"missing example attr '{a.name}' (it has no default)")
                ok = False
        output = None
        if "output" in m:
            output = self.example_tensor(m["output"], outputs[0] if outputs else None, False)
        if output is None or not ok:
            return None
        if outputs and outputs[0].shape is not None and "output" in m:
            env: dict[str, object] = {**absent_optional_shapes(inputs, got), **got, **attr_values}
            try:
                ruled = as_shape(evaluate(outputs[0].shape, env))
                expected = compute.first_output_shape(ruled, attr_values) if compute is not None else ruled
            except ExprEvalError as exc:
                r.error(
                    m["output"], f"the example inputs do not fit the output shape {to_source(outputs[0].shape)}: {exc}"
                )
                return None
            if expected != output.shape:
                r.error(
                    m["output"],
                    f"example output shape {list(output.shape)} does not match "
                    + (
                        f"{to_source(outputs[0].shape)} = {list(expected)}"
                        if expected == ruled
                        else f"{list(expected)}, the shape the example's attrs select (the shape rule "
                        f"{to_source(outputs[0].shape)} gives {list(ruled)})"
                    ),
                )
                return None
        ordered = tuple((t.name, got[t.name]) for t in inputs if t.name in got)
        attr_pairs = tuple((a.name, attr_values[a.name]) for a in attrs if a.name in attr_values)
        return Example(ordered, attr_pairs, output, node.loc)

    def _rejecting_products(
        self, c: Constraint, scope: Mapping[str, object], products: tuple[str, ...]
    ) -> tuple[list[str], Mapping[str, object]]:
        """The products of ``products`` (in the catalogue) on which ``c`` rejects the call ``scope`` describes
        (names of tensors, attrs and dtypes; ``coreNum``/``ubBytes`` are added per product), and the
        environment of the last rejection (its let values fill the message). A constraint that cannot be
        evaluated on ``scope`` rejects nothing."""
        rejected_on: list[str] = []
        seen_env: Mapping[str, object] = scope
        for p in c.products:
            if p not in products or self.catalogue is None or p not in self.catalogue:
                continue
            product = self.catalogue.get(p)
            env = {**scope, "coreNum": product.vector_core_num, "ubBytes": product.ub_bytes}
            try:
                if c.when is not None and not evaluate(c.when, env):
                    continue
                for let_name, e in c.let:
                    env[let_name] = evaluate(e, env)
                if not bool(evaluate(c.require, env)):
                    rejected_on.append(p)
                    seen_env = env
            except (ExprEvalError, ArithmeticError, ValueError, TypeError):
                continue
        return rejected_on, seen_env

    def defaults_within_constraints(
        self,
        node: YNode,
        constraints: Sequence[Constraint],
        attrs: tuple[AttrSpec, ...],
        products: tuple[str, ...],
    ) -> None:
        """Records an error at an attr's ``default`` for each constraint that reads only attrs (and platform
        values) that all have defaults and rejects those defaults on a product it applies to: the default
        is the value of a call that omits the attr (the Python API, the check's base call), which phase 1
        would then refuse. Reported at the default of the first such attr the constraint reads."""
        default_nodes: dict[str, YNode] = {}
        for item in node.items if isinstance(node, YSeq) else []:
            if isinstance(item, YMap):
                fields = {str(k.value): v for k, v in item.entries}
                name = fields.get("name")
                if isinstance(name, YScalar) and "default" in fields:
                    default_nodes[str(name.value)] = fields["default"]
        by_name = {a.name: a for a in attrs}
        defaults = {a.name: a.expr_value(a.default) for a in attrs if a.default is not None}
        platform = {"coreNum", "ubBytes", *DType.__members__}
        for c in constraints:
            let_names = {n for n, _ in c.let}
            read = set().union(*(expr_names(e) for e in (c.require, *(e for _, e in c.let)))) - let_names
            if c.when is not None:
                read |= expr_names(c.when)
            attrs_read = [a.name for a in attrs if a.name in read]
            if not attrs_read or not read <= set(attrs_read) | platform or any(n not in defaults for n in attrs_read):
                continue
            scope: dict[str, object] = {name: d for name, d in DType.__members__.items()}
            scope.update({n: defaults[n] for n in attrs_read})
            rejected_on, seen_env = self._rejecting_products(c, scope, products)
            where = default_nodes.get(attrs_read[0])
            if rejected_on and where is not None:
                shown = ", ".join(f"{n} {by_name[n].default!r}" for n in attrs_read)
                self.r.error(
                    where,
                    f"the default ({shown}) violates constraint '{c.name}' ({to_source(c.require)}) on "
                    f"{', '.join(rejected_on)}: {_fill_placeholders(c.message, seen_env)}; a call that omits "
                    "the attr would fail with status "
                    f"{c.status}. Pick a default the constraint accepts",
                )

    def example_within_constraints(
        self,
        node: YNode,
        example: Example,
        constraints: Sequence[Constraint],
        attrs: tuple[AttrSpec, ...],
        outputs: tuple[TensorSpec, ...],
        products: tuple[str, ...],
    ) -> None:
        """Records an error at the example's ``attrs`` (else the example) for each constraint that rejects the
        example call on a product it applies to: the generated example program runs on any of the op's
        products, and phase 1 would refuse it there. The example's tensors, its attrs (defaults filled in)
        and each product's ``coreNum``/``ubBytes`` make the environment; a constraint that cannot be
        evaluated on it (it reads an absent optional tensor, or a product not in the catalogue) is skipped."""
        scope: dict[str, object] = {name: d for name, d in DType.__members__.items()}
        scope.update({name: t for name, t in example.inputs})
        if outputs:
            scope[outputs[0].name] = example.output
        by_name = {a.name: a for a in attrs}
        for name, value in example.attrs:
            scope[name] = by_name[name].expr_value(value) if name in by_name else value
        where = next((v for k, v in node.entries if k.value == "attrs"), node) if isinstance(node, YMap) else node
        for c in constraints:
            rejected_on, seen_env = self._rejecting_products(c, scope, products)
            if rejected_on:
                text = _fill_placeholders(c.message, seen_env)
                self.r.error(
                    where,
                    f"the example call violates constraint '{c.name}' ({to_source(c.require)}) on "
                    f"{', '.join(rejected_on)}: {text}; the example program would fail there with status "
                    f"{c.status}. Change the example's attrs or tensors",
                )

    def constraint(
        self,
        node: YNode,
        products: tuple[str, ...],
        seen: dict[str, int],
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        attrs: tuple[AttrSpec, ...],
    ) -> Constraint | None:
        r = self.r
        m = r.mapping(node, ("name", "require", "message"), ("products", "when", "let", "status"))
        if m is None:
            return None
        ok = True
        name = ""
        if "name" in m:
            n = r.name(m["name"])
            if n is not None and n in seen:
                r.error(m["name"], f"duplicate constraint name '{n}' (first at line {seen[n]})")
            elif n is not None:
                seen[n] = m["name"].loc.line
                name = n
        cons_products = products
        if "products" in m:
            listed = []
            for item, p in r.strings(m["products"]):
                if p not in products:
                    r.error(item, f"'{p}' is not one of this op's products; allowed: {', '.join(products)}")
                elif p in listed:
                    r.error(item, f"duplicate product '{p}'")
                else:
                    listed.append(p)
            cons_products = tuple(listed)
            self.constraint_arch_groups(m["products"], cons_products, products)
        when = None
        if "when" in m:
            when, t = r.expr(m["when"], constraint_scope(inputs, outputs, attrs), (ExprType.BOOL,), "'when'")
            ok = ok and t is not None
        lets: list[tuple[str, Expr]] = []
        let_types: list[tuple[str, ExprType]] = []
        taken = dict(self.taken)
        if "let" in m:
            lm = m["let"]
            if not isinstance(lm, YMap):
                r.error(lm, f"expected a mapping of name to expression, got {_describe(lm)}")
                ok = False
            else:
                for key, value in lm.entries:
                    ln = r.name(key) if isinstance(key.value, str) else None
                    if ln is None or not _claim(r, taken, key, ln):
                        if not isinstance(key.value, str):
                            r.error(key, f"let name {key.value!r} is not a string")
                        ok = False
                        continue
                    scope = constraint_scope(inputs, outputs, attrs, let_types)
                    e, t = r.expr(value, scope, (ExprType.INT, ExprType.FLOAT, ExprType.BOOL), f"let '{ln}'")
                    let_types.append((ln, t or ExprType.INT))
                    if e is None or t is None:
                        r.poisoned.add(ln)
                        ok = False
                    else:
                        lets.append((ln, e))
        require = None
        if "require" in m:
            require, t = r.expr(
                m["require"], constraint_scope(inputs, outputs, attrs, let_types), (ExprType.BOOL,), "'require'"
            )
        message = ""
        if "message" in m:
            message = r.string(m["message"]) or ""
            if not message.isprintable():
                r.error(
                    m["message"],
                    "must be one line of printable text (it becomes a C string literal of the op API's error log)",
                )
                message = ""
            allowed_names = [a.name for a in attrs] + [n for n, _ in let_types]
            self.check_placeholders(m["message"], message, allowed_names)
        status = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
        if "status" in m:
            s = r.integer(m["status"])
            if s is not None and s not in ACLNN_STATUS_CODES:
                allowed = ", ".join(f"{k} ({v})" for k, v in ACLNN_STATUS_CODES.items())
                r.error(m["status"], f"status {s} is not an aclnnStatus error code; allowed: {allowed}")
            elif s is not None:
                status = s
        if require is not None and ok:
            self.constant_condition(m, "require", require, lets)
        if when is not None and ok:
            self.constant_condition(m, "when", when, lets=[])
        if require is None or not ok:
            return None
        return Constraint(name, cons_products, when, tuple(lets), require, message, status, node.loc)

    def constant_condition(self, m: dict[str, YNode], key: str, cond: Expr, lets: list[tuple[str, Expr]]) -> None:
        """Reports a constraint condition that reads no tensor, attribute or product value (only literals,
        directly or through ``let`` names that do the same): a ``require`` that always holds checks nothing
        and one that never holds refuses every call; a ``when`` that never holds makes the constraint dead
        (one that always holds is only redundant and passes). Reported at the field's line."""
        let_exprs = dict(lets)
        read: set[str] = set()
        todo = set(expr_names(cond))
        while todo:
            n = todo.pop()
            if n in let_exprs:
                todo |= set(expr_names(let_exprs.pop(n)))
            else:
                read.add(n)
        if read:
            return
        env: dict[str, object] = {}
        try:
            for ln, e in lets:
                if not expr_names(e) - set(env):
                    env[ln] = evaluate(e, env)
            value = bool(evaluate(cond, env))
        except (ExprEvalError, ArithmeticError, ValueError):
            return  # an evaluation error is reported where the constraint is evaluated
        if key == "require":
            what = "always holds, so it checks nothing" if value else "never holds, so every call would be refused"
        elif value:
            return
        else:
            what = "never holds, so the constraint never applies"
        self.r.error(
            m[key], f"'{key}' reads no tensor, attribute or product value and {what}; make it depend on the call"
        )

    def constraint_arch_groups(self, node: YNode, listed: tuple[str, ...], products: tuple[str, ...]) -> None:
        """A constraint lists all or none of the op's products of each NpuArch: the generated check selects
        products by NpuArch, so a partial list would also apply to the products left out."""
        if self.catalogue is None:
            return
        known = [p for p in products if p in self.catalogue]
        archs = {self.catalogue.get(p).npu_arch for p in listed if p in self.catalogue}
        missing = [p for p in known if p not in listed and self.catalogue.get(p).npu_arch in archs]
        for p in missing:
            arch = self.catalogue.get(p).npu_arch
            self.r.error(
                node,
                f"'{p}' is missing: it shares npu_arch {arch} with a listed product, and the generated check "
                "selects products by NpuArch; list it too",
            )

    def check_placeholders(self, node: YNode, message: str, allowed: list[str]) -> None:
        try:
            parts = list(string.Formatter().parse(message))
        except ValueError as exc:
            self.r.error(node, f"bad message template: {exc} (write '{{{{' and '}}}}' for literal braces)")
            return
        for _, field, spec, conversion in parts:
            if field is None:
                continue
            if spec or conversion:
                self.r.error(
                    node, f"placeholder '{{{field}}}' may not have a conversion or format; write '{{{field}}}'"
                )
            elif field not in allowed:
                self.r.error(
                    node, f"unknown placeholder '{{{field}}}' in message; allowed: {', '.join(allowed) or '(none)'}"
                )

    # -- the document

    def category(self, node: YNode) -> str:
        """The ``category`` key: one of the catalogue's ``op_categories`` (recorded and ``""`` otherwise;
        not checked against an invalid catalogue)."""
        name = self.r.string(node)
        if name is None:
            return ""
        if self.catalogue is not None and name not in self.catalogue.categories:
            allowed = ", ".join(self.catalogue.categories)
            self.r.error(node, f"unknown category '{name}'; allowed (the catalogue's op_categories): {allowed}")
            return ""
        return name

    def parse(self) -> OpSpec | None:
        r = self.r
        m = r.mapping(self.root, _ROOT_REQUIRED, _ROOT_OPTIONAL)
        if m is None:
            return None
        op = self.upper_camel(m["op"], "SoftMarginLossBackward") if "op" in m else ""
        op_type = self.upper_camel(m["op_type"], "SoftMarginLossGrad") if "op_type" in m else ""
        kernel = ""
        if "kernel" in m:
            k = r.string(m["kernel"])
            problem = kernel_problem(k) if k is not None else None
            if problem:
                r.error(m["kernel"], problem)
            elif k is not None:
                kernel = k
        elif op_type:
            kernel = ops_nn_folder(op_type)
            problem = kernel_problem(kernel)
            if problem:
                r.error(m["op_type"], f"ops-nn's folder name for it, {problem}; name the folder with 'kernel'")
                kernel = ""
        category = self.category(m["category"]) if "category" in m else ""
        if op and self.path.stem != snake_case(op):
            r.error(
                m["op"],
                f"file name '{self.path.name}' does not match op '{op}'; expected '{snake_case(op)}{self.path.suffix}'",
            )
        family = ""
        if "family" in m:
            f = r.string(m["family"])
            if f is not None and f not in _families():
                r.error(m["family"], f"unknown family '{f}'; allowed: {', '.join(_families())}")
            elif f is not None:
                family = f
        summary = (r.string(m["summary"]) or "") if "summary" in m else ""
        if "/*" in summary or "*/" in summary:
            r.error(
                m["summary"],
                "must not contain '/*' or '*/' (the summary is the @brief of the device op's prototype comment in "
                "op_graph/<kernel>_proto.h)",
            )
        products = self.products(m["products"]) if "products" in m else ()
        self.op_products = products
        deterministic = bool(r.boolean(m["deterministic"])) if "deterministic" in m else False
        deterministic_gm_atomics = (
            bool(r.boolean(m["deterministic_gm_atomics"])) if "deterministic_gm_atomics" in m else True
        )
        notes = tuple(s for _, s in r.strings(m["notes"])) if "notes" in m else ()

        inputs = tuple(t for t, _ in self.tensors(m.get("inputs"), "inputs", False))
        attrs = tuple(self.attr(n) for n in (r.seq(m["attrs"]) or [])) if "attrs" in m else ()
        partial_outputs = self.tensors(m.get("outputs"), "outputs", True) if "outputs" in m else []

        # Second pass: everything that relates entries.
        self.header_name_clashes([*inputs, *attrs, *(s for s, _ in partial_outputs)])
        scope = shape_scope(inputs, attrs)
        outputs_list = []
        for spec, shape_node in partial_outputs:
            shape = None
            if shape_node is not None:
                shape, _ = r.expr(shape_node, scope, (ExprType.SHAPE, ExprType.TENSOR), "an output shape")
            outputs_list.append(dataclasses.replace(spec, shape=shape))
        outputs = tuple(outputs_list)
        for field, loc, message in generated_name_problems(inputs, outputs, attrs, {*RESERVED_NAMES, *r.poisoned}):
            r.errors.append(SpecError(loc, field, message))

        signature = self.signature(m["signature"], inputs, outputs, attrs) if "signature" in m else None
        device = self.device(m["device"], family, inputs, outputs, attrs) if "device" in m else None

        tiling = self.tiling(m["tiling"]) if "tiling" in m else TilingSpec(1, 0, 1, self.root.loc)
        if "tiling" in m:
            self.tiling_vs_products(m["tiling"], tiling, products)

        if device is not None and device.host_attrs and "compute" in m:
            self.host_attrs_unread(m["compute"], device.host_attrs)
        compute: object = None
        if "compute" in m and family:
            ctx = ComputeContext(r, inputs, outputs, attrs, self.taken)
            compute = registry.family(family).parse_compute(m["compute"], ctx)

        constraints: list[Constraint] = []
        if "constraints" in m:
            seen: dict[str, int] = {}
            for item in r.seq(m["constraints"]) or []:
                c = self.constraint(item, products, seen, inputs, outputs, attrs)
                if c is not None:
                    constraints.append(c)

        self.zero_divisors(m, partial_outputs, outputs, compute, constraints, attrs, products, inputs, family)
        example = (
            self.example(m["example"], inputs, attrs, outputs, cast("FamilyCompute | None", compute))
            if "example" in m
            else None
        )
        if example is not None:
            self.example_within_constraints(m["example"], example, constraints, attrs, outputs, products)
        if "attrs" in m:
            self.defaults_within_constraints(m["attrs"], constraints, attrs, products)

        dtype_combos: tuple[DtypeCombo, ...] = ()
        if "dtype_combos" in m:
            supported = [f.name for f in registry.families() if f.dtype_combos]
            if family and family not in supported:
                r.error(
                    m["dtype_combos"],
                    f"dtype_combos is supported by the {', '.join(supported)} family only, not '{family}'",
                )
            else:
                dtype_combos = self.dtype_combos(m["dtype_combos"], inputs, outputs, products)
        if "outputs" in m and len(outputs) > 1:
            several = [f.name for f in registry.families() if f.several_outputs]
            if family and family not in several:
                r.error(
                    m["outputs"],
                    f"{len(outputs)} outputs: several outputs are supported by the {', '.join(several)} family "
                    f"only, not '{family}'",
                )
        shape_status = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
        status_families = [f.name for f in registry.families() if f.shape_status]
        if "shape_status" in m and family and family not in status_families:
            r.error(
                m["shape_status"],
                f"shape_status is supported by the {', '.join(status_families)} family only, not '{family}' "
                f"(its shape errors answer 161002)",
            )
        elif "shape_status" in m:
            s = r.integer(m["shape_status"])
            if s is not None and (s not in ACLNN_STATUS_CODES or s == 0):
                allowed = ", ".join(f"{k} ({v})" for k, v in ACLNN_STATUS_CODES.items() if k)
                r.error(m["shape_status"], f"shape_status {s} is not an aclnnStatus error code; allowed: {allowed}")
            elif s is not None:
                shape_status = s

        phase2 = self.phase2_header_names(m["phase2_header_names"]) if "phase2_header_names" in m else PHASE2_NAMES

        return OpSpec(
            op=op,
            op_type=op_type,
            kernel=kernel,
            category=category,
            family=FamilyName(family),
            summary=summary,
            products=products,
            deterministic=deterministic,
            deterministic_gm_atomics=deterministic_gm_atomics,
            inputs=inputs,
            attrs=attrs,
            outputs=outputs,
            # None only where a problem was recorded: the caller discards the spec then.
            compute=cast(FamilyCompute, compute),
            tiling=tiling,
            constraints=tuple(constraints),
            notes=notes,
            example=example,
            path=str(self.path),
            loc=self.root.loc,
            device=device,
            signature=signature,
            dtype_combos=dtype_combos,
            shape_status=shape_status,
            phase2_header_names=phase2,
        )

    def phase2_header_names(self, node: YNode) -> tuple[str, str, str, str]:
        """The ``phase2_header_names`` mapping (a phase-2 parameter's usual name -> CANN's header name of it,
        for those that differ) as the four names in order."""
        r = self.r
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

    def dtype_combos(
        self,
        node: YNode,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        products: tuple[str, ...],
    ) -> tuple[DtypeCombo, ...]:
        """The ``dtype_combos`` key: a non-empty list of mappings ``{<tensor>: DTYPE, ..., products: [...]}``
        naming every input and output once, each dtype one of that tensor's ``dtypes``, ``products`` (optional,
        default: the op's) a subset of the op's products; no two entries alike. Problems are recorded at
        their lines."""
        r = self.r
        tensors = (*inputs, *outputs)
        out: list[DtypeCombo] = []
        items = r.seq(node)
        if items is not None and not items:
            r.error(node, "empty dtype_combos list; give at least one combination or leave the key out")
        for item in items or []:
            m = r.mapping(item, [t.name for t in tensors], ("products",))
            if m is None:
                continue
            pairs: list[tuple[str, DType]] = []
            for t in tensors:
                if t.name not in m:
                    continue
                d = r.dtype(m[t.name])
                if d is None:
                    continue
                if t.dtypes and d not in t.dtypes:
                    if t.name not in self.unread_dtypes:  # else the unknown dtype listed may have meant this one
                        r.error(
                            m[t.name],
                            f"'{t.name}' does not take {d.name}; its dtypes are {', '.join(x.name for x in t.dtypes)}",
                        )
                    continue
                pairs.append((t.name, d))
            listed = products
            if "products" in m:
                listed = self.products(m["products"])
                for item_node, p in r.strings(m["products"]):
                    if p not in products:
                        r.error(item_node, f"'{p}' is not a product of the op ({', '.join(products)})")
            if len(pairs) != len(tensors):
                continue
            combo = DtypeCombo(tuple(pairs), tuple(p for p in listed if p in products), item.loc)
            if any(c.dtypes == combo.dtypes for c in out):
                r.error(item, f"duplicate dtype combination ({combo.text})")
                continue
            out.append(combo)
        return tuple(out)

    def signature(
        self,
        node: YNode,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        attrs: tuple[AttrSpec, ...],
    ) -> tuple[str, ...] | None:
        """The ``signature`` key: the order of the aclnn phase-1 parameters (before ``workspaceSize`` and
        ``executor``), as names of the spec's inputs, attrs and outputs, each exactly once. Problems are
        recorded (an unknown or repeated name at its line, missing names at the list's line); None then."""
        r = self.r
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

    def device(
        self,
        node: YNode,
        family: str,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        attrs: tuple[AttrSpec, ...],
    ) -> DeviceInterface | None:
        """The ``device`` section: the OpDef's inputs/outputs (``{name, from}`` in registration order, every
        aclnn tensor at least once; an aclnn input may feed several device inputs, an output exactly one; a
        device input ``{name, optional: true}`` without ``from`` is an OPTIONAL input the L0 API passes as
        null), attrs (``{name, from, type, default}``; ``string`` attrs carry the name of an aclnn integer
        attr's value, so their source must have ``values``; ``{name, value, type, default}`` is a constant
        the L2 API always passes), ``host_attrs`` (aclnn attrs the device op does not take; the compute must
        not read them) and the dtype order."""
        r = self.r
        supported = [f.name for f in registry.families() if f.device_section]
        if family and family not in supported:
            r.error(node, f"a device section is supported by the {', '.join(supported)} family only, not '{family}'")
            return None
        m = r.mapping(node, ("inputs", "outputs"), ("attrs", "host_attrs", "dtypes"))
        if m is None:
            return None
        reserved = {"workspace", "tiling", "tilingData", "op"}
        seen: dict[str, str] = {}

        def tensors(key: str, aclnn: tuple[TensorSpec, ...]) -> tuple[DeviceTensor, ...]:
            out: list[DeviceTensor] = []
            used: set[str] = set()
            for item in _carrier_entries(r, r.seq(m[key]) or [], {t.name for t in aclnn}, used):
                e = r.mapping(item, ("name",), ("from", "optional") if key == "inputs" else ("from",))
                if not e or "name" not in e:
                    continue
                if "from" not in e:
                    if key == "inputs" and "optional" in e and r.boolean(e["optional"]) is True:
                        name = r.name(e["name"], reserved=False)
                        if name is not None and name in seen:
                            r.error(e["name"], f"device name '{name}' is already used by {seen[name]}")
                        elif name is not None and name not in reserved:
                            seen[name] = key
                            out.append(DeviceTensor(name, None, item.loc))
                        elif name is not None:
                            r.error(e["name"], f"'{name}' is reserved in the kernel's entry; choose another name")
                    elif key == "inputs" and "optional" in e:
                        r.error(e["optional"], "a device input without 'from' must be 'optional: true' (passed null)")
                    else:
                        r.error(
                            item,
                            "missing required key 'from'"
                            + ("; only an 'optional: true' device input may omit it" if key == "inputs" else ""),
                            field=_join(item.path, "from"),
                        )
                    continue
                if "optional" in e:
                    r.error(e["optional"], "only a device input without 'from' is optional (it is passed null)")
                    continue
                name = r.name(e["name"], reserved=False)
                source = r.string(e["from"])
                if name is None or source is None:
                    continue
                if name in reserved:
                    r.error(e["name"], f"'{name}' is reserved in the kernel's entry; choose another name")
                    continue
                if key == "outputs" and name in {t.name for t in inputs}:
                    r.error(e["name"], f"device output '{name}' would clash with an aclnn input in the L0 API")
                    continue
                if name in seen:
                    r.error(e["name"], f"device name '{name}' is already used by {seen[name]}")
                    continue
                if source not in {t.name for t in aclnn}:
                    r.error(
                        e["from"], f"'{source}' is not an aclnn {key[:-1]}; allowed: {', '.join(t.name for t in aclnn)}"
                    )
                    continue
                if source in used and key == "outputs":
                    r.error(e["from"], f"aclnn {key[:-1]} '{source}' is already carried by another device {key[:-1]}")
                    continue
                seen[name] = f"{key}"
                used.add(source)
                out.append(DeviceTensor(name, source, item.loc))
            missing = [t.name for t in aclnn if t.name not in used]
            if missing and "" not in used and r.seq(m[key]) is not None:
                r.error(
                    m[key],
                    f"every aclnn {key[:-1]} must be carried by one device {key[:-1]}; missing: {', '.join(missing)}",
                )
            return tuple(out)

        dev_inputs = tensors("inputs", inputs) if "inputs" in m else ()
        dev_outputs = tensors("outputs", outputs) if "outputs" in m else ()
        dev_attrs: list[DeviceAttr] = []
        used_attrs: set[str] = set()
        host_attrs = self.host_attrs(m["host_attrs"], attrs) if "host_attrs" in m else ()
        attr_items = (r.seq(m["attrs"]) or []) if "attrs" in m else []
        for item in _carrier_entries(r, attr_items, {a.name for a in attrs}, used_attrs):
            e = r.mapping(item, ("name", "type"), ("from", "value", "default"))
            if not e or not {"name", "type"} <= set(e):
                continue
            if ("from" in e) == ("value" in e):
                r.error(item, "a device attr needs exactly one of 'from' (an aclnn attr) and 'value' (a constant)")
                continue
            if "value" in e:
                constant = self.constant_device_attr(e, item, dev_attrs, inputs, outputs)
                if constant is not None:
                    dev_attrs.append(constant)
                continue
            name = r.name(e["name"], reserved=False)
            source = r.string(e["from"])
            type_ = r.string(e["type"])
            if name is None or source is None or type_ is None:
                continue
            if source in host_attrs:
                r.error(e["from"], f"aclnn attr '{source}' is listed in host_attrs (not sent to the device)")
                continue
            src = next((a for a in attrs if a.name == source), None)
            if src is None:
                r.error(
                    e["from"],
                    f"'{source}' is not an aclnn attr; allowed: {', '.join(a.name for a in attrs) or '(none)'}",
                )
                continue
            if source in used_attrs:
                r.error(e["from"], f"aclnn attr '{source}' is already carried by another device attr")
                continue
            if source in r.poisoned:  # its definition was reported: no follow-on error about its type
                used_attrs.add(source)
                continue
            if name in {t.name for t in (*inputs, *outputs)} or name in {"executor", "ret"}:
                r.error(
                    e["name"], f"device attr '{name}' would clash with a parameter of the L0 API; choose another name"
                )
                continue
            if name in {a.name for a in dev_attrs}:
                r.error(e["name"], f"duplicate device attr '{name}'")
                continue
            if type_ not in DEVICE_ATTR_TYPES:
                r.error(e["type"], f"unknown device attr type '{type_}'; allowed: {', '.join(DEVICE_ATTR_TYPES)}")
                continue
            fits = {
                "int": src.type in ("int64", "uint64"),
                "bool": src.type == "bool",
                "float": src.type in ("float", "double", "scalar"),
                "string": (src.type in ("int64", "uint64") and bool(src.values)) or src.type == "string",
                "list_int": src.type == "int64",
            }[type_]
            if not fits:
                r.error(
                    e["type"],
                    f"{a_or_an(type_)} {type_} device attr cannot carry aclnn attr '{source}' ({src.type}"
                    + (", without values" if type_ == "string" else "")
                    + "); string needs an integer attr with values, int an integer, float a float/double, bool a bool,"
                    " list_int an int64 (sent as the one-element list {value})",
                )
                continue
            default: int | float | bool | str | tuple[int, ...] | None = None
            if "default" in e and type_ == "list_int":
                default = self.list_int_default(e["default"])
                if default is None:
                    continue
            elif "default" in e:
                d = e["default"]
                v = d.value if isinstance(d, YScalar) else None
                names = [n for _, n in src.values or ()]
                if type_ == "string" and not (isinstance(v, str) and v in names):
                    r.error(d, f"default must be one of the names of '{source}': {', '.join(names)}")
                    continue
                if type_ == "bool" and not isinstance(v, bool):
                    r.error(d, "default must be true or false for a bool attr")
                    continue
                if type_ == "int" and (isinstance(v, bool) or not isinstance(v, int)):
                    r.error(d, "default must be an integer for an int attr")
                    continue
                if type_ == "float" and (isinstance(v, bool) or not isinstance(v, (int, float))):
                    r.error(d, "default must be a number for a float attr")
                    continue
                if type_ == "float":
                    default = self.fp32_constant(d)  # the OpDef's Float(...) default
                    if default is None:
                        continue
                else:
                    default = v
            used_attrs.add(source)
            dev_attrs.append(DeviceAttr(name, source, type_, default, item.loc))
        missing_attrs = [a.name for a in attrs if a.name not in used_attrs and a.name not in host_attrs]
        if missing_attrs and "" not in used_attrs:
            r.error(
                node,
                f"every aclnn attr must be carried by one device attr; missing: {', '.join(missing_attrs)}",
                field=_join(node.path, "attrs"),
            )
        dtypes: tuple[DType, ...] | None = None
        if "dtypes" in m:
            dtypes = r.dtypes(m["dtypes"])
            listed = set(inputs[0].dtypes) if inputs else set()
            # An item of either list that names no dtype was reported where it is, and it may have meant any
            # dtype: the lists are compared once both are read whole (the difference would be a follow-on
            # error of that one typo). An empty tensor list (reported there too) is compared with nothing.
            comparable = bool(inputs) and inputs[0].name not in self.unread_dtypes
            comparable = comparable and not r.unread_dtypes(m["dtypes"])
            if dtypes and listed and comparable and set(dtypes) != listed:
                r.error(
                    m["dtypes"],
                    "the device dtype order must list exactly the tensors' dtypes ("
                    + ", ".join(d.name for d in (inputs[0].dtypes if inputs else ()))
                    + ")",
                )
        return DeviceInterface(dev_inputs, dev_outputs, tuple(dev_attrs), dtypes or None, node.loc, host_attrs)

    def list_int_default(self, node: YNode) -> tuple[int, ...] | None:
        """The default of a ``list_int`` device attr: a YAML list of one integer within int64 (``[-1]``, the
        OpDef's ``ListInt({-1})``). The attr carries one aclnn integer as the one-element list ``{value}`` and
        every generated tiling reads exactly one element (``GetListInt``, size 1), so a default of another
        length is an error. None (recorded, naming the entry) otherwise."""
        r = self.r
        if not isinstance(node, YSeq):
            got = node.value if isinstance(node, YScalar) else type(node).__name__
            r.error(node, f"default must be a list of integers for a list_int attr (e.g. [-1]), got {got!r}")
            return None
        out: list[int] = []
        for item in node.items:
            v = item.value if isinstance(item, YScalar) else None
            if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
                r.error(item, f"each element of a list_int default must be an int64 integer, got {v!r}")
                return None
            out.append(v)
        if len(out) != 1:
            r.error(
                node,
                f"default must be a one-element list for a list_int attr (it carries one aclnn integer as the list "
                f"{{value}}; the tiling reads one element), got {len(out)} elements {out}",
            )
            return None
        return tuple(out)

    def host_attrs_unread(self, node: YNode, host_attrs: tuple[str, ...]) -> None:
        """Records each expression string of the ``compute`` section that names an attr of ``host_attrs``: the
        kernel gets its attrs from the device op, which does not take those."""
        if isinstance(node, YMap):
            for _, value in node.entries:
                self.host_attrs_unread(value, host_attrs)
        elif isinstance(node, YSeq):
            for item in node.items:
                self.host_attrs_unread(item, host_attrs)
        elif isinstance(node, YScalar) and isinstance(node.value, str):
            try:
                tree = ast.parse(node.value.strip(), mode="eval")
            except SyntaxError:
                return  # reported by the family's compute parser
            read = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(host_attrs))
            if read:
                self.r.error(
                    node,
                    f"the compute reads {', '.join(read)}, listed in device.host_attrs: the device op does not "
                    "take it, so the kernel cannot read it",
                )

    def host_attrs(self, node: YNode, attrs: tuple[AttrSpec, ...]) -> tuple[str, ...]:
        """``device.host_attrs``: aclnn attr names (each once) the device op does not take."""
        r = self.r
        out: list[str] = []
        for item, name in r.strings(node):
            if name not in {a.name for a in attrs}:
                r.error(item, f"'{name}' is not an aclnn attr; allowed: {', '.join(a.name for a in attrs) or '(none)'}")
            elif name in out:
                r.error(item, f"'{name}' is listed twice")
            else:
                out.append(name)
        return tuple(out)

    def constant_device_attr(
        self,
        e: dict[str, YNode],
        item: YNode,
        dev_attrs: list[DeviceAttr],
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
    ) -> DeviceAttr | None:
        """A constant device attr ``{name, value, type, default}``: ``value`` (and ``default``, if given) of
        ``type`` (``int``: an integer, ``float``: a finite number within fp32's range, kept rounded to fp32,
        ``bool``, ``string``: a non-empty string).
        None (recorded) on a problem."""
        r = self.r
        name = r.name(e["name"], reserved=False)
        type_ = r.string(e["type"])
        if name is None or type_ is None:
            return None
        if name in {t.name for t in (*inputs, *outputs)} or name in {"executor", "ret"}:
            r.error(e["name"], f"device attr '{name}' would clash with a parameter of the L0 API; choose another name")
            return None
        if name in {a.name for a in dev_attrs}:
            r.error(e["name"], f"duplicate device attr '{name}'")
            return None
        if type_ not in DEVICE_ATTR_TYPES:
            r.error(e["type"], f"unknown device attr type '{type_}'; allowed: {', '.join(DEVICE_ATTR_TYPES)}")
            return None
        if DEVICE_ATTR_TYPE_INFO[type_].is_list:
            r.error(e["value"], f"a constant {type_} device attr is not supported; carry an aclnn attr with 'from'")
            return None

        def typed(node: YNode) -> int | float | bool | str | None:
            v = node.value if isinstance(node, YScalar) else None
            ok = {
                "int": isinstance(v, int) and not isinstance(v, bool),
                "float": isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= FLOAT32_MAX,
                "bool": isinstance(v, bool),
                "string": isinstance(v, str) and bool(v),
            }[type_]
            if not ok:
                r.error(node, f"expected a value of the device attr type '{type_}', got {v!r}")
                return None
            # a float attr holds an fp32: the constant is kept as the fp32 the device op gets (1/6 -> 0.16666667...)
            return float(struct.unpack("f", struct.pack("f", cast(float, v)))[0]) if type_ == "float" else v

        value = typed(e["value"])
        default = typed(e["default"]) if "default" in e else None
        if value is None or ("default" in e and default is None):
            return None
        return DeviceAttr(name, None, type_, default, item.loc, value)

    def zero_divisors(
        self,
        m: dict[str, YNode],
        partial_outputs: list[tuple[TensorSpec, YNode | None]],
        outputs: tuple[TensorSpec, ...],
        compute: object,
        constraints: list[Constraint],
        attrs: tuple[AttrSpec, ...],
        products: tuple[str, ...],
        inputs: tuple[TensorSpec, ...] = (),
        family: str = "",
    ) -> None:
        """Cross-entry rule: no host expression (and no tensor-free part of a formula) divides (``/``,
        ``//``, ``%``) by anything that may be 0 unless it is provably nonzero (see
        :func:`codegen.spec.rules.zero_division`): a literal 0, an attr (unless its ``values``, an
        unconditional constraint on all the op's products (for a constraint's own expressions: an earlier
        one, or its ``when``) or a guard exclude 0), ``rank()`` of a tensor whose rank rule allows 0,
        ``numel()``/``dim()`` (0 for an empty tensor; a family may declare names nonzero where its tiling
        runs only for a non-empty output, see :meth:`codegen.registry.Family.division_sites`). ``//`` and
        ``%`` by an integer 0 are a SIGFPE in the generated C++; ``/`` gives inf or NaN. Also, no host
        expression may hold a constant part that overflows int64 (:func:`codegen.spec.rules.constant_problem`)."""
        tensors = {t.name: t for t in (*inputs, *outputs)}
        domains: dict[str, tuple[int, ...] | None] = {}
        for a in attrs:
            if a.type in ("int64", "uint64"):
                domains[a.name] = tuple(v for v, _ in a.values) if a.values is not None else None
            elif a.type == "bool":
                domains[a.name] = (0, 1)
            elif a.type in ATTR_TYPES:
                domains[a.name] = None
        attr_names = set(domains)

        def with_atoms(e: Expr, defs: Mapping[str, Expr] | None = None) -> dict[str, tuple[int, ...] | None]:
            found = dict(domains)
            for x in [e, *(defs or {}).values()]:
                for name in expr_names(atomize(x)) - attr_names:
                    call = name.split("(", 1)
                    if len(call) != 2 or call[0] not in SHAPE_ATOMS:
                        continue
                    arg = call[1].split(",", 1)[0].rstrip(")").strip()
                    t = tensors.get(arg)
                    if call[0] == "rank" and t is not None:
                        found[name] = tuple(range(t.rank[0], t.rank[1] + 1))
                    else:
                        found[name] = None
            return found

        def excluded(cs: Sequence[Constraint]) -> set[str]:
            out: set[str] = set()
            for c in cs:
                if c.when is not None or not set(c.products) >= set(products):
                    continue
                require = atomize(c.require)
                out |= {n for n in expr_names(require) if excludes_zero(require, n, True)}
            return out

        def assumed(cs: Sequence[Constraint]) -> list[Expr]:
            """The requires of the unconditional constraints of every product among ``cs``."""
            return [c.require for c in cs if c.when is None and set(c.products) >= set(products)]

        always_nonzero = set(PLATFORM_NAMES)

        def report(
            node: YNode,
            e: Expr,
            gone: set[str],
            defs: Mapping[str, Expr] | None = None,
            nonzero: Collection[str] = (),
            opaque: Collection[str] = (),
            assume: Sequence[Expr] = (),
        ) -> None:
            doms = with_atoms(e, defs)
            found = zero_division(e, doms, gone, defs, {*always_nonzero, *nonzero}, opaque, assume)
            if found is None:
                problem = constant_problem(e)
                if problem is not None:
                    self.r.error(node, problem)
                return
            attr, divisor = found.attr, to_source(found.divisor)
            effect = (
                "a division by 0 gives inf or nan in the host code"
                if found.op == "/"
                else "an integer division by 0 crashes the host code"
            )
            if not attr:
                self.r.error(node, f"'{e}' divides by '{divisor}', which is 0 ({effect}); divide by a nonzero value")
                return
            if attr in attr_names:
                what = f"attr '{attr}'," if found.bare else f"'{divisor}', an expression of attr '{attr}',"
            else:
                why = " (0 for a 0-d tensor)" if attr.startswith("rank(") else " (0 for an empty tensor)"
                what = f"'{attr}'{why}," if found.bare else f"'{divisor}', an expression of '{attr}'{why},"
            if found.bare:
                cond, also = f"{attr} != 0", f' (or "{attr} > 0")'
            else:
                cond, also = nonzero_condition(found.divisor, doms), ""
            self.r.error(
                node,
                f"'{e}' divides by {what} which may be 0 ({effect}); add a constraint such as "
                f"require: \"{cond}\"{also}, or guard the division: '... if {cond} else ...'",
            )

        gone_all = excluded(constraints)
        assumed_all = assumed(constraints)
        for (_, shape_node), out in zip(partial_outputs, outputs):
            if shape_node is not None and out.shape is not None:
                report(shape_node, out.shape, gone_all, assume=assumed_all)
        if family and compute is not None and isinstance(m.get("compute"), YMap):
            for site, e, how in registry.family(family).division_sites(compute, m["compute"], inputs, outputs):
                report(site, e, gone_all, assume=assumed_all, **how)
        constraints_node = m.get("constraints")
        items = constraints_node.items if isinstance(constraints_node, YSeq) else []
        by_name = {c.name: c for c in constraints}
        for item in items:
            im = {key.value: v for key, v in _entries(item)}
            name_node = im.get("name")
            c = by_name.get(str(name_node.value)) if isinstance(name_node, YScalar) else None
            if c is None:
                continue
            earlier = constraints[: constraints.index(c)]
            gone = excluded(earlier)
            assume = assumed(earlier)
            if c.when is not None:
                report(im["when"], c.when, set(gone), assume=assume)
                when = atomize(c.when)
                gone |= {n for n in expr_names(when) if excludes_zero(when, n, True)}
                assume = [*assume, c.when]
            let_nodes = {key.value: v for key, v in _entries(im.get("let"))}
            let_defs: dict[str, Expr] = {}
            for ln, le in c.let:
                report(let_nodes[ln], le, set(gone), let_defs, assume=assume)
                let_defs[ln] = le
            report(im["require"], c.require, set(gone), let_defs, assume=assume)

    def tensors(self, node: YNode | None, what: str, is_output: bool) -> list[tuple[TensorSpec, YNode | None]]:
        if node is None:
            return []
        items = self.r.seq(node)
        if items is None:
            return []
        if not items:
            self.r.error(node, f"empty {what} list; an op needs at least one {what[:-1]}")
        return [self.tensor(item, i, is_output) for i, item in enumerate(items)]

    def products(self, node: YNode) -> tuple[str, ...]:
        r = self.r
        out: list[str] = []
        items = r.strings(node)
        if isinstance(node, YSeq) and not node.items:
            known = ", ".join(sorted(self.catalogue.names)) if self.catalogue else "the catalogue's products"
            r.error(node, f"empty product list; give at least one of: {known}")
        for item, p in items:
            if self.catalogue is not None and p not in self.catalogue:
                r.error(item, f"unknown product '{p}'; allowed: {', '.join(sorted(self.catalogue.names))}")
            elif p in out:
                r.error(item, f"duplicate product '{p}'")
            else:
                out.append(p)
        return tuple(out)

    def tiling_vs_products(self, node: YNode, tiling: TilingSpec, products: tuple[str, ...]) -> None:
        if self.catalogue is None:
            return
        m = node.entries if isinstance(node, YMap) else []
        where = {str(k.value): v for k, v in m}
        for name in products:
            p = self.catalogue.get(name)
            if "buffer_num" in where and tiling.buffer_num > p.queue_buffer_cap:
                self.r.error(
                    where["buffer_num"],
                    f"buffer_num {tiling.buffer_num} exceeds the queue buffer cap {p.queue_buffer_cap} of {p.name}",
                )
            if "ub_reserved_bytes" in where and tiling.ub_reserved_bytes >= p.ub_bytes:
                self.r.error(
                    where["ub_reserved_bytes"],
                    f"ub_reserved_bytes {tiling.ub_reserved_bytes} leaves no UB on {p.name} ({p.ub_bytes} bytes)",
                )


def _fill_placeholders(message: str, env: Mapping[str, object]) -> str:
    """``message`` with each ``{name}`` that ``env`` holds replaced by its value (others kept as written)."""
    return re.sub(r"\{(\w+)\}", lambda k: str(env.get(k.group(1), k.group(0))), message)


def _entries(node: YNode | None) -> list[tuple[YScalar, YNode]]:
    return node.entries if isinstance(node, YMap) else []


def _load_op_spec(
    path: Path, catalogue: Catalogue | None, errors: list[SpecError]
) -> tuple[OpSpec | None, YNode | None]:
    before = len(errors)
    root = read_yaml(path, errors)
    if root is None:
        return None, None
    spec = _OpParser(root, path, catalogue, Reader(errors)).parse()
    return (spec if len(errors) == before else None), root


def _producers(first: tuple[OpSpec | None, str], second: tuple[OpSpec | None, str]) -> str:
    """Two colliding producers as a message names them (one op's two file kinds without repeating the op)."""
    if first[0] is not None and first[0] is second[0]:
        return f"{describe_kind(first[1])} and {describe_kind(second[1])} of {first[0].op}"
    return f"{producer_text(first)} and {producer_text(second)}"


def _key_loc(root: YNode | None, key: str, default: SourceLoc) -> SourceLoc:
    """The line of the spec's top-level ``key``; for a ``kernel`` the spec derives (no such key), the line of
    the ``op_type`` it comes from; ``default`` when neither is there."""
    keys = {k.value: k.loc for k, _ in _entries(root)}
    return keys.get(key) or (keys.get("op_type") if key == "kernel" else None) or default


def _collision_errors(specs: list[OpSpec], catalogue: Catalogue, roots: Mapping[str, YNode | None]) -> list[SpecError]:
    """Every pair of output paths that the generation of ``specs`` would write over each other
    (:func:`~codegen.spec.generated_names.output_path_collisions`), each at the spec key whose name shapes the
    colliding path: ``kernel`` when the path changes with the kernel name, else ``op``."""
    products = {p.name: p for p in catalogue.products}
    errors: list[SpecError] = []
    for rel, first, second, how in output_path_collisions(tree_files(specs, products)):
        spec, kind = second if second[0] is not None else first
        if spec is None:
            continue  # two root files: never from a spec
        renamed = dataclasses.replace(spec, kernel=spec.kernel + "x")
        known = [products[p] for p in spec.products if p in products]
        key = "kernel" if op_files(renamed, known).get(kind) != op_files(spec, known).get(kind) else "op"
        loc = _key_loc(roots.get(spec.snake), key, spec.loc)
        errors.append(
            SpecError(
                loc,
                key,
                f"output path collision: {rel}: {how}, {_producers(first, second)}; choose another {key} name",
            )
        )
    return errors


def load_op_spec(path: str | Path, catalogue: Catalogue) -> OpSpec:
    """Loads and validates one op spec.

    Args:
        path: the spec file; its stem must be ``snake_case(op)``.
        catalogue: the product catalogue the spec's product names refer to.

    Returns:
        The op spec.

    Raises:
        SpecErrors: every problem in the file (see the module doc and DESIGN.md "The spec"), ordered by line.
    """
    errors: list[SpecError] = []
    spec, root = _load_op_spec(Path(path), catalogue, errors)
    if spec is not None:
        errors.extend(_collision_errors([spec], catalogue, {spec.snake: root}))
    if errors or spec is None:
        raise SpecErrors(_sorted(errors))
    return spec


def load_specs(spec_dir: str | Path, catalogue_path: str | Path | None = None) -> tuple[Catalogue, dict[str, OpSpec]]:
    """Loads the product catalogue and every op spec of a directory.

    Args:
        spec_dir: directory of op specs: every ``*.yaml`` and ``*.yml`` except the catalogue, hidden files and
            editor lock/backup files (:func:`codegen.paths.spec_files`) is a spec.
        catalogue_path: the product catalogue (default ``<spec_dir>/products.yaml``).

    Returns:
        ``(catalogue, specs)`` with ``specs`` keyed by file stem (= ``snake_case(op)``), sorted by stem.

    Raises:
        SpecErrors: every problem of the catalogue and of all specs, plus cross-file ones (two specs with
            one ``op``, ``op_type`` or ``kernel``). When the catalogue is invalid the specs are still
            checked, without the product-name checks.
    """
    directory = Path(spec_dir)
    cat_path = Path(catalogue_path) if catalogue_path is not None else directory / CATALOGUE_FILE
    errors: list[SpecError] = []
    catalogue = _load_catalogue(cat_path, errors)
    specs: dict[str, OpSpec] = {}
    roots: dict[str, YNode | None] = {}
    firsts: dict[tuple[str, str], OpSpec] = {}
    stems: dict[str, Path] = {}
    for path in spec_files(directory, cat_path):
        if path.stem in stems:
            errors.append(
                SpecError(
                    SourceLoc(str(path), 1),
                    "op",
                    f"{path.name} and {stems[path.stem].name} both define op file '{path.stem}'; keep one of them",
                )
            )
            continue
        stems[path.stem] = path
        spec, root = _load_op_spec(path, catalogue, errors)
        if spec is None:
            continue
        clash = False
        for key in ("op", "op_type", "kernel"):
            value = getattr(spec, key)
            other = firsts.setdefault((key, value), spec)
            if other is not spec:
                loc = _key_loc(root, key, spec.loc)
                errors.append(SpecError(loc, key, f"{key} '{value}' is also used by {other.path}"))
                clash = True
        if not clash:
            specs[path.stem] = spec
            roots[spec.snake] = root
    if catalogue is not None:
        errors.extend(_collision_errors(list(specs.values()), catalogue, roots))
    if errors or catalogue is None:
        raise SpecErrors(_sorted(errors))
    return catalogue, specs
