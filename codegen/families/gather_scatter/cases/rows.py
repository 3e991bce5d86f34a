"""The value and status cases of a row scatter-add (``direction: index_add``, ``Tensor.index_add``) on one
product.

Value cases, each run with the atomic strategy where the product allows it and again deterministically
(``ACL_OPT_DETERMINISTIC``; several cores, so every core order must give the same bits): every dtype along
the middle dim of ``[6, 10, 7]`` with 12 index positions (both ends of ``[0, A)`` and repeats; the first
dtype with every index dtype); dims 0 and -1 of a rank-4 self; every position the same (all slices into one);
hostile index values (each index dtype's minimum and maximum, -1, A, A + 1, 2**31, 2**32 + k), which must add
nothing and never fault; 5000 slices into 300 (several windows per core, every core); alpha as INT32, DOUBLE,
1 and 0; a 0-d self, index and source; a 0-d index with a one-slice source; an empty index and source (nothing
launched, out left as it is) and an empty self; a non-contiguous self and out. Values are small integers for
the integer dtypes. Status cases: null pointers (alpha too), the derived status matrix, source or out of
another dtype, out of another shape, dim out of range, a 0-d self with dim 1, an index of rank 2, a source of
another rank or of another extent outside dim, an index count other than source's extent along dim. ``quick``
keeps one representative of each group.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, Case
from codegen.families.gather_scatter.cases.scatter import _positions, _values, dtype_shape_dim_status_cases
from codegen.families.gather_scatter.cases.status import call_status_cases, status_case
from codegen.families.gather_scatter.cases.values import Maker, hostile_indices, key_pairs
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.model import DType

#: alpha of most cases: exact in every float dtype; an integer dtype takes 2 (truncated), so sums stay small.
ALPHA = 2.5


def _params(mk: Maker, self_: np.ndarray, idx: np.ndarray, src: np.ndarray, dim: int, alpha: Any = ALPHA,
            out: Any = None) -> dict[str, Any]:  # fmt: skip
    c = mk.comp
    assert c.src is not None and c.dim is not None and c.alpha is not None
    p: dict[str, Any] = {c.source: self_, c.index: idx, c.src: src, c.dim: dim, c.alpha: alpha}
    if out is not None:
        p[c.dest] = out
    return p


def _source_shape(shape: tuple[int, ...], dim: int, k: int) -> tuple[int, ...]:
    """self's ``shape`` with ``k`` along ``dim``."""
    axis = dim % len(shape)
    return tuple(k if i == axis else e for i, e in enumerate(shape))


def row_value_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases of a row scatter-add (see the module docstring)."""
    first = dtypes[0]
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]

    def calls(dt: str, self_: np.ndarray, idx: np.ndarray, src: np.ndarray, dim: int, name: str,
              alpha: Any = ALPHA) -> Iterator[Case]:  # fmt: skip
        shape = f"{list(self_.shape)} by {list(src.shape)}"
        params = _params(mk, self_, idx, src, dim, alpha)
        yield mk.case(dt, shape, name, params)
        yield mk.case(dt, shape, f"{name}, deterministic", dict(params), deterministic=True, tags=("multicore",))

    for dt, it in key_pairs(dtypes, index_dtypes, quick):
        idx = _positions(mk, (12,), 10, it)
        src = _values(mk, (6, 12, 7), dt)
        yield from calls(f"{dt.name}/{it.name}", _values(mk, (6, 10, 7), dt), idx, src, 1, "dim 1, repeats, ends")
    shape4 = (3, 5, 4, 6)
    for dim in (0, -1) if not quick else (0,):
        k = shape4[dim] + 3
        idx = _positions(mk, (k,), shape4[dim], i64)
        src = _values(mk, _source_shape(shape4, dim, k), first)
        yield from calls(first.name, _values(mk, shape4, first), idx, src, dim, f"dim {dim}")
    zeros = np.zeros((40,), numpy_dtype(i64))
    yield from calls(first.name, _values(mk, (4, 9), first), zeros, _values(mk, (40, 9), first), 0, "all into row 0")
    for it in index_dtypes if not quick else [i64]:
        a = 5
        values = hostile_indices(a, it)
        idx = np.asarray([*values, 1, 2, a - 1], dtype=np.int64)
        idx = np.clip(idx, np.iinfo(numpy_dtype(it)).min, np.iinfo(numpy_dtype(it)).max).astype(numpy_dtype(it))
        src = _values(mk, (idx.size, 3), first)
        yield from calls(f"{first.name}/{it.name}", _values(mk, (a, 3), first), idx, src, 0, f"hostile {values}")
    k = 5000 if not quick else 1200
    idx = _positions(mk, (k,), 300, i64)
    yield from calls(first.name, _values(mk, (300, 20), first), idx, _values(mk, (k, 20), first), 0, "many, cores")
    alphas = [ScalarArg(-2, "INT32"), ScalarArg(0.5, "DOUBLE"), 1.0, 0.0] if not quick else [ScalarArg(-2, "INT32")]
    for alpha in alphas:
        label = f"{alpha.value} as {alpha.dtype}" if isinstance(alpha, ScalarArg) else str(alpha)
        for dt in dtypes if not quick else [first]:
            unsigned = np.issubdtype(numpy_dtype(dt), np.unsignedinteger)
            if unsigned and isinstance(alpha, ScalarArg) and alpha.value < 0:
                continue  # an unsigned self cannot hold a negative alpha
            idx = _positions(mk, (5,), 4, i64)
            yield from calls(dt.name, _values(mk, (4, 6), dt), idx, _values(mk, (5, 6), dt), 0, f"alpha {label}", alpha)
    zero_d = np.asarray(0, dtype=numpy_dtype(i64))
    yield from calls(first.name, _values(mk, (), first), zero_d, _values(mk, (), first), 0, "0-d self, index, source")
    one = np.asarray(2, dtype=numpy_dtype(i64))
    yield from calls(first.name, _values(mk, (4, 5), first), one, _values(mk, (1, 5), first), 0, "0-d index")
    self_ = _values(mk, (4, 5), first)
    empty = np.zeros((0,), numpy_dtype(i64))
    # nothing is launched and out is left as it is: given as self's values, it must hold them (the check
    # compares a single output with the reference, which is self here)
    yield mk.case(
        first.name,
        "[4, 5] by [0, 5]",
        "empty index and source: nothing launched",
        _params(mk, self_, empty, np.zeros((0, 5), numpy_dtype(first)), 0, out=self_.copy()),
    )
    none = np.zeros((0, 5), numpy_dtype(first))
    yield mk.case(
        first.name,
        "[0, 5] by [0, 2]",
        "empty self: nothing launched",
        _params(mk, none, np.asarray([0, 0], numpy_dtype(i64)), _values(mk, (0, 2), first), 1, out=none.copy()),
    )
    if not quick:
        self_t = np.asarray(_values(mk, (7, 6), first).T)  # [6, 7], strides reversed
        idx = _positions(mk, (5,), 6, i64)
        out_full = np.zeros((6, 14), numpy_dtype(first))
        params = _params(mk, self_t, idx, _values(mk, (5, 7), first), 0, out=out_full[:, ::2])
        yield mk.case(first.name, "[6, 7] by [5, 7]", "non-contiguous self and out", params)


def row_status_cases(mk: Maker, dtypes: list[DType], index_dtypes: list[DType]) -> Iterator[Case]:
    """The status cases of a row scatter-add with the first dtype and INT64 indices (else the first)."""
    c = mk.comp
    assert c.src is not None and c.dim is not None and c.alpha is not None
    dt = dtypes[0]
    it = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    label = f"{dt.name}/{it.name}"
    self_ = _values(mk, (4, 6), dt)
    idx = np.asarray([1, 0, 3], dtype=numpy_dtype(it))
    src = _values(mk, (4, 3), dt)
    out = np.zeros((4, 6), numpy_dtype(dt))

    def good(**over: Any) -> dict[str, Any]:
        p = _params(mk, self_, idx, src, 1, out=out)
        p.update(over)
        return p

    status = partial(status_case, mk, label)
    one = _params(mk, _values(mk, (2, 3), dt), np.asarray([1], dtype=numpy_dtype(it)), _values(mk, (1, 3), dt), 0)
    one[c.dest] = np.zeros((2, 3), numpy_dtype(dt))
    yield from call_status_cases(mk, label, good, one, nullable=(c.source, c.index, c.src, c.alpha, c.dest))
    yield from dtype_shape_dim_status_cases(mk, label, good, dt, (4, 3))
    scalar = {c.source: _values(mk, (), dt), c.dest: np.zeros((), numpy_dtype(dt)), c.dim: 1}
    yield status("0-d self, dim 1 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**scalar))
    yield status(f"{c.index} rank 2 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.index: idx.reshape(1, 3)}))
    yield status(
        f"{c.src} rank 1, self rank 2 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.src: _values(mk, (3,), dt)})
    )
    yield status(
        f"{c.src} [5, 3]: extent 5 outside dim, self 4 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.src: _values(mk, (5, 3), dt)}),
    )
    yield status(
        f"{c.index} of 2 elements, {c.src} 3 along dim -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.index: idx[:2]}),
    )
