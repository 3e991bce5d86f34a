"""The L2 contract of a foreach (tensor-list) op, as ops-nn's hand-written foreach APIs check it
(``foreach/foreach_sqrt/op_host/op_api/aclnn_foreach_sqrt.cpp`` and ``foreach_mul_list``'s: CheckNotNull,
CheckShape, CheckDtypeValid, CheckFormat), independent of the family's generator and check cases.

A call gives each list parameter as None (a null list) or a list of :class:`~l2_model.Tensor` (an element with
shape None is a null aclTensor in the list), and each aclScalar attribute as a value. The model reads only the
spec's parameter roles (which inputs are lists, which attrs are scalars), the tensors' dtypes for the product
and formats, and the op's NumPy reference.

The rules:

1. a null list, a null aclScalar or a null element of any list: 161001 (CANN checks the lists and dereferences
   the elements unchecked; this project answers a null element with 161001, the spec's notes say so); an
   aclScalar's dtype is checked against a non-empty list's only (rule 3): beside empty lists any dtype is
   accepted, as ops-nn's V2 APIs do;
2. every other list (the other inputs and the output) holds as many tensors as the first input list; every
   tensor of the first input list has rank 8 or less; each list's i-th tensor has the first list's i-th shape:
   else 161002;
3. unless the first list is empty: its first tensor's dtype is one the product lists for it, and every tensor of
   every list has that dtype, and every aclScalar has the dtype of the one-element tensor the device op reads it
   from for that list dtype (the spec's device input of the scalar: ``like`` the list with its ``dtype_map``, as
   ops-nn's OpDef registers it; ``aclnn_foreach_mul_scalar_v2.cpp``'s CheckDtype: FLOAT for a FLOAT or BF16 list,
   FLOAT16 for a FLOAT16 list, INT32 for an INT32 list; aclnnForeachLerpScalar's weight FLOAT for every floating
   list) or DOUBLE (INT64 beside an integer list): else 161002 (ops-nn also takes FLOAT beside a FLOAT16 list on
   a regbase NpuArch, 3510; the specs do not, their notes say so);
4. no tensor of any list has a private storage format (FRACTAL_NZ, NC1HWC0, ...): else 161002;
5. otherwise success: an empty first list launches nothing; every other output tensor holds the reference's
   value of its tensors (float64, rounded to the list's dtype; BF16 computed in FLOAT and rounded once, within
   the same bound), each aclScalar's value first converted to the dtype of the tensor the kernel reads it from
   (rule 3's: ``ConvertToTensor`` in the same source; an INT32 list's the integer itself).

Steps 2 to 4 all return 161002, so their order decides only the message; 1 comes first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from codegen.spec.model import ACL_FORMATS, DType, OpSpec, Product
from l2_model import INVALID, NULLPTR, SUCCESS, Prediction, Tensor, _reference_module

#: The deepest tensor an aclnn API takes (CANN's MAX_SUPPORT_DIMS_NUMS).
MAX_DIMS = 8


@dataclass(frozen=True)
class ListCall:
    """A foreach call: ``lists`` list parameter name -> None (null) or its tensors; ``scalars`` aclScalar attr
    name -> (value, dtype) or None (a null aclScalar)."""

    lists: dict[str, list[Tensor] | None]
    scalars: dict[str, tuple[float, DType] | None] = field(default_factory=dict)


def scalar_tensor_dtype(spec: OpSpec, scalar: str, dtype: DType) -> DType:
    """The dtype of the one-element tensor the device op reads the aclScalar ``scalar`` from beside a list of
    ``dtype``: the spec's device input fed by it, ``like`` the list, through its ``dtype_map``."""
    carrier = next(d for d in spec.device_interface.inputs if d.source == scalar and d.like is not None)
    return carrier.like_dtype(dtype)


def list_roles(spec: OpSpec) -> tuple[list[str], str]:
    """The input list parameters (in spec order) and the output list of a foreach spec."""
    return [t.name for t in spec.inputs if t.is_list], spec.outputs[0].name


def predict(spec: OpSpec, product: Product, call: ListCall) -> Prediction:
    """The status of phase 1 for ``call`` (see the module's rules) and why."""
    inputs, out = list_roles(spec)
    names = [*inputs, out]
    for name in names:
        if call.lists.get(name) is None:
            return Prediction(NULLPTR, f"{name} is a null list")
    for name, value in call.scalars.items():
        if value is None:
            return Prediction(NULLPTR, f"{name} is a null aclScalar")
    for name in names:
        if any(t.null for t in call.lists[name] or []):
            return Prediction(NULLPTR, f"an element of {name} is null")
    first = call.lists[inputs[0]] or []
    for name in names[1:]:
        if len(call.lists[name] or []) != len(first):
            return Prediction(INVALID, f"{name} holds {len(call.lists[name] or [])} tensors, {inputs[0]} {len(first)}")
    for i, t in enumerate(first):
        if len(t.shape or ()) > MAX_DIMS:
            return Prediction(INVALID, f"{inputs[0]}[{i}] has more than {MAX_DIMS} dims")
    for name in names[1:]:
        for i, (a, b) in enumerate(zip(first, call.lists[name] or [])):
            if a.shape != b.shape:
                return Prediction(INVALID, f"{name}[{i}] shape {b.shape} is not {a.shape}")
    if first:
        dtype = first[0].dtype
        spec_first = next(t for t in spec.inputs if t.name == inputs[0])
        if dtype not in spec_first.dtypes_for(product):
            return Prediction(INVALID, f"{inputs[0]} dtype {dtype.name} not supported on {product.name}")
        for name in names:
            if any(t.dtype != dtype for t in call.lists[name] or []):
                return Prediction(INVALID, f"a tensor of {name} is not {dtype.name}")
        for name, scalar in call.scalars.items():
            assert scalar is not None
            allowed = {scalar_tensor_dtype(spec, name, dtype), DType.INT64 if dtype.is_integer else DType.DOUBLE}
            if scalar[1] not in allowed:
                return Prediction(INVALID, f"{name} of dtype {scalar[1].name} beside a {dtype.name} list")
    for name in names:
        if any(t.fmt not in ACL_FORMATS for t in call.lists[name] or []):
            return Prediction(INVALID, f"a tensor of {name} has a private format")
    return Prediction(SUCCESS, "")


def expected_outputs(
    spec: OpSpec, arrays: dict[str, list[np.ndarray]], scalars: dict[str, float], dtype: DType
) -> list[np.ndarray]:
    """The reference's float64 value of each output tensor for the input lists ``arrays`` of ``dtype`` and the
    scalars' values, each rounded to the dtype the kernel reads it in (:func:`scalar_tensor_dtype`; an INT32
    list's scalar an integer)."""
    ref = _reference_module(spec)
    inputs, _ = list_roles(spec)
    kernel = {n: np.float16 if scalar_tensor_dtype(spec, n, dtype) is DType.FLOAT16 else np.float32 for n in scalars}
    rounded = {n: int(v) if dtype.is_integer else float(kernel[n](v)) for n, v in scalars.items()}
    got = ref.reference(**{n: arrays[n] for n in inputs}, **rounded)
    return [np.asarray(v, dtype=np.float64) for v in got]


def dtype_of(call: ListCall, spec: OpSpec) -> DType:
    """The list dtype of a successful call (its first input list's first tensor's; FLOAT for an empty list)."""
    inputs, _ = list_roles(spec)
    first = call.lists[inputs[0]] or []
    return first[0].dtype if first else DType.FLOAT
