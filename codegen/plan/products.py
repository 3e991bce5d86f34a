"""The spec's catalogue products as the generated code tells them apart: by NpuArch, never by SoC name (dtype
groups, capability conditions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from codegen.spec.model import Catalogue, DType, OpSpec, Product, TensorSpec

#: NpuArchs whose vector ReduceSum/ReduceMax take half only, no fp32 (the Atlas training series, NpuArch 1001:
#: asc-devkit docs ReduceSum.md / ReduceMax.md, api/SIMD-API WholeReduceSum; emulated in
#: runtime/include/opgen_rt/device/reduce.h): a kernel reduces fp32 there by halving with ``Add``/``Max`` down to
#: 64 elements and finishing on the scalar unit.
NO_FP32_REDUCE_ARCHS: tuple[int, ...] = (1001,)
#: NpuArchs whose WholeReduceMax/WholeReduceMin lack ``ReduceOrder::ORDER_ONLY_VALUE`` (asc-devkit ReduceOrder
#: support per product, emulated in runtime/include/opgen_rt/device/reduce.h CheckOrder: NpuArch 1001
#: ORDER_VALUE_INDEX only, 2002 ORDER_VALUE_INDEX and ORDER_INDEX_VALUE).
NO_ONLY_VALUE_ARCHS: tuple[int, ...] = (1001, 2002)


def spec_products(spec: OpSpec, catalogue: Catalogue) -> list[Product]:
    """The catalogue products ``spec`` lists, in the spec's order."""
    return [catalogue.get(name) for name in spec.products]


@dataclass(frozen=True)
class ArchGroup:
    """An NpuArch (``__NPU_ARCH__`` / ``GetCurNpuArch()`` value) and the catalogue products that have it
    (names, comma-separated)."""

    arch: int
    products: str


def arch_groups(products: list[Product]) -> list[ArchGroup]:
    """The NpuArchs of ``products`` in first-appearance order, each with the products that have it.

    Generated code selects per-product behaviour by NpuArch (``GetCurNpuArch()`` on the host,
    ``__NPU_ARCH__`` in kernels), never by SoC name, so a catalogue product CANN's enums do not know
    compiles unchanged; products sharing an NpuArch agree on every capability the generated code keys on
    (the catalogue loader enforces it). E.g. ``[ArchGroup(2201, "Ascend910B, Ascend910_93")]``.
    """
    groups: dict[int, list[str]] = {}
    for p in products:
        groups.setdefault(p.npu_arch, []).append(p.name)
    return [ArchGroup(arch, ", ".join(names)) for arch, names in groups.items()]


@dataclass(frozen=True)
class DtypeGroup:
    """Products on which a tensor has the same dtype list: ``archs`` (their NpuArchs), ``products`` (names),
    ``dtypes`` (``op::DataType::DT_*``) and ``names`` (spec dtype names)."""

    archs: tuple[ArchGroup, ...]
    products: tuple[str, ...]
    dtypes: tuple[str, ...]
    names: tuple[str, ...]


def dtype_groups(tensor: TensorSpec, products: list[Product]) -> tuple[DtypeGroup, ...]:
    """Products grouped by the dtype list ``tensor`` has on them, keyed by NpuArch, in first-appearance
    order. Every NpuArch falls in exactly one group (the dtype list depends only on the bf16 capability,
    which an NpuArch fixes, and on the tensor's ``product_dtypes``, which the spec loader requires to give the
    products of one NpuArch one list)."""
    members: dict[tuple[DType, ...], list[Product]] = {}
    for p in products:
        members.setdefault(tensor.dtypes_for(p), []).append(p)
    return tuple(
        DtypeGroup(
            archs=tuple(arch_groups(ps)),
            products=tuple(p.name for p in ps),
            dtypes=tuple(f"op::DataType::{d.ge_name}" for d in dts),
            names=tuple(d.name for d in dts),
        )
        for dts, ps in members.items()
    )


def arch_condition(products: list[Product], predicate: str) -> str:
    """A preprocessor condition true on the NpuArchs of ``products`` lacking a capability.

    ``predicate`` is ``"data_copy_pad"`` or ``"bf16"``. Returns e.g. ``"__NPU_ARCH__ == 1001"`` or ``"0"``
    when every product has the capability. Products sharing an NpuArch agree on capabilities (the
    catalogue loader enforces it), so the condition is exact.
    """
    return archs_condition(p.npu_arch for p in products if not getattr(p, predicate))


def archs_condition(archs: Iterable[int]) -> str:
    """The preprocessor condition true on ``archs`` (NpuArch values): ``__NPU_ARCH__ == a || ...`` in ascending
    order, each once; ``"0"`` for none."""
    return " || ".join(f"__NPU_ARCH__ == {a}" for a in sorted(set(archs))) or "0"


def no_value_reduce_condition(products: list[Product]) -> str:
    """The preprocessor condition true on the NpuArchs of ``products`` where fp32 WholeReduceMax/Sum giving
    values only (``ORDER_ONLY_VALUE``) is missing (:data:`NO_FP32_REDUCE_ARCHS`, :data:`NO_ONLY_VALUE_ARCHS`;
    ``"0"`` for none)."""
    return archs_condition({p.npu_arch for p in products} & set(NO_FP32_REDUCE_ARCHS + NO_ONLY_VALUE_ARCHS))


def no_fp32_reduce_condition(products: list[Product]) -> str:
    """The preprocessor condition true on the NpuArchs of ``products`` in :data:`NO_FP32_REDUCE_ARCHS` (``"0"``
    for none): where a kernel reduces fp32 without ReduceSum/ReduceMax."""
    return archs_condition({p.npu_arch for p in products} & set(NO_FP32_REDUCE_ARCHS))


@dataclass(frozen=True)
class QueueCap:
    """A product's queue buffers per position (``cap``, specs/products.yaml ``queue_buffer_cap``) and the
    NpuArchs that have it."""

    cap: int
    archs: tuple[ArchGroup, ...]


def queue_caps(products: list[Product]) -> list[QueueCap]:
    """The products' queue buffers per position, each with the NpuArch groups that have it (products sharing
    an NpuArch agree on it: the catalogue loader enforces it)."""
    caps: dict[int, list[ArchGroup]] = {}
    for group in arch_groups(products):
        cap = next(p.queue_buffer_cap for p in products if p.npu_arch == group.arch)
        caps.setdefault(cap, []).append(group)
    return [QueueCap(cap, tuple(archs)) for cap, archs in caps.items()]
