"""The compiled comparison (codegen/check/native_compare.cpp) gives the NumPy statement of the rule's results
bit for bit: pass/fail, the largest error and ULP distance, the worst and first failing element, the bounds
and the message, for FLOAT, FLOAT16 and BF16 outputs with NaN, infinities, subnormals, overflowing
references, array and scalar tolerances and a lazy atol."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import profile_settings

from codegen.check import native
from codegen.check.compare import CHUNK_ELEMENTS, compare

DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]


class DenseLazy:
    """A LazyAtol over a dense array, recording the elements it was asked for."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.asked: list[np.ndarray] = []

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    def at(self, index: np.ndarray) -> np.ndarray:
        self.asked.append(np.asarray(index).copy())
        return self.values.reshape(-1)[index]

    def full(self) -> np.ndarray:
        return self.values.copy()


def _both(monkeypatch: pytest.MonkeyPatch, got: np.ndarray, ref: np.ndarray, atol, rtol):
    monkeypatch.delenv(native.DISABLE_ENV, raising=False)
    assert native.library() is not None, "the comparison library did not build"
    fast = compare(got, ref, atol() if callable(atol) else atol, rtol)
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    slow = compare(got, ref, atol() if callable(atol) else atol, rtol)
    return fast, slow


def _same(a, b) -> None:
    for field in dataclasses.fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        assert repr(x) == repr(y), (field.name, x, y)


def _case(rng: np.random.Generator, n: int, dtype: np.dtype, specials: bool) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):  # overflows to infinity are wanted here
        return _draw(rng, n, dtype, specials)


def _draw(rng: np.random.Generator, n: int, dtype: np.dtype, specials: bool) -> tuple[np.ndarray, np.ndarray]:
    ref = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    noise = rng.standard_normal(n) * 10.0 ** rng.integers(-9, -1, n)
    got = (ref * (1 + noise)).astype(dtype)
    if specials:
        picks = rng.integers(0, n, max(1, n // 7))
        pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-42, 7e4, -7e4, 1e39, 3.4e38, 6e-8], dtype=np.float64)
        ref[picks] = pool[rng.integers(0, pool.size, picks.size)]
        gp = rng.integers(0, n, max(1, n // 9))
        got[gp] = pool[rng.integers(0, pool.size, gp.size)].astype(dtype)
        same = rng.integers(0, n, max(1, n // 11))
        got[same] = ref[same].astype(dtype)
    return got, ref


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("specials", [False, True], ids=["finite", "specials"])
@pytest.mark.parametrize("n", [1, 37, CHUNK_ELEMENTS + 5])
def test_array_and_scalar_tolerances_agree(monkeypatch: pytest.MonkeyPatch, dtype, specials, n) -> None:
    rng = np.random.default_rng(n * 7 + specials)
    got, ref = _case(rng, n, dtype, specials)
    for atol, rtol in ((0.0, 1e-3), (np.abs(rng.standard_normal(n)) * 1e-3, 2.0**-40), (1e-5, np.full(n, 1e-2))):
        fast, slow = _both(monkeypatch, got, ref, atol, rtol)
        _same(fast, slow)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_a_lazy_atol_agrees_and_is_asked_only_where_needed(monkeypatch: pytest.MonkeyPatch, dtype) -> None:
    rng = np.random.default_rng(3)
    n = 3 * CHUNK_ELEMENTS + 11
    got, ref = _case(rng, n, dtype, True)
    values = np.abs(rng.standard_normal(n)) * 1e-2
    lazies: list[DenseLazy] = []

    def make() -> DenseLazy:
        lazies.append(DenseLazy(values))
        return lazies[-1]

    fast, slow = _both(monkeypatch, got, ref, make, 2.0**-40)
    _same(fast, slow)
    dense = compare(got, ref, values, 2.0**-40)
    _same(fast, dense)
    asked = np.unique(np.concatenate(lazies[0].asked))
    assert 0 < asked.size < n  # the compiled pass asks for the elements not accepted without an atol only


@profile_settings()
@given(
    st.sampled_from(DTYPES),
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=40),
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1, max_size=40),
    st.floats(min_value=0, max_value=1e3),
    st.floats(min_value=0, max_value=1.0),
)
def test_arbitrary_values_agree(dtype, refs, gots, atol, rtol) -> None:
    n = min(len(refs), len(gots))
    ref = np.array(refs[:n], dtype=np.float64)
    with np.errstate(all="ignore"):
        got = np.array(gots[:n], dtype=np.float64).astype(dtype)
    with pytest.MonkeyPatch.context() as mp:
        fast, slow = _both(mp, got, ref, atol, rtol)
    _same(fast, slow)


def test_a_failing_output_is_reported_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    ref = np.linspace(-3, 3, 1000)
    got = ref.astype(np.float16)
    got[[10, 500, 501]] += np.float16(0.5)
    fast, slow = _both(monkeypatch, got, ref, 0.0, 1e-3)
    assert not fast.ok and fast.worst_index is not None and "3 of 1000 elements" in fast.detail
    _same(fast, slow)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_the_compiled_rounding_is_round_to_dtype(dtype: np.dtype) -> None:
    from codegen.check.compare import _layout, round_to_dtype

    lib = native.library()
    assert lib is not None
    rng = np.random.default_rng(11)
    lay = _layout(dtype)
    nm = lay.nmant
    ties = [
        s * b * (1 + 2.0 ** -(nm + 1) + d)
        for b in (1.0, 2.0**-14, 2.0**-126, 2.0**15, 2.0**127, 3.0)
        for s in (1, -1)
        for d in (0.0, 2.0**-40, -(2.0**-40))
    ]
    x = np.concatenate(
        [
            rng.standard_normal(20000) * 10.0 ** rng.integers(-45, 40, 20000),
            np.array(ties),
            np.array(
                [
                    0.0,
                    -0.0,
                    np.inf,
                    -np.inf,
                    np.nan,
                    65504.0,
                    65520.0,
                    65519.99,
                    3.4e38,
                    3.3895e38,
                    1e-50,
                    6e-8,
                    5.96e-8,
                    2.98e-8,
                    1e300,
                    -1e-300,
                ]
            ),
        ]
    )
    got = native.round_bits(lib, x, lay.uint, lay.nmant, lay.bias)
    want = round_to_dtype(x, dtype).view(lay.uint)
    nan = np.isnan(x)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.isnan(got[nan].view(dtype).astype(np.float64)).all()


def test_inputs_outside_the_compiled_path_give_the_numpy_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Big-endian outputs are read by value, long-double tolerances and a lazy atol that answers with one
    value take the NumPy arithmetic, a non-numeric tolerance raises as the NumPy path does."""
    ref = np.array([1.0, 2.1, -3.5])
    fast, slow = _both(monkeypatch, np.array([1.0, 2.0, -3.5], dtype=">f2"), ref, 0.0, 0.0)
    _same(fast, slow)
    assert fast.worst_index == (1,) and "1 of 3" in fast.detail
    fast, slow = _both(
        monkeypatch, np.array([1.1], np.float32), np.array([1.65]), 0.0, np.array([np.longdouble(1) / 10])
    )
    _same(fast, slow)

    class OneValue(DenseLazy):
        def at(self, index: np.ndarray) -> np.ndarray:
            return np.float64(0.1)

    r = np.random.default_rng(0).standard_normal(100)
    g = (r * 1.01).astype(np.float32)
    fast, slow = _both(monkeypatch, g, r, lambda: OneValue(np.full(100, 0.1)), 0.0)
    _same(fast, slow)
    monkeypatch.delenv(native.DISABLE_ENV, raising=False)
    with pytest.raises(TypeError):
        compare(g, r, None, 0.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    ("got_value", "ref_value", "ulps"),
    [
        (np.nan, 0.5, np.inf),  # a NaN where the reference is a number: it showed 0 ULPs (a review helper)
        (np.nan, 0.0, np.inf),
        (np.inf, 0.5, np.inf),
        (-np.inf, np.inf, np.inf),
        (np.inf, np.inf, 0.0),  # the same infinity: accepted, 0
        (np.nan, np.nan, 0.0),
    ],
)
def test_the_ulp_distance_of_a_nan_or_an_infinity(
    monkeypatch: pytest.MonkeyPatch, dtype: np.dtype, got_value: float, ref_value: float, ulps: float
) -> None:
    got = np.full(40, 0.25, dtype)
    ref = np.full(40, 0.25)
    got[7], ref[7] = got_value, ref_value
    fast, slow = _both(monkeypatch, got, ref, 0.0, 0.0)
    _same(fast, slow)
    assert fast.max_ulp_err == ulps
    assert fast.ok == (ulps == 0.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_an_accepted_nan_or_infinity_is_never_the_worst_element(monkeypatch: pytest.MonkeyPatch, dtype) -> None:
    """The bound shown for a passing output is the one at its worst finite element, not the NaN (rtol *
    |NaN|) or infinity of an accepted NaN or infinity before it; an output of NaN and infinities only (as
    the reference) shows error and bound 0 and says why."""
    ref = np.array([np.nan, np.inf, -np.inf, 2.0, 1.0])
    got = np.array([np.nan, np.inf, -np.inf, 2.0, 1.0 + 2.0**-6], dtype=dtype)
    # half an ULP of the output dtype at the worst element's reference, 1.0: 2**-24, 2**-11, 2**-8
    half_ulp = {np.dtype(np.float32): 2.0**-24, np.dtype(np.float16): 2.0**-11}.get(np.dtype(dtype), 2.0**-8)
    for result in _both(monkeypatch, got, ref, 0.0, 2.0**-4):
        assert result.ok and result.detail == ""
        assert (result.max_abs_err, result.bound) == (2.0**-6, 2.0**-4 + half_ulp)
    fast, slow = _both(monkeypatch, got[:3], ref[:3], 0.0, 2.0**-4)
    _same(fast, slow)
    assert (fast.ok, fast.max_abs_err, fast.bound, fast.max_ulp_err) == (True, 0.0, 0.0, 0.0)
    assert fast.detail == "every element is NaN or infinite, as the reference's: no finite value to bound"
