"""EmbeddingDenseBackward's sorted-run small-dim variant (issue 17, item 3): records instead of gathers.

When a grad row is far below one efficient DMA the sorted-run strategy's phase 2 reads the grad rows of its
index range contiguously and writes records (row key, the row's fp32 values); phase 3 reads them
contiguously and never gathers a row by position. Covered: the C++ tiling equal to the Python planner on every
product (Ascend910 refuses the variant: no DataCopyPad), values against a float64 bincount with padding,
invalid indices and scaling in both modes, bit-identical deterministic output over core orders without GM
atomics, and the DMA counters (the expected sizes are worked out from the data movement in each test, not
taken from the planner).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from test_embedding_dense_backward import op  # the op built once per product for the EDB test files

from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.families.index_accumulate.plan.tiling_report import explain_tiling
from codegen.spec.model import DType
from codegen.specs import load_project

OP = "embedding_dense_backward"
CATALOGUE, SPECS = load_project()
PADDING = 17


def plain_loop(grad: np.ndarray, indices: np.ndarray, w: int, padding: int, scale: bool) -> np.ndarray:
    """float64 sums by a bincount per column (independent of the kernel and of the reference module)."""
    keep = (indices >= 0) & (indices < w) & (indices != padding)
    rows = indices[keep]
    cols = [np.bincount(rows, weights=grad[keep, k].astype(np.float64), minlength=w) for k in range(grad.shape[1])]
    out = np.stack(cols, axis=1)
    if scale:
        out /= np.maximum(np.bincount(rows, minlength=w).astype(np.float64), 1.0)[:, None]
    return out


def inputs(n: int, d: int, w: int, seed: int, dtype: Any = np.float32) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    grad = rng.standard_normal((n, d)).astype(dtype)
    indices = rng.integers(-2, w + 2, n)  # invalid on both sides
    indices[::11] = PADDING
    return grad, indices


def launch(product: str) -> dict[str, Any]:
    launches = op(product).last_stats["launches"]
    assert len(launches) == 1
    return dict(launches[0])


def total(lnc: dict[str, Any], key: str) -> int:
    return sum(int(c[key]) for c in lnc["cores"])


@pytest.mark.parametrize("det", [False, True])
@pytest.mark.parametrize(
    ("product", "shape", "w", "grad", "scale", "small"),
    [
        ("Ascend910B", (500_000, 1), 100, "FLOAT", False, True),
        ("Ascend910B", (80_000, 8), 100, "FLOAT", True, True),
        ("Ascend910_93", (60_000, 3), 50, "FLOAT16", True, True),
        ("Ascend950", (160_000, 8), 100, "BF16", True, True),
        # 516-byte records: the staging slots of 391 buckets hold fewer than 8 of them, so pairs
        ("Ascend910B", (1 << 20, 128), 65536, "FLOAT", True, False),
        # no DataCopyPad: records of 36 bytes are not whole 32-byte blocks
        ("Ascend910", (1 << 20, 8), 5000, "FLOAT", True, False),
    ],
)
def test_small_dim_tiling_matches_the_planner(
    product: str, shape: tuple[int, int], w: int, grad: str, scale: bool, small: bool, det: bool
) -> None:
    request = {
        "inputs": [{"shape": list(shape), "dtype": grad}, {"shape": [shape[0]], "dtype": "INT64"}],
        "outputs": [{"shape": [w, shape[1]], "dtype": "FLOAT"}],
        "attrs": [w, PADDING, scale],
        "deterministic": int(det),
    }
    result = op(product).run_tiling(request)
    assert result["status"] == 0, result
    want = tiling_decision(SPECS[OP], CATALOGUE.get(product), shape, w, DType[grad], DType.INT64, det, PADDING, scale)
    assert result["tiling_key"] == want.tiling_key
    assert result["workspace_sizes"][0] == want.workspace_bytes
    fields = result["tiling"]
    for name, value in want.tiling_fields().items():
        assert int(fields[name]) == value, name
    assert result["tiling_key"] // 100 >= 2  # the sorted-run strategy
    assert int(fields["sortSmallDim"]) == int(small)
    if small:  # records of D + 1 int32 words: the pair buffer (1024 pairs, 8 KiB) holds 2048 // (D + 1)
        assert int(fields["sortPairChunk"]) == 2048 // (shape[1] + 1)
        assert want.sort.ub_bytes <= CATALOGUE.get(product).ub_bytes


@pytest.mark.parametrize("det", [False, True])
def test_small_dim_sums_records_without_gathers(det: bool) -> None:
    """N = 500,000, D = 1 fp32, 100 rows on Ascend910B: 48 cores, one row per bucket, so the 100 buckets of
    ~5,000 entries cross core boundaries. A gather path needs one DMA per entry (> N). Here each core of
    ~10,417 indices makes 2 x 6 index copies (2,048 int64 per copy), 6 grad copies (the rows of each index
    copy, 16 KiB), 48 count-matrix reads, and per bucket ~100 records staged in slots of 104 (1-2 flushes)
    plus phase 3's record reads (8 KiB each) and one output write: about 200 transfers per core, well below
    N / 32 in all; the bytes moved (grad and indices once or twice, 8-byte records written and read) average
    more than the 512 bytes of one efficient DMA."""
    n, d, w = 500_000, 1, 100
    grad, indices = inputs(n, d, w, seed=31)
    got = op("Ascend910B")(
        deterministic=det, grad=grad, indices=indices, numWeights=w, paddingIdx=PADDING, scaleGradByFreq=False
    )
    lnc = launch("Ascend910B")
    assert lnc["tiling_key"] // 100 == (3 if det else 2)
    assert int(lnc["tiling"]["sortSmallDim"]) == 1
    assert lnc["block_dim"] == 48
    np.testing.assert_allclose(got.astype(np.float64), plain_loop(grad, indices, w, PADDING, False), atol=2e-3)
    assert not got[PADDING].any()
    transfers, moved = total(lnc, "dma_transfers"), total(lnc, "dma_bytes")
    assert moved >= grad.nbytes + indices.nbytes  # grad and indices are moved by DMAs, never gathered by scalar
    assert transfers < n // 32
    assert moved / transfers >= 512
    if det:
        assert total(lnc, "gm_bytes_atomic_added") == 0


def test_small_dim_reads_only_the_grad_rows_of_contributing_entries() -> None:
    """N = 80,000, D = 8 fp32, 100 rows (Ascend910B, the small-dim variant): phase 2 reads, per tile, the grad
    rows from its first to its last contributing entry. With every index the padding row or out of range no
    grad byte moves: what moves is the int64 indices read twice (1,280,000 bytes), the count matrix and the
    zero output; with the first and last half of the indices padding, the
    middle half of the grad (1,280,000 bytes) moves and the sums match a float64 loop."""
    n, d, w = 80_000, 8, 100
    grad, _ = inputs(n, d, w, seed=35)
    indices = np.where(np.arange(n) % 2 == 0, PADDING, w + 5).astype(np.int64)
    got = op("Ascend910B")(
        deterministic=False, grad=grad, indices=indices, numWeights=w, paddingIdx=PADDING, scaleGradByFreq=False
    )
    lnc = launch("Ascend910B")
    assert lnc["tiling_key"] // 100 == 2 and int(lnc["tiling"]["sortSmallDim"]) == 1
    assert not got.any()
    idle = total(lnc, "dma_bytes")
    # indices twice; the [48, 100] int32 count matrix (one row per bucket: 100 rows < 4 x 48) written once and
    # read whole by every core; the zero output rows (100 x 8 fp32); no grad
    matrix = 48 * 100 * 4 + 48 * 48 * 100 * 4
    assert 2 * indices.nbytes + matrix <= idle <= 2 * indices.nbytes + matrix + w * d * 4
    indices = np.full(n, PADDING, np.int64)
    indices[n // 4 : 3 * n // 4] = np.random.default_rng(36).integers(0, w, n // 2)
    got = op("Ascend910B")(
        deterministic=False, grad=grad, indices=indices, numWeights=w, paddingIdx=PADDING, scaleGradByFreq=False
    )
    lnc = launch("Ascend910B")
    np.testing.assert_allclose(got.astype(np.float64), plain_loop(grad, indices, w, PADDING, False), atol=2e-3)
    # the middle half of grad moves once, plus the records: 36 bytes written and read per contributing entry
    # (the random middle also hits the padding row), plus what the split buckets add (< 48 x 2 rows x 32 bytes)
    records = 2 * 36 * int((indices != PADDING).sum())
    assert grad.nbytes // 2 + records <= total(lnc, "dma_bytes") - idle < grad.nbytes // 2 + records + 10_000


def test_small_dim_deterministic_is_bit_identical_over_core_orders() -> None:
    """N = 80,000, D = 8 fp32 with scaling, 100 rows (Ascend910B): records of 9 words, buckets split between
    cores; the summation order is the stable sort order, so every core order gives the same bits, no atomics."""
    n, d, w = 80_000, 8, 100
    grad, indices = inputs(n, d, w, seed=32)
    grad = grad * np.exp(np.random.default_rng(33).uniform(-8, 8, (n, 1))).astype(np.float32)  # cancellation
    results = []
    for order, seed in (("in_order", 0), ("reversed", 0), ("shuffle", 5), ("shuffle", 9)):
        results.append(
            op("Ascend910B")(
                deterministic=True,
                core_order=order,
                seed=seed,
                grad=grad,
                indices=indices,
                numWeights=w,
                paddingIdx=PADDING,
                scaleGradByFreq=True,
            )
        )
        lnc = launch("Ascend910B")
        assert lnc["tiling_key"] // 100 == 3 and int(lnc["tiling"]["sortSmallDim"]) == 1
        assert total(lnc, "gm_bytes_atomic_added") == 0
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])
    want = plain_loop(grad, indices, w, PADDING, True)
    scale = np.abs(grad).max()
    np.testing.assert_allclose(results[0].astype(np.float64), want, atol=scale * 1e-5)


def test_small_dim_fp16_values_accumulate_in_fp32() -> None:
    """fp16 grad (D = 3, 50 rows, Ascend910B, scaling): the records carry the values cast to fp32, so the
    means match a float64 loop to fp32 rounding."""
    n, d, w = 60_000, 3, 50
    grad, indices = inputs(n, d, w, seed=34, dtype=np.float16)
    out = np.zeros((w, d), np.float32)
    got = op("Ascend910B")(
        deterministic=False,
        grad=grad,
        indices=indices,
        numWeights=w,
        paddingIdx=PADDING,
        scaleGradByFreq=True,
        out=out,
    )
    lnc = launch("Ascend910B")
    assert lnc["tiling_key"] // 100 == 2 and int(lnc["tiling"]["sortSmallDim"]) == 1
    np.testing.assert_allclose(got.astype(np.float64), plain_loop(grad, indices, w, PADDING, True), atol=1e-5)


def test_explain_names_the_variant_and_its_refusal() -> None:
    small = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (8192, 1, 1 << 20), None)
    found = re.search(
        r"small-dim variant: transfer cost \(GM bytes, each DMA counted as at least 512 bytes\) (\d+) "
        r"with records .* vs (\d+) with \(row, position\) pairs",
        small,
    )
    assert found, small
    records, pairs = int(found[1]), int(found[2])
    # with scaling, 2^20 int64 indices read twice (16 MiB), 4-byte grad rows read once (4 MiB), 8-byte records
    # written once and read twice (24 MiB): at least 44 MiB; short flushes and per-bucket writes add little
    assert 44 << 20 <= records <= 55 << 20
    # pairs: every entry gathers its 4-byte row, a DMA counted as 512 bytes (512 MiB), plus the same indices
    assert pairs >= (512 + 16) << 20
    assert "records of 2 int32 words" in small
    large = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (65536, 128, 1 << 20), None)
    # 65536 rows over 48 cores x 4 buckets: 192 buckets share ~80 KiB of staging, under one 516-byte record each
    assert "small-dim variant not used: UB too small for staging slots of 8 records of 516 bytes" in large
    a910 = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (5000, 8, 1 << 20), None)
    assert "small-dim variant not used: Ascend910 has no DataCopyPad and a record of a row key and 8 fp32" in a910
