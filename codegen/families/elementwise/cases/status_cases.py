"""Status cases of an elementwise op: every documented error status, and a call that only one constraint
rejects for each constraint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from codegen.check.cases import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    Case,
    normal_array,
)
from codegen.check.constraints import applicable, call_env, rejected_by, violates
from codegen.families.elementwise.cases.planner_facts import _shape_anchor
from codegen.families.elementwise.cases.reduce_cases import _reduce_status_cases
from codegen.runner import ScalarArg, numpy_dtype
from codegen.spec.expr import ExprEvalError, Num, walk
from codegen.spec.model import SCALAR_ACL_IDS, Constraint, DType, OpSpec, Product


def _status_cases(
    spec: OpSpec, product: Product, dtypes: list[DType], attrs: dict[str, Any], rng: np.random.Generator
) -> Iterator[Case]:
    op = spec.snake
    inputs = [t.name for t in spec.inputs]
    out = spec.outputs[0].name
    dt = dtypes[0]
    good = {n: normal_array(rng, (4, 8), dt) for n in inputs}
    from codegen.families.elementwise.plan.reduce import REDUCE_KIND_NONE, reduce_kind, reduce_of

    red = reduce_of(spec)
    reduced = reduce_kind(spec, attrs) != REDUCE_KIND_NONE
    good_out = np.zeros(() if reduced else (4, 8), dtype=numpy_dtype(dt))

    def status(name: str, code: int, params: dict[str, Any], mode: str | None = None) -> Case:
        return Case(op, product.name, dt.name, "error", name, {**attrs, **params}, expect_status=code, mode=mode)

    for n in [*inputs, out]:
        if spec.tensor(n).optional:
            continue  # null is legal: the value cases run it
        p: dict[str, Any] = {**good, out: good_out, n: None}
        yield status(f"null {n} -> 161001", ACLNN_ERR_PARAM_NULLPTR, p)
    for a in spec.attrs:
        if a.type == "string":
            yield status(f"null {a.name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out, a.name: None})
            names = [n for _, n in a.values or ()]
            bad = "_".join(names) + "_x"  # no value of the list
            yield status(f"{a.name}={bad!r} -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out, a.name: bad})
            continue
        if a.type != "scalar":
            continue
        yield status(f"null {a.name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out, a.name: None})
        # every aclScalar dtype the attribute does not take (one check per dtype in the op_api's list)
        for d in [d for d in SCALAR_ACL_IDS if d not in a.scalar_dtypes]:
            p = {**good, out: good_out, a.name: ScalarArg(1, d)}
            yield status(f"{a.name} of dtype {d} -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    yield status(
        "null workspaceSize -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_workspace_size"
    )
    yield status("null executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, "null_executor")
    both = "null_workspace_size_and_executor"
    yield status("null workspaceSize and executor -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**good, out: good_out}, both)
    yield status("phase 2 twice -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out}, "phase2_twice")
    if red is not None:
        yield from _reduce_status_cases(spec, red, good, out, dt, status)
    from codegen.check.status_matrix import status_matrix

    # Every tensor's unsupported dtypes, rank bounds, rejected formats, wrong output dims, the null order.
    yield from status_matrix(spec, product, {**attrs, **good, out: good_out}, dt.name)
    nine = (1,) * 8 + (2,)
    yield status(
        "rank 9 -> 161002",
        ACLNN_ERR_PARAM_INVALID,
        {**{n: normal_array(rng, nine, dt) for n in inputs}, out: np.zeros(nine, numpy_dtype(dt))},
    )
    anchor = _shape_anchor(spec)
    last = [n for n in inputs if n != anchor][-1]
    p = {**good, out: good_out, last: normal_array(rng, (3, 8), dt)}
    yield status("shapes do not broadcast -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    # every other input that the shape check takes in a step of its own (the first of a broadcast starts it)
    for n in [n for n in inputs[1:] if n not in (anchor, last)]:
        p = {**good, out: good_out, n: normal_array(rng, (3, 8), dt)}
        yield status(f"{n} does not broadcast -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    if anchor is not None:
        # Broadcastable together, but not to the anchor's shape (which the output takes).
        small = {**good, anchor: normal_array(rng, (1, 8), dt), out: np.zeros((1, 8), numpy_dtype(dt))}
        yield status(f"{last} does not broadcast to {anchor} -> 161002", ACLNN_ERR_PARAM_INVALID, small)
    yield status("wrong out shape -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: np.zeros((4, 9), numpy_dtype(dt))})
    for a in spec.attrs:
        if a.values and a.type != "string":  # a string attr's invalid text is a case above
            allowed = [v for v, _ in a.values]
            for bad_v in (max(allowed) + 1, min(allowed) - 1):
                yield status(
                    f"{a.name}={bad_v} -> 161002", ACLNN_ERR_PARAM_INVALID, {**good, out: good_out, a.name: bad_v}
                )
    base = {**attrs, **good, out: good_out}
    for c in applicable(spec, product):
        found = _violation(spec, product, c, base, rng)
        if found is None:
            continue
        label, params = found
        yield status(f"{c.name}: {label} -> {c.status}", c.status, params)


def _violation(
    spec: OpSpec, product: Product, c: Constraint, base: dict[str, Any], rng: np.random.Generator
) -> tuple[str, dict[str, Any]] | None:
    """A call that only ``c`` rejects, derived from the valid call ``base`` by changing one attr (to values
    around the numbers in ``c``), the dtype of one tensor (to another it accepts on ``product``) or the shape of
    an input (to one that still broadcasts to the call's shape, the output's input left as it is: the shape
    checks run before the constraints); None when no such change violates ``c``."""
    numbers = sorted(
        {
            float(e.value)
            for part in (c.when, c.require, *(e for _, e in c.let))
            if part is not None
            for e in walk(part)
            if isinstance(e, Num) and not isinstance(e.value, bool)
        }
    )
    trials: list[tuple[str, dict[str, Any]]] = []
    for a in spec.attrs:
        if a.values or a.type == "bool":
            continue
        candidates = sorted({v + d for v in [0.0, 1.0, *numbers] for d in (-1.0, -0.5, 0.0, 0.5, 1.0)})
        for v in candidates:
            value: Any = v if a.type in ("float", "double") else int(v)
            if a.type == "uint64" and value < 0:
                continue
            trials.append((f"{a.name}={value}", {**base, a.name: value}))
    for t in (*spec.inputs, *spec.outputs):
        array = base.get(t.name)
        if not isinstance(array, np.ndarray):
            continue
        for d in t.dtypes_for(product):
            if numpy_dtype(d) != array.dtype:
                trials.append((f"{t.name} {d.name}", {**base, t.name: array.astype(numpy_dtype(d))}))
    # an input of fewer elements that still broadcasts (a row, one element), or of another rank
    for t in spec.inputs:
        array = base.get(t.name)
        if isinstance(array, np.ndarray) and array.ndim == 2:
            for shape in ((1, array.shape[1]), (1, 1), (array.shape[1],)):
                trials.append(
                    (
                        f"{t.name} {list(shape)}",
                        {**base, t.name: normal_array(rng, shape, DType.FLOAT).astype(array.dtype)},
                    )
                )
    # a bool attr flipped together with a numeric attr on a number of the constraint (a rule on both)
    for b in [a for a in spec.attrs if a.type == "bool"]:
        flipped = {**base, b.name: not base.get(b.name, False)}
        trials.append((f"{b.name}={flipped[b.name]}", flipped))
        for a in [a for a in spec.attrs if a.type not in ("bool", "uint64") and not a.values]:
            for v in sorted({v + d for v in [0.0, 1.0, *numbers] for d in (-1.0, -0.5, 0.0, 0.5, 1.0)}):
                value = v if a.type in ("float", "double") else int(v)
                trials.append((f"{b.name}={flipped[b.name]}, {a.name}={value}", {**flipped, a.name: value}))
    anchor = _shape_anchor(spec)
    want = _broadcast_shape(spec, base)
    for label, params in trials:
        # the shape checks come before the constraints: a trial whose inputs no longer broadcast to the base call's
        # shape, or that changes the input whose shape the output takes, is rejected by them, not by ``c``
        if _broadcast_shape(spec, params) != want or (
            anchor is not None
            and getattr(params.get(anchor), "shape", None) != getattr(base.get(anchor), "shape", None)
        ):
            continue
        try:
            if violates(c, call_env(spec, product, params)) and rejected_by(spec, product, params) is c:
                return label, params
        except ExprEvalError:
            continue
    return None


def _broadcast_shape(spec: OpSpec, params: dict[str, Any]) -> tuple[int, ...] | None:
    """The broadcast shape of the call's input arrays (None when they do not broadcast)."""
    shapes = [v.shape for t in spec.inputs if isinstance(v := params.get(t.name), np.ndarray)]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None
