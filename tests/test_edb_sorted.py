"""EmbeddingDenseBackward's sorted-run strategy (tiling keys 2xx atomic mode, 3xx deterministic mode) end to end.

The strategy runs where it moves fewer estimated GM bytes at a lower transfer cost, at every N (once every
core's index range fills its bucket staging slots, 2^20 indices on Ascend910B, the lower cost alone decides);
on Ascend910 (no DataCopyPad, no hardware SyncAll) only for
rows of whole 32-byte blocks, with the software SyncAll on the device op's zero-initialised counters output. Covered:
every index distribution of the bench against a float64 loop, padding and invalid indices with
scaleGradByFreq, bit-identical deterministic output over core orders without GM atomics, atomics in atomic
mode only for the rows of buckets that cross a core boundary, the C++ tiling equal to the Python planner,
``opgen explain`` printing the planner's numbers, the DMA counters, the scalar accesses per core (not per core x
bucket), and below the staging size the planner's GM-byte estimate against the emulator's counters and the
minimum GM bytes.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from bench.traffic import minimum_bytes
from bench.workloads import DISTRIBUTIONS, EDB, NO_PADDING, edb_inputs
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.families.index_accumulate.plan.tiling_report import explain_tiling
from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.model import DType
from codegen.specs import load_project

OP = "embedding_dense_backward"
CATALOGUE, SPECS = load_project()
_BUILT: dict[str, OpCallable] = {}
N = 1 << 20  # indices of the sorted-run calls: every core of Ascend910B fills its staging slots
W = 5000
D = 4


def _reference() -> ModuleType:
    path = project_paths().reference / f"{OP}.py"
    spec = importlib.util.spec_from_file_location("edb_sorted_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _reference()


def op(product: str) -> OpCallable:
    """The op built for ``product`` (once per session)."""
    if product not in _BUILT:
        _BUILT[product] = compile_op(OP, product, generated=os.environ.get("OPGEN_TEST_GENERATED"))
    return _BUILT[product]


def plain_loop(grad: np.ndarray, indices: np.ndarray, w: int, padding: int, scale: bool) -> np.ndarray:
    """float64 sums by a plain bincount per column (independent of the kernel and of the reference module)."""
    pad = int(np.int64(np.uint64(padding)))
    keep = (indices >= 0) & (indices < w) & (indices != pad)
    rows = indices[keep]
    out = np.stack(
        [np.bincount(rows, weights=grad[keep, k].astype(np.float64), minlength=w) for k in range(grad.shape[1])], axis=1
    )
    if scale:
        counts = np.bincount(rows, minlength=w).astype(np.float64)
        out /= np.maximum(counts, 1.0)[:, None]
    return out


def launch(product: str) -> dict[str, Any]:
    return op(product).last_stats["launches"][0]


def atomic_bytes(lnc: dict[str, Any]) -> int:
    return sum(int(c["gm_bytes_atomic_added"]) for c in lnc["cores"])


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_sorted_run_matches_a_plain_loop_for_every_distribution(dist: str) -> None:
    params = edb_inputs(W, D, N, dist=dist, seed=3)
    got = op("Ascend910B")(deterministic=False, **params)
    lnc = launch("Ascend910B")
    assert lnc["tiling_key"] // 100 == 2, lnc["tiling_key"]  # sorted-run, atomic mode
    want = plain_loop(params["grad"], params["indices"], W, params["paddingIdx"], False)
    # the fp32 summation bound of the project's reference (a hot Zipf row sums ~10^5 values)
    atol, _ = REF.tolerance(params["grad"], params["indices"], W, params["paddingIdx"], False)
    assert np.all(np.abs(got - want) <= atol + np.spacing(np.abs(want).astype(np.float32)))
    if dist == "all-padding":
        assert not got.any()
        assert atomic_bytes(lnc) == 0  # nothing to sort: every bucket is written once, by one core


@pytest.mark.parametrize("scale", [False, True])
def test_sorted_run_padding_invalid_indices_and_scaling(scale: bool) -> None:
    rng = np.random.default_rng(21)
    grad = rng.standard_normal((N, D)).astype(np.float32)
    indices = rng.integers(-3, W + 3, N)  # invalid on both sides
    indices[::7] = 17  # the padding row, used often
    got = op("Ascend910B")(
        deterministic=False, grad=grad, indices=indices, numWeights=W, paddingIdx=17, scaleGradByFreq=scale
    )
    assert launch("Ascend910B")["tiling_key"] // 100 == 2
    want = plain_loop(grad, indices, W, 17, scale)
    assert not got[17].any()
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-4)


def test_sorted_run_fp16_grad_accumulates_in_fp32() -> None:
    rng = np.random.default_rng(22)
    grad = rng.standard_normal((N, D)).astype(np.float16)
    indices = rng.integers(0, W, N)
    out = np.zeros((W, D), np.float32)
    got = op("Ascend910B")(
        deterministic=True,
        grad=grad,
        indices=indices,
        numWeights=W,
        paddingIdx=NO_PADDING,
        scaleGradByFreq=False,
        out=out,
    )
    assert launch("Ascend910B")["tiling_key"] // 100 == 3
    want = plain_loop(grad, indices, W, NO_PADDING, False)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=2e-4)


def test_sorted_deterministic_is_bit_identical_over_core_orders_without_atomics() -> None:
    params = edb_inputs(W, D, N, dist="zipf", seed=5, scale=True)
    params["grad"] = params["grad"] * np.exp(np.random.default_rng(6).uniform(-8, 8, (N, 1))).astype(np.float32)
    results = []
    for order, seed in (("in_order", 0), ("reversed", 0), ("shuffle", 7)):
        results.append(op("Ascend910B")(deterministic=True, core_order=order, seed=seed, **params))
        lnc = launch("Ascend910B")
        assert lnc["tiling_key"] // 100 == 3 and lnc["block_dim"] > 1
        assert atomic_bytes(lnc) == 0
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])
    ref = REF.reference(params["grad"], params["indices"], W, NO_PADDING, True)
    atol, _ = REF.tolerance(params["grad"], params["indices"], W, NO_PADDING, True)
    assert np.all(np.abs(results[0] - ref) <= atol + np.spacing(np.abs(ref).astype(np.float32)))


def test_atomic_mode_adds_atomically_only_the_rows_of_buckets_crossing_cores() -> None:
    params = edb_inputs(W, D, N, seed=8)
    op("Ascend910B")(deterministic=False, **params)
    lnc = launch("Ascend910B")
    t = lnc["tiling"]
    cores, bucket_rows = int(t["sortCores"]), int(t["sortBucketRows"])
    atomic = atomic_bytes(lnc)
    # each of the cores - 1 boundaries splits at most one bucket into two parts, each added atomically
    assert 0 < atomic <= 2 * (cores - 1) * bucket_rows * D * 4
    # without the sort every contribution would be an atomic add of a 32-byte block
    assert atomic < N * 32 // 100


def _tiling_request(shape: tuple[int, int], w: int, index: str, grad: str, det: bool, scale: bool) -> dict[str, Any]:
    return {
        "inputs": [{"shape": list(shape), "dtype": grad}, {"shape": [shape[0]], "dtype": index}],
        "outputs": [{"shape": [w, shape[1]], "dtype": "FLOAT"}],
        "attrs": [w, 3, scale],
        "deterministic": int(det),
    }


TILING_CASES = [
    # (product, grad shape, numWeights, index dtype, grad dtype, scale)
    ("Ascend910B", (1 << 20, 128), 65536, "INT64", "FLOAT", False),
    ("Ascend910B", (1 << 20, 4), 5000, "INT32", "FLOAT16", True),
    ("Ascend910_93", (3 << 20, 4100), 70000, "INT64", "BF16", True),
    # 2^19 rows: one D-chunk pass (with 2^20 rows the staging slots need D-chunks of 32, two 128-byte gathers
    # per entry, and the atomic strategy's one add per entry costs fewer transfers)
    ("Ascend950", (1 << 21, 64), 1 << 19, "INT64", "FLOAT", False),
    ("Ascend910", (1 << 20, 128), 65536, "INT64", "FLOAT", False),
    ("Ascend910", (1 << 20, 16), 5000, "INT32", "FLOAT16", True),
    ("Ascend910", (1 << 20, 4), 5000, "INT64", "FLOAT", True),
    ("Ascend910", (1 << 20, 12), 5000, "INT64", "FLOAT16", False),
    ("Ascend910B", (5000, 128), 65536, "INT64", "FLOAT", False),
]


@pytest.mark.parametrize("det", [False, True])
@pytest.mark.parametrize(("product", "shape", "w", "index", "grad", "scale"), TILING_CASES)
def test_sorted_tiling_matches_the_planner(
    product: str, shape: tuple[int, int], w: int, index: str, grad: str, scale: bool, det: bool
) -> None:
    result = op(product).run_tiling(_tiling_request(shape, w, index, grad, det, scale))
    assert result["status"] == 0, result
    want = tiling_decision(SPECS[OP], CATALOGUE.get(product), shape, w, DType[grad], DType[index], det, 3, scale)
    assert result["tiling_key"] == want.tiling_key
    assert result["block_dim"] == want.block_dim
    assert result["workspace_sizes"][0] == want.workspace_bytes
    fields = result["tiling"]
    for name, value in want.tiling_fields().items():
        assert int(fields[name]) == value, name
    prod = CATALOGUE.get(product)
    # without DataCopyPad only rows of whole 32-byte blocks (written out here, not taken from the planner)
    whole_blocks = shape[1] * {"FLOAT": 4, "FLOAT16": 2, "BF16": 2}[grad] % 32 == 0
    sorted_path = (prod.data_copy_pad or whole_blocks) and shape[0] >= 1 << 20
    assert (result["tiling_key"] // 100 >= 2) == sorted_path
    if sorted_path:  # the UB the sorted kernel uses stays within the product's UB
        assert want.sort.ub_bytes <= prod.ub_bytes
        assert want.sort.bucket_rows * want.sort.buckets >= w > (want.sort.buckets - 1) * want.sort.bucket_rows


def test_explain_prints_the_choice_with_the_tiling_numbers() -> None:
    text = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (65536, 128, 1 << 20), None)
    for det in (False, True):
        t = tiling_decision(
            SPECS[OP], CATALOGUE.get("Ascend910B"), (1 << 20, 128), 65536, DType.FLOAT, DType.INT64, det, scale=True
        )
        assert t.sorted_run
        costs = f"sorted-run with pairs {t.sorted_cost_estimate} vs {'deterministic' if det else 'atomic'} "
        figures = f"{t.other_cost_estimate} (GM bytes {t.sorted_bytes_estimate} vs {t.other_bytes_estimate})"
        assert costs + figures + ": sorted-run strategy chosen" in text
        assert f"tiling key {t.tiling_key}), blockDim {t.block_dim}" in text
        assert f"{t.sort.buckets} row buckets of {t.sort.bucket_rows} rows" in text
    small = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910B"), (1000, 32, 4096), None)
    # records would cost less but move more GM bytes, and 4096 indices do not fill 16 cores' staging slots
    assert "atomic strategy kept (fewer GM bytes, and 4096 indices are fewer than cores x buckets x staging" in small
    a910 = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (65536, 128, 1 << 20), None)
    assert "deterministic mode: transfer cost (GM bytes, each DMA counted as at least 512 bytes) sorted-run" in a910
    assert "sorted-run strategy chosen" in a910
    assert "barriers: software SyncAll(gmWorkspace, ubWorkspace) on the syncCounters output" in a910
    assert "padded to 4 pairs (whole 32-byte blocks)" in a910
    odd = explain_tiling(SPECS[OP], CATALOGUE.get("Ascend910"), (5000, 4, 1 << 20), None)
    assert "sorted-run strategy not possible (Ascend910 has no DataCopyPad and a row of 4 elements is 16 bytes" in odd


def test_dma_counters_cover_the_grad_and_stay_within_the_gm_bytes() -> None:
    """The (row, position) pairs path: 1000 rows of D 16 make ~170 buckets whose staging slots hold fewer than 8
    records of 68 bytes, so the small-dim variant cannot run and phase 3 gathers every grad row by position."""
    params = edb_inputs(1000, 16, N, seed=9)
    op("Ascend910B")(deterministic=False, **params)
    lnc = launch("Ascend910B")
    assert lnc["tiling_key"] // 100 == 2 and int(lnc["tiling"]["sortSmallDim"]) == 0
    cores = lnc["cores"]
    transfers = sum(int(c["dma_transfers"]) for c in cores)
    dma = sum(int(c["dma_bytes"]) for c in cores)
    gm = sum(int(c["gm_bytes_read"]) + int(c["gm_bytes_written"]) + int(c["gm_bytes_atomic_added"]) for c in cores)
    # every grad row is moved by a DMA (gathered, never read by the scalar unit); a transfer moves > 0 bytes
    assert params["grad"].nbytes <= dma <= gm
    assert N // 2 < transfers <= dma


def test_the_refusal_and_the_barriers_follow_the_product_fields() -> None:
    """The plan is built from the catalogue fields, not the product name: without DataCopyPad rows that are not
    whole 32-byte blocks are refused (whole-block rows sort), without hardware SyncAll the barriers are the
    software SyncAll, and a product with both uses the hardware barrier without padding pairs."""
    base = CATALOGUE.get("Ascend910B")
    shape = (65536, 128, 1 << 20)
    no_pad = explain_tiling(SPECS[OP], dataclasses.replace(base, name="NoPadSoC", data_copy_pad=False), shape, None)
    assert "sorted-run strategy chosen" in no_pad and "barriers: hardware SyncAll; no DataCopyPad" in no_pad
    odd = explain_tiling(
        SPECS[OP], dataclasses.replace(base, name="NoPadSoC", data_copy_pad=False), (5000, 6, 1 << 20), None
    )
    assert "sorted-run strategy not possible (NoPadSoC has no DataCopyPad and a row of 6 elements is 24 bytes" in odd
    no_sync = explain_tiling(SPECS[OP], dataclasses.replace(base, name="NoSyncSoC", hw_sync_all=False), shape, None)
    assert "sorted-run strategy chosen" in no_sync
    assert "barriers: software SyncAll(gmWorkspace, ubWorkspace) on the syncCounters output" in no_sync
    assert "DataCopyPad" not in no_sync.split("barriers:", 1)[1].split("\n", 1)[0]
    both = explain_tiling(SPECS[OP], dataclasses.replace(base, name="BothSoC"), shape, None)
    assert "not possible" not in both and "barriers: hardware SyncAll\n" in both


@pytest.mark.parametrize(("product", "det"), [("Ascend910B", False), ("Ascend910B", True), ("Ascend910", True)])
def test_below_the_staging_size_the_sort_moves_at_most_115_percent_of_the_minimum(product: str, det: bool) -> None:
    """W = 16384, D = 128, N = 2^18 int64 uniform indices: fewer than the cores' staging slots hold (48 x 191 x 56
    on Ascend910B), where the atomic strategy moved 1.82x and the deterministic one 3.34x the minimum GM bytes
    (one read-add-write or atomic add per contribution). The sort moves fewer bytes, so the tiling takes it; its
    GM bytes are the planner's estimate within 3% and at most 1.15x the minimum the math needs (grad and indices
    read once, out written once and zero-filled once: bench/traffic.py), and the sums are the plain loop's."""
    w, d, n = 16384, 128, 1 << 18
    params = edb_inputs(w, d, n, seed=21)
    got = op(product)(deterministic=det, **params)
    lnc = launch(product)
    assert lnc["tiling_key"] // 100 == 3 if det or product == "Ascend910" else lnc["tiling_key"] // 100 == 2
    t = tiling_decision(SPECS[OP], CATALOGUE.get(product), (n, d), w, DType.FLOAT, DType.INT64, det)
    assert t.sorted_run and n < t.sort.cores * t.sort.buckets * t.sort.stage
    gm = sum(
        int(c["gm_bytes_read"]) + int(c["gm_bytes_written"]) + int(c["gm_bytes_atomic_added"]) for c in lnc["cores"]
    )
    assert abs(t.sorted_bytes_estimate - gm) <= 0.03 * gm, (t.sorted_bytes_estimate, gm)
    assert gm <= 1.15 * minimum_bytes(EDB, params, got), (gm, minimum_bytes(EDB, params, got))
    want = plain_loop(params["grad"], params["indices"], w, int(params["paddingIdx"]), False)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_sorted_deterministic_below_the_staging_size_is_bit_identical_over_core_orders(product: str) -> None:
    """W = 4096, D = 64, N = 32768 (fewer indices than the cores' staging slots hold): deterministic mode takes
    the sorted-run strategy on every core (Ascend910: its software SyncAll) with partial flushes only, and gives
    the same bits in every core order, with no GM atomic add."""
    w, d, n = 4096, 64, 1 << 15
    t = tiling_decision(SPECS[OP], CATALOGUE.get(product), (n, d), w, DType.FLOAT, DType.INT64, True)
    assert t.sorted_run and t.sort.cores == CATALOGUE.get(product).vector_core_num
    assert n < t.sort.cores * t.sort.buckets * t.sort.stage
    params = edb_inputs(w, d, n, dist="zipf", seed=23)
    params["grad"] = params["grad"] * np.exp(np.random.default_rng(24).uniform(-8, 8, (n, 1))).astype(np.float32)
    results = []
    for order, seed in (("in_order", 0), ("reversed", 0), ("shuffle", 5), ("concurrent", 0)):
        results.append(op(product)(deterministic=True, core_order=order, seed=seed, **params))
        lnc = launch(product)
        assert lnc["tiling_key"] // 100 == 3 and atomic_bytes(lnc) == 0
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])
    want = plain_loop(params["grad"], params["indices"], w, int(params["paddingIdx"]), False)
    np.testing.assert_allclose(results[0].astype(np.float64), want, rtol=1e-4, atol=1e-3 * np.abs(want).max())


D910 = 8  # fp32 elements of a row on Ascend910: one whole 32-byte block (no DataCopyPad there)


@pytest.mark.parametrize("det", [False, True])
def test_ascend910_runs_the_sorted_strategy_at_large_n_in_both_modes(det: bool) -> None:
    """Ascend910 has neither DataCopyPad nor hardware SyncAll: both modes run the sorted strategy's
    deterministic mode (key 3xx) with the software barrier, padding and invalid indices and scaling included."""
    params = edb_inputs(W, D910, N, dist="zipf", seed=11, scale=True)
    params["paddingIdx"] = 17
    params["indices"][::97] = -3  # invalid: contribute nothing
    params["indices"][5::101] = W + 4
    got = op("Ascend910")(deterministic=det, **params)
    lnc = launch("Ascend910")
    assert lnc["tiling_key"] // 100 == 3 and lnc["block_dim"] == 32
    assert atomic_bytes(lnc) == 0
    # the launch zero-fills the software SyncAll's counters (OpDef InitValue(0)): 64 cores x 32 bytes, counted
    host = op("Ascend910").last_stats.get("host_tasks", [])
    assert [h["bytes_written"] for h in host if h["kind"] == "InitValue"] == [64 * 32]
    want = plain_loop(params["grad"], params["indices"], W, 17, True)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=2e-5)
    assert np.all(got[17] == 0)


def test_ascend910_sorted_is_bit_identical_over_core_orders() -> None:
    params = edb_inputs(W, D910, N, dist="uniform", seed=12, scale=False)
    params["grad"] = params["grad"] * np.exp(np.random.default_rng(13).uniform(-8, 8, (N, 1))).astype(np.float32)
    results = []
    for order, seed in (("in_order", 0), ("reversed", 0), ("shuffle", 3), ("concurrent", 0)):
        results.append(op("Ascend910")(deterministic=False, core_order=order, seed=seed, **params))
        lnc = launch("Ascend910")
        assert lnc["tiling_key"] // 100 == 3 and atomic_bytes(lnc) == 0
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])


def test_tiling_equals_the_planner_on_random_shapes() -> None:
    """The C++ tiling and the Python planner make the same choice, bit for bit, over 300 seeded random calls
    (every product with a build here, both modes, scaling on and off, three grad dtypes, two index dtypes,
    N from 1 to 2^23, D from 1 to 5000, numWeights from 1 to 2^21): the transfer-cost model behind the choice
    of strategy and of records vs pairs is the same arithmetic on both sides."""
    rng = np.random.default_rng(2026)
    for _ in range(300):
        product = str(rng.choice(["Ascend910B", "Ascend950", "Ascend910"]))
        grad = str(rng.choice(["FLOAT", "FLOAT16"] + (["BF16"] if product != "Ascend910" else [])))
        index = str(rng.choice(["INT64", "INT32"]))
        n = int(rng.choice([1, 7, 50_000, 1 << 17, 1 << 20, 3 << 20, int(rng.integers(1, 1 << 23))]))
        d = int(rng.choice([1, 3, 8, 12, 16, 40, 64, 128, 1000, int(rng.integers(1, 5000))]))
        w = int(rng.choice([1, 100, 8192, 65536, 1 << 20, int(rng.integers(1, 1 << 21))]))
        det, scale = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        result = op(product).run_tiling(_tiling_request((n, d), w, index, grad, det, scale))
        assert result["status"] == 0, result
        want = tiling_decision(SPECS[OP], CATALOGUE.get(product), (n, d), w, DType[grad], DType[index], det, 3, scale)
        case = (product, grad, index, n, d, w, det, scale)
        assert result["tiling_key"] == want.tiling_key, case
        assert result["workspace_sizes"][0] == want.workspace_bytes, case
        for name, value in want.tiling_fields().items():
            assert int(result["tiling"][name]) == value, (name, case)


def test_sorted_scalar_work_does_not_grow_with_cores_times_buckets() -> None:
    """W = 262144, D = 64, N = 2^16 deterministic on Ascend910B: 781 buckets on 48 cores, 1365 indices a core.
    Each core sums the 48 rows of the count matrix: with vector Adds its scalar unit does a few accesses per
    index and per bucket, fewer than one per (core, bucket) pair (a scalar sum takes three per pair, 112k).
    Counted from the slowest core's busy S cycles over the catalogue's cost of one access."""
    w, d, n = 262144, 64, 1 << 16
    params = edb_inputs(w, d, n, seed=3)
    op("Ascend910B")(deterministic=True, **params)
    lnc = launch("Ascend910B")
    tiling = lnc["tiling"]
    assert lnc["tiling_key"] // 100 == 3
    cores, buckets = int(tiling["sortCores"]), int(tiling["sortBuckets"])
    assert (cores, buckets) == (48, 781)
    model = CATALOGUE.get("Ascend910B").cost_model
    assert model is not None
    accesses = lnc["timeline"]["pipe_busy_cycles"]["S"] / model.scalar_access_cycles.value
    assert n // cores < accesses < cores * buckets, accesses
    # the only scalar waits are the MTE2 -> S flags after a pair chunk is copied in: one per chunk of at most
    # 1024 pairs of a bucket part (at most buckets + cores - 1 parts over the cores), none per index or pair
    assert 0 < lnc["timeline"]["scalar_waits"] <= buckets + cores - 1 + n // 1024
