"""NumPy reference of aclnnLayerNormBackward, computed in float64.

CANN (hicann/ops-nn norm/layer_norm_grad_v3/docs/aclnnLayerNormBackward.md): the gradients of aclnnLayerNorm.
``normalizedShape`` gives the last ``k`` dims of ``input`` (``1 <= k <= input.ndim``); a row is the
``N = prod(normalizedShape)`` elements sharing the leading indices, and ``mean`` and ``rstd`` (the forward pass's
saved statistics, ``input``'s shape with the last ``k`` dims 1) hold one value per row. With
``xhat = (input - mean) * rstd`` and ``g = gradOut * weight`` (a null weight is ones)::

    gradInputOut  = (g - mean_N(g) - xhat * mean_N(g * xhat)) * rstd      # input's shape
    gradWeightOut = sum over the rows of gradOut * xhat                    # normalizedShape
    gradBiasOut   = sum over the rows of gradOut                           # normalizedShape

(the doc's ``temp_1`` and ``temp_2`` are the two mean terms). ``biasOptional`` is checked by the L2 API and never
read; ``outputMask`` only says which outputs the caller wants, so every output is returned (one the mask leaves
out is not compared). With no row the sums are 0 and ``gradInputOut`` is empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _as_rows(
    gradOut: np.ndarray,
    input: np.ndarray,
    normalizedShape: Sequence[int],
    mean: np.ndarray,
    rstd: np.ndarray,
    weightOptional: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """``(dy, x, mean, rstd, w, normalized)``: dy and x as float64 ``[M, N]``, mean and rstd as ``[M, 1]``, the
    weight as ``[N]`` (ones when null) and the normalized shape as a tuple."""
    normalized = tuple(int(d) for d in normalizedShape)
    x = np.asarray(input, np.float64)
    k = len(normalized)
    if not 1 <= k <= x.ndim or tuple(x.shape[x.ndim - k :]) != normalized:
        raise ValueError(f"normalizedShape {list(normalized)} is not the trailing dims of input {list(x.shape)}")
    n = int(np.prod(normalized, dtype=np.int64))
    w = np.ones(n) if weightOptional is None else np.asarray(weightOptional, np.float64).reshape(n)
    rows = (-1, n) if n else (int(np.prod(x.shape[: x.ndim - k], dtype=np.int64)), 0)
    per_row = (rows[0], 1)
    return (
        np.asarray(gradOut, np.float64).reshape(rows),
        x.reshape(rows),
        np.asarray(mean, np.float64).reshape(per_row),
        np.asarray(rstd, np.float64).reshape(per_row),
        w,
        normalized,
    )


def reference(
    gradOut: np.ndarray,
    input: np.ndarray,
    normalizedShape: Sequence[int],
    mean: np.ndarray,
    rstd: np.ndarray,
    weightOptional: np.ndarray | None = None,
    biasOptional: np.ndarray | None = None,
    outputMask: Sequence[bool] = (True, True, True),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact ``(gradInputOut, gradWeightOut, gradBiasOut)`` in float64 (see the module doc), whatever
    ``outputMask`` says; ``biasOptional`` is not read."""
    dy, x, m, s, w, normalized = _as_rows(gradOut, input, normalizedShape, mean, rstd, weightOptional)
    with np.errstate(invalid="ignore", over="ignore"):
        xhat = (x - m) * s
        g = dy * w
        if dy.shape[1]:
            mean_g = g.mean(axis=1, keepdims=True)
            mean_gx = (g * xhat).mean(axis=1, keepdims=True)
        else:
            mean_g = mean_gx = np.zeros((dy.shape[0], 1))
        grad_input = (g - mean_g - xhat * mean_gx) * s
        grad_weight = (dy * xhat).sum(axis=0)
        grad_bias = dy.sum(axis=0)
    return (
        grad_input.reshape(np.shape(input)),
        grad_weight.reshape(normalized),
        grad_bias.reshape(normalized),
    )


def tolerance(
    gradOut: np.ndarray,
    input: np.ndarray,
    normalizedShape: Sequence[int],
    mean: np.ndarray,
    rstd: np.ndarray,
    weightOptional: np.ndarray | None = None,
    biasOptional: np.ndarray | None = None,
    outputMask: Sequence[bool] = (True, True, True),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(atol of gradInputOut, atol of gradWeightOut, atol of gradBiasOut, rtol)`` of an fp32 kernel
    (``u = 2**-24``).

    gradInputOut: each of its terms (``|g|``, the row mean of ``|g|``, ``|xhat|`` times the row mean of
    ``|g * xhat|``, and the rounding of ``x - mean`` carried through ``rstd``) times ``|rstd|``, with ``N + 16``
    roundings of the row sums. A column sum of ``M`` rows: its terms' magnitudes times ``u * (M + 16)``. 0 where
    the value is not finite; rtol 0.
    """
    dy, x, m, s, w, normalized = _as_rows(gradOut, input, normalizedShape, mean, rstd, weightOptional)
    rows, n = dy.shape
    u = 2.0**-24
    if rows == 0 or n == 0:
        return np.zeros(np.shape(input)), np.zeros(normalized), np.zeros(normalized), 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        xhat = np.abs((x - m) * s)
        g = np.abs(dy * w)
        mean_gx = (g * xhat).mean(axis=1, keepdims=True)
        sub = (np.abs(x) + np.abs(m)) * np.abs(s)  # the rounding of x - mean, carried through rstd
        terms = g + g.mean(axis=1, keepdims=True) + (xhat + sub) * mean_gx
        grad_input = terms * np.abs(s) * u * (n + 16)
        column = u * (rows + 16)
        grad_weight = (np.abs(dy) * (xhat + sub * 4 * u)).sum(axis=0) * column
        grad_bias = np.abs(dy).sum(axis=0) * column
    return (
        _finite(grad_input).reshape(np.shape(input)),
        _finite(grad_weight).reshape(normalized),
        _finite(grad_bias).reshape(normalized),
        0.0,
    )


def _finite(a: np.ndarray) -> np.ndarray:
    """``a`` with NaN and +inf as 0 (no tolerance where the value is not finite)."""
    return np.nan_to_num(a, nan=0.0, posinf=0.0)
