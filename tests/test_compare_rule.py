"""The comparison's acceptance rule, restated here in plain float64 NumPy (issue 18, item 1).

:func:`codegen.check.compare.compare` reads the output dtype's rounding and ULPs from integer views of its
bits; these tests hold it to the rule as the manual states it, written out independently: an element passes
when ``|got - ref| <= atol + rtol*|ref| + spacing/2``, ``spacing`` being NumPy's ``np.spacing`` of the
reference rounded to the output dtype (of the float64 reference where that rounding overflows, of 0 where the
reference is NaN or infinite), or when ``got`` and ``ref`` are both NaN, or ``got`` is the infinity that
``ref`` rounds to in the output dtype.
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import profile_settings

from codegen.check.compare import compare
from codegen.runner import OpCallable
from codegen.runner.memory import POISON_BYTE
from codegen.specs import load_project

DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]


def _spacing(x64: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The gap between adjacent values of ``dtype`` at ``x64`` rounded to ``dtype`` (float64): the step
    above its magnitude, or below it at the largest finite value; for a reference beyond the dtype's range
    the gap its binade would have, ``2**(floor(log2|x|) - mantissa bits)``; for a NaN or infinite reference
    the smallest subnormal."""
    width = f"uint{dtype.itemsize * 8}"
    top = 1 << (dtype.itemsize * 8 - 1)
    nmant = {np.dtype(np.float32): 23, np.dtype(np.float16): 10}.get(dtype, 7)
    with np.errstate(all="ignore"):
        rounded = x64.astype(dtype)
        mag = rounded.view(width) & (top - 1)
        value = mag.view(dtype).astype(np.float64)
        above = (mag + 1).astype(width).view(dtype).astype(np.float64)
        below = (np.maximum(mag, 1) - 1).astype(width).view(dtype).astype(np.float64)
        gap = np.where(np.isinf(above), value - below, above - value)
        overflowed = np.isfinite(x64) & np.isinf(value)
        binade = 2.0 ** (np.floor(np.log2(np.where(overflowed, np.abs(x64), 1.0))) - nmant)
        gap = np.where(overflowed, binade, gap)
        smallest = np.array([1], dtype=width).view(dtype).astype(np.float64)[0]
        return np.where(np.isfinite(x64), gap, smallest)


def _rule(got: np.ndarray, ref: np.ndarray, atol: np.ndarray, rtol: float) -> np.ndarray:
    """The pass mask of the rule (module doc), element by element in float64."""
    with np.errstate(all="ignore"):
        g = got.astype(np.float64)
        rounded = ref.astype(got.dtype).astype(np.float64)
        # an infinite reference is met only by that infinity (same_inf), whatever its infinite bound says
        within = np.isfinite(ref) & (np.abs(g - ref) <= atol + rtol * np.abs(ref) + _spacing(ref, got.dtype) / 2)
        both_nan = np.isnan(g) & np.isnan(ref)
        same_inf = np.isinf(g) & np.isinf(rounded) & (np.sign(g) == np.sign(ref))
    return within | both_nan | same_inf


_values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(min_value=-4.0, max_value=4.0),
    st.sampled_from([0.0, -0.0, 1e-40, -1e-42, 65504.0, 65520.0, 3.4e38, 3.5e38, 1.0 + 2.0**-11, 2.0**-24]),
)


@profile_settings()
@given(
    dtype=st.sampled_from(DTYPES),
    ref=st.lists(_values, min_size=1, max_size=24),
    noise=st.lists(st.integers(-3, 3), min_size=24, max_size=24),
    atol=st.sampled_from([0.0, 1e-6, 1e-3]),
    rtol=st.sampled_from([0.0, 2.0**-40, 2.0**-12]),
)
def test_compare_accepts_exactly_what_the_rule_accepts(
    dtype: np.dtype, ref: list[float], noise: list[int], atol: float, rtol: float
) -> None:
    r = np.asarray(ref, dtype=np.float64)
    with np.errstate(all="ignore"):
        got = r.astype(dtype)
    # move some elements by a few representable values of the output dtype (its bits, not a float scale)
    bits = got.view(f"uint{dtype.itemsize * 8}").astype(np.int64)
    finite = np.isfinite(got.astype(np.float64)) & (got.astype(np.float64) != 0)
    bits = np.where(finite, bits + np.asarray(noise[: r.size]), bits)
    got = bits.astype(f"uint{dtype.itemsize * 8}").view(dtype)
    a = np.full(r.shape, atol)
    expected_ok = _rule(got, r, a, rtol)
    cmp = compare(got, r, a, rtol)
    assert cmp.ok == bool(expected_ok.all())
    if not cmp.ok:
        assert cmp.worst_index == tuple(int(i) for i in np.argwhere(~expected_ok)[0])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_the_ulp_error_counts_representable_values_of_the_output_dtype(dtype: np.dtype) -> None:
    ref = np.array([1.0, 3.0, -2.0, 1e-3])
    width = f"uint{dtype.itemsize * 8}"
    base = ref.astype(dtype)
    # 1.0 - one step is one ULP below 1.0 (across the binade boundary); -2.0 moved 5 steps towards 0
    steps = np.array([-1, 2, -5, 0], dtype=np.int64)
    signed_steps = np.where(ref < 0, -steps, steps)
    got = (base.view(width).astype(np.int64) + signed_steps).astype(width).view(dtype)
    cmp = compare(got, ref, np.full(4, 1.0), 0.0)
    assert cmp.ok
    assert cmp.max_ulp_err == 5.0


def test_a_subnormal_reference_counts_in_smallest_normal_spacing() -> None:
    ref = np.array([1e-40, 1.0])
    got = np.array([0.0, 1.0], dtype=np.float32)
    cmp = compare(got, ref, 1e-39, 0.0)
    assert cmp.ok
    # counted from the reference rounded to the output dtype (a float32 subnormal), at 2**-126 per ULP
    assert cmp.max_ulp_err == pytest.approx(float(np.float32(1e-40)) / 2.0**-126)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("got", [0.0, 1.0, 65504.0, -np.inf], ids=["zero", "one", "max-f16", "minus-inf"])
def test_an_infinite_reference_accepts_only_that_infinity(dtype: np.dtype, got: float) -> None:
    # a reference of +inf makes rtol * |ref| infinite; a finite value or -inf written there is still wrong
    ref = np.array([np.inf, 2.0])
    out = np.array([got, 2.0], dtype=dtype)
    cmp = compare(out, ref, 0.0, 2.0**-12)
    assert not cmp.ok
    assert cmp.worst_index == (0,)
    assert compare(np.array([np.inf, 2.0], dtype=dtype), ref, 0.0, 2.0**-12).ok


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_compare_raises_no_floating_point_exception_on_nan_and_infinity(dtype: np.dtype) -> None:
    ref = np.array([np.nan, np.inf, -np.inf, 1e300, -1e300, 0.0, 1e-300, 1.0])
    with np.errstate(all="ignore"):
        got = ref.astype(dtype)
    got[-1] = np.nan
    with np.errstate(all="raise"):  # any FP exception left unmasked inside compare would raise here
        cmp = compare(got, ref, 0.0, 2.0**-12)
    assert not cmp.ok
    assert cmp.worst_index == (7,)
    assert cmp.detail.startswith("1 of 8 elements out of tolerance; first at (7,)")


def test_a_reused_workspace_is_poisoned_again_after_the_system_part() -> None:
    catalogue, _ = load_project(None, None)
    product = catalogue.get("Ascend910B")
    fn = object.__new__(OpCallable)  # the workspace helper needs only the product, not a built library
    fn.product = product
    fn._spare_workspace = None
    sys_bytes = product.sys_workspace_bytes
    first = fn._workspace(sys_bytes + 4096)
    assert (first == POISON_BYTE).all()
    first[sys_bytes:] = 0  # what a kernel writes into the user workspace
    second = fn._workspace(sys_bytes + 1024)
    assert second.size == sys_bytes + 1024
    assert (second == POISON_BYTE).all()
    smaller = dataclasses.replace(product, sys_workspace_bytes=64)
    fn.product = smaller
    third = fn._workspace(128)
    third[64:] = 1
    assert (fn._workspace(128) == POISON_BYTE).all()


def test_a_large_output_combines_its_slices_as_one_array() -> None:
    """An output spanning several slices of the comparison (2**15 elements each): the failing count, the
    first failing element, the largest error and its bound, and an accepted NaN and infinity in later slices
    are those of the whole array, placed here by hand."""
    n = 3 * (1 << 15) + 5
    ref = np.arange(n, dtype=np.float64) % 7 - 3.0  # exact in fp32
    got = ref.astype(np.float32)
    got[40_000] += 0.5  # second slice: error 0.5
    got[70_000] += 2.0  # third slice: error 2.0, the largest
    got[98_000] += 1.0  # fourth slice: error 1.0
    ref[98_100], got[98_100] = np.nan, np.nan  # accepted: NaN where the reference is NaN
    ref[98_200], got[98_200] = np.inf, np.inf  # accepted: the same infinity
    c = compare(got, ref, 1e-3, 0.0)
    assert not c.ok
    assert c.detail.startswith(f"3 of {n} elements out of tolerance; first at (40000,): got ")
    assert c.max_abs_err == 2.0 and c.worst_index == (40000,)
    # the bound at the worst element (reference 70000 % 7 - 3 = -3): atol + half the fp32 ULP of 3, 2**-23
    assert ref[70_000] == -3.0 and c.bound == 1e-3 + 2.0**-23
    got[[40_000, 70_000, 98_000]] = ref[[40_000, 70_000, 98_000]].astype(np.float32)
    assert compare(got, ref, 1e-3, 0.0).ok
