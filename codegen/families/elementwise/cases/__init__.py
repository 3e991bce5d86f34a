"""Check cases of the elementwise family: value cases over shapes, dtypes, attrs and broadcasting, status
cases of every documented error, and the 64-bit offset cases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from codegen.families.elementwise.cases.offsets import check_offsets, probe_ranges
from codegen.families.elementwise.cases.suite import check_cases
from codegen.runner import device_memory, dtype_of_array, numpy_dtype
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["check_cases", "check_offsets", "derived_bound", "infer_output", "probe_ranges"]


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: the broadcast shape of the inputs (0-d for
    the mean or sum of a reduce epilogue), in the dtype NumPy promotes them to (bfloat16 and float16
    together give float32, as CANN's PromoteType does).
    The buffer is poisoned (:func:`codegen.runner.device_memory`), not zeroed: the op must write every
    element, as on a device."""
    present = [a for a in arrays.values() if a is not None]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in present)) if present else ()
    except (ValueError, RuntimeError):
        # Not broadcastable (or of more axes than NumPy broadcasts, 32: a RuntimeError; aclnn takes at most
        # 8): allocate the first input's shape and let phase 1 report the exact status.
        shape = present[0].shape
    kinds = {dtype_of_array(a) for a in present}
    if not kinds:
        # every input is null: phase 1 answers 161001 before it reads the output, which only has to exist
        dt = DType.FLOAT
    elif len(kinds) == 1:
        dt = kinds.pop()
    elif DType.FLOAT in kinds or kinds == {DType.FLOAT16, DType.BF16}:
        dt = DType.FLOAT
    else:
        dt = sorted(kinds, key=lambda d: d.acl_id)[0]
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_NONE, reduce_kind

    if reduce_kind(spec, attrs) != REDUCE_KIND_NONE:
        shape = ()  # a reduce epilogue's mean or sum: a 0-d output
    return device_memory(int(np.prod(shape, dtype=np.int64)), numpy_dtype(dt), tuple(shape))


def derived_bound(
    spec: OpSpec, product: Product, params: dict[str, Any], expected: np.ndarray, lazy: bool = False
) -> Any:
    """The per-element error bound of one call (:func:`codegen.families.elementwise.bound.derived_bound`):
    a float64 array of the output shape, with ``lazy`` possibly an ``ElementBound`` evaluated where asked."""
    from codegen.families.elementwise import bound

    return bound.derived_bound(spec, product, params, expected, lazy)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.elementwise import cases as _self
    from codegen.registry import contract

    _contract: contract.Cases = _self
    _derived_bound: contract.CasesDerivedBound = _self
    _probe_ranges: contract.CasesProbeRanges = _self
