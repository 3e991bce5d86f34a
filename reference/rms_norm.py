"""NumPy reference of aclnnRmsNorm, computed in float64.

CANN (hicann/ops-nn norm/rms_norm/docs/aclnnRmsNorm.md): with ``k = gamma.ndim`` (``gamma``'s shape equals
the last ``k`` dims of ``x``, ``1 <= k <= x.ndim``), every row is the ``R = prod(gamma.shape)`` elements of
``x`` sharing the leading ``x.ndim - k`` indices, and::

    rstd = 1 / sqrt(mean(x ** 2 over the row) + epsilon)        # shape: x's with the last k dims set to 1
    y    = x * rstd * gamma                                     # shape: x's; gamma indexed by the position in the row

``epsilon`` defaults to 1e-6 (the doc's default; the device attr ``epsilon`` is Float(1e-6) in
op_host/rms_norm_def.cpp). A row holding NaN gives a NaN rstd and NaN y. A row holding ±inf gives rstd 0, so
its finite elements give 0 and its infinite ones ``inf * 0`` = NaN: the formula (and PyTorch's
``torch.nn.functional.rms_norm``); the CANN doc's boundary note ("an Inf input gives Inf") is not what the
formula evaluates to, and the reference follows the formula.

The kernel, like CANN's and PyTorch's float32 reduction, sums the squares of a row in float32 before it
divides by ``R``: a row whose sum of squares is beyond the float32 range (above about 3.4e38, though every
square and the mean fit) sums to inf, so its rstd is 0 and its y is 0 (NaN where x is infinite). The
reference gives such a row the same rstd 0 rather than the float64 value (for an x of any dtype but float64,
which no product's kernel takes and PyTorch sums in float64).
"""

from __future__ import annotations

import numpy as np

#: The largest finite float32 (IEEE 754 binary32: (2 - 2**-23) * 2**127).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check(x: np.ndarray, gamma: np.ndarray) -> int:
    """``k = gamma.ndim`` after checking the shapes (see :func:`reference`)."""
    k = gamma.ndim
    if k < 1 or k > x.ndim:
        raise ValueError(f"gamma has {k} dims; it needs 1 to x.ndim ({x.ndim}) dims")
    if tuple(gamma.shape) != tuple(x.shape[x.ndim - k :]):
        raise ValueError(f"gamma's shape {list(gamma.shape)} is not x's last {k} dims {list(x.shape[x.ndim - k :])}")
    if gamma.size == 0:
        raise ValueError("gamma is empty; the row length R must be at least 1")
    return k


def reference(x: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """The exact (float64) ``(y, rstd)`` of RmsNorm (see the module doc).

    Args:
        x: the input, any float dtype, 1 to 8 dims (may be empty when gamma is not).
        gamma: the scale, any float dtype, of the shape of ``x``'s last ``gamma.ndim`` dims (not empty).
        epsilon: added to the mean of squares.

    Returns:
        ``y`` of ``x``'s shape and ``rstd`` of ``x``'s shape with the last ``gamma.ndim`` dims 1, both float64.

    Raises:
        ValueError: gamma's rank is 0 or above x's, its shape is not x's trailing dims, or it is empty.
    """
    xv = np.asarray(x, dtype=np.float64)
    g = np.asarray(gamma, dtype=np.float64)
    k = _check(xv, g)
    axes = tuple(range(xv.ndim - k, xv.ndim))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ms = np.mean(xv * xv, axis=axes, keepdims=True) if xv.size else np.zeros(_rstd_shape(xv.shape, k))
        if xv.size and np.asarray(x).dtype != np.float64:  # the kernel's float32 sum (see the module doc)
            ms = np.where(ms * g.size > FLOAT32_MAX, np.inf, ms)
        rstd = 1.0 / np.sqrt(ms + float(epsilon))
        y = xv * rstd * g
    return y, rstd


def _rstd_shape(shape: tuple[int, ...], k: int) -> tuple[int, ...]:
    return tuple(shape[: len(shape) - k]) + (1,) * k


def rstd_shape(x_shape: tuple[int, ...], gamma_ndim: int) -> tuple[int, ...]:
    """The shape of ``rstd``: ``x_shape`` with its last ``gamma_ndim`` dims set to 1 (the doc's examples: x
    (2, 3, 4, 8) with gamma (8) gives (2, 3, 4, 1); with gamma (4, 8), (2, 3, 1, 1)).

    Raises:
        ValueError: ``gamma_ndim`` outside ``[1, len(x_shape)]``.
    """
    if not 1 <= gamma_ndim <= len(x_shape):
        raise ValueError(f"gamma_ndim {gamma_ndim} is outside [1, {len(x_shape)}]")
    return _rstd_shape(tuple(x_shape), gamma_ndim)


def tolerance(x: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6) -> tuple[np.ndarray, np.ndarray, float]:
    """``(atol of y, atol of rstd, rtol)`` of an fp32 kernel: the sum of ``R`` squares accumulated in fp32 is
    off by about ``R * 2**-24`` relative, the square root and reciprocal add a few roundings, so ``rstd`` is
    off by ``rstd * 2**-24 * (R / 2 + 8)`` and ``y`` (two more products) by ``|y| * 2**-24 * (R / 2 + 16)``;
    0 where the reference is not finite; rtol 0."""
    y, rstd = reference(x, gamma, epsilon)
    r = int(np.asarray(gamma).size)
    with np.errstate(invalid="ignore"):
        atol_y = np.nan_to_num(np.abs(y), nan=0.0, posinf=0.0) * 2.0**-24 * (r / 2 + 16)
        atol_r = np.nan_to_num(np.abs(rstd), nan=0.0, posinf=0.0) * 2.0**-24 * (r / 2 + 8)
    return atol_y, atol_r, 0.0
