"""The row-reduce kernel's view entries (``op_kernel/<kernel>.cpp``): the reductions and outputs with their
passes, levels and scalar slots, the lowered functions and their dispatch switches, per-tensor flags, float
attrs and the product conditions it branches on."""

from __future__ import annotations

from typing import Any

from codegen.families.row_reduce.plan.products import dcci_flush_condition
from codegen.families.row_reduce.plan.program import LOAD, Program
from codegen.families.row_reduce.plan.tensors import (
    column_outputs,
    compute_of,
    optional_inputs,
    per_row_inputs,
    row_inputs,
    row_outputs,
)
from codegen.families.row_reduce.plan.view_records import (
    DispatchView,
    LoweredView,
    OutputView,
    ReductionView,
)
from codegen.plan.products import arch_condition, no_fp32_reduce_condition, no_value_reduce_condition
from codegen.spec.expr import Expr, Name, walk
from codegen.spec.model import OpSpec, Product

KIND_CODES = {"max": 0, "sum": 1, "mean": 2, LOAD: 3}


def kernel_parts(spec: OpSpec, products: list[Product], prog: Program) -> dict[str, Any]:
    """The view entries only the kernel reads (:class:`view_kinds.KernelView`), by name, for ``spec`` on ``products``
    with its planned computation ``prog``."""
    float_attrs = [a for a in spec.attrs if a.type in ("float", "double")]
    dev = spec.device_interface
    # each input the kernel may find absent: the default it reads instead
    absent = {name: default for _, name, default in optional_inputs(spec)}
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
        "col_out_flags": ["true" if n in column_outputs(spec) else "false" for n in spec.output_names],
        "row_out_n": len(row_outputs(spec)),
        "col_direct": [
            d if n in column_outputs(spec) else -1
            for n, d in zip(spec.output_names, prog.code["out_direct"], strict=True)
        ],
        "column_n": len(column_outputs(spec)),
        "per_row_n": len(per_row_inputs(spec)),
        "per_row_in_flags": ["true" if n in per_row_inputs(spec) else "false" for n in spec.input_names],
        "in_load": [
            next((k for k, r in enumerate(prog.reductions) if r.name == n and r.kind == LOAD), -1)
            for n in spec.input_names
        ],
        "no_sync_condition": arch_condition(products, "hw_sync_all"),
        "in_gm_names": [dev.inputs[dev.input_index(n)].name for n in spec.input_names],
        "unread_gm_names": [d.name for d in dev.inputs if d.dtype is not None],
        "out_gm_names": [next(d.name for d in dev.outputs if d.source == n) for n in spec.output_names],
        "inputs_n": len(spec.inputs),
        "outputs_n": len(spec.outputs),
        "out_nullable": [t.nullable for t in spec.outputs],
        "in_defaults": [f"{d!r}f" if (d := absent.get(t.name)) is not None else "" for t in spec.inputs],
        "red_n": len(prog.reductions),
        "temps_n": max(prog.temps, 1),
        "pass_n": prog.pass_num,
        "has_max": any(r.kind == "max" for r in prog.reductions),
        "has_rescaled": any(r.online >= 0 and prog.reductions[r.online].kind == "max" for r in prog.reductions),
        "has_centred": any(r.online >= 0 and prog.reductions[r.online].kind == "mean" for r in prog.reductions),
        "level_n": prog.level_num,
        "save_n": len(prog.saves),
        "reductions": [
            ReductionView(
                name=r.name,
                kind=KIND_CODES[r.kind],
                kind_name=r.kind,
                pass_index=r.pass_index,
                online=r.online,
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
        **lowered_views(
            prog,
            [r.name for r in prog.reductions],
            [n for n, _ in prog.outputs],
            strided=not compute_of(spec).rows,
            unused=frozenset(
                {f"EvalArg{k}" for k, r in enumerate(prog.reductions) if r.kind == LOAD}
                | {f"EvalOut{k}" for k, (n, _) in enumerate(prog.outputs) if n in row_outputs(spec)}
            ),
        ),
        "float_attrs_n": len(float_attrs),
        "dcci_flush_condition": dcci_flush_condition(products),
        "no_fp32_reduce_condition": no_fp32_reduce_condition(products),
        "no_value_reduce_condition": no_value_reduce_condition(products),
    }


def lowered_views(
    prog: Program, reds: list[str], outs: list[str], strided: bool = True, unused: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The kernel view's lowered functions (``scalar_fns``, ``line_fns``) and their ``dispatchers``. Without
    ``strided`` (the ``rows`` form: the reduced dims are the last ones, so ``inner`` is 1 and the tiling never
    takes mode 1) the line forms of the arguments and outputs (``EvalArgLine``, ``EvalOutLine``), which only
    mode 1 runs, are left out; the per-row values' line forms (``EvalRow``) stay, as mode 0 runs them too. The
    scalar functions named in ``unused`` (a per-row input's argument, which is loaded, never reduced; an output
    with one value per row, which ``RowOut`` gives) are left out too, their dispatch entries empty ("")."""
    c = prog.code
    row_fns = [LoweredView(f"per-row value {j}", f) for j, f in enumerate(c["rows"])]
    scalar = [
        LoweredView(f"argument of reduction {k} ({n})", f, True) for k, (n, f) in enumerate(zip(reds, c["args_scalar"]))
    ]
    scalar += [LoweredView(f"output {n}", f) for n, f in zip(outs, c["outs_scalar"], strict=True)]
    scalar = [v for v in scalar if v.fn.name not in unused]
    line = [LoweredView(f"argument of reduction {k} ({n})", f) for k, (n, f) in enumerate(zip(reds, c["args_line"]))]
    line += [LoweredView(f"output {n}", f) for n, f in zip(outs, c["outs_line"], strict=True)]
    line = [*line, *row_fns] if strided else row_fns
    line_dispatch = [
        DispatchView("EvalArgLine", tuple(f.name for f in c["args_line"]), False),
        DispatchView("EvalOutLine", tuple(f.name for f in c["outs_line"]), False),
    ]
    return {
        "scalar_fns": scalar,
        "line_fns": line,
        "dispatchers": [
            DispatchView("EvalArg", tuple("" if f.name in unused else f.name for f in c["args_scalar"]), True, True),
            DispatchView("EvalOut", tuple("" if f.name in unused else f.name for f in c["outs_scalar"]), True),
            *(line_dispatch if strided else []),
            DispatchView("EvalRow", tuple(f.name for f in c["rows"]), False),
        ],
    }
