"""NumPy reference of aclnnForeachMaximumScalarV2: ``out[i] = max(x[i], s)`` for every tensor of the list ``x``,
``s`` the scalar as the kernel gets it (converted to FLOAT16 for a FLOAT16 list, to FLOAT for a FLOAT or BF16
list: ops-nn's API, ConvertToTensor), and a NaN element giving ``s``, as ops-nn's kernel (Maxs: the vector max
returns the other operand for a NaN; torch._foreach_maximum gives NaN there)."""

from __future__ import annotations

import numpy as np


def reference(x: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """``max(x[i], s)`` of every tensor of ``x`` (arrays of one float dtype, any shapes, empty and 0-d ones
    included), ``s`` the scalar rounded to nearest in float16 for a float16 list and in float32 otherwise; ``s``
    where an element is NaN (the scalar is never NaN in a case)."""
    out = []
    with np.errstate(all="ignore"):
        for t in x:
            a = np.asarray(t, dtype=np.float64)
            wide = np.float16 if np.asarray(t).dtype == np.float16 else np.float32
            s = float(wide(scalar))
            out.append(np.where(np.isnan(a), s, np.maximum(a, s)))
    return out
