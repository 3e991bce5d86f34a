"""NumPy reference of aclnnForeachPowScalarV2: ``out[i] = x[i] ** s`` for every tensor of the list ``x``, ``s``
the scalar as the kernel gets it (converted to FLOAT16 for a FLOAT16 list, to FLOAT for a FLOAT or BF16 list:
ops-nn's API, ConvertToTensor), with IEEE pow's special values, as ops-nn's kernels give them (Power on
Ascend910B-class products, powf on Ascend950): ``x ** 0 = 1`` for every x, ``0 ** negative = inf`` (``-0`` to
an odd negative integer: ``-inf``), a negative base with an integer exponent signed by its parity, with a
non-integer exponent NaN. torch._foreach_pow gives the same except for ``x ** 0.5``, which it takes as
``sqrt(x)``: NaN for ``-inf`` (IEEE and ops-nn: ``+inf``) and ``-0`` for ``-0`` (``+0``)."""

from __future__ import annotations

import math

import numpy as np


def _exponent(t: np.ndarray, scalar: float) -> float:
    """The scalar as the kernel tensor holds it: float16 for a float16 list, float32 otherwise."""
    wide = np.float16 if np.asarray(t).dtype == np.float16 else np.float32
    return float(wide(scalar))


def reference(x: list[np.ndarray], scalar: float) -> list[np.ndarray]:
    """``x[i] ** s`` in float64 of every tensor of ``x`` (arrays of one float dtype, any shapes, empty and 0-d ones
    included), ``s`` the scalar rounded to nearest in float16 for a float16 list and in float32 otherwise."""
    out = []
    with np.errstate(all="ignore"):
        for t in x:
            a = np.asarray(t, dtype=np.float64)
            s = _exponent(t, scalar)
            r = np.array(np.power(a, s), dtype=np.float64)
            # NumPy (as torch) takes x ** 0.5 as sqrt(x): NaN for -inf, -0 for -0; IEEE pow (and Power's
            # selects: a negative base keeps exp(s * ln|x|) for x = -inf, the sign only for an integer exponent)
            # gives +inf and +0: the zeros and infinities are computed by math.pow one by one
            edge = (a == 0) | np.isinf(a)
            r[edge] = [math.pow(float(v), s) if not (v == 0 and s < 0) else _zero_pow(float(v), s) for v in a[edge]]
            out.append(r)
    return out


def _zero_pow(v: float, s: float) -> float:
    """``v ** s`` for a zero ``v`` and a negative ``s`` (math.pow raises there): an infinity, negative for -0 and
    an odd integer ``s``."""
    odd = float(s).is_integer() and int(s) % 2 == 1
    return -math.inf if odd and math.copysign(1.0, v) < 0 else math.inf


def tolerance(x: list[np.ndarray], scalar: float) -> tuple[float, float]:
    """``(atol, rtol)``: atol 0; rtol ``(|s| * L + 8) * 2**-24``, ``L`` the largest ``|ln|x||`` over the finite
    non-zero elements of every tensor (1 where there are none): Power computes ``exp(s * ln|x|)`` in fp32 on
    Ascend910B-class products, so the ln's relative rounding error is magnified by ``|s * ln|x||`` in the result,
    plus a few ULPs of fp32 for Ln, Muls and Exp (8 assumed). The check adds half an ULP of the output dtype."""
    largest = 1.0
    s = 0.0
    with np.errstate(all="ignore"):
        for t in x:
            a = np.abs(np.asarray(t, dtype=np.float64)).ravel()
            a = a[np.isfinite(a) & (a > 0)]
            if a.size:
                largest = max(largest, float(np.max(np.abs(np.log(a)))))
            s = abs(_exponent(t, scalar))
    return 0.0, (s * largest + 8.0) * 2.0**-24
