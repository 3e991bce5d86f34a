"""The elementwise kernel's view entries: the compiled programs of every variant printed as AscendC calls,
the buffers they need, and the device inputs the kernel reads."""

from __future__ import annotations

from typing import Any

from codegen.families.elementwise.compiler import Instruction, Program
from codegen.families.elementwise.plan.variants import Variant, compute_of
from codegen.families.elementwise.plan.view_records import HostScalar, ProgramView, VariantView
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import OpSpec


def _instruction_cpp(ins: Instruction) -> str:
    args = [ins.dst, *ins.srcs]
    if ins.op == "Cast":
        return f"Cast({ins.dst}, {ins.srcs[0]}, RoundMode::{ins.round_mode}, n);"
    if ins.op == "Duplicate":
        return f"Duplicate({ins.dst}, {ins.scalar}, n);"
    if ins.op == "Compare":
        return f"Compare({ins.dst}, {ins.srcs[0]}, {ins.srcs[1]}, CMPMODE::{ins.mode}, nCmp);"
    if ins.op == "Compares":
        return f"Compares({ins.dst}, {ins.srcs[0]}, {ins.scalar}, CMPMODE::{ins.mode}, nCmp);"
    if ins.op == "Select":
        src1 = ins.srcs[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else ins.scalar
        return f"Select({ins.dst}, {ins.srcs[0]}, {ins.srcs[1]}, {src1}, SELMODE::{ins.mode}, n);"
    if ins.scalar is not None:
        args.append(ins.scalar)
    return f"{ins.op}({', '.join(args)}, n);"


def _programs_view(prog: Program) -> ProgramView:
    last = prog.instructions[-1]
    return ProgramView(
        result=last.srcs[0] if prog.cast_inputs and last.op == "Cast" and last.dst == "outLocal" else "outLocal",
        lines=tuple(_instruction_cpp(i) for i in prog.instructions),
        temps=prog.temps,
        masks=prog.masks,
        ops=", ".join(i.op for i in prog.instructions),
        clobbered=tuple(
            sorted({i.dst.removesuffix("Local") for i in prog.instructions if i.dst.endswith("Local")} - {"out"})
        ),
    )


def variant_views(variants: list[Variant]) -> list[VariantView]:
    """Every variant's fp32 and 16-bit programs as the kernel prints them (variant 0 first)."""
    return [
        VariantView(
            index=v.index,
            absent=", ".join(v.absent),
            present=tuple(v.present),
            fp32=_programs_view(v.formula.fp32),
            cast16=_programs_view(v.formula.cast16),
        )
        for v in variants
    ]


def kernel_parts(spec: OpSpec, variants: list[Variant], scalars: list[HostScalar]) -> dict[str, Any]:
    """The view entries of the kernel (and the docs' ``programs``, ``formula`` and ``formula_text``):
    ``variants`` are :func:`codegen.families.elementwise.plan.variants.compile_all`'s, ``scalars`` the host
    scalars of variant 0."""
    dev = spec.device_interface
    compiled = variants[0].formula
    (_, formula), *_ = compute_of(spec).outputs
    views = variant_views(variants)
    return {
        # device inputs the kernel does not read: a second carrier of an aclnn input, or one with no source
        "unread_device_inputs": tuple(
            d.name for i, d in enumerate(dev.inputs) if d.source is None or dev.input_index(d.source) != i
        ),
        "variants": views,
        "has_variants": len(variants) > 1,
        "programs": views[0],
        "max_temps": max(max(v.formula.fp32.temps, v.formula.cast16.temps) for v in variants),
        "max_masks": max(max(v.formula.fp32.masks, v.formula.cast16.masks) for v in variants),
        "scalars": scalars,
        "formula": unparse(compiled.lowered),
        "formula_text": unparse(formula),
    }
