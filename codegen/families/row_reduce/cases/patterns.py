"""Value patterns of the row-reduce cases: +inf, -inf and NaN placed in rows and along a non-last dim, and
the same values in non-contiguous views."""

from __future__ import annotations

import numpy as np

from codegen.families.row_reduce.cases.outputs import infer_outputs
from codegen.spec.model import DType, OpSpec


def special_rows(p: dict[str, np.ndarray], name: str, dt: DType) -> dict[str, np.ndarray]:
    """``p`` with +inf, -inf and NaN placed in rows of ``name`` (shape ``(>= 5, >= 12)``), each row getting its
    own pattern: one +inf, one -inf, a row of only -inf, a NaN, +inf and -inf together; other rows stay
    finite."""
    x = p[name]
    x[0, 3] = np.inf
    x[1, 7] = -np.inf
    x[2, :] = -np.inf
    x[3, 11] = np.nan
    x[4, 0] = np.inf
    x[4, 1] = -np.inf
    return p


def special_lines(p: dict[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """``p`` with +inf, -inf and NaN placed along dim 1 of ``name`` (shape ``(>= 5, >= 12, 3)``), each line
    (outer, inner) of the reduction getting its own pattern: one +inf, one -inf, a line of only -inf, a NaN,
    +inf and -inf together; other lines stay finite."""
    x = p[name]
    x[0, 3, 0] = np.inf
    x[1, 7, 1] = -np.inf
    x[2, :, 2] = -np.inf
    x[3, 11, 0] = np.nan
    x[4, 0, 1] = np.inf
    x[4, 1, 1] = -np.inf
    return p


def non_contiguous(spec: OpSpec, p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The same input values in non-contiguous views and every output a strided view: the first input of
    rank >= 2 the transpose of a transposed storage, every other input (the rows input too) every second
    element of its last dim in a storage twice as wide; each output (its shape and dtype from
    :func:`outputs.infer_outputs`) every second element of a zeroed storage twice as wide (a 0-d one as it is)."""
    got: dict[str, np.ndarray] = {}
    for k, (n, a) in enumerate(p.items()):
        if not isinstance(a, np.ndarray):  # an attr's value (the int_array giving the reduced dims)
            got[n] = a
            continue
        if k == 0 and a.ndim >= 2:
            view = np.empty(a.shape[::-1], a.dtype).T
        elif a.ndim:
            view = np.empty((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)[..., ::2]
        else:
            view = np.empty((), a.dtype)
        view[...] = a
        got[n] = view
    present: dict[str, np.ndarray | None] = {n: a for n, a in p.items() if isinstance(a, np.ndarray)}
    attrs = {n: a for n, a in p.items() if not isinstance(a, np.ndarray)}
    for n, o in infer_outputs(spec, present, attrs).items():
        got[n] = np.zeros((*o.shape[:-1], 2 * o.shape[-1]), o.dtype)[..., ::2] if o.ndim else np.zeros((), o.dtype)
    return got
