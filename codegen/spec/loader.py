"""Loading and validating op specs and the product catalogue.

YAML is read with a strict SafeLoader subclass into located nodes (:class:`YScalar`, :class:`YSeq`,
:class:`YMap`: every value knows its file, line and field path; duplicate keys, aliases and merge keys
are rejected; booleans are only ``true``/``false``, integers decimal or ``0x``/``0o``). Each entry is
then parsed against an explicit schema into the frozen model of :mod:`codegen.spec.model`; every
problem becomes a :class:`~codegen.spec.errors.SpecError` and the loaders raise all of them together
as :class:`~codegen.spec.errors.SpecErrors`. Checks that relate entries (unique names, expression
names, the example against the tensors, tiling against the products) run after the fields parse.

Family-specific ``compute`` sections are parsed by the functions of :data:`COMPUTE_PARSERS`; another
family registers ``COMPUTE_PARSERS["name"] = parser`` with a parser of type :data:`ComputeParser`.

Nothing here writes files.
"""

from __future__ import annotations

import dataclasses
import keyword
import math
import re
import string
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml

from codegen.paths import spec_files
from codegen.spec.errors import SourceLoc, SpecError, SpecErrors
from codegen.spec.expr import (
    ELEMENTWISE_SIGNATURES,
    HOST_NUMERIC_SIGNATURES,
    INT64_MAX,
    INT64_MIN,
    SHAPE_SIGNATURES,
    TENSOR_SIGNATURES,
    Expr,
    ExprEvalError,
    ExprType,
    Name,
    Num,
    Scope,
    as_shape,
    check,
    evaluate,
    parse_expr,
    to_source,
)
from codegen.spec.expr import names as expr_names
from codegen.spec.generated_names import generated_name_problems
from codegen.spec.index_accumulate import parse_index_accumulate_compute
from codegen.spec.model import (
    ACL_FORMATS,
    ACLNN_STATUS_CODES,
    ATTR_TYPES,
    DEVICE_ATTR_TYPES,
    MAX_RANK,
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
    ElementwiseCompute,
    Example,
    ExampleTensor,
    OpSpec,
    Product,
    TensorSpec,
    TilingSpec,
    snake_case,
)
from codegen.spec.rules import (
    SHAPE_ATOMS,
    atomize,
    constant_problem,
    elementwise_host_problem,
    excludes_zero,
    formula_problem,
    zero_division,
)

__all__ = [
    "COMPUTE_PARSERS",
    "CPP_KEYWORDS",
    "KNOWN_FAMILIES",
    "PLATFORM_NAMES",
    "RESERVED_NAMES",
    "ComputeContext",
    "ComputeParser",
    "Reader",
    "YMap",
    "YNode",
    "YScalar",
    "YSeq",
    "constraint_scope",
    "elementwise_scope",
    "is_upper_camel",
    "load_catalogue",
    "load_op_spec",
    "load_specs",
    "name_problem",
    "parse_elementwise_compute",
    "read_yaml",
    "scalar_scope",
    "shape_scope",
]

CATALOGUE_FILE = "products.yaml"

# ------------------------------------------------------------------------------------------- YAML layer


@dataclass(eq=False)
class YNode:
    """A YAML value with its location and field path (``inputs[0].dtypes[1]``; ``""`` for the document)."""

    loc: SourceLoc
    path: str


@dataclass(eq=False)
class YScalar(YNode):
    """A scalar: ``str``, ``int``, ``float``, ``bool`` or ``None``."""

    value: str | int | float | bool | None


@dataclass(eq=False)
class YSeq(YNode):
    """A sequence."""

    items: list[YNode]


@dataclass(eq=False)
class YMap(YNode):
    """A mapping, as ``(key, value)`` pairs in file order (keys unique)."""

    entries: list[tuple[YScalar, YNode]]


def _join(path: str, key: object) -> str:
    return str(key) if not path else f"{path}.{key}"


def _show_key(key: object) -> str:
    return f"'{key}'" if isinstance(key, str) else repr(key)


_YAML_TAG = "tag:yaml.org,2002:"
_INT_RE = re.compile(r"^[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$")
_FLOAT_RE = re.compile(
    r"^[-+]?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)$"
    r"|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$"
)
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")


class _AliasNode(yaml.ScalarNode):
    """Stands for one ``*alias`` occurrence, at the alias's own position; ``target`` is the anchored node."""

    target: yaml.Node


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars (``yes``/``no``/``on``/``off`` stay strings, ``010`` is 10,
    ``1e5`` is a float) that keeps every alias occurrence visible as an :class:`_AliasNode`."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = cast(Any, self).peek_event()  # the stubs leave peek_event untyped
            target = super().compose_node(parent, index)
            alias = _AliasNode("tag:opgen,alias", str(event.anchor), event.start_mark, event.end_mark)
            if target is not None:
                alias.target = target
            return alias
        return super().compose_node(parent, index)


_StrictLoader.yaml_implicit_resolvers = {
    first: [
        (tag, rx) for tag, rx in resolvers if tag not in {_YAML_TAG + "bool", _YAML_TAG + "int", _YAML_TAG + "float"}
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_YAML_TAG + "bool", _BOOL_RE, list("tTfF"))
_StrictLoader.add_implicit_resolver(_YAML_TAG + "int", _INT_RE, list("-+0123456789"))
_StrictLoader.add_implicit_resolver(_YAML_TAG + "float", _FLOAT_RE, list("-+0123456789."))


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if digits.startswith("0o"):
        return sign * int(digits[2:], 8)
    return sign * int(digits, 10)


_StrictLoader.add_constructor(_YAML_TAG + "int", _construct_int)


#: Most nodes all alias occurrences of one file may copy while an aliased spec is reported (each alias is
#: an error anyway; the copies only keep follow-on errors away).
ALIAS_EXPANSION_BUDGET = 10_000


class _NodeConverter:
    """Turns PyYAML nodes into located :class:`YNode` values, recording problems."""

    def __init__(self, loader: _StrictLoader, file: str, errors: list[SpecError]) -> None:
        self.loader = loader
        self.file = file
        self.errors = errors
        self.active: set[int] = set()  # aliased nodes being converted (guards against recursive aliases)
        self.budget = ALIAS_EXPANSION_BUDGET  # nodes aliases may still copy into the converted tree

    def _alias_free_size(self, node: yaml.Node, limit: int) -> int | None:
        """Nodes in ``node``'s subtree, or None when it holds an alias or more than ``limit`` nodes."""
        count, stack = 0, [node]
        while stack:
            current = stack.pop()
            if isinstance(current, _AliasNode):
                return None
            count += 1
            if count > limit:
                return None
            if isinstance(current, yaml.MappingNode):
                for key, value in current.value:
                    stack += [key, value]
            elif isinstance(current, yaml.SequenceNode):
                stack += current.value
        return count

    def loc(self, node: yaml.Node) -> SourceLoc:
        return SourceLoc(self.file, node.start_mark.line + 1)

    def convert(self, node: yaml.Node, path: str) -> YNode:
        loc = self.loc(node)
        if isinstance(node, _AliasNode):
            self.errors.append(
                SpecError(loc, path or "yaml", f"YAML aliases (*{node.value}) are not supported; write the value out")
            )
            # Never expanded blindly (an alias bomb would grow exponentially): only an alias-free target
            # within what is left of the budget is copied, to keep later checks free of follow-on errors.
            size = self._alias_free_size(node.target, self.budget)
            if size is None or id(node.target) in self.active:
                return YScalar(loc, path, None)
            self.budget -= size
            self.active.add(id(node.target))
            try:
                converted = self.convert(node.target, path)  # keeps later checks free of follow-on errors
            finally:
                self.active.discard(id(node.target))
            converted.loc = loc
            return converted
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return YSeq(loc, path, [self.convert(item, f"{path}[{i}]") for i, item in enumerate(node.value)])
        return self.scalar(node, path)

    def scalar(self, node: yaml.Node, path: str) -> YScalar:
        loc = self.loc(node)
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            self.errors.append(SpecError(loc, path or "yaml", f"invalid YAML value: {exc.problem}"))
            return YScalar(loc, path, None)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            self.errors.append(
                SpecError(loc, path or "yaml", f"unsupported YAML value of type {type(value).__name__}; quote it")
            )
            return YScalar(loc, path, None)
        return YScalar(loc, path, value)

    def mapping(self, node: yaml.MappingNode, path: str) -> YMap:
        entries: list[tuple[YScalar, YNode]] = []
        first: dict[tuple[type, object], int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _YAML_TAG + "merge":
                self.errors.append(
                    SpecError(self.loc(key_node), path or "yaml", "YAML merge keys (<<) are not supported")
                )
                continue
            if not isinstance(key_node, yaml.ScalarNode) or isinstance(key_node, _AliasNode):
                self.errors.append(SpecError(self.loc(key_node), path or "yaml", "mapping keys must be plain scalars"))
                continue
            key = self.scalar(key_node, path)
            key_path = _join(path, key.value)
            key = YScalar(key.loc, key_path, key.value)
            ident = (type(key.value), key.value)
            if ident in first:
                self.errors.append(
                    SpecError(key.loc, key_path, f"duplicate key {_show_key(key.value)} (first at line {first[ident]})")
                )
                continue
            first[ident] = key.loc.line
            value = self.convert(value_node, key_path)
            if isinstance(value, (YMap, YSeq)):
                value.loc = key.loc  # a block collection is reported at its key's line
            entries.append((key, value))
        return YMap(self.loc(node), path, entries)


#: The largest ``vector_core_num`` a catalogue may give: a launch's blockDim is at most 65535 (the range CANN's
#: kernel launch accepts for blockDim).
MAX_BLOCK_DIM = 65535
#: The largest ``ub_bytes``: TPipe::InitBuffer takes its length as uint32_t and the emulator carves UB with
#: int32 offsets.
MAX_UB_BYTES = 2**31 - 1
#: The largest ``sys_workspace_bytes`` (1 GiB; CANN reserves 2 or 16 MiB, asc-devkit
#: impl/basic_api/utils/kernel_utils_constants.h RESERVED_WORKSPACE).
MAX_SYS_WORKSPACE_BYTES = 2**30


def read_yaml(path: Path, errors: list[SpecError]) -> YNode | None:
    """Reads one YAML document into located nodes.

    Args:
        path: the file; locations use ``str(path)``.
        errors: problems are appended here (unreadable file, YAML syntax with line and column, duplicate
            keys with the first key's line, aliases, merge keys, unsupported values).

    Returns:
        The document's root node, or None when nothing usable could be read.
    """
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(SpecError(SourceLoc(file, 1), "yaml", f"cannot read the file: {exc}"))
        return None
    try:
        # the reader rejects control characters and NUL while it is constructed
        loader = _StrictLoader(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "position", None)
        line = text.count("\n", 0, mark) + 1 if isinstance(mark, int) else 1
        reason = getattr(exc, "reason", None) or str(exc).splitlines()[0]
        char = getattr(exc, "character", None)
        code = ord(char) if isinstance(char, str) and len(char) == 1 else char
        what = f"character {code:#06x} at offset {mark}: " if isinstance(code, int) else ""
        errors.append(SpecError(SourceLoc(file, line), "yaml", f"cannot read the file: {what}{reason}"))
        return None
    try:
        node = loader.get_single_node()
        if node is None:
            errors.append(SpecError(SourceLoc(file, 1), "yaml", "the file is empty; expected a mapping"))
            return None
        return _NodeConverter(loader, file, errors).convert(node, "")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        column = f" (column {mark.column + 1})" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        errors.append(SpecError(SourceLoc(file, line), "yaml", f"YAML syntax error: {problem}{column}"))
        return None
    except yaml.YAMLError as exc:
        errors.append(SpecError(SourceLoc(file, 1), "yaml", f"YAML error: {exc}"))
        return None
    finally:
        loader.dispose()


# ------------------------------------------------------------------------------------------------ names

#: C++ keywords and alternative tokens (C++20), which cannot name a parameter or variable.
_CPP_KEYWORD_TEXT = """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
    class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
    decltype default delete do double dynamic_cast else enum explicit export extern false float for friend
    goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename union
    unsigned using virtual void volatile wchar_t while xor xor_eq
"""
CPP_KEYWORDS = frozenset(_CPP_KEYWORD_TEXT.split())

#: Names expressions give a meaning of their own (value: their type).
PLATFORM_NAMES: Mapping[str, ExprType] = {"coreNum": ExprType.INT, "ubBytes": ExprType.INT}

_DTYPE_NAMES = tuple(sorted(DType.__members__))

#: Identifiers that are valid C but taken in generated code or expressions, with the reason.
RESERVED_NAMES: Mapping[str, str] = {
    **{n: "a platform value in expressions" for n in PLATFORM_NAMES},
    **{n: "a dtype name in expressions" for n in _DTYPE_NAMES},
    **{n: "a parameter of the aclnn two-phase API" for n in ("workspaceSize", "executor", "workspace", "stream")},
    "tiling": "a parameter of the kernel entry",
    **{
        n: "a type name in generated C++"
        for n in (
            "half",
            "bfloat16_t",
            "int8_t",
            "int16_t",
            "int32_t",
            "int64_t",
            "uint8_t",
            "uint16_t",
            "uint32_t",
            "uint64_t",
            "size_t",
            "GM_ADDR",
            "aclTensor",
            "aclOpExecutor",
            "aclrtStream",
            "aclnnStatus",
            "aclDataType",
        )
    },
}

_C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UPPER_CAMEL = re.compile(r"[A-Z][A-Za-z0-9]*")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


def is_upper_camel(name: str) -> bool:
    """Whether ``name`` may be an op or OpType name: ASCII letters and digits, starting with a capital and
    with at least one lower-case letter (``ABC`` is not UpperCamelCase)."""
    return bool(_UPPER_CAMEL.fullmatch(name)) and any(c.islower() for c in name)


def name_problem(name: str, reserved: bool = True) -> str | None:
    """Why ``name`` cannot name a tensor, attr, scalar, let or constraint, or None when it can.

    It must be an ASCII C identifier, not a C++ keyword, not a Python keyword (expressions could not
    mention it), not a C++ reserved identifier (``__x``, ``_X``) and, when ``reserved``, not one of
    :data:`RESERVED_NAMES`. ``self`` is fine.
    """
    if not _C_IDENT.fullmatch(name):
        return f"'{name}' is not a valid C identifier (ASCII letters, digits and '_', not starting with a digit)"
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword; choose another name"
    if keyword.iskeyword(name):
        return f"'{name}' is a Python keyword and could not be written in expressions; choose another name"
    if name.startswith("__") or re.match(r"_[A-Z]", name):
        return f"'{name}' is reserved in C++ (names starting with '__' or '_' and a capital); choose another name"
    if reserved and name in RESERVED_NAMES:
        return f"'{name}' is reserved ({RESERVED_NAMES[name]}); choose another name"
    return None


# ---------------------------------------------------------------------------------------------- reader


def _describe(node: YNode) -> str:
    if isinstance(node, YMap):
        return "a mapping"
    if isinstance(node, YSeq):
        return "a list"
    assert isinstance(node, YScalar)
    v = node.value
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean {'true' if v else 'false'}"
    if isinstance(v, int):
        return f"integer {v}"
    if isinstance(v, float):
        return f"float {v!r}"
    return f"string '{v}'"


class Reader:
    """Typed access to located YAML nodes; every problem is appended to :attr:`errors`, and the
    accessors return None (or an empty result) for a value they rejected.

    Compute parsers of other families use it through :class:`ComputeContext`.
    """

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = errors
        #: Names whose definition was rejected; expressions using them are not checked further, so one
        #: mistake gives one error rather than one per use.
        self.poisoned: set[str] = set()
        #: String literals of expressions (``"tanh"``, as parsed) -> the index of that value of a string attr.
        self.string_literals: dict[str, int] = {}

    def error(self, node: YNode, message: str, field: str | None = None) -> None:
        """Records ``message`` about ``node`` (its line; its path unless ``field`` is given)."""
        self.errors.append(SpecError(node.loc, field if field is not None else (node.path or "yaml"), message))

    def mapping(self, node: YNode, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, YNode] | None:
        """The entries of a mapping with exactly these keys.

        Records: not a mapping; each unknown key (at its line, listing the allowed keys); each missing
        required key (at the mapping's line, field ``path.key``).

        Returns:
            The known entries by key (missing ones absent), or None when ``node`` is not a mapping.
        """
        if not isinstance(node, YMap):
            self.error(node, f"expected a mapping, got {_describe(node)}")
            return None
        allowed = set(required) | set(optional)
        out: dict[str, YNode] = {}
        for key, value in node.entries:
            if not isinstance(key.value, str) or key.value not in allowed:
                self.error(key, f"unknown key {_show_key(key.value)}; allowed: {', '.join(sorted(allowed))}")
                continue
            out[key.value] = value
        for name in required:
            if name not in out:
                self.error(
                    node,
                    f"missing required key '{name}'; required here: {', '.join(sorted(required))}",
                    field=_join(node.path, name),
                )
        return out

    def seq(self, node: YNode) -> list[YNode] | None:
        """The items of a list, or None (recorded) when ``node`` is not one."""
        if not isinstance(node, YSeq):
            self.error(node, f"expected a list, got {_describe(node)}")
            return None
        return node.items

    def string(self, node: YNode) -> str | None:
        """A non-empty string, or None (recorded)."""
        if not isinstance(node, YScalar) or not isinstance(node.value, str):
            self.error(node, f"expected a string, got {_describe(node)}")
            return None
        if not node.value.strip():
            self.error(node, "must not be empty")
            return None
        return node.value

    def boolean(self, node: YNode) -> bool | None:
        """``true`` or ``false``, or None (recorded)."""
        if not isinstance(node, YScalar) or not isinstance(node.value, bool):
            self.error(node, f"expected true or false, got {_describe(node)}")
            return None
        return node.value

    def integer(self, node: YNode, lo: int | None = None, hi: int | None = None) -> int | None:
        """An integer (not a boolean) within ``[lo, hi]``, or None (recorded, naming the range)."""
        if not isinstance(node, YScalar) or isinstance(node.value, bool) or not isinstance(node.value, int):
            self.error(node, f"expected an integer, got {_describe(node)}")
            return None
        v = node.value
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"{lo}..{hi}" if lo is not None and hi is not None else f">= {lo}" if lo is not None else f"<= {hi}"
            self.error(node, f"{v} is out of range; allowed: {rng}")
            return None
        return v

    def number(self, node: YNode) -> int | float | None:
        """An integer or a finite float (not a boolean), or None (recorded)."""
        if (
            not isinstance(node, YScalar)
            or isinstance(node.value, bool)
            or not isinstance(node.value, (int, float))
            or (isinstance(node.value, float) and not math.isfinite(node.value))
        ):
            self.error(node, f"expected a finite number, got {_describe(node)}")
            return None
        return node.value

    def strings(self, node: YNode) -> list[tuple[YNode, str]]:
        """The non-empty strings of a list, with their nodes (problems recorded, bad items skipped)."""
        out = []
        for item in self.seq(node) or []:
            s = self.string(item)
            if s is not None:
                out.append((item, s))
        return out

    def name(self, node: YNode, reserved: bool = True) -> str | None:
        """A name that may become a C++ identifier (see :func:`name_problem`), or None (recorded)."""
        s = self.string(node)
        if s is None:
            return None
        problem = name_problem(s, reserved)
        if problem:
            self.error(node, problem)
            return None
        return s

    def dtype(self, node: YNode) -> DType | None:
        """A dtype name (``FLOAT``, ``BF16``, ...), or None (recorded, listing the dtypes)."""
        s = self.string(node)
        if s is None:
            return None
        if s not in DType.__members__:
            self.error(node, f"unknown dtype '{s}'; allowed: {', '.join(_DTYPE_NAMES)}")
            return None
        return DType[s]

    def dtypes(self, node: YNode) -> tuple[DType, ...]:
        """A non-empty list of distinct dtypes (problems recorded, bad items skipped)."""
        items = self.seq(node)
        if items is None:
            return ()
        if not items:
            self.error(node, f"empty dtype list; give at least one of: {', '.join(_DTYPE_NAMES)}")
            return ()
        out: list[DType] = []
        for item in items:
            d = self.dtype(item)
            if d is None:
                continue
            if d in out:
                self.error(item, f"duplicate dtype '{d.name}' (already in this list)")
                continue
            out.append(d)
        return tuple(out)

    def expr(
        self, node: YNode, scope: Scope, want: Iterable[ExprType], what: str = "the expression"
    ) -> tuple[Expr | None, ExprType | None]:
        """Parses an expression field and checks it in ``scope``.

        A YAML number or boolean is taken as a literal. Records syntax errors, forbidden constructs and
        every name, function, argument-count and type problem :func:`codegen.spec.expr.check` finds.

        Returns:
            ``(expr, type)``; both None when anything was wrong.
        """
        if not isinstance(node, YScalar) or node.value is None:
            self.error(node, f"expected an expression string, got {_describe(node)}")
            return None, None
        value = node.value
        try:
            if isinstance(value, str):
                e = parse_expr(value, node.loc, node.path, strings=bool(self.string_literals))
            elif isinstance(value, float) and not math.isfinite(value):
                raise SpecError(node.loc, node.path, f"float literal {value!r} is not finite")
            elif isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
                raise SpecError(node.loc, node.path, f"integer literal {value} does not fit in int64")
            else:
                e = Num(value)
        except SpecError as exc:
            self.errors.append(exc)
            return None, None
        if self.string_literals:
            e = _replace_string_literals(e, self.string_literals)
        if self.poisoned:
            scope = dataclasses.replace(scope, poisoned=scope.poisoned | self.poisoned)
        checked = check(e, scope, frozenset(want), what)
        for problem in checked.problems:
            self.error(node, problem)
        if checked.problems or checked.type is None:
            return None, None
        return e, checked.type


# ----------------------------------------------------------------------------------------------- scopes

_TENSOR_FUNCS = ", ".join(sorted(TENSOR_SIGNATURES))


def shape_scope(inputs: Sequence[TensorSpec], attrs: Sequence[AttrSpec]) -> Scope:
    """Scope of output ``shape`` expressions: input tensors (as tensors), attrs, ``broadcast``, ``shape``,
    ``numel``, ``rank``, ``dim``, ``abs``, ``min``, ``max``."""
    functions = {**SHAPE_SIGNATURES, **{k: v for k, v in TENSOR_SIGNATURES.items() if k != "dtype"}}
    functions.update(HOST_NUMERIC_SIGNATURES)
    allowed = {t.name: ExprType.TENSOR for t in inputs}
    allowed.update({a.name: a.expr_type for a in _typed(attrs)})
    groups = (("input tensors", tuple(t.name for t in inputs)), ("attrs", tuple(a.name for a in _typed(attrs))))
    return Scope(allowed, functions, groups)


def _replace_string_literals(e: Expr, literals: Mapping[str, int]) -> Expr:
    """``e`` with every string literal that is a value of a string attr replaced by that value's index."""
    if isinstance(e, Name):
        return Num(literals[e.id]) if e.id in literals else e
    children = {}
    for f in dataclasses.fields(e):  # type: ignore[arg-type]
        v = getattr(e, f.name)
        if isinstance(v, Expr):
            children[f.name] = _replace_string_literals(v, literals)
        elif isinstance(v, tuple) and v and isinstance(v[0], Expr):
            children[f.name] = tuple(_replace_string_literals(x, literals) for x in v)  # type: ignore[assignment]
    return dataclasses.replace(e, **children) if children else e  # type: ignore[type-var]


def _names(values: tuple[tuple[int, str], ...] | None) -> str:
    return ", ".join(n for _, n in values or ())


def _typed(attrs: Sequence[AttrSpec]) -> list[AttrSpec]:
    """The attrs whose type is valid (others were reported and are left out of scopes)."""
    return [a for a in attrs if a.type in ATTR_TYPES]


def _host_scope(
    tensors: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    extra: Sequence[tuple[str, ExprType]],
    extra_label: str,
) -> Scope:
    allowed: dict[str, ExprType] = {a.name: a.expr_type for a in _typed(attrs)}
    allowed.update(dict(extra))
    allowed.update({t.name: ExprType.TENSOR for t in tensors})
    allowed.update(PLATFORM_NAMES)
    allowed.update({d: ExprType.DTYPE for d in _DTYPE_NAMES})
    groups = (
        ("attrs", tuple(a.name for a in _typed(attrs))),
        (extra_label, tuple(n for n, _ in extra)),
        (f"tensors (only inside {_TENSOR_FUNCS})", tuple(t.name for t in tensors)),
        ("platform", tuple(PLATFORM_NAMES)),
        ("dtypes", _DTYPE_NAMES),
    )
    return Scope(allowed, {**TENSOR_SIGNATURES, **HOST_NUMERIC_SIGNATURES}, groups)


def scalar_scope(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    scalars: Sequence[tuple[str, ExprType]] = (),
) -> Scope:
    """Scope of host-evaluated ``compute.scalars``: attrs, earlier scalars, ``coreNum``, ``ubBytes``, dtype
    names, and tensors (inputs and outputs) only as arguments of ``numel``, ``rank``, ``dim``, ``dtype``;
    functions ``numel``, ``rank``, ``dim``, ``dtype``, ``abs``, ``min``, ``max``."""
    return _host_scope((*inputs, *outputs), attrs, scalars, "scalars")


def constraint_scope(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    attrs: Sequence[AttrSpec],
    lets: Sequence[tuple[str, ExprType]] = (),
) -> Scope:
    """Scope of constraint ``when``/``let``/``require``: as :func:`scalar_scope`, with let names (those
    defined so far) instead of scalars."""
    return _host_scope((*inputs, *outputs), attrs, lets, "lets")


def elementwise_scope(
    inputs: Sequence[TensorSpec], scalars: Sequence[tuple[str, ExprType]], attrs: Sequence[AttrSpec] = ()
) -> Scope:
    """Scope of elementwise output formulas: input names (one element each, FLOAT), scalar names, attribute
    names (host values, typed as in host expressions) and the functions of ``ELEMENTWISE_SIGNATURES``
    (``sigmoid exp log abs sqrt min max relu tanh erf log1p rsqrt sign clamp pow where``)."""
    allowed = {t.name: ExprType.FLOAT for t in inputs}
    attr_types = {a.name: a.expr_type for a in _typed(attrs)}
    allowed.update(attr_types)
    allowed.update(dict(scalars))
    groups = (
        ("inputs", tuple(t.name for t in inputs)),
        ("attrs", tuple(attr_types)),
        ("scalars", tuple(n for n, _ in scalars)),
    )
    return Scope(allowed, ELEMENTWISE_SIGNATURES, groups)


# ------------------------------------------------------------------------------------ compute parsers


@dataclass
class ComputeContext:
    """What a family's compute parser gets besides the ``compute`` node.

    Attributes:
        reader: typed access to nodes; record problems with ``reader.error(node, message)``.
        inputs: the op's inputs (parsed; names may be placeholders where they were invalid).
        outputs: the op's outputs.
        attrs: the op's attrs.
        taken: names already used (tensors, attrs): name -> ``(field path, loc)``; parsers that
            introduce names (scalars) register them with :meth:`claim`.
    """

    reader: Reader
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    attrs: tuple[AttrSpec, ...]
    taken: dict[str, tuple[str, SourceLoc]]

    def claim(self, node: YNode, name: str) -> bool:
        """Registers a new name; records a duplicate-name error and returns False when it is taken."""
        return _claim(self.reader, self.taken, node, name)


#: A family's compute parser: takes the ``compute`` node and the context, records problems in
#: ``ctx.reader`` and returns the family's compute model (None when it could not be built).
ComputeParser = Callable[[YNode, ComputeContext], object]


def _claim(r: Reader, taken: dict[str, tuple[str, SourceLoc]], node: YNode, name: str) -> bool:
    if name in taken:
        field, loc = taken[name]
        r.error(node, f"duplicate name '{name}' (already used by {field} at line {loc.line}); names must be unique")
        return False
    taken[name] = (node.path, node.loc)
    return True


def _check_elementwise_tensors(r: Reader, ctx: ComputeContext) -> None:
    """Elementwise rules on tensors: every optional input has a ``default`` (the value the formula uses when
    it is null), at least one input is required (its dtype selects the kernel), and an output shape that
    names one input (``shape: self``: the other inputs broadcast to it) names a required one."""
    for i, t in enumerate(ctx.inputs):
        if t.optional and t.default is None:
            r.errors.append(
                SpecError(
                    t.loc,
                    f"inputs[{i}].default",
                    f"optional input '{t.name}' needs a default: the value the formula uses when it is null",
                )
            )
    if ctx.inputs and all(t.optional for t in ctx.inputs):
        r.errors.append(SpecError(ctx.inputs[0].loc, "inputs", "an elementwise op needs at least one required input"))
    _check_elementwise_dtypes(r, ctx)
    by_name = {t.name: t for t in ctx.inputs}
    for i, out in enumerate(ctx.outputs):
        if isinstance(out.shape, Name) and out.shape.id in by_name and by_name[out.shape.id].optional:
            r.errors.append(
                SpecError(
                    out.loc,
                    f"outputs[{i}].shape",
                    f"'{out.shape.id}' is optional; an output shape may only name a required input",
                )
            )


#: Dtypes the elementwise kernel computes on: FLOAT in place, FLOAT16/BF16 cast to fp32 and back.
ELEMENTWISE_DTYPES: tuple[DType, ...] = (DType.FLOAT, DType.FLOAT16, DType.BF16)


def _check_elementwise_dtypes(r: Reader, ctx: ComputeContext) -> None:
    """Elementwise dtype rules: only :data:`ELEMENTWISE_DTYPES` (the kernel computes in float), and every
    input and output lists the same dtypes in the same order as the first required input (the device op
    gets every tensor in the one compute dtype, and the OpDef pairs the tensors' dtype lists by position)."""
    if any(e.field.endswith("dtypes") or ".dtypes[" in e.field for e in r.errors):
        return  # a list with errors of its own would only repeat them here
    allowed = ", ".join(d.name for d in ELEMENTWISE_DTYPES)
    tensors = [(f"inputs[{i}]", t) for i, t in enumerate(ctx.inputs)]
    tensors += [(f"outputs[{i}]", t) for i, t in enumerate(ctx.outputs)]
    reference = next((t for t in ctx.inputs if not t.optional), None)
    for field, t in tensors:
        bad = [d.name for d in t.dtypes if d not in ELEMENTWISE_DTYPES]
        if bad:
            r.errors.append(
                SpecError(
                    t.loc,
                    f"{field}.dtypes",
                    f"'{t.name}' lists {', '.join(bad)}, which the elementwise family does not compute on "
                    f"(its kernel computes in float); allowed: {allowed}",
                )
            )
        elif (
            reference is not None
            and t is not reference
            and t.dtypes != reference.dtypes
            and not any(d not in ELEMENTWISE_DTYPES for d in reference.dtypes)
        ):
            r.errors.append(
                SpecError(
                    t.loc,
                    f"{field}.dtypes",
                    f"'{t.name}' lists [{', '.join(d.name for d in t.dtypes)}] but '{reference.name}' lists "
                    f"[{', '.join(d.name for d in reference.dtypes)}]; the tensors of an elementwise op must "
                    "list the same dtypes in the same order (the device op computes all of them in one dtype "
                    "and its OpDef pairs the lists by position)",
                )
            )


def parse_elementwise_compute(node: YNode, ctx: ComputeContext) -> ElementwiseCompute | None:
    """Parses the ``compute`` section of the elementwise family.

    Keys: ``promote`` (inputs promoted to one compute dtype), ``scalars`` (name -> host expression in
    :func:`scalar_scope`, integer or float), and one formula per output name (in :func:`elementwise_scope`).

    Returns:
        The model, or None when the node is not a mapping.
    """
    r = ctx.reader
    output_names = [t.name for t in ctx.outputs]
    m = r.mapping(node, output_names, ("promote", "scalars"))
    if m is None:
        return None
    for out in ctx.outputs:
        if out.name in ("promote", "scalars"):
            r.error(node, f"an elementwise output cannot be called '{out.name}' (a key of compute)")
    input_names = [t.name for t in ctx.inputs]
    _check_elementwise_tensors(r, ctx)
    promote: list[str] = []
    if "promote" in m:
        for item, name in r.strings(m["promote"]):
            if name not in input_names:
                r.error(item, f"'{name}' is not an input; allowed: {', '.join(input_names)}")
            elif name in promote:
                r.error(item, f"duplicate input '{name}'")
            else:
                promote.append(name)
    scalars: list[tuple[str, Expr]] = []
    types: list[tuple[str, ExprType]] = []
    if "scalars" in m:
        sm = m["scalars"]
        if not isinstance(sm, YMap):
            r.error(sm, f"expected a mapping of scalar name to expression, got {_describe(sm)}")
        else:
            for key, value in sm.entries:
                scalar = r.name(key) if isinstance(key.value, str) else None
                if scalar is None:
                    if not isinstance(key.value, str):
                        r.error(key, f"scalar name {key.value!r} is not a string")
                    continue
                if not ctx.claim(key, scalar):
                    continue
                scope = scalar_scope(ctx.inputs, ctx.outputs, ctx.attrs, types)
                e, typ = r.expr(value, scope, (ExprType.INT, ExprType.FLOAT), f"scalar '{scalar}'")
                host_problem = elementwise_host_problem(e, input_names) if e is not None else None
                if host_problem:
                    r.error(value, host_problem)
                    e = None
                if e is not None and typ is not None:
                    scalars.append((scalar, e))
                    types.append((scalar, typ))
                else:
                    types.append((scalar, ExprType.FLOAT))  # keep the name known to the formulas
                    r.poisoned.add(scalar)
    outputs: list[tuple[str, Expr]] = []
    scope = elementwise_scope(ctx.inputs, types, ctx.attrs)
    for name in output_names:
        if name in m:
            e, _ = r.expr(m[name], scope, (ExprType.INT, ExprType.FLOAT), f"the formula of '{name}'")
            problem = formula_problem(e, input_names) if e is not None else None
            if problem:
                r.error(m[name], problem)
            elif e is not None:
                outputs.append((name, e))
    return ElementwiseCompute(tuple(promote), tuple(scalars), tuple(outputs), node.loc, tuple(types))


#: Families whose name ``family:`` accepts (a family without a parser in :data:`COMPUTE_PARSERS` is
#: reported at its ``compute`` section).
KNOWN_FAMILIES: tuple[str, ...] = ("elementwise", "index_accumulate")

#: Compute parser of each family; other modules add theirs (``COMPUTE_PARSERS["index_accumulate"] = ...``).
COMPUTE_PARSERS: dict[str, ComputeParser] = {
    "elementwise": parse_elementwise_compute,
    # index_accumulate family: model and parser live in codegen/spec/index_accumulate.py
    "index_accumulate": parse_index_accumulate_compute,
}


def _families() -> list[str]:
    return sorted(set(KNOWN_FAMILIES) | set(COMPUTE_PARSERS))


# -------------------------------------------------------------------------------------------- catalogue

_PRODUCT_KEYS = (
    "name",
    "doc_term",
    "config_name",
    "soc_version",
    "npu_arch",
    "ub_bytes",
    "vector_core_num",
    "bf16",
    "data_copy_pad",
    "atomic_add_dtypes",
    "queue_buffer_cap",
    "hw_sync_all",
    "sys_workspace_bytes",
    "source",
)
_PRODUCT_OPTIONAL_KEYS = ("capability_source",)
_LOWER_IDENT = re.compile(r"[a-z][a-z0-9_]*")
_STRING_VALUE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_UPPER_IDENT = re.compile(r"[A-Z][A-Z0-9_]*")
UB_BLOCK_BYTES = 32  # UB block size on every catalogued SoC (reference/ascend-platform.md)
#: Product facts generated code selects by NpuArch (``__NPU_ARCH__`` in kernels, ``GetCurNpuArch()`` on the
#: host), so products sharing an NpuArch must agree on them. UB bytes and core counts are read from the
#: platform at run time and may differ.
ARCH_CAPABILITIES = (
    "bf16",
    "data_copy_pad",
    "atomic_add_dtypes",
    "queue_buffer_cap",
    "hw_sync_all",
    "sys_workspace_bytes",
)


def _pattern(r: Reader, node: YNode, rx: re.Pattern[str], what: str) -> str:
    s = r.string(node)
    if s is None:
        return ""
    if not rx.fullmatch(s):
        r.error(node, f"'{s}' is not {what}")
        return ""
    return s


def _parse_product(r: Reader, node: YNode) -> Product | None:
    m = r.mapping(node, _PRODUCT_KEYS, _PRODUCT_OPTIONAL_KEYS)
    if m is None:
        return None

    def get(key: str, fn: Callable[[YNode], object]) -> object:
        return fn(m[key]) if key in m else None

    name = _pattern(r, m["name"], _C_IDENT, "a valid identifier (e.g. Ascend910B)") if "name" in m else ""
    config = (
        _pattern(r, m["config_name"], _LOWER_IDENT, "a lower-case identifier (e.g. ascend910b)")
        if "config_name" in m
        else ""
    )
    soc = (
        _pattern(r, m["soc_version"], _UPPER_IDENT, "an upper-case identifier (e.g. ASCEND910B)")
        if "soc_version" in m
        else ""
    )
    # InitBuffer lengths are uint32_t (asc-devkit include/basic_api/kernel_tpipe.h): a UB past 2**31 - 1 bytes
    # could not be carved by any kernel.
    ub = get("ub_bytes", lambda n: r.integer(n, 1, MAX_UB_BYTES))
    if isinstance(ub, int) and ub % UB_BLOCK_BYTES:
        r.error(m["ub_bytes"], f"ub_bytes {ub} is not a multiple of {UB_BLOCK_BYTES} (the UB block size)")
    atomics: tuple[DType, ...] = ()
    if "atomic_add_dtypes" in m:
        items = r.seq(m["atomic_add_dtypes"]) or []
        seen: list[DType] = []
        for item in items:
            d = r.dtype(item)
            if d is not None and d in seen:
                r.error(item, f"duplicate dtype '{d.name}' (already in this list)")
            elif d is not None:
                seen.append(d)
        atomics = tuple(seen)

    def as_int(v: object) -> int:
        return v if isinstance(v, int) else 0

    return Product(
        name=name,
        doc_term=str(get("doc_term", r.string) or ""),
        config_name=config,
        soc_version=soc,
        npu_arch=as_int(get("npu_arch", lambda n: r.integer(n, 1))),
        ub_bytes=as_int(ub),
        vector_core_num=as_int(get("vector_core_num", lambda n: r.integer(n, 1, MAX_BLOCK_DIM))),
        bf16=bool(get("bf16", r.boolean)),
        data_copy_pad=bool(get("data_copy_pad", r.boolean)),
        atomic_add_dtypes=atomics,
        queue_buffer_cap=as_int(get("queue_buffer_cap", lambda n: r.integer(n, 1, 64))),
        hw_sync_all=bool(get("hw_sync_all", r.boolean)),
        sys_workspace_bytes=as_int(get("sys_workspace_bytes", lambda n: r.integer(n, 0, MAX_SYS_WORKSPACE_BYTES))),
        source=str(get("source", r.string) or ""),
        capability_source=str(get("capability_source", r.string) or ""),
        loc=node.loc,
    )


def _value_node(node: YMap, key: str) -> YNode:
    """The value of ``key`` in ``node`` (for its line), or ``node`` itself when the key is absent."""
    return next((v for k, v in node.entries if k.value == key), node)


def _check_catalogue(r: Reader, products: list[tuple[YMap, Product]]) -> None:
    for key in ("name", "config_name", "soc_version"):
        first: dict[str, Product] = {}
        for node, p in products:
            value = getattr(p, key)
            if not value:
                continue
            if value in first:
                where = _value_node(node, key)
                r.error(where, f"duplicate product {key} '{value}' (first at line {first[value].loc.line})")
            else:
                first[value] = p
    by_arch: dict[int, Product] = {}
    for node, p in products:
        if DType.BF16 in p.atomic_add_dtypes and not p.bf16:
            r.error(
                _value_node(node, "atomic_add_dtypes"), f"{p.name} lists BF16 in atomic_add_dtypes but has bf16: false"
            )
        if not p.npu_arch:
            continue
        other = by_arch.setdefault(p.npu_arch, p)
        for cap in ARCH_CAPABILITIES:
            if other is not p and getattr(other, cap) != getattr(p, cap):
                r.error(
                    _value_node(node, cap),
                    f"{p.name} has npu_arch {p.npu_arch} like {other.name} (line {other.loc.line}) "
                    f"but a different {cap}; "
                    f"products sharing an NpuArch must agree on {', '.join(ARCH_CAPABILITIES[:-1])} and "
                    f"{ARCH_CAPABILITIES[-1]} (generated code selects by NpuArch, never by product name)",
                )


def _load_catalogue(path: Path, errors: list[SpecError]) -> Catalogue | None:
    r = Reader(errors)
    before = len(errors)
    root = read_yaml(path, errors)
    if root is None:
        return None
    top = r.mapping(root, ("products",))
    if top is None or "products" not in top:
        return None
    items = r.seq(top["products"])
    if items is None:
        return None
    if not items:
        r.error(top["products"], "empty product list; the catalogue needs at least one product")
    parsed: list[tuple[YMap, Product]] = []
    for item in items:
        p = _parse_product(r, item)
        if p is not None and isinstance(item, YMap):
            parsed.append((item, p))
    _check_catalogue(r, parsed)
    catalogue = Catalogue(tuple(p for _, p in parsed), str(path))
    return catalogue if len(errors) == before else None


def _sorted(errors: list[SpecError]) -> list[SpecError]:
    return sorted(errors, key=lambda e: (e.loc.file, e.loc.line))


def load_catalogue(path: str | Path) -> Catalogue:
    """Loads the product catalogue (``specs/products.yaml``).

    Args:
        path: the catalogue file.

    Returns:
        The catalogue, products in file order.

    Raises:
        SpecErrors: every problem: YAML syntax, duplicate or unknown or missing keys, wrong types,
            ``ub_bytes`` not a positive multiple of 32, unknown atomic dtypes, BF16 atomics without bf16,
            duplicate names/config names/SoC versions, products of one NpuArch with different capabilities.
    """
    errors: list[SpecError] = []
    catalogue = _load_catalogue(Path(path), errors)
    if errors or catalogue is None:
        raise SpecErrors(_sorted(errors))
    return catalogue


# ---------------------------------------------------------------------------------------------- op spec

_ROOT_REQUIRED = (
    "op",
    "op_type",
    "kernel",
    "family",
    "summary",
    "products",
    "deterministic",
    "inputs",
    "outputs",
    "compute",
    "tiling",
)
_ROOT_OPTIONAL = ("attrs", "device", "constraints", "notes", "example", "deterministic_gm_atomics")


class _OpParser:
    """Parses one op spec document; problems go to ``reader.errors``."""

    def __init__(self, root: YNode, path: Path, catalogue: Catalogue | None, r: Reader) -> None:
        self.root = root
        self.path = path
        self.catalogue = catalogue
        self.r = r
        self.taken: dict[str, tuple[str, SourceLoc]] = {}
        self.op_products: tuple[str, ...] = ()  # the op's products, once parsed

    # -- helpers

    def upper_camel(self, node: YNode, example: str) -> str:
        s = self.r.string(node)
        if s is None:
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
        optional = (["const"] if is_output else ["optional", "default"]) + ["formats"]
        m = self.r.mapping(node, required, optional) or {}
        kind = "output" if is_output else "input"
        name = self.tensor_name(m["name"], f"<{kind} {index}>") if "name" in m else f"<{kind} {index}>"
        dtypes = self.r.dtypes(m["dtypes"]) if "dtypes" in m else ()
        rank = self.rank(m["rank"]) if "rank" in m else (0, MAX_RANK)
        description = (self.r.string(m["description"]) or "") if "description" in m else ""
        optional_flag = bool(self.r.boolean(m["optional"])) if "optional" in m else False
        const = bool(self.r.boolean(m["const"])) if "const" in m else False
        default: float | None = None
        if "default" in m:
            if not optional_flag:
                self.r.error(m["default"], "a default is only allowed on an optional input (optional: true)")
            else:
                number = self.r.number(m["default"])
                default = None if number is None else float(number)
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
        spec = TensorSpec(name, dtypes, rank, description, optional_flag, None, node.loc, const, default, formats)
        return spec, m.get("shape")

    def attr(self, node: YNode) -> AttrSpec:
        r = self.r
        m = r.mapping(node, ("name", "type", "description"), ("values", "default", "dtypes")) or {}
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
        return AttrSpec(name, type_, values, default, description, node.loc, scalar_dtypes)

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
        lo = 0 if type_ == "uint64" else INT64_MIN
        hi = (1 << 64) - 1 if type_ == "uint64" else INT64_MAX
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
            if not _C_IDENT.fullmatch(label) or label in CPP_KEYWORDS:
                r.error(value, f"value name '{label}' must be a C identifier and not a C++ keyword")
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
                r.error(node, f"{what} must be an integer for a {type_} attr, got {_describe(node)}")
                return None
            lo, hi = (0, (1 << 64) - 1) if type_ == "uint64" else (INT64_MIN, INT64_MAX)
            if not lo <= v <= hi:
                r.error(node, f"{what} {v} is out of range for {type_}; allowed: {lo}..{hi}")
                return None
            if values is not None and v not in {k for k, _ in values}:
                allowed = ", ".join(f"{k} ({n})" for k, n in values)
                r.error(node, f"{what} {v} is not one of the values; allowed: {allowed}")
                return None
            return v
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            r.error(node, f"{what} must be a finite number for a {type_} attr, got {_describe(node)}")
            return None
        return float(v)

    def tiling(self, node: YNode) -> TilingSpec:
        r = self.r
        m = r.mapping(node, ("buffer_num", "ub_reserved_bytes", "min_bytes_per_core")) or {}
        buffer_num = r.integer(m["buffer_num"], 1, 8) if "buffer_num" in m else None
        reserved = r.integer(m["ub_reserved_bytes"], 0) if "ub_reserved_bytes" in m else None
        if reserved is not None and reserved % UB_BLOCK_BYTES:
            r.error(m["ub_reserved_bytes"], f"{reserved} is not a multiple of {UB_BLOCK_BYTES} (the UB block size)")
        min_bytes = r.integer(m["min_bytes_per_core"], 1) if "min_bytes_per_core" in m else None
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
        return None if number is None else float(number)

    def example(
        self, node: YNode, inputs: tuple[TensorSpec, ...], attrs: tuple[AttrSpec, ...], outputs: tuple[TensorSpec, ...]
    ) -> Example | None:
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
                    if v is None:
                        ok = False
                    else:
                        attr_values[a.name] = v
        for a in attrs:
            if a.name not in attr_values and a.default is not None:
                attr_values[a.name] = a.default  # type: ignore[assignment]
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
            env: dict[str, object] = {**got, **attr_values}
            try:
                expected = as_shape(evaluate(outputs[0].shape, env))
            except ExprEvalError as exc:
                r.error(
                    m["output"], f"the example inputs do not fit the output shape {to_source(outputs[0].shape)}: {exc}"
                )
                return None
            if expected != output.shape:
                r.error(
                    m["output"],
                    f"example output shape {list(output.shape)} does not match "
                    f"{to_source(outputs[0].shape)} = {list(expected)}",
                )
                return None
        ordered = tuple((t.name, got[t.name]) for t in inputs if t.name in got)
        attr_pairs = tuple((a.name, attr_values[a.name]) for a in attrs if a.name in attr_values)
        return Example(ordered, attr_pairs, output, node.loc)

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
            allowed_names = [a.name for a in attrs] + [n for n, _ in let_types]
            self.check_placeholders(m["message"], message, allowed_names)
        status = 161002
        if "status" in m:
            s = r.integer(m["status"])
            if s is not None and s not in ACLNN_STATUS_CODES:
                allowed = ", ".join(f"{k} ({v})" for k, v in ACLNN_STATUS_CODES.items())
                r.error(m["status"], f"status {s} is not an aclnnStatus error code; allowed: {allowed}")
            elif s is not None:
                status = s
        if require is None or not ok:
            return None
        return Constraint(name, cons_products, when, tuple(lets), require, message, status, node.loc)

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
            if k is not None and not _SNAKE.fullmatch(k):
                r.error(
                    m["kernel"],
                    f"'{k}' is not snake_case (lower-case letters, digits and single '_', e.g. soft_margin_loss_grad)",
                )
            elif k is not None and k in CPP_KEYWORDS:
                r.error(m["kernel"], f"'{k}' is a C++ keyword; choose another name")
            elif k is not None:
                kernel = k
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

        device = self.device(m["device"], family, inputs, outputs, attrs) if "device" in m else None

        tiling = self.tiling(m["tiling"]) if "tiling" in m else TilingSpec(1, 0, 1, self.root.loc)
        if "tiling" in m:
            self.tiling_vs_products(m["tiling"], tiling, products)

        compute: object = None
        if "compute" in m and family:
            parser = COMPUTE_PARSERS.get(family)
            if parser is None:
                r.error(
                    m["compute"],
                    f"no compute parser is registered for family '{family}'; registered: "
                    f"{', '.join(sorted(COMPUTE_PARSERS))} (add one to codegen.spec.loader.COMPUTE_PARSERS)",
                )
            else:
                compute = parser(m["compute"], ComputeContext(r, inputs, outputs, attrs, self.taken))

        constraints: list[Constraint] = []
        if "constraints" in m:
            seen: dict[str, int] = {}
            for item in r.seq(m["constraints"]) or []:
                c = self.constraint(item, products, seen, inputs, outputs, attrs)
                if c is not None:
                    constraints.append(c)

        self.zero_divisors(m, partial_outputs, outputs, compute, constraints, attrs, products, inputs)
        example = self.example(m["example"], inputs, attrs, outputs) if "example" in m else None

        return OpSpec(
            op=op,
            op_type=op_type,
            kernel=kernel,
            family=family,
            summary=summary,
            products=products,
            deterministic=deterministic,
            deterministic_gm_atomics=deterministic_gm_atomics,
            inputs=inputs,
            attrs=attrs,
            outputs=outputs,
            compute=compute,
            tiling=tiling,
            constraints=tuple(constraints),
            notes=notes,
            example=example,
            path=str(self.path),
            loc=self.root.loc,
            device=device,
        )

    def device(
        self,
        node: YNode,
        family: str,
        inputs: tuple[TensorSpec, ...],
        outputs: tuple[TensorSpec, ...],
        attrs: tuple[AttrSpec, ...],
    ) -> DeviceInterface | None:
        """The ``device`` section: the OpDef's inputs/outputs (``{name, from}``, every aclnn tensor exactly
        once, in registration order), attrs (``{name, from, type, default}``; ``string`` attrs carry the name
        of an aclnn integer attr's value, so their source must have ``values``) and the dtype order."""
        r = self.r
        if family and family != "elementwise":
            r.error(node, f"a device section is supported by the elementwise family only, not '{family}'")
            return None
        m = r.mapping(node, ("inputs", "outputs"), ("attrs", "dtypes"))
        if m is None:
            return None
        reserved = {"workspace", "tiling", "tilingData", "op"}
        seen: dict[str, str] = {}

        def tensors(key: str, aclnn: tuple[TensorSpec, ...]) -> tuple[DeviceTensor, ...]:
            out: list[DeviceTensor] = []
            used: set[str] = set()
            for item in r.seq(m[key]) or []:
                e = r.mapping(item, ("name", "from"))
                if not e or "name" not in e or "from" not in e:
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
                if source in used:
                    r.error(e["from"], f"aclnn {key[:-1]} '{source}' is already carried by another device {key[:-1]}")
                    continue
                seen[name] = f"{key}"
                used.add(source)
                out.append(DeviceTensor(name, source, item.loc))
            missing = [t.name for t in aclnn if t.name not in used]
            if missing and r.seq(m[key]) is not None:
                r.error(
                    m[key],
                    f"every aclnn {key[:-1]} must be carried by one device {key[:-1]}; missing: {', '.join(missing)}",
                )
            return tuple(out)

        dev_inputs = tensors("inputs", inputs) if "inputs" in m else ()
        dev_outputs = tensors("outputs", outputs) if "outputs" in m else ()
        dev_attrs: list[DeviceAttr] = []
        used_attrs: set[str] = set()
        for item in (r.seq(m["attrs"]) or []) if "attrs" in m else []:
            e = r.mapping(item, ("name", "from", "type"), ("default",))
            if not e or not {"name", "from", "type"} <= set(e):
                continue
            name = r.name(e["name"], reserved=False)
            source = r.string(e["from"])
            type_ = r.string(e["type"])
            if name is None or source is None or type_ is None:
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
            }[type_]
            if not fits:
                r.error(
                    e["type"],
                    f"a {type_} device attr cannot carry aclnn attr '{source}' ({src.type}"
                    + (", without values" if type_ == "string" else "")
                    + "); string needs an integer attr with values, int an integer, float a float/double, bool a bool",
                )
                continue
            default: int | float | bool | str | None = None
            if "default" in e:
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
                default = float(cast(float, v)) if type_ == "float" else v
            used_attrs.add(source)
            dev_attrs.append(DeviceAttr(name, source, type_, default, item.loc))
        missing_attrs = [a.name for a in attrs if a.name not in used_attrs]
        if missing_attrs:
            r.error(
                node,
                f"every aclnn attr must be carried by one device attr; missing: {', '.join(missing_attrs)}",
                field=_join(node.path, "attrs"),
            )
        dtypes: tuple[DType, ...] | None = None
        if "dtypes" in m:
            dtypes = r.dtypes(m["dtypes"])
            listed = set(inputs[0].dtypes) if inputs else set()
            if dtypes and set(dtypes) != listed:
                r.error(
                    m["dtypes"],
                    "the device dtype order must list exactly the tensors' dtypes ("
                    + ", ".join(d.name for d in (inputs[0].dtypes if inputs else ()))
                    + ")",
                )
        return DeviceInterface(dev_inputs, dev_outputs, tuple(dev_attrs), dtypes or None, node.loc)

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
    ) -> None:
        """Cross-entry rule: no host expression (and no tensor-free part of a formula) divides (``/``,
        ``//``, ``%``) by anything that may be 0 unless it is provably nonzero (see
        :func:`codegen.spec.rules.zero_division`): a literal 0, an attr (unless its ``values``, an
        unconditional constraint on all the op's products (for a constraint's own expressions: an earlier
        one, or its ``when``) or a guard exclude 0), ``rank()`` of a tensor whose rank rule allows 0,
        ``numel()``/``dim()`` (0 for an empty tensor; an elementwise op's tiling runs only for a non-empty
        output, so there ``numel`` of the output is nonzero). ``//`` and ``%`` by an integer 0 are a SIGFPE
        in the generated C++; ``/`` gives inf or NaN. Also, no host expression may hold a constant part
        that overflows int64 (:func:`codegen.spec.rules.constant_problem`)."""
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

        always_nonzero = set(PLATFORM_NAMES)

        def report(
            node: YNode,
            e: Expr,
            gone: set[str],
            defs: Mapping[str, Expr] | None = None,
            nonzero: Collection[str] = (),
            opaque: Collection[str] = (),
        ) -> None:
            doms = with_atoms(e, defs)
            found = zero_division(e, doms, gone, defs, {*always_nonzero, *nonzero}, opaque)
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
            self.r.error(
                node,
                f"'{e}' divides by {what} which may be 0 ({effect}); add a constraint such as "
                f'require: "{attr} != 0" (or "{attr} > 0"), or guard the division: \'... if {attr} != 0 else ...\'',
            )

        gone_all = excluded(constraints)
        for (_, shape_node), out in zip(partial_outputs, outputs):
            if shape_node is not None and out.shape is not None:
                report(shape_node, out.shape, gone_all)
        if isinstance(compute, ElementwiseCompute) and isinstance(m.get("compute"), YMap):
            compute_nodes = {k.value: v for k, v in _entries(m["compute"])}
            defs = dict(compute.scalars)
            # The tiling function runs only for a non-empty output (the op API returns before it otherwise).
            tiling_nonzero = {f"numel({o.name})" for o in outputs}
            for key, value in _entries(compute_nodes.get("scalars")):
                if key.value in defs:
                    report(value, defs[key.value], gone_all, defs, tiling_nonzero)
            for name, formula in compute.outputs:
                if name in compute_nodes:
                    report(compute_nodes[name], formula, gone_all, defs, tiling_nonzero, [t.name for t in inputs])
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
            if c.when is not None:
                report(im["when"], c.when, set(gone))
                when = atomize(c.when)
                gone |= {n for n in expr_names(when) if excludes_zero(when, n, True)}
            let_nodes = {key.value: v for key, v in _entries(im.get("let"))}
            let_defs: dict[str, Expr] = {}
            for ln, le in c.let:
                report(let_nodes[ln], le, set(gone), let_defs)
                let_defs[ln] = le
            report(im["require"], c.require, set(gone), let_defs)

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
    spec, _ = _load_op_spec(Path(path), catalogue, errors)
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
                loc = next((k.loc for k, _ in _entries(root) if k.value == key), spec.loc)
                errors.append(SpecError(loc, key, f"{key} '{value}' is also used by {other.path}"))
                clash = True
        if not clash:
            specs[path.stem] = spec
    if errors or catalogue is None:
        raise SpecErrors(_sorted(errors))
    return catalogue, specs
