"""Planning for the elementwise family: the compiled formula, UB budget, core split and the view model.

Tiling rule (the generated tiling function implements exactly :func:`tiling_decision`):

- ``blockElems = 32 / sizeof(T)``; the output's ``totalLength`` elements are cut into 32-byte blocks.
- ``usedCores = clamp(ceil(totalLength * sizeof(T) / minBytesPerCore), 1, min(coreNum, blocks))``.
- Blocks are split evenly; the first ``blocks % usedCores`` cores ("former" cores) take one extra block.
  The last core's range is clipped to ``totalLength`` (it holds the sub-block tail).
- Queue depth: ``inBufferNum = clamp(bufferNum, 1, queueBufferCap // numInputs)`` and likewise for the
  output queues, so the per-position buffer cap of the product (selected by its NpuArch) is never exceeded.
  ``numInputs`` counts the inputs present in the call (an absent optional input has no queue).
- ``bytesPerElement = (numInputs * inBufferNum + numOutputs * outBufferNum) * sizeof(T) + temps * 4``
  and ``tileLength = floor((ubBytes - ubReservedBytes) / bytesPerElement)`` rounded down to a whole
  256-byte fp32 repeat (64 elements).

Optional inputs: each has a ``default``; the formula is compiled once per combination of absent optional
inputs (the absent ones replaced by their defaults). Tiling key = ``dtypeIndex + numDtypes * variant``,
where bit ``k`` of ``variant`` is set when optional input ``k`` is null (variant 0: every input present).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from codegen.families.elementwise.compiler import CompiledFormula, Instruction, Program, compile_variants
from codegen.families.elementwise.compute import ElementwiseCompute, ReduceEpilogue
from codegen.plan.common import (
    ArchGroup,
    AttrCheck,
    DtypeGroup,
    KindView,
    L0Attr,
    OpViews,
    ParamRow,
    ProductSupportRow,
    SignatureParam,
    StatusRow,
    TensorCheck,
    TilingField,
    TilingFieldRow,
    UtInferCase,
    UtTensor,
    arch_condition,
    arch_groups,
    common_view,
    dtype_groups,
    format_rule_text,
    l0_constant_attr,
    null_pointer_attrs,
    op_views,
    ops_nn_view,
    spec_products,
    status_row,
    tiling_field_views,
    ut_attr_value,
    ut_case_name,
    ut_device_attrs,
    ut_device_inputs,
    ut_infer_case,
    ut_tensor,
    ut_tiling_view,
)
from codegen.plan.constraints import ConstraintChecks, constraint_doc_lines, constraint_view
from codegen.spec.errors import SpecError, SpecErrors
from codegen.spec.expr import Call, Name, to_cpp
from codegen.spec.expr import to_source as unparse
from codegen.spec.model import Catalogue, DType, OpSpec, Product, TensorSpec
from codegen.types import ATTR_TYPE_INFO, DEVICE_ATTR_TYPE_INFO, AclnnStatus
from codegen.types import compute_dtypes as shared_compute_dtypes

__all__ = ["build_views", "validate"]

BLOCK_BYTES = 32
REPEAT_BYTES = 256
FP32_BYTES = 4

#: The tiling struct before the host-scalar fields (one ``float`` per host scalar follows), in order; the
#: tiling header, the tiling function and :meth:`TilingDecision.tiling_fields` follow it.
TILING_FIELDS: tuple[TilingField, ...] = (
    TilingField("totalLength", "int64_t", "elements of {output}", "totalLength"),
    TilingField("formerNum", "int64_t", "cores that take one extra 32-byte block", "formerNum"),
    TilingField("formerLength", "int64_t", "elements per former core", "(blocksPerCore + 1) * blockElems"),
    TilingField(
        "tailLength", "int64_t", "elements per other core (the last one is clipped)", "blocksPerCore * blockElems"
    ),
    TilingField("tileLength", "int64_t", "elements per UB tile", "tileLength"),
    TilingField("inBufferNum", "int32_t", "buffers per input queue", "static_cast<int32_t>(inBufferNum)"),
    TilingField("outBufferNum", "int32_t", "buffers per output queue", "static_cast<int32_t>(outBufferNum)"),
)


#: NpuArchs whose vector unit reduces half only (the Atlas training series, NpuArch 1001: asc-devkit docs
#: api/SIMD-API ReduceSum / WholeReduceSum, emulated in runtime/include/opgen_rt/device/reduce.h): there the
#: reduce epilogue sums a tile by halving it with ``Add`` down to 64 elements and adds those on the scalar unit.
NO_FP32_REDUCE_ARCHS: tuple[int, ...] = (1001,)
#: Bytes of one core's partial in the workspace: one 32-byte block per core, so no two cores share a block.
PARTIAL_SLOT_BYTES = 32
#: fp32 buffers of a tile's length a reduce epilogue holds: the accumulator each tile's formula values are
#: added into (``Add``, no wait for the scalar unit per tile) and ReduceSum's work buffer for the one sum of
#: the accumulator at the end of the core's tiles.
REDUCE_FP32_BUFFERS = 2
#: ``reduceKind`` tiling field values (the kernel's encoding; the attr values come from the spec).
REDUCE_KIND_NONE, REDUCE_KIND_SUM, REDUCE_KIND_MEAN = 0, 1, 2


def reduce_of(spec: OpSpec) -> ReduceEpilogue | None:
    """The spec's whole-tensor reduction epilogue (``compute.reduce``), or None."""
    compute = spec.compute
    return compute.reduce if isinstance(compute, ElementwiseCompute) else None


def reduce_kind(spec: OpSpec, attrs: Mapping[str, Any]) -> int:
    """The ``reduceKind`` of a call with attr values ``attrs`` (missing: the attr's default):
    :data:`REDUCE_KIND_SUM` / :data:`REDUCE_KIND_MEAN` for the epilogue's sum / mean values, else
    :data:`REDUCE_KIND_NONE` (also for a spec without an epilogue)."""
    red = reduce_of(spec)
    if red is None:
        return REDUCE_KIND_NONE
    value = attrs.get(red.attr, spec.attr(red.attr).default)
    return {red.sum: REDUCE_KIND_SUM, red.mean: REDUCE_KIND_MEAN}.get(value, REDUCE_KIND_NONE)


@dataclass(frozen=True)
class ReduceView:
    """The reduce epilogue in the templates: the aclnn ``attr`` and its ``none``/``mean``/``sum`` values,
    ``device_index`` of the device attr carrying it and ``none_text`` (its string for ``none``, when the
    device attr is a string; else ""), ``mean_text`` / ``sum_text`` (the names the attr's ``values`` give the
    mean and sum values, for messages), ``no_sync_condition`` (the NpuArchs without hardware SyncAll: one core
    reduces everything), ``no_fp32_reduce_condition`` (NpuArchs whose ReduceSum takes half only)."""

    attr: str
    none: int
    mean: int
    sum: int
    device_index: int
    device_name: str
    none_text: str
    mean_text: str
    sum_text: str
    no_sync_condition: str
    no_fp32_reduce_condition: str
    no_sync_archs: tuple[int, ...]
    fp32_buffers: int = 0  # REDUCE_FP32_BUFFERS


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
    reduce_kind: int | None = None  # None: no reduce epilogue; else REDUCE_KIND_*

    def tiling_fields(self) -> dict[str, int]:
        """The values of the generated tiling struct's :data:`TILING_FIELDS`, by field name (the host-scalar
        fields are not included)."""
        return {
            "totalLength": self.total_length,
            "formerNum": self.former_num,
            "formerLength": self.former_length,
            "tailLength": self.tail_length,
            "tileLength": self.tile_length,
            "inBufferNum": self.in_buffer_num,
            "outBufferNum": self.out_buffer_num,
            **({"reduceKind": self.reduce_kind} if self.reduce_kind is not None else {}),
        }


@dataclass(frozen=True)
class Variant:
    """One compiled program set: ``index`` (bit ``k`` set: optional input ``k`` is null), the inputs
    ``present`` in the call (spec order), the ``absent`` ones and the compiled ``formula``."""

    index: int
    present: tuple[str, ...]
    absent: tuple[str, ...]
    formula: CompiledFormula


def _compute(spec: OpSpec) -> ElementwiseCompute:
    if not isinstance(spec.compute, ElementwiseCompute):
        raise TypeError(f"{spec.op} is not an elementwise op (family {spec.family})")
    return spec.compute


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
    compute = _compute(spec)
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


def _dtype_input(spec: OpSpec) -> TensorSpec:
    """The input whose dtype selects the kernel: the first required one."""
    return next(t for t in spec.inputs if not t.optional)


def buffer_nums(spec: OpSpec, product: Product, num_inputs: int | None = None) -> tuple[int, int]:
    """``(inBufferNum, outBufferNum)`` on ``product``: the spec's depth, capped by the product's queue cap.

    ``num_inputs`` is the number of inputs present in the call (default: all of the spec's inputs).
    """
    n_in = len(spec.inputs) if num_inputs is None else num_inputs
    n_out = len(spec.outputs)
    depth = spec.tiling.buffer_num
    return (
        max(1, min(depth, product.queue_buffer_cap // n_in)),
        max(1, min(depth, product.queue_buffer_cap // n_out)),
    )


def program_for(compiled: CompiledFormula, dtype: DType) -> Program:
    """The fp32 program for FLOAT, the cast program for 16-bit float dtypes."""
    return compiled.fp32 if dtype is DType.FLOAT else compiled.cast16


def tiling_decision(
    spec: OpSpec,
    product: Product,
    shape: tuple[int, ...],
    dtype: DType,
    absent: Collection[str] = (),
    attrs: Mapping[str, Any] | None = None,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for an output of ``shape`` and compute ``dtype``, with the
    optional inputs named in ``absent`` null.

    With a reduce epilogue ``shape`` is the broadcast shape of the inputs (the elements summed) and
    ``attrs`` the call's attr values (missing: defaults), which select the reduction: for mean/sum each
    core's partial takes a :data:`PARTIAL_SLOT_BYTES` slot of the workspace after the system workspace, and a
    product without hardware SyncAll runs one core (no barrier needed). Every tile of a reduce op also
    budgets :data:`REDUCE_FP32_BUFFERS` fp32 values per element (the accumulator and the work buffer) and a
    32-byte result block (whatever the reduction).

    Mirrors the generated C++ tiling function; ``tests/test_explain.py`` compares the two.

    Raises:
        ValueError: ``dtype`` is not a compute dtype of the spec, ``absent`` names a tensor that is not an
            optional input, or UB cannot hold one repeat.
    """
    variants = compile_all(spec)
    optional = [t.name for t in optional_inputs(spec)]
    unknown = set(absent) - set(optional)
    if unknown:
        raise ValueError(f"{spec.op}: {', '.join(sorted(unknown))} is not an optional input")
    variant = variants[sum(1 << k for k, name in enumerate(optional) if name in absent)]
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
    red = reduce_of(spec)
    kind = reduce_kind(spec, attrs or {}) if red is not None else None
    if kind and not product.hw_sync_all:
        cores = 1
    per_core, former = divmod(blocks, cores)
    n_in, n_out = len(variant.present), len(spec.outputs)
    in_num, out_num = buffer_nums(spec, product, n_in)
    prog = program_for(variant.formula, dtype)
    temps = prog.budget_temps + (REDUCE_FP32_BUFFERS if red is not None else 0)
    bpe = (n_in * in_num + n_out * out_num) * item + temps * FP32_BYTES
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - (BLOCK_BYTES if red is not None else 0)
    repeat = REPEAT_BYTES // FP32_BYTES
    tile = budget // bpe // repeat * repeat
    if tile <= 0:
        raise ValueError(f"UB of {product.name} ({budget} bytes) cannot hold one repeat of {spec.op}")
    former_len = (per_core + 1) * block_elems
    tail_len = per_core * block_elems
    longest = former_len if former else tail_len
    longest = min(longest, total)
    split: tuple[tuple[str, int, int], ...] = (
        ("input queues", n_in * in_num, tile * item),
        ("output queues", n_out * out_num, tile * item),
        ("fp32 temporaries", prog.temps, tile * FP32_BYTES),
    )
    if prog.masks:
        # budgeted as one fp32 temporary per started 32 masks (Program.budget_temps)
        split += (("uint8_t bit masks", prog.masks, tile // 8),)
    if red is not None:
        split += (
            ("fp32 reduce accumulator", 1, tile * FP32_BYTES),
            ("fp32 reduce work buffer", 1, tile * FP32_BYTES),
            ("fp32 tile sum block", 1, BLOCK_BYTES),
        )
    return TilingDecision(
        product=product.name,
        dtype=dtype.name,
        tiling_key=keys.index(dtype) + len(keys) * variant.index,
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
        ub_used_bytes=tile * bpe + (BLOCK_BYTES if red is not None else 0),
        tiles_per_core_max=-(-longest // tile) if longest else 0,
        workspace_bytes=product.sys_workspace_bytes + (cores * PARTIAL_SLOT_BYTES if kind else 0),
        ub_split=split,
        reduce_kind=kind,
    )


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


@dataclass(frozen=True)
class ProgramView:
    """A compiled formula program as the kernel prints it: its C++ ``lines``, fp32 ``temps`` and ``masks``
    buffers it uses, its instructions' ops (``ops``, comma-separated, for the docs) and ``result``, the fp32
    buffer holding the formula's value before the output rounding (``outLocal`` of the fp32 program, the
    source of the final ``Cast`` of a 16-bit one), which a reduce epilogue sums."""

    lines: tuple[str, ...]
    temps: int
    masks: int
    ops: str
    result: str = "outLocal"


@dataclass(frozen=True)
class VariantView:
    """A formula variant (a combination of absent optional inputs): its ``index``, the ``absent`` and
    ``present`` inputs, and its fp32 and 16-bit (``cast16``) programs."""

    index: int
    absent: str
    present: tuple[str, ...]
    fp32: ProgramView
    cast16: ProgramView


def _programs_view(prog: Program) -> ProgramView:
    last = prog.instructions[-1]
    return ProgramView(
        result=last.srcs[0] if prog.cast_inputs and last.op == "Cast" and last.dst == "outLocal" else "outLocal",
        lines=tuple(_instruction_cpp(i) for i in prog.instructions),
        temps=prog.temps,
        masks=prog.masks,
        ops=", ".join(i.op for i in prog.instructions),
    )


def shape_rule(spec: OpSpec) -> tuple[str, list[str]]:
    """How the output's shape follows from the inputs: ``("broadcast", args)`` for ``broadcast(a, b, ...)``
    (the output has the broadcast shape of the arguments present in the call), or ``("like", [x])`` for a
    bare input name (the output has the shape of ``x`` and every other input broadcasts to it)."""
    shape = spec.outputs[0].shape
    if isinstance(shape, Name):
        return "like", [shape.id]
    if isinstance(shape, Call) and shape.func == "broadcast":
        return "broadcast", [a.id for a in shape.args if isinstance(a, Name)]
    return "broadcast", [t.name for t in spec.inputs]


@dataclass(frozen=True)
class ShapeStep:
    """An input the L2 shape check broadcasts in, and whether it may be null."""

    name: str
    optional: bool


@dataclass(frozen=True)
class ShapeCheck:
    """The L2 shape check (see :func:`shape_rule`): ``kind`` (``like``/``broadcast``), ``steps``, the docs'
    ``text``; ``like``: the ``anchor`` input; ``broadcast``: the ``first`` required argument, and the error
    message's ``message`` (argument names), printf ``fmt`` and C++ ``args`` (empty for the other kind)."""

    kind: str
    steps: tuple[ShapeStep, ...]
    text: str
    anchor: str = ""
    first: str = ""
    message: str = ""
    fmt: str = ""
    args: str = ""


def _shape_view(spec: OpSpec) -> ShapeCheck:
    """The C++ pieces of the shape check (see :func:`shape_rule`), with null-safe handling of optional inputs."""
    optional = {t.name for t in spec.inputs if t.optional}
    kind, args = shape_rule(spec)
    if kind == "like":
        anchor = args[0]
        others = [t.name for t in spec.inputs if t.name != anchor]
        return ShapeCheck(
            kind=kind,
            anchor=anchor,
            steps=tuple(ShapeStep(n, n in optional) for n in others),
            text=f"{', '.join(others)} broadcast to the shape of {anchor}; "
            f"{spec.outputs[0].name} has the shape of {anchor}.",
        )
    first = next(n for n in args if n not in optional)
    shown = [
        f'({n} == nullptr ? "null" : ToString({n}->GetViewShape()).GetString())'
        if n in optional
        else f"ToString({n}->GetViewShape()).GetString()"
        for n in args
    ]
    return ShapeCheck(
        kind=kind,
        first=first,
        steps=tuple(ShapeStep(n, n in optional) for n in args if n != first),
        message=", ".join(args),
        fmt=", ".join(f"{n} %s" for n in args),
        args=", ".join(shown),
        text=f"{', '.join(args)} broadcast together (NumPy rules); {spec.outputs[0].name} has the broadcast shape.",
    )


def _promote_expr(spec: OpSpec) -> str:
    """C++ of the common dtype of the promoted inputs (null optional inputs take no part)."""
    optional = {t.name for t in spec.inputs if t.optional}
    promote = list(_compute(spec).promote) or [_dtype_input(spec).name]
    required = [n for n in promote if n not in optional]
    expr = f"{required[-1]}->GetDataType()"
    for name in reversed(promote):
        if name == required[-1]:
            continue
        step = f"op::PromoteType({name}->GetDataType(), {expr})"
        expr = f"({name} == nullptr ? {expr} : {step})" if name in optional else step
    return expr


def check_ub(spec: OpSpec, catalogue: Catalogue, products: list[Product]) -> None:
    """Raises when a product's UB cannot hold one repeat of every live buffer of ``spec`` (for any compute
    dtype and any optional-input combination): the generated tiling function would fail on it.

    Raises:
        SpecErrors: one error per such product, at its catalogue entry (``products[i].ub_bytes``), naming
            the op and the bytes it needs.
    """
    errors: list[SpecError] = []
    repeat = REPEAT_BYTES // FP32_BYTES
    for p in products:
        need = 0
        for v in compile_all(spec):
            n_in, n_out = len(v.present), len(spec.outputs)
            in_num, out_num = buffer_nums(spec, p, n_in)
            for dt in compute_dtypes(spec):
                temps = program_for(v.formula, dt).budget_temps
                bpe = (n_in * in_num + n_out * out_num) * dt.itemsize + temps * FP32_BYTES
                need = max(need, bpe * repeat + spec.tiling.ub_reserved_bytes)
        if p.ub_bytes < need:
            index = catalogue.names.index(p.name) if p.name in catalogue.names else 0
            errors.append(
                SpecError(
                    p.loc,
                    f"products[{index}].ub_bytes",
                    f"UB of {p.name} ({p.ub_bytes} bytes) cannot hold one repeat ({repeat} elements) of every "
                    f"buffer of {spec.op} ({spec.path}): it needs at least {need} bytes "
                    f"(ub_reserved_bytes {spec.tiling.ub_reserved_bytes} included); raise ub_bytes or drop "
                    f"{p.name} from the op's products",
                )
            )
    if errors:
        raise SpecErrors(errors)


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation of ``spec`` on its products, before any view is built: the formula compiles
    (:func:`compile_all`) and every product's UB holds one repeat of every buffer (:func:`check_ub`).

    Raises:
        SpecErrors: a product's UB is too small (at its catalogue entry).
        codegen.spec.errors.SpecError: the formula has no vector-instruction lowering.
    """
    compile_all(spec)
    check_ub(spec, catalogue, spec_products(spec, catalogue))


@dataclass(frozen=True)
class ValueText:
    """A listed attr value: its integer ``value`` and its name ``text``."""

    value: int
    text: str


@dataclass(frozen=True)
class InputView:
    """An aclnn input as the kernel, tiling and L2 templates see it: ``name``, ``optional``, its ``bit`` in
    the variant number (0 for a required input), its ``index`` in the OpDef, its ``default`` (optional
    inputs)."""

    name: str
    optional: bool
    bit: int
    index: int
    default: float | None


@dataclass(frozen=True)
class L0Input:
    """A device input of the L0 call: device ``name`` and the aclnn ``source`` tensor."""

    name: str
    source: str


@dataclass(frozen=True)
class StringAttr:
    """A string device attr: the aclnn attr ``name``, the L2 helper ``func`` naming its value, the aclnn
    ``c_type``, and its listed ``values``."""

    name: str
    func: str
    c_type: str
    values: tuple[ValueText, ...]


@dataclass(frozen=True)
class TilingAttr:
    """A device attr the tiling function reads: aclnn ``name``, ``device_name``, OpDef ``index``, tiling
    ``c_type``, and a string attr's listed values (``string_values``, empty otherwise)."""

    name: str
    device_name: str
    index: int
    c_type: str
    string_values: tuple[ValueText, ...]
    #: a ``list_int`` device attr: read with ``GetListInt``, the one element the L0 API sent
    is_list: bool


@dataclass(frozen=True)
class L0ListAttr:
    """A ``list_int`` device attr of the L0 API: the L0 parameter ``name`` (the integer) and the
    ``aclIntArray *`` variable ``var`` holding the one-element list it launches with (``AllocIntArray``)."""

    name: str
    var: str


@dataclass(frozen=True)
class TilingKey:
    """A tiling key: ``key`` (``dtypeIndex + numDtypes * variant``), the compute ``dtype`` (``ge_name``,
    ``kernel_type``, ``elem_bytes``), fp32 ``temps`` of its UB budget, the inputs present (``num_inputs``),
    the ``variant``, the ``absent`` inputs (``-``: none) and its preprocessor ``guard`` ("")."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    elem_bytes: int
    temps: int
    num_inputs: int
    variant: int
    absent: str
    guard: str


@dataclass(frozen=True)
class HostScalar:
    """A host-computed scalar of the formula: its tiling ``field``, C++ value ``cpp`` and formula ``text``."""

    field: str
    cpp: str
    text: str


@dataclass(frozen=True)
class ScalarDef:
    """A named scalar of the compute section: ``name`` and its formula ``text`` (docs)."""

    name: str
    text: str


@dataclass(frozen=True)
class InferInput:
    """An input the InferShape function reads: OpDef ``index``, aclnn ``name``, ``device_name``,
    ``optional``."""

    index: int
    name: str
    device_name: str
    optional: bool


@dataclass(frozen=True)
class InferRule:
    """The InferShape rule: ``kind`` (``like``/``broadcast``), its ``inputs``, and the OpDef index of the
    input whose dtype the output takes (``dtype_index``)."""

    kind: str
    inputs: tuple[InferInput, ...]
    dtype_index: int


@dataclass(frozen=True)
class QueueCap:
    """A product's queue buffers per position (``cap``) and the NpuArchs that have it."""

    cap: int
    archs: tuple[ArchGroup, ...]


@dataclass(frozen=True)
class AclnnSourceView(KindView):
    """``op_api/aclnn_<op>.cpp`` (``op_api/elementwise_aclnn.cpp.j2``): parameter checks and the L2 plan."""

    KIND: ClassVar[str] = "op_api_cpp"
    attr_checks: tuple[AttrCheck, ...]
    checks: ConstraintChecks
    dfx_in: str
    files: Mapping[str, str]
    inputs: tuple[InputView, ...]
    l0_attrs: tuple[L0Attr, ...]
    max_rank: int
    output: str
    promote_expr: str
    shape: ShapeCheck
    signature: tuple[SignatureParam, ...]
    string_attrs: tuple[StringAttr, ...]
    tensor_groups: Mapping[str, tuple[DtypeGroup, ...]]
    tensors: tuple[TensorCheck, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class L0SourceView(KindView):
    """``op_api/<kernel>.cpp`` (``op_api/elementwise_l0.cpp.j2``): the L0 wrapper launching the device op."""

    KIND: ClassVar[str] = "l0_cpp"
    dtype_input_name: str
    files: Mapping[str, str]
    inputs: tuple[InputView, ...]
    l0_attrs: tuple[L0Attr, ...]
    l0_inputs: tuple[L0Input, ...]
    #: the OP_ATTR arguments (OpDef order): an attr's name, or the list variable of a ``list_int`` attr
    l0_launch_attrs: tuple[str, ...]
    l0_lists: tuple[L0ListAttr, ...]
    l0_output: str
    l0_params: tuple[str, ...]
    optional_inputs: tuple[str, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class InferShapeView(KindView):
    """``op_host/<kernel>_infershape.cpp``: the output shape rule (``infer``) and the output's dtype."""

    KIND: ClassVar[str] = "infershape_cpp"
    device_name_of: Mapping[str, str]
    dtype_input_name: str
    infer: InferRule
    l0_output: str
    reduce: ReduceView | None


@dataclass(frozen=True)
class TilingSourceView(KindView):
    """``op_host/<kernel>_tiling.cpp`` (``op_host/elementwise_tiling.cpp.j2``): the tiling function."""

    KIND: ClassVar[str] = "tiling_cpp"
    attrs: tuple[TilingAttr, ...]
    block_bytes: int
    dtype_input: int
    files: Mapping[str, str]
    has_variants: bool
    inputs: tuple[InputView, ...]
    num_dtypes: int
    num_outputs: int
    optional_inputs: tuple[str, ...]
    queue_caps: tuple[QueueCap, ...]
    repeat_bytes: int
    tiling_fields: tuple[TilingFieldRow, ...]
    tiling_keys: tuple[TilingKey, ...]
    tiling_type: str
    uses_cmath: bool
    uses_string_attrs: bool
    reduce: ReduceView | None


@dataclass(frozen=True)
class KernelView(KindView):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/elementwise_kernel.cpp.j2``): the compiled formula programs."""

    KIND: ClassVar[str] = "kernel_cpp"
    block_bytes: int
    device_name_of: Mapping[str, str]
    formula: str
    formula_text: str
    has_variants: bool
    inputs: tuple[InputView, ...]
    kernel_class: str
    l0_inputs: tuple[L0Input, ...]
    l0_output: str
    max_masks: int
    max_temps: int
    no_pad_condition: str
    optional_inputs: tuple[str, ...]
    output: str
    scalars: tuple[HostScalar, ...]
    tiling_keys: tuple[TilingKey, ...]
    #: device inputs the kernel takes but does not read (a second carrier of an aclnn input, or one no aclnn
    #: input feeds)
    unread_device_inputs: tuple[str, ...]
    variants: tuple[VariantView, ...]
    reduce: ReduceView | None


@dataclass(frozen=True)
class DocView(KindView):
    """``docs/<aclnn>.md`` (``docs/elementwise_aclnn.md.j2``): the API documentation."""

    KIND: ClassVar[str] = "doc_md"
    constraint_lines: tuple[str, ...]
    example_lines: tuple[str, ...]
    files: Mapping[str, str]
    formula: str
    formula_text: str
    output: str
    param_rows: tuple[ParamRow, ...]
    product_support: tuple[ProductSupportRow, ...]
    programs: VariantView
    scalar_defs: tuple[ScalarDef, ...]
    signature: tuple[SignatureParam, ...]
    status_rows: tuple[StatusRow, ...]
    tiling_lines: tuple[str, ...]


#: The views of the elementwise templates (every other kind renders the shared view).
VIEWS: dict[str, type[KindView]] = {
    c.KIND: c for c in (AclnnSourceView, L0SourceView, InferShapeView, TilingSourceView, KernelView, DocView)
}


def build_views(spec: OpSpec, catalogue: Catalogue) -> OpViews:
    """Every template view of an elementwise op (:data:`VIEWS` and the shared ones); :func:`validate` has
    passed."""
    return op_views(spec, catalogue, _view_parts(spec, catalogue), VIEWS)


def _view_parts(spec: OpSpec, catalogue: Catalogue) -> dict[str, Any]:
    """The view entries of an elementwise op by name (see :func:`codegen.plan.common.common_view`)."""
    view = common_view(spec, catalogue)
    products: list[Product] = view["products"]
    variants = compile_all(spec)
    compiled = variants[0].formula
    keys = compute_dtypes(spec)
    no_bf16 = arch_condition(products, "bf16")
    optional = optional_inputs(spec)
    tiling_keys: list[TilingKey] = []
    for v in variants:
        for index, dt in enumerate(keys):
            prog = program_for(v.formula, dt)
            tiling_keys.append(
                TilingKey(
                    key=index + len(keys) * v.index,
                    dtype=dt.name,
                    ge_name=dt.ge_name,
                    kernel_type=dt.kernel_type,
                    elem_bytes=dt.itemsize,
                    temps=prog.budget_temps,
                    num_inputs=len(v.present),
                    variant=v.index,
                    absent=", ".join(v.absent) or "-",
                    guard=no_bf16 if dt is DType.BF16 and no_bf16 != "0" else "",
                )
            )
    variant_views = [
        VariantView(
            index=v.index,
            absent=", ".join(v.absent),
            present=tuple(v.present),
            fp32=_programs_view(v.formula.fp32),
            cast16=_programs_view(v.formula.cast16),
        )
        for v in variants
    ]
    dev = spec.device_interface
    dev_input_index = {t.name: dev.input_index(t.name) for t in spec.inputs}
    inputs = [
        InputView(
            name=t.name,
            optional=t.optional,
            bit=1 << optional.index(t) if t.optional else 0,
            index=dev_input_index[t.name],
            default=t.default,
        )
        for t in spec.inputs
    ]
    caps: dict[int, list[ArchGroup]] = {}
    for group in arch_groups(products):
        cap = next(p.queue_buffer_cap for p in products if p.npu_arch == group.arch)
        caps.setdefault(cap, []).append(group)
    queue_caps = [QueueCap(cap, tuple(archs)) for cap, archs in caps.items()]
    scalars = [HostScalar(hs.field_name, _scalar_cpp(spec, hs.expr), unparse(hs.expr)) for hs in compiled.scalars]
    attrs: list[TilingAttr] = []
    for i, da in enumerate(dev.attrs):
        if da.source is None:  # a constant the formula cannot name; the kernel does not read it
            continue
        a = spec.attr(da.source)
        attrs.append(
            TilingAttr(
                name=a.name,
                device_name=da.name,
                index=i,
                c_type=ATTR_TYPE_INFO[a.type].tiling_type,
                string_values=tuple(ValueText(v, n) for v, n in (a.values or ())) if da.type == "string" else (),
                is_list=DEVICE_ATTR_TYPE_INFO[da.type].is_list,
            )
        )
    output = spec.outputs[0]
    shape = _shape_view(spec)
    checks = constraint_view(spec, catalogue)
    (_, formula), *_ = _compute(spec).outputs
    out_rule = "the broadcast shape" if shape.kind == "broadcast" else f"the shape of {shape.anchor}"
    epilogue = reduce_of(spec)
    if epilogue is not None:
        out_rule += f" for {epilogue.attr} {epilogue.none} (none) or not 0-d for the others"
    status_rows = [
        status_row(AclnnStatus.ACLNN_SUCCESS, "Success."),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_NULLPTR,
            f"{', '.join(['A required tensor', *null_pointer_attrs(spec), 'workspaceSize'])} or executor is null.",
        ),
        status_row(
            AclnnStatus.ACLNN_ERR_PARAM_INVALID,
            "A dtype not supported on this product, a rank above "
            f"{view['max_rank']}, an attribute value outside its list, shapes that do not broadcast, "
            f"{output.name} not of {out_rule}, "
            f"or {format_rule_text(spec)}" + ("; a limit under Constraints." if spec.constraints else "."),
        ),
        status_row(AclnnStatus.ACLNN_ERR_INNER_TILING_ERROR, "The tiling function failed."),
    ]
    tiling_lines = [
        f"Each core streams its range through UB in tiles; a tile needs, per element, one slot in each "
        f"input and output queue buffer plus the formula's fp32 temporaries "
        f"(FLOAT: {compiled.fp32.temps}, 16-bit: {compiled.cast16.temps}).",
        f"Queue depth {spec.tiling.buffer_num} (double buffering), capped per product by its queue buffers "
        "per position (selected by NpuArch).",
        f"Elements are split over cores in 32-byte blocks on one core per {spec.tiling.min_bytes_per_core} bytes "
        f"of output started (ceil(bytes / {spec.tiling.min_bytes_per_core}) cores, at most the product's vector "
        "cores and the number of blocks); the first `blocks % cores` cores take one block more.",
    ]
    if optional:
        tiling_lines.append(
            "A null optional input (" + ", ".join(t.name for t in optional) + ") selects a program compiled with its "
            "default in its place: the kernel neither reads nor buffers it (tiling key + "
            f"{len(keys)} per absent combination)."
        )
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
    constraint_lines = [
        shape.text,
        *(f"`{t.name}` may be null: every element is then {t.default:g}." for t in optional),
        "Empty tensors succeed and produce an empty output.",
        "Deterministic: every element is computed once.",
        *(f"Limit `{c.name}`: {line}" for c, line in zip(spec.constraints, constraint_doc_lines(spec, catalogue))),
    ]
    l0_inputs = [L0Input(d.name, d.source or "nullptr") for d in dev.inputs]
    l0_attrs: list[L0Attr] = []
    l0_lists: list[L0ListAttr] = []
    for da in dev.attrs:
        if da.source is None:
            l0_attrs.append(l0_constant_attr(da))
            continue
        a = spec.attr(da.source)
        if da.type == "string":
            suffix = "Value" if a.type == "string" else ""  # a char * attr's index, computed in phase 1
            l0_attrs.append(
                L0Attr(
                    name=da.name,
                    decl=f"const std::string &{da.name}",
                    arg=f"{a.name[:1].upper()}{a.name[1:]}ValueName({a.name}{suffix})",
                )
            )
        elif DEVICE_ATTR_TYPE_INFO[da.type].is_list:  # the L0 API sends the integer as the list {value}
            l0_attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[a.type].c_type} {da.name}", a.name))
            l0_lists.append(L0ListAttr(da.name, f"{da.name}List"))
        else:
            arg = f"static_cast<float>({a.name}Value)" if a.type == "scalar" else a.name
            l0_attrs.append(L0Attr(da.name, f"{ATTR_TYPE_INFO[a.type].c_type} {da.name}", arg))
    string_attrs = [
        StringAttr(
            name=a.name,
            func=f"{a.name[:1].upper()}{a.name[1:]}ValueName",
            c_type=ATTR_TYPE_INFO[a.type].c_type,
            values=tuple(ValueText(v, n) for v, n in (a.values or ())),
        )
        for a in (spec.attr(da.source) for da in dev.attrs if da.type == "string" and da.source is not None)
    ]
    view.update(
        {
            "l0_inputs": l0_inputs,
            "l0_attrs": l0_attrs,
            "l0_lists": l0_lists,
            "l0_launch_attrs": [next((x.var for x in l0_lists if x.name == a.name), a.name) for a in l0_attrs],
            # L0 parameters in aclnn order (as CANN's L0 APIs take them); the launch is in device order
            "l0_params": [*(f"const aclTensor *{t.name}" for t in spec.inputs), *(a.decl for a in l0_attrs)],
            "l0_output": dev.outputs[0].name,
            "device_name_of": {t.name: dev.inputs[dev.input_index(t.name)].name for t in spec.inputs},
            # device inputs the kernel does not read: a second carrier of an aclnn input, or one with no source
            "unread_device_inputs": tuple(
                d.name for i, d in enumerate(dev.inputs) if d.source is None or dev.input_index(d.source) != i
            ),
            "string_attrs": string_attrs,
            "queue_caps": queue_caps,
            "tensor_groups": {t.name: dtype_groups(t, products) for t in [*spec.inputs, *spec.outputs]},
            "tiling_keys": tiling_keys,
            "num_dtypes": len(keys),
            "dtype_input": dev_input_index[_dtype_input(spec).name],
            "dtype_input_name": _dtype_input(spec).name,
            "dtype_input_device_name": next(d.name for d in dev.inputs if d.source == _dtype_input(spec).name),
            "variants": variant_views,
            "has_variants": len(variants) > 1,
            "programs": variant_views[0],
            "max_temps": max(max(v.formula.fp32.temps, v.formula.cast16.temps) for v in variants),
            "max_masks": max(max(v.formula.fp32.masks, v.formula.cast16.masks) for v in variants),
            "scalars": scalars,
            "tiling_fields": [
                *tiling_field_views(TILING_FIELDS, output=output.name),
                *(
                    TilingFieldRow(
                        name=sc.field,
                        c_type="float",
                        comment=sc.text,
                        value=f"static_cast<float>({sc.cpp})",
                        set_comment=sc.text,
                    )
                    for sc in scalars
                ),
            ],
            # std::exp, std::log, std::abs... of host scalars (a default of an optional input folds into them)
            "uses_cmath": any("std::" in sc.cpp for sc in scalars),
            "scalar_defs": [ScalarDef(n, unparse(e)) for n, e in _compute(spec).scalars],
            "attrs": attrs,
            "no_pad_condition": arch_condition(products, "data_copy_pad"),
            "inputs": inputs,
            "uses_string_attrs": any(a.string_values for a in attrs),
            "optional_inputs": [t.name for t in inputs if t.optional],
            "output": output.name,
            "num_outputs": len(spec.outputs),
            "block_bytes": BLOCK_BYTES,
            "repeat_bytes": REPEAT_BYTES,
            "formula": unparse(compiled.lowered),
            "formula_text": unparse(formula),
            "shape": shape,
            "promote_expr": _promote_expr(spec),
            "dfx_in": ", ".join([*(t.name for t in spec.inputs), *(a.name for a in spec.attrs)]),
            "checks": checks,
            "status_rows": status_rows,
            "constraint_lines": constraint_lines,
            "tiling_lines": tiling_lines,
            "example_lines": example_lines,
        }
    )
    red = reduce_of(spec)
    reduce_view = None
    if red is not None:
        device_index = next(i for i, da in enumerate(dev.attrs) if da.source == red.attr)
        names = dict(spec.attr(red.attr).values or ())
        reduce_view = ReduceView(
            attr=red.attr,
            none=red.none,
            mean=red.mean,
            sum=red.sum,
            device_index=device_index,
            device_name=dev.attrs[device_index].name,
            none_text=names[red.none] if dev.attrs[device_index].type == "string" else "",
            mean_text=names[red.mean],
            sum_text=names[red.sum],
            no_sync_condition=arch_condition(products, "hw_sync_all"),
            no_fp32_reduce_condition=" || ".join(
                f"__NPU_ARCH__ == {a}" for a in sorted({p.npu_arch for p in products} & set(NO_FP32_REDUCE_ARCHS))
            )
            or "0",
            no_sync_archs=tuple(sorted({p.npu_arch for p in products if not p.hw_sync_all})),
            fp32_buffers=REDUCE_FP32_BUFFERS,
        )
        view["tiling_fields"] = [
            *view["tiling_fields"],
            TilingFieldRow(
                name="reduceKind",
                c_type="int32_t",
                comment=f"0: elementwise output ({red.attr} {red.none}); 1: sum ({red.sum}); 2: mean ({red.mean})",
                value="static_cast<int32_t>(reduceKind)",
                set_comment="the reduction the call asks for",
            ),
        ]
        rewritten = {
            "Empty tensors": (
                f"Empty tensors succeed: {red.attr} {red.none} gives an empty output, {red.sum} (sum) gives 0 and "
                f"{red.mean} (mean) NaN."
            ),
            "Deterministic": (
                f"Deterministic: {red.attr} {red.none} computes every element once; {red.sum} (sum) and "
                f"{red.mean} (mean) add the fp32 values in a fixed order (tiles in order per core, core 0 adds "
                "the per-core partials in core order after SyncAll), so the result is bit-identical over runs."
            ),
        }
        view["constraint_lines"] = [
            *(next((v for k, v in rewritten.items() if c.startswith(k)), c) for c in view["constraint_lines"]),
            f"`{output.name}` is 0-d for {red.attr} {red.mean} (mean) and {red.sum} (sum); for {red.none} (none) "
            "it has the shape above.",
        ]
        view["tiling_lines"] = [
            *view["tiling_lines"],
            f"{red.attr} {red.mean} / {red.sum}: every tile's fp32 values are summed (ReduceSum; on NpuArch "
            f"{', '.join(map(str, NO_FP32_REDUCE_ARCHS))} Add halving and scalar adds) into a per-core partial in a "
            f"{PARTIAL_SLOT_BYTES}-byte workspace slot per core (the user workspace); after SyncAll core 0 adds "
            "the partials in core order. Products without hardware SyncAll run the reduction on one core.",
        ]
    view["reduce"] = reduce_view
    kind, rule_args = shape_rule(spec)
    shape_inputs = [rule_args[0]] if kind == "like" else list(rule_args)
    view["infer"] = InferRule(
        kind=kind,
        inputs=tuple(
            InferInput(dev_input_index[n], n, view["device_name_of"][n], spec.tensor(n).optional) for n in shape_inputs
        ),
        dtype_index=dev_input_index[_dtype_input(spec).name],
    )
    view.update(ops_nn_view(spec, products, view["opdef"]))
    view.update(ut_tiling_view(spec, ut_tiling_cases(spec, products), ut_infer_cases(spec)))
    return view


#: Output shapes of the op_host unit test: a few elements (one core), a row-major block that splits unevenly
#: over the cores, and 2^24 elements (every core, many tiles).
UT_SHAPES: tuple[tuple[int, ...], ...] = ((2, 3), (96, 1023), (1 << 24,))


def ut_tiling_cases(spec: OpSpec, products: list[Product]) -> list[dict[str, Any]]:
    """The op_host unit-test cases of an elementwise op (see :func:`codegen.plan.common.ut_tiling_view`):
    on each product, each shape of :data:`UT_SHAPES` in the first compute dtype, the 2^24 shape in every
    other compute dtype the product has, and, with optional inputs, the first shape with all of them absent.
    Every input gets the compute dtype where it lists it (else its first dtype); the expected tiling key,
    block dim, workspace bytes and tiling fields come from :func:`tiling_decision`."""
    dev = spec.device_interface
    keys = compute_dtypes(spec)
    optional = [t.name for t in optional_inputs(spec)]
    attrs = ut_device_attrs(spec, {a.name: ut_attr_value(spec, a.name) for a in spec.attrs})
    cases: list[dict[str, Any]] = []
    for p in products:
        runs: list[tuple[tuple[int, ...], DType, tuple[str, ...]]] = [(s, keys[0], ()) for s in UT_SHAPES]
        runs += [(UT_SHAPES[-1], d, ()) for d in keys[1:] if p.supports(d)]
        if optional:
            runs.append((UT_SHAPES[0], keys[0], tuple(optional)))
        for shape, dtype, absent in runs:
            d = tiling_decision(spec, p, shape, dtype, absent)
            inputs = ut_device_inputs(
                spec,
                {
                    t.name: ut_tensor(None, None)
                    if t.name in absent
                    else ut_tensor(shape, dtype if dtype in t.dtypes else t.dtypes[0])
                    for t in spec.inputs
                },
            )
            outputs = [ut_tensor(shape, dtype) for _ in dev.outputs]
            dims = "x".join(str(n) for n in shape)
            cases.append(
                {
                    "name": ut_case_name(p, dtype.name, dims, *(["no", *absent] if absent else [])),
                    "product": p.name,
                    "note": f"{dtype.name} [{', '.join(map(str, shape))}]"
                    + (f", {', '.join(absent)} absent" if absent else ""),
                    "inputs": inputs,
                    "outputs": outputs,
                    "attrs": attrs,
                    "deterministic": 0,
                    "tiling_key": d.tiling_key,
                    "block_dim": d.block_dim,
                    "workspace": d.workspace_bytes,
                    "fields": [
                        {"name": name, "value": d.tiling_fields()[name]}
                        for name in ("totalLength", "formerNum", "formerLength", "tileLength", "inBufferNum")
                    ],
                }
            )
    return cases


#: Input shapes of the broadcast infershape case, by position among the shape rule's arguments (cyclic).
UT_BROADCAST_SHAPES: tuple[tuple[int, ...], ...] = ((4, 1, 3), (5, 1), (3,))


def ut_infer_cases(spec: OpSpec) -> list[UtInferCase]:
    """The infershape unit-test cases of an elementwise op: every input [2, 3] (output [2, 3]); for a
    ``broadcast(...)`` rule also its arguments of shapes :data:`UT_BROADCAST_SHAPES` (output NumPy's
    broadcast shape; the other inputs take that shape) and, with two or more arguments, [2, 3] against [3, 2]
    (InferShape fails). Inputs take the compute dtype where they list it; the output dtype is the compute
    dtype (of the input selecting the kernel)."""
    dev = spec.device_interface
    dtype = compute_dtypes(spec)[0]
    aclnn_attrs = {a.name: ut_attr_value(spec, a.name) for a in spec.attrs}
    attrs = ut_device_attrs(spec, aclnn_attrs)
    kind, args = shape_rule(spec)
    # a reduce epilogue's mean or sum (under the test's attrs) infers a 0-d output
    reduced = reduce_kind(spec, aclnn_attrs) != REDUCE_KIND_NONE

    def tensors(shapes: dict[str, tuple[int, ...]], rest: tuple[int, ...]) -> list[UtTensor]:
        return ut_device_inputs(
            spec,
            {
                t.name: ut_tensor(shapes.get(t.name, rest), dtype if dtype in t.dtypes else t.dtypes[0])
                for t in spec.inputs
            },
        )

    n_out = len(dev.outputs)
    same: tuple[int, ...] = () if reduced else (2, 3)
    cases = [ut_infer_case("SameShapes", tensors({}, (2, 3)), attrs, [(same, dtype)] * n_out, "every input [2, 3]")]
    if kind == "broadcast":
        shapes = {a: UT_BROADCAST_SHAPES[i % len(UT_BROADCAST_SHAPES)] for i, a in enumerate(args)}
        want = tuple(int(d) for d in np.broadcast_shapes(*shapes.values()))
        note = ", ".join(f"{a} {list(s)}" for a, s in shapes.items())
        out_shape = () if reduced else want
        cases.append(ut_infer_case("Broadcasts", tensors(shapes, want), attrs, [(out_shape, dtype)] * n_out, note))
        if len(args) >= 2:
            bad: dict[str, tuple[int, ...]] = {args[0]: (2, 3), args[1]: (3, 2)}
            cases.append(
                ut_infer_case(
                    "RejectsShapesThatDoNotBroadcast",
                    tensors(bad, (2, 3)),
                    attrs,
                    None,
                    f"{args[0]} [2, 3], {args[1]} [3, 2]",
                )
            )
    return cases
