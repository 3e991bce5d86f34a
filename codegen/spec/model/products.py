"""The product catalogue's model: each SoC's facts (:class:`Product`), its performance model
(:class:`CostModel`) and the catalogue itself."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.errors import SourceLoc
from codegen.types import DType

#: Vector instruction classes of a cost model, in the emulator's order (``opgen_rt::VectorClass``), with the
#: instructions each covers. An instruction not listed is arithmetic.
VECTOR_CLASSES: tuple[tuple[str, str], ...] = (
    ("arithmetic", "Add Sub Mul Max Min Adds Muls Axpy Abs Relu Duplicate, UB->UB DataCopy"),
    ("transcendental", "Exp Ln Sqrt"),
    ("division", "Div Reciprocal Rsqrt"),
    ("cast", "Cast"),
    ("reduction", "WholeReduce*, BlockReduce*, ReduceSum/ReduceMax/ReduceMin"),
    ("compare_select", "Compare Compares Select"),
    ("sort", "Sort32 MrgSort"),
)


@dataclass(frozen=True)
class Figure:
    """One input number of a cost model and where it comes from.

    Attributes:
        value: the number (its unit is in the field's name).
        source: a public source (CANN file and key, vendor document) or a text starting with ``assumed``.
    """

    value: float
    source: str

    @property
    def assumed(self) -> bool:
        """Whether no public source gives the number."""
        return self.source.startswith("assumed")


@dataclass(frozen=True)
class VectorCost:
    """The cost of one vector instruction class: ``cycles_per_repeat`` per 256-byte repeat plus
    ``latency_cycles`` once per instruction, both from ``source`` (or ``assumed ...``)."""

    cycles_per_repeat: float
    latency_cycles: float
    source: str

    @property
    def assumed(self) -> bool:
        """Whether no public source gives the numbers."""
        return self.source.startswith("assumed")


@dataclass(frozen=True)
class CostModel:
    """A product's performance model (``cost_model`` of a catalogue product): what the emulator's pipe
    timeline charges per instruction. See README "Performance model".

    Attributes:
        clock_mhz: AI core clock, MHz.
        gm_bandwidth_gbps: GM (HBM) bandwidth of the whole chip, GB/s (1e9 bytes per second).
        core_gm_bytes_per_cycle: GM bandwidth one core's copy engines reach alone, bytes per cycle.
        dma_fixed_cycles: fixed cost of one GM<->UB DataCopy / DataCopyPad, cycles.
        vector: cost per vector instruction class, in :data:`VECTOR_CLASSES` order.
        scalar_access_cycles: one scalar GetValue / SetValue (UB or GM), cycles.
        scalar_wait_cycles: what one WaitFlag<X_S> (a vector-to-scalar wait) adds to the scalar unit's stall,
            cycles.
    """

    clock_mhz: Figure
    gm_bandwidth_gbps: Figure
    core_gm_bytes_per_cycle: Figure
    dma_fixed_cycles: Figure
    vector: tuple[VectorCost, ...]
    scalar_access_cycles: Figure
    scalar_wait_cycles: Figure

    def figures(self) -> list[tuple[str, str, str]]:
        """Every input number as ``(name, value as text, source)``, in catalogue order (for the docs)."""
        out = [
            (name, f"{fig.value:g}", fig.source)
            for name, fig in (
                ("clock_mhz", self.clock_mhz),
                ("gm_bandwidth_gbps", self.gm_bandwidth_gbps),
                ("core_gm_bytes_per_cycle", self.core_gm_bytes_per_cycle),
                ("dma_fixed_cycles", self.dma_fixed_cycles),
            )
        ]
        for (cls, _), cost in zip(VECTOR_CLASSES, self.vector, strict=True):
            out.append((f"vector.{cls}", f"{cost.cycles_per_repeat:g} / repeat + {cost.latency_cycles:g}", cost.source))
        out.append(("scalar_access_cycles", f"{self.scalar_access_cycles.value:g}", self.scalar_access_cycles.source))
        out.append(("scalar_wait_cycles", f"{self.scalar_wait_cycles.value:g}", self.scalar_wait_cycles.source))
        return out


@dataclass(frozen=True)
class Product:
    """One SoC of the product catalogue (``specs/products.yaml``).

    Facts and their sources: reference/ascend-platform.md (runtime platform config files).

    Attributes:
        name: catalogue name, e.g. ``Ascend910B``.
        doc_term: the product family as CANN documentation names it.
        config_name: OpDef ``AddConfig`` name, e.g. ``ascend910b``.
        soc_version: SocVersion name, e.g. ``ASCEND910B``.
        npu_arch: the ``__NPU_ARCH__`` value, e.g. 2201.
        ub_bytes: Unified Buffer bytes per core (a multiple of 32).
        vector_core_num: cores a vector tiling launches on (``GetCoreNumAiv()``).
        bf16: whether BF16 tensors are supported.
        data_copy_pad: whether ``DataCopyPad`` exists.
        atomic_add_dtypes: dtypes ``SetAtomicAdd<T>`` supports.
        queue_buffer_cap: most buffers one queue position may hold.
        hw_sync_all: whether the no-argument (hardware) ``SyncAll()`` exists; False on NpuArch 1001 and 2002,
            where asc-devkit ``impl/basic_api/dav_c100|dav_m200/kernel_operator_sync_impl.h`` has only an
            assert (kernels there need the software ``SyncAll(gmWorkspace, ubWorkspace, usedCores)`` or no
            in-kernel barrier).
        sys_workspace_bytes: bytes of system workspace AscendC reserves in front of the user workspace
            (``RESERVED_WORKSPACE``, asc-devkit ``impl/basic_api/utils/kernel_utils_constants.h``); what
            ``GetLibApiWorkSpaceSize()`` returns and every tiling adds to its workspace.
        source: where the facts come from.
        capability_source: where ``hw_sync_all``, ``sys_workspace_bytes`` and ``vector_sort`` come from ("" when
            not given).
        loc: the catalogue entry.
        doc_aliases: other names API documents give the product (another wording of ``doc_term``, or the
            term of ops-nn's Chinese Markdown sources); ``opgen import`` maps a document's product terms
            through ``doc_term`` and these, compared without case and whitespace.
        cost_model: the product's performance model, or None when the catalogue gives none (then the
            emulator keeps no timeline and the model's figures are reported as unavailable).
        vector_sort: whether the vector unit sorts 8-byte (score, index) proposals: ``Sort32``, ``MrgSort``,
            ``Extract`` and ``Concat`` of asc-devkit ``include/basic_api/kernel_operator_proposal_intf.h``.
            Their docs' product tables (``docs/zh/api/SIMD-API/基础API/Memory矢量计算/排序组合（ISASI）/Sort32.md``,
            ``MrgSort.md``) list Atlas A2/A3 (NpuArch 2201) and Ascend 950 (3510); NpuArch 1001 has no sort
            instruction and 2002 only the region-proposal forms. False when the catalogue omits the key.
    """

    name: str
    doc_term: str
    config_name: str
    soc_version: str
    npu_arch: int
    ub_bytes: int
    vector_core_num: int
    bf16: bool
    data_copy_pad: bool
    atomic_add_dtypes: tuple[DType, ...]
    queue_buffer_cap: int
    hw_sync_all: bool
    sys_workspace_bytes: int
    source: str
    loc: SourceLoc
    capability_source: str = ""
    doc_aliases: tuple[str, ...] = ()
    cost_model: CostModel | None = None
    vector_sort: bool = False

    def supports(self, dtype: DType) -> bool:
        """Whether tensors of ``dtype`` exist on this product (False only for BF16 without bf16 support)."""
        return self.bf16 or dtype is not DType.BF16


@dataclass(frozen=True)
class Catalogue:
    """The products of ``specs/products.yaml``, in file order.

    Attributes:
        products: the products.
        path: the catalogue file.
        categories: the ``op_categories`` key: the category folders an op folder may sit in (ops-nn's
            ``OP_CATEGORY_LIST``, ``cmake/variables.cmake``), in file order.
        uncatalogued_doc_terms: the ``uncatalogued_doc_terms`` key: product terms API documents use for
            products the catalogue does not describe (``opgen import`` leaves them out rather than refusing
            the document).
    """

    products: tuple[Product, ...]
    path: str
    categories: tuple[str, ...] = ()
    uncatalogued_doc_terms: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Product names in file order."""
        return tuple(p.name for p in self.products)

    def get(self, name: str) -> Product:
        """The product called ``name``.

        Raises:
            KeyError: no such product; the message lists the known names.
        """
        for p in self.products:
            if p.name == name:
                return p
        raise KeyError(f"unknown product '{name}'; known: {', '.join(self.names)}")

    def __contains__(self, name: object) -> bool:
        return any(p.name == name for p in self.products)
