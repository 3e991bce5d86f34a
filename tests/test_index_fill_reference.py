"""The NumPy reference of aclnnIndexFillTensor (reference/index_fill_tensor.py) against hand-counted values and
PyTorch's ``Tensor.index_fill(dim, index, value)`` on a few small calls.

Hand values: CANN's document's example (a 3x3 self, index [0, 2], value 0 along dim 0 and dim 1). PyTorch: every
dim of a rank-3 tensor (positive and negative), indices at both ends, duplicates, negatives, one dtype of each
kind (FLOAT, FLOAT16, BF16, INT32, INT64, BOOL) and a 0-d self. The fill's float32 rounding (CANN on
Ascend910B/910_93 fills with ``value->ToFloat()``) is checked by hand: 16777217 fills an INT32 self as
16777216 and 0.1 a FLOAT16 self as float16(float32(0.1)); PyTorch gets the value already rounded to float32
there, so it agrees. An index outside ``[-A, A)`` raises (CANN returns 161002 in phase 1).
"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from codegen.paths import project_paths

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")


def _load() -> ModuleType:
    path = project_paths().reference / "index_fill_tensor.py"
    spec = importlib.util.spec_from_file_location("reference_index_fill_tensor", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _load()

#: numpy dtype -> torch dtype
TORCH: dict[Any, Any] = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float16): torch.float16,
    np.dtype(ml_dtypes.bfloat16): torch.bfloat16,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.bool_): torch.bool,
}


def test_document_example() -> None:
    """CANN's document: [[1,2,3],[4,5,6],[7,8,9]], index [0, 2], value 0."""
    x = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    assert REF.reference(x, 0, [0, 2], 0.0).tolist() == [[0, 0, 0], [4, 5, 6], [0, 0, 0]]
    assert REF.reference(x, 1, [0, 2], 0.0).tolist() == [[0, 2, 0], [0, 5, 0], [0, 8, 0]]


CASES: list[tuple[str, tuple[int, ...], int, list[int], float, Any]] = [
    ("dim 0 both ends", (5, 4, 3), 0, [0, 4], 2.5, np.float32),
    ("dim 1 duplicates", (5, 4, 3), 1, [2, 2, 1], -7.0, np.float32),
    ("dim -1 negatives", (5, 4, 3), -1, [-1, -3], 9.0, np.float16),
    ("dim -3 mixed", (5, 4, 3), -3, [-5, 3, 4, -1], 1.5, ml_dtypes.bfloat16),
    ("INT32", (6, 7), 1, [6, 0, -7], -3.0, np.int32),
    ("INT64", (6, 7), 0, [5], 123456.0, np.int64),
    ("BOOL", (4, 5), 1, [1, 3], 1.0, np.bool_),
    ("0-d", (), 0, [0], 4.0, np.float32),
    ("0-d negative", (), -1, [-1], 4.0, np.float32),
]


@pytest.mark.parametrize(("shape", "dim", "index", "value", "dtype"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_against_pytorch(shape: tuple[int, ...], dim: int, index: list[int], value: float, dtype: Any) -> None:
    """The reference equals ``torch.Tensor.index_fill`` bit for bit (converted to float64)."""
    rng = np.random.default_rng(7)
    x = (rng.integers(-50, 50, size=shape) if dtype != np.bool_ else rng.integers(0, 2, size=shape) == 1).astype(dtype)
    got = REF.reference(x, dim, index, value)
    t = torch.from_numpy(np.asarray(x, dtype=np.float64)).to(TORCH[np.dtype(dtype)])
    want = t.index_fill(dim, torch.tensor(index, dtype=torch.int64), value).to(torch.float64).numpy()
    assert got.shape == x.shape
    np.testing.assert_array_equal(got, want)
    # the slices not named by index are self's, untouched
    axis = dim % max(len(shape), 1)
    a = (shape or (1,))[axis]
    kept = [i for i in range(a) if i not in {j % a for j in index}]
    np.testing.assert_array_equal(
        np.take(got.reshape(shape or (1,)), kept, axis=axis), np.take(x.reshape(shape or (1,)), kept, axis=axis)
    )


def test_value_rounded_to_float32() -> None:
    """16777217 (2**24 + 1) is 16777216 in float32, so an INT32 or INT64 self is filled with 16777216; 0.1
    fills a FLOAT16 self as float16(float32(0.1)) = 0.0999755859375 (both hand-computed)."""
    x = np.zeros((2, 3), dtype=np.int32)
    assert REF.reference(x, 1, [1], 16777217.0)[:, 1].tolist() == [16777216.0, 16777216.0]
    assert REF.reference(x.astype(np.int64), 0, [0], 16777217.0)[0].tolist() == [16777216.0] * 3
    assert REF.reference(np.zeros(4, np.float16), 0, [2], 0.1)[2] == 0.0999755859375
    assert REF.fill_value(16777217.0, np.dtype(np.int64), float32_value=False) == 16777217.0


def test_empty_and_errors() -> None:
    """An empty index or an empty self gives self; an index outside [-A, A) or a dim out of range raises."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(REF.reference(x, 1, [], 5.0), x)
    assert REF.reference(np.zeros((0, 3), np.float32), 1, [2], 5.0).shape == (0, 3)
    with pytest.raises(ValueError, match="outside"):
        REF.reference(x, 1, [3], 5.0)
    with pytest.raises(ValueError, match="outside"):
        REF.reference(x, 1, [-4], 5.0)
    with pytest.raises(ValueError, match="dim"):
        REF.reference(x, 2, [0], 5.0)
