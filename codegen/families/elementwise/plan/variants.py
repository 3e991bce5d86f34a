"""The programs an elementwise kernel is compiled into: the formula compiled once per combination of absent
optional inputs (a variant), each with an fp32 and a 16-bit program, selected by compute dtype, and one
program per mixed dtype column (:mod:`.columns`).

Optional inputs: each has a ``default``; the formula is compiled once per combination of absent optional
inputs (the absent ones replaced by their defaults). Tiling key = ``dtypeIndex + numDtypes * variant``,
where bit ``k`` of ``variant`` is set when optional input ``k`` is null (variant 0: every input present).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from codegen.families.elementwise.compiler import CompiledFormula, Instruction, Program, compile_variants
from codegen.families.elementwise.compiler.narrow import COMPARE_ELEMS, WIDEN_FOR_COMPARE
from codegen.families.elementwise.compute import INTEGER_DTYPES, ElementwiseCompute
from codegen.families.elementwise.plan.columns import column_dtypes
from codegen.spec.model import DType, OpSpec, TensorSpec
from codegen.types import compute_dtypes as shared_compute_dtypes


@dataclass(frozen=True)
class Variant:
    """One compiled program set: ``index`` (bit ``k`` set: optional input ``k`` is null), the inputs
    ``present`` in the call (spec order), the ``absent`` ones and the compiled ``formula``."""

    index: int
    present: tuple[str, ...]
    absent: tuple[str, ...]
    formula: CompiledFormula


def compute_of(spec: OpSpec) -> ElementwiseCompute:
    """The elementwise compute model of ``spec``.

    Raises:
        TypeError: ``spec`` is not of the elementwise family.
    """
    return spec.compute_as(ElementwiseCompute)


def optional_inputs(spec: OpSpec) -> list[TensorSpec]:
    """The optional inputs of ``spec`` in input order; bit ``k`` of a variant index is the ``k``-th."""
    return [t for t in spec.inputs if t.optional]


def compile_all(spec: OpSpec) -> list[Variant]:
    """The spec's output formula compiled once per combination of absent optional inputs (variant 0 first);
    compiled once per spec (:func:`_compile_variants`), whoever asks.

    Raises:
        codegen.spec.errors.SpecError: the formula has no vector-instruction lowering.
    """
    return list(_compile_variants(spec))


@lru_cache(maxsize=64)
def _compile_variants(spec: OpSpec) -> tuple[Variant, ...]:
    compute = compute_of(spec)
    (output, formula), *_ = compute.outputs
    optional = optional_inputs(spec)
    defaults = {t.name: float(t.default if t.default is not None else 0.0) for t in optional}
    compiled = compile_variants(
        output,
        formula,
        tuple(t.name for t in spec.inputs),
        dict(compute.scalars),
        defaults,
        compute.loc,
        f"compute.{output}",
        narrow=compute.reduce is None,
        columns=column_dtypes(spec),
    )
    variants = []
    for index, formula_v in enumerate(compiled):
        absent = tuple(t.name for k, t in enumerate(optional) if index >> k & 1)
        present = tuple(t.name for t in spec.inputs if t.name not in absent)
        variants.append(Variant(index, present, absent, formula_v))
    return tuple(variants)


def compile_spec(spec: OpSpec) -> CompiledFormula:
    """Compiles the spec's single output formula with every input present (see
    :mod:`codegen.families.elementwise.compiler`)."""
    return compile_all(spec)[0].formula


def compute_dtypes(spec: OpSpec) -> list[DType]:
    """The dtypes the kernel computes on, every product's (:func:`codegen.types.compute_dtypes`: the first
    required input's list; promotion makes inputs agree)."""
    return shared_compute_dtypes(spec)


def dtype_input(spec: OpSpec) -> TensorSpec:
    """The input whose dtype selects the kernel: the first required one."""
    return next(t for t in spec.inputs if not t.optional)


def programs_for(compiled: CompiledFormula, dtype: DType) -> tuple[Program, ...]:
    """Every host case's fp32 program for FLOAT, its cast program for 16-bit float dtypes and the integer
    ones (case order; an integer dtype runs it on its own elements, :func:`integer_program_problem`)."""
    return compiled.programs(dtype is not DType.FLOAT)


def budget_temps(compiled: CompiledFormula, dtype: DType) -> int:
    """The fp32 temporaries UB is budgeted for in ``dtype``: one kernel holds every host case, so it allocates
    the most temporaries and the most masks any case's program uses and every case's constants
    (:attr:`Program.budget_temps` of those); an 8-bit integer dtype whose program selects elements one more,
    the half copies of the two elements each select picks between (``SelectElems``: no 8-bit ``Select``), and
    INT32 whose program compares an input one more, the fp32 rounding error of its value (``CompareElems``)."""
    progs = programs_for(compiled, dtype)
    ops = {i.op for p in progs for i in p.instructions}
    byte_select = dtype.itemsize == 1 and "Select" in ops
    word_compare = dtype is DType.INT32 and COMPARE_ELEMS in ops
    return (
        max(p.temps for p in progs)
        + len(constants_for(compiled, dtype))
        + -(-max(p.masks for p in progs) // 32)
        + int(byte_select)
        + int(word_compare)
    )


def column_budget_temps(compiled: CompiledFormula, column: int) -> int:
    """The fp32 temporaries UB is budgeted for in mixed dtype column ``column`` (:mod:`.columns`), as
    :func:`budget_temps` counts them over every host case's program of that column."""
    progs = [c.columns[column] for c in compiled.cases]
    fills = {i.dst for p in progs for i in p.constants}
    return max(p.temps for p in progs) + len(fills) + -(-max(p.masks for p in progs) // 32)


#: The instructions of a 16-bit program that work on the input dtype's elements themselves
#: (:mod:`codegen.families.elementwise.compiler.narrow`): an integer dtype runs that program with the kernel's
#: helpers of these names taking integer elements (a compare of an input with a host value, exact; a select
#: among inputs and per-core constants of the dtype).
ELEMENT_INSTRUCTIONS = (WIDEN_FOR_COMPARE, COMPARE_ELEMS, "Select")


def integer_program_problem(spec: OpSpec) -> str:
    """Why ``spec``'s integer dtypes (:data:`codegen.families.elementwise.compute.INTEGER_DTYPES`) have no
    kernel, or ``""`` (none listed, or every variant's 16-bit program of every host case works on the
    elements themselves: compares of inputs with host values by ``<``, ``<=``, ``>`` or ``>=`` and selects
    among inputs and literals each listed integer dtype holds exactly, the result written by a select)."""
    ints = [d for d in compute_dtypes(spec) if d in INTEGER_DTYPES]
    if not ints:
        return ""
    for v in compile_all(spec):
        for prog in v.formula.programs(True):
            others = [i.op for i in prog.instructions if i.op not in ELEMENT_INSTRUCTIONS]
            selects = [i for i in prog.instructions if i.op == "Select"]
            if others or not selects or any(i.dst != "outLocal" for i in selects):
                ops = ", ".join(dict.fromkeys(others)) or "no select into the output"
                return (
                    "an integer dtype needs a formula that only selects among its inputs and integer literals "
                    f"by comparing inputs with host values (<, <=, >, >=); this one's 16-bit program runs {ops}"
                )
            for c in prog.constants:
                if c.dst not in prog.narrow or c.round_mode:
                    continue
                value = float((c.scalar or "nan").removesuffix("f"))
                for d in ints:
                    info = np.iinfo(np.dtype(d.numpy_name))
                    if not (value.is_integer() and info.min <= value <= info.max):
                        return f"the literal {value:g} the formula selects is not a value of {d.name}"
    return ""


def constants_for(compiled: CompiledFormula, dtype: DType) -> tuple[Instruction, ...]:
    """The per-core constant fills of every host case's program in ``dtype``, one per buffer, by buffer name."""
    fills = {ins.dst: ins for p in programs_for(compiled, dtype) for ins in p.constants}
    return tuple(fills[name] for name in sorted(fills, key=lambda n: int(n.removeprefix("const"))))
