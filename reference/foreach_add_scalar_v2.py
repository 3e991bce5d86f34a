"""NumPy reference of aclnnForeachAddScalarV2: ``out[i] = x[i] + s`` for every tensor of the list ``x``, ``s`` the
scalar as the kernel gets it (converted to FLOAT16 for a FLOAT16 list, to FLOAT for a FLOAT or BF16 list, to INT32
for an INT32 list, as ops-nn's API converts the aclScalar with ConvertToTensor). A floating sum is computed in
float64 (the kernel rounds it once, which the comparison allows); an INT32 sum wraps around (two's complement), as
torch._foreach_add of an int32 list and an integer gives it, and is compared exactly."""

from __future__ import annotations

import numpy as np

INT32_RANGE = (-(2**31), 2**31 - 1)


def kernel_scalar(scalar: float, dtype: np.dtype) -> float:
    """``scalar`` (the aclScalar's value) in the dtype the kernel reads it in for a list of ``dtype``: rounded to
    nearest in float16 for a float16 list and in float32 for a float32 or bfloat16 one (bfloat16 lists are
    computed in float32; ops-nn foreach_add_scalar/op_host/op_api/aclnn_foreach_add_scalar_v2.cpp); the integer
    itself for an int32 list (an INT32 or INT64 scalar within int32's range).

    Raises:
        ValueError: an integer list's scalar is not an integer within int32's range.
    """
    if np.dtype(dtype).kind in "iu":
        if float(scalar) != int(scalar) or not INT32_RANGE[0] <= int(scalar) <= INT32_RANGE[1]:
            raise ValueError(f"an int32 list's scalar must be an int32 value, got {scalar!r}")
        return int(scalar)
    wide = np.float16 if np.dtype(dtype) == np.float16 else np.float32
    with np.errstate(over="ignore"):
        return float(wide(scalar))


def reference(x: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """The sum of every tensor of ``x`` (arrays of one dtype: float16, bfloat16, float32 or int32; any shapes,
    empty and 0-d ones included) and ``scalar`` as the kernel reads it (:func:`kernel_scalar`), one float64
    array per tensor of its shape: exact for floating lists (IEEE rules for infinities and NaN), the int32
    wrap-around sum for an int32 list."""
    out = []
    with np.errstate(all="ignore"):
        for t in x:
            a = np.asarray(t)
            s = kernel_scalar(scalar, a.dtype)
            if a.dtype.kind in "iu":
                out.append((a.astype(np.int64) + s).astype(np.int32).astype(np.float64))
            else:
                out.append(a.astype(np.float64) + s)
    return out


def tolerance(x: list[np.ndarray], scalar: float) -> tuple[float, float]:
    """``(atol, rtol)``: exact (0, 0) for an int32 list; otherwise 0 and 16 fp32 roundings relative (the check's
    default; the check adds half an ULP of the output dtype)."""
    integer = any(np.asarray(t).dtype.kind in "iu" for t in x)
    return 0.0, 0.0 if integer else 16 * 2.0**-24
