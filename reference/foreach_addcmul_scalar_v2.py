"""NumPy reference of aclnnForeachAddcmulScalarV2: ``out[i] = x1[i] + scalar * x2[i] * x3[i]`` for every tensor
of the lists, as PyTorch's ``torch._foreach_addcmul(list, list, list, value=scalar)`` defines it and as the
generated kernel computes it (ops-nn's sequence, hicann/ops-nn foreach/foreach_addcmul_scalar/op_kernel: Mul of
the factors, then one Axpy): ``scalar`` converted to the list's dtype (ConvertToTensor in its op_api; FLOAT for
bfloat16 lists) and then to float32, the compute dtype of every list (float16 and bfloat16 tiles are cast up), the
product ``x2 * x3`` rounded to float32, ``scalar`` times it rounded again (Axpy's first rounding), then the sum
computed in float64 (the kernel's last rounding, and for 16-bit lists the cast back, are what the comparison
allows)."""

from __future__ import annotations

import numpy as np


def reference(x1: list[np.ndarray], x2: list[np.ndarray], x3: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """``x1[i] + round_c(s * round_c(x2[i] * x3[i]))`` in float64, ``round_c`` rounding to float32 and ``s`` the
    scalar rounded to float16 for float16 lists, then to float32 (the compute dtype of every list), one array per
    triple of tensors (arrays of one float dtype, ``x2[i]`` and ``x3[i]`` of ``x1[i]``'s shape; empty and 0-d ones
    included)."""
    out = []
    with np.errstate(all="ignore"):
        for a, b, c in zip(x1, x2, x3, strict=True):
            carried = np.float32(np.float16(scalar)) if np.asarray(a).dtype == np.float16 else np.float32(scalar)
            product = (np.asarray(b).astype(np.float32) * np.asarray(c).astype(np.float32)).astype(np.float32)
            scaled = (carried * product).astype(np.float32)
            out.append(np.asarray(a).astype(np.float64) + scaled.astype(np.float64))
    return out
