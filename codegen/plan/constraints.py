"""Spec ``constraints`` for every family: the C++ of the phase-1 check and the doc lines (their Python
evaluation on a call is :mod:`codegen.check.constraints`).

A constraint applies on the op's products it lists. The generated check selects them by NpuArch
(``GetCurNpuArch()``), never by SoC name; the spec loader guarantees that a constraint lists either all or
none of the op's products of an NpuArch, so the NpuArch condition is exact.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from codegen.spec.expr import Expr, ExprType, check, to_cpp, to_source
from codegen.spec.model import Catalogue, Constraint, DType, OpSpec
from codegen.spec.scopes import constraint_scope
from codegen.types import ATTR_TYPE_INFO, AclnnStatus

_LET_CTYPES = {ExprType.INT: "int64_t", ExprType.FLOAT: "double", ExprType.BOOL: "bool"}


def status_name(code: int) -> str:
    """The aclnnStatus name of ``code`` (e.g. 161002 -> ``ACLNN_ERR_PARAM_INVALID``)."""
    return AclnnStatus(code).name


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")


def host_cpp(
    spec: OpSpec, expr: Expr, lets: set[str], used: set[str], let_types: list[tuple[str, ExprType]] | None = None
) -> str:
    """C++ of a host expression in the op_api (attrs, lets, tensors through functions, platform, dtypes).

    ``used`` collects the platform values the expression reads (``coreNum``, ``ubBytes``); ``let_types``
    are the types of the lets defined so far (integer operands mixed with floating ones are then
    converted explicitly, as ``-Wconversion`` requires).

    Raises:
        ValueError: a name has no C++ form in the op_api.
    """
    attr_types = {a.name: a.type for a in spec.attrs}
    tensors = {t.name for t in (*spec.inputs, *spec.outputs)}

    def name(n: str) -> str:
        if n in lets or n in tensors:
            return n
        if n in attr_types:
            t = attr_types[n]
            if t == "uint64":
                return f"static_cast<int64_t>({n})"
            return f"static_cast<double>({n})" if t in ("double", "float") else n
        if n in ("coreNum", "ubBytes"):
            used.add(n)
            return n
        if n in DType.__members__:
            return f"op::DataType::{DType[n].ge_name}"
        raise ValueError(f"name '{n}' has no C++ form in the op_api")

    functions: dict[str, Callable[[list[str]], str]] = {
        "numel": lambda a: f"{a[0]}->GetViewShape().GetShapeSize()",
        "rank": lambda a: f"static_cast<int64_t>({a[0]}->GetViewShape().GetDimNum())",
        "dim": lambda a: f"ShapeDim({a[0]}, {a[1]})",
        "dtype": lambda a: f"{a[0]}->GetDataType()",
        "present": lambda a: f"({a[0]} != nullptr)",
    }
    scope = constraint_scope(spec.inputs, spec.outputs, spec.attrs, let_types or [])

    def is_float(e: Expr) -> bool:
        try:
            return check(e, scope, list(ExprType)).type is ExprType.FLOAT
        except Exception:  # a subexpression the checker cannot type alone is left as printed
            return False

    return to_cpp(expr, name, functions, is_float)


def _message(spec: OpSpec, c: Constraint, type_of: Mapping[str, ExprType]) -> tuple[str, list[str]]:
    """The printf format and arguments of a constraint's message (``{name}`` placeholders filled).

    The check appends the sentence's full stop, so one the spec's message ends with is dropped here (a
    message written as a sentence gets one period, not two)."""
    attrs = {a.name: a for a in spec.attrs}
    fmt_parts: list[str] = []
    args: list[str] = []
    text = c.message[:-1] if c.message.endswith(".") and not c.message.endswith("..") else c.message
    for literal, field, _, _ in string.Formatter().parse(text):
        fmt_parts.append(_c_string(literal))
        if field is None:
            continue
        if field in type_of:
            kind = type_of[field]
            if kind is ExprType.FLOAT:
                fmt_parts.append("%g")
                args.append(field)
            elif kind is ExprType.BOOL:
                fmt_parts.append("%s")
                args.append(f'({field} ? "true" : "false")')
            else:
                fmt_parts.append("%lld")
                args.append(f"static_cast<long long>({field})")
            continue
        info = ATTR_TYPE_INFO[attrs[field].type]
        fmt_parts.append(info.printf_format)
        if info.printf_cast is None:
            args.append(f'({field} ? "true" : "false")')
        else:
            args.append(f"static_cast<{info.printf_cast}>({field})")
    return "".join(fmt_parts), args


def arch_test(c: Constraint, spec: OpSpec, catalogue: Catalogue) -> str:
    """The C++ condition selecting the NpuArchs ``c`` applies on (``"true"`` when it covers every product of
    the op), over a local ``uint32_t npuArch``."""
    archs = sorted({catalogue.get(p).npu_arch for p in c.products})
    if archs == sorted({catalogue.get(p).npu_arch for p in spec.products}):
        return "true"
    return " || ".join(f"npuArch == {a}" for a in archs)


@dataclass(frozen=True)
class ConstraintLet:
    """A ``let`` of a constraint check: its C++ type, name and C++ value."""

    ctype: str
    name: str
    cpp: str


@dataclass(frozen=True)
class ConstraintCheck:
    """The op_api check of one constraint: ``name``; ``products`` (comma-separated); ``archs`` (C++ NpuArch
    condition over ``npuArch``, ``"true"`` on every product); ``guard`` (archs and when as one C++
    condition, ``""`` when the check always applies); ``when`` (C++ or ``"true"``) and ``when_text``;
    ``lets``; ``require`` (C++) and ``require_text``; ``status`` (status name); ``format`` (printf text of
    the message) and ``args`` (its arguments)."""

    name: str
    products: str
    archs: str
    guard: str
    when: str
    when_text: str
    lets: tuple[ConstraintLet, ...]
    require: str
    require_text: str
    status: str
    format: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class ConstraintChecks:
    """The op_api checks of every constraint of an op, for ``templates/common/constraints.j2``, and what
    they need: the core count, the UB size, the ``ShapeDim`` helper, the NpuArch, ``<cmath>`` (a check
    calls a function such as ``std::abs``)."""

    constraints: tuple[ConstraintCheck, ...]
    uses_core_num: bool
    uses_ub_bytes: bool
    uses_shape_dim: bool
    uses_arch: bool
    uses_cmath: bool


def constraint_view(spec: OpSpec, catalogue: Catalogue) -> ConstraintChecks:
    """The op_api check of every constraint of ``spec`` (see :class:`ConstraintChecks`)."""
    used: set[str] = set()
    out: list[ConstraintCheck] = []
    for c in spec.constraints:
        lets: list[ConstraintLet] = []
        let_names: set[str] = set()
        types: list[tuple[str, ExprType]] = []
        for name, e in c.let:
            t = check(e, constraint_scope(spec.inputs, spec.outputs, spec.attrs, types), list(ExprType)).type
            typ = t if t in _LET_CTYPES else ExprType.INT
            lets.append(ConstraintLet(_LET_CTYPES[typ], name, host_cpp(spec, e, let_names, used, types)))
            let_names.add(name)
            types.append((name, typ))
        fmt, args = _message(spec, c, dict(types))
        archs = arch_test(c, spec, catalogue)
        when = host_cpp(spec, c.when, set(), used, types) if c.when is not None else "true"
        guard = [part for part in (f"({archs})" if archs != "true" else "", when if when != "true" else "") if part]
        out.append(
            ConstraintCheck(
                name=c.name,
                products=", ".join(c.products),
                archs=archs,
                guard=" && ".join(guard),
                when=when,
                when_text=to_source(c.when) if c.when is not None else "always",
                lets=tuple(lets),
                require=host_cpp(spec, c.require, let_names, used, types),
                require_text=to_source(c.require),
                status=status_name(c.status),
                format=fmt,
                args=tuple(args),
            )
        )
    texts = [c.when for c in out] + [c.require for c in out] + [lt.cpp for c in out for lt in c.lets]
    return ConstraintChecks(
        constraints=tuple(out),
        uses_core_num="coreNum" in used,
        uses_ub_bytes="ubBytes" in used,
        uses_shape_dim=any("ShapeDim(" in t for t in texts),
        uses_arch=any(c.archs != "true" for c in out),
        uses_cmath=any("std::" in t for t in texts),
    )


def constraint_doc_lines(spec: OpSpec, catalogue: Catalogue) -> list[str]:
    """One documentation line per constraint (products by their doc term, the rule, the status)."""
    lines = []
    for c in spec.constraints:
        if set(c.products) == set(spec.products):
            terms = "Every product"
        else:
            terms = ", ".join(f"{catalogue.get(p).doc_term} ({p})" for p in c.products)
        lets = ", with " + "; ".join(f"`{n} = {to_source(e)}`" for n, e in c.let) if c.let else ""
        when = f"when `{to_source(c.when)}`, " if c.when is not None else ""
        lines.append(
            f"{terms}: {when}`{to_source(c.require)}` must hold{lets}; otherwise {status_name(c.status)} ({c.status})."
        )
    return lines
