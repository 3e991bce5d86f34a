"""A FLOAT16 input compared only with host values is compared in half, against the host value rounded to half
toward the side that keeps the comparison (CAST_FLOOR for <= and >, CAST_CEIL for < and >=): checked here
over every one of the 65,536 half values, bit for bit, against a NumPy reference that compares in float64
with the fp32 host value, for host values between two halves, on a half, at a tie of round-to-nearest, in the
subnormal range, past the largest half, infinite and NaN. One op per rounding direction: ThresholdBackward
(self <= threshold) and HardtanhBackward (self > min and self < max)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import codegen
from codegen.families.elementwise.compiler.narrow import COMPARE_ELEMS
from codegen.families.elementwise.plan.variants import compile_all
from codegen.specs import load_project

PRODUCT = "Ascend910B"

#: fp32 host values around the half grid: on a half (1, 65504), between two halves (0.99999, 1.0001), the tie
#: 1 + 2^-11 that round-to-nearest takes to 1, subnormal halves and below the smallest one, past the largest
#: half (65519 rounds to 65504 to nearest, 65520 to inf), signed zeros, infinities and NaN.
HOST_VALUES = (
    0.0,
    -0.0,
    1.0,
    0.99999,
    1.0001,
    1.0 + 2.0**-11,
    -(1.0 + 2.0**-11),
    3.0e-8,
    -3.0e-8,
    1.0e-5,
    -6.0e-8,
    65504.0,
    65519.0,
    65520.0,
    -65519.0,
    -1.0e6,
    1.0e6,
    float("inf"),
    float("-inf"),
    float("nan"),
)


def _every_half() -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def _grad() -> np.ndarray:
    # distinct nonzero gradients (no element of the output is 0 unless the comparison makes it 0)
    return (np.arange(1 << 16) % 1000 + 1).astype(np.float16)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint16)


def _wide(value: float) -> np.float64:
    """The host value as the kernel's fp32 tiling field holds it, widened exactly."""
    return np.float64(np.float32(value))


@pytest.fixture(scope="module")
def threshold_backward(built_op: Callable[[str, str], codegen.runner.OpCallable]) -> codegen.runner.OpCallable:
    return built_op("threshold_backward", PRODUCT)


@pytest.fixture(scope="module")
def hardtanh_backward(built_op: Callable[[str, str], codegen.runner.OpCallable]) -> codegen.runner.OpCallable:
    return built_op("hardtanh_backward", PRODUCT)


@pytest.mark.parametrize("threshold", HOST_VALUES)
def test_threshold_backward_float16_matches_the_fp32_comparison_on_every_half(threshold_backward, threshold) -> None:  # type: ignore[no-untyped-def]
    x, g = _every_half(), _grad()
    got = threshold_backward(gradOutput=g, self=x, threshold=threshold)
    with np.errstate(invalid="ignore"):
        want = np.where(x.astype(np.float64) <= _wide(threshold), np.float16(0.0), g)
    assert got.dtype == np.float16
    assert np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize(
    ("low", "high"),
    [(-1.0001, 0.99999), (-(1.0 + 2.0**-11), 1.0 + 2.0**-11), (-6.0e-8, 3.0e-8), (-65519.0, 65519.0),
     (-1.0e6, 65520.0), (1.0, 1.0), (float("-inf"), float("inf")), (float("nan"), 1.0)],
)  # fmt: skip
def test_hardtanh_backward_float16_matches_the_fp32_comparisons_on_every_half(hardtanh_backward, low, high) -> None:  # type: ignore[no-untyped-def]
    x, g = _every_half(), _grad()
    got = hardtanh_backward(gradOutput=g, self=x, min=low, max=high)
    wide = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = np.where((wide > _wide(low)) & (wide < _wide(high)), g, np.float16(0.0))
    assert np.array_equal(_bits(got), _bits(want))


def test_only_inputs_compared_with_host_values_alone_are_compared_in_half() -> None:
    # ThresholdBackward's self and HardtanhBackward's self are read by comparisons only; SigmoidBackward's
    # inputs and SoftshrinkBackward's self (compared as |self|) are not
    _, specs = load_project()

    def narrowed(name: str) -> bool:
        return any(
            i.op == COMPARE_ELEMS for p in compile_all(specs[name])[0].formula.programs(True) for i in p.instructions
        )

    names = ("threshold_backward", "hardtanh_backward", "sigmoid_backward", "softshrink_backward")
    assert [narrowed(n) for n in names] == [True, True, False, False]
