"""NumPy reference of aclnnForeachSqrt, computed in float64: ``out[i] = sqrt(x[i])`` for every tensor of the
list ``x``."""

from __future__ import annotations

import numpy as np


def reference(x: list[np.ndarray]) -> list[np.ndarray]:
    """The exact (float64) square root of every tensor of ``x`` (arrays of a float dtype, any shapes, empty and
    0-d ones included), one array per tensor of its shape: NaN for a negative element, +inf for +inf, -0.0 for
    -0.0."""
    with np.errstate(invalid="ignore"):
        return [np.sqrt(np.asarray(t, dtype=np.float64)) for t in x]
