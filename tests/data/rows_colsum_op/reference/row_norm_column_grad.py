"""Reference of the test op RowNormColumnGrad (float64): ``y = (x - mean) / sqrt(var + epsilon) * gamma`` over
the last ``gamma.ndim`` dims, ``gammaGrad`` the sum over the rows of ``dy * (x - mean) / sqrt(var + epsilon)``
and ``betaGrad`` the sum over the rows of ``dy`` (both of gamma's shape); epsilon as the kernel reads it (fp32)."""

from __future__ import annotations

import numpy as np


def _parts(
    x: np.ndarray, dy: np.ndarray, gamma: np.ndarray, epsilon: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x, dy, gamma as float64 with x and dy flattened to [rows, R], the normalized x of that shape)."""
    g = np.asarray(gamma, np.float64)
    r = int(np.prod(g.shape, dtype=np.int64))
    xv = np.asarray(x, np.float64).reshape(-1, r)
    dv = np.asarray(dy, np.float64).reshape(-1, r)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=1, keepdims=True)
        v = np.mean((xv - m) ** 2, axis=1, keepdims=True)
        xhat = (xv - m) / np.sqrt(v + float(np.float32(epsilon)))
    return xv, dv, g.reshape(-1), xhat


def reference(
    x: np.ndarray, dy: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact (float64) ``(y, gammaGrad, betaGrad)``: y of x's shape, the sums of gamma's shape (0 with no
    row)."""
    _, dv, g, xhat = _parts(x, dy, gamma, epsilon)
    shape = np.shape(gamma)
    with np.errstate(invalid="ignore", over="ignore"):
        y = (xhat * g).reshape(np.shape(x))
        return y, np.sum(dv * xhat, axis=0).reshape(shape), np.sum(dv, axis=0).reshape(shape)


def tolerance(
    x: np.ndarray, dy: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(atol of y, atol of gammaGrad, atol of betaGrad, rtol)``: a normalized element is off by about
    ``(|xhat| + max|x| / std) * 2**-24 * (R + 16)`` (the fp32 mean and variance of ``R`` terms); a column sum
    of ``M`` rows by its terms' magnitudes times that (gammaGrad) and ``2**-24 * (M + 16)`` more for the fp32
    additions; rtol 0."""
    xv, dv, g, xhat = _parts(x, dy, gamma, epsilon)
    rows, r = xv.shape
    if rows == 0:
        return np.zeros(np.shape(x)), np.zeros(np.shape(gamma)), np.zeros(np.shape(gamma)), 0.0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.mean(xv, axis=1, keepdims=True)
        sd = np.sqrt(np.mean((xv - m) ** 2, axis=1, keepdims=True) + float(np.float32(epsilon)))
        err = (np.abs(xhat) + np.max(np.abs(xv), axis=1, keepdims=True) / sd) * 2.0**-24 * (r + 16)
        ulps = 2.0**-24 * (rows + 16)
        y_tol = (err * np.abs(g)).reshape(np.shape(x)) + np.abs(xhat * g).reshape(np.shape(x)) * 2.0**-24 * 4
        gg = np.sum(np.abs(dv) * err, axis=0) + np.sum(np.abs(dv * xhat), axis=0) * ulps
        bb = np.sum(np.abs(dv), axis=0) * ulps
    shape = np.shape(gamma)
    return _finite(y_tol), _finite(gg).reshape(shape), _finite(bb).reshape(shape), 0.0


def _finite(a: np.ndarray) -> np.ndarray:
    """``a`` with NaN and +inf as 0 (no tolerance where the value is not finite)."""
    return np.nan_to_num(a, nan=0.0, posinf=0.0)
