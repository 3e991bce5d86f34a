"""NumPy reference of aclnnForeachMulScalarV2, computed in float64: ``out[i] = x[i] * s`` for every tensor of the
list ``x``, ``s`` the scalar as the kernel gets it (converted to FLOAT16 for a FLOAT16 list, to FLOAT for a
FLOAT or BF16 list, as ops-nn's API converts the aclScalar with ConvertToTensor)."""

from __future__ import annotations

import numpy as np


def kernel_scalar(scalar: float, dtype: np.dtype) -> float:
    """``scalar`` (a float64, the aclScalar's value) rounded to nearest in the dtype the kernel reads it in for
    a list of ``dtype``: float16 for a float16 list, float32 otherwise (bfloat16 lists are computed in
    float32; ops-nn foreach_mul_scalar/op_host/op_api/aclnn_foreach_mul_scalar_v2.cpp)."""
    wide = np.float16 if np.dtype(dtype) == np.float16 else np.float32
    with np.errstate(over="ignore"):
        return float(wide(scalar))


def reference(x: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """The exact (float64) product of every tensor of ``x`` (arrays of one float dtype, any shapes, empty and
    0-d ones included) with ``scalar`` rounded to the kernel's dtype (:func:`kernel_scalar`), one array per
    tensor of its shape (IEEE rules for infinities, NaN and zeros)."""
    with np.errstate(all="ignore"):
        return [np.asarray(t, dtype=np.float64) * kernel_scalar(scalar, np.asarray(t).dtype) for t in x]
