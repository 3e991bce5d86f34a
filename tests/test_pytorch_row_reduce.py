"""PyTorch CPU as the independent oracle of the row_reduce ops (Softmax, LogSoftmax and their backward ops).

Each case runs the NumPy reference against PyTorch in float64 (tight: both are exact up to float64
rounding), and the generated kernel (fp32 inputs, on Ascend910 and Ascend910B) against PyTorch float64 within
the reference module's ``tolerance()`` plus one fp32 ULP of the result. NaN must be NaN at the same places.
Cases: R = 1, rows, a non-last dim, a negative dim, a 0-d tensor, an empty tensor, a multi-chunk row, a large
dynamic range, and rows holding +inf, -inf and NaN (forward ops). LogSoftmax with a FLOAT16 or BF16 self
and a FLOAT out against PyTorch's ``dtype=`` argument (both cast self first); Softmax with a FLOAT16 self and
a FLOAT out (SoftmaxV2's half_to_float column) against PyTorch's fp32 softmax of the FLOAT16 values.
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

PRODUCTS = ("Ascend910", "Ascend910B")
OPS = ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward")

#: (name, shape, dim, scale, special rows)
CASES: list[tuple[str, tuple[int, ...], int, float, bool]] = [
    ("R=1", (5, 1), -1, 2.0, False),
    ("rows", (7, 33), 1, 2.0, False),
    ("non-last dim", (3, 17, 6), 1, 2.0, False),
    ("negative dim", (4, 5, 9), -3, 2.0, False),
    ("0-d", (), 0, 2.0, False),
    ("empty", (0, 4), 1, 2.0, False),
    ("multi-chunk row", (1, 9000), -1, 4.0, False),
    ("large dynamic range", (6, 64), -1, 150.0, False),
    ("inf and nan rows", (5, 16), -1, 2.0, True),
]


def _reference(op: str) -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"ref_{op}_torch", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(op: str, shape: tuple[int, ...], dim: int, scale: float, special: bool) -> dict[str, Any]:
    rng = np.random.default_rng(abs(hash((op, shape, dim))) % 2**32)
    x = np.asarray(rng.standard_normal(shape) * scale).astype(np.float32)
    if special and x.ndim == 2:
        x[0, 3] = np.inf
        x[1, 5] = -np.inf
        x[2, :] = -np.inf
        x[3, 7] = np.nan
    if op in ("softmax", "log_softmax"):
        return {"self": x, "dim": dim}
    t = torch.from_numpy(x.astype(np.float64))
    y = torch.softmax(t, dim) if op == "softmax_backward" else torch.log_softmax(t, dim)
    g = np.asarray(rng.standard_normal(shape) * 2).astype(np.float32)
    return {"gradOutput": g, "output": y.numpy().astype(np.float32), "dim": dim}


def _torch(op: str, p: dict[str, Any]) -> np.ndarray:
    dim = p["dim"]
    if op in ("softmax", "log_softmax"):
        t = torch.from_numpy(np.asarray(p["self"], dtype=np.float64))
        return (torch.softmax(t, dim) if op == "softmax" else torch.log_softmax(t, dim)).numpy()
    g = torch.from_numpy(np.asarray(p["gradOutput"], dtype=np.float64))
    y = torch.from_numpy(np.asarray(p["output"], dtype=np.float64))
    if op == "softmax_backward":
        return torch._softmax_backward_data(g, y, dim, torch.float64).numpy()
    return torch._log_softmax_backward_data(g, y, dim, torch.float64).numpy()


def _applicable(op: str, special: bool) -> bool:
    return not special or op in ("softmax", "log_softmax")


PARAMS = [(op, *c) for op in OPS for c in CASES if _applicable(op, c[4])]


@pytest.mark.parametrize(("op", "name", "shape", "dim", "scale", "special"), PARAMS)
def test_reference_matches_pytorch_float64(
    op: str, name: str, shape: tuple[int, ...], dim: int, scale: float, special: bool
) -> None:
    p = _inputs(op, shape, dim, scale, special)
    want = _torch(op, p)
    got = _reference(op).reference(**p)
    assert got.shape == want.shape
    # float64 sums of R terms in a different order: about R * 2**-53 of the sum of magnitudes
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize(("op", "name", "shape", "dim", "scale", "special"), PARAMS)
def test_kernel_matches_pytorch(
    built_op: Callable[[str, str], OpCallable],
    product: str,
    op: str,
    name: str,
    shape: tuple[int, ...],
    dim: int,
    scale: float,
    special: bool,
) -> None:
    p = _inputs(op, shape, dim, scale, special)
    want = _torch(op, p)
    got = np.asarray(built_op(op, product)(**p), dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), name
    atol, rtol = _reference(op).tolerance(**p)
    ok = ~np.isnan(want)
    w = want[ok]
    same_inf = np.isinf(w) & (got[ok] == w)
    finite = np.isfinite(w)
    with np.errstate(invalid="ignore"):
        bound = np.broadcast_to(atol, want.shape)[ok] + rtol * np.abs(w)
        bound = bound + np.spacing(np.abs(np.where(finite, w, 0.0)).astype(np.float32))
        close = np.abs(got[ok] - w) <= bound
    assert np.all(same_inf | (finite & close)), name


@pytest.mark.parametrize("half", [np.float16, ml_dtypes.bfloat16])
def test_a_16_bit_self_with_a_float_out_matches_pytorchs_dtype_argument(
    built_op: Callable[[str, str], OpCallable], half: type
) -> None:
    """aclnnLogSoftmax casts self to out's dtype before the device op (``promote_type: out``), as PyTorch's
    ``log_softmax(x, dim, dtype=...)`` does: a 16-bit self with a FLOAT out agrees with PyTorch on the 16-bit
    values (in float64) within the fp32 bound, far below one 16-bit ULP of the result."""
    x = (np.random.default_rng(11).standard_normal((7, 33)) * 2).astype(half)
    want = torch.log_softmax(torch.from_numpy(x.astype(np.float64)), 1, dtype=torch.float64).numpy()
    got = np.asarray(built_op("log_softmax", "Ascend910B")(self=x, dim=1, out=np.zeros((7, 33), np.float32)))
    assert got.dtype == np.float32
    atol, _ = _reference("log_softmax").tolerance(self=x.astype(np.float32), dim=1)
    assert np.all(np.abs(got - want) <= atol + np.spacing(np.abs(want).astype(np.float32)))


def test_softmax_of_a_float16_self_into_a_float_out_matches_pytorchs_float32_softmax(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """aclnnSoftmax with a FLOAT16 self and a FLOAT out launches SoftmaxV2's half_to_float column (x FLOAT16,
    y FLOAT): the fp32 softmax of the FLOAT16 values, as PyTorch's ``softmax(x, dim, dtype=torch.float32)``,
    within the fp32 bound. A FLOAT16 result cast to FLOAT would be off by up to half a FLOAT16 ULP (about
    1e-4 here), far beyond it."""
    x = (np.random.default_rng(12).standard_normal((7, 33)) * 2).astype(np.float16)
    want = torch.softmax(torch.from_numpy(x.astype(np.float64)), 1).numpy()
    got = np.asarray(built_op("softmax", "Ascend910B")(self=x, dim=1, out=np.zeros((7, 33), np.float32)))
    assert got.dtype == np.float32
    atol, _ = _reference("softmax").tolerance(self=x.astype(np.float32), dim=1)
    assert np.all(np.abs(got - want) <= atol + np.spacing(np.abs(want).astype(np.float32)))
    fp16_rounded = want.astype(np.float16).astype(np.float64)
    assert np.max(np.abs(fp16_rounded - want)) > 10 * np.max(atol)  # the cast path would fail the bound above
