"""PyTorch CPU as the independent oracle of the loss forwards with the reduce epilogue (MseLoss, L1Loss,
SmoothL1Loss, SoftMarginLoss).

Each case runs the NumPy reference against PyTorch in float64 (tight), and the generated kernel (fp32
inputs, on Ascend910 and Ascend910B) against PyTorch float64: the elementwise output (reduction 0) within
16 fp32 roundings of each element, the 0-d sum and mean (reduction 2, 1) within the fp32 summation bound
``n * 2**-24 * sum |l_i|`` (plus 16 roundings); NaN must be NaN and an infinity the same infinity. Cases:
one element, broadcasting, an empty tensor (sum 0, mean NaN), several tiles per core with a ragged tail,
a large dynamic range, and inputs holding +inf, -inf and NaN.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.runner import OpCallable

torch = pytest.importorskip("torch")
F = torch.nn.functional

PRODUCTS = ("Ascend910", "Ascend910B")
OPS = ("mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss")
NAMES = {0: "none", 1: "mean", 2: "sum"}

#: (name, self shape, target shape, scale, special values)
CASES: list[tuple[str, tuple[int, ...], tuple[int, ...], float, bool]] = [
    ("one element", (1,), (1,), 2.0, False),
    ("broadcast", (7, 1, 5), (3, 5), 2.0, False),
    ("empty", (0, 4), (0, 4), 2.0, False),
    ("several tiles per core", (48 * 3 * 8128 + 1001,), (48 * 3 * 8128 + 1001,), 2.0, False),
    ("large dynamic range", (4099,), (4099,), 300.0, False),
    ("inf and nan", (5, 16), (5, 16), 2.0, True),
]


def _reference(op: str) -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"ref_{op}_torch_loss", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(op: str, shapes: tuple[tuple[int, ...], tuple[int, ...]], scale: float, special: bool) -> dict[str, Any]:
    rng = np.random.default_rng(abs(hash((op, shapes))) % 2**32)
    if op == "soft_margin_loss":
        # PyTorch evaluates log(1 + exp(z)) literally: inf in float64 for z above ~709, where the reference
        # and the kernel (relu(z) + log1p(exp(-|z|))) stay finite; keep |z| below that
        scale = min(scale, 100.0)
    x = np.asarray(rng.standard_normal(shapes[0]) * scale).astype(np.float32)
    t = np.asarray(rng.standard_normal(shapes[1]) * scale).astype(np.float32)
    if op == "soft_margin_loss":
        t = np.where(t >= 0, 1.0, -1.0).astype(np.float32)
    if special:
        x[0, 3], x[1, 5], x[3, 7] = np.inf, -np.inf, np.nan
    p: dict[str, Any] = {"self": x, "target": t}
    if op == "smooth_l1_loss":
        p["beta"] = 1.0
    return p


def _torch(op: str, p: dict[str, Any], reduction: int) -> np.ndarray:
    x = torch.from_numpy(np.asarray(p["self"], dtype=np.float64))
    t = torch.from_numpy(np.asarray(p["target"], dtype=np.float64))
    x, t = torch.broadcast_tensors(x, t)
    r = NAMES[reduction]
    if op == "mse_loss":
        return F.mse_loss(x, t, reduction=r).numpy()
    if op == "l1_loss":
        return F.l1_loss(x, t, reduction=r).numpy()
    if op == "smooth_l1_loss":
        return F.smooth_l1_loss(x, t, reduction=r, beta=p["beta"]).numpy()
    return F.soft_margin_loss(x, t, reduction=r).numpy()


PARAMS = [(op, *c, red) for op in OPS for c in CASES for red in (0, 1, 2)]


@pytest.mark.parametrize(("op", "name", "shape", "tshape", "scale", "special", "reduction"), PARAMS)
def test_reference_matches_pytorch_float64(
    op: str, name: str, shape: tuple[int, ...], tshape: tuple[int, ...], scale: float, special: bool, reduction: int
) -> None:
    p = _inputs(op, (shape, tshape), scale, special)
    want = _torch(op, p, reduction)
    got = _reference(op).reference(**p, reduction=reduction)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize(("op", "name", "shape", "tshape", "scale", "special", "reduction"), PARAMS)
def test_kernel_matches_pytorch(
    built_op: Callable[[str, str], OpCallable],
    product: str,
    op: str,
    name: str,
    shape: tuple[int, ...],
    tshape: tuple[int, ...],
    scale: float,
    special: bool,
    reduction: int,
) -> None:
    p = _inputs(op, (shape, tshape), scale, special)
    want = _torch(op, p, reduction)
    got = np.asarray(built_op(op, product)(**p, reduction=reduction), dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), name
    ok = ~np.isnan(want)
    w, g = want[ok], got[ok]
    same_inf = np.isinf(w) & (g == w)
    finite = np.isfinite(w)
    if reduction == 0:
        bound = 16 * 2.0**-24 * np.abs(w) + 2.0**-126
    else:
        x, _t = torch.broadcast_tensors(
            torch.from_numpy(np.asarray(p["self"], np.float64)), torch.from_numpy(np.asarray(p["target"], np.float64))
        )
        n = x.numel()
        mags = float(np.abs(_torch(op, p, 0)).sum()) / (n if reduction == 1 and n else 1)
        bound = n * 2.0**-24 * mags + 16 * 2.0**-24 * np.abs(w) + 2.0**-126
    with np.errstate(invalid="ignore"):
        close = np.abs(g - w) <= bound
    assert np.all(same_inf | (finite & close)), f"{name}: got {g[:4]}, want {w[:4]}"
