"""NumPy reference of aclnnForeachAddListV2: ``out[i] = x1[i] + alpha * x2[i]`` for every tensor of the lists,
as ops-nn's ForeachAddList kernel computes it (hicann/ops-nn foreach/foreach_add_list/op_kernel): ``alpha``
converted to the compute dtype (FLOAT16 for FLOAT16 lists, FLOAT otherwise, ConvertToTensor in its op_api), each
``alpha * x2`` rounded to that dtype (Muls, or the product Axpy rounds), then the sum computed in float64 (the
kernel's Add or Axpy rounds it once, which the comparison allows)."""

from __future__ import annotations

import numpy as np


def reference(x1: list[np.ndarray], x2: list[np.ndarray], alpha: float) -> list[np.ndarray]:
    """``x1[i] + round_c(round_c(alpha) * x2[i])`` in float64, ``round_c`` rounding to float16 for float16 lists
    and to float32 otherwise (bfloat16 lists are computed in float32), one array per pair of tensors (arrays of
    one float dtype, ``x2[i]`` of ``x1[i]``'s shape; empty and 0-d ones included)."""
    out = []
    with np.errstate(all="ignore"):
        for a, b in zip(x1, x2, strict=True):
            wide = np.float16 if np.asarray(a).dtype == np.float16 else np.float32
            scaled = (wide(alpha) * np.asarray(b).astype(wide)).astype(wide)
            out.append(np.asarray(a, dtype=np.float64) + scaled.astype(np.float64))
    return out
