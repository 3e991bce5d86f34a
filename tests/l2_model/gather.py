"""The independent model of the aclnn L2 contract of a gather_scatter-family op that gathers rows (as
aclnnIndexSelect: ``out[p, k, q] = source[p, index[k], q]`` with the source viewed as ``[P, A, Q]`` around
``dim``).

It reads only the :class:`~codegen.spec.model.OpSpec` (tensors, attrs, constraints and the roles of
``compute``: ``source``, ``index``, ``dest``, ``dim``) and the catalogue's :class:`~codegen.spec.model.Product`.
The rules are CANN's (hicann/ops-nn ``index/gather_v2/op_api/aclnn_index_select.cpp`` and
``index/gather_v2/docs/aclnnIndexSelect.md``), in its order:

1. a null tensor: 161001;
2. a dtype outside the tensor's list for the product (BF16 only where the product has it); an output whose
   dtype is not the source's; an index dtype outside its list: 161002;
3. a storage format outside the tensor's ``formats`` (CANN refuses the private formats): 161002;
4. shapes: a 0-d source with an output that is not 0-d; a rank outside the tensor's range (source at most 8,
   index at most 1); ``dim`` outside ``[-r, r)`` with ``r`` the source's rank (1 for a 0-d source); and,
   only when neither the source nor the index is empty, an output whose shape is not the source's with
   ``dim``'s extent replaced by the index's element count: 161002;
5. each spec constraint of the product whose ``require`` is false (the document's "a 0-d self takes an
   index of shape [1]"): its ``status``;
6. success. An empty source or index launches nothing: the output keeps what it held.

Values are exact: each output row is the source row its index names, bit for bit, in the source's dtype.
CANN documents index values in ``[0, A)`` only; for any other value the spec's notes promise a row of zeros,
and the model holds the API to that.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from codegen.spec.model import OpSpec, Product

from . import INVALID, NULLPTR, SUCCESS, Call, Prediction, _constraints_status


def roles(spec: OpSpec) -> tuple[str, str, str, str]:
    """``(source input, index input, output, dim attr)`` of the op, from ``compute``."""
    c: Any = spec.compute
    return str(c.source), str(c.index), str(c.dest), str(c.dim)


def _rank(shape: tuple[int, ...] | None) -> int:
    return len(shape or ())


def gathered_shape(source: tuple[int, ...], dim: int, count: int) -> tuple[int, ...]:
    """The source's shape with ``dim``'s extent replaced by ``count`` (a 0-d source gives a 0-d output)."""
    if not source:
        return ()
    axis = dim % len(source)
    return (*source[:axis], count, *source[axis + 1 :])


def predict(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of ``call`` on ``product`` (see the module doc for the rules and their order)."""
    t = call.tensors
    every = (*spec.inputs, *spec.outputs)
    for ts in every:
        if t[ts.name].null:
            return Prediction(NULLPTR, f"{ts.name} is null")
    src, index, out, dim_attr = roles(spec)
    for ts in every:
        if t[ts.name].dtype not in ts.dtypes_for(product):
            return Prediction(INVALID, f"{ts.name} dtype {t[ts.name].dtype.name} not supported on {product.name}")
    if t[out].dtype != t[src].dtype:
        return Prediction(INVALID, f"{out} dtype {t[out].dtype.name} is not {src}'s {t[src].dtype.name}")
    for ts in every:
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    s = t[src].shape or ()
    if not s and t[out].shape != ():
        return Prediction(INVALID, f"a 0-d {src} needs a 0-d {out}")
    for ts in every:
        lo, hi = ts.rank
        if not lo <= _rank(t[ts.name].shape) <= hi:
            return Prediction(INVALID, f"{ts.name} rank outside [{lo}, {hi}]")
    r = max(len(s), 1)
    dim = int(call.attrs[dim_attr])
    if not -r <= dim < r:
        return Prediction(INVALID, f"{dim_attr} {dim} outside [{-r}, {r})")
    count = math.prod(t[index].shape or ())
    if math.prod(s) and count and t[out].shape != gathered_shape(s, dim, count):
        return Prediction(INVALID, f"{out} shape {t[out].shape} is not {gathered_shape(s, dim, count)}")
    found = _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def writes_output(spec: OpSpec, call: Call) -> bool:
    """Whether a successful call writes its output: not when the source or the index is empty."""
    src, index, _, _ = roles(spec)
    return bool(math.prod(call.tensors[src].shape or ()) and math.prod(call.tensors[index].shape or ()))


def expected_output(spec: OpSpec, call: Call, source: np.ndarray, index: np.ndarray) -> np.ndarray:
    """For a successful call that writes its output: the output, exactly, in the source's dtype (a row of
    zeros for an index value outside ``[0, A)``)."""
    dim = int(call.attrs[roles(spec)[3]])
    view = source.reshape(1) if source.ndim == 0 else np.ascontiguousarray(source)
    axis = dim % view.ndim
    a = view.shape[axis]
    picks = np.asarray(index).reshape(-1).astype(np.int64)
    valid = (picks >= 0) & (picks < a)
    rows = np.take(view, np.where(valid, picks, 0), axis=axis)
    shape = [1] * view.ndim
    shape[axis] = picks.size
    rows = np.where(valid.reshape(shape), rows, np.zeros((), view.dtype))
    return rows.reshape(()) if source.ndim == 0 else rows
