"""reference/layer_norm.py (aclnnLayerNorm's float64 NumPy reference): hand-computed values, the biased two-pass
variance on a row whose mean dwarfs its spread, the null weight and bias, the empty-tensor values ops-nn's op_api
documents (mean 0, rstd NaN), the shape errors, and PyTorch float64 (``torch.ops.aten.native_layer_norm``) as an
independent oracle."""

from __future__ import annotations

import importlib.util
import math
from types import ModuleType

import numpy as np
import pytest

from codegen.paths import project_paths


def _load() -> ModuleType:
    path = project_paths().reference / "layer_norm.py"
    spec = importlib.util.spec_from_file_location("layer_norm_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _load()


def test_hand_values_one_row() -> None:
    # row [1, 2, 3, 4]: mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25; eps 0.75 -> rstd 1/sqrt(2)
    out, mean, rstd = REF.reference(np.array([[1.0, 2.0, 3.0, 4.0]]), [4], np.array([1.0, 2.0, 1.0, 1.0]), None, 0.75)
    assert mean.shape == rstd.shape == (1, 1)
    assert mean[0, 0] == 2.5
    assert rstd[0, 0] == pytest.approx(1 / math.sqrt(2.0), rel=1e-15)
    h = 1 / math.sqrt(2.0)
    np.testing.assert_allclose(out, [[-1.5 * h, -1.0 * h, 0.5 * h, 1.5 * h]], rtol=1e-15)


def test_bias_and_default_eps() -> None:
    # a constant row: variance 0, rstd = 1/sqrt(1e-5); out is the bias
    out, mean, rstd = REF.reference(np.full((3, 2), 7.0), [2], None, np.array([0.5, -2.0]))
    np.testing.assert_array_equal(mean, np.full((3, 1), 7.0))
    np.testing.assert_allclose(rstd, np.full((3, 1), 1 / math.sqrt(1e-5)), rtol=1e-15)
    np.testing.assert_array_equal(out, np.tile([0.5, -2.0], (3, 1)))


def test_variance_is_of_the_deviations_not_mean_of_squares_minus_square_of_mean() -> None:
    # 1e8 + [1, 2, 3, 4] (exact in float64): variance 1.25; E[x^2] - E[x]^2 would lose it to cancellation
    x = 1e8 + np.array([1.0, 2.0, 3.0, 4.0])
    _, _, rstd = REF.reference(x, [4], eps=0.0)
    assert rstd[0] == pytest.approx(1 / math.sqrt(1.25), rel=1e-15)


def test_two_normalized_dims_reduce_the_last_two() -> None:
    # x (2, 1, 2) over [1, 2]: rows [1, 3] (mean 2, var 1) and [0, 0]
    x = np.array([[[1.0, 3.0]], [[0.0, 0.0]]])
    out, mean, rstd = REF.reference(x, [1, 2], eps=0.0)
    assert mean.shape == rstd.shape == (2, 1, 1)
    np.testing.assert_array_equal(mean.ravel(), [2.0, 0.0])
    assert rstd[0, 0, 0] == 1.0 and rstd[1, 0, 0] == math.inf
    np.testing.assert_array_equal(out[0], [[-1.0, 1.0]])


def test_empty_tensors_as_ops_nn_op_api_treats_them() -> None:
    out, mean, rstd = REF.reference(np.zeros((3, 0), np.float32), [0])  # rows of no element
    assert out.shape == (3, 0) and mean.shape == rstd.shape == (3, 1)
    np.testing.assert_array_equal(mean, np.zeros((3, 1)))
    assert np.isnan(rstd).all()
    out, mean, rstd = REF.reference(np.zeros((0, 4), np.float32), [4], np.ones(4), np.zeros(4))  # no rows
    assert out.shape == (0, 4) and mean.shape == rstd.shape == (0, 1)


def test_float32_sums_overflow_as_the_kernel_s_do() -> None:
    x = np.array([[3e38, 3e38], [1.5e19, -1.5e19]], dtype=np.float32)
    out, mean, rstd = REF.reference(x, [2], None, np.array([0.25, 0.5], np.float32))
    assert mean[0, 0] == math.inf and rstd[0, 0] == 0.0 and np.isnan(out[0]).all()
    assert mean[1, 0] == 0.0 and rstd[1, 0] == 0.0  # squares 2.25e38 each: their sum is beyond float32
    np.testing.assert_array_equal(out[1], [0.25, 0.5])


@pytest.mark.parametrize(
    ("shape", "norm", "weight", "bias", "match"),
    [
        ((4, 8), [4], None, None, "not input's last"),
        ((8,), [1, 8], None, None, "dims"),
        ((4, 8), [], None, None, "dims"),
        ((4, 8), [8], (4,), None, "weightOptional"),
        ((4, 8), [8], None, (1, 8), "biasOptional"),
    ],
)
def test_bad_shapes_raise(
    shape: tuple[int, ...],
    norm: list[int],
    weight: tuple[int, ...] | None,
    bias: tuple[int, ...] | None,
    match: str,
) -> None:
    w = None if weight is None else np.ones(weight)
    b = None if bias is None else np.zeros(bias)
    with pytest.raises(ValueError, match=match):
        REF.reference(np.zeros(shape), norm, w, b)


def test_tolerance_shapes_and_one_row_value() -> None:
    x = np.tile([1.0, -1.0], (2, 500))  # N 1000, mean 0, variance 1, largest |x| 1
    atol_out, atol_mean, atol_rstd, rtol = REF.tolerance(x, [1000], eps=0.0)
    assert rtol == 0.0 and atol_out.shape == (2, 1000) and atol_mean.shape == atol_rstd.shape == (2, 1)
    assert atol_mean[0, 0] == pytest.approx(2.0**-24 * 504)
    assert atol_rstd[0, 0] == pytest.approx(2.0**-24 * 508 * 2)


torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")


@pytest.mark.parametrize(
    ("shape", "k", "scale", "affine"),
    [
        ((5, 1), 1, 2.0, (True, True)),
        ((7, 33), 1, 2.0, (True, False)),
        ((3, 4, 6), 2, 3.0, (False, True)),
        ((2, 3, 4, 5), 3, 1.0, (False, False)),
        ((6, 64), 1, 1e30, (True, True)),
        ((9,), 1, 1.0, (True, True)),
    ],
)
def test_matches_pytorch_native_layer_norm_float64(
    shape: tuple[int, ...], k: int, scale: float, affine: tuple[bool, bool]
) -> None:
    rng = np.random.default_rng(abs(hash((shape, k))) % 2**32)
    x = rng.standard_normal(shape) * scale * np.exp(rng.uniform(-3, 3, shape)) + scale
    norm = list(shape[len(shape) - k :])
    w = rng.standard_normal(norm) if affine[0] else None
    b = rng.standard_normal(norm) if affine[1] else None
    got = REF.reference(x, norm, w, b, 1e-5)
    want = torch.ops.aten.native_layer_norm(
        torch.from_numpy(x),
        norm,
        None if w is None else torch.from_numpy(w),
        None if b is None else torch.from_numpy(b),
        1e-5,
    )
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g, t.numpy().reshape(g.shape), rtol=1e-12, atol=1e-300)
