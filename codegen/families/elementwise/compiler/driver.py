"""Compiling one output formula: inline, substitute, lower, select and allocate, once per combination of
absent optional inputs and for fp32 and 16-bit inputs."""

from __future__ import annotations

from collections.abc import Mapping

from codegen.families.elementwise.compiler.allocation import _allocate
from codegen.families.elementwise.compiler.lowering import _inline_scalars, _lower, _substitute
from codegen.families.elementwise.compiler.program import CompiledFormula, HostScalar, Program
from codegen.families.elementwise.compiler.selection import _Builder
from codegen.families.elementwise.compiler.values import _Ctx
from codegen.spec.errors import SourceLoc
from codegen.spec.expr import Expr


def compile_variants(
    output: str,
    formula: Expr,
    tensors: tuple[str, ...],
    scalar_defs: dict[str, Expr],
    defaults: Mapping[str, float],
    loc: SourceLoc | None = None,
    field_path: str = "",
) -> tuple[CompiledFormula, ...]:
    """Compiles ``output = formula`` once per combination of absent optional inputs.

    Variant ``v`` has optional input ``k`` (in the order of ``defaults``) absent when bit ``k`` of ``v`` is
    set: that input is replaced by its default before lowering, so the program never reads it. Variant 0
    has every input; there are ``2 ** len(defaults)`` variants. All variants share one list of host scalars
    (one tiling struct serves them all), so ``scalars`` is the same tuple in every result.

    Args:
        output: output tensor name.
        formula: the parsed formula.
        tensors: input tensor names (every one is an elementwise operand of the output's shape).
        scalar_defs: host scalar definitions (``compute.scalars``) by name.
        defaults: optional input name -> the value its elements take when it is null.
        loc, field_path: where the formula came from, for error messages.

    Raises:
        SpecError: the formula uses a construct that has no vector-instruction lowering.
    """
    hoisted: list[HostScalar] = []
    inlined = _inline_scalars(formula, dict(scalar_defs))
    optional = list(defaults)
    built: list[tuple[Program, Program, Expr]] = []
    for v in range(1 << len(optional)):
        absent = {name: float(defaults[name]) for k, name in enumerate(optional) if v >> k & 1}
        present = frozenset(t for t in tensors if t not in absent)
        ctx = _Ctx(present, {}, hoisted, loc=loc, field=field_path)
        lowered = _lower(_substitute(inlined, absent), present)
        programs = []
        for cast_inputs in (False, True):
            b = _Builder(ctx, cast_inputs)
            root = b.value(lowered)
            programs.append(_allocate(b, root))
        built.append((programs[0], programs[1], lowered))
    return tuple(CompiledFormula(output, fp32, cast16, tuple(hoisted), lowered) for fp32, cast16, lowered in built)


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
