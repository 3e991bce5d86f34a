"""What the elementwise planner decides that the cases build on: the reduce epilogue, the input whose shape
the output takes, and an element count the tiling splits unevenly over several cores."""

from __future__ import annotations

from typing import Any

from codegen.spec.model import DType, OpSpec, Product


def reduce_of(spec: OpSpec) -> Any:
    """The spec's reduce epilogue (:func:`codegen.families.elementwise.plan.reduce_of`)."""
    from codegen.families.elementwise.plan.reduce import reduce_of as plan_reduce_of

    return plan_reduce_of(spec)


def _multicore_length(spec: OpSpec, product: Product, dt: DType) -> int:
    """An element count the elementwise tiling splits over several cores (up to 5, at least 2) with an
    uneven split: the first ``blocks % cores`` cores take one 32-byte block more, and the last block is
    partial. The count follows the tiling rule (cores = ceil(bytes / min_bytes_per_core), at most the
    product's vector cores), so the ``--quick`` matrix, too, catches a wrong per-core offset or tail."""
    block = 32 // dt.itemsize
    cores = max(2, min(product.vector_core_num, 5))
    min_bytes = spec.tiling.min_bytes_per_core
    n = ((cores - 1) * min_bytes + min_bytes // 2) // dt.itemsize + 3
    while -(-n // block) % cores == 0 or n % block == 0:
        n += block
    return n


def _shape_anchor(spec: OpSpec) -> str | None:
    """The input whose shape the output takes (``shape: self``), or None for a broadcast shape."""
    from codegen.families.elementwise.plan.shape import shape_rule

    kind, args = shape_rule(spec)
    return args[0] if kind == "like" else None
