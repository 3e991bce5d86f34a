"""The status cases of an index-accumulate op: null pointers, the derived dtype/rank/format matrix, ranks
outside the spec's range, mismatched shapes and product limits just past their boundary."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.families.index_accumulate.cases.limits import first_failing_dim
from codegen.families.index_accumulate.cases.maker import CaseMaker, dtype_label
from codegen.runner import numpy_dtype
from codegen.spec.model import DType


def status_cases(mk: CaseMaker, rows_all: list[DType], idx_all: list[DType]) -> Iterator[Case]:
    """The status cases of the first rows dtype of ``rows_all`` with INT64 indices (else the first of
    ``idx_all``) in the atomic strategy; the product limits with INT32 and INT64 indices."""
    g = rows_all[0]
    i = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    dt = dtype_label(g, i)
    grad = mk.grad((4, 6), g)
    idx = mk.indices((4,), i, 5, spread=0)
    out = np.zeros((5, 6), numpy_dtype(g))

    def good(**over: Any) -> dict[str, Any]:
        p = mk.params(grad, idx, 5, padding=1, scaling=False, out=out)
        p.update(over)
        return p

    for name in (mk.rows, mk.index, mk.out):
        yield mk.status(dt, f"null {name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{name: None}))
    yield mk.status(dt, "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), "null_workspace_size")
    yield mk.status(dt, "null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), "null_executor")
    both = "null_workspace_size_and_executor"
    yield mk.status(dt, "null workspaceSize and executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), both)
    yield mk.status(dt, "phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, good(), "phase2_twice")
    # The derived matrix (every tensor's unsupported dtypes, rank bounds, rejected formats, wrong output dims,
    # the null order) from one row and one index: a 0-d index then breaks the rank rule alone.
    from codegen.check.status_matrix import status_matrix

    one = mk.params(mk.grad((1, 6), g), mk.indices((1,), i, 5, spread=0), 5, padding=1, scaling=False, out=out)
    yield from status_matrix(mk.spec, mk.product, one, dt)
    # ranks outside the spec's range
    rows_t, index_t = mk.spec.tensor(mk.rows), mk.spec.tensor(mk.index)
    too_many = (*((1,) * (rows_t.rank[1] - 1)), 4, 6)
    p = good(**{mk.rows: mk.grad(too_many, g)})
    yield mk.status(dt, f"grad rank {rows_t.rank[1] + 1} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.index: idx.reshape((1,) * index_t.rank[1] + (4,))})
    yield mk.status(dt, f"indices rank {index_t.rank[1] + 1} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    if rows_t.rank[0] > 1:
        p = good(**{mk.rows: mk.grad((6,), g), mk.index: idx[:1]})
        yield mk.status(dt, "grad rank 1 -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    # shape relations
    p = good(**{mk.index: mk.indices((5,), i, 5, spread=0)})
    yield mk.status(dt, "grad rows != indices count -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((4, 6), numpy_dtype(g))})
    yield mk.status(dt, "out rows != numWeights -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((5, 7), numpy_dtype(g))})
    yield mk.status(dt, "out columns != D -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    p = good(**{mk.out: np.zeros((5, 6, 1), numpy_dtype(g))})
    yield mk.status(dt, "out rank 3 -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    # product limits just past their boundary
    for ii in [d for d in (DType.INT32, DType.INT64) if d in idx_all]:
        first_bad = first_failing_dim(mk, g, ii, 64, 3)
        if first_bad is None:
            continue
        p = mk.params(
            mk.grad((3, first_bad), g),
            mk.indices((3,), ii, 64, spread=0),
            64,
            scaling=True,
            out=np.zeros((64, first_bad), numpy_dtype(g)),
        )
        yield mk.status(dtype_label(g, ii), f"scaling limit: D {first_bad} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
