"""PyTorch CPU as the independent oracle of aclnnIndexSelect, and of the family's other gathers aclnnEmbedding
(``torch.nn.functional.embedding``) and aclnnTake (``torch.take``, negative indices counted from the end) on a
few calls each (the gather_scatter family).

A gather rounds nothing, so the generated kernel (on Ascend910B, one build) must give ``torch.index_select``
bit for bit, and so must the NumPy reference (its float64 result converted back to the dtype). Cases: every
dim of a rank-3 tensor (positive and negative), rows of one element, indices at both ends of the range and
repeated, a 0-d index, one dtype of each element width (INT8, FLOAT16, BF16, FLOAT, INT64 with values beyond
2**53, DOUBLE and BOOL), a transposed (non-contiguous) self, and rows larger than a UB tile. PyTorch raises
for an index outside ``[0, self.shape[dim])``; the op gives a zero row there (a documented difference, checked
against the reference by ``opgen check``), so no such index is given to PyTorch.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.runner import OpCallable

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

PRODUCT = "Ascend910B"
OP = "index_select"

#: (name, shape, dim, indices, numpy dtype)
CASES: list[tuple[str, tuple[int, ...], int, list[int] | int, Any]] = [
    ("dim 0", (6, 4, 3), 0, [5, 0, 0, 5, 2], np.float32),
    ("dim 1", (6, 4, 3), 1, [3, 3, 0, 1], np.float32),
    ("dim -1 (rows of one element)", (6, 4, 3), -1, [2, 0, 2, 1, 0], np.float32),
    ("dim -3", (6, 4, 3), -3, [0, 5], np.float32),
    ("0-d index", (5, 7), 1, 6, np.float32),
    ("INT8", (9, 11), 0, [8, 0, 4, 4], np.int8),
    ("FLOAT16", (9, 11), 1, [10, 0, 3, 3], np.float16),
    ("BF16", (9, 11), 1, [10, 0, 3, 3], ml_dtypes.bfloat16),
    ("INT64 beyond 2**53", (7, 5), 0, [6, 0, 6, 1], np.int64),
    ("DOUBLE", (7, 5), 1, [4, 0, 2, 2], np.float64),
    ("BOOL", (8, 9), 1, [8, 0, 0, 7], np.bool_),
    ("rows larger than a tile", (2, 3, 30000), 1, [2, 0, 2], np.float32),
]


def _reference() -> ModuleType:
    path = project_paths().reference / f"{OP}.py"
    spec = importlib.util.spec_from_file_location("ref_index_select_torch", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _self(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(abs(hash((name, shape))) % 2**32)
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype is np.int64:
        return rng.integers(-(2**62), 2**62, shape, dtype=np.int64) | 1  # odd values above 2**53: not float64
    if dtype is np.int8:
        return rng.integers(-128, 128, shape).astype(np.int8)
    return (rng.standard_normal(shape) * 3).astype(dtype)


def _torch(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    t = (
        torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
        if x.dtype == ml_dtypes.bfloat16
        else torch.from_numpy(x)
    )
    r = torch.index_select(t, dim, torch.from_numpy(np.asarray(index).reshape(-1)))
    if x.dtype == ml_dtypes.bfloat16:
        return r.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return r.numpy()


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize > 1 or a.dtype == np.bool_ else a.view("u1")


@pytest.mark.parametrize(("name", "shape", "dim", "indices", "dtype"), CASES)
def test_reference_matches_pytorch(name: str, shape: tuple[int, ...], dim: int, indices: Any, dtype: Any) -> None:
    x = _self(name, shape, dtype)
    idx = np.asarray(indices, dtype=np.int64)
    want = _torch(x, dim, idx)
    got = _reference().reference(self=x, index=idx, dim=dim)
    if np.ndim(indices) == 0:  # a 0-d index is one position: dim keeps extent 1, as PyTorch
        assert got.shape == want.shape
    # float64 holds every value exactly but INT64 beyond 2**53, which both sides round the same way
    assert np.array_equal(got, want.astype(np.float64), equal_nan=True), name


@pytest.mark.parametrize(("name", "shape", "dim", "indices", "dtype"), CASES)
def test_kernel_matches_pytorch_bit_for_bit(
    built_op: Callable[[str, str], OpCallable], name: str, shape: tuple[int, ...], dim: int, indices: Any, dtype: Any
) -> None:
    x = _self(name, shape, dtype)
    for index_dtype in (np.int64, np.int32) if name == "dim 1" else (np.int64,):
        idx = np.asarray(indices, dtype=index_dtype)
        want = _torch(x, dim, idx.astype(np.int64))
        got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=dim))
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert np.array_equal(_bits(got), _bits(want)), name


def test_a_transposed_self_matches_pytorch(built_op: Callable[[str, str], OpCallable]) -> None:
    x = _self("transposed", (5, 8), np.float32).T  # [8, 5], not contiguous
    idx = np.asarray([4, 4, 0, 2], dtype=np.int64)
    want = torch.index_select(torch.from_numpy(x), 1, torch.from_numpy(idx)).numpy()
    got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=1))
    assert np.array_equal(_bits(got), _bits(want))


def test_pytorch_rejects_the_indices_the_op_turns_into_zero_rows(built_op: Callable[[str, str], OpCallable]) -> None:
    """The documented difference: PyTorch raises for an index outside ``[0, A)``; the op gives a zero row."""
    x = _self("outside", (3, 4), np.float32)
    idx = np.asarray([1, 4, -1], dtype=np.int64)
    with pytest.raises((IndexError, RuntimeError)):
        torch.index_select(torch.from_numpy(x), 1, torch.from_numpy(idx))
    got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=1))
    assert np.array_equal(got[:, 0], x[:, 1]) and not got[:, 1:].any()


#: The family's other gathers: (op, source shape, indices, numpy dtype). Embedding: a 2-d and a 3-d index at
#: both ends of the table, repeated; Take: 2-d indices with negative values (counted from the end, as
#: torch.take) and both ends of the flattened self.
OTHER_GATHERS: list[tuple[str, tuple[int, ...], list[Any], Any]] = [
    ("embedding", (9, 5), [[8, 0, 8], [3, 3, 0]], np.float32),
    ("embedding", (6, 3), [[[5], [0]], [[2], [5]]], np.int64),
    ("take", (3, 4), [[11, -12, 0], [-1, 5, 5]], np.float32),
    ("take", (2, 3, 2), [[-1, 0], [11, -7]], ml_dtypes.bfloat16),
]


@pytest.mark.parametrize(("op", "shape", "indices", "dtype"), OTHER_GATHERS)
def test_other_gathers_match_pytorch_bit_for_bit(
    built_op: Callable[[str, str], OpCallable], op: str, shape: tuple[int, ...], indices: Any, dtype: Any
) -> None:
    x = _self(op, shape, dtype)
    idx = np.asarray(indices, dtype=np.int64)
    t = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16) if dtype is ml_dtypes.bfloat16 else torch.from_numpy(x)
    if op == "embedding":
        want_t = torch.nn.functional.embedding(torch.from_numpy(idx), t)
        got = np.asarray(built_op(op, PRODUCT)(weight=x, indices=idx))
    else:
        want_t = torch.take(t, torch.from_numpy(idx))
        got = np.asarray(built_op(op, PRODUCT)(self=x, index=idx))
    want = want_t.view(torch.int16).numpy().view(dtype) if dtype is ml_dtypes.bfloat16 else want_t.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.shape == ((*idx.shape, shape[1]) if op == "embedding" else idx.shape)
    assert np.array_equal(_bits(got), _bits(want))
