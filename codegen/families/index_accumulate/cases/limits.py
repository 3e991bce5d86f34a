"""The spec's product limits in the cases: whether a call passes them, the smallest D they reject, and the
value cases at their boundary."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import Case
from codegen.check.constraints import TensorStandIn, violates
from codegen.families.index_accumulate.cases.maker import NO_PADDING, CaseMaker, dtype_label
from codegen.runner import dtype_of_array, numpy_dtype
from codegen.spec.expr import ExprEvalError
from codegen.spec.model import DType


def _limit_env(mk: CaseMaker, grad: np.ndarray, indices: np.ndarray, params: dict[str, Any]) -> dict[str, object]:
    env: dict[str, Any] = {k: v for k, v in params.items() if not isinstance(v, np.ndarray) and v is not None}
    if mk.num_rows in env:
        env[mk.num_rows] = int(env[mk.num_rows])
    if mk.padding and mk.padding in env:
        pad = int(env[mk.padding]) & ((1 << 64) - 1)
        env[mk.padding] = pad - (1 << 64) if pad >= 1 << 63 else pad
    env[mk.rows] = TensorStandIn(grad.shape, dtype_of_array(grad))
    env[mk.index] = TensorStandIn(indices.shape, dtype_of_array(indices))
    env["coreNum"] = mk.product.vector_core_num
    env["ubBytes"] = mk.product.ub_bytes
    return env


def accepted(mk: CaseMaker, grad: np.ndarray, indices: np.ndarray, params: dict[str, Any]) -> bool:
    """Whether no product constraint of the spec rejects the call ``params`` describes."""
    env = _limit_env(mk, grad, indices, params)
    applicable = [c for c in mk.spec.constraints if mk.product.name in c.products]
    return not any(violates(c, env) for c in applicable)


def first_failing_dim(mk: CaseMaker, g: DType, i: DType, num_rows: int, n: int) -> int | None:
    """The smallest D (up to 2**20) that some product constraint of the spec rejects, or None."""
    applicable = [c for c in mk.spec.constraints if mk.product.name in c.products]
    if not applicable:
        return None

    def rejected(d: int) -> bool:
        grad = np.zeros((n, 0), numpy_dtype(g))
        grad_shape = (n, d)
        idx = np.zeros((n,), numpy_dtype(i))
        params = mk.params(None, None, num_rows, padding=NO_PADDING, scaling=True)
        env = _limit_env(mk, grad, idx, params)
        env[mk.rows] = TensorStandIn(grad_shape, dtype_of_array(grad))
        try:
            return any(violates(c, env) for c in applicable)
        except ExprEvalError:
            return False

    lo, hi = 1, 1 << 20
    if not rejected(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if rejected(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def limit_value_cases(mk: CaseMaker, g: DType, idx_all: list[DType], det: bool) -> Iterator[Case]:
    """For INT32 and INT64 indices (those of ``idx_all``), rows dtype ``g`` and 64 rows: the largest D a product
    limit of the spec accepts with count scaling, and the first D it rejects without scaling (the limit not
    applied); none when no limit rejects a D up to 2**20."""
    for i in [d for d in (DType.INT32, DType.INT64) if d in idx_all]:
        num_rows = 64
        first_bad = first_failing_dim(mk, g, i, num_rows, 3)
        if first_bad is None or first_bad < 2:
            continue
        d = first_bad - 1
        p = mk.params(mk.grad((3, d), g), mk.indices((3,), i, num_rows, spread=0), num_rows, scaling=True)
        yield mk.case(dtype_label(g, i), f"[3, {d}]", f"scaling limit: largest D accepted ({d})", p, det)
        p = mk.params(mk.grad((3, first_bad), g), mk.indices((3,), i, num_rows, spread=0), num_rows, scaling=False)
        yield mk.case(
            dtype_label(g, i), f"[3, {first_bad}]", f"D {first_bad} without scaling (limit not applied)", p, det
        )
