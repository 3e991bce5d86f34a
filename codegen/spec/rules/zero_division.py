"""The zero-division rule: a host expression must not divide by anything that may be 0 unless its form
proves it nonzero (:func:`zero_division`), and the condition a spec would add to prove it
(:func:`nonzero_condition`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from codegen.spec.expr import (
    Binary,
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprEvalError,
    IfElse,
    Name,
    Num,
    Unary,
    evaluate,
    to_source,
)
from codegen.spec.expr import names as expr_names
from codegen.spec.rules.atoms import atomize
from codegen.spec.rules.guards import excludes_zero, narrow, nonzero_exprs

#: Operators that divide: a 0 divisor faults (``//``, ``%``) or gives inf/NaN (``/``).
DIVISIONS: frozenset[str] = frozenset({"/", "//", "%"})


def _expand(e: Expr, defs: Mapping[str, Expr], seen: frozenset[str] = frozenset()) -> Expr:
    """``e`` with every scalar name of ``defs`` replaced by its definition (recursively, cycles left alone)."""
    if isinstance(e, Name):
        if e.id in defs and e.id not in seen:
            return _expand(defs[e.id], defs, seen | {e.id})
        return e
    if isinstance(e, Unary):
        return Unary(e.op, _expand(e.operand, defs, seen))
    if isinstance(e, Binary):
        return Binary(e.op, _expand(e.left, defs, seen), _expand(e.right, defs, seen))
    if isinstance(e, Compare):
        return Compare(e.op, _expand(e.left, defs, seen), _expand(e.right, defs, seen))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(_expand(v, defs, seen) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(_expand(e.cond, defs, seen), _expand(e.then, defs, seen), _expand(e.orelse, defs, seen))
    if isinstance(e, Call):
        return Call(e.func, tuple(_expand(a, defs, seen) for a in e.args))
    return e


#: Tensor functions whose value is a number that may be 0: ``numel`` and ``dim`` of an empty tensor,
#: ``rank`` of a 0-d one. :func:`atomize` turns each call into a name (its source text, e.g.


def _nonzero(d: Expr, nonzero: frozenset[str], everywhere: Callable[[Expr, frozenset[str]], bool]) -> bool:
    """True when ``d`` is provably not 0 given that the names of ``nonzero`` are not 0: nonzero numbers and
    names combined by signs, ``abs``, ``*`` and guarded conditionals (int64 wrap-around aside), and
    subexpressions that ``everywhere`` finds nonzero at every allowed value of their names."""
    if everywhere(d, nonzero):
        return True
    if isinstance(d, Num):
        return d.value != 0
    if isinstance(d, Name):
        return d.id in nonzero
    if isinstance(d, Unary) and d.op in ("-", "+"):
        return _nonzero(d.operand, nonzero, everywhere)
    if isinstance(d, Call) and d.func == "abs" and len(d.args) == 1:
        return _nonzero(d.args[0], nonzero, everywhere)
    if isinstance(d, Binary) and d.op == "*":
        return _nonzero(d.left, nonzero, everywhere) and _nonzero(d.right, nonzero, everywhere)
    if isinstance(d, IfElse):
        attrs = expr_names(d.cond)
        then = nonzero | {a for a in attrs if excludes_zero(d.cond, a, True)}
        orelse = nonzero | {a for a in attrs if excludes_zero(d.cond, a, False)}
        return _nonzero(d.then, frozenset(then), everywhere) and _nonzero(d.orelse, frozenset(orelse), everywhere)
    return False


#: Most value combinations :func:`zero_division` evaluates a divisor over finite-valued attrs at.
MAX_COMBINATIONS = 4096


def _nonzero_everywhere(d: Expr, domains: Mapping[str, tuple[int, ...]]) -> bool:
    """True when ``d`` (whose names all have finite ``domains``) is nonzero and evaluates at every combination."""
    combos: list[dict[str, object]] = [{}]
    for name in sorted(expr_names(d)):
        combos = [{**c, name: v} for c in combos for v in domains[name]]
        if len(combos) > MAX_COMBINATIONS:
            return False
    try:
        return all(evaluate(d, env) != 0 for env in combos)
    except ExprEvalError:
        return False


def nonzero_condition(divisor: Expr, domains: Mapping[str, tuple[object, ...] | None]) -> str:
    """A condition that keeps ``divisor`` (an expression, not a bare name) from 0 and that
    :func:`zero_division` accepts as a guard or constraint: where the divisor reads one name of finite domain,
    that name differs from each value making it 0 (``reduction != 1`` for ``reduction - 1`` over 0, 1, 2);
    otherwise ``<divisor> != 0``."""
    d = atomize(divisor)
    read = expr_names(d)
    if len(read) == 1:
        (name,) = read
        values = domains.get(name)
        if values is not None:
            zeros = []
            for v in values:
                try:
                    if evaluate(d, {name: v}) == 0:
                        zeros.append(v)
                except ExprEvalError:
                    zeros = []
                    break
            if zeros:
                return " and ".join(f"{name} != {v}" for v in zeros)
    return f"{to_source(divisor)} != 0"


@dataclass(frozen=True)
class ZeroDivision:
    """A division :func:`zero_division` cannot prove safe.

    Attributes:
        op: ``/``, ``//`` or ``%``.
        divisor: the divisor as written.
        attr: the name (an attribute, or a shape call such as ``rank(out)``) that may make it 0; ``""`` when
            the divisor is a constant 0.
        bare: the divisor is that name itself (up to signs and scalar names).
    """

    op: str
    divisor: Expr
    attr: str
    bare: bool


def zero_division(
    e: Expr,
    domains: Mapping[str, tuple[int, ...] | None],
    excluded: Collection[str] = (),
    scalar_defs: Mapping[str, Expr] | None = None,
    nonzero: Collection[str] = (),
    opaque: Collection[str] = (),
    assumed: Collection[Expr] = (),
) -> ZeroDivision | None:
    """The first ``/``, ``//`` or ``%`` in ``e`` whose divisor is not provably nonzero, or None.

    Shape calls are first turned into names (:func:`atomize`). A divisor is accepted when it is provably
    nonzero from its form (:func:`_nonzero`: nonzero numbers; names guarded on the way (``a if mode != 0
    else b``), excluded by a constraint, known nonzero, or whose domain excludes 0; combined by signs,
    ``abs``, ``*`` and guarded conditionals), or when it reads only finite-domain names and is nonzero at
    every combination of their values. Anything else (``x / 0``, ``10 // (mode - 1)``, ``numel(out) //
    rank(out)`` for a rank that may be 0) is rejected: conservative on purpose.

    Args:
        e: a host expression, or a formula (then ``opaque`` holds its tensor names).
        domains: names that may be 0 and their allowed values (None: any value): integer, bool and float
            attrs, and atomized shape calls (``rank(x)``: the tensor's rank rule).
        excluded: names 0 is excluded from by an unconditional constraint.
        scalar_defs: definitions of the scalar/let names ``e`` may use (expanded into divisors).
        nonzero: names known not to be 0 (the platform's ``coreNum``, ``numel`` of an output whose tiling
            runs only when it is non-empty).
        opaque: names of tensor values; a divisor reading one is a vector division (IEEE: inf or NaN per
            element, as on the device) and is not checked.
        assumed: conditions known true everywhere in ``e`` (unconditional constraints): they narrow finite
            domains (``reduction != 1``) and prove expressions nonzero (``mode - 1 != 0``), as a guard does.
    """
    defs = {k: atomize(v) for k, v in (scalar_defs or {}).items()}
    e = atomize(e)
    opaque_set = frozenset(opaque)
    base = frozenset(excluded) | frozenset(nonzero) | {a for a, vs in domains.items() if vs is not None and 0 not in vs}
    # what the guards on the way to a division know (a branch's state): the finite domains narrowed by its
    # conditions, and the expressions they prove nonzero (``... if mode - 1 != 0 else ...``)
    doms: dict[str, tuple[object, ...] | None] = dict(domains)
    known: set[Expr] = set()
    for cond in assumed:
        doms.update(narrow(atomize(cond), True, doms))
        known.update(nonzero_exprs(atomize(cond), True))

    def everywhere(d: Expr, nz: frozenset[str]) -> bool:
        read = expr_names(d)
        if not read:
            try:
                value = evaluate(d, {})
            except ExprEvalError:
                return False
            return isinstance(value, (int, float)) and value != 0
        if not read <= set(doms) or any(doms[a] is None for a in read):
            return False
        finite = {a: tuple(v for v in doms[a] or () if not (a in nz and v == 0)) for a in read}
        return _nonzero_everywhere(d, finite)  # type: ignore[arg-type]

    def check_divisor(op: str, raw: Expr, safe: frozenset[str]) -> ZeroDivision | None:
        d = _expand(raw, defs)
        read = expr_names(d)
        if read & opaque_set:
            return None
        nz = base | safe
        if d in known or atomize(raw) in known or _nonzero(d, nz, everywhere):
            return None
        free = [n for n in sorted(read) if n not in nz]
        culprit = next((n for n in free if n in domains), free[0] if free else "")
        if not culprit:  # guarded names: the divisor is an expression of them that may still be 0
            culprit = next((n for n in sorted(read) if n in domains), "")
        core = d
        while isinstance(core, Unary) and core.op in ("-", "+"):
            core = core.operand
        return ZeroDivision(op, raw, culprit, bool(culprit) and core == Name(culprit))

    def guarded(cond: Expr, truth: bool) -> set[str]:
        return {a for a in set(domains) | expr_names(cond) if excludes_zero(cond, a, truth)}

    def under(cond: Expr, truth: bool, x: Expr, safe: frozenset[str]) -> ZeroDivision | None:
        """``go(x)`` in the branch where ``cond`` has ``truth``: its names' domains narrowed, its nonzero
        expressions known, then both restored."""
        saved_doms, saved_known = dict(doms), set(known)
        doms.update(narrow(cond, truth, doms))
        known.update(nonzero_exprs(cond, truth))
        try:
            return go(x, safe | guarded(cond, truth))
        finally:
            doms.clear()
            doms.update(saved_doms)
            known.clear()
            known.update(saved_known)

    def go(x: Expr, safe: frozenset[str]) -> ZeroDivision | None:
        if isinstance(x, Binary):
            if x.op in DIVISIONS:
                found = check_divisor(x.op, x.right, safe)
                if found is not None:
                    return found
            return go(x.left, safe) or go(x.right, safe)
        if isinstance(x, IfElse):
            return go(x.cond, safe) or under(x.cond, True, x.then, safe) or under(x.cond, False, x.orelse, safe)
        if isinstance(x, BoolOp):
            for k, v in enumerate(x.values):
                # this value runs only when the ones before it were true ('and') or false ('or')
                found = under(BoolOp(x.op, x.values[:k]), x.op == "and", v, safe) if k else go(v, safe)
                if found:
                    return found
            return None
        if isinstance(x, Unary):
            return go(x.operand, safe)
        if isinstance(x, Compare):
            return go(x.left, safe) or go(x.right, safe)
        if isinstance(x, Call):
            for a in x.args:
                found = go(a, safe)
                if found:
                    return found
            return None
        assert isinstance(x, (Name, Num)), x
        return None

    return go(e, frozenset())
