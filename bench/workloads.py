"""Inputs of the two seed ops, shared by the throughput and data-movement benchmarks (seeded, reproducible).

SoftMarginLossBackward: ``gradOutput`` and ``self`` standard normal (self scaled by 2), ``target`` +-1,
reduction mean. EmbeddingDenseBackward: ``grad`` standard normal ``[N, D]``, ``indices`` int64 in
``[0, numWeights)`` of one of :data:`DISTRIBUTIONS` (uniform by default), no padding row (``paddingIdx = 2**64 -
1``, negative as int64) except for the all-padding distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SMLB = "SoftMarginLossBackward"
EDB = "EmbeddingDenseBackward"
#: ``paddingIdx`` meaning "no padding row" (a uint64 that is negative when read as int64).
NO_PADDING = 2**64 - 1


def smlb_inputs(
    shape: tuple[int, ...],
    dtype: type[np.generic] = np.float32,
    broadcast_target: bool = False,
    seed: int = 0,
    scalar_grad: bool = False,
) -> dict[str, Any]:
    """Parameters of one SoftMarginLossBackward call of output ``shape``.

    Args:
        shape: the output (broadcast) shape.
        dtype: dtype of every input.
        broadcast_target: give ``target`` the shape ``[1, ..., 1, shape[-1]]`` (broadcast on the host).
        seed: NumPy generator seed.
        scalar_grad: give ``gradOutput`` the 0-d shape of a mean loss's gradient (its first value; the kernel
            reads it once per core).
    """
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    grad = rng.standard_normal(n, dtype=np.float32).reshape(shape).astype(dtype, copy=False)
    x = (2 * rng.standard_normal(n, dtype=np.float32)).reshape(shape).astype(dtype, copy=False)
    tshape = (1,) * (len(shape) - 1) + (shape[-1],) if broadcast_target else shape
    target = np.where(rng.random(int(np.prod(tshape))) < 0.5, -1.0, 1.0).reshape(tshape).astype(dtype)
    if scalar_grad:
        grad = grad.reshape(-1)[0].reshape(())
    return {"gradOutput": grad, "self": x, "target": target, "reduction": 1}


#: Index distributions of :func:`edb_indices`.
DISTRIBUTIONS = ("uniform", "zipf", "all-equal", "all-padding", "sorted")
#: Exponent of the Zipf distribution (P(rank k) proportional to 1 / k^s).
ZIPF_S = 1.1


def edb_indices(dist: str, num_weights: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """``n`` int64 indices in ``[0, num_weights)`` and the paddingIdx to pass, for a distribution name.

    ``uniform``: independent uniform rows; ``zipf``: rank ``k`` (1-based) drawn with probability
    proportional to ``1 / k**1.1``, ranks mapped to rows by a seeded permutation (the hot rows are spread
    over the table); ``all-equal``: every index the middle row; ``all-padding``: every index row 0, which is
    the padding row; ``sorted``: uniform, then sorted ascending. paddingIdx is ``NO_PADDING`` except for
    ``all-padding`` (0).

    Raises:
        ValueError: an unknown distribution name.
    """
    if dist == "uniform":
        return rng.integers(0, num_weights, n, dtype=np.int64), NO_PADDING
    if dist == "zipf":
        weights = 1.0 / np.arange(1, num_weights + 1, dtype=np.float64) ** ZIPF_S
        ranks = rng.choice(num_weights, size=n, p=weights / weights.sum())
        return rng.permutation(num_weights).astype(np.int64)[ranks], NO_PADDING
    if dist == "all-equal":
        return np.full(n, num_weights // 2, np.int64), NO_PADDING
    if dist == "all-padding":
        return np.zeros(n, np.int64), 0
    if dist == "sorted":
        return np.sort(rng.integers(0, num_weights, n, dtype=np.int64)), NO_PADDING
    raise ValueError(f"unknown index distribution {dist!r}; use one of {', '.join(DISTRIBUTIONS)}")


def edb_inputs(
    num_weights: int,
    d: int,
    n: int,
    grad_dtype: type[np.generic] = np.float32,
    scale: bool = False,
    seed: int = 0,
    dist: str = "uniform",
) -> dict[str, Any]:
    """Parameters of one EmbeddingDenseBackward call: ``n`` int64 indices of distribution ``dist`` (see
    :func:`edb_indices`), grad ``[n, d]``, ``num_weights`` rows."""
    rng = np.random.default_rng(seed)
    grad = rng.standard_normal((n, d), dtype=np.float32).astype(grad_dtype, copy=False)
    indices, padding = edb_indices(dist, num_weights, n, rng)
    return {
        "grad": grad,
        "indices": indices,
        "numWeights": num_weights,
        "paddingIdx": padding,
        "scaleGradByFreq": scale,
    }


def describe(params: dict[str, Any]) -> str:
    """A short text of the arrays' shapes and dtypes, e.g. ``grad[1048576, 128] float32, indices[...] int64``."""
    parts = []
    for name, value in params.items():
        if isinstance(value, np.ndarray):
            parts.append(f"{name}{list(value.shape)} {value.dtype}")
    return ", ".join(parts)
