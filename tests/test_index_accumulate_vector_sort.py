"""The index-accumulate family's vector sort plan (Sort32 + MrgSort chunks of the sorted-run strategy): where
it may run (the catalogue's ``vector_sort`` capability, DataCopyPad, rows with exact float keys), the chunk
that fits UB, the merge passes, and the workspace it lays out. Planner arithmetic only (nothing is built);
expected values are worked out by hand from the sizes in each test's comment."""

from __future__ import annotations

import dataclasses

from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.families.index_accumulate.plan.vector_sort import (
    VECTOR_SORT_CHUNK_MAX,
    merge_passes,
    segments_ub,
    sort_chunk_ub,
    vector_sort_plan,
    vector_sort_refusal,
)
from codegen.specs import load_project

CATALOGUE, _SPECS = load_project()
A2 = CATALOGUE.get("Ascend910B")
# the sorted-run plan of W = 16384, D = 128, N = 262144 on Ascend910B (opgen explain): 48 cores, 191 buckets
BENCH = SortPlan(cores=48, buckets=191, bucket_rows=86, stage=56)
ONE = SortPlan(cores=1, buckets=1, bucket_rows=4)
N = 262144


def test_the_capability_is_the_catalogues_and_follows_asc_devkits_product_tables() -> None:
    # Sort32.md / MrgSort.md: supported on Atlas A2/A3 and Ascend 950, not on the training (1001) or inference
    # (2002) series
    assert {p.name: p.vector_sort for p in CATALOGUE.products} == {
        "Ascend910": False,
        "Ascend910B": True,
        "Ascend910_93": True,
        "Ascend950": True,
        "Ascend310P": False,
    }


def test_the_refusal_is_decided_by_capability_and_the_exact_key_range() -> None:
    assert vector_sort_refusal(A2, 1 << 24) == ""
    assert vector_sort_refusal(A2, (1 << 24) + 1) == (
        "numWeights 16777217 is above 2^24: a row's float sort key is exact only up to 2^24"
    )
    for name in ("Ascend910", "Ascend310P"):
        assert vector_sort_refusal(CATALOGUE.get(name), 16384) == (
            f"{name} has no vector sort instructions (vector_sort: false)"
        )
    # a product is taken by its fields, never by its name
    assert vector_sort_refusal(dataclasses.replace(A2, name="Other", vector_sort=False), 16) != ""
    training = CATALOGUE.get("Ascend910")
    assert vector_sort_refusal(dataclasses.replace(training, vector_sort=True, data_copy_pad=True), 16) == ""
    assert vector_sort_refusal(dataclasses.replace(training, vector_sort=True), 16) == (
        "Ascend910 has no DataCopyPad (a (chunk, bucket) segment of any length is one copy)"
    )


def test_merge_passes_from_sort32_runs_four_at_a_time() -> None:
    # 32 | 64, 128 | 256, 512 | 1024, 2048 | 4096, 8192 (runs of 2048, the longest power of two MrgSort takes)
    assert VECTOR_SORT_CHUNK_MAX == 8192
    assert [merge_passes(c) for c in (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_the_bench_shape_on_ascend910b() -> None:
    # the work buffer is the staging slots' 191 x 56 x 8 = 85568 bytes; 8192 indices would take 2 x 65536
    # (two proposal buffers) + 1024 (mask) = 132096; 4096 take 65536 + 512 = 66048, and 65536 + 191 x 32 =
    # 71648 for the segment copies. 48 x ceil(5462 / 4096) = 96 matrix rows of AlignUp(193, 8) = 200 int32 =
    # 76800 bytes; proposals 8 x 262144 = 2097152 at 76800, pairs at 76800 + 2097152 = 2173952, end 4271104
    vp = vector_sort_plan(A2, BENCH, N, 16384)
    assert vp.reason == ""
    got = (
        vp.chunk,
        vp.merge_passes,
        vp.matrix_rows,
        vp.matrix_stride,
        vp.sorted_offset,
        vp.pairs_offset,
        vp.workspace_bytes,
        vp.ub_bytes,
        vp.boundary_reads,
    )
    assert got == (4096, 4, 96, 200, 76800, 2173952, 4271104, 66048, 4096 // 16 + 192 * 5)
    # the scalar budget of the sort phases: the bucket searches cost well under one read per index
    assert vp.boundary_reads / vp.chunk < 0.35


def test_the_chunk_shrinks_with_the_work_buffer_and_stops_at_one_compare_repeat() -> None:
    # 64 indices: 2 x 512 + 32 (mask block) = 1056 bytes, and 512 + 32 for the segment copies of 1 bucket
    assert sort_chunk_ub(64) == 1056
    assert sort_chunk_ub(128) == 2080
    # the work buffer is buckets x stage x 8 bytes: 1 bucket of 132 pairs = 1056 bytes, of 259 = 2072
    assert vector_sort_plan(A2, dataclasses.replace(ONE, stage=132), 100, 4).chunk == 64
    assert vector_sort_plan(A2, dataclasses.replace(ONE, stage=259), 100, 4).chunk == 64
    assert vector_sort_plan(A2, dataclasses.replace(ONE, stage=260), 100, 4).chunk == 128
    assert vector_sort_plan(A2, dataclasses.replace(ONE, stage=131), 100, 4).reason == (
        "work buffer of 1048 bytes too small to sort 64 indices"
    )
    # the segment copies also fit (the sorted chunk, then every segment on its own block): 20 buckets of 10
    # pairs (1600 bytes) hold the sort of 64 (1056) but not its segments (2 x 512 + 20 x 32 = 1664); 20 buckets
    # of 11 pairs (1760 bytes) hold both
    assert segments_ub(64, 20) == 1664
    many = SortPlan(cores=1, buckets=20, bucket_rows=2, stage=10)
    assert vector_sort_plan(A2, many, 100, 40).reason == "work buffer of 1600 bytes too small to sort 64 indices"
    assert vector_sort_plan(A2, dataclasses.replace(many, stage=11), 100, 40).chunk == 64


def test_the_scalar_sort_stays_where_the_vector_sort_cannot_run() -> None:
    assert vector_sort_plan(A2, BENCH, N, (1 << 24) + 1).reason.startswith("numWeights 16777217 is above")
    assert not vector_sort_plan(CATALOGUE.get("Ascend910"), BENCH, N, 16384).feasible
    records = dataclasses.replace(BENCH, small_dim=True)
    assert vector_sort_plan(A2, records, N, 16384).reason == (
        "the small-dim variant stages records (row values), the vector sort positions"
    )
    refused = SortPlan(reason="nothing to sort (no indices, rows or columns)")
    assert vector_sort_plan(A2, refused, 0, 16384).reason == refused.reason
