"""reference/rms_norm.py (aclnnRmsNorm's float64 NumPy reference): hand-computed values, the shapes of the
CANN doc's examples, the special rows, the shape errors, and PyTorch float64 as an independent oracle
(``torch.nn.functional.rms_norm`` for y; ``torch.rsqrt(mean(x**2) + eps)`` for rstd)."""

from __future__ import annotations

import importlib.util
import math
from types import ModuleType

import numpy as np
import pytest

from codegen.paths import project_paths


def _load() -> ModuleType:
    path = project_paths().reference / "rms_norm.py"
    spec = importlib.util.spec_from_file_location("rms_norm_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _load()


def test_hand_values_one_row() -> None:
    # mean(3**2, 4**2) = 12.5; rstd = 1/sqrt(12.5); y = (3 * 1, 4 * 2) * rstd
    y, rstd = REF.reference(np.array([[3.0, 4.0]]), np.array([1.0, 2.0]), 0.0)
    assert rstd.shape == (1, 1)
    assert rstd[0, 0] == pytest.approx(0.28284271247461906, rel=1e-15)
    np.testing.assert_allclose(y, [[0.848528137423857, 2.262741699796952]], rtol=1e-15)


def test_epsilon_is_added_to_the_mean_of_squares() -> None:
    # (9 + 16) / 2 + 0.5 = 13
    _, rstd = REF.reference(np.array([3.0, 4.0]), np.array([1.0, 1.0]), 0.5)
    assert rstd.shape == (1,)
    assert rstd[0] == pytest.approx(1 / math.sqrt(13.0), rel=1e-15)


def test_default_epsilon_is_1e_6() -> None:
    _, rstd = REF.reference(np.zeros((2, 4)), np.ones(4))
    np.testing.assert_allclose(rstd, np.full((2, 1), 1000.0), rtol=1e-12)  # 1 / sqrt(1e-6)


def test_the_doc_example() -> None:
    # aclnnRmsNorm.md example: x [2, 16] = two rows 0..7, 0..7; gamma the same 16 values; epsilon 1e-6
    row = np.array([0, 1, 2, 3, 4, 5, 6, 7] * 2, dtype=np.float32)
    y, rstd = REF.reference(np.stack([row, row]), row, 1e-6)
    expected_rstd = 1 / math.sqrt(2 * 140 / 16 + 1e-6)  # sum of squares 0..7 is 140, twice, over 16
    np.testing.assert_allclose(rstd, [[expected_rstd], [expected_rstd]], rtol=1e-15)
    np.testing.assert_allclose(y[1], row.astype(np.float64) ** 2 * expected_rstd, rtol=1e-15)


def test_gamma_of_two_dims_reduces_the_last_two() -> None:
    # x (2, 1, 2), gamma (1, 2): rows [1, 1] (mean 1) and [2, 0] (mean 2)
    x = np.array([[[1.0, 1.0]], [[2.0, 0.0]]])
    y, rstd = REF.reference(x, np.array([[1.0, -1.0]]), 0.0)
    assert rstd.shape == (2, 1, 1)
    np.testing.assert_allclose(rstd.ravel(), [1.0, 1 / math.sqrt(2.0)], rtol=1e-15)
    np.testing.assert_allclose(y, [[[1.0, -1.0]], [[math.sqrt(2.0), 0.0]]], rtol=1e-15, atol=0)


def test_gamma_indexed_by_the_position_in_the_row() -> None:
    # every row is [1, 1, 1]: rstd is 1 with epsilon 0; y is gamma on every row (not gamma[row])
    y, _ = REF.reference(np.ones((4, 3)), np.array([5.0, 6.0, 7.0]), 0.0)
    np.testing.assert_array_equal(y, np.tile([5.0, 6.0, 7.0], (4, 1)))


def test_rstd_shapes_of_the_doc() -> None:
    assert REF.rstd_shape((2, 3, 4, 8), 1) == (2, 3, 4, 1)
    assert REF.rstd_shape((2, 3, 4, 8), 2) == (2, 3, 1, 1)
    assert REF.rstd_shape((5,), 1) == (1,)
    with pytest.raises(ValueError, match="outside"):
        REF.rstd_shape((2, 3), 3)


def test_empty_x_gives_empty_outputs() -> None:
    y, rstd = REF.reference(np.zeros((0, 4), np.float32), np.ones(4, np.float32))
    assert y.shape == (0, 4) and rstd.shape == (0, 1)


def test_inf_and_nan_rows() -> None:
    x = np.array([[np.inf, 1.0], [np.nan, 1.0], [1.0, 1.0]])
    y, rstd = REF.reference(x, np.ones(2), 0.0)
    assert rstd[0, 0] == 0.0 and math.isnan(rstd[1, 0]) and rstd[2, 0] == 1.0
    assert math.isnan(y[0, 0]) and y[0, 1] == 0.0  # inf * 0 and 1 * 0
    assert np.isnan(y[1]).all()
    np.testing.assert_array_equal(y[2], [1.0, 1.0])


@pytest.mark.parametrize(
    ("x_shape", "gamma_shape", "match"),
    [((4, 8), (4,), "not x's last"), ((8,), (1, 8), "dims"), ((4, 8), (), "dims"), ((4, 0), (0,), "empty")],
)
def test_bad_gamma_shapes_raise(x_shape: tuple[int, ...], gamma_shape: tuple[int, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        REF.reference(np.zeros(x_shape), np.zeros(gamma_shape))


def test_tolerance_grows_with_the_row_length() -> None:
    x = np.ones((2, 1000))
    atol_y, atol_r, rtol = REF.tolerance(x, np.ones(1000), 0.0)
    assert rtol == 0.0
    assert atol_y.shape == (2, 1000) and atol_r.shape == (2, 1)
    assert atol_y[0, 0] == pytest.approx(2.0**-24 * 516)
    assert atol_r[0, 0] == pytest.approx(2.0**-24 * 508)


torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")


@pytest.mark.parametrize(
    ("x_shape", "k", "scale"),
    [
        ((5, 1), 1, 2.0),
        ((7, 33), 1, 2.0),
        ((3, 4, 6), 2, 3.0),
        ((2, 3, 4, 5), 3, 1.0),
        ((6, 64), 1, 1e30),
        ((9,), 1, 1.0),
    ],
)
def test_matches_pytorch_float64(x_shape: tuple[int, ...], k: int, scale: float) -> None:
    rng = np.random.default_rng(abs(hash((x_shape, k))) % 2**32)
    x = rng.standard_normal(x_shape) * scale * np.exp(rng.uniform(-3, 3, x_shape))
    gamma = rng.standard_normal(x_shape[len(x_shape) - k :])
    eps = 1e-6
    y, rstd = REF.reference(x, gamma, eps)
    tx, tg = torch.from_numpy(x), torch.from_numpy(gamma)
    ty = torch.nn.functional.rms_norm(tx, tuple(gamma.shape), weight=tg, eps=eps)
    dims = tuple(range(len(x_shape) - k, len(x_shape)))
    tr = torch.rsqrt(tx.pow(2).mean(dim=dims, keepdim=True) + eps)
    np.testing.assert_allclose(y, ty.numpy(), rtol=1e-13, atol=0)
    np.testing.assert_allclose(rstd, tr.numpy(), rtol=1e-13, atol=0)


def test_special_rows_match_pytorch_float64() -> None:
    x = np.array([[np.inf, 1.0, 2.0], [np.nan, 1.0, 2.0], [-np.inf, 0.0, 0.0], [1e-300, 0.0, 0.0]])
    gamma = np.array([1.0, 2.0, 3.0])
    y, _ = REF.reference(x, gamma, 1e-6)
    ty = torch.nn.functional.rms_norm(torch.from_numpy(x), (3,), weight=torch.from_numpy(gamma), eps=1e-6)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ty.numpy()))
    np.testing.assert_allclose(np.nan_to_num(y), np.nan_to_num(ty.numpy()), rtol=1e-13, atol=0)
