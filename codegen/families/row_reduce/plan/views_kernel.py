"""The view of the row-reduce kernel (``op_kernel/<kernel>.cpp``): the reductions and outputs with their
passes, levels and scalar slots, per-tensor flags, float attrs and the product conditions it branches on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.families.row_reduce.plan.dtype_keys import DtypeKey
from codegen.families.row_reduce.plan.lowering import LoweredFunction
from codegen.families.row_reduce.plan.products import dcci_flush_condition, no_fp32_reduce_condition
from codegen.families.row_reduce.plan.program import Program, RowValue
from codegen.families.row_reduce.plan.tensors import row_inputs, row_outputs
from codegen.families.row_reduce.plan.views_lowered import DispatchView, LoweredView, lowered_views
from codegen.plan.common import KindView, arch_condition
from codegen.spec.expr import Expr, Name, walk
from codegen.spec.model import OpSpec, Product

KIND_CODES = {"max": 0, "sum": 1, "mean": 2}


@dataclass(frozen=True)
class ReductionView:
    """One reduction of the kernel: ``name``, ``kind`` (:data:`KIND_CODES`) and ``kind_name``, the pass it
    is evaluated in (``pass_index``) and its ``level`` in a tile of whole rows, the max it rescales with
    (``online``, -1: none), the input it reduces as is (``direct``, -1: none), the scalar slots its argument
    reads (``uses``) and the lowered argument ``fn``."""

    name: str
    kind: int
    kind_name: str
    pass_index: int
    online: int
    uses: tuple[int, ...]
    fn: LoweredFunction
    level: int = 0
    direct: int = -1


@dataclass(frozen=True)
class OutputView:
    """One output of the kernel: ``name``, the scalar slots it reads (``uses``), its lowered formula ``fn``
    and, for an output with one value per row, its C++ scalar ``row_out`` ("" for the others)."""

    name: str
    uses: tuple[int, ...]
    fn: LoweredFunction
    row_out: str = ""


@dataclass(frozen=True)
class FloatAttr:
    """A float attr the kernel reads: its ``name`` and its position among the spec's attrs (``index``)."""

    name: str
    index: int


@dataclass(frozen=True)
class KernelView(KindView):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/row_reduce_kernel.cpp.j2``): the passes, the lowered
    formulas and one branch per tiling key."""

    KIND: ClassVar[str] = "kernel_cpp"
    dtype_keys: tuple[DtypeKey, ...]
    float_attrs: tuple[FloatAttr, ...]
    float_attrs_n: int
    #: the device input carrying each aclnn input (aclnn order), the device output of each aclnn output
    in_gm_names: tuple[str, ...]
    #: per aclnn input, ``true`` when it is broadcast over the rows (C++ literals); per reduction pass and for
    #: the output pass, whether it reads such an input
    row_in_flags: tuple[str, ...]
    #: per aclnn output, ``true`` when it has one value per row (:func:`tensors.row_outputs`)
    row_out_flags: tuple[str, ...]
    pass_reads_rows: tuple[str, ...]
    out_reads_rows: str
    rows_input: str
    inputs_n: int
    kernel_class: str
    #: the kernel entry's GM parameters: the device inputs and outputs in OpDef order
    kernel_params: tuple[str, ...]
    no_fp32_reduce_condition: str
    no_pad_condition: str
    #: the NpuArchs without DataCopyPad whose scalar cache lines the kernel writes back after a partial block
    dcci_flush_condition: str
    out_gm_names: tuple[str, ...]
    outputs_n: int
    outs: tuple[OutputView, ...]
    pass_n: int
    level_n: int
    save_n: int
    red_n: int
    reductions: tuple[ReductionView, ...]
    row_values: tuple[RowValue, ...]
    scalar_fns: tuple[LoweredView, ...]
    line_fns: tuple[LoweredView, ...]
    dispatchers: tuple[DispatchView, ...]
    steps_text: tuple[str, ...]
    temps_n: int
    work_elems: int


def kernel_parts(spec: OpSpec, products: list[Product], prog: Program) -> dict[str, Any]:
    """The view entries only the kernel reads (:class:`KernelView`), by name, for ``spec`` on ``products``
    with its planned computation ``prog``."""
    float_attrs = [a for a in spec.attrs if a.type in ("float", "double")]
    dev = spec.device_interface
    rows_in = row_inputs(spec)

    def reads_rows(e: Expr) -> bool:
        return any(isinstance(x, Name) and x.id in rows_in for x in walk(e))

    pass_reads_rows = [
        "true" if any(reads_rows(r.arg) for r in prog.reductions if r.pass_index == p) else "false"
        for p in range(prog.pass_num)
    ]
    out_reads_rows = "true" if any(reads_rows(e) for _, e in prog.outputs) else "false"
    return {
        "pass_reads_rows": pass_reads_rows,
        "out_reads_rows": out_reads_rows,
        "row_in_flags": ["true" if n in rows_in else "false" for n in spec.input_names],
        "row_out_flags": ["true" if n in row_outputs(spec) else "false" for n in spec.output_names],
        "in_gm_names": [dev.inputs[dev.input_index(n)].name for n in spec.input_names],
        "out_gm_names": [next(d.name for d in dev.outputs if d.source == n) for n in spec.output_names],
        "kernel_params": [*(d.name for d in dev.inputs), *(d.name for d in dev.outputs)],
        "inputs_n": len(spec.inputs),
        "outputs_n": len(spec.outputs),
        "red_n": len(prog.reductions),
        "temps_n": max(prog.temps, 1),
        "pass_n": prog.pass_num,
        "level_n": prog.level_num,
        "save_n": len(prog.saves),
        "reductions": [
            ReductionView(
                name=r.name,
                kind=KIND_CODES[r.kind],
                kind_name=r.kind,
                pass_index=r.pass_index,
                online=r.online_max,
                uses=tuple(prog.code["arg_uses"][k]),
                fn=prog.code["args_scalar"][k],
                level=r.level,
                direct=prog.code["direct"][k],
            )
            for k, r in enumerate(prog.reductions)
        ],
        "outs": [
            OutputView(
                name=name,
                uses=tuple(prog.code["out_uses"][k]),
                fn=prog.code["outs_scalar"][k],
                row_out=prog.code["row_out"][k],
            )
            for k, (name, _) in enumerate(prog.outputs)
        ],
        "row_values": prog.row_values,
        **lowered_views(prog, [r.name for r in prog.reductions], [n for n, _ in prog.outputs]),
        "float_attrs": [FloatAttr(a.name, i) for i, a in enumerate(spec.attrs) if a in float_attrs],
        "float_attrs_n": len(float_attrs),
        "no_pad_condition": arch_condition(products, "data_copy_pad"),
        "dcci_flush_condition": dcci_flush_condition(products),
        "no_fp32_reduce_condition": no_fp32_reduce_condition(products),
    }
