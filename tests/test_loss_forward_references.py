"""The NumPy references of the loss forwards with a ``reduction`` attribute (aclnnMseLoss, aclnnL1Loss,
aclnnSmoothL1Loss, aclnnSoftMarginLoss, aclnnBinaryCrossEntropy), checked against values worked out by hand
and, when PyTorch is installed, against ``torch.nn.functional`` in float64.

These references are written ahead of the whole-tensor reduction family that will generate the ops (see the
issue "Reductions"); until a spec names them no check runs them, so they are tested here on their own.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

REFERENCE_DIR = Path(__file__).resolve().parents[1] / "reference"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_loss_ref_{name}", REFERENCE_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MSE, L1, SMOOTH, SOFT, BCE = (
    _load(n) for n in ("mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy")
)
X = np.array([[0.0, 1.0], [2.0, 3.0]], dtype=np.float32)
T = np.array([1.0, -1.0], dtype=np.float32)  # broadcasts over the rows of X


def test_mse_loss_by_hand() -> None:
    # (x - t)^2 = [[1, 4], [1, 16]]
    assert MSE.reference(X, T, 0).tolist() == [[1.0, 4.0], [1.0, 16.0]]
    assert MSE.reference(X, T, 2).shape == () and float(MSE.reference(X, T, 2)) == 22.0
    assert float(MSE.reference(X, T, 1)) == 5.5


def test_l1_loss_by_hand() -> None:
    assert L1.reference(X, T, 0).tolist() == [[1.0, 2.0], [1.0, 4.0]]
    assert float(L1.reference(X, T, 2)) == 8.0
    assert float(L1.reference(X, T, 1)) == 2.0


def test_smooth_l1_loss_by_hand() -> None:
    # d = [[1, 2], [1, 4]], beta 1.5: 0.5 * 1 / 1.5 where d < 1.5, else d - 0.75
    got = SMOOTH.reference(X, T, 0, 1.5)
    np.testing.assert_allclose(got, [[1 / 3, 1.25], [1 / 3, 3.25]], rtol=1e-15)
    np.testing.assert_allclose(float(SMOOTH.reference(X, T, 2, 1.5)), 2 / 3 + 4.5, rtol=1e-15)
    assert SMOOTH.reference(X, T, 0, 0.0).tolist() == [[1.0, 2.0], [1.0, 4.0]]  # beta 0 is L1
    with pytest.raises(ValueError, match="beta"):
        SMOOTH.reference(X, T, 0, -1.0)


def test_soft_margin_loss_by_hand_and_without_overflow() -> None:
    got = SOFT.reference(np.array([0.0, 1.0, -2.0]), np.array([1.0, 1.0, 1.0]), 0)
    np.testing.assert_allclose(got, [math.log(2.0), math.log1p(math.exp(-1.0)), math.log1p(math.exp(2.0))])
    # -t*x = 1000: the literal form overflows exp; the loss is 1000 (to double precision)
    assert float(SOFT.reference(np.array([-1000.0]), np.array([1.0]), 2)) == 1000.0
    assert float(SOFT.reference(np.array([1000.0]), np.array([1.0]), 2)) == 0.0


def test_binary_cross_entropy_by_hand_with_weight_and_log_clamp() -> None:
    x = np.array([0.5, 0.25, 0.0, 1.0])
    t = np.array([1.0, 0.0, 0.0, 0.0])
    w = np.array([2.0, 1.0, 1.0, 1.0])
    # -log(0.5) * 2, -log(0.75), 0 (log(1 - 0) = 0), and log(1 - 1) clamped at -100 -> 100
    want = [2 * math.log(2.0), -math.log(0.75), 0.0, 100.0]
    np.testing.assert_allclose(BCE.reference(x, t, 0, w), want, rtol=1e-15)
    np.testing.assert_allclose(float(BCE.reference(x, t, 1, w)), sum(want) / 4, rtol=1e-15)
    np.testing.assert_allclose(float(BCE.reference(x, t, 2)), sum(want) - math.log(2.0), rtol=1e-15)
    with pytest.raises(ValueError, match="target"):
        BCE.reference(x, t[:2], 0)
    with pytest.raises(ValueError, match="weight"):
        BCE.reference(x, t, 0, np.ones(3))


@pytest.mark.parametrize("ref", [MSE, L1, SOFT], ids=["mse", "l1", "soft_margin"])
def test_empty_input_mean_is_nan_sum_is_zero_none_is_empty(ref: ModuleType) -> None:
    empty = np.zeros((0, 3), dtype=np.float32)
    assert math.isnan(float(ref.reference(empty, empty, 1)))
    assert float(ref.reference(empty, empty, 2)) == 0.0
    assert ref.reference(empty, empty, 0).shape == (0, 3)


def test_empty_input_of_the_attribute_taking_losses() -> None:
    empty = np.zeros((0,), dtype=np.float32)
    assert math.isnan(float(SMOOTH.reference(empty, empty, 1, 1.0)))
    assert math.isnan(float(BCE.reference(empty, empty, 1)))
    assert float(BCE.reference(empty, empty, 2, np.ones(1))) == 0.0


@pytest.mark.parametrize("ref", [MSE, L1, SOFT], ids=["mse", "l1", "soft_margin"])
def test_nan_and_inf_propagate_into_the_reductions(ref: ModuleType) -> None:
    x = np.array([0.0, np.nan, 1.0])
    t = np.zeros(3)
    assert math.isnan(float(ref.reference(x, t, 1))) and math.isnan(float(ref.reference(x, t, 2)))
    assert math.isinf(float(ref.reference(np.array([0.0, -np.inf]), np.ones(2), 2)))


@pytest.mark.parametrize("ref", [MSE, L1, SOFT, SMOOTH, BCE], ids=["mse", "l1", "soft", "smooth", "bce"])
def test_reduction_outside_0_to_2_is_refused(ref: ModuleType) -> None:
    args: tuple[float, ...] = (1.0,) if ref is SMOOTH else ()
    with pytest.raises(ValueError, match="reduction"):
        ref.reference(X, X, 3, *args)


def test_references_equal_pytorch_in_float64() -> None:
    """float64 PyTorch on the same (broadcast) inputs; the mean divisor is the broadcast element count in
    both (PyTorch expands self and target before the loss)."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'"
    )
    functional = torch.nn.functional
    rng = np.random.default_rng(16)
    x = rng.standard_normal((5, 7)) * 3
    t = rng.standard_normal((7,)) * 3
    xb, tb = np.broadcast_arrays(x, t)
    names = {0: "none", 1: "mean", 2: "sum"}
    p = rng.uniform(0.0, 1.0, (5, 7))
    y = rng.uniform(0.0, 1.0, (5, 7))
    w = rng.uniform(0.0, 2.0, (7,))
    sign = np.where(rng.standard_normal((5, 7)) < 0, -1.0, 1.0)
    for r, name in names.items():

        def tt(a: np.ndarray) -> object:
            return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

        cases = [
            (MSE.reference(x, t, r), functional.mse_loss(tt(xb), tt(tb), reduction=name)),
            (L1.reference(x, t, r), functional.l1_loss(tt(xb), tt(tb), reduction=name)),
            (SMOOTH.reference(x, t, r, 0.7), functional.smooth_l1_loss(tt(xb), tt(tb), reduction=name, beta=0.7)),
            (SMOOTH.reference(x, t, r, 0.0), functional.smooth_l1_loss(tt(xb), tt(tb), reduction=name, beta=0.0)),
            (SOFT.reference(x, sign, r), functional.soft_margin_loss(tt(x), tt(sign), reduction=name)),
            (
                BCE.reference(p, y, r, w),
                functional.binary_cross_entropy(tt(p), tt(y), tt(np.broadcast_to(w, p.shape)), reduction=name),
            ),
            (BCE.reference(p, y, r), functional.binary_cross_entropy(tt(p), tt(y), reduction=name)),
        ]
        for got, want in cases:
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-13, atol=0, err_msg=name)


def test_empty_input_matches_pytorch() -> None:
    """PyTorch (float64) gives NaN for the mean and 0 for the sum of an empty loss; so do the references."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'"
    )
    functional = torch.nn.functional
    empty = np.zeros((0, 3))
    te = torch.from_numpy(empty)
    pairs = [
        (MSE.reference, functional.mse_loss, ()),
        (L1.reference, functional.l1_loss, ()),
        (SOFT.reference, functional.soft_margin_loss, ()),
        (BCE.reference, functional.binary_cross_entropy, ()),
        (SMOOTH.reference, functional.smooth_l1_loss, (1.0,)),
    ]
    for ref, torch_fn, extra in pairs:
        for r, name in ((1, "mean"), (2, "sum")):
            want = float(torch_fn(te, te, reduction=name))
            got = float(ref(empty, empty, r, *extra))
            assert (math.isnan(want) and math.isnan(got)) or got == want, (torch_fn.__name__, name, got, want)
