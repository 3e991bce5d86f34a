"""The outputs a foreach call allocates when the caller passed none (``infer_outputs``)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from codegen.families.foreach.compute import ForeachCompute
from codegen.runner import device_memory
from codegen.spec.model import OpSpec


def infer_outputs(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The output list: one poisoned array (:func:`codegen.runner.device_memory`) of each input tensor's shape
    and dtype, in list order (the op must write every element; an empty tensor has none), as the list's tuple;
    None in place of the list when the input list is null, and an element None where the input's is (phase 1
    answers 161001 for the null one)."""
    comp = spec.compute
    assert isinstance(comp, ForeachCompute)
    source = cast("tuple[np.ndarray | None, ...] | None", arrays.get(comp.source))
    if source is None:
        return cast("dict[str, np.ndarray]", {comp.dest: None})
    made = tuple(
        None if a is None else device_memory(int(np.prod(a.shape, dtype=np.int64)), a.dtype, tuple(a.shape))
        for a in source
    )
    return cast("dict[str, np.ndarray]", {comp.dest: made})


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output list of :func:`infer_outputs` (the op's one output)."""
    return infer_outputs(spec, arrays, attrs)[spec.output_names[0]]
