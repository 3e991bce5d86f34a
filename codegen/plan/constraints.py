"""Spec ``constraints`` for every family: the C++ of the phase-1 check, the doc lines, and their Python
evaluation (which the check cases use to find accepted calls and to build calls that must be rejected).

A constraint applies on the op's products it lists. The generated check selects them by NpuArch
(``GetCurNpuArch()``), never by SoC name; the spec loader guarantees that a constraint lists either all or
none of the op's products of an NpuArch, so the NpuArch condition is exact.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from codegen.spec.expr import Expr, ExprType, check, evaluate, to_cpp, to_source
from codegen.spec.loader import constraint_scope
from codegen.spec.model import ACLNN_STATUS_CODES, Catalogue, Constraint, DType, OpSpec, Product

_LET_CTYPES = {ExprType.INT: "int64_t", ExprType.FLOAT: "double", ExprType.BOOL: "bool"}
_ATTR_VALUE_FORMATS = {"int64": ("%lld", "long long"), "uint64": ("%llu", "unsigned long long")}


def status_name(code: int) -> str:
    """The aclnnStatus name of ``code`` (e.g. 161002 -> ``ACLNN_ERR_PARAM_INVALID``)."""
    return ACLNN_STATUS_CODES[code]


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
    }
    scope = constraint_scope(spec.inputs, spec.outputs, spec.attrs, let_types or [])

    def is_float(e: Expr) -> bool:
        try:
            return check(e, scope, list(ExprType)).type is ExprType.FLOAT
        except Exception:  # a subexpression the checker cannot type alone is left as printed
            return False

    return to_cpp(expr, name, functions, is_float)


def _message(spec: OpSpec, c: Constraint, type_of: Mapping[str, ExprType]) -> tuple[str, list[str]]:
    """The printf format and arguments of a constraint's message (``{name}`` placeholders filled)."""
    attrs = {a.name: a for a in spec.attrs}
    fmt_parts: list[str] = []
    args: list[str] = []
    for literal, field, _, _ in string.Formatter().parse(c.message):
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
        a = attrs[field]
        if a.type == "bool":
            fmt_parts.append("%s")
            args.append(f'({field} ? "true" : "false")')
        elif a.type in _ATTR_VALUE_FORMATS:
            f, ctype = _ATTR_VALUE_FORMATS[a.type]
            fmt_parts.append(f)
            args.append(f"static_cast<{ctype}>({field})")
        else:
            fmt_parts.append("%g")
            args.append(f"static_cast<double>({field})")
    return "".join(fmt_parts), args


def arch_test(c: Constraint, spec: OpSpec, catalogue: Catalogue) -> str:
    """The C++ condition selecting the NpuArchs ``c`` applies on (``"true"`` when it covers every product of
    the op), over a local ``uint32_t npuArch``."""
    archs = sorted({catalogue.get(p).npu_arch for p in c.products})
    if archs == sorted({catalogue.get(p).npu_arch for p in spec.products}):
        return "true"
    return " || ".join(f"npuArch == {a}" for a in archs)


def constraint_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The op_api check of every constraint of ``spec``, for ``templates/common/constraints.j2``.

    Returns ``{"constraints": [...], "uses_core_num", "uses_ub_bytes", "uses_shape_dim", "uses_arch",
    "uses_cmath"}`` (``uses_cmath``: a check calls a ``<cmath>`` function such as ``std::abs``);
    each constraint has ``name``, ``products``, ``archs`` (C++ NpuArch condition), ``when`` (C++ or
    ``"true"``), ``guard`` (both as one C++ condition, ``""`` when the check always applies),
    ``when_text``, ``lets`` (``ctype``, ``name``, ``cpp``), ``require`` (C++), ``require_text``, ``status``
    (status name), ``format`` (printf text of the message) and ``args`` (its arguments).
    """
    used: set[str] = set()
    out: list[dict[str, Any]] = []
    for c in spec.constraints:
        lets: list[dict[str, str]] = []
        let_names: set[str] = set()
        types: list[tuple[str, ExprType]] = []
        for name, e in c.let:
            t = check(e, constraint_scope(spec.inputs, spec.outputs, spec.attrs, types), list(ExprType)).type
            typ = t if t in _LET_CTYPES else ExprType.INT
            lets.append({"ctype": _LET_CTYPES[typ], "name": name, "cpp": host_cpp(spec, e, let_names, used, types)})
            let_names.add(name)
            types.append((name, typ))
        fmt, args = _message(spec, c, dict(types))
        archs = arch_test(c, spec, catalogue)
        when = host_cpp(spec, c.when, set(), used, types) if c.when is not None else "true"
        guard = [part for part in (f"({archs})" if archs != "true" else "", when if when != "true" else "") if part]
        out.append(
            {
                "name": c.name,
                "products": ", ".join(c.products),
                "archs": archs,
                "guard": " && ".join(guard),
                "when": when,
                "when_text": to_source(c.when) if c.when is not None else "always",
                "lets": lets,
                "require": host_cpp(spec, c.require, let_names, used, types),
                "require_text": to_source(c.require),
                "status": status_name(c.status),
                "format": fmt,
                "args": args,
            }
        )
    texts = [c["when"] for c in out] + [c["require"] for c in out] + [lt["cpp"] for c in out for lt in c["lets"]]
    return {
        "constraints": out,
        "uses_core_num": "coreNum" in used,
        "uses_ub_bytes": "ubBytes" in used,
        "uses_shape_dim": any("ShapeDim(" in t for t in texts),
        "uses_arch": any(c["archs"] != "true" for c in out),
        "uses_cmath": any("std::" in t for t in texts),
    }


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


def violates(constraint: Constraint, env: Mapping[str, object]) -> bool:
    """Whether ``constraint`` rejects a call described by ``env`` (attrs, tensors, ``coreNum``, ``ubBytes``,
    dtype names). Used by the check cases to find accepted calls and the boundary of a documented limit.

    Raises:
        codegen.spec.expr.ExprEvalError: a name is missing from ``env``.
    """
    scope = dict(env)
    for name in DType.__members__:
        scope.setdefault(name, DType[name])
    if constraint.when is not None and not evaluate(constraint.when, scope):
        return False
    for name, e in constraint.let:
        scope[name] = evaluate(e, scope)
    return not bool(evaluate(constraint.require, scope))


class TensorStandIn:
    """A tensor for constraint evaluation: ``shape`` (a tuple of ints) and ``dtype`` (a :class:`DType`)."""

    def __init__(self, shape: tuple[int, ...], dtype: DType) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype


def call_env(spec: OpSpec, product: Product, params: Mapping[str, Any]) -> dict[str, object]:
    """The evaluation environment of one call: NumPy arrays become :class:`TensorStandIn` (absent optional
    tensors are left out), attrs keep their values (uint64 read as int64), plus ``coreNum`` and ``ubBytes``
    of ``product``."""
    from codegen.runner import dtype_of_array

    env: dict[str, object] = {}
    for t in (*spec.inputs, *spec.outputs):
        value = params.get(t.name)
        if isinstance(value, np.ndarray):
            env[t.name] = TensorStandIn(value.shape, dtype_of_array(value))
    for a in spec.attrs:
        value = params.get(a.name, a.default)
        if value is None:
            continue
        if a.type == "uint64":
            v = int(value) & ((1 << 64) - 1)
            value = v - (1 << 64) if v >= 1 << 63 else v
        env[a.name] = a.expr_value(value)  # a string attr's text -> the index of its value
    env["coreNum"] = product.vector_core_num
    env["ubBytes"] = product.ub_bytes
    return env


def applicable(spec: OpSpec, product: Product) -> list[Constraint]:
    """The constraints of ``spec`` that apply on ``product``."""
    return [c for c in spec.constraints if product.name in c.products]


def rejected_by(spec: OpSpec, product: Product, params: Mapping[str, Any]) -> Constraint | None:
    """The first constraint of ``spec`` on ``product`` that rejects the call ``params``, or None (a
    constraint that cannot be evaluated on the call, e.g. it reads an absent tensor, does not reject)."""
    from codegen.spec.expr import ExprEvalError

    env = call_env(spec, product, params)
    for c in applicable(spec, product):
        try:
            if violates(c, env):
                return c
        except ExprEvalError:
            continue
    return None
