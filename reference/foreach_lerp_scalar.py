"""NumPy reference of aclnnForeachLerpScalar: ``out[i] = x1[i] + weight * (x2[i] - x1[i])`` for every tensor of
the lists, as ops-nn's ForeachLerpScalar kernel computes it (hicann/ops-nn foreach/foreach_lerp_scalar/op_kernel)
and as PyTorch's ``torch._foreach_lerp(list, list, weight)`` defines it: ``weight`` converted to float32
(ConvertToTensor in its op_api), every dtype computed in float32 (float16 and bfloat16 tensors cast up exactly),
the difference ``d = x2 - x1`` rounded to float32, then for ``|weight| < 0.5`` ``x1 + round(weight * d)`` and
otherwise ``x2 + round((weight - 1) * d)`` (``weight - 1`` in float32), the product rounded to float32 (Axpy's
first rounding) and the sum computed in float64 (the kernel's last rounding, and the cast to the tensors' dtype,
are what the comparison allows)."""

from __future__ import annotations

import numpy as np


def reference(x1: list[np.ndarray], x2: list[np.ndarray], weight: float) -> list[np.ndarray]:
    """The interpolation of each pair of tensors in float64 (arrays of one float dtype, ``x2[i]`` of ``x1[i]``'s
    shape; empty and 0-d ones included), with the float32 roundings the module docstring lists."""
    w = np.float32(weight)
    out = []
    with np.errstate(all="ignore"):
        for a, b in zip(x1, x2, strict=True):
            start = np.asarray(a).astype(np.float32)
            end = np.asarray(b).astype(np.float32)
            d = (end - start).astype(np.float32)
            if abs(float(w)) < 0.5:
                base, scaled = start, (w * d).astype(np.float32)
            else:
                base, scaled = end, (np.float32(w - np.float32(1.0)) * d).astype(np.float32)
            out.append(base.astype(np.float64) + scaled.astype(np.float64))
    return out
