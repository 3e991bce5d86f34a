"""The elementwise reduce epilogue's plan facts: the ``reduceKind`` encoding, the workspace slot of a core's
partial, and the fp32 buffers a tile budgets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.families.elementwise.compute import ElementwiseCompute, ReduceEpilogue
from codegen.spec.model import OpSpec

#: Bytes of one core's partial in the workspace: one 32-byte block per core, so no two cores share a block.
PARTIAL_SLOT_BYTES = 32
#: fp32 buffers of a tile's length a reduce epilogue holds: the accumulator each tile's formula values are
#: added into (``Add``, no wait for the scalar unit per tile) and ReduceSum's work buffer for the one sum of
#: the accumulator at the end of the core's tiles.
REDUCE_FP32_BUFFERS = 2
#: ``reduceKind`` tiling field values (the kernel's encoding; the attr values come from the spec).
REDUCE_KIND_NONE, REDUCE_KIND_SUM, REDUCE_KIND_MEAN = 0, 1, 2


def reduce_of(spec: OpSpec) -> ReduceEpilogue | None:
    """The spec's whole-tensor reduction epilogue (``compute.reduce``), or None."""
    compute = spec.compute
    return compute.reduce if isinstance(compute, ElementwiseCompute) else None


def reduce_kind(spec: OpSpec, attrs: Mapping[str, Any]) -> int:
    """The ``reduceKind`` of a call with attr values ``attrs`` (missing: the attr's default):
    :data:`REDUCE_KIND_SUM` / :data:`REDUCE_KIND_MEAN` for the epilogue's sum / mean values, else
    :data:`REDUCE_KIND_NONE` (also for a spec without an epilogue)."""
    red = reduce_of(spec)
    if red is None:
        return REDUCE_KIND_NONE
    value = attrs.get(red.attr, spec.attr(red.attr).default)
    return {red.sum: REDUCE_KIND_SUM, red.mean: REDUCE_KIND_MEAN}.get(value, REDUCE_KIND_NONE)
