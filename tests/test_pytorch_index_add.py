"""PyTorch CPU as the independent oracle of aclnnIndexAdd (``Tensor.index_add(dim, index, source, alpha=)``; the
gather_scatter family's ``direction: index_add``) on a few calls, under CANN's parameter names (self, dim, index,
source, alpha).

With ACL_OPT_DETERMINISTIC each element is summed by one core in index order, as PyTorch's CPU kernel adds the
slices one after the other: with alpha 1 (a product by 1 is exact) FLOAT and INT32 must be PyTorch's bit for
bit. With another alpha, and for FLOAT16 and BF16 (summed in float32 here, rounded once; PyTorch rounds each
add), the result must be within ``(k + 1) * u * (|self| + sum |alpha * source|)`` of PyTorch's float64 result
(``u`` the unit roundoff of the dtype, ``k`` the terms added into the element). Integer alpha on INT32 is exact.
Cases: every dim of a rank-3 tensor (positive and negative) with duplicate positions and both ends of the range,
an INT32 index, a 0-d self, a transposed self, the atomic strategy (the adds in the cores' order). PyTorch
raises for a position outside ``[0, A)``; the op adds nothing for it.
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
OP = "index_add"

#: (name, self shape, dim, K, numpy dtype, alpha, index dtype)
CASES: list[tuple[str, tuple[int, ...], int, int, Any, float, Any]] = [
    ("dim 0, duplicates", (5, 4, 3), 0, 12, np.float32, 1.0, np.int64),
    ("dim 1", (5, 6, 3), 1, 9, np.float32, 1.0, np.int32),
    ("dim -1", (5, 4, 7), -1, 20, np.float32, 1.0, np.int64),
    ("0-d", (), 0, 1, np.float32, 1.0, np.int64),
    ("alpha -0.75", (8, 10), 1, 25, np.float32, -0.75, np.int64),
    ("FLOAT16", (9, 11), 1, 30, np.float16, 2.0, np.int64),
    ("BF16", (9, 11), 0, 40, ml_dtypes.bfloat16, 0.5, np.int64),
    ("INT32 alpha 3", (7, 5), 1, 12, np.int32, 3.0, np.int64),
]


def _array(seed: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, seed)))
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


def _index(name: str, k: int, a: int, dtype: Any) -> np.ndarray:
    """``k`` positions in ``[0, a)``, 0 and ``a - 1`` twice each among the first ones."""
    idx = np.random.default_rng(len(name)).integers(0, a, k).astype(np.int64)
    ends = [0, a - 1, a - 1, 0][:k]
    idx[: len(ends)] = ends
    return idx.astype(dtype)


def _t(x: np.ndarray) -> Any:
    x = x.copy(order="C")
    if x.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(x)


def _call(case: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    name, shape, dim, k, dtype, _, index_dtype = case
    x = _array(name + "self", shape, dtype)
    axis = dim % max(len(shape), 1)
    a = (shape or (1,))[axis]
    src_shape = tuple(k if i == axis else e for i, e in enumerate(shape))
    return x, _index(name, k, a, index_dtype), _array(name + "source", src_shape, dtype)


def _torch(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, alpha: float, wide: bool = False) -> Any:
    t_x, t_s = (_t(x).double(), _t(src).double()) if wide else (_t(x), _t(src))
    a: Any = int(alpha) if t_x.dtype == torch.int32 else alpha
    return t_x.index_add(dim, torch.from_numpy(index.astype(np.int64)), t_s, alpha=a)


def _bound(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, alpha: float) -> np.ndarray:
    u = {np.dtype(np.float32): 2.0**-24, np.dtype(np.float16): 2.0**-11}.get(x.dtype, 2.0**-8)  # BF16: 2**-8
    t_index = torch.from_numpy(index.astype(np.int64))
    terms = (torch.from_numpy(src.astype(np.float64)) * alpha).abs()
    count = torch.zeros(x.shape, dtype=torch.float64).index_add(dim, t_index, torch.ones_like(terms))
    mag = torch.from_numpy(np.abs(x.astype(np.float64))).index_add(dim, t_index, terms)
    return ((count + 1) * u * mag).numpy()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_deterministic_matches_pytorch(built_op: Callable[[str, str], OpCallable], case: tuple) -> None:
    x, index, src = _call(case)
    name, _, dim, _, dtype, alpha, _ = case
    op = built_op(OP, PRODUCT)
    for order in ("in_order", "reversed"):
        got = np.asarray(
            op(self=x, dim=dim, index=index, source=src, alpha=alpha, deterministic=True, core_order=order)
        )
        assert got.shape == x.shape and got.dtype == x.dtype, name
        if dtype in (np.float32, np.int32) and (alpha == 1.0 or dtype == np.int32):
            assert np.array_equal(got, _torch(x, dim, index, src, alpha).numpy()), (name, order)
        else:
            err = np.abs(got.astype(np.float64) - _torch(x, dim, index, src, alpha, wide=True).numpy())
            assert (err <= _bound(x, dim, index, src, alpha)).all(), (name, order, float(err.max()))


def test_atomic_within_the_bound(built_op: Callable[[str, str], OpCallable]) -> None:
    case = CASES[4]
    x, index, src = _call(case)
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=1, index=index, source=src, alpha=-0.75, core_order="reversed"))
    err = np.abs(got.astype(np.float64) - _torch(x, 1, index, src, -0.75, wide=True).numpy())
    assert (err <= _bound(x, 1, index, src, -0.75)).all(), float(err.max())


def test_a_transposed_self_and_hostile_positions(built_op: Callable[[str, str], OpCallable]) -> None:
    """A transposed self matches PyTorch bit for bit (alpha 1); a position outside [0, A), which PyTorch
    refuses, adds nothing (PyTorch with those slices of source zeroed gives the same)."""
    x = _array("transposed", (6, 8), np.float32).T  # [8, 6], not contiguous
    index = _index("transposed", 10, 8, np.int64)
    src = _array("transposed src", (10, 6), np.float32)
    op = built_op(OP, PRODUCT)
    got = np.asarray(op(self=x, dim=0, index=index, source=src, alpha=1.0, deterministic=True))
    assert np.array_equal(got, _torch(x, 0, index, src, 1.0).numpy())
    bad = index.copy()
    bad[[2, 5, 7]] = [-1, 8, 2**40]
    with pytest.raises((IndexError, RuntimeError)):
        _torch(x, 0, bad, src, 1.0)
    got = np.asarray(op(self=x, dim=0, index=bad, source=src, alpha=1.0, deterministic=True))
    kept = src.copy()
    kept[[2, 5, 7]] = 0
    assert np.array_equal(got, _torch(x, 0, np.where((bad >= 0) & (bad < 8), bad, 0), kept, 1.0).numpy())


def test_an_empty_source_launches_nothing_and_leaves_out(built_op: Callable[[str, str], OpCallable]) -> None:
    """CANN's rule: an empty self or source returns success with workspace 0 and launches nothing, so ``out``
    keeps what it held (not a copy of self); with an empty index but a non-empty self, PyTorch returns self."""
    op = built_op(OP, PRODUCT)
    x = _array("empty", (4, 5), np.float32)
    out = np.full((4, 5), 7.0, np.float32)
    got = np.asarray(
        op(self=x, dim=0, index=np.zeros(0, np.int64), source=np.zeros((0, 5), np.float32), alpha=2.0, out=out)
    )
    assert np.array_equal(got, np.full((4, 5), 7.0, np.float32))
    assert np.array_equal(_torch(x, 0, np.zeros(0, np.int64), np.zeros((0, 5), np.float32), 2.0).numpy(), x)
