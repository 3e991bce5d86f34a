"""The tiling rule of a foreach op (the Python mirror of the generated tiling function): the tile size a core's
UB holds, the cores a list is split over, the tiling key and the list's offset table
(:func:`codegen.plan.tensor_lists.split_list`)."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.plan.tensor_lists import ListSplit, split_list
from codegen.plan.tiling_decision import TilingDecisionBase
from codegen.plan.tiling_fields import TilingField
from codegen.spec.catalogue import UB_BLOCK_BYTES
from codegen.spec.model import Catalogue, DeviceTensor, DType, OpSpec, Product

#: The tiling key of each dtype (ops-nn's foreach kernels: ``TILING_KEY_IS(1)`` half, ``2`` float, ``3`` int,
#: ``4`` bf16, ``5`` int16_t; hicann/ops-nn foreach/foreach_sqrt/op_kernel/foreach_sqrt.cpp, foreach_mul_list.cpp).
DTYPE_KEYS: dict[DType, int] = {DType.FLOAT16: 1, DType.FLOAT: 2, DType.INT32: 3, DType.BF16: 4, DType.INT16: 5}
#: Tiles in flight per queue (the kernel's in and out queues hold two tiles each: copy-in, compute and
#: copy-out of consecutive tiles overlap).
TILE_BUFFERS = 2
#: The most cores one launch's table holds: ops-nn's ``MAX_CORE_CONT`` (its list tiling header), so the tiling
#: struct has the layout of ops-nn's common list tiling data (3672 bytes: it fits the 4 KiB tiling buffer of the
#: op_host unit tests); Ascend950's 64 vector cores run 50 of them.
MAX_LIST_CORES = 50


def compute_dtype(dtype: DType) -> DType:
    """The dtype a tile is computed in: FLOAT for BF16 (cast up with CAST_NONE, back with CAST_RINT, as ops-nn's
    foreach kernels do), the tensor's own dtype otherwise."""
    return DType.FLOAT if dtype is DType.BF16 else dtype


def scalar_carrier(spec: OpSpec) -> DeviceTensor | None:
    """The device input carrying the op's scalar attr (a one-element tensor ``like`` the list, through its
    ``dtype_map``), or None for an op without a scalar."""
    scalar = getattr(spec.compute, "scalar", None)
    if scalar is None:
        return None
    return next((d for d in spec.device_interface.inputs if d.like is not None and d.source == scalar), None)


def op_compute_dtype(spec: OpSpec, dtype: DType) -> DType:
    """The dtype ``spec`` computes a list of ``dtype`` in: for a scalar form, the dtype of the one-element tensor
    its device op gets for that list (the scalar's device input, ``like`` the list with its ``dtype_map``: the
    kernel computes in the dtype it reads the scalar in, as ops-nn's foreach kernels do; aclnnForeachLerpScalar's
    FLOAT weight beside a FLOAT16 list: FLOAT16 computed in FLOAT); otherwise :func:`compute_dtype`. A dtype the
    compute section's ``computed_in_float`` lists is computed in FLOAT (the scalar then read in its own dtype and
    converted)."""
    comp = spec.compute
    if dtype in getattr(comp, "in_float", ()):
        return DType.FLOAT
    carrier = scalar_carrier(spec)
    return compute_dtype(dtype) if carrier is None else carrier.like_dtype(dtype)


def output_tiles(spec: OpSpec) -> int:
    """Output tile lists of the kernel: 0 where the result lands in an input list's tile and is copied out from
    there (a ``LIST_FORMS`` formula), else 1."""
    return 0 if getattr(spec.compute, "implicit_output", False) else 1


def list_buffers(spec: OpSpec, product: Product) -> int:
    """Buffers per list queue on ``product``: :data:`TILE_BUFFERS` (double buffering) where the queues of each
    position fit its ``queue_buffer_cap`` with them (the input lists' at VECIN, the output tiles' at VECOUT), else
    one (three input lists on a product of 4 queue buffers per position). Products sharing an NpuArch agree on the
    cap, so the kernel, compiled per NpuArch, knows it (``LIST_BUFFERS``)."""
    queues = max(len(spec.inputs), output_tiles(spec))
    return TILE_BUFFERS if queues * TILE_BUFFERS <= product.queue_buffer_cap else 1


def tile_elements(spec: OpSpec, product: Product, dtype: DType) -> int:
    """Elements of one UB tile (a multiple of a 32-byte block's elements): the UB after the spec's reserved
    bytes, over :func:`list_buffers` tiles of ``dtype`` per input list and as many output tiles (none where the
    result lands in an input tile, :func:`output_tiles`) and, where the op computes in a wider dtype, one tile of
    that dtype per input list: with three input lists each tile is smaller than with one.

    Raises:
        ValueError: the UB holds no tile of one block.
    """
    inputs = len(spec.inputs)
    per_element = (inputs + output_tiles(spec)) * list_buffers(spec, product) * dtype.itemsize
    wide = op_compute_dtype(spec, dtype)
    if wide is not dtype:
        per_element += inputs * wide.itemsize
    block = UB_BLOCK_BYTES // dtype.itemsize
    budget = product.ub_bytes - spec.tiling.ub_reserved_bytes
    tiles = budget // per_element // block * block
    if tiles < block:
        raise ValueError(f"{product.name}: {budget} bytes of UB hold no tile of one block of {dtype.name}")
    return tiles


def core_count(spec: OpSpec, product: Product, total_elements: int, dtype: DType) -> int:
    """Cores a list of ``total_elements`` elements of ``dtype`` is split over: one per ``min_bytes_per_core``
    bytes (counted in whole elements, as the tiling function counts them without an int64 overflow), at least
    one, at most the product's vector cores (and :data:`MAX_LIST_CORES`)."""
    per_core = max(1, spec.tiling.min_bytes_per_core // dtype.itemsize)
    wanted = -(-total_elements // per_core)
    return max(1, min(product.vector_core_num, MAX_LIST_CORES, wanted))


@dataclass(frozen=True)
class ForeachDecision(TilingDecisionBase):
    """The tiling of one foreach call on one product.

    Attributes:
        inputs_tensor_ub_size: elements per UB tile (``inputsTensorUbSize``).
        need_core_num: cores launched (``needCoreNum``; 0: the list holds no element, no launch).
        total_tensor_count: tensors in the list (``totalTensorCount``).
        split: the list's offset table (each tensor's count, each core's share).
    """

    inputs_tensor_ub_size: int
    need_core_num: int
    total_tensor_count: int
    split: ListSplit


#: The scalar fields of the tiling struct (ops-nn's ``ForeachCommonTilingData`` names); the list table's
#: arrays follow them (templates/common/list_tiling.j2).
TILING_FIELDS: tuple[TilingField[ForeachDecision], ...] = (
    TilingField.held("inputsTensorUbSize", "elements per UB tile (a multiple of a block's)"),
    TilingField.held("needCoreNum", "cores launched (blockDim); 0: the list holds no element"),
    TilingField.held("totalTensorCount", "tensors in the list"),
)
ForeachDecision.FIELDS = TILING_FIELDS


def tiling_decision(spec: OpSpec, product: Product, counts: tuple[int, ...], dtype: DType) -> ForeachDecision:
    """The tiling of a call whose input list holds tensors of ``counts`` elements (list order) of ``dtype`` on
    ``product``.

    Raises:
        ValueError: more tensors than one launch's table holds, or a UB too small for one tile.
    """
    block = UB_BLOCK_BYTES // dtype.itemsize
    cores = core_count(spec, product, sum(counts), dtype)
    split = split_list(counts, block, cores)
    return ForeachDecision(
        product=product.name,
        tiling_key=DTYPE_KEYS[dtype],
        block_dim=split.block_dim,
        workspace_bytes=int(product.sys_workspace_bytes),
        inputs_tensor_ub_size=tile_elements(spec, product, dtype),
        need_core_num=split.block_dim,
        total_tensor_count=len(counts),
        split=split,
    )


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Returns when every product of ``spec`` can run the list kernel: a queue of one buffer per input list at one
    position (:func:`list_buffers`), and a UB that holds one tile of one block in each of the list's dtypes.

    Raises:
        ValueError: a product with fewer queue buffers per position than the op has input lists, or whose UB
            holds no tile; the message names the product.
    """
    for name in spec.products:
        product = catalogue.get(name)
        queues = max(len(spec.inputs), output_tiles(spec))
        if product.queue_buffer_cap < queues:
            raise ValueError(
                f"{name}: a position holds {product.queue_buffer_cap} queue buffer(s); the kernel's {queues} list "
                "queues need one each"
            )
        for dtype in spec.inputs[0].dtypes_for(product):
            tile_elements(spec, product, dtype)
