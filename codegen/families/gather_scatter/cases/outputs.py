"""The output a call allocates when the caller passed none (the ``infer_output`` hook)."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.families.gather_scatter.compute import GatherScatterCompute
from codegen.runner import device_memory
from codegen.spec.model import OpSpec


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The shape of the family's rule (:meth:`GatherScatterCompute.out_shape`), in the source's dtype,
    poisoned (:func:`codegen.runner.device_memory`): the op must write every element.

    Raises:
        ValueError: the source or the index is missing.
    """
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute)
    src, idx = arrays.get(comp.source), arrays.get(comp.index)
    if src is None or idx is None:
        raise ValueError(f"{spec.op}: the output shape needs {comp.source} and {comp.index}")
    dim = int(attrs[comp.dim]) if comp.dim is not None else None
    shape = comp.out_shape(tuple(src.shape), tuple(idx.shape), dim)
    return device_memory(int(np.prod(shape, dtype=np.int64)), src.dtype, shape)
