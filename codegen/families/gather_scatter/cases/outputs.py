"""The output a call allocates when the caller passed none (the ``infer_output`` hook)."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.families.gather_scatter.model import GatherScatterCompute
from codegen.runner import device_memory
from codegen.spec.model import OpSpec


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The shape of the family's rule (:meth:`GatherScatterCompute.out_shape`), in the source's dtype,
    poisoned (:func:`codegen.runner.device_memory`): the op must write every element.

    Two calls get another output: one whose source or index is None (a null pointer: an empty FLOAT array,
    so that the aclnn API answers 161001 for the null tensor), and one whose source is empty but whose index
    is not (zeros: the aclnn API launches nothing there and leaves the output as it is, and every index is
    outside the empty source, which the family defines as a row of zeros; the poison would be returned as
    the result). A fill's and a scatter-add's output has the source's shape.
    """
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute)
    if comp.fill or comp.scatter:  # the source's shape; an empty source launches nothing (zeros, as above)
        fill_src = arrays.get(comp.source)
        if fill_src is None:
            return device_memory(0, np.float32, (0,))
        if fill_src.size == 0:
            return np.zeros(fill_src.shape, fill_src.dtype)
        return device_memory(int(fill_src.size), fill_src.dtype, tuple(fill_src.shape))
    src, idx = arrays.get(comp.source), arrays.get(comp.index)
    if src is None or idx is None:
        return device_memory(0, np.float32, (0,))
    dim = attrs.get(comp.dim) if comp.dim is not None else None
    try:
        shape = comp.out_shape(tuple(src.shape), tuple(idx.shape), None if dim is None else int(dim))
    except ValueError:  # dim out of range: the aclnn API answers 161002 for it
        return device_memory(0, src.dtype, (0,))
    count = int(np.prod(shape, dtype=np.int64))
    if src.size == 0:
        return np.zeros(shape, src.dtype)
    return device_memory(count, src.dtype, shape)
