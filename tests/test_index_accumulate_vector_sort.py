"""The index-accumulate family's vector sort plan (Sort32 + MrgSort chunks of the sorted-run strategy): where
it may run (the catalogue's ``vector_sort`` capability, DataCopyPad, rows with exact float keys), the chunk
that fits UB, the merge passes, and the workspace it lays out. Planner arithmetic only (nothing is built);
expected values are worked out by hand from the sizes in each test's comment."""

from __future__ import annotations

import dataclasses

import pytest

from codegen.families.index_accumulate.plan.sorted_layout import SortPlan
from codegen.families.index_accumulate.plan.vector_sort import (
    VECTOR_SORT_CHUNK_MAX,
    merge_passes,
    sort_chunk_ub,
    vector_sort_plan,
    vector_sort_refusal,
)
from codegen.specs import load_project

CATALOGUE, _SPECS = load_project()
A2 = CATALOGUE.get("Ascend910B")
# the sorted-run plan of W = 16384, D = 128, N = 262144 on Ascend910B (opgen explain): 48 cores, 191 buckets
BENCH = SortPlan(cores=48, buckets=191, bucket_rows=86)
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


@pytest.mark.parametrize(
    ("index_bytes", "want"),
    [
        # INT64: 8192 would take 65536 + 131072 + 1024 + 768 = 198400 > 196608; 4096 takes
        # 32768 (indices) + 65536 (two proposal buffers) + 512 (mask) + 768 (192 int32 boundaries) = 99584.
        # 48 x ceil(5462 / 4096) = 96 matrix rows of 192 int32 = 73728 bytes; proposals 8 x 262144 = 2097152
        (8, (4096, 4, 96, 192, 73728, 2170880, 4268032, 99584, 191 * 13)),
        # INT32: 8192 takes 32768 + 131072 + 1024 + 768 = 165632; 48 rows x 192 int32 = 36864 bytes
        (4, (8192, 4, 48, 192, 36864, 2134016, 4231168, 165632, 191 * 14)),
    ],
)
def test_the_bench_shape_on_ascend910b(index_bytes: int, want: tuple[int, ...]) -> None:
    vp = vector_sort_plan(A2, 0, BENCH, N, 16384, index_bytes)
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
    assert got == want
    # the scalar budget of the sort phases: the boundary searches cost well under one read per index
    assert vp.boundary_reads / vp.chunk < 0.65


def test_the_chunk_shrinks_with_ub_and_stops_at_one_sort32_repeat() -> None:
    one = SortPlan(cores=1, buckets=1, bucket_rows=4)
    # 32 INT64 indices: 256 + 512 + 32 (mask block) + 32 (2 boundaries) = 832 bytes; 64 need 512 + 1024 + 64
    assert sort_chunk_ub(32, 8, 1) == 832
    assert sort_chunk_ub(64, 8, 1) == 1600
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=1599), 0, one, 100, 4, 8).chunk == 32
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=1600), 0, one, 100, 4, 8).chunk == 64
    # the spec's reserve and the software SyncAll's UB (32 bytes per core) come off the budget
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=1600), 1, one, 100, 4, 8).chunk == 32
    soft = dataclasses.replace(one, soft_sync=True)
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=1632), 0, soft, 100, 4, 8).chunk == 64
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=1631), 0, soft, 100, 4, 8).chunk == 32
    assert vector_sort_plan(dataclasses.replace(A2, ub_bytes=831), 0, one, 100, 4, 8).reason == (
        "UB too small to sort 32 indices"
    )


def test_the_scalar_sort_stays_where_the_vector_sort_cannot_run() -> None:
    assert vector_sort_plan(A2, 0, BENCH, N, (1 << 24) + 1, 8).reason.startswith("numWeights 16777217 is above")
    assert not vector_sort_plan(CATALOGUE.get("Ascend910"), 0, BENCH, N, 16384, 8).feasible
    records = dataclasses.replace(BENCH, small_dim=True)
    assert vector_sort_plan(A2, 0, records, N, 16384, 8).reason == (
        "the small-dim variant stages records (row values), the vector sort positions"
    )
    refused = SortPlan(reason="nothing to sort (no indices, rows or columns)")
    assert vector_sort_plan(A2, 0, refused, 0, 16384, 8).reason == refused.reason
