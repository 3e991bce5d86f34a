"""NumPy reference of aclnnIndexFillTensor, written from CANN's document and L2 code (ops-nn
index/index_fill_d/docs/aclnnIndexFillTensor&aclnnInplaceIndexFillTensor.md and
index/index_fill_d/op_api/aclnn_index_fill_tensor.cpp).

``out`` is ``self`` with every slice ``self[..., i, ...]`` along ``dim`` whose position ``i`` is in ``index``
replaced by ``value``: with ``self`` viewed as ``[P, A, Q]`` around ``dim`` (``A = self.shape[dim]``),
``out[p, a, q] = fill`` when ``a`` is in ``index`` (a value in ``[-A, 0)`` counting from the end) and
``self[p, a, q]`` otherwise. Duplicates fill the same slice twice (no effect). A 0-d ``self`` counts as one
element along dim 0 (``A = 1``). CANN's phase 1 refuses any index value outside ``[-A, A)`` (161002), so the
reference raises for one.

The fill: on Ascend910B and Ascend910_93 CANN's L2 code takes ``value->ToFloat()`` (the value rounded to
float32) and writes it through a float32 assist tensor cast to self's dtype (``l0op::Cast``), so the value
reaches ``out`` as ``float32(value)`` converted to self's dtype: rounded to nearest for FLOAT16 and BF16,
truncated toward zero for the integer dtypes (exact for every integral float32 in range), nonzero -> 1 for
BOOL. ``float32_value=False`` skips the float32 rounding (Ascend950, where CANN converts the aclScalar to
self's dtype directly).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fill_value(value: float, dtype: np.dtype, float32_value: bool = True) -> float:
    """The value the filled slices hold, as a float64: ``value`` rounded to float32 (when ``float32_value``),
    then to ``dtype`` (a NumPy dtype: float16, ml_dtypes' bfloat16, float32, float64, an integer type or
    bool). An integer dtype takes the value truncated toward zero; bool takes ``value != 0``.

    Raises:
        ValueError: the value (after the float32 rounding) is not finite or outside an integer dtype's range.
    """
    v = float(np.float32(value)) if float32_value else float(value)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return 1.0 if v != 0 else 0.0
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        if not np.isfinite(v) or not info.min <= np.trunc(v) <= info.max:
            raise ValueError(f"value {value} does not fit {dt}")
        return float(np.trunc(v))
    return float(np.asarray(v, dtype=np.float64).astype(dt).astype(np.float64))


def filled_positions(axis_len: int, index: Sequence[int]) -> list[int]:
    """The positions along dim that ``index`` names (negatives wrapped: ``i + A`` for ``i`` in ``[-A, 0)``).

    Raises:
        ValueError: a value outside ``[-A, A)`` (CANN's phase 1 returns 161002 for it).
    """
    out = []
    for i in index:
        i = int(i)
        if not -axis_len <= i < axis_len:
            raise ValueError(f"index value {i} outside [{-axis_len}, {axis_len})")
        out.append(i + axis_len if i < 0 else i)
    return out


def reference(self: np.ndarray, dim: int, index: Sequence[int], value: float) -> np.ndarray:
    """``self`` with the slices along ``dim`` that ``index`` names set to ``value`` (float64; bool as 0/1).

    Args:
        self: any shape of rank 0 to 8, any of the op's dtypes (its NumPy dtype decides the fill's rounding,
            :func:`fill_value`).
        dim: in ``[-rank, rank)`` (a 0-d self counts as rank 1).
        index: the positions along dim (an aclIntArray's values), each in ``[-A, A)``; may be empty.
        value: the aclScalar's value.

    Returns:
        float64 of ``self``'s shape.

    Raises:
        ValueError: ``dim`` or an index value out of range.
    """
    src = np.asarray(self)
    out = src.astype(np.float64)
    if src.size == 0 or len(index) == 0:
        return out
    view = out.reshape(src.shape or (1,))
    rank = view.ndim
    if not -rank <= dim < rank:
        raise ValueError(f"dim {dim} outside [{-rank}, {rank})")
    axis = dim % rank
    fill = fill_value(value, src.dtype)
    for pos in filled_positions(view.shape[axis], index):
        sl: list[slice | int] = [slice(None)] * rank
        sl[axis] = pos
        view[tuple(sl)] = fill
    return view.reshape(src.shape)


def tolerance(self: np.ndarray, dim: int, index: Sequence[int], value: float) -> tuple[float, float]:
    """``(atol, rtol) = (0, 0)``: every element is a copy of self's or the fill value in self's dtype, so the
    output must equal the reference exactly."""
    return 0.0, 0.0
