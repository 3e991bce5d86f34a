"""EmbeddingDenseBackward's atomic and deterministic strategies move grad in tiles (issue 17, items 2 and 3).

A tile is a run of consecutive positions whose rows a core adds (at most ``tileRows``) x one D-chunk, moved
by one DataCopy / DataCopyPad; deterministic owners whose rows x D-slice fit in UB sum there and write their
part of out once. The expected DMA counts, bytes and UB high-water marks below are derived by hand from the
kernel's data movement (written out in each test), not from the planner; the GM-bytes estimate the tiling
uses against the sorted strategy is compared with what the emulator counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_embedding_dense_backward import op  # the op built once per product for both files

from bench.workloads import edb_inputs
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.families.index_accumulate.plan.tiling_report import explain_tiling
from codegen.spec.model import DType
from codegen.specs import load_project

OP = "embedding_dense_backward"
CATALOGUE, SPECS = load_project()


def cores(product: str) -> list[dict[str, Any]]:
    launches = op(product).last_stats["launches"]
    assert len(launches) == 1
    return list(launches[0]["cores"])


def total(cs: list[dict[str, Any]], key: str) -> int:
    return sum(int(c[key]) for c in cs)


def call(product: str, indices: np.ndarray, d: int, w: int, deterministic: bool) -> np.ndarray:
    n = indices.size
    grad = (np.arange(n * d, dtype=np.float32).reshape(n, d) % 7) - 3.0  # small integers: exact sums
    out = op(product)(
        grad=grad, indices=indices, numWeights=w, paddingIdx=-1, scaleGradByFreq=False, deterministic=deterministic
    )
    expected = np.zeros((w, d), dtype=np.float64)
    np.add.at(expected, indices, grad.astype(np.float64))
    np.testing.assert_array_equal(np.asarray(out, dtype=np.float64), expected)
    return np.asarray(out)


def test_atomic_moves_the_100_grad_rows_of_one_core_in_one_transfer() -> None:
    """N = 100, D = 8 fp32, 10 rows, int64 indices i % 10, Ascend910B, atomic: 3,200 bytes of grad and 800 of
    indices are far below 32 KiB per core, so one core does everything: zero fill of the 10 x 8 fp32 output
    (80 elements in chunks of 64: 2 DataCopy, 320 bytes), the 100 indices (one DataCopyPad, 800 bytes), all
    100 grad rows in one tile (one DataCopyPad, 3,200 bytes; a row per DataCopy before: 100 transfers) and
    100 atomic adds of one 32-byte row each; D fills whole blocks and there is no scaling, so the output is the
    accumulator and no final pass runs: 104 transfers, 7,520 bytes."""
    call("Ascend910B", np.arange(100, dtype=np.int64) % 10, 8, 10, False)
    cs = cores("Ascend910B")
    assert len(cs) == 1
    assert total(cs, "dma_transfers") == 2 + 1 + 1 + 100
    assert total(cs, "dma_bytes") == 320 + 800 + 3200 + 100 * 32
    assert total(cs, "gm_bytes_atomic_added") == 100 * 32


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_deterministic_owner_sums_its_run_in_ub_and_writes_once(product: str) -> None:
    """N = 100, D = 8 fp32, 10 rows, indices i // 10 (row r at positions 10r .. 10r + 9), deterministic: one row
    per core (10 cores), each reads the 100 indices (800 bytes, one transfer), its run of 10 consecutive grad
    rows in one tile (320 bytes) and writes its 32-byte row of out once from UB: 3 transfers and 1,152 bytes
    per core, no GM atomics. Before, each core zero-filled its row, read and wrote its accumulator row per
    index (10 x 2 transfers) and read each grad row by itself (10 transfers)."""
    call(product, np.arange(100, dtype=np.int64) // 10, 8, 10, True)
    cs = cores(product)
    assert len(cs) == 10
    for c in cs:
        assert int(c["dma_transfers"]) == 3
        assert int(c["dma_bytes"]) == 800 + 320 + 32
        assert int(c["gm_bytes_atomic_added"]) == 0
        assert int(c["gm_bytes_written"]) == 32


def test_small_rows_of_partial_blocks_move_as_one_range_on_ascend910() -> None:
    """Ascend910 (no DataCopyPad), D = 3 fp32 (12-byte rows), 10 rows, 100 indices i // 10, deterministic: each
    of the 10 cores reads the 100 int64 indices (one DataCopy, 800 bytes) and its run of 10 rows as one range
    of 30 floats: one DataCopy of its 24 whole-block floats (96 bytes), the 6 left by the scalar unit; its one
    3-float output row is below a block, so the scalar unit writes it: 2 transfers, 896 bytes per core (one
    DataCopy per row before: none of a 12-byte row is a whole block, so every grad element went scalar)."""
    call("Ascend910", np.arange(100, dtype=np.int64) // 10, 3, 10, True)
    cs = cores("Ascend910")
    assert len(cs) == 10
    for c in cs:
        assert int(c["dma_transfers"]) == 2
        assert int(c["dma_bytes"]) == 800 + 96


def test_deterministic_ub_high_water_is_the_queues_plus_the_tile_and_the_ub_sums() -> None:
    """Ascend910B, D = 8 fp32, int64 indices: the indices queue (16,384 bytes), the accumulator and output
    queues (64 fp32 each: 256 bytes each), one owned row of UB sums (32 bytes) and two grad tiles (double
    buffering) of 2,048 rows (an index chunk of int64: 16,384 / 8) of 32 bytes: 16,384 + 512 + 32 + 2 x 65,536
    = 148,000 bytes."""
    call("Ascend910B", np.arange(100, dtype=np.int64) // 10, 8, 10, True)
    assert max(int(c["ub_high_water_bytes"]) for c in cores("Ascend910B")) == 16384 + 512 + 32 + 2 * 65536


def test_strided_tile_when_d_is_sliced_on_ascend910() -> None:
    """Ascend910 (no DataCopyPad), 7 rows of D = 1032 fp32 (4,128 bytes: whole 32-byte blocks), 500 indices:
    the deterministic owners split D into slices, so a tile is a strided DataCopy (blockCount rows, blockLen
    the slice); the sums stay exact and every grad byte is read by a DMA: the grad bytes each core reads are
    its slice of the rows it owns, so over all cores at least 500 x 1032 x 4 bytes move, in fewer transfers
    than there are (index, slice) pairs."""
    rng = np.random.default_rng(7)
    indices = rng.integers(0, 7, 500).astype(np.int64)
    call("Ascend910", indices, 1032, 7, True)
    cs = cores("Ascend910")
    t = tiling_decision(SPECS[OP], CATALOGUE.get("Ascend910"), (500, 1032), 7, DType.FLOAT, DType.INT64, True)
    assert t.row_split.slices > 1
    index_reads = len(cs) * 500 * 8
    assert total(cs, "dma_bytes") >= 500 * 1032 * 4 + index_reads
    assert total(cs, "dma_transfers") < 500 * t.row_split.slices


@pytest.mark.parametrize(
    ("product", "shape", "det"),
    [
        ("Ascend910B", (4096, 128, 16384), False),
        ("Ascend910B", (4096, 128, 16384), True),
        # D = 8: below 131072 indices, where the sorted strategy's records take over
        ("Ascend910B", (8192, 8, 65536), False),
        ("Ascend910B", (1000, 40, 10000), True),
        ("Ascend910", (4096, 128, 16384), True),
        ("Ascend910", (1000, 40, 10000), True),
    ],
)
def test_gm_bytes_estimate_stays_within_3_percent_of_the_counters(
    product: str, shape: tuple[int, int, int], det: bool
) -> None:
    """The tiling's estimate of the atomic / deterministic strategy's GM bytes (what it weighs against the
    sorted strategy) against the emulator's count of the same call (uniform int64 indices, no scaling)."""
    w, d, n = shape
    params = edb_inputs(w, d, n, seed=5)
    op(product)(deterministic=det, **params)
    cs = cores(product)
    counted = total(cs, "gm_bytes_read") + total(cs, "gm_bytes_written") + total(cs, "gm_bytes_atomic_added")
    t = tiling_decision(SPECS[OP], CATALOGUE.get(product), (n, d), w, DType.FLOAT, DType.INT64, det)
    assert not t.sorted_run
    assert abs(t.other_bytes_estimate - counted) <= 0.03 * counted, (t.other_bytes_estimate, counted)


def test_the_next_tile_is_copied_before_the_current_one_is_added() -> None:
    """Double buffering: the atomic strategy's tiles are queued two deep, so the kernel holds two grad tile
    buffers; with one tile (N = 100 < tileRows) only the first is used, and the high-water mark still counts
    both: indices 16,384 + accumulator and output queues 2 x 256 + 2 tiles x 2,048 rows x 32 bytes."""
    call("Ascend910B", np.arange(100, dtype=np.int64) % 10, 8, 10, False)
    assert max(int(c["ub_high_water_bytes"]) for c in cores("Ascend910B")) == 16384 + 512 + 2 * 2048 * 32


def test_explain_names_the_small_dim_path_and_where_the_sums_live() -> None:
    # 4 rows, N = 4096: the sort would move more GM bytes than either strategy (its count matrix and flushes
    # outweigh 4096 short rows), so both are kept
    small = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (4, 8, 4096), None)
    assert "small-dim path: a grad row is 32 bytes (< 512), so a transfer carries up to 2048 rows" in small
    assert "sums: owned rows x D-slice in UB" in small and "written once to out" in small
    assert "sums: each tile row added with SetAtomicAdd<float>" in small
    assert "one DataCopyPad (blockCount rows" in small
    assert "2 tiles in flight (the next tile's copy is issued before the current tile is added)" in small
    wide = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (4096, 128, 4096), None)
    assert "small-dim path" not in wide
    old = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (8192, 12, 131072), None)
    assert "one contiguous DataCopy of the run's whole 32-byte blocks, the tail and the spread" in old
    assert "small-dim path: a grad row is 48 bytes (< 512)" in old
    sliced = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (7, 1030, 500), None)
    assert "row by row (Ascend910 has no DataCopyPad and a 4120-byte row is not whole 32-byte blocks)" in sliced
    # the article follows the number's sound (found by a review helper: 'a 808-byte row', 'a 8-byte record')
    eight = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (7, 202, 500), None)
    assert "row by row (Ascend910 has no DataCopyPad and an 808-byte row is not whole 32-byte blocks)" in eight
    record = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (100, 1, 1000000), None)
    assert "with records (grad read contiguously, an 8-byte record per entry written and read twice)" in record
    aligned = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (65536, 8, 4096), None)
    assert "one contiguous DataCopy (whole rows)" in aligned
    # rows of 8200 bytes (not whole 32-byte blocks: no sort on Ascend910) too many to sum in UB
    big = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (600, 2050, 64), None)
    assert "read-add-write of the owned accumulator row in GM" in big
