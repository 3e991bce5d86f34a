"""PyTorch CPU as the independent oracle of the loss forwards with the reduce epilogue (MseLoss, L1Loss,
SmoothL1Loss, SoftMarginLoss, BinaryCrossEntropy with and without weight).

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

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")
F = torch.nn.functional

PRODUCTS = ("Ascend910", "Ascend910B")
OPS = ("mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy")
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
    p: dict[str, Any] = {}
    if op == "binary_cross_entropy":
        # probabilities (PyTorch raises outside [0, 1]); target of self's shape; a weight broadcast from the
        # last dim on half the shapes, absent on the others; exact 0 and 1 reach the -100 clamp
        x, t = (np.abs(a) / (1 + np.abs(a)) for a in (x, t))
        if x.size > 2:
            x.flat[0], x.flat[1] = 0.0, 1.0
        t = np.abs(np.asarray(rng.standard_normal(shapes[0]))).astype(np.float32)
        t = t / (1 + t)
        if len(shapes[0]) % 2 == 1 and shapes[0][-1] > 0:
            p["weight"] = np.asarray(rng.random(shapes[0][-1:]) * 2).astype(np.float32)
    if special:
        x[0, 3], x[1, 5], x[3, 7] = np.inf, -np.inf, np.nan
    p.update({"self": x.astype(np.float32), "target": t.astype(np.float32)})
    if op == "smooth_l1_loss":
        p["beta"] = 1.0
    return p


def _torch(op: str, p: dict[str, Any], reduction: int) -> np.ndarray:
    x = torch.from_numpy(np.asarray(p["self"], dtype=np.float64))
    t = torch.from_numpy(np.asarray(p["target"], dtype=np.float64))
    r = NAMES[reduction]
    if op == "binary_cross_entropy":
        w = p.get("weight")
        weight = None if w is None else torch.from_numpy(np.asarray(w, dtype=np.float64)).expand_as(x)
        return F.binary_cross_entropy(x, t, weight=weight, reduction=r).numpy()
    x, t = torch.broadcast_tensors(x, t)
    if op == "mse_loss":
        return F.mse_loss(x, t, reduction=r).numpy()
    if op == "l1_loss":
        return F.l1_loss(x, t, reduction=r).numpy()
    if op == "smooth_l1_loss":
        return F.smooth_l1_loss(x, t, reduction=r, beta=p["beta"]).numpy()
    return F.soft_margin_loss(x, t, reduction=r).numpy()


# binary cross entropy is defined on [0, 1] only (PyTorch raises for inf and NaN inputs)
def _conditioning(op: str, p: dict[str, Any]) -> np.ndarray:
    """Per-element absolute error the fp32 formula may add beyond 16 roundings of the result (float64, the
    loss's shape): binary cross entropy takes log(1 - x) of an fp32 1 - x, whose rounding (at most 2**-25
    absolute for 1 - x in [0.5, 1], exact below by Sterbenz) and the logs' own error (4 fp32 ULPs of
    |log|) are absolute errors of each log term, not relative to a loss that may be much smaller; 0 for
    the other ops."""
    x = np.asarray(p["self"], dtype=np.float64)
    if op != "binary_cross_entropy":
        return np.zeros(x.shape)
    w = np.broadcast_to(np.abs(np.asarray(p.get("weight", 1.0), dtype=np.float64)), x.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.minimum(np.abs(np.log(x)), 100) + np.minimum(np.abs(np.log1p(-x)), 100)
    return 8 * 2.0**-24 * w * (1 + logs)


PARAMS = [
    (op, *c, red) for op in OPS for c in CASES for red in (0, 1, 2) if not (c[4] and op == "binary_cross_entropy")
]


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
    extra = _conditioning(op, p)
    if reduction == 0:
        bound = 16 * 2.0**-24 * np.abs(w) + 2.0**-126 + np.broadcast_to(extra, want.shape)[ok]
    else:
        x, _t = torch.broadcast_tensors(
            torch.from_numpy(np.asarray(p["self"], np.float64)), torch.from_numpy(np.asarray(p["target"], np.float64))
        )
        n = x.numel()
        mags = float(np.abs(_torch(op, p, 0)).sum()) / (n if reduction == 1 and n else 1)
        spread = float(extra.sum()) / (n if reduction == 1 and n else 1)
        bound = n * 2.0**-24 * mags + 16 * 2.0**-24 * np.abs(w) + 2.0**-126 + spread
    with np.errstate(invalid="ignore"):
        close = np.abs(g - w) <= bound
    assert np.all(same_inf | (finite & close)), f"{name}: got {g[:4]}, want {w[:4]}"
