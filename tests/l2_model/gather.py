"""The independent model of the aclnn L2 contract of a gather_scatter-family op: rows of a source picked by an
index tensor, in three forms by the kind of ``compute.dim``:

- an int64 attr (as aclnnIndexSelect): ``out[p, k, q] = source[p, index[k], q]`` with the source viewed as
  ``[P, A, Q]`` around ``dim``; the index 0-d or 1-d; out is the source's shape with ``dim``'s extent the
  index's element count;
- a constant dim (as aclnnEmbedding, dim 0): the index of any rank takes the dim's place in out's shape;
- ``flatten`` (as aclnnTake): elements of the flattened source; out has the index's shape;
- ``elements`` (``compute.direction: gather_elements``, as aclnnGather): an int64 attr dim and an index of the
  source's rank; ``out[i...] = source[i... with dim's coordinate replaced by index[i...]]``, out has the
  index's shape.

It reads only the :class:`~codegen.spec.model.OpSpec` (tensors, attrs, constraints and the roles of
``compute``: ``source``, ``index``, ``dest``, ``dim``, ``negative_index``) and the catalogue's
:class:`~codegen.spec.model.Product`. The rules are CANN's (hicann/ops-nn ``index/gather_v2/op_api/
aclnn_index_select.cpp``, ``index/embedding/op_api/aclnn_embedding.cpp``, ``index/gather_v2/op_api/
aclnn_take.cpp``, ``index/gather_elements_v2/op_host/op_api/aclnn_gather.cpp`` and their documents), in their
order:

1. a null tensor: 161001;
2. a dtype outside the tensor's list for the product (BF16 only where the product has it); an output whose
   dtype is not the source's; an index dtype outside its list: 161002;
3. a storage format outside the tensor's ``formats`` (CANN refuses the private formats): 161002;
4. shapes: a rank outside the tensor's range; for an attr dim, a 0-d source with an output that is not 0-d
   and ``dim`` outside ``[-r, r)`` with ``r`` the source's rank (1 for a 0-d source); an output whose shape
   is not the form's: for an attr dim checked only when neither the source nor the index is empty (CANN's
   IndexSelect); for a constant dim its rank and the index's dims on every call, the rest (which CANN's
   Embedding does not check; the spec does) when neither is empty; for ``flatten`` on every call (CANN's
   Take): 161002;
5. each spec constraint of the product whose ``require`` is false (IndexSelect's "a 0-d self takes an index
   of shape [1]", Take's "an empty self gives no element"): its ``status``;
6. success. An empty source or index launches nothing: the output keeps what it held.

The ``elements`` form follows aclnn_gather.cpp's own order instead: null tensors (161001); the source's dtype
for the product, the index's (only when the index is not empty), an output dtype other than the source's; the
ranks of source and index differing (0-d counts as 1), a rank above 8, an output shape other than the
index's, ``dim`` outside ``[-r, r)``; when the index is not empty, an index extent outside ``dim`` above the
source's or a source extent 0 along ``dim`` (all 161002). CANN checks no format there; the spec's ``formats``
are held as for the other forms (this project refuses the private formats everywhere).

The ``fill`` form (``compute.direction: fill``, as aclnnIndexFillTensor: one tensor ``source``, an int64 attr
``dim``, an ``int_array`` attr ``index`` of positions along ``dim`` and a ``scalar`` attr ``value``) follows
ops-nn ``index/index_fill_d/op_api/aclnn_index_fill_tensor.cpp`` (CheckParams, then the plan), in its order:

1. a null source, index array, value scalar or output (in that order): 161001;
2. a source dtype outside its list for the product; an output dtype other than the source's: 161002;
3. when the source is not empty (CANN's CheckShape returns early for an empty self): an output shape other than
   the source's, a source rank above 8, ``dim`` outside ``[-r, r)`` (``r`` the rank, 1 for a 0-d source),
   an index value outside ``[-A, A)`` (``A`` the source's extent along ``dim``, 1 for a 0-d source): 161002;
4. a complex aclScalar dtype: 161002 (CANN's CheckPromoteType; the spec's ``scalar_dtypes`` hold it here);
5. a storage format outside the tensor's ``formats`` (CANN only logs a warning for FRACTAL_NZ; this project
   refuses the private formats everywhere): 161002;
6. success. An empty index copies the source to the output (CANN's ``l0op::ViewCopy(self, out)``); an empty
   source writes nothing; otherwise the output is the source with the named slices filled.

The fill value: on products other than NpuArch 3510 (CANN's ``IsRegbase()`` false: Ascend910B, Ascend910_93)
CANN fills with ``value->ToFloat()`` cast to the source's dtype, so the value is rounded to float32 first; on
NpuArch 3510 (Ascend950) it converts the aclScalar to the source's dtype directly.

Values are exact: each output row is the source row its index names, bit for bit, in the source's dtype.
CANN documents index values in ``[0, A)`` only; with ``negative_index: wrap`` a value in ``[-A, 0)`` names the
row ``index + A`` (CANN's Take code and PyTorch); every other value gives a row of zeros, as the specs
promise, and the model holds the API to that.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from codegen.spec.model import OpSpec, Product

from . import INVALID, NULLPTR, SUCCESS, Call, Prediction, _constraints_status


def roles(spec: OpSpec) -> tuple[str, str, str, str | None]:
    """``(source input, index input, output, dim attr or None)`` of the op, from ``compute``."""
    c: Any = spec.compute
    return str(c.source), str(c.index), str(c.dest), None if c.dim is None else str(c.dim)


def form_of(spec: OpSpec) -> tuple[str, int]:
    """``("attr" | "const" | "flatten" | "elements" | "fill" | "scatter_add" | "index_add", constant dim)`` of
    the op's ``compute`` (``elements``: its ``direction`` is ``gather_elements``; ``fill``: ``fill``;
    ``scatter_add`` and ``index_add``: those directions, which this model does not cover)."""
    c: Any = spec.compute
    if getattr(c, "direction", "") in ("fill", "scatter_add", "index_add"):
        return c.direction, 0
    if getattr(c, "direction", "") == "gather_elements":
        return "elements", 0
    if getattr(c, "flatten", False):
        return "flatten", 0
    if c.dim is None:
        return "const", int(c.dim_const)
    return "attr", 0


def _rank(shape: tuple[int, ...] | None) -> int:
    return len(shape or ())


def gathered_shape(source: tuple[int, ...], dim: int, count: int) -> tuple[int, ...]:
    """The source's shape with ``dim``'s extent replaced by ``count`` (a 0-d source gives a 0-d output)."""
    if not source:
        return ()
    axis = dim % len(source)
    return (*source[:axis], count, *source[axis + 1 :])


def out_shape(spec: OpSpec, call: Call) -> tuple[int, ...] | None:
    """The output shape of the op's form for the call's source, index and ``dim`` (None: dim out of range)."""
    src, index, _, dim_attr = roles(spec)
    s = call.tensors[src].shape or ()
    i = call.tensors[index].shape or ()
    form, const = form_of(spec)
    if form == "flatten":
        return i
    if form == "elements":
        r = max(len(s), 1)
        return i if -r <= int(call.attrs[str(dim_attr)]) < r else None
    if form == "const":
        return (*s[:const], *i, *s[const + 1 :]) if const < len(s) else None
    r = max(len(s), 1)
    dim = int(call.attrs[str(dim_attr)])
    return gathered_shape(s, dim, math.prod(i)) if -r <= dim < r else None


def predict(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of ``call`` on ``product`` (see the module doc for the rules and their order)."""
    if form_of(spec)[0] == "fill":
        return predict_fill(spec, product, call)
    t = call.tensors
    every = (*spec.inputs, *spec.outputs)
    for ts in every:
        if t[ts.name].null:
            return Prediction(NULLPTR, f"{ts.name} is null")
    src, index, out, dim_attr = roles(spec)
    if form_of(spec)[0] == "elements":
        return _predict_elements(spec, product, call)
    for ts in every:
        if t[ts.name].dtype not in ts.dtypes_for(product):
            return Prediction(INVALID, f"{ts.name} dtype {t[ts.name].dtype.name} not supported on {product.name}")
    if t[out].dtype != t[src].dtype:
        return Prediction(INVALID, f"{out} dtype {t[out].dtype.name} is not {src}'s {t[src].dtype.name}")
    for ts in every:
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    for ts in every:
        lo, hi = ts.rank
        if not lo <= _rank(t[ts.name].shape) <= hi:
            return Prediction(INVALID, f"{ts.name} rank outside [{lo}, {hi}]")
    s = t[src].shape or ()
    form, _ = form_of(spec)
    if form == "attr":
        if not s and t[out].shape != ():
            return Prediction(INVALID, f"a 0-d {src} needs a 0-d {out}")
        r = max(len(s), 1)
        dim = int(call.attrs[str(dim_attr)])
        if not -r <= dim < r:
            return Prediction(INVALID, f"{dim_attr} {dim} outside [{-r}, {r})")
    want = out_shape(spec, call)
    full = form == "flatten" or (math.prod(s) and math.prod(t[index].shape or ()))
    if want is None or (full and t[out].shape != want):
        return Prediction(INVALID, f"{out} shape {t[out].shape} is not {want}")
    if form == "const":  # rank and the index's dims on every call (CANN's Embedding)
        _, const = form_of(spec)
        i = t[index].shape or ()
        o = t[out].shape or ()
        if len(o) != len(want) or o[const : const + len(i)] != i:
            return Prediction(INVALID, f"{out} shape {o}: rank or the dims of {index} differ from {want}")
    found = _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def _predict_elements(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of a call of the ``elements`` form after the null checks (aclnn_gather.cpp's order)."""
    t = call.tensors
    src, index, out, dim_attr = roles(spec)
    s_t, i_t, o_t = spec.tensor(src), spec.tensor(index), spec.tensor(out)
    i_shape = t[index].shape or ()
    i_empty = math.prod(i_shape) == 0
    if t[src].dtype not in s_t.dtypes_for(product):
        return Prediction(INVALID, f"{src} dtype {t[src].dtype.name} not supported on {product.name}")
    if not i_empty and t[index].dtype not in i_t.dtypes_for(product):
        return Prediction(INVALID, f"{index} dtype {t[index].dtype.name} not supported")
    if t[out].dtype != t[src].dtype:
        return Prediction(INVALID, f"{out} dtype {t[out].dtype.name} is not {src}'s {t[src].dtype.name}")
    s = t[src].shape or ()
    r = max(len(s), 1)
    if max(len(i_shape), 1) != r:
        return Prediction(INVALID, f"{index} rank {len(i_shape)} is not {src}'s {len(s)}")
    for ts in (s_t, i_t, o_t):
        if _rank(t[ts.name].shape) > ts.rank[1]:
            return Prediction(INVALID, f"{ts.name} rank above {ts.rank[1]}")
    if (t[out].shape or ()) != i_shape:
        return Prediction(INVALID, f"{out} shape {t[out].shape} is not {index}'s {i_shape}")
    dim = int(call.attrs[str(dim_attr)])
    if not -r <= dim < r:
        return Prediction(INVALID, f"{dim_attr} {dim} outside [{-r}, {r})")
    if not i_empty:
        axis = dim % r
        for d in range(len(s)):
            if d != axis and i_shape[d] > s[d]:
                return Prediction(INVALID, f"{index} extent {i_shape[d]} of dim {d} above {src}'s {s[d]}")
            if d == axis and s[d] == 0:
                return Prediction(INVALID, f"{src} has no element along dim {d}")
    for ts in (s_t, i_t, o_t):
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    found = _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def writes_output(spec: OpSpec, call: Call) -> bool:
    """Whether a successful call writes its output: not when the source or the index is empty."""
    src, index, _, _ = roles(spec)
    return bool(math.prod(call.tensors[src].shape or ()) and math.prod(call.tensors[index].shape or ()))


def expected_output(spec: OpSpec, call: Call, source: np.ndarray, index: np.ndarray) -> np.ndarray:
    """For a successful call that writes its output: the output, exactly, in the source's dtype (a row of
    zeros for an index value outside ``[0, A)``, or outside ``[-A, A)`` with ``negative_index: wrap``)."""
    form, const = form_of(spec)
    c: Any = spec.compute
    if form == "elements":
        return _gathered_elements(int(call.attrs[str(c.dim)]), c.negative == "wrap", source, index)
    if form == "flatten":
        view, axis = np.ascontiguousarray(source).reshape(-1), 0
    elif form == "const":
        view, axis = np.ascontiguousarray(source), const
    else:
        dim = int(call.attrs[str(c.dim)])
        view = source.reshape(1) if source.ndim == 0 else np.ascontiguousarray(source)
        axis = dim % view.ndim
    a = view.shape[axis]
    picks = np.asarray(index).reshape(-1).astype(np.int64)
    if getattr(c, "negative", "zero") == "wrap":
        picks = np.where((picks < 0) & (picks >= -a), picks + a, picks)
    valid = (picks >= 0) & (picks < a)
    rows = np.take(view, np.where(valid, picks, 0), axis=axis)
    shape = [1] * view.ndim
    shape[axis] = picks.size
    rows = np.where(valid.reshape(shape), rows, np.zeros((), view.dtype))
    want = out_shape(spec, call)
    assert want is not None
    return rows.reshape(want)


def _gathered_elements(dim: int, wrap: bool, source: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``out[i...] = source[i... with dim's coordinate replaced by index[i...]]`` in the source's dtype (a zero
    for a value outside ``[0, A)``, after adding ``A`` to one in ``[-A, 0)`` when ``wrap``)."""
    view = np.asarray(source).reshape(np.shape(source) or (1,))
    idx = np.asarray(index).astype(np.int64)
    picks = idx.reshape(idx.shape or (1,))
    axis = dim % view.ndim
    a = view.shape[axis]
    if wrap:
        picks = np.where((picks < 0) & (picks >= -a), picks + a, picks)
    valid = (picks >= 0) & (picks < a)
    out = np.zeros(picks.shape, view.dtype)
    for pos in zip(*np.nonzero(valid), strict=True):
        coords = list(pos)
        coords[axis] = int(picks[pos])
        out[pos] = view[tuple(coords)]
    return out.reshape(idx.shape)


# --- the fill form (aclnnIndexFillTensor) --------------------------------------------------------------------

#: NpuArch of the products whose aclnnIndexFillTensor converts the aclScalar to the source's dtype directly
#: (CANN's ``Ops::NN::AclnnUtil::IsRegbase()``); every other product fills with ``value->ToFloat()``.
REGBASE_NPU_ARCH = 3510
#: aclScalar dtypes CANN's CheckPromoteType refuses (``IsComplexType``).
COMPLEX_SCALAR_DTYPES = ("COMPLEX64", "COMPLEX128", "COMPLEX32")


def fill_roles(spec: OpSpec) -> tuple[str, str, str, str, str]:
    """``(source input, output, dim attr, index array attr, value scalar attr)`` of a ``fill`` op."""
    c: Any = spec.compute
    return str(c.source), str(c.dest), str(c.dim), str(c.index), str(c.value)


def predict_fill(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of a call of a ``fill`` op (aclnn_index_fill_tensor.cpp's order; see the module doc).

    ``call.attrs`` holds the dim (int), the index (a sequence of ints, or None for a null aclIntArray) and the
    value (an object with ``value`` and ``dtype`` as ``codegen.runner.ScalarArg``, a number, or None for a
    null aclScalar)."""
    src, out, dim_attr, index_attr, value_attr = fill_roles(spec)
    t = call.tensors
    index = call.attrs.get(index_attr)
    value = call.attrs.get(value_attr)
    for what, null in (
        (src, t[src].null),
        (index_attr, index is None),
        (value_attr, value is None),
        (out, t[out].null),
    ):
        if null:
            return Prediction(NULLPTR, f"{what} is null")
    s_t, o_t = spec.tensor(src), spec.tensor(out)
    if t[src].dtype not in s_t.dtypes_for(product):
        return Prediction(INVALID, f"{src} dtype {t[src].dtype.name} not supported on {product.name}")
    if t[out].dtype != t[src].dtype:
        return Prediction(INVALID, f"{out} dtype {t[out].dtype.name} is not {src}'s {t[src].dtype.name}")
    s = t[src].shape or ()
    if math.prod(s) != 0:
        if (t[out].shape or ()) != s:
            return Prediction(INVALID, f"{out} shape {t[out].shape} is not {src}'s {s}")
        if len(s) > s_t.rank[1]:
            return Prediction(INVALID, f"{src} rank above {s_t.rank[1]}")
        r = max(len(s), 1)
        dim = int(call.attrs[dim_attr])
        if not -r <= dim < r:
            return Prediction(INVALID, f"{dim_attr} {dim} outside [{-r}, {r})")
        a = s[dim % r] if s else 1
        for i in index:
            if not -a <= int(i) < a:
                return Prediction(INVALID, f"{index_attr} value {i} outside [{-a}, {a})")
    scalar_dtype = getattr(value, "dtype", None)
    if scalar_dtype is not None and str(getattr(scalar_dtype, "name", scalar_dtype)) in COMPLEX_SCALAR_DTYPES:
        return Prediction(INVALID, f"{value_attr} is complex")
    for ts in (s_t, o_t):
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    return Prediction(SUCCESS, "")


def fill_writes_output(spec: OpSpec, call: Call) -> bool:
    """Whether a successful ``fill`` call writes its output: not when the source is empty."""
    src = fill_roles(spec)[0]
    return math.prod(call.tensors[src].shape or ()) != 0


def expected_fill_output(spec: OpSpec, product: Product, call: Call, source: np.ndarray) -> np.ndarray:
    """For a successful ``fill`` call that writes its output: the source with the slices along ``dim`` that the
    index names set to the value, exactly, in the source's dtype (a negative index counts from the end;
    duplicates fill once). The value is rounded to float32 first except on NpuArch :data:`REGBASE_NPU_ARCH`,
    then converted to the source's dtype (NumPy's conversion: round to nearest for the floats, toward zero for
    the integers, nonzero -> True for BOOL)."""
    _, _, dim_attr, index_attr, value_attr = fill_roles(spec)
    raw = call.attrs[value_attr]
    number = float(getattr(raw, "value", raw))
    view = np.array(source, copy=True).reshape(np.shape(source) or (1,))
    index = [int(i) for i in call.attrs[index_attr]]
    if not index:
        return view.reshape(np.shape(source))
    if product.npu_arch != REGBASE_NPU_ARCH:
        number = float(np.float32(number))
    if view.dtype == np.bool_:
        fill = np.asarray(number != 0)
    elif np.issubdtype(view.dtype, np.integer):
        fill = np.asarray(math.trunc(number)).astype(view.dtype)
    else:
        fill = np.asarray(number).astype(view.dtype)
    axis = int(call.attrs[dim_attr]) % view.ndim
    a = view.shape[axis]
    for i in index:
        sl: list[Any] = [slice(None)] * view.ndim
        sl[axis] = i + a if i < 0 else i
        view[tuple(sl)] = fill
    return view.reshape(np.shape(source))
