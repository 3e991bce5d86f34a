"""The outputs a row-reduce call allocates when the caller passes none: shapes from the spec's shape rules,
dtypes from the matching dtype combination, poisoned as device memory."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from codegen.families.row_reduce.plan.tensors import combos
from codegen.runner import device_memory, numpy_dtype
from codegen.spec.model import OpSpec


def infer_output(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The output a call allocates when the caller passed none: the first input's shape and dtype, poisoned.
    With every input null, a 0-d fp32 output (phase 1 answers the null input with 161001 first)."""
    x = next((a for a in arrays.values() if a is not None), None)
    if x is None:
        return device_memory(1, np.dtype(np.float32), ())
    return device_memory(int(np.prod(x.shape, dtype=np.int64)), x.dtype, tuple(x.shape))


def infer_outputs(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any]) -> dict[str, np.ndarray]:
    """Every output a call allocates when the caller passed none, poisoned: the shape from the output's shape
    rule (the first input's shape when it cannot be evaluated, e.g. a null input: phase 1 answers first), the
    dtype of the dtype combination whose inputs match the arrays' dtypes (:func:`combos`; a null optional
    input matches any), else the first
    input's (an output whose combinations all give one dtype: that one)."""
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate

    first = infer_output(spec, arrays, attrs)
    present = {n: a for n, a in arrays.items() if a is not None}
    in_dtypes = {n: a.dtype for n, a in present.items() if isinstance(a, np.ndarray)}
    match = next(
        (
            c
            for c in combos(spec)
            if all(
                numpy_dtype(listed[n]) == in_dtypes[n] if n in in_dtypes else spec.tensor(n).optional
                for listed in (dict(c.dtypes),)
                for n in spec.input_names
                if n in listed  # an input no combination lists (a host input) is the L2 API's to check
            )
        ),
        None,
    )
    out: dict[str, np.ndarray] = {}
    for t in spec.outputs:
        shape = tuple(first.shape)
        if t.shape is not None:
            with contextlib.suppress(ExprEvalError):  # a null input: phase 1 answers it first
                shape = as_shape(evaluate(t.shape, {**present, **attrs}))
        dts = {c.dtype(t.name) for c in combos(spec)}
        if match is not None:
            dtype = numpy_dtype(match.dtype(t.name))
        elif len(dts) == 1 and spec.dtype_combos:
            dtype = numpy_dtype(next(iter(dts)))
        else:
            dtype = first.dtype
        out[t.name] = device_memory(int(np.prod(shape, dtype=np.int64)), np.dtype(dtype), shape)
    return out
