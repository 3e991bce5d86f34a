"""PyTorch CPU as the independent oracle of aclnnIndexFillTensor (``Tensor.index_fill(dim, index, value)``; the
gather_scatter family's ``direction: fill``) on a few calls, under CANN's parameter names (self, dim, index,
value).

A fill rounds nothing but the value, so the generated kernel must give PyTorch's result bit for bit when the
value is one float32 holds exactly (then CANN's float32 rounding on Ascend910B/910_93 changes nothing). Cases
(on Ascend910B, one build): every dim of a rank-3 tensor (positive and negative) with duplicate positions and
both ends of the range (0, A - 1, -1, -A), one dtype of each kind (FLOAT16, BF16, FLOAT, INT32, INT64 beyond
2**53, BOOL), a 0-d self and a transposed (non-contiguous) self. The value's float32 rounding: an INT64 self
filled with 2**40 + 1 gives ``index_fill`` with float32(2**40 + 1) = 2**40 on Ascend910B and with 2**40 + 1
itself on Ascend950 (CANN converts the aclScalar directly there). PyTorch raises for a position outside
``[-A, A)``; the op returns 161002 in phase 1 (as CANN).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.runner import AclnnError, OpCallable, ScalarArg

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

PRODUCT = "Ascend910B"
OP = "index_fill_tensor"

#: (name, self shape, dim, index, value, numpy dtype)
CASES: list[tuple[str, tuple[int, ...], int, list[int], float, Any]] = [
    ("dim 0, ends", (5, 4, 3), 0, [0, 4, 4, -5], -1.5, np.float32),
    ("dim 1, duplicates", (5, 4, 3), 1, [2, 2, -1, 2], 2.25, np.float32),
    ("dim -1, both ends", (5, 4, 3), -1, [-1, 0, -3], 0.0, np.float32),
    ("dim -3", (5, 4, 3), -3, [3, 1], 8.0, np.float32),
    ("0-d", (), 0, [-1, 0], 4.5, np.float32),
    ("FLOAT16", (9, 11), 1, [10, 0, 10, 5], -0.375, np.float16),
    ("BF16", (9, 11), 0, [8, -9, 3], 96.0, ml_dtypes.bfloat16),
    ("INT32", (7, 5), 1, [4, 0, -2], -7.0, np.int32),
    ("INT64 beyond 2**53", (7, 5), 0, [6, 6, 0], 12.0, np.int64),
    ("BOOL", (8, 9), 1, [8, 1, -9], 1.0, np.bool_),
]


def _self(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, name)))
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype is np.int64:
        return rng.integers(-(2**62), 2**62, shape, dtype=np.int64) | 1  # odd values above 2**53: not float64
    if dtype is np.int32:
        return rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


def _torch(x: np.ndarray, dim: int, index: list[int], value: float | int) -> np.ndarray:
    bf16 = x.dtype == ml_dtypes.bfloat16
    t = torch.from_numpy(np.ascontiguousarray(x).view(np.int16)).view(torch.bfloat16) if bf16 else torch.from_numpy(x)
    r = t.index_fill(dim, torch.tensor(index, dtype=torch.int64), value)
    return r.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if bf16 else r.numpy()


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _value(value: float, dtype: Any) -> float | int | bool:
    """The Python value PyTorch takes for ``dtype`` (an integer or bool self takes an int or bool)."""
    if dtype is np.bool_:
        return bool(value)
    return int(value) if np.issubdtype(np.dtype(dtype), np.integer) else value


@pytest.mark.parametrize(("name", "shape", "dim", "index", "value", "dtype"), CASES)
def test_kernel_matches_pytorch_bit_for_bit(
    built_op: Callable[[str, str], OpCallable],
    name: str,
    shape: tuple[int, ...],
    dim: int,
    index: list[int],
    value: float,
    dtype: Any,
) -> None:
    x = _self(name, shape, dtype)
    want = _torch(x, dim, index, _value(value, dtype))
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=dim, index=index, value=value))
    assert got.dtype == want.dtype and got.shape == want.shape, name
    assert np.array_equal(_bits(got), _bits(want)), name


def test_a_transposed_self_matches_pytorch(built_op: Callable[[str, str], OpCallable]) -> None:
    x = _self("transposed", (5, 8), np.float32).T  # [8, 5], not contiguous
    want = _torch(x, 1, [4, 0, 0], -2.5)
    got = np.asarray(built_op(OP, PRODUCT)(self=x, dim=1, index=[4, 0, 0], value=-2.5))
    assert np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize(("product", "filled"), [("Ascend910B", 2**40), ("Ascend950", 2**40 + 1)])
def test_the_value_is_rounded_to_float32_where_cann_fills_with_tofloat(
    built_op: Callable[[str, str], OpCallable], product: str, filled: int
) -> None:
    x = _self("value rounding", (3, 4), np.int64)
    want = _torch(x, 0, [2, 0], filled)
    got = np.asarray(built_op(OP, product)(self=x, dim=0, index=[2, 0], value=ScalarArg(2**40 + 1, "INT64")))
    assert np.array_equal(got, want), product
    assert (got[[0, 2]] == filled).all() and np.array_equal(got[1], x[1])


def test_pytorch_and_the_op_refuse_a_position_outside_the_range(built_op: Callable[[str, str], OpCallable]) -> None:
    x = _self("outside", (3, 4), np.float32)
    for position in (4, -5):
        with pytest.raises((IndexError, RuntimeError)):
            _torch(x, 1, [0, position], 1.0)
        with pytest.raises(AclnnError) as err:
            built_op(OP, PRODUCT)(self=x, dim=1, index=[0, position], value=1.0)
        assert err.value.status == 161002 and err.value.phase == 1
