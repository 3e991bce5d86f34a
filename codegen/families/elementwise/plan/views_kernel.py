"""The elementwise kernel's view entries: the compiled programs of every variant printed as AscendC calls,
the buffers they need, and the device inputs the kernel reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codegen.families.elementwise.compiler import CompiledFormula, Instruction, Program
from codegen.families.elementwise.compiler.narrow import COMPARE_ELEMS, WIDEN_FOR_COMPARE
from codegen.families.elementwise.compute import INTEGER_DTYPES
from codegen.families.elementwise.plan.variants import Variant, compute_dtypes, compute_of
from codegen.families.elementwise.plan.view_records import (
    FormulaText,
    HostScalar,
    KernelPrograms,
    ProgramView,
    VariantView,
)
from codegen.spec.expr import IfElse
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import OpSpec

#: How the docs name the kernel helpers of a comparison in the input dtype (:mod:`...compiler.narrow`).
_DOC_NAMES = {WIDEN_FOR_COMPARE: "Cast (BF16 only)", COMPARE_ELEMS: "Compare"}


def _instruction_cpp(ins: Instruction, narrow: bool = False) -> str:
    """The AscendC call of ``ins``; ``narrow``: ``ins`` is a ``Select`` of a 16-bit program that picks
    elements of the input dtype ``T`` (:attr:`Program.narrow`), printed as the kernel's ``SelectElems``."""
    args = [ins.dst, *ins.srcs]
    if narrow:
        return f"SelectElems({ins.dst}, {ins.srcs[0]}, {ins.srcs[1]}, {ins.srcs[2]}, n);"
    if ins.op == "Cast":
        return f"Cast({ins.dst}, {ins.srcs[0]}, RoundMode::{ins.round_mode}, n);"
    if ins.op == "Duplicate":
        return f"Duplicate({ins.dst}, {ins.scalar}, n);"
    if ins.op == "Compare":
        return f"Compare({ins.dst}, {ins.srcs[0]}, {ins.srcs[1]}, CMPMODE::{ins.mode}, nCmp);"
    if ins.op == "Compares":
        return f"Compares({ins.dst}, {ins.srcs[0]}, {ins.scalar}, CMPMODE::{ins.mode}, nCmp);"
    if ins.op == COMPARE_ELEMS:
        widened, raw, rounded = ins.srcs
        return f"{ins.op}({ins.dst}, {widened}, {raw}, {rounded}, {ins.scalar}, CMPMODE::{ins.mode}, n);"
    if ins.op == "Select":
        src1 = ins.srcs[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else ins.scalar
        return f"Select({ins.dst}, {ins.srcs[0]}, {ins.srcs[1]}, {src1}, SELMODE::{ins.mode}, n);"
    if ins.scalar is not None:
        args.append(ins.scalar)
    return f"{ins.op}({', '.join(args)}, n);"


def _is_narrow(prog: Program, ins: Instruction) -> bool:
    """Whether ``ins`` selects elements of the input dtype in a 16-bit program (it writes ``outLocal``)."""
    return prog.cast_inputs and ins.op == "Select" and ins.dst == "outLocal"


def _lines(prog: Program) -> list[str]:
    return [_instruction_cpp(i, _is_narrow(prog, i)) for i in prog.instructions]


def _op_names(prog: Program) -> str:
    """The instructions of ``prog`` as the docs list them (a kernel helper by the instruction it runs)."""
    return ", ".join(_DOC_NAMES.get(i.op, i.op) for i in prog.instructions)


def _summary(progs: Sequence[Program], ops: str) -> str:
    """The docs' sentence on the 16-bit programs ``progs`` running ``ops``."""
    if not progs or not progs[0].cast_inputs:
        return ""
    compares = (
        " FLOAT16 inputs compared only with host values are compared in half, with each host value rounded "
        "to half toward the side that keeps every comparison's result (BF16 ones are cast to fp32)."
        if any(i.op == COMPARE_ELEMS for p in progs for i in p.instructions)
        else ""
    )
    if any(_is_narrow(p, i) for p in progs for i in p.instructions):
        if not compares:
            return (
                f"FLOAT16/BF16 inputs run `{ops}`: the values they compare are cast to fp32, and the selects "
                "pick the 16-bit elements themselves (bit-identical to selecting in fp32 and rounding)."
            )
        return (
            f"FLOAT16/BF16 inputs run `{ops}`: the selects pick the 16-bit elements themselves (bit-identical "
            f"to selecting in fp32 and rounding).{compares}"
        )
    return f"FLOAT16/BF16 inputs are cast to fp32, run\n`{ops}` and are rounded once to the output dtype.{compares}"


def _result(prog: Program) -> str:
    last = prog.instructions[-1]
    return last.srcs[0] if prog.cast_inputs and last.op == "Cast" and last.dst == "outLocal" else "outLocal"


def _clobbered(progs: Sequence[Program]) -> tuple[str, ...]:
    """The inputs whose tile an instruction of any of ``progs`` overwrites (their ``<name>Local`` is a
    destination), sorted."""
    return tuple(
        sorted(
            {i.dst.removesuffix("Local") for p in progs for i in p.instructions if i.dst.endswith("Local")} - {"out"}
        )
    )


def _programs_view(
    compiled: CompiledFormula, cast_inputs: bool, int_bytes: bool = False, column: int | None = None
) -> ProgramView:
    """The programs of every host case of ``compiled`` (fp32, or 16-bit where ``cast_inputs``) as one body:
    a single case's instructions as they are; several cases as an ``if``/``else if``/``else`` chain on their
    host flags (a scalar branch per tile, only the taken case's vector instructions run), with the most
    temporaries and masks any case uses. ``int_bytes``: the op lists an 8-bit integer dtype, whose constants
    of ``T`` the kernel's ``FillElems`` writes (no 8-bit ``Duplicate``). ``column``: the programs of that
    mixed dtype column (:attr:`HostCase.columns`) instead."""
    cases = compiled.cases
    progs = compiled.programs(cast_inputs) if column is None else tuple(c.columns[column] for c in cases)
    fills = {ins.dst: ins for p in progs for ins in p.constants}
    names = tuple(sorted(fills, key=lambda n: int(n.removeprefix("const"))))
    narrow = {n for p in progs for n in p.narrow}
    fill_lines = tuple(
        f"FillRounded({n}, {fills[n].scalar}, RoundMode::{fills[n].round_mode}, tmp0_.Get<float>());"
        if n in narrow and fills[n].round_mode
        else f"FillElems({n}, static_cast<T>({fills[n].scalar}));"
        if n in narrow and int_bytes
        else f"Duplicate({n}, static_cast<T>({fills[n].scalar}), static_cast<int32_t>(tileLength_));"
        if n in narrow
        else f"Duplicate({n}, {fills[n].scalar}, static_cast<int32_t>(tileLength_));"
        for n in names
    )
    types = {n: "T" if n in narrow else "float" for n in names}
    decls = tuple(f"LocalTensor<{types[n]}> {n} = {n}_.Get<{types[n]}>();" for n in names)
    if len(cases) == 1:
        (prog,) = progs
        return ProgramView(
            result=_result(prog),
            lines=tuple(_lines(prog)),
            temps=prog.temps,
            masks=prog.masks,
            ops=_op_names(prog),
            summary=_summary(progs, _op_names(prog)),
            constants=names,
            fills=fill_lines,
            declarations=decls,
            clobbered=_clobbered(progs),
        )
    conditions = {hs.field_name: hs.expr.cond for hs in compiled.scalars if isinstance(hs.expr, IfElse)}
    lines: list[str] = []
    ops: list[str] = []
    for k, (case, prog) in enumerate(zip(cases, progs, strict=True)):
        test = " && ".join(f"{name}_ {'!=' if value else '=='} 0.0f" for name, value in case.guards)
        if k == 0:
            lines.append(f"if ({test}) {{")
        elif k < len(cases) - 1:
            lines.append(f"}} else if ({test}) {{")
        else:
            lines.append("} else {")
        lines.extend(f"  {line}" for line in _lines(prog))
        text = " and ".join(f"{'' if value else 'not '}{unparse(conditions[name])}" for name, value in case.guards)
        ops.append(f"{text}: {_op_names(prog)}")
    lines.append("}")
    results = {_result(p) for p in progs}
    return ProgramView(
        result=results.pop() if len(results) == 1 else "",
        lines=tuple(lines),
        temps=max(p.temps for p in progs),
        masks=max(p.masks for p in progs),
        ops="; ".join(ops),
        summary=_summary(progs, "; ".join(ops)),
        constants=names,
        fills=fill_lines,
        declarations=decls,
        clobbered=_clobbered(progs),
    )


def variant_views(variants: list[Variant], int_bytes: bool = False) -> list[VariantView]:
    """Every variant's fp32 and 16-bit programs as the kernel prints them (variant 0 first); ``int_bytes`` as
    :func:`_programs_view`'s."""
    return [
        VariantView(
            index=v.index,
            absent=", ".join(v.absent),
            present=tuple(v.present),
            fp32=_programs_view(v.formula, False),
            cast16=_programs_view(v.formula, True, int_bytes),
        )
        for v in variants
    ]


def kernel_parts(spec: OpSpec, variants: list[Variant], scalars: list[HostScalar]) -> dict[str, Any]:
    """The view entries of the kernel (and the docs' ``programs`` and ``formula``):
    ``variants`` are :func:`codegen.families.elementwise.plan.variants.compile_all`'s, ``scalars`` the host
    scalars of variant 0."""
    dev = spec.device_interface
    compiled = variants[0].formula
    (_, formula), *_ = compute_of(spec).outputs
    ints = [d for d in compute_dtypes(spec) if d in INTEGER_DTYPES]
    int_bytes = any(d.itemsize == 1 for d in ints)
    views = variant_views(variants, int_bytes)
    columns = tuple(_programs_view(compiled, False, column=k) for k in range(len(compiled.cases[0].columns)))
    # the column programs share the kernel's temporaries, masks and constant buffers
    columns_as_variants = [VariantView(0, "", (), c, c) for c in columns]
    return {
        # device inputs the kernel does not read: a second carrier of an aclnn input, or one with no source
        "unread_device_inputs": tuple(
            d.name for i, d in enumerate(dev.inputs) if d.source is None or dev.input_index(d.source) != i
        ),
        "compiled": KernelPrograms(
            variants=tuple(views),
            columns=columns,
            max_temps=max(max(v.fp32.temps, v.cast16.temps) for v in views + columns_as_variants),
            max_masks=max(max(v.fp32.masks, v.cast16.masks) for v in views + columns_as_variants),
            constant_buffers=tuple(
                sorted(
                    {n for v in views + columns_as_variants for n in (*v.fp32.constants, *v.cast16.constants)},
                    key=lambda n: int(n[5:]),
                )
            ),
            # a 16-bit program selecting elements of T (the kernel then defines SelectElems)
            narrow_selects=any(
                _is_narrow(p, i) for v in variants for p in v.formula.programs(True) for i in p.instructions
            ),
            # a 16-bit program comparing an input in T (the kernel then defines CompareElems and its helpers)
            narrow_compares=any(
                i.op == COMPARE_ELEMS for v in variants for p in v.formula.programs(True) for i in p.instructions
            ),
            int_types=tuple(d.kernel_type for d in ints),
            int_bytes=int_bytes,
        ),
        "has_variants": len(variants) > 1,
        "programs": views[0],
        "scalars": scalars,
        "formula": FormulaText(text=unparse(formula), lowered=unparse(compiled.lowered)),
    }
