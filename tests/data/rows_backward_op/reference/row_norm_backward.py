"""Reference of the test op RowNormBackward (float64): the layer-norm gradients from the saved per-row mean and
rstd over the last ``gamma.ndim`` dims: ``xhat = (x - mean) * rstd``, ``dx = (dy * gamma - mean_R(dy * gamma) -
xhat * mean_R(dy * gamma * xhat)) * rstd``, ``dgamma`` the sum over the rows of ``dy * xhat``, ``dbeta`` of
``dy`` (PyTorch's native_layer_norm_backward formulas)."""

from __future__ import annotations

import numpy as np


def _rows(
    dy: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray, gamma: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(dy, x as [rows, R], mean and rstd as [rows, 1], gamma as [R]) in float64."""
    r = int(np.prod(np.shape(gamma), dtype=np.int64))
    f = lambda a, s: np.asarray(a, np.float64).reshape(s)  # noqa: E731
    return f(dy, (-1, r)), f(x, (-1, r)), f(mean, (-1, 1)), f(rstd, (-1, 1)), f(gamma, (r,))


def reference(
    dy: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    rstd: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray | None = None,
    outputMask: tuple[bool, ...] = (True, True, True),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact ``(dx, dgamma, dbeta)``: dx of x's shape, the sums of gamma's shape (0 with no row); every one
    whatever ``outputMask`` says (an output it leaves out is not compared); ``beta`` (the forward shift) is
    not read."""
    d, xv, m, s, g = _rows(dy, x, mean, rstd, gamma)
    with np.errstate(invalid="ignore", over="ignore"):
        xhat = (xv - m) * s
        dg = d * g
        dx = (dg - dg.mean(axis=1, keepdims=True) - xhat * (dg * xhat).mean(axis=1, keepdims=True)) * s
        shape = np.shape(gamma)
        return dx.reshape(np.shape(x)), (d * xhat).sum(axis=0).reshape(shape), d.sum(axis=0).reshape(shape)


def tolerance(
    dy: np.ndarray,
    x: np.ndarray,
    mean: np.ndarray,
    rstd: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray | None = None,
    outputMask: tuple[bool, ...] = (True, True, True),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(atol of dx, atol of dgamma, atol of dbeta, rtol)``: fp32 arithmetic on terms of magnitude ``|dy * gamma|``
    and ``|xhat|``: dx within ``(|dy g| + mean|dy g| + |xhat| mean|dy g xhat| + ...) * |rstd| * 2**-24 * (R + 16)``,
    a column sum of ``M`` rows within its terms' magnitudes times ``2**-24 * (M + 16)``; rtol 0."""
    d, xv, m, s, g = _rows(dy, x, mean, rstd, gamma)
    rows, r = d.shape
    shape = np.shape(gamma)
    if rows == 0:
        return np.zeros(np.shape(x)), np.zeros(shape), np.zeros(shape), 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        xhat = np.abs((xv - m) * s)
        dg = np.abs(d * g)
        terms = dg + dg.mean(axis=1, keepdims=True) + xhat * (dg * xhat).mean(axis=1, keepdims=True)
        terms += (np.abs(xv) + np.abs(m)) * np.abs(s) * (dg * xhat).mean(axis=1, keepdims=True)
        dx = terms * np.abs(s) * 2.0**-24 * (r + 16)
        ulps = 2.0**-24 * (rows + 16)
        dgam = (np.abs(d) * (xhat + (np.abs(xv) + np.abs(m)) * np.abs(s) * 2.0**-22)).sum(axis=0) * ulps
        dbet = np.abs(d).sum(axis=0) * ulps
    return _finite(dx).reshape(np.shape(x)), _finite(dgam).reshape(shape), _finite(dbet).reshape(shape), 0.0


def _finite(a: np.ndarray) -> np.ndarray:
    """``a`` with NaN and +inf as 0 (no tolerance where the value is not finite)."""
    return np.nan_to_num(a, nan=0.0, posinf=0.0)
