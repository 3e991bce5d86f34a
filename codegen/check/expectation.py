"""The verdict on one call's outputs: what they are compared with (the reference's value and bound) and the
comparison, each kept for the next core order of the same case."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from codegen.check.compare import compare
from codegen.check.reference import (
    DEFAULT_RTOL,
    ReferenceCallError,
    call_reference,
    case_tolerance,
    check_reference_shape,
    explain_bound,
    reference_tolerance,
    reference_where,
)
from codegen.spec.model import OpSpec, Product


def _compare_outputs(
    spec: OpSpec,
    product: Product | None,
    ref: ModuleType,
    ref_params: dict[str, Any],
    got: tuple[np.ndarray | None, ...],
) -> tuple[bool, float, float, str, float, str]:
    """Every output of one call against the reference: ``(passed, max abs error, max ULP error, message,
    bound, tolerance source)``. One output: ``reference(**params)`` is its float64 result and the bound is
    :func:`codegen.check.reference.case_tolerance`'s. Several outputs: ``reference`` returns a tuple (output order) and
    ``tolerance(**params)`` returns ``(atol_0, ..., atol_{n-1}, rtol)``; without ``tolerance()`` each output
    gets the default bound. The message names each output that fails (``name: detail``)."""
    if any(t.is_list for t in spec.outputs):
        return _compare_lists(spec, product, ref, ref_params, got)
    shapes = tuple(None if g is None or isinstance(g, tuple) else tuple(np.shape(g)) for g in got)
    value = _expectation(spec, product, ref, ref_params, len(got), shapes)
    if _VERDICT_MEMO and _VERDICT_MEMO[0][0] is value and _same_bits(_VERDICT_MEMO[0][1], got):
        return _VERDICT_MEMO[0][2]
    verdict = _judge(spec, ref, value, got)
    # copies: an ``out=`` array of the case is written again, in place, by the case's next core order
    _VERDICT_MEMO[:] = [(value, tuple(None if g is None else np.array(g, copy=True) for g in got), verdict)]
    return verdict


def _compare_lists(
    spec: OpSpec, product: Product | None, ref: ModuleType, ref_params: dict[str, Any], got: tuple[Any, ...]
) -> tuple[bool, float, float, str, float, str]:
    """:func:`_compare_outputs` of an op with tensor-list outputs (``list: true``): the reference returns, per
    list output, a list of float64 arrays (a tuple of one entry per output when there are several), and each
    tensor of a list is compared with its own as one output is (the bound of
    :func:`codegen.check.reference.case_tolerance` for that tensor), named ``out[i]`` in the message; a list of
    another length than the reference's fails. The lists' tensors hold their own bytes, so nothing is kept for
    the next core order beyond what the reference costs."""
    results = call_reference(ref, ref_params)
    if len(spec.outputs) == 1:
        results = (results,)
    ok, max_abs, max_ulp, bound, parts, source = True, 0.0, 0.0, 0.0, [], "default"
    for t, g, e in zip(spec.outputs, got, results):
        if g is None:
            continue
        pairs = [(t.name, g, e)]
        if t.is_list:
            expected_list, got_list = list(e), list(g)
            if len(expected_list) != len(got_list):
                ok = False
                parts.append(f"{t.name}: {len(got_list)} tensors, the reference {len(expected_list)}")
                continue
            pairs = [(f"{t.name}[{i}]", gi, ei) for i, (gi, ei) in enumerate(zip(got_list, expected_list))]
        for name, gi, ei in pairs:
            expected = np.asarray(ei, dtype=np.float64)
            atol, rtol, source = case_tolerance(spec, product, ref, ref_params, expected)
            cmp = compare(np.asarray(gi), expected, atol, rtol)
            ok = ok and cmp.ok
            max_abs, max_ulp = max(max_abs, cmp.max_abs_err), max(max_ulp, cmp.max_ulp_err)
            bound = max(bound, cmp.bound)
            if not cmp.ok:
                parts.append(f"{name}: {cmp.detail}")
    message = "; ".join(parts)
    if not ok:
        message = f"{message} ({explain_bound(source, ref)})"
    return ok, max_abs, max_ulp, message, bound, source


#: The last verdict of :func:`_compare_outputs` in this process: ``(expectation, outputs, verdict)``. The
#: next core order of the same case (same expectation object, see :func:`_expectation`) whose outputs are
#: bit for bit the same gets the same verdict without comparing again: the rule is a function of the
#: output bits, the reference and the bound only.
_VERDICT_MEMO: list[tuple[Any, tuple[np.ndarray | None, ...], tuple[bool, float, float, str, float, str]]] = []


def _same_bits(a: tuple[np.ndarray | None, ...], b: tuple[np.ndarray | None, ...]) -> bool:
    """Whether the arrays of ``a`` and ``b`` have pairwise the same shape, dtype and bytes."""
    return len(a) == len(b) and all(
        (x is None and y is None)
        or (
            x is not None
            and y is not None
            and x.shape == y.shape
            and x.dtype == y.dtype
            and _bit_differences(np.asarray(x), np.asarray(y)) == 0
        )
        for x, y in zip(a, b)
    )


def _judge(
    spec: OpSpec, ref: ModuleType, value: Any, got: tuple[np.ndarray | None, ...]
) -> tuple[bool, float, float, str, float, str]:
    """:func:`_compare_outputs` of ``got`` against the expectation ``value`` (:func:`_expectation`'s)."""
    if len(got) == 1:
        expected, atol, rtol, source = value
        cmp = compare(np.asarray(got[0]), expected, atol, rtol)
        message = cmp.detail if cmp.ok else f"{cmp.detail} ({explain_bound(source, ref)})"
        return cmp.ok, cmp.max_abs_err, cmp.max_ulp_err, message, cmp.bound, source
    results, atols, rtol, source = value
    ok, max_abs, max_ulp, bound, parts = True, 0.0, 0.0, 0.0, []
    for name, g, e, atol in zip(spec.output_names, got, results, atols):
        if g is None:  # a nullable output the call passed as null: not produced, nothing to compare
            continue
        cmp = compare(np.asarray(g), np.asarray(e, dtype=np.float64), atol, rtol)
        ok = ok and cmp.ok
        max_abs, max_ulp, bound = max(max_abs, cmp.max_abs_err), max(max_ulp, cmp.max_ulp_err), max(bound, cmp.bound)
        if not cmp.ok or cmp.detail:
            parts.append(f"{name}: {cmp.detail}")
    message = "; ".join(parts)
    if not ok:
        message = f"{message} ({explain_bound(source, ref)})"
    return ok, max_abs, max_ulp, message, bound, source


#: The last expectation computed in this process: ``(key, inputs kept alive, value)``, see :func:`_expectation`.
_EXPECTATION_MEMO: list[tuple[tuple[Any, ...], tuple[Any, ...], Any]] = []


def _expectation(
    spec: OpSpec,
    product: Product | None,
    ref: ModuleType,
    ref_params: dict[str, Any],
    outputs: int,
    shapes: tuple[tuple[int, ...] | None, ...] = (),
) -> tuple[Any, Any, Any, str]:
    """What one call's outputs are compared with: ``(expected, atol, rtol, source)`` for one output (``expected``
    float64, the tolerance of :func:`codegen.check.reference.case_tolerance`), ``(results, atols, rtol, source)``
    for several (the reference's tuple and ``tolerance()``'s atols, or zeros and
    :data:`codegen.check.reference.DEFAULT_RTOL`).

    The units of one case (the same inputs under several core orders, :func:`codegen.check.worker.case_units`)
    follow each other in a worker, so the last value is kept and reused when the reference module, op,
    product and the very same input objects come again: the reference and the derived bound (most of a
    large case's time) run once per case instead of once per core order. The inputs are made read-only
    when they are first used, so a reference or call that would change them in place fails loudly instead
    of making a kept value stale.

    ``shapes`` are the call's output shapes (None where not known): the reference's arrays must have them.

    Raises:
        ReferenceCallError: the reference called ``sys.exit``, returned None, or an array of another shape
            than its output's (:func:`codegen.check.reference.call_reference`).
        ValueError: a reference of several outputs does not return a tuple of that many arrays.
        ToleranceError: its ``tolerance()`` does not return one atol per output and an rtol, each finite and
            non-negative (:func:`codegen.check.reference.reference_tolerance`).
    """
    arrays = tuple(v for v in ref_params.values() if isinstance(v, np.ndarray))
    key: tuple[Any, ...] = (id(ref), spec.snake, getattr(product, "name", None), outputs, shapes)
    key += tuple((name, id(value)) for name, value in sorted(ref_params.items()) if isinstance(value, np.ndarray))
    key += tuple((name, repr(value)) for name, value in sorted(ref_params.items()) if not isinstance(value, np.ndarray))
    if _EXPECTATION_MEMO and _EXPECTATION_MEMO[0][0] == key:
        return _EXPECTATION_MEMO[0][2]
    _EXPECTATION_MEMO.clear()
    for a in arrays:
        a.flags.writeable = False
    if outputs == 1:
        returned = call_reference(ref, ref_params)
        check_reference_shape(ref, spec.output_names[0], returned, shapes[0] if shapes else None)
        expected = np.asarray(returned, dtype=np.float64)
        atol, rtol, source = case_tolerance(spec, product, ref, ref_params, expected, lazy=True)
        value: tuple[Any, Any, Any, str] = (expected, atol, rtol, source)
    else:
        results = call_reference(ref, ref_params)
        if not isinstance(results, tuple) or len(results) != outputs:
            raise ReferenceCallError(
                f"{reference_where(ref)} must return a tuple of {outputs} arrays ({', '.join(spec.output_names)}), "
                f"not {_what(results)}"
            )
        for name, result, shape in zip(spec.output_names, results, shapes or (None,) * outputs):
            check_reference_shape(ref, name, result, shape)
        if hasattr(ref, "tolerance"):
            tol = reference_tolerance(ref, ref_params, spec.output_names, results)
            value = (results, tol[:-1], tol[-1], "tolerance()")
        else:
            value = (results, (0.0,) * outputs, DEFAULT_RTOL, "default")
    for kept in (value[0] if outputs > 1 else (value[0],)) + (value[1] if outputs > 1 else (value[1],)):
        if isinstance(kept, np.ndarray):
            kept.flags.writeable = False  # compare() must not change what the next core order is judged by
    _EXPECTATION_MEMO.append((key, (ref, *arrays), value))
    return value


def _bit_differences(a: np.ndarray, b: np.ndarray) -> int:
    """Elements of ``a`` and ``b`` (same shape and dtype) whose bytes differ (NaN payloads and -0.0 count)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return max(a.size, b.size, 1)
    if a.size == 0:
        return 0
    if a.dtype.itemsize in (1, 2, 4, 8):  # one integer view per element: a single comparison pass
        ia = np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")
        ib = np.ascontiguousarray(b).view(f"u{b.dtype.itemsize}")
        return int(np.count_nonzero(ia != ib))
    ua = np.ascontiguousarray(a).view(np.uint8).reshape(a.size, -1)
    ub = np.ascontiguousarray(b).view(np.uint8).reshape(b.size, -1)
    return int(np.count_nonzero((ua != ub).any(axis=1)))


def _what(value: Any) -> str:
    """``a tuple of 3 values`` / ``a ndarray``: what a reference returned, for a message."""
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} values"
    return f"a {type(value).__name__}"
