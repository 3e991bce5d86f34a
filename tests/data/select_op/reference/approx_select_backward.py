"""NumPy reference of the test op ApproxSelectBackward (tests/data/select_op/specs)."""

import math

import numpy as np


def reference(gradOutput, self, approximate, negate):
    g = np.asarray(gradOutput, np.float64)
    x = np.asarray(self, np.float64)
    f = np.tanh(x) if approximate == "tanh" else np.vectorize(math.erf, otypes=[np.float64])(x)
    return g * f * (-1.0 if negate else 1.0)
