"""Compile an elementwise formula from a spec into a sequence of AscendC vector instructions.

The formula (``compute.<output>`` in an elementwise spec) is an expression over input tensor names, host
scalars (``compute.scalars`` and attributes) and numbers. Compilation has four steps:

1. *Scalar hoisting*: every subtree that references no tensor is evaluated once on the host, in the tiling
   function, and reaches the kernel as a ``float`` tiling field (``scalar0``, ``scalar1``, ...).
   A ``where`` whose condition reads host scalars only (``isResult``, ``approximate == "tanh"``) and whose
   branches read tensors is not a per-element select: its condition is hoisted as a host flag (``1.0`` or
   ``0.0``) and the formula is compiled once per combination of flag values (:class:`HostCase`), each program
   holding its taken branches only; the kernel picks the case with a scalar branch once per tile.
2. *Lowering*: ``sigmoid(u)`` becomes ``1 / (1 + exp(-u))`` (finite for every finite ``u``: when ``exp``
   overflows to ``inf`` the reciprocal is ``0``), subtraction and negation are normalised, and negations are
   pushed into host scalars where possible so that they cost no vector instruction.
3. *Instruction selection*: tensor-tensor ops map to ``Add/Sub/Mul/Div/Max/Min``, tensor-scalar ops to
   ``Adds/Muls/Maxs/Mins``, unary functions to ``Exp/Ln/Abs/Sqrt/Relu/Reciprocal``. A product (with its negations
   and divisions by host values) is flattened into its tensor factors and one coefficient, so it costs its
   ``Mul`` instructions and at most one ``Muls`` (``s - t`` is one ``Adds`` of ``-t`` when ``t`` has a
   coefficient to absorb the sign, else one ``Sub`` from a per-core constant ``s``). Every instruction is
   value-numbered: one that an earlier one already computed (same operation, operands and scalar; literals equal
   in fp32 are one) is not emitted again. A ``Max``/``Min`` (``min``, ``max``, ``clamp``) is followed by a
   ``Compare`` of its tensor operand with itself and a ``Select`` that keep its NaN (:meth:`_Builder.keep_nan`),
   once per chain with literal bounds, and not at all where another operand of the result carries that operand's
   NaN (:meth:`_Builder.nan_sources`).
4. *Buffer allocation*: a linear scan over the instruction list assigns every value a UB buffer; a host
   value broadcast into a tensor (``Duplicate``) is a per-core constant (``const<k>``), filled once before
   the first tile (:attr:`Program.constants`). Input buffers may be overwritten at their last use; fp32
   temporaries (``TBuf<VECCALC>``) are reused once dead.
   For 16-bit inputs every input is cast to an fp32 temporary at its first use and the result is rounded
   once to the output dtype (``CAST_RINT``), except where the result is a chain of selects among the inputs
   and exact literals: those select the 16-bit elements themselves (:func:`.narrow.narrow_selects`).

The result (:class:`Program`) lists instructions as plain data, the temporaries it needs, and the host
scalars; templates only place these strings. :func:`compile_variants` compiles one program set per
combination of absent optional inputs (each replaced by its default before lowering), sharing the host
scalars. A mixed dtype column (inputs of dtypes of their own, :class:`ColumnDtypes`) gets a program of its
own in each :class:`HostCase`: each 16-bit input is cast to fp32 by itself, each fp32 input is read in
place, and the result is rounded once only where the output is 16-bit.
"""

from codegen.families.elementwise.compiler.driver import compile_formula, compile_variants
from codegen.families.elementwise.compiler.program import (
    ColumnDtypes,
    CompiledFormula,
    HostCase,
    HostScalar,
    Instruction,
    Program,
)

__all__ = [
    "ColumnDtypes",
    "CompiledFormula",
    "HostCase",
    "HostScalar",
    "Instruction",
    "Program",
    "compile_formula",
    "compile_variants",
]
