"""bench/gather_traffic.py: its index patterns and minimum are what its docstring says, and one call's figures come
from the emulator's counters (rows of 128 bytes with repeated indices: each distinct row read once from GM)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import gather_traffic  # noqa: E402


def test_index_patterns() -> None:
    r = gather_traffic.indices("random", rows=100, k=40)
    s = gather_traffic.indices("sorted", rows=100, k=40)
    rep = gather_traffic.indices("repeated", rows=100, k=40)
    assert np.unique(r).size == 40 and r.min() >= 0 and r.max() < 100 and not np.all(np.diff(r) > 0)
    assert np.all(np.diff(s) > 0) and sorted(r.tolist()) == s.tolist()  # the same positions, ascending
    assert rep.size == 40 and np.unique(rep).size <= 5
    assert all(np.unique(rep[i : i + 8]).size == 1 for i in range(0, 40, 8))
    with pytest.raises(ValueError, match="do not fit"):
        gather_traffic.indices("random", rows=10, k=11)
    with pytest.raises(ValueError, match="unknown index pattern"):
        gather_traffic.indices("zipf")


def test_minimum_reads_each_distinct_row_once() -> None:
    # 3 distinct rows of 128 bytes, 5 INT64 indices (40 bytes), 5 output rows
    assert gather_traffic.minimum_bytes(np.array([4, 4, 9, 4, 1], dtype=np.int64), 128) == 3 * 128 + 40 + 5 * 128


def test_repeated_rows_are_read_once_from_gm() -> None:
    m = gather_traffic.measure("Ascend910B", 32, "repeated")
    k, distinct = gather_traffic.INDICES, gather_traffic.INDICES // gather_traffic.REPEATS
    # reads: the distinct rows once and every index once; writes: every output row once
    assert m["kernel_bytes"] == distinct * 128 + k * 8 + k * 128
    # a few of the 1024 random positions coincide: those runs are read again (below 1 %)
    assert 1.0 <= m["gm_over_minimum"] < 1.01
    assert m["dma_mean_bytes"] > 128  # a tile of rows is one transfer


def test_take_reads_each_element_once() -> None:
    """Take over the flattened [16384] source with 8192 distinct random positions: every index (8 bytes) and
    every picked element (4 bytes) read once, every output element written once, one DMA per element."""
    m = gather_traffic.measure("Ascend910B", 1, "random", gather_traffic.TAKE)
    k = gather_traffic.INDICES
    assert m["kernel_bytes"] == k * 8 + k * 4 + k * 4
    assert m["gm_over_minimum"] == 1.0


def test_gather_reads_only_the_gathered_elements() -> None:
    """Gather of [16384, 1] along dim 0 by a [8192, 1] index of distinct random positions: every index (8 bytes)
    read once, only the 8192 gathered elements (4 bytes each) read, every output element written once (hand
    count), so GM ÷ minimum is 1 exactly; the index and the output move in tiles (few DMA transfers)."""
    m = gather_traffic.measure("Ascend910B", 1, "random", gather_traffic.GATHER)
    k = gather_traffic.INDICES
    assert m["kernel_bytes"] == k * 8 + k * 4 + k * 4
    assert m["gm_over_minimum"] == 1.0
    assert m["dma_mean_bytes"] > 1024  # tiles of indices and outputs, not one DMA per element


def test_scatter_add_traffic_in_both_strategies() -> None:
    """ScatterAdd of src [2048, 16] into self [4096, 16] (fp32, INT64 index, sorted positions) on Ascend910B's 48
    cores, hand counted: atomic, self read and out written once (4096 * 16 * 4 each), index (8 bytes) and src
    (4 bytes) read once and one atomic add (4 bytes) per index element; deterministic, the same without the
    atomic adds but the whole index read by each of the 48 cores (along dim 0 every core's rows can be hit)."""
    a, k, q = gather_traffic.SCATTER_SHAPE
    assert gather_traffic.scatter_minimum_bytes(a, k, q) == 2 * 4096 * 16 * 4 + 2048 * 16 * 12
    atomic = gather_traffic.measure_scatter("Ascend910B", "sorted", False)
    assert atomic["kernel_bytes"] == 2 * 4096 * 16 * 4 + 2048 * 16 * (8 + 4 + 4)
    owned = gather_traffic.measure_scatter("Ascend910B", "sorted", True)
    assert owned["block_dim"] == [48]
    assert owned["kernel_bytes"] == 2 * 4096 * 16 * 4 + 48 * 2048 * 16 * 8 + 2048 * 16 * 4
