"""Load-time rules on expressions that type-check but would fail later: at generation or on the device (a
family's own rules on its compute section live in its package).

* :func:`zero_division`: a host expression (compute scalar, constraint, output shape, a formula's
  subexpression without tensor values) must not divide by anything that may be 0 (``//`` and ``%`` by an
  integer 0 are a ``SIGFPE`` in the generated C++; ``/`` is a double division and gives inf or NaN): a
  literal 0, an attribute, ``rank()`` (0 for a 0-d tensor), ``dim()`` or ``numel()`` (0 for an empty
  tensor), unless its form proves it nonzero: a guard on the way to the division (``a if mode != 0 else
  b``, ``rank(out) > 0 and ...``), an unconditional constraint on every product (``require: "mode > 0"``),
  the attribute's ``values``, the tensor's rank rule, or what the generated code guarantees (the
  platform's ``coreNum``/``ubBytes``; names a family's compute section declares nonzero, e.g. ``numel``
  of an output whose tiling runs only when it is non-empty).
* :func:`constant_problem`: a host expression must not hold a constant part that overflows int64
  (``99999999999 * 99999999999 * 99999999999``): it would be undefined behaviour in the generated C++.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from codegen.spec.expr import (
    INT64_MAX,
    INT64_MIN,
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
    walk,
)
from codegen.spec.expr import names as expr_names

#: Operators that divide: a 0 divisor faults (``//``, ``%``) or gives inf/NaN (``/``).
DIVISIONS: frozenset[str] = frozenset({"/", "//", "%"})


def _only_over(e: Expr, attr: str) -> bool:
    return expr_names(e) <= {attr}


def excludes_zero(cond: Expr, attr: str, truth: bool) -> bool:
    """True when ``cond`` evaluating to ``truth`` implies ``attr != 0``.

    Decided per conjunct (``truth`` True) or disjunct (``truth`` False) that reads only ``attr`` and
    numbers, by evaluating it at ``attr = 0``; other conditions are not assumed to exclude 0.
    """
    if isinstance(cond, Unary) and cond.op == "not":
        return excludes_zero(cond.operand, attr, not truth)
    if isinstance(cond, BoolOp):
        # a and b true: each is true; a or b false: each is false. Either: one excluding part suffices.
        if (cond.op == "and") == truth:
            return any(excludes_zero(v, attr, truth) for v in cond.values)
        return all(excludes_zero(v, attr, truth) for v in cond.values)
    if attr not in expr_names(cond) or not _only_over(cond, attr):
        return False
    try:
        return bool(evaluate(cond, {attr: 0})) != truth
    except ExprEvalError:
        return False


def _parts(cond: Expr, truth: bool) -> list[tuple[Expr, bool]]:
    """The parts of ``cond`` that each hold (with their truth) when ``cond`` evaluates to ``truth``: the
    conjuncts of a true ``and``, the disjuncts of a false ``or``, through ``not``; else ``cond`` itself."""
    if isinstance(cond, Unary) and cond.op == "not":
        return _parts(cond.operand, not truth)
    if isinstance(cond, BoolOp) and (cond.op == "and") == truth:
        return [p for v in cond.values for p in _parts(v, truth)]
    return [(cond, truth)]


def narrow(cond: Expr, truth: bool, allowed: Mapping[str, tuple[object, ...] | None]) -> dict[str, tuple[object, ...]]:
    """The values of finite-domain names that ``cond`` evaluating to ``truth`` leaves: for every part of
    ``cond`` (:func:`_parts`) that reads one such name and numbers, the name's ``allowed`` values at which
    the part has its truth (``reduction != 1`` true leaves reduction 0 and 2 of 0, 1, 2). Names no part
    narrows are not in the result."""
    out: dict[str, tuple[object, ...]] = {}
    for part, want in _parts(cond, truth):
        read = expr_names(part)
        if len(read) != 1:
            continue
        (name,) = read
        values = out.get(name, allowed.get(name))
        if values is None:
            continue
        kept = []
        for v in values:
            try:
                if bool(evaluate(part, {name: v})) == want:
                    kept.append(v)
            except ExprEvalError:
                kept.append(v)  # not decided here: kept
        out[name] = tuple(kept)
    return out


def nonzero_exprs(cond: Expr, truth: bool) -> frozenset[Expr]:
    """Expressions that ``cond`` evaluating to ``truth`` proves nonzero: ``E != 0``, ``E > 0``, ``E < 0``
    (``0 != E``, ...) among its parts (:func:`_parts`), and ``E == 0`` among those that are false."""
    zero = Num(0)
    out: set[Expr] = set()
    for part, want in _parts(cond, truth):
        if not isinstance(part, Compare):
            continue
        op = part.op if want else {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}.get(part.op)
        if part.right == zero and op in ("!=", ">", "<"):
            out.add(part.left)
        elif part.left == zero and op in ("!=", ">", "<"):
            out.add(part.right)
    return frozenset(out)


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
#: ``rank(out)``), so that guards, constraints and domains treat it like an attribute.
SHAPE_ATOMS: frozenset[str] = frozenset({"numel", "rank", "dim"})


def atomize(e: Expr) -> Expr:
    """``e`` with every ``numel(...)``, ``rank(...)`` and ``dim(...)`` call replaced by a :class:`Name` whose id
    is the call's source text (``Name("numel(out)")``)."""
    if isinstance(e, Call):
        if e.func in SHAPE_ATOMS:
            return Name(str(e))
        return Call(e.func, tuple(atomize(a) for a in e.args))
    if isinstance(e, Unary):
        return Unary(e.op, atomize(e.operand))
    if isinstance(e, Binary):
        return Binary(e.op, atomize(e.left), atomize(e.right))
    if isinstance(e, Compare):
        return Compare(e.op, atomize(e.left), atomize(e.right))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, tuple(atomize(v) for v in e.values))
    if isinstance(e, IfElse):
        return IfElse(atomize(e.cond), atomize(e.then), atomize(e.orelse))
    return e


def _factors(e: Expr) -> list[Expr]:
    if isinstance(e, Binary) and e.op == "*":
        return _factors(e.left) + _factors(e.right)
    return [e]


def constant_problem(e: Expr) -> str | None:
    """Why a constant part of host expression ``e`` cannot be computed in int64, or None.

    Every subexpression without names is evaluated (int64 semantics, :func:`codegen.spec.expr.evaluate`),
    and so is the product of the constant factors of every ``*`` chain (``numel(out) * 99999999999 *
    99999999999`` multiplies them in C++ too, whatever the order); an int64 overflow is reported.
    Divisions by a constant 0 are left to :func:`zero_division`.
    """
    for x in walk(e):
        if isinstance(x, (Num, Name)):
            continue
        if not expr_names(x):
            try:
                value = evaluate(x, {})
            except ExprEvalError as exc:
                if "division by zero" in str(exc):
                    continue
                return f"'{x}' cannot be computed in int64 ({exc}); the generated C++ would overflow"
            if isinstance(value, float) and not math.isfinite(value):
                return f"'{x}' is {value} in double precision; the generated C++ would compute {value}"
        if isinstance(x, Binary) and x.op == "*":
            constants = [f for f in _factors(x) if isinstance(f, Num)]
            if len(constants) < 2:
                continue
            if any(type(f.value) is float for f in constants):
                folded = math.prod(float(f.value) for f in constants)
                if not math.isfinite(folded):
                    shown = " * ".join(str(f) for f in constants)
                    return (
                        f"'{x}' multiplies the constants {shown}, beyond double precision (inf); the generated "
                        "C++ would compute inf"
                    )
                continue
            product = 1
            for f in constants:
                product *= int(f.value)
            if not INT64_MIN <= product <= INT64_MAX:
                shown = " * ".join(str(f) for f in constants)
                return (
                    f"'{x}' multiplies the constants {shown} = {product}, beyond int64; the generated C++ "
                    "would overflow"
                )
    return None


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
