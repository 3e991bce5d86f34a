"""The status cases of a row gather: null pointers, the derived status matrix, an out of another dtype or
shape, and for an attr dim: dim out of range, an index of rank 2 and a 0-d source with more than one index."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.check.status_matrix import status_matrix
from codegen.families.gather_scatter.cases.values import Maker
from codegen.runner import numpy_dtype
from codegen.spec.model import DType


def status_case(mk: Maker, label: str, name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
    """An error case of ``mk``'s op and product: the call ``params`` (``mode``: a phase-1/phase-2 misuse the
    runner makes, see :class:`codegen.check.cases.Case`) must return status ``code``."""
    return Case(mk.spec.snake, mk.product.name, label, "error", name, params, expect_status=code, mode=mode)


def call_status_cases(
    mk: Maker,
    label: str,
    good: Callable[..., dict[str, Any]],
    one: dict[str, Any],
    nullable: tuple[str, ...] | None = None,
) -> Iterator[Case]:
    """The status cases every API of the family has, on the valid call ``good()`` makes (``good(**over)`` with
    parameters replaced): each of ``nullable`` (default: the source, the index and the output) null (161001),
    a null workspace size or executor (161001), phase 2 run twice (161002), then the derived status matrix on
    the one-element call ``one``."""
    c = mk.comp
    for name in nullable or (c.source, c.index, c.dest):
        yield status_case(mk, label, f"null {name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(**{name: None}))
    for mode in ("null_workspace_size", "null_executor"):
        yield status_case(mk, label, f"{mode.replace('_', ' ')} -> 161001", ACLNN_ERR_PARAM_NULLPTR, good(), mode)
    yield status_case(mk, label, "phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, good(), "phase2_twice")
    yield from status_matrix(mk.spec, mk.product, one, label)


def status_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType]) -> Iterator[Case]:
    """The status cases with the first source dtype and INT64 indices (else the first index dtype)."""
    c = mk.comp
    dt = dtypes[0]
    it = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    label = f"{dt.name}/{it.name}"
    attr_dim = c.dim is not None
    src = mk.source((4, 6), dt)
    idx = mk.index([1, 0, 3], it)
    want = (4, 3) if attr_dim else c.out_shape((4, 6), (3,))
    out = np.zeros(want, numpy_dtype(dt))

    def good(**over: Any) -> dict[str, Any]:
        p = mk.params(src, idx, 1, out)
        p.update(over)
        return p

    status = partial(status_case, mk, label)
    one_out = (1, 3) if attr_dim else c.out_shape((2, 3), (1,))
    one = mk.params(mk.source((2, 3), dt), mk.index([1], it), 0, np.zeros(one_out, numpy_dtype(dt)))
    yield from call_status_cases(mk, label, good, one)
    other = next(d for d in (DType.INT32, DType.FLOAT) if d is not dt)
    yield status(
        f"{c.dest} {other.name} (self {dt.name}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.dest: np.zeros(want, numpy_dtype(other))}),
    )
    if attr_dim:
        wrong = [(4, 4), (3, 3), (4, 3, 1)]
    else:  # the first and the last extent one more, a trailing 1 (each once: a 1-d out has one extent)
        wrong = list(dict.fromkeys([(want[0] + 1, *want[1:]), (*want[:-1], want[-1] + 1), (*want, 1)]))
    for shape in wrong:
        yield status(
            f"{c.dest} {list(shape)} (want {list(want)}) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{c.dest: np.zeros(shape, numpy_dtype(dt))}),
        )
    if c.dim is None:
        return
    dim_name = c.dim
    for dim in (2, -3, 2**40):
        yield status(f"dim {dim} of a rank-2 self -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{dim_name: dim}))
    yield status(
        "0-d self, dim 1 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(
            **{
                c.source: mk.source((), dt),
                dim_name: 1,
                c.index: mk.index([0], it),
                c.dest: np.zeros((), numpy_dtype(dt)),
            }
        ),
    )
    yield status(f"{c.index} rank 2 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.index: idx.reshape(1, 3)}))
    scalar = mk.source((), dt)
    yield status(
        "0-d self with 2 indices -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.source: scalar, c.index: mk.index([0, 0], it), dim_name: 0, c.dest: np.zeros((), numpy_dtype(dt))}),
    )
