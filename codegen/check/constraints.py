"""Python evaluation of spec ``constraints`` on a call (NumPy arrays and attr values), which the check cases use
to find accepted calls and to build calls that must be rejected (the C++ of the same constraints is
:mod:`codegen.plan.constraints`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from codegen.runner import dtype_of_array
from codegen.spec.expr import ExprEvalError, evaluate
from codegen.spec.model import Constraint, DType, OpSpec, Product


def violates(constraint: Constraint, env: Mapping[str, object]) -> bool:
    """Whether ``constraint`` rejects a call described by ``env`` (attrs, tensors, ``coreNum``, ``ubBytes``,
    dtype names). Used by the check cases to find accepted calls and the boundary of a documented limit.

    Raises:
        codegen.spec.expr.ExprEvalError: a name is missing from ``env``.
    """
    scope = dict(env)
    for name in DType.__members__:
        scope.setdefault(name, DType[name])
    if constraint.when is not None and not evaluate(constraint.when, scope):
        return False
    for name, e in constraint.let:
        scope[name] = evaluate(e, scope)
    return not bool(evaluate(constraint.require, scope))


class _Allocated:
    """An output the call allocates (left out of its parameters): present, of a shape not known here."""


#: The stand-in of every output a call allocates: ``present()`` is True, a shape or dtype query fails to evaluate.
ALLOCATED = _Allocated()


class TensorStandIn:
    """A tensor for constraint evaluation: ``shape`` (a tuple of ints) and ``dtype`` (a :class:`DType`)."""

    def __init__(self, shape: tuple[int, ...], dtype: DType) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype


def call_env(spec: OpSpec, product: Product, params: Mapping[str, Any]) -> dict[str, object]:
    """The evaluation environment of one call: NumPy arrays become :class:`TensorStandIn` (a null optional
    input, or a nullable output given as None, is None: ``present()`` is False, any other use fails to
    evaluate; a nullable output left out of ``params`` is :data:`ALLOCATED`: the call allocates it, so it is
    present), attrs keep
    their values (uint64 read as int64), plus ``coreNum`` and ``ubBytes`` of ``product``."""
    env: dict[str, object] = {}
    for t in (*spec.inputs, *spec.outputs):
        value = params.get(t.name)
        if isinstance(value, np.ndarray):
            env[t.name] = TensorStandIn(value.shape, dtype_of_array(value))
        elif value is None and (t.optional or (t.nullable and t.name in params)):
            env[t.name] = None
        elif t.nullable:
            env[t.name] = ALLOCATED  # left out of params: the call allocates it
    for a in spec.attrs:
        value = params.get(a.name, a.default)
        if value is None:
            continue
        if a.type == "uint64":
            v = int(value) & ((1 << 64) - 1)
            value = v - (1 << 64) if v >= 1 << 63 else v
        env[a.name] = a.expr_value(value)  # a string attr's text -> the index of its value
    env["coreNum"] = product.vector_core_num
    env["ubBytes"] = product.ub_bytes
    return env


def applicable(spec: OpSpec, product: Product) -> list[Constraint]:
    """The constraints of ``spec`` that apply on ``product``."""
    return [c for c in spec.constraints if product.name in c.products]


def rejected_by(spec: OpSpec, product: Product, params: Mapping[str, Any]) -> Constraint | None:
    """The first constraint of ``spec`` on ``product`` that rejects the call ``params``, or None (a
    constraint that cannot be evaluated on the call, e.g. it reads an absent tensor, does not reject)."""
    env = call_env(spec, product, params)
    for c in applicable(spec, product):
        try:
            if violates(c, env):
                return c
        except ExprEvalError:
            continue
    return None
