"""The independent model of the aclnn L2 contract of an index_accumulate-family op (rows of a source tensor
added into the output rows its indices select, as aclnnEmbeddingDenseBackward).

It reads only the :class:`~codegen.spec.model.OpSpec` (tensors, attrs, constraints, ``compute.accumulate``,
``rows``, ``index``, ``num_rows``), the catalogue's :class:`~codegen.spec.model.Product` and the op's NumPy
reference. The rules (hicann/ops-nn ``index/embedding_dense_grad/docs/aclnnEmbeddingDenseBackward.md``: grad
2 to 8 dims, indices 1 to 8, out 2-d ``[numWeights, D]``, the rows of grad flattened equal to the indices'
element count; the spec's dtype and format lists), in the project's check order:

1. a null tensor: 161001;
2. a dtype outside the tensor's list for the product (grad and out float, BF16 only where the product has it;
   indices any of the nine): 161002; out's dtype need not be grad's (the fp32 sums are cast once to it);
3. a rank outside its range: 161002;
4. the rows of the source (all dims but the last, multiplied) not equal to the element count of the
   indices, or an output that is not ``[num_rows, D]``: 161002;
5. a storage format outside the tensor's ``formats``: 161002;
6. each spec constraint of the product whose ``require`` is false (the Atlas training limit on D with
   ``scaleGradByFreq``): its ``status``;
7. success; an empty output has no values, empty indices give zeros.

Values are the reference's (float64; an index outside ``[0, num_rows)``, NaN or infinite contributes
nothing, the padding row stays 0): the kernel sums in fp32 and the L2 API casts once to the output's dtype,
so the precision is the coarser of FLOAT and the output's dtype.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from codegen.spec.model import DType, OpSpec, Product

from . import (
    INVALID,
    NULLPTR,
    SUCCESS,
    Call,
    Prediction,
    _constraints_status,
    _reference_module,
    array_length,
    coarser,
    null_array,
)


def roles(spec: OpSpec) -> tuple[str, str, str, str]:
    """``(rows input, index input, output, row-count attr)`` of the op, from ``compute``."""
    c: Any = spec.compute
    return (
        str(c.rows),
        str(c.index),
        str(c.accumulate),
        str(c.num_rows),
    )


def predict(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of ``call`` on ``product`` (see the module doc for the rules and their order).

    Raises:
        NotImplementedError: the spec has an optional input (no op of the family has one; no rule is modelled).
    """
    t = call.tensors
    if any(ts.optional for ts in spec.inputs):
        raise NotImplementedError(f"{spec.op}: the model has no rule for an optional tensor of this family")
    every = (*spec.inputs, *spec.outputs)
    for ts in every:
        if t[ts.name].null:
            return Prediction(NULLPTR, f"{ts.name} is null")
    found = null_array(spec, call)
    if found is not None:
        return found
    for ts in every:
        if t[ts.name].dtype not in ts.dtypes_for(product):
            return Prediction(INVALID, f"{ts.name} dtype {t[ts.name].dtype.name} not supported on {product.name}")
    for ts in every:
        lo, hi = ts.rank
        if not lo <= len(t[ts.name].shape or ()) <= hi:
            return Prediction(INVALID, f"{ts.name} rank outside [{lo}, {hi}]")
    src, index, out, num_rows = roles(spec)
    g = t[src].shape or ()
    if math.prod(g[:-1]) != math.prod(t[index].shape or ()):
        return Prediction(INVALID, f"{src} rows differ from the element count of {index}")
    if t[out].shape != (call.attrs[num_rows], g[-1]):
        return Prediction(INVALID, f"{out} shape {t[out].shape} is not [{call.attrs[num_rows]}, {g[-1]}]")
    for ts in every:
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    found = array_length(spec, call) or _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def expected_outputs(
    spec: OpSpec, call: Call, arrays: Mapping[str, np.ndarray | None]
) -> tuple[list[np.ndarray], list[DType]]:
    """For a successful call: the output's expected values (float64 ``[num_rows, D]``) and the dtype bounding
    its precision. ``arrays`` holds the inputs as passed (indices in their own dtype)."""
    ref = _reference_module(spec).reference
    kwargs: dict[str, Any] = dict(arrays)
    for a in spec.attrs:
        kwargs[a.name] = call.attrs.get(a.name, a.default)
    want = np.asarray(ref(**kwargs), np.float64)
    out = roles(spec)[2]
    return [want], [coarser(DType.FLOAT, call.tensors[out].dtype)]
