"""The derived bound evaluated only where the comparison needs it (``derived_bound(..., lazy=True)``,
``ElementBound``, ``compare`` with a ``LazyAtol``) gives exactly the results of the whole-array bound.

The outputs judged here are not a kernel's: each is the reference rounded to the output dtype with a few
elements moved by a chosen number of ULPs (some inside the derived bound, some far outside, one NaN), so
every branch of the rule (accepted by the half ULP, accepted only by the atol, rejected) is exercised.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import ml_dtypes
import numpy as np
import pytest

from codegen import registry
from codegen.check.compare import LazyAtol, compare
from codegen.check.reference import _call_with, load_reference
from codegen.families.elementwise.bound import CHUNK_ELEMENTS, ElementBound, derived_bound
from codegen.specs import load_project
from codegen.types import compute_dtypes

CATALOGUE, SPECS = load_project()
PRODUCT = CATALOGUE.get("Ascend910B")
ELEMENTWISE = sorted(
    n
    for n, s in SPECS.items()
    if s.family == "elementwise" and "Ascend910B" in s.products and getattr(s.compute, "reduce", None) is None
)


class _Large(NamedTuple):
    dtype: str
    params: dict
    expected: np.ndarray


@functools.cache
def _large_cases(op: str) -> list[_Large]:
    """(dtype, reference params, float64 reference) of the op's quick value cases above one bound slice (the
    uneven multi-core split: 36,867 FLOAT or 73,731 16-bit elements on Ascend910B), FLOAT and one 16-bit
    dtype."""
    spec = SPECS[op]
    ref = load_reference(spec)
    dtypes = [d for d in compute_dtypes(spec, PRODUCT) if d.name in ("FLOAT", "FLOAT16")]
    out: list[_Large] = []
    for c in registry.family(spec.family).check_cases(spec, PRODUCT, dtypes, True):
        if c.expect_status is not None or c.mode is not None:
            continue
        params = {k: v for k, v in c.params.items() if k not in spec.output_names}
        arrays = [v for v in params.values() if isinstance(v, np.ndarray)]
        if not arrays or max(a.size for a in arrays) <= CHUNK_ELEMENTS:
            continue
        out.append(_Large(c.dtype, params, np.asarray(_call_with(ref.reference, params), dtype=np.float64)))
    return out


def _perturbed(expected: np.ndarray, dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """``expected`` rounded to ``dtype``, with about 1% of the elements moved 1-3 ULPs and a few moved far."""
    with np.errstate(over="ignore"):
        got = expected.astype(dtype)
    uint = np.dtype(f"uint{dtype.itemsize * 8}")
    bits = got.reshape(-1).view(uint)
    finite = np.flatnonzero(np.isfinite(got.reshape(-1).astype(np.float64)))
    near = rng.choice(finite, size=max(1, finite.size // 100), replace=False)
    bits[near] += rng.integers(1, 4, size=near.size).astype(uint)
    far = rng.choice(finite, size=3, replace=False)
    bits[far] += uint.type(1 << (dtype.itemsize * 8 - 4))
    got.reshape(-1)[rng.integers(got.size)] = np.nan
    return got


@pytest.mark.parametrize("op", ELEMENTWISE)
def test_the_lazy_bound_equals_the_whole_bound_at_every_element_asked(op: str) -> None:
    spec = SPECS[op]
    rng = np.random.default_rng(7)
    cases = _large_cases(op)
    assert {c.dtype for c in cases} == {"FLOAT", "FLOAT16"}, op  # each dtype's multi-core split
    for dtype, params, expected in cases:
        whole = derived_bound(spec, PRODUCT, params, expected)
        lazy = derived_bound(spec, PRODUCT, params, expected, lazy=True)
        assert isinstance(lazy, ElementBound) and isinstance(lazy, LazyAtol)
        assert isinstance(whole, np.ndarray) and lazy.shape == whole.shape
        flat = whole.reshape(-1)
        picked = rng.integers(0, flat.size, size=5000)  # unsorted, with repeats
        assert np.array_equal(lazy.at(picked), flat[picked]), (op, dtype)
        assert np.array_equal(lazy.full(), whole), (op, dtype)  # the rest computed on demand, the kept reused


@pytest.mark.parametrize("op", ELEMENTWISE[::3])
def test_compare_with_the_lazy_bound_gives_the_whole_bounds_result(op: str) -> None:
    spec = SPECS[op]
    rng = np.random.default_rng(11)
    dtypes = {"FLOAT": np.dtype(np.float32), "FLOAT16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16)}
    for dtype, params, expected in _large_cases(op):
        got = _perturbed(expected, dtypes[dtype], rng)
        whole = derived_bound(spec, PRODUCT, params, expected)
        lazy = derived_bound(spec, PRODUCT, params, expected, lazy=True)
        a = compare(got, expected, whole, 2.0**-40)
        b = compare(got, expected, lazy, 2.0**-40)
        assert not a.ok  # the far moves fail
        assert a == b, (op, dtype)
        with np.errstate(over="ignore"):
            exact = expected.astype(dtypes[dtype])
        assert compare(exact, expected, whole, 2.0**-40) == compare(exact, expected, lazy, 2.0**-40)


def test_a_lazy_atol_is_asked_only_where_the_half_ulp_does_not_accept() -> None:
    """Exact outputs ask for the worst element's bound only; an element 2 ULPs off is asked for (and no other)
    and accepted
    by an atol of 3 ULPs, and rejected by one of 1 ULP (the first failing element and count as the array's)."""

    class Counting:
        def __init__(self, values: np.ndarray) -> None:
            self.values, self.asked = values, set()

        @property
        def shape(self) -> tuple[int, ...]:
            return self.values.shape

        def at(self, index: np.ndarray) -> np.ndarray:
            self.asked.update(int(i) for i in np.asarray(index).reshape(-1))
            return self.values.reshape(-1)[index]

        def full(self) -> np.ndarray:
            return self.values

    n = 3 * CHUNK_ELEMENTS + 5
    ref = np.linspace(1.0, 2.0, n)
    got = ref.astype(np.float32)
    ulp = np.spacing(got).astype(np.float64)
    three = Counting(3 * ulp)
    assert compare(got, ref, three, 0.0) == compare(got, ref, 3 * ulp, 0.0)
    assert len(three.asked) == 1  # the worst element only, for the bound reported
    off = got.copy()
    off[CHUNK_ELEMENTS + 17] = np.nextafter(np.nextafter(off[CHUNK_ELEMENTS + 17], 3), 3)
    three = Counting(3 * ulp)
    r = compare(off, ref, three, 0.0)
    assert r.ok and r == compare(off, ref, 3 * ulp, 0.0)
    assert three.asked == {CHUNK_ELEMENTS + 17}  # the moved element, which is also the worst one
    one = Counting(0.5 * ulp)
    r = compare(off, ref, one, 0.0)
    assert not r.ok and r == compare(off, ref, 0.5 * ulp, 0.0)
    assert r.worst_index == (CHUNK_ELEMENTS + 17,) and r.detail.startswith("1 of")
