"""The cases of a fill (``compute.direction: fill``, aclnnIndexFillTensor) on one product.

Value cases: every source dtype with positions at both ends, repeated and negative along the middle dim; every
dim of a rank-4 source (positive and negative); slices of 1, 7, 8, 9 and 33 elements in every byte width;
every position filled (nothing of the source read); adjacent positions (one fill run across them) and a fill
run that continues from one ``[A, Q]`` block into the next; slices larger than a tile; 5000 positions (the
binary search over many); the output over every core; an empty index (the source copied); a 0-d source;
empty sources (nothing launched, even with an index outside the empty extent or a dim past the rank, as CANN
skips those checks); value aclScalars of other dtypes; non-contiguous source and output. The fill value is one
that float32 holds exactly, so the products that round it to float32 first (Ascend910B/910_93) and the one
that does not (Ascend950) fill alike. Status cases: null source, index, value and output, the shared misuses,
the derived matrix, an output of another dtype or shape, dim out of range, and index values outside ``[-A,
A)`` (161002, as CANN; hostile values: the int64 limits, ``A``, ``-A - 1``, ``2**31``, ``2**32 + k``).
``quick`` keeps one representative of each group.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, Case
from codegen.families.gather_scatter.cases.status import call_status_cases, status_case
from codegen.families.gather_scatter.cases.values import Maker
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.model import DType

#: The fill value of most cases: float32, FLOAT16 and BF16 hold it exactly; an integer dtype takes -3, BOOL true.
FILL_VALUE = -3.5
#: The fill value of most cases of an unsigned source (UINT8), which cannot hold -3: it takes 3.
UNSIGNED_FILL_VALUE = 3.5


def fill_params(
    mk: Maker, src: np.ndarray, dim: int, index: list[int], value: Any = None, out: np.ndarray | None = None
) -> dict[str, Any]:
    """The call's parameters by the spec's names (``out`` only when given); ``value`` None is
    :data:`FILL_VALUE`, or :data:`UNSIGNED_FILL_VALUE` for an unsigned integer ``src``."""
    c = mk.comp
    assert c.dim is not None and c.value is not None
    if value is None:
        value = UNSIGNED_FILL_VALUE if np.issubdtype(src.dtype, np.unsignedinteger) else FILL_VALUE
    p: dict[str, Any] = {c.source: src, c.dim: dim, c.index: [int(i) for i in index], c.value: value}
    if out is not None:
        p[c.dest] = out
    return p


def fill_value_cases(mk: Maker, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value cases (see the module docstring)."""
    rng = mk.rng
    first = dtypes[0]

    def case(dt: DType, src: np.ndarray, name: str, params: dict[str, Any]) -> Case:
        return mk.case(dt.name, str(list(src.shape)), name, params)

    ends = [0, 9, 9, -1, 3, -10, 4, 0]  # both ends, repeated, negative (-1 is 9, -10 is 0)
    for dt in dtypes if not quick else dtypes[:1]:
        src = mk.source((4, 10, 7), dt)
        yield case(dt, src, f"dim 1, positions {ends}", fill_params(mk, src, 1, ends))
    if quick:
        dtypes = [first]
    shape4 = (3, 5, 4, 2)
    for dim in (0, 1, 2, 3, -1, -4) if not quick else (0, -1):
        a = shape4[dim]
        index = [a - 1, 0, -1, a // 2]
        src = mk.source(shape4, first)
        yield case(first, src, f"dim {dim}, positions {index}", fill_params(mk, src, dim, index))
    widths = {d.itemsize: d for d in dtypes}
    for q in (1, 7, 8, 9, 33) if not quick else (7,):
        for dt in widths.values():
            src = mk.source((2, 6, q), dt)
            yield case(dt, src, f"slices of {q} elements", fill_params(mk, src, 1, [0, 5, 2, 2, -3]))
    src = mk.source((3, 5, 4), first)
    yield case(first, src, "every position filled", fill_params(mk, src, 1, [4, 3, 2, 1, 0]))
    yield case(first, src, "adjacent positions, a run across blocks", fill_params(mk, src, 1, [4, 0, 1, 3]))
    q = mk.product.ub_bytes // (2 * first.itemsize) + 1000
    src = mk.source((2, 3, q), first)
    yield case(first, src, "slices larger than a tile", fill_params(mk, src, 1, [1]))
    src = mk.source((3, 6000), first)
    many = [int(v) for v in rng.integers(-6000, 6000, 5000)]
    yield case(first, src, "5000 positions", fill_params(mk, src, -1, many))
    if not quick:
        src = mk.source((64, 300, 16), first)
        yield case(first, src, "over every core", fill_params(mk, src, 1, [int(v) for v in rng.integers(0, 300, 40)]))
    src = mk.source((5, 3), first)
    yield case(first, src, "empty index: self copied", fill_params(mk, src, 0, []))
    scalar = mk.source((), first)
    for dim, index in ((0, [0]), (-1, [-1, 0])):
        yield case(first, scalar, f"0-d self, dim {dim}, positions {index}", fill_params(mk, scalar, dim, index))
    # an empty self launches nothing (out left as it is: zeros here); CANN checks no dim or position then
    for shape, dim, index in (((0, 5), 1, [1, 2]), ((3, 0, 2), 1, [7]), ((4, 0), 5, [0])):
        src = mk.source(shape, first)
        out = np.zeros(shape, numpy_dtype(first))
        yield case(first, src, f"empty self, dim {dim}, positions {index}", fill_params(mk, src, dim, index, out=out))
    for value in (
        ScalarArg(7, "INT32"),
        ScalarArg(True, "BOOL"),
        ScalarArg(-0.25, "DOUBLE"),
        ScalarArg(1.5, "FLOAT16"),
    ):
        for dt in widths.values() if not quick else [first]:
            src = mk.source((4, 6), dt)
            yield case(dt, src, f"value {value.value} as {value.dtype}", fill_params(mk, src, 1, [5, 0], value))
    if not quick:
        src_t = np.asarray(mk.source((7, 6), first).T)  # [6, 7], strides reversed
        full = np.zeros((6, 14), numpy_dtype(first))
        yield case(first, src_t, "non-contiguous self and out", fill_params(mk, src_t, 1, [6, 0, 3], out=full[:, ::2]))


def fill_status_cases(mk: Maker, dtypes: list[DType]) -> Iterator[Case]:
    """The status cases with the first source dtype (see the module docstring)."""
    c = mk.comp
    assert c.dim is not None and c.value is not None
    dt = dtypes[0]
    label = dt.name
    src = mk.source((4, 6), dt)
    out = np.zeros((4, 6), numpy_dtype(dt))

    def good(**over: Any) -> dict[str, Any]:
        p = fill_params(mk, src, 1, [1, 0, 3], out=out)
        p.update(over)
        return p

    one = fill_params(mk, mk.source((2, 3), dt), 0, [1], out=np.zeros((2, 3), numpy_dtype(dt)))
    yield from call_status_cases(mk, label, good, one, (c.source, c.index, c.value, c.dest))
    other = next(d for d in (DType.INT32, DType.FLOAT) if d is not dt)
    yield status_case(
        mk,
        label,
        f"{c.dest} {other.name} (self {dt.name}) -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        good(**{c.dest: np.zeros((4, 6), numpy_dtype(other))}),
    )
    for shape in ((4, 7), (6, 4), (4, 6, 1)):
        yield status_case(
            mk,
            label,
            f"{c.dest} {list(shape)} (want [4, 6]) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{c.dest: np.zeros(shape, numpy_dtype(dt))}),
        )
    for dim in (2, -3, 2**40):
        yield status_case(
            mk, label, f"dim {dim} of a rank-2 self -> 161002", ACLNN_ERR_PARAM_INVALID, good(**{c.dim: dim})
        )
    zero_d = {c.source: mk.source((), dt), c.dest: np.zeros((), numpy_dtype(dt))}
    yield status_case(mk, label, "0-d self, dim 1 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**zero_d, **{c.dim: 1}))
    yield status_case(
        mk, label, "0-d self, position 1 -> 161002", ACLNN_ERR_PARAM_INVALID, good(**zero_d, **{c.dim: 0, c.index: [1]})
    )
    info = np.iinfo(np.int64)
    for v in (6, -7, int(info.max), int(info.min), 2**31, 2**32 + 2, -(2**32) + 2):
        yield status_case(
            mk,
            label,
            f"position {v} along an extent of 6 -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            good(**{c.index: [0, v]}),
        )
