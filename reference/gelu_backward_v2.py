"""NumPy reference of aclnnGeluBackwardV2, computed in float64.

``approximate == "none"``: the exact (erf) GELU gradient,
``gradOutput * (0.5 * (1 + erf(x / sqrt(2))) + x * exp(-x**2 / 2) / sqrt(2 * pi))``.
``approximate == "tanh"``: the gradient of ``0.5 * x * (1 + tanh(k * (x + 0.044715 * x**3)))`` with
``k = sqrt(2 / pi)``, as PyTorch's ``gelu_backward(approximate='tanh')`` computes it:
``gradOutput * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * k * (1 + 3 * 0.044715 * x**2))``, ``t = tanh(inner)``.
At ``x = ±inf`` both give the limit of the derivative (1 and 0; PyTorch: NaN from ``inf * 0``).
"""

from __future__ import annotations

import math

import numpy as np

_ERF = np.frompyfunc(math.erf, 1, 1)
KAPPA = 0.044715
BETA = math.sqrt(2.0 / math.pi)


def _erf_derivative(x: np.ndarray) -> np.ndarray:
    cdf = 0.5 * (1.0 + np.asarray(_ERF(x * math.sqrt(0.5)), dtype=np.float64))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return np.where(np.isinf(x), np.where(x > 0, 1.0, 0.0), cdf + x * pdf)


def _tanh_derivative(x: np.ndarray) -> np.ndarray:
    """The derivative with ``1 + t`` and ``1 - t**2`` from ``a = exp(-2|u|)`` (no cancellation for large |u|)."""
    u = BETA * (x + KAPPA * x * x * x)
    a = np.exp(-2.0 * np.abs(u))
    one_plus_t = np.where(u >= 0, 2.0 / (1.0 + a), 2.0 * a / (1.0 + a))
    one_minus_t2 = 4.0 * a / ((1.0 + a) * (1.0 + a))
    d = 0.5 * one_plus_t + 0.5 * x * one_minus_t2 * BETA * (1.0 + 3.0 * KAPPA * x * x)
    return np.where(np.isinf(x), np.where(x > 0, 1.0, 0.0), d)


def reference(gradOutput: np.ndarray, self: np.ndarray, approximate: str) -> np.ndarray:
    """The exact (float64) gradient for inputs of any float dtype; shape = broadcast shape.

    Raises:
        ValueError: ``approximate`` not ``"none"`` or ``"tanh"``, or shapes that do not broadcast.
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    g, x = (np.asarray(a, dtype=np.float64) for a in (gradOutput, self))
    shape = np.broadcast_shapes(g.shape, x.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        d = _tanh_derivative(x) if approximate == "tanh" else _erf_derivative(x)
        out = g * d
    return np.broadcast_to(out, shape).astype(np.float64)
