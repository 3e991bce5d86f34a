"""The kernel strategies and the tiling's choice between the sorted-run strategy and the atomic or
deterministic one (:func:`sorted_wins`)."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.sorted_layout import SortPlan

STRATEGIES = (("atomic", False), ("deterministic", True))
#: Sorted-run strategies (tiling-key strategy digit 2 and 3), compiled for products with DataCopyPad and
#: hardware SyncAll: (name, deterministic).
SORTED_STRATEGIES = (("sorted", False), ("sorted deterministic", True))


def sort_fills_staging(plan: SortPlan, n: int) -> bool:
    """Whether each core's index range fills its staging slots at least once (``n >= cores * buckets *
    stage``): from there on most of phase 2's flushes are whole slots, long DMAs."""
    return plan.feasible and n >= plan.cores * plan.buckets * plan.stage


def sorted_wins(
    plan: SortPlan, n: int, sorted_bytes_: int, other_bytes_: int, sorted_cost: int, other_cost: int
) -> bool:
    """Whether the tiling takes the sorted-run strategy for ``n`` indices: it can run, its transfer cost (GM
    bytes, every DMA counted as at least :data:`SMALL_DIM_BYTES`) is below the other strategy's, and it moves
    fewer GM bytes (:func:`sorted_bytes` and :func:`other_bytes` with floor 0). Once the indices fill the
    staging slots (:func:`sort_fills_staging`) the lower transfer cost alone decides: there the small-dim
    records may move more bytes than the other strategy, in long contiguous DMAs where it moves each short row
    by a DMA of its own. Below that, the partial flushes (one per core and bucket at least) and the count
    matrix are in both models, so the sort is taken wherever it moves fewer bytes."""
    if not plan.feasible or sorted_cost >= other_cost:
        return False
    return sorted_bytes_ < other_bytes_ or sort_fills_staging(plan, n)
