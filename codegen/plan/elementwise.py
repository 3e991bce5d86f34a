"""Planning for the elementwise family: the compiled formula, UB budget, core split and the view model.

Tiling rule (the generated tiling function implements exactly :func:`tiling_decision`):

- ``blockElems = 32 / sizeof(T)``; the output's ``totalLength`` elements are cut into 32-byte blocks.
- ``usedCores = clamp(ceil(totalLength * sizeof(T) / minBytesPerCore), 1, min(coreNum, blocks))``.
- Blocks are split evenly; the first ``blocks % usedCores`` cores ("former" cores) take one extra block.
  The last core's range is clipped to ``totalLength`` (it holds the sub-block tail).
- Queue depth: ``inBufferNum = clamp(bufferNum, 1, queueBufferCap // numInputs)`` and likewise for the
  output queues, so the per-position buffer cap of the product is never exceeded.
- ``bytesPerElement = (numInputs * inBufferNum + numOutputs * outBufferNum) * sizeof(T) + temps * 4``
  and ``tileLength = floor((ubBytes - ubReservedBytes) / bytesPerElement)`` rounded down to a whole
  256-byte fp32 repeat (64 elements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.plan.common import arch_condition, common_view, dtype_groups
from codegen.plan.elementwise_compiler import CompiledFormula, Instruction, Program, compile_formula
from codegen.spec.expr import Call, Name, to_cpp
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import Catalogue, DType, ElementwiseCompute, OpSpec, Product

BLOCK_BYTES = 32
REPEAT_BYTES = 256
FP32_BYTES = 4


@dataclass(frozen=True)
class TilingDecision:
    """What the tiling function decides for one shape on one product (units in the field names).

    ``ub_split`` lists ``(buffer, count, bytes_each)`` for every UB allocation of one core.
    """

    product: str
    dtype: str
    tiling_key: int
    total_length: int
    block_dim: int
    former_num: int
    former_length: int
    tail_length: int
    tile_length: int
    in_buffer_num: int
    out_buffer_num: int
    bytes_per_element: int
    ub_budget_bytes: int
    ub_used_bytes: int
    tiles_per_core_max: int
    workspace_bytes: int
    ub_split: tuple[tuple[str, int, int], ...]


def _compute(spec: OpSpec) -> ElementwiseCompute:
    if not isinstance(spec.compute, ElementwiseCompute):
        raise TypeError(f"{spec.op} is not an elementwise op (family {spec.family})")
    return spec.compute


def compile_spec(spec: OpSpec) -> CompiledFormula:
    """Compiles the spec's single output formula (see :mod:`codegen.plan.elementwise_compiler`)."""
    compute = _compute(spec)
    (output, formula), *_ = compute.outputs
    scalars = dict(compute.scalars)
    return compile_formula(
        output, formula, tuple(t.name for t in spec.inputs), scalars, compute.loc, f"compute.{output}"
    )


def compute_dtypes(spec: OpSpec) -> list[DType]:
    """The dtypes the kernel computes on (the first input's list; promotion makes inputs agree)."""
    return list(spec.inputs[0].dtypes)


def buffer_nums(spec: OpSpec, product: Product) -> tuple[int, int]:
    """``(inBufferNum, outBufferNum)`` on ``product``: the spec's depth, capped by the product's queue cap."""
    n_in, n_out = len(spec.inputs), len(spec.outputs)
    depth = spec.tiling.buffer_num
    return (
        max(1, min(depth, product.queue_buffer_cap // n_in)),
        max(1, min(depth, product.queue_buffer_cap // n_out)),
    )


def program_for(compiled: CompiledFormula, dtype: DType) -> Program:
    """The fp32 program for FLOAT, the cast program for 16-bit float dtypes."""
    return compiled.fp32 if dtype is DType.FLOAT else compiled.cast16


def tiling_decision(spec: OpSpec, product: Product, shape: tuple[int, ...], dtype: DType) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for an output of ``shape`` and compute ``dtype``.

    Mirrors the generated C++ tiling function; ``tests/test_explain.py`` compares the two.

    Raises:
        ValueError: ``dtype`` is not a compute dtype of the spec, or UB cannot hold one repeat.
    """
    compiled = compile_spec(spec)
    keys = compute_dtypes(spec)
    if dtype not in keys:
        raise ValueError(f"{spec.op} computes on {', '.join(d.name for d in keys)}, not {dtype.name}")
    total = 1
    for d in shape:
        total *= d
    item = dtype.itemsize
    block_elems = BLOCK_BYTES // item
    blocks = -(-total // block_elems)
    cores = -(-(total * item) // spec.tiling.min_bytes_per_core)
    cores = max(1, min(cores, product.vector_core_num, blocks))
    per_core, former = divmod(blocks, cores)
    in_num, out_num = buffer_nums(spec, product)
    temps = program_for(compiled, dtype).temps
    n_in, n_out = len(spec.inputs), len(spec.outputs)
    bpe = (n_in * in_num + n_out * out_num) * item + temps * FP32_BYTES
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes
    repeat = REPEAT_BYTES // FP32_BYTES
    tile = budget // bpe // repeat * repeat
    if tile <= 0:
        raise ValueError(f"UB of {product.name} ({budget} bytes) cannot hold one repeat of {spec.op}")
    former_len = (per_core + 1) * block_elems
    tail_len = per_core * block_elems
    longest = former_len if former else tail_len
    longest = min(longest, total)
    split = (
        ("input queues", n_in * in_num, tile * item),
        ("output queues", n_out * out_num, tile * item),
        ("fp32 temporaries", temps, tile * FP32_BYTES),
    )
    return TilingDecision(
        product=product.name,
        dtype=dtype.name,
        tiling_key=keys.index(dtype),
        total_length=total,
        block_dim=cores,
        former_num=former,
        former_length=former_len,
        tail_length=tail_len,
        tile_length=tile,
        in_buffer_num=in_num,
        out_buffer_num=out_num,
        bytes_per_element=bpe,
        ub_budget_bytes=budget,
        ub_used_bytes=tile * bpe,
        tiles_per_core_max=-(-longest // tile) if longest else 0,
        workspace_bytes=0,
        ub_split=split,
    )


def _instruction_cpp(ins: Instruction) -> str:
    args = [ins.dst, *ins.srcs]
    if ins.op == "Cast":
        return f"Cast({ins.dst}, {ins.srcs[0]}, RoundMode::{ins.round_mode}, n);"
    if ins.op == "Duplicate":
        return f"Duplicate({ins.dst}, {ins.scalar}, n);"
    if ins.scalar is not None:
        args.append(ins.scalar)
    return f"{ins.op}({', '.join(args)}, n);"


def _scalar_cpp(spec: OpSpec, expr: Any) -> str:
    out_names = {t.name for t in spec.outputs}
    in_names = {t.name for t in spec.inputs}

    def name(n: str) -> str:
        if n in out_names or n in in_names:
            raise ValueError(f"tensor '{n}' used as a scalar")
        return n

    def numel(args: list[str]) -> str:
        return "totalLength"

    def rank(args: list[str]) -> str:
        return "static_cast<int64_t>(outShape.GetDimNum())"

    funcs = {"numel": numel, "rank": rank}
    # numel(tensor) of any operand is the output's element count: inputs are broadcast before the kernel.
    return to_cpp(_strip_tensor_args(expr), name, funcs)


def _strip_tensor_args(expr: Any) -> Any:
    """Replaces ``numel(t)``'s tensor argument by a placeholder the C++ printer ignores."""
    if isinstance(expr, Call) and expr.func in ("numel", "rank"):
        return Call(expr.func, (Name("totalLength"),))
    for attr in ("operand", "left", "right", "cond", "then", "orelse"):
        if hasattr(expr, attr):
            expr = type(expr)(**{**expr.__dict__, attr: _strip_tensor_args(getattr(expr, attr))})
    if hasattr(expr, "values") and isinstance(expr.values, tuple):
        expr = type(expr)(**{**expr.__dict__, "values": tuple(_strip_tensor_args(v) for v in expr.values)})
    if isinstance(expr, Call):
        expr = Call(expr.func, tuple(_strip_tensor_args(a) for a in expr.args))
    return expr


def build_view(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The complete template view model of an elementwise op (see :func:`codegen.plan.common.common_view`)."""
    view = common_view(spec, catalogue)
    products = view["products"]
    compiled = compile_spec(spec)
    keys = compute_dtypes(spec)
    no_bf16 = arch_condition(products, "bf16")
    tiling_keys = []
    for index, dt in enumerate(keys):
        prog = program_for(compiled, dt)
        tiling_keys.append(
            {
                "key": index,
                "dtype": dt.name,
                "ge_name": dt.ge_name,
                "kernel_type": dt.kernel_type,
                "elem_bytes": dt.itemsize,
                "temps": prog.temps,
                "guard": no_bf16 if dt is DType.BF16 and no_bf16 != "0" else "",
            }
        )
    programs = {
        name: {
            "lines": [_instruction_cpp(i) for i in prog.instructions],
            "temps": prog.temps,
            "ops": ", ".join(i.op for i in prog.instructions),
        }
        for name, prog in (("fp32", compiled.fp32), ("cast16", compiled.cast16))
    }
    product_rows = []
    for p in products:
        in_num, out_num = buffer_nums(spec, p)
        product_rows.append({"name": p.name, "soc": p.soc_version, "in_buffer_num": in_num, "out_buffer_num": out_num})
    scalars = [
        {"field": hs.field_name, "cpp": _scalar_cpp(spec, hs.expr), "text": unparse(hs.expr)} for hs in compiled.scalars
    ]
    attrs = [{"name": a.name, "index": i, "c_type": _attr_ctype(a.type)} for i, a in enumerate(spec.attrs)]
    inputs = [t.name for t in spec.inputs]
    output = spec.outputs[0]
    # Broadcast chain of the output's shape formula: broadcast(a, b, c) -> ((a, b), c).
    shape_args = _broadcast_args(spec)
    steps = []
    current = f"{shape_args[0]}->GetViewShape()"
    for k, name in enumerate(shape_args[1:]):
        result = f"broadcastStep{k}"
        steps.append({"left": current, "right": f"{name}->GetViewShape()", "result": result})
        current = result
    promote = list(_compute(spec).promote) or [inputs[0]]
    promote_expr = f"{promote[-1]}->GetDataType()"
    for name in reversed(promote[:-1]):
        promote_expr = f"op::PromoteType({name}->GetDataType(), {promote_expr})"
    (_, formula), *_ = _compute(spec).outputs
    status_rows = [
        {"name": "ACLNN_SUCCESS", "value": 0, "when": "Success."},
        {"name": "ACLNN_ERR_PARAM_NULLPTR", "value": 161001, "when": "A tensor, workspaceSize or executor is null."},
        {
            "name": "ACLNN_ERR_PARAM_INVALID",
            "value": 161002,
            "when": "A dtype not supported on this product, a rank above "
            f"{view['max_rank']}, an attribute value outside its list, shapes that do not broadcast, "
            f"{output.name} not of the broadcast shape, or a format other than ND.",
        },
        {"name": "ACLNN_ERR_INNER_TILING_ERROR", "value": 561002, "when": "The tiling function failed."},
    ]
    tiling_lines = [
        f"Each core streams its range through UB in tiles; a tile needs, per element, one slot in each "
        f"input and output queue buffer plus the formula's fp32 temporaries "
        f"(FLOAT: {compiled.fp32.temps}, 16-bit: {compiled.cast16.temps}).",
        f"Queue depth {spec.tiling.buffer_num} (double buffering), capped per product by its queue buffers "
        "per position.",
        f"Elements are split over cores in 32-byte blocks, at least {spec.tiling.min_bytes_per_core} bytes per core; "
        "the first `blocks % cores` cores take one block more.",
    ]
    for p in products:
        d = tiling_decision(spec, p, (1 << 24,), keys[0])
        tiling_lines.append(
            f"{p.name}: UB {p.ub_bytes} bytes, {p.vector_core_num} cores, queue buffers {d.in_buffer_num}/"
            f"{d.out_buffer_num} (in/out), {keys[0].name} tile {d.tile_length} elements."
        )
    example_lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            example_lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            example_lines.append(f"`{name}` = {value}")
    view.update(
        {
            "product_rows": product_rows,
            "tensor_groups": {t.name: dtype_groups(t, products) for t in [*spec.inputs, *spec.outputs]},
            "tiling_keys": tiling_keys,
            "programs": programs,
            "max_temps": max(compiled.fp32.temps, compiled.cast16.temps),
            "scalars": scalars,
            "scalar_defs": [{"name": n, "text": unparse(e)} for n, e in _compute(spec).scalars],
            "attrs": attrs,
            "no_pad_condition": arch_condition(products, "data_copy_pad"),
            "inputs": inputs,
            "output": output.name,
            "num_inputs": len(spec.inputs),
            "num_outputs": len(spec.outputs),
            "block_bytes": BLOCK_BYTES,
            "repeat_bytes": REPEAT_BYTES,
            "formula": unparse(compiled.lowered),
            "formula_text": unparse(formula),
            "broadcast_steps": steps,
            "broadcast_final": current,
            "broadcast_message": ", ".join(shape_args),
            "broadcast_fmt": ", ".join(f"{n} %s" for n in shape_args),
            "broadcast_args": ", ".join(f"ToString({n}->GetViewShape()).GetString()" for n in shape_args),
            "promote_expr": promote_expr,
            "dfx_in": ", ".join([*inputs, *(a.name for a in spec.attrs)]),
            "status_rows": status_rows,
            "constraint_lines": [
                f"{n} and the other inputs broadcast together (NumPy rules); {output.name} has the broadcast shape."
                for n in inputs[:1]
            ]
            + ["Empty tensors succeed and produce an empty output.", "Deterministic: every element is computed once."],
            "tiling_lines": tiling_lines,
            "example_lines": example_lines,
        }
    )
    return view


def _broadcast_args(spec: OpSpec) -> list[str]:
    shape = spec.outputs[0].shape
    if isinstance(shape, Call) and shape.func == "broadcast":
        return [a.id for a in shape.args if isinstance(a, Name)]
    return [t.name for t in spec.inputs]


def _attr_ctype(t: str) -> str:
    return {"int64": "int64_t", "uint64": "int64_t", "bool": "bool", "double": "float", "float": "float"}[t]
