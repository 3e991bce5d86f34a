"""aclnnEmbeddingDenseBackward end to end: the generated sources built against the host emulation and called
through their C ABI, in both kernel strategies, against exact values and the NumPy reference.

Covers the documented examples (CANN doc, PyTorch-checked), fp16 accumulation in fp32, bit-identical
deterministic output over core orders, 64-bit tiling beyond 2^31 rows (through the tiling function alone),
every documented status with a readable message, the index_accumulate compute parser and the reference.

``OPGEN_TEST_GENERATED`` may name another generated tree to test (default: the committed ``generated/``).
"""

from __future__ import annotations

import importlib.util
import os
import struct
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.families.index_accumulate.plan.tiling import tiling_decision
from codegen.families.index_accumulate.plan.tiling_fields import TILING_FIELDS
from codegen.paths import project_paths
from codegen.runner import AclnnError, OpCallable, compile_op
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

OP = "embedding_dense_backward"
PRODUCTS = ["Ascend910", "Ascend910B", "Ascend910_93", "Ascend950"]
MODES = [False, True]
NO_PADDING = 2**64 - 1  # -1 as int64


def _reference() -> ModuleType:
    path = project_paths().reference / f"{OP}.py"
    spec = importlib.util.spec_from_file_location("edb_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _reference()
CATALOGUE, _ = load_project()
_BUILT: dict[str, OpCallable] = {}


def op(product: str) -> OpCallable:
    """The op built for ``product`` (once per test session)."""
    if product not in _BUILT:
        _BUILT[product] = compile_op(OP, product, generated=os.environ.get("OPGEN_TEST_GENERATED"))
    return _BUILT[product]


def run(product: str, deterministic: bool = False, **params: Any) -> np.ndarray:
    params.setdefault("paddingIdx", NO_PADDING)
    params.setdefault("scaleGradByFreq", False)
    return op(product)(deterministic=deterministic, **params)


# ------------------------------------------------------------------------------------ documented values


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
def test_cann_doc_example(product: str, deterministic: bool) -> None:
    grad = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    out = run(product, deterministic, grad=grad, indices=np.array([1, 2], np.int64), numWeights=4, paddingIdx=0)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 0, 0], [1, 2, 3], [4, 5, 6], [0, 0, 0]])


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
def test_pytorch_checked_example(product: str, deterministic: bool) -> None:
    grad = np.arange(1, 13, dtype=np.float32).reshape(2, 3, 2)
    indices = np.array([[0, 2, 2], [1, 2, 0]], np.int64)
    plain = run(product, deterministic, grad=grad, indices=indices, numWeights=4)
    np.testing.assert_array_equal(plain, [[12, 14], [7, 8], [17, 20], [0, 0]])
    padded = run(product, deterministic, grad=grad, indices=indices, numWeights=4, paddingIdx=2)
    np.testing.assert_array_equal(padded, [[12, 14], [7, 8], [0, 0], [0, 0]])
    scaled = run(product, deterministic, grad=grad, indices=indices, numWeights=4, scaleGradByFreq=True)
    # row 0 occurs twice, row 2 three times; sum * fp32(1/count): within one fp32 rounding of the quotient
    expected = np.array([[6, 7], [7, 8], [17 / 3, 20 / 3], [0, 0]], np.float64)
    np.testing.assert_allclose(scaled, expected, rtol=2.0**-23, atol=0)
    both = run(product, deterministic, grad=grad, indices=indices, numWeights=4, paddingIdx=2, scaleGradByFreq=True)
    assert np.all(both[2] == 0)
    np.testing.assert_array_equal(both[0], [6, 7])


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B"])
@pytest.mark.parametrize("deterministic", MODES)
def test_fp16_accumulates_in_fp32(product: str, deterministic: bool) -> None:
    grad = np.full((4096, 16), 0.1, np.float16)
    out = run(product, deterministic, grad=grad, indices=np.full((4096,), 3, np.int32), numWeights=5)
    assert out.dtype == np.float16
    # fp16(0.1) = 0.0999755859375; 4096 of them sum exactly to 409.5 in fp32. Rounding after every add
    # (PyTorch CPU eager) stalls at 256.
    np.testing.assert_array_equal(out[3], np.full(16, 409.5, np.float16))
    assert np.all(out[[0, 1, 2, 4]] == 0)


@pytest.mark.parametrize("product", ["Ascend910", "Ascend950"])
@pytest.mark.parametrize("deterministic", MODES)
def test_fp16_within_one_ulp_of_fp32_accumulation(product: str, deterministic: bool) -> None:
    rng = np.random.default_rng(7)
    n, d, w = 3000, 24, 11
    grad = rng.standard_normal((n, d)).astype(np.float16)
    indices = rng.integers(0, w, n)
    out = run(product, deterministic, grad=grad, indices=indices, numWeights=w, core_order="concurrent")
    # the correctly rounded fp32-accumulated sum, added in index order
    acc = np.zeros((w, d), np.float32)
    for i in range(n):
        acc[indices[i]] += grad[i].astype(np.float32)
    expected = acc.astype(np.float16)
    ulp = np.spacing(np.abs(expected)).astype(np.float64)
    err = np.abs(out.astype(np.float64) - expected.astype(np.float64))
    assert np.all(err <= ulp), f"max error {np.max(err / ulp)} ULP"


@pytest.mark.parametrize("product", ["Ascend910B"])
def test_bf16_grad_and_out_dtype_differs(product: str) -> None:
    rng = np.random.default_rng(3)
    grad = rng.standard_normal((200, 9)).astype(ml_dtypes.bfloat16)
    indices = rng.integers(0, 6, 200)
    out = np.zeros((6, 9), np.float16)
    got = run(product, True, grad=grad, indices=indices, numWeights=6, scaleGradByFreq=True, out=out)
    assert got is out
    ref = REF.reference(grad, indices, 6, NO_PADDING, True)
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=2.0**-10, atol=1e-3)


# --------------------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B"])
def test_deterministic_mode_is_bit_identical_over_core_orders(product: str) -> None:
    rng = np.random.default_rng(11)
    n, d, w = 6000, 20, 97
    grad = (rng.standard_normal((n, d)) * np.exp(rng.uniform(-8, 8, (n, 1)))).astype(np.float32)
    indices = rng.integers(0, 12, n)  # heavy duplication: every row sums ~500 values of very different size
    orders = [("in_order", 0), ("reversed", 0), ("concurrent", 0), ("concurrent", 1)]
    orders += [("shuffle", seed) for seed in range(1, 17)]
    assert len(orders) == 20
    results = [
        run(product, True, grad=grad, indices=indices, numWeights=w, scaleGradByFreq=True, core_order=o, seed=s)
        for o, s in orders
    ]
    assert op(product).last_stats["launches"][0]["block_dim"] > 1
    first = results[0].tobytes()
    assert all(r.tobytes() == first for r in results[1:])
    ref = REF.reference(grad, indices, w, NO_PADDING, True)
    atol, _ = REF.tolerance(grad, indices, w, NO_PADDING, True)
    assert np.all(np.abs(results[0] - ref) <= atol + np.spacing(np.abs(ref).astype(np.float32)))


@pytest.mark.parametrize("product", ["Ascend910", "Ascend910B"])
def test_deterministic_mode_with_d_slices_is_bit_identical_over_core_orders(product: str) -> None:
    """Few rows, so the owners split D into slices: still one core and index order per output element."""
    rng = np.random.default_rng(12)
    n, d, w = 600, 2053, 3
    grad = (rng.standard_normal((n, d)) * np.exp(rng.uniform(-8, 8, (n, 1)))).astype(np.float32)
    indices = rng.integers(0, w, n)
    orders = [("in_order", 0), ("reversed", 0), ("concurrent", 0), ("shuffle", 3)]
    results = [
        run(product, True, grad=grad, indices=indices, numWeights=w, scaleGradByFreq=True, core_order=o, seed=s)
        for o, s in orders
    ]
    tiling = op(product).last_stats["launches"][0]["tiling"]
    assert int(tiling["rowSliceNum"]) > 1, tiling
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])
    ref = REF.reference(grad, indices, w, NO_PADDING, True)
    atol, _ = REF.tolerance(grad, indices, w, NO_PADDING, True)
    assert np.all(np.abs(results[0] - ref) <= atol + np.spacing(np.abs(ref).astype(np.float32)))


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("scale", [False, True])
def test_deterministic_mode_with_few_rows_tiny_dim_and_many_indices_uses_index_groups(
    product: str, scale: bool
) -> None:
    """W=2 rows, D=8, N=20003 fp32 indices (640 KB of grad): rows x D-slices give 2 cores, so index groups
    add cores. Exactly min(vector_core_num, ceil(grad bytes / 32 KiB)) cores write GM, and the output is
    bit-identical over core orders and matches the reference."""
    rng = np.random.default_rng(13)
    n, d, w = 20003, 8, 2
    grad = (rng.standard_normal((n, d)) * np.exp(rng.uniform(-6, 6, (n, 1)))).astype(np.float32)
    indices = rng.integers(-1, w + 1, n)  # a few invalid indices on both sides
    orders = [("in_order", 0), ("reversed", 0), ("concurrent", 0), ("shuffle", 5)]
    results = []
    for o, s in orders:
        results.append(
            run(product, True, grad=grad, indices=indices, numWeights=w, scaleGradByFreq=scale, core_order=o, seed=s)
        )
        launch = op(product).last_stats["launches"][0]
        need = min(CATALOGUE.get(product).vector_core_num, -(-grad.nbytes // 32768))
        writers = [c for c in launch["cores"] if c["gm_bytes_written"] + c["gm_bytes_atomic_added"] > 0]
        if not CATALOGUE.get(product).hw_sync_all:
            # Index groups merge after a SyncAll, which Ascend910 lacks: the barrier-free plan keeps one index
            # group, so only the w owners (one row each) run.
            assert int(launch["tiling"]["indexGroupNum"]) == 1, launch["tiling"]
            assert len(writers) == w == launch["block_dim"], (len(writers), launch["block_dim"])
            continue
        assert need == 20 and len(writers) == need == launch["block_dim"], (need, len(writers), launch["block_dim"])
        assert int(launch["tiling"]["indexGroupNum"]) > 1, launch["tiling"]
        assert sum(c["gm_bytes_atomic_added"] for c in launch["cores"]) == 0
    assert all(r.tobytes() == results[0].tobytes() for r in results[1:])
    ref = REF.reference(grad, indices, w, NO_PADDING, scale)
    atol, _ = REF.tolerance(grad, indices, w, NO_PADDING, scale)
    assert np.all(np.abs(results[0] - ref) <= atol + np.spacing(np.abs(ref).astype(np.float32)))


def test_atomic_mode_uses_atomics_and_deterministic_mode_does_not() -> None:
    grad = np.ones((64, 8), np.float32)
    indices = np.arange(64) % 4
    run("Ascend910B", False, grad=grad, indices=indices, numWeights=4)
    atomic = op("Ascend910B").last_stats["launches"][0]
    run("Ascend910B", True, grad=grad, indices=indices, numWeights=4)
    ordered = op("Ascend910B").last_stats["launches"][0]
    assert atomic["tiling_key"] // 100 == 0 and ordered["tiling_key"] // 100 == 1
    assert sum(c["gm_bytes_atomic_added"] for c in atomic["cores"]) == 64 * 8 * 4
    assert sum(c["gm_bytes_atomic_added"] for c in ordered["cores"]) == 0


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize("deterministic", MODES)
@pytest.mark.parametrize(("grad_dtype", "d"), [(np.float32, 100_003), (np.float16, 65_536)])
def test_few_rows_and_a_large_dim_run_on_every_core(
    product: str, deterministic: bool, grad_dtype: type[np.generic], d: int
) -> None:
    """Twelve indices into three rows (one never hit) with a large D: the embedding dimension is split over the
    cores (at least one per 32 KiB of grad, up to all of them), each of them writes GM, and the values are
    right."""
    rng = np.random.default_rng(77)
    grad = rng.standard_normal((12, d)).astype(grad_dtype)
    indices = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0], np.int64)
    scale = product != "Ascend910"  # the Atlas training limit forbids scaling for this D
    got = run(product, deterministic, grad=grad, indices=indices, numWeights=3, scaleGradByFreq=scale)
    want = np.zeros((3, d))
    np.add.at(want, indices, grad.astype(np.float64))
    if scale:
        want /= np.maximum(np.bincount(indices, minlength=3), 1)[:, None]
    atol = 5e-3 if grad_dtype is np.float16 else 1e-5
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=0, atol=atol)
    launch = op(product).last_stats["launches"][0]
    need = min(CATALOGUE.get(product).vector_core_num, -(-grad.nbytes // 32768))
    writers = [c for c in launch["cores"] if c["gm_bytes_written"] + c["gm_bytes_atomic_added"] > 0]
    assert need >= 24 and len(writers) >= need, (need, len(writers), launch["block_dim"])


# -------------------------------------------------------------------------------------------- tiling


def _tiling_values(result: dict[str, Any]) -> dict[str, int]:
    named = result.get("tiling", {})
    if named and "raw" not in named:
        return {k: int(v) for k, v in named.items()}
    raw = bytes.fromhex(result["tiling_raw"])
    values = struct.unpack(f"<{len(TILING_FIELDS)}q", raw[: 8 * len(TILING_FIELDS)])
    return dict(zip((f.name for f in TILING_FIELDS), values, strict=True))


TILING_CASES = [
    # (grad shape, indices dtype, numWeights, paddingIdx, scale, grad dtype)
    ((3 * 2**31, 2, 17), "INT64", 5 * 2**31, 7, True, "FLOAT16"),
    ((2**31 + 5, 1_000_000), "INT32", 2**31 + 3, -1, False, "FLOAT"),
    ((2**33, 8), "FLOAT", 2**32, 2**32 - 1, True, "BF16"),
    ((5, 3), "BOOL", 2**40, 0, False, "FLOAT"),
    ((2**31, 4, 1), "UINT8", 3, 1, True, "FLOAT16"),
    ((7, 0), "DOUBLE", 0, 0, True, "FLOAT"),
]


def _tiling_params() -> list[Any]:
    catalogue, _ = load_project()
    return [
        pytest.param(product, case, id=f"{product}-{list(case[0])}-{case[1]}-W{case[2]}")
        for product in PRODUCTS
        for case in TILING_CASES
        if catalogue.get(product).supports(DType[case[5]])  # BF16 grads only where the product has BF16
    ]


@pytest.mark.parametrize("deterministic", MODES)
@pytest.mark.parametrize(("product", "case"), _tiling_params())
def test_tiling_is_64_bit_and_matches_the_planner(product: str, deterministic: bool, case: tuple[Any, ...]) -> None:
    shape, index_dtype, num_weights, padding, scale, grad_dtype = case
    catalogue, specs = load_project()
    prod = catalogue.get(product)
    n = int(np.prod(shape[:-1], dtype=object))
    request = {
        "inputs": [{"shape": list(shape), "dtype": grad_dtype}, {"shape": [n], "dtype": index_dtype}],
        "outputs": [{"shape": [num_weights, shape[-1]], "dtype": "FLOAT"}],
        "attrs": [num_weights, padding, scale],
        "deterministic": int(deterministic),
    }
    result = op(product).run_tiling(request)
    assert result["status"] == 0, result
    want = tiling_decision(
        specs[OP], prod, shape, num_weights, DType[grad_dtype], DType[index_dtype], deterministic, padding, scale
    )
    got = _tiling_values(result)
    assert got == want.tiling_fields()
    assert result["block_dim"] == want.block_dim
    assert result["tiling_key"] == want.tiling_key
    assert result["workspace_sizes"][0] == want.workspace_bytes
    # the rows split covers exactly numWeights and the indices split exactly N, in 64 bits
    assert got["rowsPerGroup"] * got["rowGroupNum"] + got["rowsFormerNum"] == num_weights
    assert got["indicesPerGroup"] * got["indexGroupNum"] + got["indicesFormerNum"] == n
    # D-slices: whole 32-byte blocks of grad and of the fp32 accumulator that cover D
    align = max(32 // DType[grad_dtype].itemsize, 8)
    for phase in ("row", "index"):
        slices, length = got[f"{phase}SliceNum"], got[f"{phase}SliceLength"]
        assert length % align == 0 and (slices - 1) * length < max(shape[-1], 1) <= slices * length
    row_cores = got["rowGroupNum"] * got["rowSliceNum"]
    # deterministic: every index group runs on all (row group x D-slice) positions
    index_cores = got["indexGroupNum"] * (row_cores if deterministic else got["indexSliceNum"])
    assert max(row_cores, index_cores) == want.block_dim
    assert want.block_dim <= prod.vector_core_num
    assert got["numIndices"] == n and got["numRows"] == num_weights
    assert got["dChunk"] % 64 == 0 and 0 < got["dChunk"] <= want.d_chunk_max


# -------------------------------------------------------------------------------------------- status


def _status(product: str, **params: Any) -> tuple[int, str]:
    params.setdefault("paddingIdx", NO_PADDING)
    params.setdefault("scaleGradByFreq", False)
    with pytest.raises(AclnnError) as info:
        op(product)(**params)
    assert info.value.phase == 1
    return info.value.status, info.value.message


GRAD = np.ones((4, 6), np.float32)
IDX = np.array([0, 1, 2, 3], np.int64)
OUT = np.zeros((5, 6), np.float32)


@pytest.mark.parametrize("missing", ["grad", "indices", "out"])
def test_null_tensor_is_161001(missing: str) -> None:
    params: dict[str, Any] = {"grad": GRAD, "indices": IDX, "out": OUT, "numWeights": 5, missing: None}
    status, message = _status("Ascend910B", **params)
    assert status == 161001
    assert missing in message and "null" in message.lower()


def test_null_workspace_size_and_executor_are_161001() -> None:
    fn = op("Ascend910B")
    tensors = {"grad": fn.make_tensor(GRAD), "indices": fn.make_tensor(IDX), "out": fn.make_tensor(OUT)}
    attrs = {"numWeights": 5, "paddingIdx": 0, "scaleGradByFreq": False}
    try:
        status, _, _ = fn.phase1(tensors, attrs, null_workspace_size=True)
        assert status == 161001 and "workspaceSize" in fn.recent_error()
        status, _, _ = fn.phase1(tensors, attrs, null_executor=True)
        assert status == 161001 and "executor" in fn.recent_error()
    finally:
        for t in tensors.values():
            fn.lib.aclDestroyTensor(t.handle)


@pytest.mark.parametrize(
    ("product", "params", "words"),
    [
        ("Ascend910", {"grad": GRAD.astype(ml_dtypes.bfloat16)}, ["grad", "DT_BF16"]),
        ("Ascend910", {"out": OUT.astype(ml_dtypes.bfloat16)}, ["out", "DT_BF16"]),
        ("Ascend910B", {"grad": GRAD.astype(np.float64)}, ["grad", "DT_DOUBLE"]),
        ("Ascend910B", {"indices": IDX.astype(np.uint16)}, ["indices", "DT_UINT16"]),
        ("Ascend910B", {"grad": np.ones((1,) * 7 + (4, 6), np.float32)}, ["grad", "9 dimensions"]),
        ("Ascend910B", {"indices": IDX.reshape((1,) * 8 + (4,))}, ["indices", "9 dimensions"]),
        ("Ascend910B", {"grad": np.ones((6,), np.float32), "indices": IDX[:1]}, ["grad", "at least 2"]),
        ("Ascend910B", {"indices": np.arange(5)}, ["4 rows", "5 elements"]),
        ("Ascend910B", {"out": np.zeros((4, 6), np.float32)}, ["[5, 6]", "[4, 6]"]),
        ("Ascend910B", {"out": np.zeros((5, 7), np.float32)}, ["[5, 6]", "[5, 7]"]),
    ],
)
def test_invalid_parameters_are_161002(product: str, params: dict[str, Any], words: list[str]) -> None:
    call = {"grad": GRAD, "indices": IDX, "out": OUT, "numWeights": 5, **params}
    status, message = _status(product, **call)
    assert status == 161002
    for w in words:
        assert w in message, message


@pytest.mark.parametrize(
    ("index_dtype", "first_bad", "limit_text"),
    # coreNum 32, numWeights 64: countsSize = 2; INT32: (180192 - 8) / 36 = 5005.1; INT64: (180192 - 16) / 20
    [(np.int32, 5006, "5005.11"), (np.int64, 9009, "9008.8"), (np.uint8, 5006, "5005.11")],
)
def test_atlas_training_scaling_limit(index_dtype: Any, first_bad: int, limit_text: str) -> None:
    idx = np.array([0, 5, 63], index_dtype)
    ok = run(
        "Ascend910", grad=np.ones((3, first_bad - 1), np.float32), indices=idx, numWeights=64, scaleGradByFreq=True
    )
    assert np.all(ok[0] == 1) and np.all(ok[1] == 0)
    status, message = _status(
        "Ascend910", grad=np.ones((3, first_bad), np.float32), indices=idx, numWeights=64, scaleGradByFreq=True
    )
    assert status == 161002
    for text in ("180192", limit_text, "countsSize", "= 2", "coreNum 32", f"embeddingDim {first_bad}"):
        assert text in message, message
    # without scaling, and on the other products, the limit does not apply
    run("Ascend910", grad=np.ones((3, first_bad), np.float32), indices=idx, numWeights=64)
    run("Ascend910B", grad=np.ones((3, first_bad), np.float32), indices=idx, numWeights=64, scaleGradByFreq=True)


def test_generated_doc_lists_the_limit_and_both_strategies() -> None:
    root = Path(os.environ.get("OPGEN_TEST_GENERATED") or project_paths().generated)
    doc = (root / "index" / "embedding_dense_grad_accumulate" / "docs" / "aclnnEmbeddingDenseBackward.md").read_text()
    assert "180192" in doc and "Atlas training series" in doc and "ACL_OPT_DETERMINISTIC" in doc
    header = (
        root / "index" / "embedding_dense_grad_accumulate" / "op_api" / "aclnn_embedding_dense_backward.h"
    ).read_text()
    assert (
        "aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *indices, uint64_t "
        "numWeights, uint64_t paddingIdx, bool scaleGradByFreq, const aclTensor *out, uint64_t *workspaceSize, "
        "aclOpExecutor **executor)" in " ".join(header.split()).replace("( ", "(")
    )


# ------------------------------------------------------------------------------- semantics edge cases


@pytest.mark.parametrize("deterministic", MODES)
def test_invalid_indices_write_nothing_and_are_not_counted(deterministic: bool) -> None:
    indices = np.array([0, -1, 4, np.nan, np.inf, -np.inf, -0.5, 3.9, 1e30, 1], np.float32)
    grad = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    out = run("Ascend910", deterministic, grad=grad, indices=indices, numWeights=4, scaleGradByFreq=True)
    # valid: 0 -> row 0, -0.5 -> row 0, 3.9 -> row 3, 1 -> row 1
    np.testing.assert_array_equal(out[0], (grad[0] + grad[6]) / 2)
    np.testing.assert_array_equal(out[3], grad[7])
    np.testing.assert_array_equal(out[1], grad[9])
    assert np.all(out[2] == 0)


@pytest.mark.parametrize("deterministic", MODES)
def test_padding_row_stays_zero_when_used_a_thousand_times(deterministic: bool) -> None:
    rng = np.random.default_rng(5)
    indices = np.full(1500, 2, np.int64)
    indices[::7] = rng.integers(0, 6, indices[::7].size)
    grad = rng.standard_normal((1500, 10)).astype(np.float32)
    for scale in (False, True):
        out = run(
            "Ascend950", deterministic, grad=grad, indices=indices, numWeights=6, paddingIdx=2, scaleGradByFreq=scale
        )
        assert np.count_nonzero(indices == 2) >= 1000
        assert np.all(out[2] == 0) and not np.signbit(out[2]).any()
        ref = REF.reference(grad, indices, 6, 2, scale)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("deterministic", MODES)
def test_empty_inputs_give_zeros_and_zero_rows_give_empty(deterministic: bool) -> None:
    out = run(
        "Ascend910B",
        deterministic,
        grad=np.zeros((0, 5), np.float32),
        indices=np.zeros((0,), np.int64),
        numWeights=3,
        paddingIdx=0,
        scaleGradByFreq=True,
    )
    np.testing.assert_array_equal(out, np.zeros((3, 5)))
    out = run("Ascend910B", deterministic, grad=np.ones((2, 5), np.float32), indices=np.array([0, 1]), numWeights=0)
    assert out.shape == (0, 5)


# ------------------------------------------------------------------------------------ spec and reference


def _spec_text(compute: str) -> str:
    path = project_paths().specs / f"{OP}.yaml"
    text = path.read_text()
    start = text.index("compute:")
    end = text.index("tiling:")
    return text[:start] + textwrap.dedent(compute).strip() + "\n" + text[end:]


@pytest.mark.parametrize(
    ("compute", "message"),
    [
        (
            "compute: {accumulate: grad, rows: grad, index: indices, num_rows: numWeights, padding: paddingIdx, "
            "count_scaling: scaleGradByFreq}",
            "'grad' is not an output",
        ),
        (
            "compute: {accumulate: out, rows: grad, index: grad, num_rows: numWeights, padding: paddingIdx, "
            "count_scaling: scaleGradByFreq}",
            "must be different inputs",
        ),
        (
            "compute: {accumulate: out, rows: grad, index: indices, num_rows: scaleGradByFreq, padding: paddingIdx, "
            "count_scaling: numWeights}",
            "attr 'scaleGradByFreq' is bool; num_rows needs an int64 or uint64 attr: numWeights, paddingIdx",
        ),
        (
            "compute: {accumulate: out, rows: grad, index: indices, num_rows: numWeights, padding: paddingIdx}",
            "attr 'scaleGradByFreq' has no role",
        ),
        (
            "compute: {accumulate: out, rows: grad, index: indices, padding: paddingIdx, "
            "count_scaling: scaleGradByFreq}",
            "missing required key 'num_rows'",
        ),
        (
            "compute: {accumulate: out, rows: grad, index: indices, num_rows: numWeights, padding: paddingIdx, "
            "count_scaling: scaleGradByFreq, sort: true}",
            "unknown key 'sort'",
        ),
    ],
)
def test_compute_parser_errors_are_located(tmp_path: Path, compute: str, message: str) -> None:
    path = tmp_path / f"{OP}.yaml"
    path.write_text(_spec_text(compute))
    catalogue, _ = load_project()
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    text = str(info.value)
    assert message in text, text
    assert f"{path}:" in text


def test_compute_parser_rejects_undecodable_index_dtypes(tmp_path: Path) -> None:
    text = (project_paths().specs / f"{OP}.yaml").read_text()
    assert "INT8, UINT8, BOOL]" in text
    path = tmp_path / f"{OP}.yaml"
    path.write_text(text.replace("INT8, UINT8, BOOL]", "INT8, UINT8, BOOL, UINT32]"))
    catalogue, _ = load_project()
    with pytest.raises(SpecErrors, match="'indices' has dtypes UINT32; the family decodes index dtypes: FLOAT, "):
        load_op_spec(path, catalogue)


def test_reference_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(1)
    grad = rng.standard_normal((3, 5, 4))
    indices = rng.uniform(-2, 9, (15,)).astype(np.float16)
    indices[3] = np.nan
    for pad, scale in ((2, False), (-1, True), (2**64 - 1, True), (3, True)):
        expected = np.zeros((7, 4))
        flat = grad.reshape(15, 4)
        valid = [int(np.trunc(v)) if np.isfinite(v) and 0 <= np.trunc(v) < 7 else None for v in indices.astype(float)]
        counts = {r: valid.count(r) for r in valid if r is not None}
        p = pad if pad < 2**63 else pad - 2**64
        for i, r in enumerate(valid):
            if r is None or r == p:
                continue
            expected[r] += flat[i] / (counts[r] if scale else 1)
        np.testing.assert_allclose(REF.reference(grad, indices, 7, pad, scale), expected, rtol=1e-12, atol=1e-12)
