"""NumPy reference of aclnnForeachAddListV2: ``out[i] = x1[i] + alpha * x2[i]`` for every tensor of the lists,
as ops-nn's ForeachAddList kernel computes it (hicann/ops-nn foreach/foreach_add_list/op_kernel): ``alpha``
converted to the compute dtype (FLOAT16 for FLOAT16 lists, FLOAT for FLOAT and BF16 ones, INT32 for INT32 ones;
ConvertToTensor in its op_api), each ``alpha * x2`` rounded to that dtype (Muls, or the product Axpy rounds), then
the sum computed in float64 (the kernel's Add or Axpy rounds it once, which the comparison allows). INT32 lists
wrap around (two's complement) in the product and the sum, as torch._foreach_add(x1, x2, alpha=k) of int32 lists
gives them, and are compared exactly."""

from __future__ import annotations

import numpy as np

INT32_RANGE = (-(2**31), 2**31 - 1)


def reference(x1: list[np.ndarray], x2: list[np.ndarray], alpha: float) -> list[np.ndarray]:
    """``x1[i] + round_c(round_c(alpha) * x2[i])`` in float64, ``round_c`` rounding to float16 for float16 lists
    and to float32 for float32 and bfloat16 ones (bfloat16 lists are computed in float32), one array per pair of
    tensors (arrays of one dtype, ``x2[i]`` of ``x1[i]``'s shape; empty and 0-d ones included); for int32 lists
    ``(x1[i] + alpha * x2[i]) mod 2**32`` as a signed int32, ``alpha`` an integer within int32's range.

    Raises:
        ValueError: an int32 list's alpha is not an integer within int32's range.
    """
    out = []
    with np.errstate(all="ignore"):
        for a, b in zip(x1, x2, strict=True):
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind in "iu":
                if float(alpha) != int(alpha) or not INT32_RANGE[0] <= int(alpha) <= INT32_RANGE[1]:
                    raise ValueError(f"an int32 list's alpha must be an int32 value, got {alpha!r}")
                wrapped = a.astype(np.int64) + int(alpha) * b.astype(np.int64)
                out.append(wrapped.astype(np.int32).astype(np.float64))
                continue
            wide = np.float16 if a.dtype == np.float16 else np.float32
            scaled = (wide(alpha) * b.astype(wide)).astype(wide)
            out.append(a.astype(np.float64) + scaled.astype(np.float64))
    return out


def tolerance(x1: list[np.ndarray], x2: list[np.ndarray], alpha: float) -> tuple[float, float]:
    """``(atol, rtol)``: exact (0, 0) for int32 lists; otherwise 0 and 16 fp32 roundings relative (the check's
    default; the check adds half an ULP of the output dtype)."""
    integer = any(np.asarray(t).dtype.kind in "iu" for t in x1)
    return 0.0, 0.0 if integer else 16 * 2.0**-24
