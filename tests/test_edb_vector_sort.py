"""EmbeddingDenseBackward's sorted runs with phases 1-2 on the vector sort (Sort32 + MrgSort chunks, the bucket
boundaries by a search over the sorted keys, each (chunk, bucket) segment copied to its bucket's region) on a
product with the catalogue's ``vector_sort``, at the bench shape (W = 16384, D = 128, N = 2^18, Ascend910B).

Covered: the tiling takes the vector sort there (and the counting sort where its segments would be short), the
scalar unit's UB accesses per index of the slowest core (the emulator's busy S cycles over the catalogue's cost
of one access) stay far below the counting sort's, every row whose bucket one core sums equals a sequential
fp32 sum in position order bit for bit (the summation order of the counting sort), the GM bytes stay within
1.15x the minimum, and a planted fault (the V -> MTE3 wait between a segment's MrgSort copy to its 32-byte
block and its copy out removed) fails ``opgen check`` with a pipe race.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from generated_mutant import check_mutant

from bench.traffic import minimum_bytes
from bench.workloads import EDB, edb_inputs
from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.families.index_accumulate.plan.vector_sort import sort_chunk_ub
from codegen.runner import OpCallable, compile_op
from codegen.spec.model import DType
from codegen.specs import load_project

OP = "embedding_dense_backward"
CATALOGUE, SPECS = load_project()
W, D, N = 16384, 128, 1 << 18
_BUILT: dict[str, OpCallable] = {}

#: CopySegments' wait between a segment's MrgSort copy to its 32-byte block (V) and its UB -> GM copy (MTE3).
_SEGMENT_WAIT = "          SyncPipes<HardEvent::V_MTE3>(pipe_);  // the segment is in its block before it goes out\n"


def _op(product: str) -> OpCallable:
    if product not in _BUILT:
        _BUILT[product] = compile_op(OP, product, generated=os.environ.get("OPGEN_TEST_GENERATED"))
    return _BUILT[product]


def _launch(product: str) -> dict[str, Any]:
    return _op(product).last_stats["launches"][0]


def _fp32_in_position_order(grad: np.ndarray, indices: np.ndarray, w: int, padding: int) -> np.ndarray:
    """Each row's fp32 sum of its grad rows in position order, starting from 0 (``np.add.at`` adds one index at
    a time, in order): the counting sort's summation order for a bucket one core sums."""
    keep = (indices >= 0) & (indices < w) & (indices != padding)
    out = np.zeros((w, grad.shape[1]), np.float32)
    np.add.at(out, indices[keep], grad[keep].astype(np.float32))
    return out


def test_the_tiling_takes_the_vector_sort_where_its_segments_are_long() -> None:
    a2 = CATALOGUE.get("Ascend910B")
    t = tiling_decision(SPECS[OP], a2, (N, D), W, DType.FLOAT, DType.INT64, False)
    # 191 buckets of 86 rows on 48 cores, 5462 indices a core at most: half the UB's rest (191 x 56 x 8 bytes of
    # staging slots) sorts chunks of 4096, two per core; a work buffer of 2 x 65536 + 1024 bytes (and the slots'
    # rounding) sorts 8192, one chunk per core, and still leaves D 128 in one pass and a grad tile: 48
    # count-matrix rows, 262144 / (48 x 191) = 28.6 pairs per (chunk, bucket) segment on average
    assert t.sorted_run and (t.sort.cores, t.sort.buckets, t.sort.sort_chunk, t.sort.matrix_rows) == (48, 191, 8192, 48)
    assert t.sort.buckets * t.sort.stage * 8 >= sort_chunk_ub(8192) and t.sort.d_chunk == D and t.sort.tile_rows >= 1
    assert t.sort.sort_reason.startswith("vector sort: Ascend910B has Sort32 and MrgSort; chunks of 8192 indices")
    # W = 262144, D = 64, N = 2^16: 781 buckets and 48 rows make 37488 segments of 1.7 pairs: the counting sort
    short = tiling_decision(SPECS[OP], a2, (1 << 16, 64), 262144, DType.FLOAT, DType.INT64, True)
    assert short.sorted_run and short.sort.sort_chunk == 0
    assert "37488 (chunk, bucket) segments would hold 1.7 pairs on average" in short.sort.sort_reason
    # without the catalogue's vector_sort the counting sort runs (Ascend910: no sort instructions)
    a910 = tiling_decision(SPECS[OP], CATALOGUE.get("Ascend910"), (N, D), W, DType.FLOAT, DType.INT64, True)
    assert a910.sorted_run and a910.sort.sort_chunk == 0
    assert a910.sort.sort_reason == (
        "scalar counting sort: Ascend910 has no vector sort instructions (vector_sort: false)"
    )


@pytest.mark.parametrize(("grad_dtype", "det"), [(np.float32, False), (np.float16, False), (np.float16, True)])
def test_the_bench_shape_sorts_with_few_scalar_accesses_and_the_counting_sorts_sums(
    grad_dtype: type[np.generic], det: bool
) -> None:
    """The counting sort took about 8 scalar UB accesses per index of a core (phase 1 reads the index; phase 2
    reads it again, reads and writes its bucket's fill and writes the pair; phase 3 reads the pair's row and
    position): 445k busy S cycles on the slowest core, 8.1 per index. The vector sort leaves phase 3's two and
    well under one per index for the bucket searches and the segment copies."""
    params = edb_inputs(W, D, N, grad_dtype=grad_dtype, seed=31)
    got = _op("Ascend910B")(deterministic=det, **params)
    lnc = _launch("Ascend910B")
    tiling = lnc["tiling"]
    assert lnc["tiling_key"] // 100 == (3 if det else 2) and int(tiling["sortChunk"]) == 8192
    cores = int(tiling["sortCores"])
    model = CATALOGUE.get("Ascend910B").cost_model
    assert model is not None
    accesses = lnc["timeline"]["pipe_busy_cycles"]["S"] / model.scalar_access_cycles.value
    per_index = accesses / (N / cores)
    assert 2.0 <= per_index <= 3.5, per_index
    # every row of a bucket one core sums is the position-order fp32 sum, bit for bit; a bucket split between
    # cores (at most one per core boundary) is summed in parts
    # (16-bit grads: the fp32 sums rounded once to the output dtype)
    want = _fp32_in_position_order(params["grad"], params["indices"], W, int(params["paddingIdx"])).astype(got.dtype)
    bits = np.uint32 if got.dtype == np.float32 else np.uint16
    differ = np.flatnonzero(np.any(got.view(bits) != want.view(bits), axis=1))
    assert len(differ) <= (cores - 1) * int(tiling["sortBucketRows"]), len(differ)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-3)
    # GM bytes of the atomic mode (the bench's row): within 1.15x of what the math needs (grad and indices read
    # once, out written once)
    if det:
        return
    gm = sum(
        int(c["gm_bytes_read"]) + int(c["gm_bytes_written"]) + int(c["gm_bytes_atomic_added"]) for c in lnc["cores"]
    )
    assert gm <= 1.15 * minimum_bytes(EDB, params, got), (gm, minimum_bytes(EDB, params, got))


def test_a_missing_wait_between_a_segments_copies_is_a_pipe_race(tmp_path: Path) -> None:
    failed = check_mutant(tmp_path, OP, "kernel_cpp", ((_SEGMENT_WAIT, ""),))
    messages = [str(c.get("message", "")) for c in failed]
    races = [m for m in messages if "pipe race" in m and "(PIPE_MTE3) reads" in m and "(PIPE_V)" in m]
    assert races, messages[:5]
