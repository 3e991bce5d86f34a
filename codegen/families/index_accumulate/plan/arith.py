"""The tiling's integer arithmetic: ceiling division, alignment and int64 products and sums saturated at
2^63 - 1, as the generated C++ tiling function computes them."""

from __future__ import annotations


def ceil_div(a: int, b: int) -> int:
    """``a / b`` rounded up (``b`` > 0)."""
    return -(-a // b)


def sat_mul(a: int, b: int) -> int:
    """``a * b`` (non-negative) saturated at 2^63 - 1, the largest int64."""
    return min(a * b, (1 << 63) - 1)


def sat_add(a: int, b: int) -> int:
    """``a + b`` (non-negative) saturated at 2^63 - 1, the largest int64."""
    return min(a + b, (1 << 63) - 1)


def align_up(value: int, align: int) -> int:
    """``value`` rounded up to a multiple of ``align`` (``align`` > 0)."""
    return ceil_div(value, align) * align
