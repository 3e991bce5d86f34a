"""Boundary inputs derived from the comparisons of an elementwise formula.

Where a formula compares a tensor value with a host value (``where(self <= threshold, 0, g)``,
``where(beta * x > threshold, ...)``), the branch changes at one input value; a kernel that compares with
the wrong operator (``<`` for ``<=``), the wrong scalar or a wrong rounding of it differs from the reference
only there. :func:`boundary_inputs` finds, for every such comparison whose tensor side is an affine function
``a * x + b`` of one input ``x`` (``a != 0``; found by evaluating the side at three points), the boundary
``x* = (h - b) / a`` for the host side's value ``h`` under the case's attributes, and returns, per
comparison, an input array holding ``x*`` rounded to the case's dtype, one ULP of that dtype either side,
``+-0.0``, NaN and ``+-inf``. Nothing is listed per op: the comparisons of the spec's formula are all it
reads, after the rewrites of the formula compiler (so ``sign(x)`` contributes ``x > 0`` and ``x < 0``,
``log1p(x)`` its ``1 + x == 1``). Comparisons whose host side cannot be evaluated from the attributes alone
(a host scalar reading ``numel(out)``) and non-affine tensor sides are skipped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from codegen.families.elementwise.compiler.lowering import _inline_scalars, _lower
from codegen.families.elementwise.compute import ElementwiseCompute
from codegen.runner import numpy_dtype
from codegen.spec.expr import Compare, Expr, ExprEvalError, evaluate, names, walk
from codegen.spec.model import DType, OpSpec


@dataclass(frozen=True)
class Boundary:
    """One comparison's boundary: ``text`` names it (``self <= threshold at 0.5``), ``input`` is the input
    whose value decides it and ``value`` the boundary (float64)."""

    text: str
    input: str
    value: float


def _affine(side: Expr, x: str, env: Mapping[str, Any]) -> tuple[float, float] | None:
    """``(a, b)`` with ``side == a * x + b`` at three points, or None (not affine, or ``a == 0``)."""
    try:
        f = [float(evaluate(side, {**env, x: float(v)})) for v in (0.0, 1.0, 2.0)]  # type: ignore[arg-type]
    except (ExprEvalError, TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in f):
        return None
    a, a2 = f[1] - f[0], f[2] - f[1]
    if a == 0 or abs(a2 - a) > 1e-12 * max(1.0, abs(a)):
        return None
    return a, f[0]


def boundaries(spec: OpSpec, attrs: Mapping[str, Any]) -> list[Boundary]:
    """The boundaries of every tensor-vs-host comparison of ``spec``'s formulas under ``attrs``.

    Args:
        spec: an elementwise op.
        attrs: attribute name -> Python value (numbers; a ``scalar`` attribute's number).

    Returns:
        One :class:`Boundary` per comparison (duplicates dropped), in formula order; empty for other families.
    """
    compute = spec.compute
    if not isinstance(compute, ElementwiseCompute):
        return []
    inputs = {t.name for t in spec.inputs}
    by_name = {a.name: a for a in spec.attrs}
    env = {k: by_name[k].expr_value(v) if k in by_name else v for k, v in attrs.items()}
    env = {k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v) for k, v in env.items()}
    defs = dict(compute.scalars)
    out: list[Boundary] = []
    seen: set[tuple[str, float]] = set()
    for _, formula in compute.outputs:
        for node in walk(_lower(_inline_scalars(formula, defs), frozenset(inputs))):
            if not isinstance(node, Compare):
                continue
            lt, rt = names(node.left) & inputs, names(node.right) & inputs
            if bool(lt) == bool(rt):
                continue  # host-only or tensor-tensor
            tensor_side, host_side, used = (node.left, node.right, lt) if lt else (node.right, node.left, rt)
            if len(used) != 1:
                continue
            (x,) = used
            try:
                h = float(evaluate(host_side, env))  # type: ignore[arg-type]
            except (ExprEvalError, TypeError, ValueError):
                continue
            line = _affine(tensor_side, x, env)
            if line is None or not math.isfinite(h):
                continue
            value = (h - line[1]) / line[0]
            if not math.isfinite(value) or (x, value) in seen:
                continue
            seen.add((x, value))
            out.append(Boundary(f"{node} at {x} = {value:.9g}", x, value))
    return out


def boundary_values(value: float, dtype: DType) -> np.ndarray:
    """``value`` rounded to ``dtype``, one ULP of ``dtype`` below and above it, ``+-0.0``, NaN and ``+-inf``,
    as an array of ``dtype`` (duplicates kept: their order is fixed). For an integer ``dtype``: the integers
    from ``floor(value) - 2`` to ``ceil(value) + 2`` that ``dtype`` holds, 0 and its least and greatest
    values."""
    np_dt = numpy_dtype(dtype)
    if np.issubdtype(np_dt, np.integer):
        info = np.iinfo(np_dt)
        near = range(math.floor(value) - 2, math.ceil(value) + 3) if math.isfinite(value) else range(0)
        ints = [v for v in near if info.min <= v <= info.max] + [0, int(info.min), int(info.max)]
        return np.asarray(ints, dtype=np_dt)
    with np.errstate(over="ignore"):
        v = np.asarray([value], dtype=np.float64).astype(np_dt)
    below, above = _next(v, np_dt, -1), _next(v, np_dt, 1)
    special = np.asarray([0.0, -0.0, np.nan, np.inf, -np.inf], dtype=np.float64).astype(np_dt)
    return np.concatenate([below, v, above, special]).astype(np_dt)


def _next(v: np.ndarray, np_dt: Any, direction: int) -> np.ndarray:
    """The neighbour of ``v`` (one element) in ``np_dt`` toward ``direction`` (+1 up, -1 down), through the
    integer bit pattern (IEEE order), so that bfloat16 works as float16 and float32 do."""
    if not np.isfinite(v[0].astype(np.float64)):
        return v.copy()
    bits = v.view(np.uint16 if v.itemsize == 2 else np.uint32).astype(np.int64)
    sign_bit = 1 << (8 * v.itemsize - 1)
    b = int(bits[0])
    negative = b & sign_bit != 0
    if b & ~sign_bit == 0:  # +-0: the smallest subnormal of the requested sign
        b = 1 if direction > 0 else sign_bit | 1
    elif negative == (direction > 0):
        b -= 1  # toward zero
    else:
        b += 1  # away from zero
    out = np.asarray([b], dtype=np.uint16 if v.itemsize == 2 else np.uint32)
    return out.view(np_dt)
