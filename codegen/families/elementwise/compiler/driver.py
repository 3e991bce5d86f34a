"""Compiling one output formula: inline, substitute, lower, select and allocate, once per combination of
absent optional inputs and for fp32 and 16-bit inputs."""

from __future__ import annotations

from collections.abc import Mapping

from codegen.families.elementwise.compiler.allocation import _allocate
from codegen.families.elementwise.compiler.lowering import (
    _host_conditions,
    _inline_scalars,
    _lower,
    _substitute,
    _take_branches,
)
from codegen.families.elementwise.compiler.program import ColumnDtypes, CompiledFormula, HostCase, HostScalar
from codegen.families.elementwise.compiler.selection import _Builder
from codegen.families.elementwise.compiler.values import _Ctx
from codegen.spec.errors import SourceLoc
from codegen.spec.expr import Expr, IfElse, Num


def compile_variants(
    output: str,
    formula: Expr,
    tensors: tuple[str, ...],
    scalar_defs: dict[str, Expr],
    defaults: Mapping[str, float],
    loc: SourceLoc | None = None,
    field_path: str = "",
    narrow: bool = True,
    columns: tuple[ColumnDtypes, ...] = (),
) -> tuple[CompiledFormula, ...]:
    """Compiles ``output = formula`` once per combination of absent optional inputs.

    Variant ``v`` has optional input ``k`` (in the order of ``defaults``) absent when bit ``k`` of ``v`` is
    set: that input is replaced by its default before lowering, so the program never reads it. Within a
    variant, each ``where`` whose condition reads host scalars only is decided per call: its condition is a
    host flag and the variant has one :class:`HostCase` per combination of flag values (see there). Variant 0
    has every input; there are ``2 ** len(defaults)`` variants. All variants share one list of host scalars
    (one tiling struct serves them all), so ``scalars`` is the same tuple in every result.

    Args:
        output: output tensor name.
        formula: the parsed formula.
        tensors: input tensor names (every one is an elementwise operand of the output's shape).
        scalar_defs: host scalar definitions (``compute.scalars``) by name.
        defaults: optional input name -> the value its elements take when it is null.
        loc, field_path: where the formula came from, for error messages.
        narrow: whether a 16-bit program whose result is a chain of selects among its inputs may select the
            16-bit elements themselves (:func:`.narrow.narrow_selects`); False where the fp32 value of the
            result is needed (a reduce epilogue sums it).
        columns: the mixed dtype columns to compile a program for (:attr:`HostCase.columns`), each naming
            the inputs it casts from 16 bits and whether its output is 16-bit.

    Raises:
        SpecError: the formula uses a construct that has no vector-instruction lowering.
    """
    hoisted: list[HostScalar] = []
    inlined = _inline_scalars(formula, dict(scalar_defs))
    optional = list(defaults)
    built: list[tuple[tuple[HostCase, ...], Expr]] = []
    for v in range(1 << len(optional)):
        absent = {name: float(defaults[name]) for k, name in enumerate(optional) if v >> k & 1}
        present = frozenset(t for t in tensors if t not in absent)
        ctx = _Ctx(present, {}, hoisted, loc=loc, field=field_path)
        substituted = _substitute(inlined, absent)
        conditions = _host_conditions(substituted, present)
        flags = [_host_flag(hoisted, c) for c in conditions]
        cases = []
        constants: dict[str, str] = {}  # one const buffer per host value across the variant's programs
        for k in range(1 << len(conditions)):
            # case k: condition j false where bit j of k is set (case 0 takes every condition's true branch)
            taken = {c: not (k >> j & 1) for j, c in enumerate(conditions)}
            lowered_k = _lower(_take_branches(substituted, taken, present), present)
            programs = []
            for cast_inputs in (False, True):
                b = _Builder(ctx, cast_inputs)
                root = b.value(lowered_k)
                programs.append(_allocate(b, root, constants, narrow))
            mixed = []
            for column in columns:
                b = _Builder(ctx, False, (column.cast, column.narrow_output))
                root = b.value(lowered_k)
                mixed.append(_allocate(b, root, constants, narrow=False))
            guards = tuple((flag, taken[c]) for flag, c in zip(flags, conditions, strict=True))
            cases.append(HostCase(guards, programs[0], programs[1], tuple(mixed)))
        built.append((tuple(cases), _lower(substituted, present)))
    return tuple(CompiledFormula(output, cases, tuple(hoisted), lowered) for cases, lowered in built)


def _host_flag(hoisted: list[HostScalar], cond: Expr) -> str:
    """The field name of the host scalar ``1.0 if cond else 0.0`` (hoisted once; shared with an equal one)."""
    expr = IfElse(cond, Num(1.0), Num(0.0))
    for hs in hoisted:
        if hs.expr == expr:
            return hs.field_name
    hoisted.append(HostScalar(f"scalar{len(hoisted)}", expr))
    return hoisted[-1].field_name


def compile_formula(
    output: str,
    formula: Expr,
    tensors: tuple[str, ...],
    scalar_defs: dict[str, Expr],
    loc: SourceLoc | None = None,
    field_path: str = "",
) -> CompiledFormula:
    """Compiles ``output = formula`` for fp32 and for 16-bit input dtypes, every input present.

    Args:
        output: output tensor name.
        formula: the parsed formula.
        tensors: input tensor names (every one is an elementwise operand of the output's shape).
        scalar_defs: host scalar definitions (``compute.scalars``) by name.
        loc, field_path: where the formula came from, for error messages.

    Returns:
        A :class:`CompiledFormula`.

    Raises:
        SpecError: the formula uses a construct that has no vector-instruction lowering.
    """
    (compiled,) = compile_variants(output, formula, tensors, scalar_defs, {}, loc, field_path)
    return compiled
