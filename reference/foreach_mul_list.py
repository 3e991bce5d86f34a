"""NumPy reference of aclnnForeachMulList: ``out[i] = x1[i] * x2[i]`` for every tensor of the lists, computed in
float64 for floating lists (the kernel rounds each product once, which the comparison allows); int32 and int16
lists wrap around (two's complement), as torch._foreach_mul of such lists gives them, and are compared
exactly."""

from __future__ import annotations

import numpy as np


def reference(x1: list[np.ndarray], x2: list[np.ndarray]) -> list[np.ndarray]:
    """The element-wise product of each pair of tensors (arrays of one dtype: float16, bfloat16, float32, int32
    or int16; ``x2[i]`` of ``x1[i]``'s shape; empty and 0-d ones included), one float64 array per pair of its
    shape: exact for floating lists (IEEE rules for infinities, NaN and zeros), ``x1[i] * x2[i]`` modulo
    ``2**bits`` as a signed value of the list's dtype for integer lists."""
    out = []
    with np.errstate(all="ignore"):
        for a, b in zip(x1, x2, strict=True):
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind in "iu":
                out.append((a.astype(np.int64) * b.astype(np.int64)).astype(a.dtype).astype(np.float64))
            else:
                out.append(a.astype(np.float64) * b.astype(np.float64))
    return out


def tolerance(x1: list[np.ndarray], x2: list[np.ndarray]) -> tuple[float, float]:
    """``(atol, rtol)``: exact (0, 0) for integer lists; otherwise 0 and 16 fp32 roundings relative (the check's
    default; the check adds half an ULP of the output dtype)."""
    integer = any(np.asarray(t).dtype.kind in "iu" for t in x1)
    return 0.0, 0.0 if integer else 16 * 2.0**-24
