"""EmbeddingDenseBackward's "sorted-run strategy" check cases: sized from the tiling, they still run the sorted
strategy on every product, in both modes, on every core, with what the strategy needs to be exercised.

Each case of ``opgen check``'s matrix (full and ``--quick``) named "sorted-run strategy" is checked against
the C++ tiling function of the op built for the product (tiling key 2xx atomic / 3xx deterministic, blockDim
= the product's vector cores), and against its own data: every core's index range (the kernel's
``N * c / cores`` split) fills at least one bucket staging slot (a full flush, not only the final partial
ones), the padding row and invalid indices are present, and on products without DataCopyPad the rows are
whole 32-byte blocks. ``sorted_run_indices`` is also checked to be the threshold: one index fewer and the
tiling function keeps another strategy or fewer cores.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from codegen.check.cases import Case
from codegen.check.driver import cases_for
from codegen.runner import OpCallable, compile_op, numpy_dtype
from codegen.specs import load_project

OP = "embedding_dense_backward"
CATALOGUE, SPECS = load_project()
SPEC = SPECS[OP]
PRODUCTS = list(SPEC.products)
_BUILT: dict[str, OpCallable] = {}


def op(product: str) -> OpCallable:
    """The op built for ``product`` (once per session; the build cache shares it with the other EDB tests)."""
    if product not in _BUILT:
        _BUILT[product] = compile_op(OP, product, generated=os.environ.get("OPGEN_TEST_GENERATED"))
    return _BUILT[product]


def sorted_cases(product: str, quick: bool) -> list[Case]:
    cases = cases_for(SPEC, CATALOGUE.get(product), None, quick)
    # the sized cases (one per rows dtype and mode), not the one per other index dtype (named after it)
    named = [c for c in cases if "sorted-run strategy" in c.name and " indices, " not in c.name]
    return [c for c in named if c.mode in (None, "determinism")]


def tiling_of(product: str, case: Case, n: int | None = None) -> dict[str, Any]:
    """The C++ tiling function's result for ``case`` (with ``n`` indices instead of its own when given)."""
    p = case.params
    grad, idx = p["grad"], p["indices"]
    rows = grad.shape[0] if n is None else n
    gdt, idt = case.dtype.split("/")
    request = {
        "inputs": [{"shape": [rows, grad.shape[1]], "dtype": gdt}, {"shape": [rows], "dtype": idt}],
        "outputs": [{"shape": [p["numWeights"], grad.shape[1]], "dtype": gdt}],
        "attrs": [p["numWeights"], p["paddingIdx"], p["scaleGradByFreq"]],
        "deterministic": int(case.deterministic),
    }
    assert idx.size == grad.shape[0]
    result = op(product).run_tiling(request)
    assert result["status"] == 0, result
    return result


@pytest.mark.parametrize("product", PRODUCTS)
def test_sorted_cases_run_the_sorted_strategy_on_every_core(product: str) -> None:
    prod = CATALOGUE.get(product)
    full, quick = sorted_cases(product, False), sorted_cases(product, True)
    dtypes = [d for d in SPEC.tensor("grad").dtypes if prod.supports(d)]
    # one case per rows dtype and mode in the full matrix (and the first dtype's two in --quick)
    assert len(full) == 2 * len({c.dtype for c in full}) and len(full) >= 4, [c.name for c in full]
    assert {c.deterministic for c in quick} == {False, True} and len(quick) == 2
    assert sorted({c.dtype.split("/")[0] for c in full}) == sorted(d.name for d in dtypes)
    for case in full:
        p = case.params
        n, d = p["grad"].shape
        w, pad = p["numWeights"], p["paddingIdx"]
        result = tiling_of(product, case)
        key = result["tiling_key"]
        # atomic mode takes key 2xx where the product has hardware SyncAll; every call is 3xx without it
        want_key = 3 if case.deterministic or not prod.hw_sync_all else 2
        assert key // 100 == want_key, (case.name, key)
        assert result["block_dim"] == prod.vector_core_num, (case.name, result["block_dim"])
        t = result["tiling"]
        cores, bucket_rows, stage = int(t["sortCores"]), int(t["sortBucketRows"]), int(t["sortStage"])
        assert cores == prod.vector_core_num and int(t["sortBuckets"]) > 2 * cores  # buckets cross cores
        # every core's index range fills some bucket's staging slot (the data itself, the kernel's split)
        idx = p["indices"].astype(np.int64)
        valid = (idx >= 0) & (idx < w) & (idx != pad)
        for c in range(cores):
            lo, hi = n * c // cores, n * (c + 1) // cores
            per_bucket = np.bincount(idx[lo:hi][valid[lo:hi]] // bucket_rows, minlength=int(t["sortBuckets"]))
            assert per_bucket.max() >= stage, (case.name, c, per_bucket.max(), stage)
        # the padding row and invalid indices (both sides) are among the indices; scaling is on
        assert np.count_nonzero(idx == pad) > 0 and np.any(idx < 0) and np.any(idx >= w) and p["scaleGradByFreq"]
        if not prod.data_copy_pad:  # whole 32-byte rows (DataCopy only)
            assert d * p["grad"].itemsize == 32
        # the size is the threshold: one index fewer and the tiling keeps another strategy or fewer cores, or the
        # cores' index ranges no longer fill their staging slots (the sort may still run there)
        fewer = tiling_of(product, case, n - 1)
        ft = fewer["tiling"]
        slots = int(ft["sortCores"]) * int(ft["sortBuckets"]) * int(ft["sortStage"])
        assert fewer["tiling_key"] // 100 < 2 or fewer["block_dim"] < prod.vector_core_num or n - 1 < slots, (
            case.name,
            n,
        )
    for case in quick:
        assert any(c.name == case.name and c.dtype == case.dtype for c in full)


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_sorted_run_cases_have_rows_seen_exactly_once_twice_and_three_times(product: str, quick: bool) -> None:
    """Scaling divides a row's sum by its occurrence count, and skips a row seen once. A threshold off by one
    in the sorted path (``occurrences > 2``) showed on no sorted case while each row occurred ~28 times (found
    by a review helper): every sorted-run case has valid rows seen exactly 1, 2 and 3 times."""
    sorted_names = ("sorted-run strategy", "sorted-run small-dim variant", "sorted-run (row, position) pairs")
    cases = [c for c in cases_for(SPEC, CATALOGUE.get(product), None, quick) if c.name.startswith(sorted_names)]
    assert cases
    for case in cases:
        p = case.params
        if p["indices"].dtype == np.bool_:
            continue  # the BOOL indices' key case: two rows (0 and 1), no count of 3 nor invalid index to hold
        idx, w, pad = p["indices"].astype(np.int64), p["numWeights"], p["paddingIdx"]
        valid = idx[(idx >= 0) & (idx < w) & (idx != pad)]
        seen = set(np.bincount(valid, minlength=w).tolist())
        assert {1, 2, 3} <= seen, (case.ident, sorted(seen)[:5])
        assert np.any(idx >= w), case.ident  # invalid indices past the rows remain
        if p["indices"].dtype.kind != "u":  # an unsigned dtype holds no negative index (-1 wraps past the rows)
            assert np.any(idx < 0), case.ident


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_every_integer_index_dtype_runs_across_its_range(product: str, quick: bool) -> None:
    """UINT8 indices read as int8 (every index from 128 up dropped) passed the whole matrix while every case
    had 10 rows (found by a review helper). Each integer index dtype of the product runs, in both modes, a
    case whose valid rows include one with the dtype's sign bit (unsigned) or its least and greatest values
    (where valid), and whose indices include, for every narrower width w, 2**w + 7 (what a w-bit read would
    take for row 7)."""
    prod = CATALOGUE.get(product)
    integer = [d for d in SPEC.tensor("indices").dtypes if d.is_integer and prod.supports(d)]
    assert integer
    cases = [c for c in cases_for(SPEC, prod, None, quick) if "indices across the dtype's range" in c.name]
    for dtype in integer:
        mine = [c for c in cases if c.dtype.endswith(f"/{dtype.name}")]
        assert {c.deterministic for c in mine} == {False, True}, dtype
        for case in mine:
            idx, w = case.params["indices"], case.params["numWeights"]
            assert idx.dtype == numpy_dtype(dtype)
            info = np.iinfo(idx.dtype)
            values = set(idx.astype(np.int64).tolist())
            assert {int(info.min), int(info.max)} <= values
            for width in (8, 16, 32):
                if width < info.bits:
                    assert (1 << width) + 7 in values, (case.ident, width)
            if info.min == 0:
                top = (1 << (info.bits - 1)) + 3
                assert top in values and (top < w or info.bits > 8), case.ident
            assert w > 255  # every UINT8 value is a valid row
