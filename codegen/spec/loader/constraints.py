"""The ``constraints`` section: each constraint's products, ``when``/``let``/``require`` expressions, message
template and status, and the checks on one constraint alone (a constant condition, a partial NpuArch
group, an unknown placeholder).
"""

from __future__ import annotations

import string

from codegen.spec.expr import Expr, ExprEvalError, ExprType, evaluate
from codegen.spec.expr import names as expr_names
from codegen.spec.loader.state import ParseState
from codegen.spec.model import ACLNN_STATUS_CODES, AttrSpec, Constraint, TensorSpec
from codegen.spec.scopes import _claim, constraint_scope
from codegen.spec.yaml_reader import YNode
from codegen.types import AclnnStatus


def read_constraint(
    st: ParseState,
    node: YNode,
    products: tuple[str, ...],
    seen: dict[str, int],
    inputs: tuple[TensorSpec, ...],
    outputs: tuple[TensorSpec, ...],
    attrs: tuple[AttrSpec, ...],
) -> Constraint | None:
    """One entry of ``constraints``: a ``name`` unique in ``seen`` (name -> line), ``products`` among the op's
    ``products`` (all of one NpuArch or none), ``when``, ``let`` and ``require`` expressions over the
    tensors and attrs, a one-line ``message`` whose placeholders name attrs or let values, and an aclnnStatus
    ``status`` (default 161002). None (recorded) when ``require``, ``when`` or a ``let`` is unusable."""
    r = st.r
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
        listed = r.distinct_strings(
            m["products"],
            lambda p: (
                None if p in products else f"'{p}' is not one of this op's products; allowed: {', '.join(products)}"
            ),
            lambda p: f"duplicate product '{p}'",
        )
        cons_products = tuple(listed)
        constraint_arch_groups(st, m["products"], cons_products, products)
    when = None
    if "when" in m:
        when, t = r.expr(m["when"], constraint_scope(inputs, outputs, attrs), (ExprType.BOOL,), "'when'")
        ok = ok and t is not None
    lets: list[tuple[str, Expr]] = []
    let_types: list[tuple[str, ExprType]] = []
    taken = dict(st.taken)
    if "let" in m:
        let_entries = r.mapping_entries(m["let"], "name to expression")
        if let_entries is None:
            ok = False
        else:
            for key, value in let_entries:
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
        check_placeholders(st, m["message"], message, allowed_names)
    status = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    if "status" in m:
        s = r.integer(m["status"])
        if s is not None and s not in ACLNN_STATUS_CODES:
            allowed = ", ".join(f"{k} ({v})" for k, v in ACLNN_STATUS_CODES.items())
            r.error(m["status"], f"status {s} is not an aclnnStatus error code; allowed: {allowed}")
        elif s is not None:
            status = s
    if require is not None and ok:
        constant_condition(st, m, "require", require, lets)
    if when is not None and ok:
        constant_condition(st, m, "when", when, lets=[])
    if require is None or not ok:
        return None
    return Constraint(name, cons_products, when, tuple(lets), require, message, status, node.loc)


def constant_condition(st: ParseState, m: dict[str, YNode], key: str, cond: Expr, lets: list[tuple[str, Expr]]) -> None:
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
    st.r.error(m[key], f"'{key}' reads no tensor, attribute or product value and {what}; make it depend on the call")


def constraint_arch_groups(st: ParseState, node: YNode, listed: tuple[str, ...], products: tuple[str, ...]) -> None:
    """A constraint lists all or none of the op's products of each NpuArch: the generated check selects
    products by NpuArch, so a partial list would also apply to the products left out."""
    if st.catalogue is None:
        return
    known = [p for p in products if p in st.catalogue]
    archs = {st.catalogue.get(p).npu_arch for p in listed if p in st.catalogue}
    missing = [p for p in known if p not in listed and st.catalogue.get(p).npu_arch in archs]
    for p in missing:
        arch = st.catalogue.get(p).npu_arch
        st.r.error(
            node,
            f"'{p}' is missing: it shares npu_arch {arch} with a listed product, and the generated check "
            "selects products by NpuArch; list it too",
        )


def check_placeholders(st: ParseState, node: YNode, message: str, allowed: list[str]) -> None:
    """Records each problem of a constraint's ``message`` template: a malformed brace, a placeholder with a
    conversion or format, or one naming none of ``allowed`` (the attrs and let names)."""
    try:
        parts = list(string.Formatter().parse(message))
    except ValueError as exc:
        st.r.error(node, f"bad message template: {exc} (write '{{{{' and '}}}}' for literal braces)")
        return
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if spec or conversion:
            st.r.error(node, f"placeholder '{{{field}}}' may not have a conversion or format; write '{{{field}}}'")
        elif field not in allowed:
            st.r.error(node, f"unknown placeholder '{{{field}}}' in message; allowed: {', '.join(allowed) or '(none)'}")
