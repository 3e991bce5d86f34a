"""The independent model of the aclnn L2 contract of a row_reduce-family op (softmax-like ops reducing along a
``dim`` attribute, and ops normalising over the trailing dims of a ``rows`` input, as RmsNorm over gamma).

It reads only the :class:`~codegen.spec.model.OpSpec` (tensors, attrs, ``dtype_combos``, ``shape_status``,
constraints, ``compute.dim``/``compute.rows``), the catalogue's :class:`~codegen.spec.model.Product` and the
op's NumPy reference in ``reference/``. The rules, from CANN's op_api sources and docs (hicann/ops-nn
``activation/softmax_v2/op_api/aclnn_softmax.cpp``, ``activation/softmax_grad/op_api/aclnn_softmax_backward.cpp``
and their log-softmax siblings; ``norm/rms_norm/docs/aclnnRmsNorm.md``), in the order the project's L2 code
checks them (``ascend-platform.md``, "Check order"):

1. a null tensor: 161001, but for an output the spec declares ``nullable`` (AddRmsNorm's rstdOut and xOut,
   ``norm/add_rms_norm/op_api/aclnn_add_rms_norm.cpp``) or an ``optional`` input (LayerNorm's weightOptional
   and biasOptional, ``norm/layer_norm_v4/docs/aclnnLayerNorm&aclnnLayerNormWithImplMode.md``): that one is
   absent, and no later rule reads it but the constraints' ``present()``;
2. a dtype outside the tensor's list for the product: 161002; with ``dtype_combos`` the tuple of dtypes must
   be one of the product's combinations (161002); without them, every input has the first input's dtype
   (``OP_CHECK_DTYPE_NOT_MATCH`` of the backward ops; 161002), unless the device dtype columns give the
   inputs different dtypes (LayerNorm's FLOAT weight beside a FLOAT16 input): then the given inputs' dtypes
   are those of a column the product may run (161002); the output's dtype is free within its list
   (the L2 API casts the result to it, or with ``promote_type: out`` the inputs to it first);
3. a rank outside the tensor's ``rank`` range: the spec's ``shape_status`` (161002, RmsNorm 561002);
4. shapes (``shape_status``): with ``dim``, every tensor has the first input's shape and ``dim`` lies in
   ``[-r, r)`` with ``r = max(rank, 1)`` (a 0-d tensor has one dim, as CANN's ``CheckDim``; 161002 for the
   dim); with ``rows``, the rows input (or the int_array attr naming the trailing dims, LayerNorm's
   normalizedShape) has 1 to rank(x) dims equal to x's trailing dims, none 0, every other rows input given
   has that shape, an output has x's shape, or x's shape with those trailing dims set to 1 when its shape
   rule is ``reduced(...)``;
5. a storage format outside the tensor's ``formats``: 161002;
6. each constraint of the product whose ``require`` is false: its ``status``;
7. success; an empty first output has no values.

An op with an output mask (``compute.output_mask``, a bool_array attr; aclnnLayerNormBackward's outputMask,
hicann/ops-nn ``norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.cpp`` and
``docs/aclnnLayerNormBackward.md``): after the null required tensors and arrays, a mask of another length than
its ``length`` is 161002, then a null output whose entry is true is 161001; an output whose entry is false may
be null, only its dtype is checked when given (not its rank, shape or format) and a successful call leaves it
as it was (:func:`untouched`; the spec's note: "not written"). The per-row inputs (``compute.per_row``: mean,
rstd) share one shape holding one element per row (CANN compares their element count with the rows', not
their shape with x's) and take any dtype of their list (cast to their device column's FLOAT first, the spec's
note); a host-only input (``device.host_inputs``: biasOptional), when given, has the rows' shape and any
dtype of its list; an input beside x that is none of these (gradOut beside input) has x's shape; an output
whose shape rule names the rows (gradWeightOut, gradBiasOut: ``shape: normalizedShape``) has the rows' shape
(the doc's [R1, ..., Rj]; CANN's source compares only the element count). A 0 in the rows stays 161002 (the
doc: no empty tensor; CANN's source would succeed with nothing to compute).

CANN's hand-written softmax APIs return success for an empty input before the dtype, dim and shape checks;
the project's API (and so this model) checks every argument first and then succeeds for an empty output, as
its docs state; see :data:`EMPTY_RULE`.

Values: the reference evaluated exactly on the input values; the kernel computes in fp32 and writes its
result in the first input's dtype, which the L2 API casts to the output's dtype, so the precision is the
coarser of the two (an output of ``dtype_combos`` has the combination's dtype, so no cast). With the spec's
``promote_type: out`` the L2 API casts the inputs to the output's dtype before the kernel
(``activation/log_softmax_v2/op_api/aclnn_log_softmax.cpp``): the reference takes the inputs rounded to it
and the precision is the output's dtype's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from codegen.spec.expr import Call as Call_
from codegen.spec.expr import Name as Name_
from codegen.spec.model import DType, OpSpec, Product, TensorSpec

from . import (
    INVALID,
    NULLPTR,
    NUMPY,
    SUCCESS,
    Call,
    Prediction,
    _constraints_status,
    _reference_module,
    array_length,
    coarser,
    null_array,
)

#: the documented divergence from CANN's softmax op_api sources (see the module doc)
EMPTY_RULE = "arguments are checked before an empty output succeeds"


def _dim_attr(spec: OpSpec) -> str:
    return str(getattr(spec.compute, "dim", "") or "")


def _rows_input(spec: OpSpec) -> str | None:
    return getattr(spec.compute, "rows", None)


def rows_attr(spec: OpSpec) -> str:
    """The int_array attr naming the reduced trailing dims (``compute.rows``' first entry), or ""."""
    return str(getattr(spec.compute, "rows_attr", "") or "")


def row_inputs(spec: OpSpec) -> tuple[str, ...]:
    """The inputs broadcast over the rows (each of the row's shape)."""
    return tuple(getattr(spec.compute, "row_inputs", ()) or ())


def per_row_inputs(spec: OpSpec) -> tuple[str, ...]:
    """The inputs holding one value per row (``compute.per_row``: LayerNormBackward's mean and rstd)."""
    return tuple(getattr(spec.compute, "per_row_inputs", ()) or ())


def host_inputs(spec: OpSpec) -> tuple[str, ...]:
    """The optional inputs the L2 API checks and never launches (the spec's ``device.host_inputs``)."""
    return tuple(getattr(spec.device, "host_inputs", ()) or ()) if spec.device is not None else ()


def mask_attr(spec: OpSpec) -> str:
    """The bool_array attr saying which outputs are computed (``compute.output_mask``), or ""."""
    return str(getattr(spec.compute, "output_mask", "") or "")


def wanted(spec: OpSpec, call: Call, name: str) -> bool:
    """Whether output ``name`` is asked for: always without an output mask, else its entry of the mask (the
    mask's length is checked before any rule reads an entry)."""
    attr = mask_attr(spec)
    if not attr:
        return True
    mask = call.attrs.get(attr, spec.attr(attr).default)
    return bool(mask[[o.name for o in spec.outputs].index(name)])


def untouched(spec: OpSpec, call: Call) -> set[str]:
    """The outputs a successful call leaves as they were: those the output mask leaves out (CANN's op_api
    copies a result into an output only when its entry is true; the spec's note: "not written")."""
    return {o.name for o in spec.outputs if not call.tensors[o.name].null and not wanted(spec, call, o.name)}


def reduced_shape(x: tuple[int, ...], k: int) -> tuple[int, ...]:
    """``x`` with its last ``k`` dims set to 1 (the shape of a per-row output such as RmsNorm's rstd)."""
    return (*x[: len(x) - k], *(1,) * k)


def per_row(spec: OpSpec, name: str) -> bool:
    """Whether output ``name`` has one value per row: its shape rule is ``reduced(...)``."""
    rule = next(o.shape for o in spec.outputs if o.name == name)
    return isinstance(rule, Call_) and rule.func == "reduced"


def _given(spec: OpSpec, call: Call) -> list[TensorSpec]:
    """The tensors of ``call`` the rules check: every one but a nullable output or optional input passed as
    null."""
    return [
        ts for ts in (*spec.inputs, *spec.outputs) if not ((ts.nullable or ts.optional) and call.tensors[ts.name].null)
    ]


def _cast_inputs(spec: OpSpec) -> set[str]:
    """The inputs outside the device dtype columns' rule: the host-only inputs (no column holds them) and the
    per-row inputs every column gives one dtype (the L2 API casts them to it first, as CANN's
    aclnnLayerNormBackward casts mean and rstd to FLOAT, the spec's note): each takes any dtype of its list."""
    cols = [c.combo for c in spec.device_interface.columns]
    fixed = {n for n in per_row_inputs(spec) if cols and len({c.dtype(n) for c in cols}) == 1}
    return set(host_inputs(spec)) | fixed


def _checked(spec: OpSpec, call: Call) -> list[TensorSpec]:
    """The tensors of :func:`_given` whose rank, shape and format the rules check: all but an output the mask
    leaves out (CANN's aclnnLayerNormBackward checks only such an output's dtype)."""
    return [ts for ts in _given(spec, call) if ts not in spec.outputs or wanted(spec, call, ts.name)]


def _column_inputs(spec: OpSpec, product: Product) -> list[dict[str, DType]]:
    """The input dtypes of the device dtype columns a call on ``product`` may have (allowed there, or of
    dtypes it supports), when the columns give the inputs different dtypes; else empty (the inputs of
    :func:`_cast_inputs` left out)."""
    cols = [c.combo for c in spec.device_interface.columns]
    names = [n for n in spec.input_names if n not in _cast_inputs(spec)]
    if spec.dtype_combos or not any(len({c.dtype(n) for n in names}) > 1 for c in cols):
        return []
    usable = [c for c in cols if c.allowed_on(product) or all(product.supports(d) for _, d in c.dtypes)]
    return [{n: c.dtype(n) for n in names} for c in usable]


def _dtype_status(spec: OpSpec, product: Product, call: Call) -> Prediction | None:
    t = call.tensors
    for ts in _given(spec, call):
        if t[ts.name].dtype not in ts.dtypes_for(product):
            return Prediction(INVALID, f"{ts.name} dtype {t[ts.name].dtype.name} not supported on {product.name}")
    combos = spec.combos_for(product)
    if combos:
        given = {ts.name for ts in _given(spec, call)}
        got = tuple((n, t[n].dtype) for n, _ in combos[0].dtypes if n in given)
        if all(tuple((n, d) for n, d in c.dtypes if n in given) != got for c in combos):
            return Prediction(INVALID, "dtypes are not one of the product's combinations")
    elif _column_inputs(spec, product):
        given = [ts.name for ts in _given(spec, call) if ts in spec.inputs and ts.name not in _cast_inputs(spec)]
        if all(any(t[n].dtype != c[n] for n in given) for c in _column_inputs(spec, product)):
            return Prediction(INVALID, "the inputs' dtypes are no dtype column's")
    else:
        first = t[spec.inputs[0].name].dtype
        for ts in spec.inputs[1:]:
            if not t[ts.name].null and t[ts.name].dtype != first:
                return Prediction(INVALID, f"{ts.name} dtype differs from {spec.inputs[0].name}'s")
    return None


def _shape_status(spec: OpSpec, call: Call) -> Prediction | None:
    t = call.tensors
    bad = spec.shape_status
    first = spec.inputs[0].name
    x = t[first].shape or ()
    rows = _rows_input(spec)
    if rows is None:
        for ts in (*spec.inputs[1:], *spec.outputs):
            if t[ts.name].shape != x:
                return Prediction(bad, f"{ts.name} shape {t[ts.name].shape} is not {x}")
        r = max(len(x), 1)
        dim = call.attrs[_dim_attr(spec)]
        if not -r <= dim < r:
            return Prediction(INVALID, f"dim {dim} outside [{-r}, {r})")
        return None
    attr = rows_attr(spec)
    g = tuple(call.attrs[attr]) if attr else (t[rows].shape or ())
    outs = spec.outputs
    first_out = t[outs[0].name]
    if wanted(spec, call, outs[0].name) and not first_out.null and first_out.shape != x:
        return Prediction(bad, f"{outs[0].name} shape is not x's")
    beside = (rows, *row_inputs(spec), *per_row_inputs(spec), *host_inputs(spec))
    for ts in spec.inputs[1:]:  # a full input beside x (LayerNormBackward's input beside gradOut): x's shape
        if ts.name not in beside and not t[ts.name].null and t[ts.name].shape != x:
            return Prediction(bad, f"{ts.name} shape {t[ts.name].shape} is not {x}")
    if not 1 <= len(g) <= len(x):
        return Prediction(bad, f"{rows} rank {len(g)} outside [1, {len(x)}]")
    if 0 in g:
        return Prediction(bad, f"{rows} is empty")
    if tuple(x[len(x) - len(g) :]) != g:
        return Prediction(bad, f"{rows} is not x's trailing dims")
    for n in (*row_inputs(spec), *host_inputs(spec)):  # a host-only input, given, is checked as a rows input
        if n != rows and not t[n].null and t[n].shape != g:
            return Prediction(bad, f"{n} shape is not {rows}'s {g}")
    stats = [n for n in per_row_inputs(spec) if not t[n].null]
    rows_count = math.prod(x[: len(x) - len(g)])
    for n in stats:  # one value per row: the per-row inputs share one shape of the rows' count of elements
        if t[n].shape != t[stats[0]].shape:
            return Prediction(bad, f"{n} shape {t[n].shape} is not {stats[0]}'s {t[stats[0]].shape}")
        if numel(t[n].shape) != rows_count:
            return Prediction(bad, f"{n} has {numel(t[n].shape)} elements, not one per row ({rows_count})")
    for o in outs[1:]:
        if t[o.name].null or not wanted(spec, call, o.name):
            continue  # null (allowed by the rules above), or left out by the mask: its shape is not read
        if per_row(spec, o.name):
            want = reduced_shape(x, len(g))
        elif isinstance(o.shape, Name_) and o.shape.id in (attr, rows):
            want = g  # a column sum over the rows (LayerNormBackward's gradWeightOut): the rows' shape
        else:
            want = x
        if t[o.name].shape != want:
            return Prediction(bad, f"{o.name} shape is not {want}")
    return None


def predict(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of ``call`` on ``product`` (see the module doc for the rules and their order)."""
    t = call.tensors
    for ts in (*spec.inputs, *spec.outputs):
        if t[ts.name].null and not (ts.nullable or ts.optional):
            return Prediction(NULLPTR, f"{ts.name} is null")
    found = null_array(spec, call)
    if found is not None:
        return found
    mask = mask_attr(spec)
    if mask:  # CANN: the mask's length first (161002), then a null output its entry asks for (161001)
        lo, hi = spec.attr(mask).length or (0, 2**63)
        if not lo <= len(call.attrs.get(mask, spec.attr(mask).default)) <= hi:
            return Prediction(INVALID, f"{mask} length is not {lo}")
        for o in spec.outputs:
            if t[o.name].null and wanted(spec, call, o.name):
                return Prediction(NULLPTR, f"{o.name} is null with its {mask} entry true")
    found = _dtype_status(spec, product, call)
    if found is not None:
        return found
    for ts in _checked(spec, call):
        lo, hi = ts.rank
        if not lo <= len(t[ts.name].shape or ()) <= hi:
            return Prediction(spec.shape_status, f"{ts.name} rank outside [{lo}, {hi}]")
    found = _shape_status(spec, call)
    if found is not None:
        return found
    for ts in _checked(spec, call):
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    found = array_length(spec, call) or _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def expected_outputs(
    spec: OpSpec, call: Call, arrays: Mapping[str, np.ndarray | None]
) -> tuple[list[np.ndarray], list[DType]]:
    """For a successful call: each output's expected values (float64) and the dtype bounding its precision
    (the coarser of the first input's dtype and the output's; the output's with ``promote_type: out``, the
    inputs then rounded to it before the reference)."""
    ref = _reference_module(spec).reference
    out = call.tensors[spec.outputs[0].name].dtype
    promote = spec.promote_type == "out"
    kwargs: dict[str, Any] = {
        n: np.asarray(np.asarray(a).astype(NUMPY[out]) if promote else a, np.float64)
        for n, a in arrays.items()
        if a is not None
    }
    for a in spec.attrs:
        kwargs[a.name] = call.attrs.get(a.name, a.default)
    result = ref(**kwargs)
    outs = list(result) if isinstance(result, tuple) else [result]
    compute = out if promote else call.tensors[spec.inputs[0].name].dtype
    bounds = [coarser(compute, call.tensors[o.name].dtype) for o in spec.outputs]
    return [np.asarray(o, np.float64) for o in outs], bounds


def numel(shape: tuple[int, ...] | None) -> int:
    """Elements of a shape (0 for a null tensor)."""
    return 0 if shape is None else math.prod(shape)
