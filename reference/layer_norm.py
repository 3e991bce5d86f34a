"""NumPy reference of aclnnLayerNorm, computed in float64.

CANN (hicann/ops-nn norm/layer_norm_v4/docs/aclnnLayerNorm&aclnnLayerNormWithImplMode.md): ``normalizedShape``
names the last ``k = len(normalizedShape)`` dims of ``input`` (``1 <= k <= input.ndim``, equal to them
right-aligned); every row is the ``N = prod(normalizedShape)`` elements sharing the leading ``input.ndim - k``
indices, and, with ``E`` the row mean and ``Var`` the biased row variance (divided by ``N``)::

    meanOut = E[x]                                              # input's shape with the last k dims set to 1
    rstdOut = 1 / sqrt(Var[x] + eps)                            # the same shape
    out     = (x - E[x]) * rstdOut * weight + bias              # input's shape; weight, bias indexed in the row

``Var[x]`` is the mean of the squared deviations from the row mean (two passes; never ``E[x^2] - E[x]^2``,
which loses every digit when the mean is large against the spread). A null ``weightOptional`` is ones and a
null ``biasOptional`` zeros of ``normalizedShape`` (the doc; ops-nn's op_api fills them with ``l0op::Fill``).
``eps`` defaults to 1e-5 (the OpDef's ``epsilon`` Float(1e-5), layer_norm_v4_def.cpp).

Empty tensors, as ops-nn's op_api (op_api/aclnn_layer_norm.cpp) treats them: with no rows (``M`` = the product of
the leading dims is 0) every output is empty; with rows of no element (``N == 0``) ``out`` is empty, ``meanOut``
is 0 and ``rstdOut`` is NaN (a quiet NaN), which is not what the formula gives for ``mean`` (0 / 0).

A row holding NaN or ±inf gives NaN everywhere in its row and in its mean or rstd (an infinite mean makes every
deviation ``inf - inf`` or infinite): the formula. The kernel accumulates in float32: a row whose float32 sum of
the elements, or of the squared deviations, is beyond the float32 range (above about 3.4e38) sums to ±inf. For
an input of any dtype but float64 (none a product's kernel takes) the reference follows that: an overflowing
element sum gives an infinite mean (so rstd 0 and out NaN), an overflowing sum of squares an infinite variance
(so rstd 0 and out equal to bias, NaN where the deviation is infinite).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The largest finite float32 (IEEE 754 binary32: (2 - 2**-23) * 2**127).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check(x: np.ndarray, normalized_shape: Sequence[int], weight: np.ndarray | None, bias: np.ndarray | None) -> int:
    """``k = len(normalized_shape)`` after checking the shapes (see :func:`reference`)."""
    shape = tuple(int(d) for d in normalized_shape)
    k = len(shape)
    if k < 1 or k > x.ndim:
        raise ValueError(f"normalizedShape has {k} dims; it needs 1 to input.ndim ({x.ndim}) dims")
    if shape != tuple(x.shape[x.ndim - k :]):
        raise ValueError(f"normalizedShape {list(shape)} is not input's last {k} dims {list(x.shape[x.ndim - k :])}")
    for name, t in (("weightOptional", weight), ("biasOptional", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise ValueError(f"{name}'s shape {list(t.shape)} is not normalizedShape {list(shape)}")
    return k


def stat_shape(input_shape: Sequence[int], k: int) -> tuple[int, ...]:
    """The shape of ``meanOut`` and ``rstdOut``: ``input_shape`` with its last ``k`` dims set to 1 (input
    (2, 3, 8) with normalizedShape [8] gives (2, 3, 1); with [3, 8], (2, 1, 1)).

    Raises:
        ValueError: ``k`` outside ``[1, len(input_shape)]``.
    """
    if not 1 <= k <= len(input_shape):
        raise ValueError(f"k {k} is outside [1, {len(input_shape)}]")
    return tuple(int(d) for d in input_shape[: len(input_shape) - k]) + (1,) * k


def reference(
    input: np.ndarray,
    normalizedShape: Sequence[int],
    weightOptional: np.ndarray | None = None,
    biasOptional: np.ndarray | None = None,
    eps: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact (float64) ``(out, meanOut, rstdOut)`` of LayerNorm (see the module doc).

    Args:
        input: any float dtype, 1 to 8 dims, may be empty.
        normalizedShape: the trailing dims of ``input`` normalised over (a list of 1 to ``input.ndim`` ints).
        weightOptional: the scale of shape ``normalizedShape``, any float dtype, or None (ones).
        biasOptional: the shift of shape ``normalizedShape``, any float dtype, or None (zeros).
        eps: added to the variance before the square root.

    Returns:
        ``out`` of ``input``'s shape, ``meanOut`` and ``rstdOut`` of ``input``'s shape with the last
        ``len(normalizedShape)`` dims 1, all float64.

    Raises:
        ValueError: normalizedShape empty, longer than input's rank or not input's trailing dims; weight or
            bias not of shape normalizedShape.
    """
    x = np.asarray(input, dtype=np.float64)
    w = None if weightOptional is None else np.asarray(weightOptional, dtype=np.float64)
    b = None if biasOptional is None else np.asarray(biasOptional, dtype=np.float64)
    k = _check(x, normalizedShape, w, b)
    rows_shape = stat_shape(x.shape, k)
    n = int(np.prod(x.shape[x.ndim - k :], dtype=np.int64))
    if x.size == 0:  # no rows: all empty; rows of no element: mean 0 and rstd NaN (ops-nn's op_api)
        return x.copy(), np.zeros(rows_shape), np.full(rows_shape, np.nan)
    weight = np.ones(x.shape[x.ndim - k :]) if w is None else w
    bias = np.zeros(x.shape[x.ndim - k :]) if b is None else b
    axes = tuple(range(x.ndim - k, x.ndim))
    fp32_sums = np.asarray(input).dtype != np.float64  # the kernel's float32 accumulation (see the module doc)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        total = np.sum(x, axis=axes, keepdims=True)
        if fp32_sums:
            total = np.where(np.abs(total) > FLOAT32_MAX, np.sign(total) * np.inf, total)
        mean = total / n
        dev = x - mean
        squares = np.sum(dev * dev, axis=axes, keepdims=True)
        if fp32_sums:
            squares = np.where(squares > FLOAT32_MAX, np.inf, squares)
        rstd = 1.0 / np.sqrt(squares / n + float(eps))
        out = dev * rstd * weight + bias
    return out, mean, rstd


def tolerance(
    input: np.ndarray,
    normalizedShape: Sequence[int],
    weightOptional: np.ndarray | None = None,
    biasOptional: np.ndarray | None = None,
    eps: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(atol of out, atol of meanOut, atol of rstdOut, rtol)`` of an fp32 kernel (``u = 2**-24``).

    The row sum of ``N`` elements accumulated in fp32 is off by about ``N / 2 * u * sum|x|``, so the mean by
    ``u * (N / 2 + 4) * mean|x|``. Each deviation ``x - mean`` is then off by that plus one rounding of
    ``|x|``: at most ``u * (N / 2 + 8) * s`` with ``s`` the row's largest ``|x|``. The variance (a fp32 sum of
    squares) is off by ``N / 2 * u`` relative plus twice the deviation error against the spread, so rstd is off
    by ``rstd * u * (N / 2 + 8) * (1 + s * rstd)``; ``out`` by the deviation error and rstd's, both times
    ``|weight| * rstd``, plus ``u * 4 * (|out| + |bias|)`` for the last products and sum. 0 where the reference
    is not finite; rtol 0.
    """
    out, mean, rstd = reference(input, normalizedShape, weightOptional, biasOptional, eps)
    x = np.asarray(input, dtype=np.float64)
    k = len(tuple(normalizedShape))
    n = int(np.prod(x.shape[x.ndim - k :], dtype=np.int64)) if x.ndim else 1
    u = 2.0**-24
    if x.size == 0:
        return np.zeros(out.shape), np.zeros(mean.shape), np.zeros(rstd.shape), 0.0
    weight = 1.0 if weightOptional is None else np.abs(np.asarray(weightOptional, dtype=np.float64))
    bias = 0.0 if biasOptional is None else np.abs(np.asarray(biasOptional, dtype=np.float64))
    axes = tuple(range(x.ndim - k, x.ndim))
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.nan_to_num
        s = finite(np.max(np.abs(x), axis=axes, keepdims=True), nan=0.0, posinf=0.0)
        r = finite(rstd, nan=0.0, posinf=0.0)
        dev_err = u * (n / 2 + 8) * s
        atol_mean = u * (n / 2 + 4) * finite(np.mean(np.abs(x), axis=axes, keepdims=True), nan=0.0, posinf=0.0)
        atol_rstd = r * u * (n / 2 + 8) * (1.0 + s * r)
        dev = finite(np.abs(x - mean), nan=0.0, posinf=0.0)
        atol_out = weight * (dev_err * r + dev * atol_rstd) + u * 4 * (finite(np.abs(out), nan=0.0, posinf=0.0) + bias)
        atol_out = np.where(np.isfinite(out), atol_out, 0.0)
    return atol_out, np.where(np.isfinite(mean), atol_mean, 0.0), np.where(np.isfinite(rstd), atol_rstd, 0.0), 0.0
