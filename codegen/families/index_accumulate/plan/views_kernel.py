"""The view of the kernel source (``op_kernel/<kernel>.cpp``) and its tiling-key branches."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.dtype_keys import IndexKey
from codegen.families.index_accumulate.plan.fixed_sizes import FixedSizes, VectorSortSizes
from codegen.families.index_accumulate.plan.roles import compute_of
from codegen.families.index_accumulate.plan.strategy import SORTED_STRATEGIES, STRATEGIES
from codegen.families.index_accumulate.plan.sync_counters import SyncCounters
from codegen.plan.dtype_keys import DtypeKey
from codegen.plan.products import arch_condition
from codegen.plan.view_bases import KernelBase
from codegen.spec.model import OpSpec, Product


@dataclass(frozen=True)
class KernelBranch:
    """One tiling-key branch of the kernel entry: ``key``, the rows kernel type, the index codec,
    ``deterministic`` (``true``/``false``), ``sorted`` (the sorted-run strategy), a ``comment`` and its
    preprocessor ``guard`` ("")."""

    key: int
    grad_type: str
    codec: str
    deterministic: str
    #: the sorted-run strategy's kernel (``Run<OpType>Sorted``)
    sorted: bool
    comment: str
    guard: str


@dataclass(frozen=True)
class BranchGroup:
    """Consecutive kernel branches sharing one preprocessor ``guard`` ("": always compiled)."""

    guard: str
    branches: tuple[KernelBranch, ...]


@dataclass(frozen=True)
class KernelView(KernelBase):
    """``op_kernel/<kernel>.cpp`` (``op_kernel/index_accumulate_kernel.cpp.j2``): one branch per tiling key."""

    branch_groups: tuple[BranchGroup, ...]
    fixed_sizes: FixedSizes
    index: str
    no_sync_condition: str
    #: the preprocessor condition of the NpuArchs without the vector sort or DataCopyPad ("0": none)
    no_sort_condition: str
    #: the vector sort's sizes
    vector_sort_sizes: VectorSortSizes
    num_rows: str
    out: str
    padding: str
    rows: str
    scaling: str
    #: the preprocessor condition of the products without the sorted-run strategy ("": none)
    sorted_guard: str
    #: whether any product of the op compiles the sorted-run strategy
    sorted_strategy: bool
    sync_counters: SyncCounters
    #: the row and position of a padding pair of the sorted-run strategy
    pad_pair: int


def kernel_branch_groups(
    spec: OpSpec, products: list[Product], grad_keys: list[DtypeKey], index_keys: list[IndexKey], sorted_strategy: bool
) -> list[BranchGroup]:
    """The tiling-key branches of the kernel entry, consecutive ones with the same preprocessor guard in one
    group: every strategy (the sorted-run ones with ``sorted_strategy``) x rows dtype x index dtype, key
    ``strategy * 100 + rows digit * 10 + index digit``; an atomic mode is left out where a product lacks
    hardware SyncAll, a BF16 rows dtype where a product lacks bf16."""
    comp = compute_of(spec)
    no_sync = arch_condition(products, "hw_sync_all")
    branches: list[KernelBranch] = []
    all_strategies = [*STRATEGIES, *(SORTED_STRATEGIES if sorted_strategy else ())]
    for s, (strategy, det) in enumerate(all_strategies):
        for g in grad_keys:
            # The atomic modes need hardware SyncAll (the tiling picks them only there): left out where missing.
            need = "" if det or no_sync == "0" else no_sync
            parts = list(dict.fromkeys(c for c in (g.guard, need) if c))
            guard = " || ".join(f"({c})" for c in parts) if len(parts) > 1 else (parts[0] if parts else "")
            for i in index_keys:
                branches.append(
                    KernelBranch(
                        key=s * 100 + g.key * 10 + i.key,
                        grad_type=g.kernel_type,
                        codec=i.codec,
                        deterministic="true" if det else "false",
                        sorted=s >= 2,
                        comment=f"{strategy}, {comp.rows} {g.dtype}, {comp.index} {i.dtype}",
                        guard=guard,
                    )
                )
    # Consecutive branches with the same guard share one #if block.
    runs: list[list[KernelBranch]] = []
    for b in branches:
        if runs and runs[-1][0].guard == b.guard:
            runs[-1].append(b)
        else:
            runs.append([b])
    return [BranchGroup(run[0].guard, tuple(run)) for run in runs]
