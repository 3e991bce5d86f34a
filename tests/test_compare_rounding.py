"""The comparison rounds the float64 reference to the output dtype correctly (ties to even, once), whatever
ml_dtypes version is installed: ml_dtypes before 0.7 converts float64 to bfloat16 through float32 and so
rounds twice. The oracle here is exact rational arithmetic (``fractions.Fraction``), not a NumPy conversion.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import profile_settings

from codegen.check.compare import round_to_dtype

#: (dtype, mantissa bits, smallest normal exponent, largest exponent)
FORMATS = [
    (np.dtype(ml_dtypes.bfloat16), 7, -126, 127),
    (np.dtype(np.float16), 10, -14, 15),
    (np.dtype(np.float32), 23, -126, 127),
]


def _exact(x: float, nmant: int, emin: int, emax: int) -> float:
    """``x`` rounded to nearest, ties to even, in a binary format of ``nmant`` stored mantissa bits and
    exponents ``emin..emax`` (subnormals below ``2**emin``; infinity from ``2**(emax + 1)`` after rounding)."""
    if x == 0 or not math.isfinite(x):
        return x
    lead = math.frexp(abs(x))[1] - 1  # floor(log2 |x|)
    quantum = Fraction(2) ** (max(lead, emin) - nmant)
    steps = round(Fraction(abs(x)) / quantum)  # Fraction rounds half to even
    value = steps * quantum
    if value >= Fraction(2) ** (emax + 1):
        return math.copysign(math.inf, x)
    return math.copysign(float(value), x)


def _ties(nmant: int) -> list[float]:
    """Values just above and exactly at a tie of the format, where rounding through float32 first goes wrong
    for bfloat16 (``1 + 2**-8 + 2**-30`` is nearer ``1 + 2**-7`` than 1)."""
    half = 2.0 ** -(nmant + 1)
    out = []
    for base in (1.0, 1.5, 2.0**-100, 2.0**100, 3.0):
        for nudge in (0.0, 2.0**-30, 2.0**-40, -(2.0**-30)):
            out += [base * (1 + half + nudge), -base * (1 + half + nudge), base * (1 + 3 * half + nudge)]
    return out


@pytest.mark.parametrize(("dtype", "nmant", "emin", "emax"), FORMATS, ids=lambda v: str(v))
def test_ties_and_edges_round_once(dtype: np.dtype, nmant: int, emin: int, emax: int) -> None:
    largest = float((2 - 2.0**-nmant) * 2.0**emax)
    edges = [
        0.0,
        -0.0,
        math.inf,
        -math.inf,
        largest,
        largest * (1 + 2.0 ** -(nmant + 2)),  # below the overflow midpoint: stays finite
        largest * (1 + 2.0 ** -(nmant + 1)),  # at the midpoint: ties to even (infinity)
        2.0 ** (emin - nmant),  # the smallest subnormal
        2.0 ** (emin - nmant - 1),  # half of it: ties to even (zero)
        2.0 ** (emin - nmant - 1) * (1 + 2.0**-20),  # just above half: the smallest subnormal
        -(2.0**emin) * (1 - 2.0**-30),
    ]
    values = np.array(_ties(nmant) + edges, dtype=np.float64)
    got = round_to_dtype(values, dtype).astype(np.float64)
    want = np.array([_exact(float(v), nmant, emin, emax) for v in values])
    assert got.tobytes() == want.tobytes(), [(v, g, w) for v, g, w in zip(values, got, want) if g != w]


def test_the_bfloat16_tie_that_double_rounding_breaks() -> None:
    x = np.array([1 + 2.0**-8 + 2.0**-30])
    assert float(round_to_dtype(x, np.dtype(ml_dtypes.bfloat16))[0]) == 1 + 2.0**-7


def test_nan_stays_nan() -> None:
    for dtype, *_ in FORMATS:
        assert np.isnan(round_to_dtype(np.array([np.nan]), dtype).astype(np.float64)).all()


@profile_settings()
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=64))
def test_random_doubles_round_as_exact_arithmetic(values: list[float]) -> None:
    x = np.array(values, dtype=np.float64)
    for dtype, nmant, emin, emax in FORMATS:
        got = round_to_dtype(x, dtype).astype(np.float64)
        want = np.array([_exact(v, nmant, emin, emax) for v in values])
        assert got.tobytes() == want.tobytes(), dtype
