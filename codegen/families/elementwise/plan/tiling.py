"""The elementwise tiling arithmetic: the core split, queue depth and UB tile of one shape on one product.

Tiling rule (the generated tiling function implements exactly :func:`tiling_decision`):

- ``blockElems = 32 / sizeof(T)``; the output's ``totalLength`` elements are cut into 32-byte blocks.
- ``usedCores = clamp(ceil(totalLength * sizeof(T) / minBytesPerCore), 1, min(coreNum, blocks))``.
- Blocks are split evenly; the first ``blocks % usedCores`` cores ("former" cores) take one extra block.
  The last core's range is clipped to ``totalLength`` (it holds the sub-block tail).
- Queue depth: ``inBufferNum = clamp(bufferNum, 1, queueBufferCap // numInputs)`` and likewise for the
  output queues, so the per-position buffer cap of the product (selected by its NpuArch) is never exceeded.
  ``numInputs`` counts the inputs present in the call (an absent optional input has no queue).
- ``scalarInputs``: bit ``k`` set when aclnn input ``k`` arrives with one element while the output has more
  (the L2 API passes such an input unexpanded); the kernel reads it once per core and fills a UB tile with
  it instead of streaming it (its UB tile takes the place of its queue, so the budget below is unchanged).
- ``bytesPerElement = (numInputs * inBufferNum + numOutputs * outBufferNum) * sizeof(T) + temps * 4``
  (a mixed dtype column, :mod:`.columns`: each input's and the output's own ``sizeof`` times its queue's
  buffers, and ``blockElems`` from its narrowest dtype)
  and ``tileLength = floor((ubBytes - ubReservedBytes) / bytesPerElement)`` rounded down to whole
  256-byte repeats of elements of ``repeatElemBytes`` (:func:`repeat_elem_bytes`): fp32 (64 elements), or a
  16-bit ``T`` (128) where the key's program compares an input in ``T`` (the count form of ``Compare`` runs
  whole repeats of its source, which must stay in the tile).

The tiling key of a call is ``dtypeIndex + numDtypes * variant`` (:mod:`.variants`); the mixed dtype
columns' keys follow, one each in column order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from codegen.families.elementwise.compiler import CompiledFormula
from codegen.families.elementwise.compiler.narrow import COMPARE_ELEMS
from codegen.families.elementwise.plan.columns import mixed_columns
from codegen.families.elementwise.plan.reduce import (
    PARTIAL_SLOT_BYTES,
    REDUCE_FP32_BUFFERS,
    reduce_kind,
    reduce_of,
)
from codegen.families.elementwise.plan.variants import (
    budget_temps,
    column_budget_temps,
    compile_all,
    compute_dtypes,
    constants_for,
    optional_inputs,
    programs_for,
)
from codegen.plan.tiling_decision import UbSplitDecision
from codegen.plan.tiling_fields import TilingField
from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.model import DType, OpSpec, Product

BLOCK_BYTES = UB_BLOCK_BYTES
REPEAT_BYTES = 256
FP32_BYTES = 4

#: The tiling struct before the host-scalar fields (one ``float`` per host scalar follows), in order; the
#: tiling header, the tiling function and :meth:`TilingDecision.tiling_fields` follow it.
TILING_FIELDS: tuple[TilingField[TilingDecision], ...] = (
    TilingField.held("totalLength", "elements of {output}"),
    TilingField.held("formerNum", "cores that take one extra 32-byte block"),
    TilingField.held("formerLength", "elements per former core", cpp="(blocksPerCore + 1) * blockElems"),
    TilingField.held(
        "tailLength", "elements per other core (the last one is clipped)", cpp="blocksPerCore * blockElems"
    ),
    TilingField.held("tileLength", "elements per UB tile"),
    TilingField.held(
        "inBufferNum", "buffers per input queue", c_type="int32_t", cpp="static_cast<int32_t>(inBufferNum)"
    ),
    TilingField.held(
        "outBufferNum", "buffers per output queue", c_type="int32_t", cpp="static_cast<int32_t>(outBufferNum)"
    ),
    TilingField("scalarInputs", "bit k: aclnn input k has one element, read once per core", lambda d: d.scalar_inputs),
)


@dataclass(frozen=True)
class TilingDecision(UbSplitDecision):
    """What the tiling function decides for one shape on one product (units in the field names)."""

    FIELDS = TILING_FIELDS
    #: the compute dtype's name (``FLOAT``, ``FLOAT16``, ...)
    dtype: str
    #: elements of the output
    total_length: int
    #: cores that take one extra 32-byte block, and their elements each
    former_num: int
    former_length: int
    #: elements of every other core (the last core's range is clipped to ``total_length``)
    tail_length: int
    #: elements per UB tile (whole 256-byte repeats of elements of :func:`repeat_elem_bytes`)
    tile_length: int
    #: buffers per input queue and per output queue
    in_buffer_num: int
    out_buffer_num: int
    #: UB bytes the queues and temporaries take
    ub_used_bytes: int
    #: the most tiles one core runs
    tiles_per_core_max: int
    reduce_kind: int | None = None  # None: no reduce epilogue; else REDUCE_KIND_*
    scalar_inputs: int = 0  # bit k: aclnn input k has one element (read once per core)

    def tiling_fields(self) -> dict[str, int]:
        """The values of the generated tiling struct's :data:`TILING_FIELDS`, by field name (the host-scalar
        fields are not included), and last a reduce epilogue's ``reduceKind``."""
        values = super().tiling_fields()
        if self.reduce_kind is not None:
            values["reduceKind"] = self.reduce_kind
        return values


def repeat_elem_bytes(formula: CompiledFormula, dtype: DType) -> int:
    """The bytes of the elements whose 256-byte repeats a tile of ``formula``'s program for compute ``dtype``
    is a whole number of: ``dtype``'s (2) where that program compares an input in a 16-bit dtype
    (:data:`~codegen.families.elementwise.compiler.narrow.COMPARE_ELEMS`: ``Compare``'s count form runs
    whole 256-byte repeats of its source, 128 elements), else fp32's (4: 64 elements)."""
    progs = programs_for(formula, dtype)
    if dtype.itemsize < FP32_BYTES and any(i.op == COMPARE_ELEMS for p in progs for i in p.instructions):
        return dtype.itemsize
    return FP32_BYTES


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


def tiling_decision(
    spec: OpSpec,
    product: Product,
    shape: tuple[int, ...],
    dtype: DType,
    absent: Collection[str] = (),
    attrs: Mapping[str, Any] | None = None,
    scalar: Collection[str] = (),
    column: int | None = None,
) -> TilingDecision:
    """The tiling of ``spec`` on ``product`` for an output of ``shape`` and compute ``dtype``, with the
    optional inputs named in ``absent`` null and the inputs named in ``scalar`` passed with one element
    (``scalarInputs``; ignored when ``shape`` has at most one element).

    With a reduce epilogue ``shape`` is the broadcast shape of the inputs (the elements summed) and
    ``attrs`` the call's attr values (missing: defaults), which select the reduction: for mean/sum each
    core's partial takes a :data:`.reduce.PARTIAL_SLOT_BYTES` slot of the workspace after the system
    workspace, and a product without hardware SyncAll runs one core (no barrier needed). Every tile of a
    reduce op also budgets :data:`.reduce.REDUCE_FP32_BUFFERS` fp32 values per element (the accumulator and
    the work buffer) and a 32-byte result block (whatever the reduction).

    ``column`` (an index of :func:`.columns.mixed_columns`) tiles a call of that mixed dtype column instead
    (``dtype`` is then FLOAT, the compute dtype): its key follows the one-dtype keys, its blocks are 32 bytes
    of its narrowest tensor (so every core starts on a 32-byte boundary of each tensor), and each input's
    queues and the output's take their own dtype's bytes per element.

    Mirrors the generated C++ tiling function; ``tests/test_explain.py`` compares the two.

    Raises:
        ValueError: ``dtype`` is not a compute dtype of the spec, ``absent`` names a tensor that is not an
            optional input, ``scalar`` names a tensor that is not an input, or UB cannot hold one repeat.
    """
    variants = compile_all(spec)
    optional = [t.name for t in optional_inputs(spec)]
    unknown = set(absent) - set(optional)
    if unknown:
        raise ValueError(f"{spec.op}: {', '.join(sorted(unknown))} is not an optional input")
    variant = variants[sum(1 << k for k, name in enumerate(optional) if name in absent)]
    names = [t.name for t in spec.inputs]
    if set(scalar) - set(names):
        raise ValueError(f"{spec.op}: {', '.join(sorted(set(scalar) - set(names)))} is not an input")
    keys = compute_dtypes(spec)
    if dtype not in keys:
        raise ValueError(f"{spec.op} computes on {', '.join(d.name for d in keys)}, not {dtype.name}")
    total = 1
    for d in shape:
        total *= d
    item = dtype.itemsize
    widths = [item] * len(variant.present) + [item] * len(spec.outputs)
    progs = programs_for(variant.formula, dtype)
    fills = constants_for(variant.formula, dtype)
    key = keys.index(dtype) + len(keys) * variant.index
    label = dtype.name
    if column is not None:
        mixed = mixed_columns(spec)[column]
        widths = [d.itemsize for d in mixed.dtypes]
        item = min(widths)
        progs = tuple(c.columns[column] for c in variant.formula.cases)
        fills = tuple({i.dst: i for p in progs for i in p.constants}.values())
        key = len(keys) * len(variants) + column
        label = mixed.text
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
    temps = budget_temps(variant.formula, dtype) if column is None else column_budget_temps(variant.formula, column)
    temps += REDUCE_FP32_BUFFERS if red is not None else 0
    in_bytes, out_bytes = sum(widths[:n_in]), sum(widths[n_in:])
    bpe = in_bytes * in_num + out_bytes * out_num + temps * FP32_BYTES
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes - (BLOCK_BYTES if red is not None else 0)
    repeat = REPEAT_BYTES // (repeat_elem_bytes(variant.formula, dtype) if column is None else FP32_BYTES)
    tile = budget // bpe // repeat * repeat
    if tile <= 0:
        raise ValueError(f"UB of {product.name} ({budget} bytes) cannot hold one repeat of {spec.op}")
    former_len = (per_core + 1) * block_elems
    tail_len = per_core * block_elems
    longest = former_len if former else tail_len
    longest = min(longest, total)
    if len(set(widths)) == 1:
        split: tuple[tuple[str, int, int], ...] = (
            ("input queues", n_in * in_num, tile * item),
            ("output queues", n_out * out_num, tile * item),
        )
    else:
        names_out = [*variant.present, *(t.name for t in spec.outputs)]
        split = tuple(
            (f"{n} queue", in_num if k < n_in else out_num, tile * w)
            for k, (n, w) in enumerate(zip(names_out, widths, strict=True))
        )
    split += (("fp32 temporaries", max(p.temps for p in progs), tile * FP32_BYTES),)
    constants = len(fills)
    if constants:
        split += (("fp32 per-core constants", constants, tile * FP32_BYTES),)
    masks = max(p.masks for p in progs)
    if masks:
        # budgeted as one fp32 temporary per started 32 masks (Program.budget_temps)
        split += (("uint8_t bit masks", masks, tile // 8),)
    if red is not None:
        split += (
            ("fp32 reduce accumulator", 1, tile * FP32_BYTES),
            ("fp32 reduce work buffer", 1, tile * FP32_BYTES),
            ("fp32 tile sum block", 1, BLOCK_BYTES),
        )
    return TilingDecision(
        product=product.name,
        dtype=label,
        tiling_key=key,
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
        scalar_inputs=sum(1 << k for k, n in enumerate(names) if n in scalar and n not in absent) if total > 1 else 0,
    )
