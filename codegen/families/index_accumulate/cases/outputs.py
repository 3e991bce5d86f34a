"""The output a call allocates when the caller passed none (the ``infer_output`` hook)."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.runner import device_memory
from codegen.spec.model import OpSpec


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: ``[numWeights, D]`` in the dtype of
    ``grad``, poisoned (:func:`codegen.runner.device_memory`), not zeroed: the op must write every row."""
    grad = arrays.get("grad")
    d = grad.shape[-1] if grad is not None and grad.ndim else 0
    dtype = grad.dtype if grad is not None else np.float32
    shape = (int(attrs["numWeights"]), d)
    return device_memory(int(np.prod(shape, dtype=np.int64)), dtype, shape)
