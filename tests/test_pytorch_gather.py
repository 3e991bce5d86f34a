"""PyTorch CPU as the independent oracle of aclnnGather (``torch.gather``; the gather_scatter family's element
gather, ``direction: gather_elements``) on a few calls.

A gather rounds nothing, so the generated kernel (on Ascend910B, one build) must give ``torch.gather`` bit for
bit, and so must the NumPy reference (its float64 result converted back to the dtype). Cases: every dim of a
rank-3 tensor (positive and negative) with an index smaller than self outside dim and longer along it,
negative indices (counted from the end, as CANN documents; ``torch.gather`` raises for them, so PyTorch gets
them wrapped), a 0-d self and index, one dtype
of each element width (INT8, FLOAT16, BF16, FLOAT, INT64 beyond 2**53, DOUBLE, BOOL), INT32 indices and a
transposed (non-contiguous) self. PyTorch raises for an index outside ``[-A, A)``; the op gives a zero there
(a documented difference, checked against the reference by ``opgen check``), so PyTorch gets no such index.
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
OP = "gather"

#: (name, self shape, dim, index shape, numpy dtype)
CASES: list[tuple[str, tuple[int, ...], int, tuple[int, ...], Any]] = [
    ("dim 0", (5, 4, 3), 0, (7, 3, 2), np.float32),
    ("dim 1", (5, 4, 3), 1, (4, 6, 3), np.float32),
    ("dim -1", (5, 4, 3), -1, (2, 4, 5), np.float32),
    ("dim -3", (5, 4, 3), -3, (2, 1, 3), np.float32),
    ("0-d", (), 0, (), np.float32),
    ("INT8", (9, 11), 0, (4, 11), np.int8),
    ("FLOAT16", (9, 11), 1, (9, 13), np.float16),
    ("BF16", (9, 11), 1, (3, 5), ml_dtypes.bfloat16),
    ("INT64 beyond 2**53", (7, 5), 0, (6, 5), np.int64),
    ("DOUBLE", (7, 5), 1, (7, 2), np.float64),
    ("BOOL", (8, 9), 1, (8, 9), np.bool_),
]


def _reference() -> ModuleType:
    path = project_paths().reference / f"{OP}.py"
    spec = importlib.util.spec_from_file_location("ref_gather_torch", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


def _self(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = _rng(name)
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype is np.int64:
        return rng.integers(-(2**62), 2**62, shape, dtype=np.int64) | 1  # odd values above 2**53: not float64
    if dtype is np.int8:
        return rng.integers(-128, 128, shape).astype(np.int8)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


def _index(name: str, shape: tuple[int, ...], a: int) -> np.ndarray:
    """Values in ``[-a, a)`` (negative ones count from the end), both ends of ``[0, a)`` among the first."""
    values = _rng(name + "/index").integers(-a, a, shape).astype(np.int64)
    flat = values.reshape(-1)
    flat[: min(2, flat.size)] = [0, a - 1][: min(2, flat.size)]
    return flat.reshape(shape)


def _torch(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    bf16 = x.dtype == ml_dtypes.bfloat16
    t = torch.from_numpy(np.ascontiguousarray(x).view(np.int16)).view(torch.bfloat16) if bf16 else torch.from_numpy(x)
    idx = torch.from_numpy(np.asarray(index, dtype=np.int64))
    a = t.shape[dim] if t.dim() else 1
    r = torch.gather(t, dim, torch.where(idx < 0, idx + a, idx))  # torch.gather itself takes [0, A) only
    return r.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if bf16 else r.numpy()


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize > 1 or a.dtype == np.bool_ else a.view("u1")


def _a(shape: tuple[int, ...], dim: int) -> int:
    return shape[dim] if shape else 1


@pytest.mark.parametrize(("name", "shape", "dim", "index_shape", "dtype"), CASES)
def test_reference_matches_pytorch(
    name: str, shape: tuple[int, ...], dim: int, index_shape: tuple[int, ...], dtype: Any
) -> None:
    x = _self(name, shape, dtype)
    idx = _index(name, index_shape, _a(shape, dim))
    want = _torch(x, dim, idx)
    got = _reference().reference(self=x, index=idx, dim=dim)
    assert got.shape == want.shape == index_shape, name
    # float64 holds every value exactly but INT64 beyond 2**53, which both sides round the same way
    assert np.array_equal(got, want.astype(np.float64), equal_nan=True), name


@pytest.mark.parametrize(("name", "shape", "dim", "index_shape", "dtype"), CASES)
def test_kernel_matches_pytorch_bit_for_bit(
    built_op: Callable[[str, str], OpCallable],
    name: str,
    shape: tuple[int, ...],
    dim: int,
    index_shape: tuple[int, ...],
    dtype: Any,
) -> None:
    x = _self(name, shape, dtype)
    for index_dtype in (np.int64, np.int32) if name == "dim 1" else (np.int64,):
        idx = _index(name, index_shape, _a(shape, dim)).astype(index_dtype)
        want = _torch(x, dim, idx)
        got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=dim))
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert np.array_equal(_bits(got), _bits(want)), name


def test_a_transposed_self_matches_pytorch(built_op: Callable[[str, str], OpCallable]) -> None:
    x = _self("transposed", (5, 8), np.float32).T  # [8, 5], not contiguous
    idx = _index("transposed", (3, 5), 8)
    want = _torch(x, 0, idx)
    got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=0))
    assert np.array_equal(_bits(got), _bits(want))


def test_pytorch_rejects_the_indices_the_op_turns_into_zeros(built_op: Callable[[str, str], OpCallable]) -> None:
    """The documented differences: PyTorch raises for an index outside ``[0, A)``; the op takes one in
    ``[-A, 0)`` as ``index + A`` (CANN's documented range) and gives a zero for any other."""
    x = _self("outside", (3, 4), np.float32)
    idx = np.asarray([[1, 4, -5, -1]], dtype=np.int64)
    for value in (4, -1):
        with pytest.raises((IndexError, RuntimeError)):
            torch.gather(torch.from_numpy(x), 1, torch.from_numpy(np.asarray([[value]], dtype=np.int64)))
    got = np.asarray(built_op(OP, PRODUCT)(self=x, index=idx, dim=1))
    assert got[0, 0] == x[0, 1] and got[0, 3] == x[0, 3] and not got[0, 1:3].any()
