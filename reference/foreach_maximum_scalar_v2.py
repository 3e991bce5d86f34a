"""NumPy reference of aclnnForeachMaximumScalarV2: ``out[i] = max(x[i], s)`` for every tensor of the list ``x``,
``s`` the scalar as the kernel gets it (converted to FLOAT16 for a FLOAT16 list, to FLOAT for a FLOAT or BF16
list, to INT32 for an INT32 list: ops-nn's API, ConvertToTensor), and a NaN element giving ``s``, as ops-nn's
kernel (Maxs: the vector max returns the other operand for a NaN; torch._foreach_maximum gives NaN there). An
INT32 list's maximum is exact (compared exactly)."""

from __future__ import annotations

import numpy as np

INT32_RANGE = (-(2**31), 2**31 - 1)


def reference(x: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """``max(x[i], s)`` of every tensor of ``x`` (arrays of one dtype: float16, bfloat16, float32 or int32; any
    shapes, empty and 0-d ones included), ``s`` the scalar rounded to nearest in float16 for a float16 list and in
    float32 for a float32 or bfloat16 one, the integer itself for an int32 list; ``s`` where an element is NaN (the
    scalar is never NaN in a case).

    Raises:
        ValueError: an int32 list's scalar is not an integer within int32's range.
    """
    out = []
    with np.errstate(all="ignore"):
        for t in x:
            a = np.asarray(t)
            if a.dtype.kind in "iu":
                if float(scalar) != int(scalar) or not INT32_RANGE[0] <= int(scalar) <= INT32_RANGE[1]:
                    raise ValueError(f"an int32 list's scalar must be an int32 value, got {scalar!r}")
                out.append(np.maximum(a.astype(np.int64), int(scalar)).astype(np.float64))
                continue
            wide = np.float16 if a.dtype == np.float16 else np.float32
            s = float(wide(scalar))
            f = a.astype(np.float64)
            out.append(np.where(np.isnan(f), s, np.maximum(f, s)))
    return out


def tolerance(x: list[np.ndarray], scalar: float) -> tuple[float, float]:
    """``(atol, rtol)``: exact (0, 0) for an int32 list; otherwise 0 and 16 fp32 roundings relative (the check's
    default; the check adds half an ULP of the output dtype)."""
    integer = any(np.asarray(t).dtype.kind in "iu" for t in x)
    return 0.0, 0.0 if integer else 16 * 2.0**-24
