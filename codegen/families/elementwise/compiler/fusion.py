"""Instruction fusion before buffer allocation: ``a + s * y`` (and ``s * y + a``, ``a - s * y``) in one ``Axpy``.

AscendC's ``Axpy(dst, src, scalarValue, count)`` computes ``dst[i] = src[i] * scalarValue + dst[i]`` in place
(asc-devkit include/basic_api/kernel_operator_vec_ternary_scalar_intf.h; float/float on every product). A
built program that scales a value ``y`` by a host scalar (``Muls``) only to add it to (or subtract it from)
another value ``a`` whose buffer may take the result runs the two as one ``Axpy`` into ``a``'s buffer, one
vector instruction fewer. The emulated ``Axpy`` rounds the product and then the sum, as ``Muls`` then
``Add``, so the values do not change (docs/emulator.md); the interval model counts the same two roundings.
"""

from __future__ import annotations

from collections import Counter

from codegen.families.elementwise.compiler.lowering import _neg
from codegen.families.elementwise.compiler.values import _Values

#: The instruction the fusion emits. In a built program its sources are ``(a, y)``: the addend, whose buffer
#: the result takes, and the scaled value; the allocated :class:`.program.Instruction` lists ``y`` only (its
#: ``dst`` is the addend, read and written, as AscendC's call takes it).
AXPY = "Axpy"


def fuse_axpy(b: _Values, root: int, final_cast: bool, chain: set[int]) -> set[int]:
    """Rewrites ``b.code`` in place: each ``Add`` of ``a`` and ``m``, or ``Sub`` of ``m`` from ``a``, where
    ``m = Muls(y, s)`` is read by that instruction only and ``a`` is not read after it, becomes
    ``Axpy(a, y, s)`` (``-s`` for a ``Sub``: a literal negated, a host scalar ``-(expr)`` hoisted), and the
    ``Muls`` goes. ``a`` must live in a buffer the result may overwrite: an fp32 temporary (a computed value, a
    16-bit input's cast-up copy) or an fp32 input's own tile read in place (``<name>Local`` at its last use, as
    allocation already reuses it), never a per-core constant; where the instruction is the program's result
    and that result is the fp32 output (no final ``Cast``), ``a`` must be a computed value, which is then
    computed into ``outLocal`` itself (an input's tile would need a copy into the output: no instruction
    saved). Instructions with an approximation error (``approx``), an ``image`` or in a narrow select
    ``chain`` are left alone.

    Returns:
        The registers to allocate to ``outLocal`` (the addends of a fused result).
    """
    code = b.code
    uses: Counter[int] = Counter(s for ins in code for s in ins[2])
    last_use = {s: i for i, ins in enumerate(code) for s in ins[2]}
    defined = {ins[1]: i for i, ins in enumerate(code)}
    removed: set[int] = set()
    to_out: set[int] = set()
    fused: set[int] = set()
    for i, (op, dst, srcs, _scalar, _rm, _mode, approx) in enumerate(code):
        if op not in ("Add", "Sub") or approx or dst in b.images or dst in chain:
            continue
        pairs = [(srcs[1], srcs[0])] if op == "Sub" else [(srcs[1], srcs[0]), (srcs[0], srcs[1])]
        for m, a in pairs:
            j = defined.get(m)
            if m == a or j is None or j in removed:
                continue
            m_op, _, m_srcs, m_scalar, _, _, m_approx = code[j]
            if m_op != "Muls" or m_approx or m in b.images or uses[m] != 1 or m_scalar is None:
                continue
            (y,) = m_srcs
            if y == a or last_use.get(a) != i:
                continue
            at_root = dst == root and not final_cast
            if not _overwritable(b, a, defined, fused, at_root):
                continue
            scalar = m_scalar if op == "Add" else _negated(b, m_scalar)
            if scalar is None:
                continue
            code[i] = (AXPY, dst, (a, y), scalar, None, None, 0.0)
            removed.add(j)
            fused.add(dst)
            if at_root:
                to_out.add(a)
            break
    b.code = [ins for k, ins in enumerate(code) if k not in removed]
    return to_out


def _overwritable(b: _Values, a: int, defined: dict[int, int], fused: set[int], at_root: bool) -> bool:
    """Whether register ``a``'s buffer may take an ``Axpy`` result (see :func:`fuse_axpy`)."""
    if a in b.reg_source:  # an input read in place: its own tile, fp32 (a cast input's register is the Cast's)
        return not at_root and not b.is_cast(b.reg_source[a])
    j = defined.get(a)
    if j is None or a in b.mask_regs or a in b.narrow_consts:
        return False
    op = b.code[j][0]
    if op == "Duplicate":  # a per-core constant, filled once for every tile
        return False
    return not (at_root and a in fused)  # a fused result's buffer is its own addend's, not outLocal


def _negated(b: _Values, scalar: str) -> str | None:
    """The C++ float expression of ``-scalar``: a literal's negation, or the field of the hoisted host scalar
    ``-(expr)``; None for anything else."""
    if scalar.endswith("_"):
        for hs in b.ctx.hoisted:
            if f"{hs.field_name}_" == scalar:
                return b.scalar(_neg(hs.expr))
        return None
    try:
        return b.literal(-float(scalar.removesuffix("f")))
    except ValueError:
        return None
