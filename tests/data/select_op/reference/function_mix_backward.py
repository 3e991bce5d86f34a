"""NumPy reference of the test op FunctionMixBackward (tests/data/select_op/specs)."""

import math

import numpy as np


def reference(gradOutput, self, alpha):
    g = np.asarray(gradOutput, np.float64)
    x = np.asarray(self, np.float64)
    a = float(np.float32(alpha))  # the kernel receives the exponent as a float
    ax = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = (
            np.tanh(x)
            + np.vectorize(math.erf, otypes=[np.float64])(x)
            + np.log1p(ax)
            + np.sign(x)
            + ax**3
            + 1.0 / np.sqrt(ax + 1.0)
            + np.clip(x, -0.5, 0.5)
            + (ax + 1.0) ** a
        )
        # Deliberate: pow(x, p) with a non-literal p is exp(p * log(x)), so inf ** 0 is NaN, not 1.
        terms = np.where(np.isinf(ax) & (a == 0.0), np.nan, terms)
        return g * terms
