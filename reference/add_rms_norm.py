"""NumPy reference of aclnnAddRmsNorm, computed in float64.

CANN (hicann/ops-nn norm/add_rms_norm/docs/aclnnAddRmsNorm.md): with ``k = gamma.ndim`` (``gamma``'s shape
equals the last ``k`` dims of ``x1``, ``1 <= k <= x1.ndim``; ``x2`` has ``x1``'s shape), ``x = x1 + x2`` and
every row is the ``R = prod(gamma.shape)`` elements of ``x`` sharing the leading ``x1.ndim - k`` indices::

    x    = x1 + x2                                              # xOut, shape of x1
    rstd = 1 / sqrt(mean(x ** 2 over the row) + epsilon)        # rstdOut: x1's shape with the last k dims 1
    y    = x * rstd * gamma                                     # yOut: gamma indexed by the position in the row

``epsilon`` defaults to 1e-6 (the OpDef's Float(1e-6)). The reference normalises the exact sum: the kernel
adds in fp32 and rounds x once on store (ops-nn's FLOAT16 kernel rounds x to half first; see the spec's
notes). A row holding NaN gives NaN; a row holding ±inf gives rstd 0 and y NaN where x is infinite (the
formula, as PyTorch's ``rms_norm``; the doc's "Inf gives Inf" note is not what the formula evaluates to). As
in reference/rms_norm.py, a row whose fp32 sum of squares overflows (above about 3.4e38) gets rstd 0, as the
kernel's fp32 sum gives, for inputs of any dtype but float64.
"""

from __future__ import annotations

import numpy as np

#: The largest finite float32 (IEEE 754 binary32: (2 - 2**-23) * 2**127).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check(x1: np.ndarray, x2: np.ndarray, gamma: np.ndarray) -> int:
    """``k = gamma.ndim`` after checking the shapes (see :func:`reference`)."""
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"x2's shape {list(x2.shape)} is not x1's {list(x1.shape)}")
    k = gamma.ndim
    if k < 1 or k > x1.ndim:
        raise ValueError(f"gamma has {k} dims; it needs 1 to x1.ndim ({x1.ndim}) dims")
    if tuple(gamma.shape) != tuple(x1.shape[x1.ndim - k :]):
        raise ValueError(f"gamma's shape {list(gamma.shape)} is not x1's last {k} dims {list(x1.shape[x1.ndim - k :])}")
    if gamma.size == 0:
        raise ValueError("gamma is empty; the row length R must be at least 1")
    return k


def reference(
    x1: np.ndarray, x2: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact (float64) ``(y, rstd, x)`` of AddRmsNorm (see the module doc).

    Args:
        x1, x2: the addends, any float dtype, one shape of 1 to 8 dims (may be empty when gamma is not).
        gamma: the scale, any float dtype, of the shape of ``x1``'s last ``gamma.ndim`` dims (not empty).
        epsilon: added to the mean of squares.

    Returns:
        ``y`` and ``x`` of ``x1``'s shape, ``rstd`` of ``x1``'s shape with the last ``gamma.ndim`` dims 1, all
        float64.

    Raises:
        ValueError: x2's shape is not x1's, gamma's rank is 0 or above x1's, its shape is not x1's trailing
            dims, or it is empty.
    """
    a = np.asarray(x1, dtype=np.float64)
    b = np.asarray(x2, dtype=np.float64)
    g = np.asarray(gamma, dtype=np.float64)
    k = _check(a, b, g)
    axes = tuple(range(a.ndim - k, a.ndim))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        x = a + b
        ms = np.mean(x * x, axis=axes, keepdims=True) if x.size else np.zeros(rstd_shape(x.shape, k))
        if x.size and np.asarray(x1).dtype != np.float64:  # the kernel's float32 sum (see the module doc)
            ms = np.where(ms * g.size > FLOAT32_MAX, np.inf, ms)
        rstd = 1.0 / np.sqrt(ms + float(epsilon))
        y = x * rstd * g
    return y, rstd, x


def rstd_shape(x_shape: tuple[int, ...], gamma_ndim: int) -> tuple[int, ...]:
    """The shape of ``rstd``: ``x_shape`` with its last ``gamma_ndim`` dims set to 1 (x1 (2, 3, 8) with gamma
    (8) gives (2, 3, 1)).

    Raises:
        ValueError: ``gamma_ndim`` outside ``[1, len(x_shape)]``.
    """
    if not 1 <= gamma_ndim <= len(x_shape):
        raise ValueError(f"gamma_ndim {gamma_ndim} is outside [1, {len(x_shape)}]")
    return tuple(x_shape[: len(x_shape) - gamma_ndim]) + (1,) * gamma_ndim


def tolerance(
    x1: np.ndarray, x2: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(atol of y, atol of rstd, atol of x, rtol)`` of an fp32 kernel: the fp32 add rounds x once
    (``|x| * 2**-24``); that relative error doubles in the squares; the sum of ``R`` squares accumulated in
    fp32 is off by about ``R * 2**-24`` relative, the square root and reciprocal add a few roundings, so
    ``rstd`` is off by ``rstd * 2**-24 * (R / 2 + 10)`` and ``y`` (x's rounding and two more products) by
    ``|y| * 2**-24 * (R / 2 + 20)``; 0 where the reference is not finite; rtol 0."""
    y, rstd, x = reference(x1, x2, gamma, epsilon)
    r = int(np.asarray(gamma).size)
    with np.errstate(invalid="ignore"):
        atol_y = np.nan_to_num(np.abs(y), nan=0.0, posinf=0.0) * 2.0**-24 * (r / 2 + 20)
        atol_r = np.nan_to_num(np.abs(rstd), nan=0.0, posinf=0.0) * 2.0**-24 * (r / 2 + 10)
        atol_x = np.nan_to_num(np.abs(x), nan=0.0, posinf=0.0) * 2.0**-24
    return atol_y, atol_r, atol_x, 0.0
