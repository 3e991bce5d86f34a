"""PyTorch CPU as the independent oracle of aclnnScatterAdd (``Tensor.scatter_add(dim, index, src)``; the
gather_scatter family's ``direction: scatter_add``) on a few calls, under CANN's parameter names (self, dim,
index, src).

With ACL_OPT_DETERMINISTIC each element is summed by one core in index order, as PyTorch's CPU kernel sums it
(FLOAT in float32, FLOAT16 and BF16 in float32 rounded once at the end; integers wrap), so the result must be
PyTorch's bit for bit. Without it (the atomic strategy on Ascend910B) the adds into one element come in the
cores' order: the result must be within the recursive-sum bound ``(k - 1) * u * (|self| + sum |src|)`` of
PyTorch's (``u`` the unit roundoff of the dtype the adds round to; one more rounding to the dtype). Cases: every
dim of a rank-3 tensor (positive and negative) with duplicate positions and both ends of the range (0 and A - 1
among them), an index smaller than self and src, one dtype of each kind (FLOAT, FLOAT16, BF16, INT32, INT8), a
0-d self and a transposed (non-contiguous) self. PyTorch raises for a position outside ``[0, A)``; the op adds
nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.runner import OpCallable

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

PRODUCT = "Ascend910B"
OP = "scatter_add"

#: (name, self shape, dim, index shape, src shape, numpy dtype)
CASES: list[tuple[str, tuple[int, ...], int, tuple[int, ...], tuple[int, ...], Any]] = [
    ("dim 0, duplicates", (5, 4, 3), 0, (12, 4, 3), (12, 4, 3), np.float32),
    ("dim 1, smaller index", (5, 6, 3), 1, (4, 9, 2), (5, 9, 3), np.float32),
    ("dim -1", (5, 4, 7), -1, (5, 4, 20), (5, 4, 20), np.float32),
    ("0-d", (), 0, (), (), np.float32),
    ("FLOAT16", (9, 11), 1, (9, 30), (9, 30), np.float16),
    ("BF16", (9, 11), 0, (40, 11), (40, 11), ml_dtypes.bfloat16),
    ("INT32", (7, 5), 1, (7, 12), (7, 12), np.int32),
    ("INT8 wraps", (6, 5), 0, (30, 5), (30, 5), np.int8),
]


def _array(seed: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, seed)))
    if np.issubdtype(np.dtype(dtype), np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


def _index(name: str, shape: tuple[int, ...], a: int) -> np.ndarray:
    """Positions in ``[0, a)`` with 0 and ``a - 1`` twice each among the first ones (both ends, duplicates)."""
    idx = np.random.default_rng(len(name)).integers(0, a, shape).astype(np.int64)
    flat = idx.reshape(-1)
    ends = [0, a - 1, a - 1, 0][: flat.size]
    flat[: len(ends)] = ends
    return flat.reshape(shape)


def _t(x: np.ndarray) -> Any:
    x = x.copy(order="C")  # contiguous, 0-d kept
    if x.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(x)


def _torch(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    r = _t(x).scatter_add(dim, torch.from_numpy(index), _t(src))
    return r.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if x.dtype == ml_dtypes.bfloat16 else r.numpy()


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _call(case: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    name, shape, dim, index_shape, src_shape, dtype = case
    x = _array(name + "self", shape, dtype)
    a = (shape or (1,))[dim % max(len(shape), 1)]
    index = _index(name, index_shape, a)
    src = _array(name + "src", src_shape, dtype)
    return x, index, src, _torch(x, dim, index, src)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_deterministic_matches_pytorch_bit_for_bit(built_op: Callable[[str, str], OpCallable], case: tuple) -> None:
    x, index, src, want = _call(case)
    op = built_op(OP, PRODUCT)
    for order in ("in_order", "reversed"):
        got = np.asarray(op(self=x, dim=case[2], index=index, src=src, deterministic=True, core_order=order))
        assert got.dtype == want.dtype and got.shape == want.shape, case[0]
        assert np.array_equal(_bits(got), _bits(want)), (case[0], order)


@pytest.mark.parametrize("case", [c for c in CASES if c[5] in (np.float32, np.float16)], ids=lambda c: c[0])
def test_atomic_within_the_sum_bound(built_op: Callable[[str, str], OpCallable], case: tuple) -> None:
    x, index, src, want = _call(case)
    name, shape, dim, _, _, dtype = case
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=dim, index=index, src=src, core_order="reversed"))
    t_index = torch.from_numpy(index)
    count = torch.zeros(shape, dtype=torch.float64).scatter_add(
        dim, t_index, torch.ones(index.shape, dtype=torch.float64)
    )
    picked = torch.from_numpy(src.astype(np.float64))[tuple(slice(0, n) for n in index.shape)]
    mag = torch.from_numpy(np.asarray(np.abs(x.astype(np.float64)))).scatter_add(dim, t_index, picked.abs())
    u = float(np.finfo(dtype).eps) / 2
    bound = (count.numpy() + 1) * u * mag.numpy()
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert (err <= bound).all(), (name, float(err.max()))


def test_a_transposed_self_and_hostile_positions(built_op: Callable[[str, str], OpCallable]) -> None:
    """A transposed self matches PyTorch bit for bit; a position outside [0, A), which PyTorch refuses, adds
    nothing (PyTorch on the index with those positions' src replaced by zeros gives the same)."""
    x = _array("transposed", (6, 8), np.float32).T  # [8, 6], not contiguous
    index = _index("transposed", (10, 6), 8)
    src = _array("transposed src", (10, 6), np.float32)
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=0, index=index, src=src, deterministic=True))
    assert np.array_equal(_bits(got), _bits(_torch(x, 0, index, src)))
    bad = index.copy()
    bad[3, :] = [-1, 8, 9, 2**40, -(2**40), 2**31]
    with pytest.raises(RuntimeError):
        _torch(x, 0, bad, src)
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=0, index=bad, src=src, deterministic=True))
    kept = src.copy()
    kept[3, :] = 0
    assert np.array_equal(_bits(got), _bits(_torch(x, 0, np.where((bad >= 0) & (bad < 8), bad, 0), kept)))
