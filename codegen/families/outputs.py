"""Python-side behaviour of each op family that is not code generation: output allocation for calls."""

from __future__ import annotations

from typing import Any

import numpy as np

from codegen.spec.model import OpSpec


def _fresh(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An output buffer as the framework allocates it: poisoned device memory, never zeros."""
    from codegen.runner import device_memory

    return device_memory(int(np.prod(shape, dtype=np.int64)), dtype, tuple(shape))


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """Allocates the output array a call of ``spec`` needs when the caller passed none.

    Elementwise: the broadcast shape of the inputs, in the dtype NumPy promotes them to (bfloat16 and
    float16 together give float32, as CANN's PromoteType does). Index accumulation: ``[numWeights, D]`` in
    the dtype of ``grad``. The buffer is poisoned (``codegen.runner.device_memory``), not zeroed: the op must
    write every element, as on a device.

    Raises:
        ValueError: the family is unknown.
    """
    from codegen.runner import dtype_of_array, numpy_dtype
    from codegen.spec.model import DType

    if spec.family == "elementwise":
        present = [a for a in arrays.values() if a is not None]
        try:
            shape = np.broadcast_shapes(*(a.shape for a in present)) if present else ()
        except ValueError:
            # Not broadcastable: allocate the first input's shape and let phase 1 report the exact status.
            shape = present[0].shape
        kinds = {dtype_of_array(a) for a in present}
        if len(kinds) == 1:
            dt = kinds.pop()
        elif DType.FLOAT in kinds or kinds == {DType.FLOAT16, DType.BF16}:
            dt = DType.FLOAT
        else:
            dt = sorted(kinds, key=lambda d: d.acl_id)[0]
        return _fresh(shape, numpy_dtype(dt))
    if spec.family == "index_accumulate":
        grad = arrays.get("grad")
        d = grad.shape[-1] if grad is not None and grad.ndim else 0
        dtype = grad.dtype if grad is not None else np.float32
        return _fresh((int(attrs["numWeights"]), d), dtype)
    raise ValueError(f"no output rule for family '{spec.family}'")
