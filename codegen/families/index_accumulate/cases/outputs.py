"""The output a call allocates when the caller passed none (the ``infer_output`` hook)."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.families.index_accumulate.compute import IndexAccumulateCompute
from codegen.runner import device_memory
from codegen.spec.model import OpSpec


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: ``[num_rows, D]`` (``num_rows`` the attr the
    spec's ``compute.num_rows`` names, ``D`` the last dim of the ``compute.rows`` input) in the dtype of that
    input, poisoned (:func:`codegen.runner.device_memory`), not zeroed: the op must write every row."""
    compute = spec.compute
    assert isinstance(compute, IndexAccumulateCompute)
    rows = arrays.get(compute.rows)
    d = rows.shape[-1] if rows is not None and rows.ndim else 0
    dtype = rows.dtype if rows is not None else np.float32
    shape = (int(attrs[compute.num_rows]), d)
    return device_memory(int(np.prod(shape, dtype=np.int64)), dtype, shape)
