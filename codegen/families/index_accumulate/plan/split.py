"""The core split of one phase: how many cores a byte count wants, and the item groups x D-slices split
(:func:`split_2d`) with the deterministic strategy's index groups (:func:`index_groups`)."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.families.index_accumulate.plan.arith import ceil_div, sat_add, sat_mul
from codegen.families.index_accumulate.plan.constants import FP32_BYTES, SLICE_OVERHEAD_BYTES


def cores_wanted(data_bytes: int, core_num: int, min_bytes: int) -> int:
    """Cores for ``data_bytes`` bytes: one per ``min_bytes`` started, between 1 and ``core_num``."""
    return max(1, min(ceil_div(data_bytes, min_bytes), core_num))


@dataclass(frozen=True)
class Split2D:
    """A 2-D split of one phase: ``groups`` groups of items (rows or indices) x ``slices`` D-slices.

    Core ``b < groups * slices`` takes item group ``b // slices`` and columns ``[k * slice_length,
    min((k + 1) * slice_length, D))`` with ``k = b % slices``; ``slice_length`` is a multiple of the slice
    alignment (elements), so every slice but the last starts and ends on a 32-byte block of both the rows
    dtype and the fp32 accumulator.
    """

    groups: int
    slices: int
    slice_length: int

    @property
    def cores(self) -> int:
        """Cores the phase runs on (``groups * slices``)."""
        return self.groups * self.slices


def split_2d(
    items: int, d: int, align: int, target: int, core_num: int, bytes_per_element: int, bytes_per_item: int
) -> Split2D:
    """The groups x D-slices split of ``items`` rows of ``d`` elements over at least ``target`` cores.

    Mirrors ``Split2D`` of the generated tiling function. Every group count ``g`` from
    ``min(items, target)`` down to 1 is tried with ``s = min(ceil(d / align), ceil(target / g),
    core_num // g)`` slices (then as few as give the same slice length); the split reaching the most cores up
    to ``target`` wins, then the one on the fewest cores, then the one with the smallest per-core cost
    ``ceil(items / g) * (slice_length * bytes_per_element + bytes_per_item)`` (bytes, saturated at 2^63 - 1),
    then the larger ``g``.

    Args:
        items: rows or indices to split (>= 0; 0 gives one core and one slice).
        d: elements per row (>= 0).
        align: slice alignment in elements (> 0).
        target: cores wanted, 1 to ``core_num``.
        core_num: cores of the product.
        bytes_per_element: cost of one element of a slice of one item (GM bytes moved).
        bytes_per_item: cost per item and slice besides its elements (index read, DMA overhead).
    """
    blocks = max(1, ceil_div(d, align))
    whole = Split2D(1, 1, sat_mul(blocks, align))
    if items <= 0:
        return whole
    best = whole
    best_key: tuple[int, int, int] | None = None
    for g in range(min(items, target), 0, -1):
        s = min(blocks, ceil_div(target, g), core_num // g)
        per_slice = ceil_div(blocks, s)
        s = ceil_div(blocks, per_slice)
        length = sat_mul(per_slice, align)
        cost = sat_mul(ceil_div(items, g), sat_add(sat_mul(length, bytes_per_element), bytes_per_item))
        key = (-min(g * s, target), g * s, cost)
        if best_key is None or key < best_key:
            best, best_key = Split2D(g, s, length), key
    return best


def index_groups(
    row_split: Split2D, num_rows: int, n: int, d: int, align: int, need: int, core_num: int, grad_bytes: int
) -> tuple[Split2D, int]:
    """The deterministic strategy's (row split, index groups) when rows x D-slices reach too few cores.

    Mirrors ``IndexGroups`` of the generated tiling function. While ``row_split`` runs on at least ``need``
    cores (or there are no rows or fewer than two indices) it is kept with one index group. Otherwise every
    row-split target ``t`` from ``row_split.cores`` down to 1 is tried (:func:`split_2d` with the same costs
    as the deterministic row split) with ``G = clamp(ceil(need / cores_t), 1, min(core_num // cores_t, n))``
    index groups; the pair reaching the most cores up to ``need`` wins, then the one on the fewest cores
    (``G * cores_t``), then the one with more row-split cores (less to merge per owner).

    Args:
        row_split: the deterministic row split (row groups x D-slices).
        num_rows: output rows (>= 0); n: indices (>= 0); d: elements per row (>= 0).
        align: D-slice alignment in elements (> 0).
        need: cores the launch must use, ``min(core_num, ceil(grad bytes / min bytes per core))``.
        core_num: cores of the product.
        grad_bytes: bytes per grad element.

    Returns:
        The row split to use and the number of index groups ``G`` (>= 1); the launch runs on
        ``G * row_split.cores`` cores.
    """
    if row_split.cores >= need or num_rows <= 0 or n <= 1:
        return row_split, 1
    best, best_groups = row_split, 1
    best_key: tuple[int, int, int] | None = None
    for t in range(row_split.cores, 0, -1):
        rs = split_2d(num_rows, d, align, t, core_num, grad_bytes + 2 * FP32_BYTES, SLICE_OVERHEAD_BYTES)
        groups = max(1, min(ceil_div(need, rs.cores), core_num // rs.cores, n))
        key = (-min(groups * rs.cores, need), groups * rs.cores, -rs.cores)
        if best_key is None or key < best_key:
            best, best_groups, best_key = rs, groups, key
    return best, best_groups
