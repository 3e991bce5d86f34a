"""An independent model of the aclnn L2 contract of an elementwise-family op, derived from its spec (the
row_reduce, index_accumulate and gather_scatter families: :mod:`l2_model.rows`, :mod:`l2_model.index`,
:mod:`l2_model.gather`).

Given a call (each tensor's shape, dtype, storage format or null pointer; the attribute values; the output
tensors) the model predicts the status phase 1 returns and, for a success, the output values. It reads only
the op's :class:`~codegen.spec.model.OpSpec` (tensors, attrs, constraints, ``compute.promote``/``reduce``),
the catalogue's :class:`~codegen.spec.model.Product`, the spec's expression evaluator (constraints, shape
rules) and the op's NumPy reference in ``reference/``; nothing of the check matrix, the case rules or the
planners that generate the L2 code it judges.

The rules, in CANN's order (``ascend-platform.md``, "Check order in CANN's hand-written L2 code"; CANN's
``OP_CHECK_NULL``/``OP_CHECK_DTYPE_NOT_SUPPORT``/``OP_CHECK_MAX_DIM`` in ops-nn's op_api sources):

1. a null required input, a null output, a null scalar attribute or a null array attribute (``int_array``,
   ``bool_array``): ``ACLNN_ERR_PARAM_NULLPTR`` (161001);
2. a tensor dtype outside the tensor's list for the product (``TensorSpec.dtypes_for``), or an aclScalar
   dtype outside the attribute's ``scalar_dtypes``: 161002;
3. a rank outside the tensor's ``rank`` range: 161002;
4. inputs that do not broadcast to the output shape, or an output whose shape is not the spec's shape rule
   (for a ``reduce`` op with reduction mean or sum: 0-d), or an attribute value outside its ``values``:
   161002;
5. a storage format outside the tensor's ``formats``: 161002;
5a. an array attribute whose length is outside its ``length`` range: 161002 (checked after the tensors, before
   the constraints);
6. each spec constraint (``when`` on the product and call) whose ``require`` is false: its ``status``;
7. otherwise success; an empty output has no values to compare.

Every rejection of 2 to 6 is 161002 unless a constraint names another status, so their relative order only
decides which message is logged, never the status; 1 comes first (a null tensor beside an invalid one is
161001).

Values: the inputs are promoted to one compute dtype (``compute.promote``: op::PromoteType over FLOAT,
FLOAT16 and BF16: equal dtypes stay, any other pair is FLOAT), the reference is evaluated exactly (float64)
on the input values, and the result is rounded to the compute dtype and then to the output's dtype (the L2
API's ``l0op::Cast`` of the kernel result), so its precision is that of the coarser of the two.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from codegen.paths import project_paths
from codegen.spec.expr.evaluation import evaluate
from codegen.spec.model import AttrSpec, DType, OpSpec, Product

_REFERENCES: dict[str, Any] = {}

SUCCESS = 0
NULLPTR = 161001
INVALID = 161002

#: NumPy storage of the float dtypes the model draws
NUMPY = {
    DType.FLOAT: np.dtype(np.float32),
    DType.FLOAT16: np.dtype(np.float16),
    DType.BF16: np.dtype(ml_dtypes.bfloat16),
    DType.DOUBLE: np.dtype(np.float64),
}
#: precision (stored mantissa bits) of each float dtype: the coarser of two dtypes has fewer
MANTISSA = {DType.FLOAT: 23, DType.FLOAT16: 10, DType.BF16: 7, DType.DOUBLE: 52}


@dataclass(frozen=True)
class Tensor:
    """One tensor argument of a call: ``None`` shape = a null pointer; ``fmt`` the storage format name."""

    shape: tuple[int, ...] | None
    dtype: DType = DType.FLOAT
    fmt: str = "ND"

    @property
    def null(self) -> bool:
        return self.shape is None


@dataclass
class Call:
    """A call of an op: tensors (inputs and outputs) by aclnn name, attribute values by name."""

    tensors: dict[str, Tensor]
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Prediction:
    """The predicted phase-1 status and, for a success, the rule that failed (``''``) or the reason."""

    status: int
    reason: str


class _EnvTensor:
    """A tensor as the spec's expressions see it: ``shape`` and ``dtype`` (functions ``rank``, ``numel``,
    ``dtype``, ``broadcast`` read them)."""

    def __init__(self, t: Tensor) -> None:
        self.shape = t.shape if t.shape is not None else ()
        self.dtype = t.dtype


def promote(dtypes: list[DType]) -> DType:
    """op::PromoteType over float dtypes: one dtype stays itself, two different ones give FLOAT."""
    distinct = set(dtypes)
    return dtypes[0] if len(distinct) == 1 else DType.FLOAT


def coarser(a: DType, b: DType) -> DType:
    """The dtype of fewer mantissa bits (``a`` when equal)."""
    return b if MANTISSA[b] < MANTISSA[a] else a


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def _env(spec: OpSpec, call: Call) -> dict[str, object]:
    env: dict[str, object] = {d.name: d for d in DType}
    nullable = {o.name for o in spec.outputs if o.nullable}
    for name, t in call.tensors.items():
        # a nullable output passed as null is absent: ``present()`` is false for it
        env[name] = None if t.null and name in nullable else _EnvTensor(t)
    for a in spec.attrs:
        env[a.name] = attr(spec, call, a.name)
    return env


def attr(spec: OpSpec, call: Call, name: str) -> Any:
    """The value of attribute ``name`` in ``call`` (its default when omitted; an aclScalar's number)."""
    value = call.attrs.get(name, spec.attr(name).default)
    return getattr(value, "value", value)


def rule_shape(spec: OpSpec, call: Call) -> tuple[int, ...] | None:
    """The first output's shape rule (``TensorSpec.shape``) evaluated on the call (a null optional input as
    the 0-d shape, which broadcasts away); None when its inputs do not broadcast."""
    rule = spec.outputs[0].shape
    if rule is None:
        return None
    env = _env(spec, call)
    try:
        value = evaluate(rule, env)
    except Exception:  # the rule's broadcast failed
        return None
    return tuple(value.shape) if isinstance(value, _EnvTensor) else tuple(value)  # type: ignore[arg-type]


def output_shape(spec: OpSpec, call: Call) -> tuple[int, ...] | None:
    """The first output's expected shape: 0-d for a ``reduce`` op whose reduction attribute is not ``none``,
    else :func:`rule_shape`."""
    reduce = getattr(spec.compute, "reduce", None)
    if reduce is not None and attr(spec, call, reduce.attr) != reduce.none:
        return ()
    return rule_shape(spec, call)


def predict(spec: OpSpec, product: Product, call: Call) -> Prediction:
    """The status of ``call`` on ``product`` (see the module doc for the rules and their order)."""
    t = call.tensors
    for ts in (*spec.inputs, *spec.outputs):
        if t[ts.name].null and not ts.optional:
            return Prediction(NULLPTR, f"{ts.name} is null")
    for a in spec.attrs:
        if a.type == "scalar" and call.attrs.get(a.name, a.default) is None:
            return Prediction(NULLPTR, f"{a.name} is null")
    found = null_array(spec, call)
    if found is not None:
        return found
    for a in spec.attrs:
        scalar_dtype = getattr(call.attrs.get(a.name), "dtype", None)
        if a.type == "scalar" and scalar_dtype is not None and scalar_dtype not in a.scalar_dtypes:
            return Prediction(INVALID, f"{a.name} aclScalar dtype {scalar_dtype} not accepted")
    present = [ts for ts in (*spec.inputs, *spec.outputs) if not t[ts.name].null]
    for ts in present:
        if t[ts.name].dtype not in ts.dtypes_for(product):
            return Prediction(INVALID, f"{ts.name} dtype {t[ts.name].dtype.name} not supported on {product.name}")
    for ts in present:
        lo, hi = ts.rank
        if not lo <= len(t[ts.name].shape or ()) <= hi:
            return Prediction(INVALID, f"{ts.name} rank outside [{lo}, {hi}]")
    inputs = [ts for ts in spec.inputs if not t[ts.name].null]
    in_shape = _broadcast([t[ts.name].shape or () for ts in inputs])
    if in_shape is None:
        return Prediction(INVALID, "inputs do not broadcast")
    if math.prod(in_shape) >= 2**63:
        return Prediction(INVALID, "broadcast shape overflows int64")
    want = output_shape(spec, call)
    full = rule_shape(spec, call)
    if want is None or full is None or _broadcast([in_shape, full]) != full:
        return Prediction(INVALID, "inputs do not broadcast to the output shape")
    for o in spec.outputs:
        if t[o.name].shape != want:
            return Prediction(INVALID, f"{o.name} shape {t[o.name].shape} is not {want}")
    for a in spec.attrs:
        if a.values is not None and attr(spec, call, a.name) not in attr_values(a):
            return Prediction(INVALID, f"{a.name} not one of its values")
    for ts in present:
        if t[ts.name].fmt not in ts.formats:
            return Prediction(INVALID, f"{ts.name} format {t[ts.name].fmt} not accepted")
    found = array_length(spec, call) or _constraints_status(spec, product, call)
    return found if found is not None else Prediction(SUCCESS, "")


def null_array(spec: OpSpec, call: Call) -> Prediction | None:
    """161001 for the first array attribute (``int_array``, ``bool_array``) the call passes as None (or
    omits without a default), else None."""
    for a in spec.attrs:
        if a.is_array and call.attrs.get(a.name, a.default) is None:
            return Prediction(NULLPTR, f"{a.name} is null")
    return None


def array_length(spec: OpSpec, call: Call) -> Prediction | None:
    """161002 for the first array attribute whose number of elements is outside its ``length`` range, else
    None."""
    for a in spec.attrs:
        value = call.attrs.get(a.name, a.default)
        if a.is_array and a.length is not None and value is not None and not a.length[0] <= len(value) <= a.length[1]:
            return Prediction(INVALID, f"{a.name} has {len(value)} elements, not {a.length[0]} to {a.length[1]}")
    return None


def _constraints_status(spec: OpSpec, product: Product, call: Call) -> Prediction | None:
    """The first spec constraint of ``product`` whose ``require`` is false (its status), else None; the
    expressions see the call's tensors and attrs, ``product`` and the platform's ``coreNum``/``ubBytes``."""
    env = _env(spec, call)
    env.update({"product": product.name, "coreNum": product.vector_core_num, "ubBytes": product.ub_bytes})
    for c in spec.constraints:
        if c.products and product.name not in c.products:
            continue
        local = dict(env)
        for name, expr in c.let:
            local[name] = evaluate(expr, local)
        if c.when is not None and not evaluate(c.when, local):
            continue
        if not evaluate(c.require, local):
            return Prediction(c.status, f"constraint {c.name}")
    return None


def attr_values(attr: AttrSpec) -> list[object]:
    """The values an attribute with ``values`` accepts: their names for a ``string`` attribute (the C API takes
    the name), else their integers."""
    assert attr.values is not None
    return [name if attr.type == "string" else value for value, name in attr.values]


def _reference_module(spec: OpSpec) -> Any:
    """The op's module of ``reference/`` (loaded once)."""
    if spec.snake in _REFERENCES:
        return _REFERENCES[spec.snake]
    path = project_paths().root / "reference" / f"{spec.snake}.py"
    module_spec = importlib.util.spec_from_file_location(f"l2model_reference_{spec.snake}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    _REFERENCES[spec.snake] = module
    return module


def expected_outputs(
    spec: OpSpec, call: Call, arrays: Mapping[str, np.ndarray | None]
) -> tuple[list[np.ndarray], list[DType]]:
    """For a successful call: each output's expected values (float64, the output's shape) and the dtype whose
    precision bounds it (the coarser of the compute dtype and the output dtype).

    ``arrays`` holds each input's values (None for a null optional input).
    """
    ref = _reference_module(spec).reference
    promoted = [call.tensors[n].dtype for n in getattr(spec.compute, "promote", ()) if not call.tensors[n].null]
    compute = promote(promoted) if promoted else call.tensors[spec.inputs[0].name].dtype
    full = rule_shape(spec, call)
    kwargs: dict[str, Any] = {}
    for ts in spec.inputs:
        a = arrays[ts.name]
        if a is not None and full is not None and a.shape != full and a.size == math.prod(full):
            a = a.reshape(full)  # a constraint of equal element counts: the API reads it as the output's shape
        kwargs[ts.name] = None if a is None else np.asarray(a, np.float64)
    for a in spec.attrs:
        kwargs[a.name] = attr(spec, call, a.name)
    result = ref(**kwargs)
    outs = list(result) if isinstance(result, tuple) else [result]
    bounds = [coarser(compute, call.tensors[o.name].dtype) for o in spec.outputs]
    return [np.asarray(o, np.float64) for o in outs], bounds


def within(got: np.ndarray, want: np.ndarray, precision: DType, out_dtype: DType) -> np.ndarray:
    """Elementwise: ``got`` (the output) agrees with ``want`` (float64) rounded to ``precision`` and then to
    ``out_dtype``: NaN where the reference is NaN, the same infinity where it is infinite, and elsewhere within
    ``tol * (1 + |want|)`` with ``tol`` the larger of 4 units in the last place of ``precision`` and ``2**-13``
    (the kernel's fp32 steps lose bits to cancellation, as the tanh form of GeluBackwardV2 near its zero; the
    model judges statuses and gross value errors, the check's derived bound the last bits).
    """
    g = np.asarray(got, np.float64)
    with np.errstate(over="ignore"):  # beyond the dtype's range the rounding is an infinity
        w = np.asarray(want, np.float64).astype(NUMPY[precision]).astype(NUMPY[out_dtype]).astype(np.float64)
    tol = max(4 * 2.0 ** -MANTISSA[precision], 2.0**-13)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(g - w) <= tol * (1 + np.abs(w))
    return np.where(np.isnan(w), np.isnan(g), np.where(np.isinf(w), g == w, close))
