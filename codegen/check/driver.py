"""The ``opgen check`` driver: build every (op, product), run its case matrix, compare, report."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from codegen import registry
from codegen.build import BuildError, build_example, build_op
from codegen.check.cases import DETERMINISM_RUNS, Case, determinism_cases, format_cases
from codegen.check.compare import compare
from codegen.check.results import CaseResult, Job, covered_name
from codegen.paths import project_paths, reference_dir_for
from codegen.runner import AclnnError, OpCallable, ScalarArg, attr_value, device_memory, format_ids, numpy_dtype
from codegen.spec.model import ACL_FORMATS, Catalogue, OpSpec, Product
from codegen.types import AclnnStatus, compute_dtypes


class ReferenceLoadError(Exception):
    """``reference/<op>.py`` exists but cannot be used: it raised while importing or lacks ``reference``."""


def load_reference(spec: OpSpec, reference_dir: Path | None = None) -> ModuleType:
    """Imports ``reference/<snake>.py`` (by path, so it works from a wheel install too); what the module
    prints while it is imported goes to stderr (stdout holds only the check's table and totals).

    Raises:
        FileNotFoundError: the reference module does not exist.
        ReferenceLoadError: importing the module raised (the message names the file and the exception), or it
            has no callable ``reference``.
    """
    directory = reference_dir or project_paths().reference
    path = directory / f"{spec.snake}.py"
    if not path.is_file():
        raise FileNotFoundError(f"reference not implemented: {path} does not exist")
    mod_spec = importlib.util.spec_from_file_location(f"opgen_reference_{spec.snake}", path)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    try:
        # stdout is the table's (and `--json /dev/stdout`'s): what the module prints goes to stderr
        with contextlib.redirect_stdout(sys.stderr):
            mod_spec.loader.exec_module(module)
    except Exception as exc:  # the user's module: any error is reported as the op's reference failure
        raise ReferenceLoadError(f"reference {path} failed to import: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(module, "reference", None)):
        raise ReferenceLoadError(f"reference {path} defines no function reference(**params) -> np.ndarray")
    return module


def _call_with(fn: Callable[..., Any], params: dict[str, Any]) -> Any:
    """``fn`` called with the entries of ``params`` that it names as parameters."""
    names = _parameter_names(fn)
    return fn(**{k: v for k, v in params.items() if k in names})


@functools.lru_cache(maxsize=256)
def _parameter_names(fn: Callable[..., Any]) -> frozenset[str]:
    """The parameter names of ``fn`` (``inspect.signature`` once per function: it costs tens of microseconds
    and a reference's ``reference`` / ``tolerance`` are called once per case)."""
    return frozenset(inspect.signature(fn).parameters)


def _summarise(stats: dict[str, Any]) -> dict[str, Any]:
    launches = stats.get("launches", [])
    out: dict[str, Any] = {"launches": []}
    for launch in launches:
        cores = launch.get("cores", [])
        total: dict[str, float] = {
            k: sum(int(c.get(k, 0)) for c in cores)
            for k in (
                "gm_bytes_read",
                "gm_bytes_written",
                "gm_bytes_atomic_added",
                "vector_instructions",
                "vector_elements",
                "dma_transfers",
                "dma_bytes",
            )
        }
        total["dma_mean_bytes"] = total["dma_bytes"] / total["dma_transfers"] if total["dma_transfers"] else 0.0
        total["ub_high_water_bytes"] = max((int(c.get("ub_high_water_bytes", 0)) for c in cores), default=0)
        out["launches"].append(
            {
                "kernel": launch.get("kernel"),
                "block_dim": launch.get("block_dim"),
                "tiling_key": launch.get("tiling_key"),
                "workspace_bytes": launch.get("workspace_bytes"),
                "tiling": launch.get("tiling"),
                "totals": total,
                "cores": cores,
            }
        )
    out["host_tasks"] = stats.get("host_tasks", [])
    return out


@contextlib.contextmanager
def quiet_numpy() -> Iterator[None]:
    """NumPy floating-point warnings (overflow, invalid, divide) stay inside the checker: references and
    comparisons meet inf and NaN on purpose, and the result table already reports every difference."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def run_case(fn: OpCallable, case: Case, ref: ModuleType) -> CaseResult:
    """Runs one case on a built op and judges it (NumPy floating-point warnings are not shown)."""
    with quiet_numpy():
        return _run_case(fn, case, ref)


#: Core orders that run the cores one at a time in a fixed order (``concurrent`` runs them on threads).
SEQUENTIAL_ORDERS = ("in_order", "reversed", "shuffle")

#: The last value unit of this process whose kernel launches each ran on one core: ``(fn, params,
#: run options, result)``. With at most one core per launch every sequential order is the same schedule
#: (the emulator's order only permutes the cores, runtime/src/device/launch.cpp), so the next sequential
#: order of the same case (the same ``params`` object, :func:`codegen.check.worker.case_units`) would repeat
#: the run exactly; it gets a copy of this result instead.
_ONE_CORE_MEMO: list[tuple[Any, dict[str, Any], tuple[Any, ...], CaseResult]] = []


def _run_options(case: Case) -> tuple[Any, ...]:
    return (case.deterministic, tuple(sorted(case.formats.items())), case.mode, case.expect_status)


def _run_case(fn: OpCallable, case: Case, ref: ModuleType) -> CaseResult:
    plain = case.expect_status is None and case.mode is None and case.core_order in SEQUENTIAL_ORDERS
    if plain and _ONE_CORE_MEMO:
        memo_fn, memo_params, memo_options, memo_result = _ONE_CORE_MEMO[0]
        if memo_fn is fn and memo_params is case.params and memo_options == _run_options(case):
            return replace(memo_result, ident=case.ident, name=case.name, seconds=0.0)
    _ONE_CORE_MEMO.clear()
    result = _run_case_once(fn, case, ref)
    if plain and result.counters.get("launches") and _one_core_schedule(result.counters):
        _ONE_CORE_MEMO.append((fn, case.params, _run_options(case), result))
    return result


#: The outputs of the last deterministic value unit run in this process: ``(fn, params, run options, core
#: order, seed, output copies)``, see :func:`_same_case_other_order`.
_DETERMINISTIC_MEMO: list[tuple[Any, dict[str, Any], tuple[Any, ...], str, int, tuple[np.ndarray, ...]]] = []


def _same_case_other_order(fn: OpCallable, case: Case, got: tuple[np.ndarray, ...]) -> str:
    """The bit differences (:func:`_order_difference`) between ``got``, the outputs of a deterministic value
    unit, and those of the unit run just before it in this process when that was the same case (the same
    ``params`` object and run options) under another core order, else ``""``; then keeps copies of ``got``
    for the next unit. The core orders of a case are consecutive units of one worker
    (:func:`codegen.check.worker.case_units`, one shard), and a deterministic call's output is a function of
    its inputs alone, whatever order the cores ran in: so the ``reversed`` unit of every multi-core
    deterministic value case is a two-order determinism check as well (a one-core call is not run again,
    see :func:`_run_case`)."""
    earlier = _DETERMINISTIC_MEMO[0] if _DETERMINISTIC_MEMO else None
    _DETERMINISTIC_MEMO.clear()
    options = _run_options(case)
    differ = ""
    same_case = earlier is not None and earlier[0] is fn and earlier[1] is case.params and earlier[2] == options
    if same_case and earlier is not None and (earlier[3], earlier[4]) != (case.core_order, case.seed):
        differ = _order_difference(fn.spec.output_names, earlier[5], got, earlier[3], case.core_order, case.seed)
    _DETERMINISTIC_MEMO.append(
        (fn, case.params, options, case.core_order, case.seed, tuple(np.array(g, copy=True) for g in got))
    )
    return differ


def _order_difference(
    names: tuple[str, ...] | list[str],
    first: tuple[np.ndarray, ...],
    other: tuple[np.ndarray, ...],
    first_order: str,
    order: str,
    seed: int,
) -> str:
    """``not bit-identical over core orders: ...`` naming the first output (of ``names``) whose bits differ
    between the runs under ``first_order`` and ``order`` (seed ``seed``) and how many elements do, or ``""``."""
    for name, got, again in zip(names, first, other):
        differ = _bit_differences(got, again)
        if differ:
            where = f" of {name}" if len(first) > 1 else ""
            return (
                f"not bit-identical over core orders: {differ} of {got.size} elements{where} differ "
                f"between {first_order} and {order} (seed {seed})"
            )
    return ""


#: The message of a passed determinism case whose call ran on one core (every launch): it ran once.
ONE_CORE_NOTE = (
    "ran on one core (every launch), so every core order is the same schedule: run once, not under each order"
)


def _one_core_schedule(counters: dict[str, Any]) -> bool:
    """Whether every kernel launch of a call (``counters`` of :func:`_summarise`) ran on at most one core (or
    the call launched none). Then every core order is the same schedule: the emulator's order only permutes
    the cores, a ``concurrent`` run of one core runs it on the calling thread as the sequential orders do
    (runtime/src/device/launch.cpp, ``Launch::Run``), and each run starts from the same state (fresh output
    copies, workspace poisoned again: :meth:`codegen.runner.OpCallable._workspace`). So a determinism case
    whose first run was such a call stops after it: the other six runs would repeat it bit for bit."""
    return all(int(launch.get("block_dim") or 0) <= 1 for launch in counters.get("launches", []))


def reference_params(spec: OpSpec, params: dict[str, Any]) -> dict[str, Any]:
    """The arguments a case's reference (and derived bound) takes from its aclnn parameters ``params``: every
    input and attribute, no output; an aclScalar of a chosen dtype (:class:`codegen.runner.ScalarArg`) as
    its number (True for a BOOL one)."""
    return {k: (v.value if isinstance(v, ScalarArg) else v) for k, v in params.items() if k not in spec.output_names}


def _run_case_once(fn: OpCallable, case: Case, ref: ModuleType) -> CaseResult:
    start = time.perf_counter()
    spec = fn.spec
    status = 0
    message = ""
    passed = False
    max_abs = max_ulp = bound = 0.0
    source = ""
    counters: dict[str, Any] = {}
    try:
        if case.expect_status is not None:
            status, message = _run_status_case(fn, case)
            passed = status == case.expect_status and (bool(message) or status == AclnnStatus.ACLNN_SUCCESS)
            if status != case.expect_status:
                message = f"expected status {case.expect_status}, got {status}: {message}"
            elif not message:
                message = "no error message (aclGetRecentErrMsg was empty)"
        elif case.mode == "tiling_2g":
            from codegen.check.offsets import check_offsets

            message = check_offsets(fn, case)
            passed = not message
        else:
            params = dict(case.params)
            runs = DETERMINISM_RUNS if case.mode == "determinism" else ((case.core_order, case.seed),)
            outputs: list[tuple[np.ndarray, ...]] = []
            if len(runs) == 1:
                _restore_outputs(case.params, spec.output_names)
            for order, seed in runs:
                fresh = _fresh_outputs(params, spec.output_names) if len(runs) > 1 else params
                result = fn(
                    core_order=order,
                    seed=seed,
                    deterministic=case.deterministic,
                    formats=case.formats or None,
                    **fresh,
                )
                # each run's outputs are its own arrays (fresh copies or allocated by the call): no copy needed
                outputs.append(tuple(np.asarray(r) for r in (result if isinstance(result, tuple) else (result,))))
                counters = _summarise(fn.last_stats)
                atomic = _atomic_bytes(spec, case, counters)
                if atomic:
                    raise _Verdict(
                        f"GM atomic add in a deterministic run ({order}): {atomic} bytes added with SetAtomicAdd, "
                        "but the spec declares deterministic_gm_atomics: false"
                    )
                if len(runs) > 1 and _one_core_schedule(counters):
                    break  # every other order is this very schedule again (see _one_core_schedule)
            got_all = outputs[0]
            ref_params = reference_params(spec, params)
            product = getattr(fn, "product", None)
            passed, max_abs, max_ulp, message, bound, source = _compare_outputs(spec, product, ref, ref_params, got_all)
            first = runs[0][0]
            for (order, seed), other in zip(runs[1:], outputs[1:]):
                differ = _order_difference(spec.output_names, got_all, other, first, order, seed)
                if differ:
                    passed, message = False, f"{differ}; {message}".rstrip("; ")
                    break
            if len(runs) == 1 and (spec.deterministic or case.deterministic):
                differ = _same_case_other_order(fn, case, got_all)
                if differ:
                    passed, message = False, f"{differ}; {message}".rstrip("; ")
            if len(runs) > 1 and len(outputs) == 1 and passed and not message:
                # the case's name promises several core orders; say why they were not run
                message = ONE_CORE_NOTE
    except (_Verdict, ToleranceError) as exc:
        message = str(exc)
    except AclnnError as exc:
        status, message = exc.status, exc.message
    except Exception as exc:  # a harness failure is a failed case, reported, never a crash of the run
        message = f"{type(exc).__name__}: {exc}"
    return CaseResult(
        case.ident,
        case.op,
        case.product,
        case.dtype,
        case.shape,
        case.name,
        passed,
        status,
        max_abs,
        max_ulp,
        message,
        time.perf_counter() - start,
        counters,
        bound=bound,
        bound_source=source,
    )


def _compare_outputs(
    spec: OpSpec, product: Product | None, ref: ModuleType, ref_params: dict[str, Any], got: tuple[np.ndarray, ...]
) -> tuple[bool, float, float, str, float, str]:
    """Every output of one call against the reference: ``(passed, max abs error, max ULP error, message,
    bound, tolerance source)``. One output: ``reference(**params)`` is its float64 result and the bound is
    :func:`case_tolerance`'s. Several outputs: ``reference`` returns a tuple (output order) and
    ``tolerance(**params)`` returns ``(atol_0, ..., atol_{n-1}, rtol)``; without ``tolerance()`` each output
    gets the default bound. The message names each output that fails (``name: detail``)."""
    value = _expectation(spec, product, ref, ref_params, len(got))
    if _VERDICT_MEMO and _VERDICT_MEMO[0][0] is value and _same_bits(_VERDICT_MEMO[0][1], got):
        return _VERDICT_MEMO[0][2]
    verdict = _judge(spec, ref, value, got)
    # copies: an ``out=`` array of the case is written again, in place, by the case's next core order
    _VERDICT_MEMO[:] = [(value, tuple(np.array(g, copy=True) for g in got), verdict)]
    return verdict


#: The last verdict of :func:`_compare_outputs` in this process: ``(expectation, outputs, verdict)``. The
#: next core order of the same case (same expectation object, see :func:`_expectation`) whose outputs are
#: bit for bit the same gets the same verdict without comparing again: the rule is a function of the
#: output bits, the reference and the bound only.
_VERDICT_MEMO: list[tuple[Any, tuple[np.ndarray, ...], tuple[bool, float, float, str, float, str]]] = []


def _same_bits(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    """Whether the arrays of ``a`` and ``b`` have pairwise the same shape, dtype and bytes."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and _bit_differences(np.asarray(x), np.asarray(y)) == 0
        for x, y in zip(a, b)
    )


def _judge(
    spec: OpSpec, ref: ModuleType, value: Any, got: tuple[np.ndarray, ...]
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
    spec: OpSpec, product: Product | None, ref: ModuleType, ref_params: dict[str, Any], outputs: int
) -> tuple[Any, Any, Any, str]:
    """What one call's outputs are compared with: ``(expected, atol, rtol, source)`` for one output (``expected``
    float64, the tolerance of :func:`case_tolerance`), ``(results, atols, rtol, source)`` for several (the
    reference's tuple and ``tolerance()``'s atols, or zeros and :data:`DEFAULT_RTOL`).

    The units of one case (the same inputs under several core orders, :func:`codegen.check.worker.case_units`)
    follow each other in a worker, so the last value is kept and reused when the reference module, op,
    product and the very same input objects come again: the reference and the derived bound (most of a
    large case's time) run once per case instead of once per core order. The inputs are made read-only
    when they are first used, so a reference or call that would change them in place fails loudly instead
    of making a kept value stale.

    Raises:
        ValueError: a reference of several outputs does not return a tuple of that many arrays.
        ToleranceError: its ``tolerance()`` does not return one atol per output and an rtol, each finite and
            non-negative (:func:`reference_tolerance`).
    """
    arrays = tuple(v for v in ref_params.values() if isinstance(v, np.ndarray))
    key: tuple[Any, ...] = (id(ref), spec.snake, getattr(product, "name", None), outputs)
    key += tuple((name, id(value)) for name, value in sorted(ref_params.items()) if isinstance(value, np.ndarray))
    key += tuple((name, repr(value)) for name, value in sorted(ref_params.items()) if not isinstance(value, np.ndarray))
    if _EXPECTATION_MEMO and _EXPECTATION_MEMO[0][0] == key:
        return _EXPECTATION_MEMO[0][2]
    _EXPECTATION_MEMO.clear()
    for a in arrays:
        a.flags.writeable = False
    if outputs == 1:
        expected = np.asarray(_call_with(ref.reference, ref_params), dtype=np.float64)
        atol, rtol, source = case_tolerance(spec, product, ref, ref_params, expected, lazy=True)
        value: tuple[Any, Any, Any, str] = (expected, atol, rtol, source)
    else:
        results = _call_with(ref.reference, ref_params)
        if not isinstance(results, tuple) or len(results) != outputs:
            raise ValueError(
                f"the reference of {spec.op} must return a tuple of {outputs} arrays ({', '.join(spec.output_names)})"
            )
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


#: The default tolerance of a family without a derived bound: 16 fp32 roundings, relative.
DEFAULT_RTOL = 16 * 2.0**-24


def case_tolerance(
    spec: OpSpec,
    product: Product | None,
    ref: ModuleType,
    params: dict[str, Any],
    expected: np.ndarray,
    lazy: bool = False,
) -> tuple[Any, Any, str]:
    """``(atol, rtol, source)`` for comparing one call's output with ``expected`` (float64).

    A reference module's ``tolerance(**params) -> (atol, rtol)`` wins (source ``tolerance()``). Otherwise a
    family that derives a bound (:meth:`codegen.registry.Family.derived_bound`, e.g. from the kernel's compiled
    instruction sequence and the call's inputs) gives it (atol per element, rtol ``2**-40`` for the
    reference's own float64 rounding; source ``derived``), and any other call ``atol = 0``, ``rtol = 16 * 2**-24``
    (source ``default``). :func:`codegen.check.compare.compare` adds half an ULP of the output dtype. With
    ``lazy`` a derived atol may be a :class:`codegen.check.compare.LazyAtol` (only for ``compare``).
    """
    if hasattr(ref, "tolerance"):
        atol, rtol = reference_tolerance(ref, params, ("out",), (expected,))
        return atol, rtol, "tolerance()"
    derived = (
        None if product is None else registry.family(spec.family).derived_bound(spec, product, params, expected, lazy)
    )
    if derived is not None:
        return derived, 2.0**-40, "derived"
    return 0.0, DEFAULT_RTOL, "default"


class ToleranceError(ValueError):
    """A reference module's ``tolerance()`` returned no usable bound: not one atol per output and an rtol, or
    a value that is infinite or negative (an infinite bound accepts anything). ``str()``
    is one line naming ``tolerance()`` in the reference file."""


def reference_tolerance(
    ref: ModuleType, params: dict[str, Any], outputs: Sequence[str], expected: Sequence[Any] | None = None
) -> tuple[Any, ...]:
    """``ref.tolerance(**params)`` checked: ``(atol, rtol)`` for one output, ``(atol_0, ..., atol_{n-1},
    rtol)`` for the ``outputs`` named; each a number or an array of non-negative numbers, none infinite. A NaN
    is allowed (references compute tolerances from inputs that may hold NaN): the comparison's ``err <= bound``
    is false for it, so it accepts nothing but a NaN where the reference is NaN. With ``expected`` (the
    reference's output per output name), an infinite atol is allowed at an element whose reference value is an
    infinity or NaN (it is compared by its kind there), never where it is finite; rtol is never infinite.

    Raises:
        ToleranceError: the wrong count of values, a value that is not numeric, or one holding an
            infinity or a negative number (the first such value named, with its element index).
    """
    where = f"tolerance() in {getattr(ref, '__file__', None) or 'the reference module'}"
    returned = _call_with(ref.tolerance, params)
    try:
        tol = tuple(returned)
    except TypeError:  # a bare number
        raise ToleranceError(f"{where} returned a {type(returned).__name__}, not a tuple (atol..., rtol)") from None
    if len(tol) != len(outputs) + 1:
        wanted = "an atol and an rtol" if len(outputs) == 1 else f"{len(outputs)} atols (one per output) and an rtol"
        raise ToleranceError(f"{where} must return {wanted}, not {len(tol)} values")
    names = (["atol"] if len(outputs) == 1 else [f"the atol of {name}" for name in outputs]) + ["rtol"]
    for k, (name, value) in enumerate(zip(names, tol)):
        try:
            values = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ToleranceError(f"{where} returned {name} of type {type(value).__name__}, not a number") from None
        infinite = np.isinf(values)
        if expected is not None and k < len(outputs) and infinite.any():
            finite_ref = np.isfinite(np.asarray(expected[k], dtype=np.float64))
            if finite_ref.shape == values.shape:  # else every infinity counts (a scalar atol covers finite values)
                infinite = infinite & finite_ref
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero((infinite | (values < 0)).reshape(-1))
        if bad.size:
            first = values.reshape(-1)[bad[0]]
            index = tuple(int(i) for i in np.unravel_index(int(bad[0]), values.shape))
            at = f" at element {index}" if values.ndim else ""
            raise ToleranceError(
                f"{where} returned {name} {float(first)!r}{at}: a bound must be finite and non-negative "
                "(an infinite bound accepts any output)"
            )
    return tol


def explain_bound(source: str, ref: ModuleType) -> str:
    """The clause a failure line adds about its bound: which ``tolerance()`` applied, or how to replace the
    derived or default one."""
    where = getattr(ref, "__file__", None) or "the reference module"
    if source == "tolerance()":
        return f"bound from tolerance() in {where}"
    if source == "derived":
        return (
            "bound derived from the kernel's instruction sequence and these inputs; a tolerance(**params) -> "
            f"(atol, rtol) in {where} replaces it"
        )
    return f"default bound rtol 16 * 2**-24; a tolerance(**params) -> (atol, rtol) in {where} replaces it"


class _Verdict(Exception):
    """A value case failed a rule other than the comparison (e.g. GM atomics in a deterministic run)."""


def _fresh_outputs(params: dict[str, Any], output_names: tuple[str, ...] | list[str] | None = None) -> dict[str, Any]:
    """``params`` with the arrays of ``output_names`` copied (an ``out=`` array is written in place by each
    run), every array when ``output_names`` is None. Input arrays need no copy: a call never writes them (the
    emulator stages inputs as read-only GM regions and writes back only the outputs and workspace), and the
    single-run path passes them uncopied too."""
    return {
        k: (np.array(v, copy=True) if isinstance(v, np.ndarray) and (output_names is None or k in output_names) else v)
        for k, v in params.items()
    }


#: The initial bytes of the ``out=`` arrays of the last case run in this process: ``(params, {name: copy})``.
_OUT_INITIAL: list[tuple[dict[str, Any], dict[str, np.ndarray]]] = []


def _restore_outputs(params: dict[str, Any], output_names: tuple[str, ...] | list[str]) -> None:
    """Gives the ``out=`` arrays of a case (output arrays in ``params``, written in place by a run) the
    bytes they had before the case's first run, so that each core order of the case starts from the same
    memory (poison, zeros, ...), not from what the previous order wrote there: a kernel that writes nothing
    under the second order would otherwise pass on the first order's output. The arrays keep their
    identity and layout (a strided view stays one); the first run of a case records the bytes."""
    outs = {n: params[n] for n in output_names if isinstance(params.get(n), np.ndarray)}
    if not outs:
        return
    if _OUT_INITIAL and _OUT_INITIAL[0][0] is params:
        for name, initial in _OUT_INITIAL[0][1].items():
            np.copyto(outs[name], initial)
        return
    _OUT_INITIAL[:] = [(params, {n: np.array(a, copy=True) for n, a in outs.items()})]


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


def _atomic_bytes(spec: OpSpec, case: Case, counters: dict[str, Any]) -> int:
    """GM bytes added atomically by a run that the spec promises adds none: a deterministic run (the op is
    deterministic, or the case requests the mode) of a spec with ``deterministic_gm_atomics: false``; else 0."""
    if spec.deterministic_gm_atomics or not (spec.deterministic or case.deterministic):
        return 0
    return sum(int(launch["totals"]["gm_bytes_atomic_added"]) for launch in counters.get("launches", []))


def launch_case(fn: OpCallable, case: Case) -> CaseResult:
    """Makes the aclnn calls of ``case`` that can launch a kernel, once, without judging them: the tiling-key
    pre-pass of :func:`launched_tiling_keys` (run in the runtime's listing mode, where a launch only records
    its key). A status case makes its calls (phase 1, and phase 2 for ``phase2_twice``); a value or
    determinism case calls the op once (its other runs launch the same keys); a ``tiling_2g`` case calls
    only the tiling, which launches nothing, and is skipped. A call's error is ignored (the real run judges
    it). Returns a passed result whose message says the case was only listed, never a verdict."""
    start = time.perf_counter()
    if case.mode != "tiling_2g":
        with quiet_numpy(), contextlib.suppress(Exception):
            if case.expect_status is not None:
                _run_status_case(fn, case)
            else:
                fn(
                    core_order=case.core_order,
                    seed=case.seed,
                    deterministic=case.deterministic,
                    formats=case.formats or None,
                    **dict(case.params),
                )
    return CaseResult(
        case.ident,
        case.op,
        case.product,
        case.dtype,
        case.shape,
        case.name,
        True,
        0,
        0.0,
        0.0,
        "tiling keys listed (not judged)",
        time.perf_counter() - start,
    )


def _run_status_case(fn: OpCallable, case: Case) -> tuple[int, str]:
    spec = fn.spec
    attrs = {a.name: case.params.get(a.name, a.default) for a in spec.attrs}
    attrs = {
        a.name: attr_value(spec, a, attrs[a.name]) if a.type in ("scalar", "string") else attrs[a.name]
        for a in spec.attrs
    }
    arrays = {t.name: case.params.get(t.name) for t in [*spec.inputs, *spec.outputs]}
    fn.set_run_options(False, "in_order", 0)
    fmt_ids = format_ids(spec, case.formats)
    tensors = {n: fn.make_tensor(a, fmt_ids.get(n, ACL_FORMATS["ND"])) for n, a in arrays.items()}
    try:
        status, size, executor = fn.phase1(
            tensors,
            attrs,
            null_workspace_size=case.mode == "null_workspace_size",
            null_executor=case.mode == "null_executor",
        )
        if case.mode != "phase2_twice" or status != AclnnStatus.ACLNN_SUCCESS:
            return status, fn.recent_error()
        workspace = device_memory(size) if size else None
        first = fn.phase2(workspace, size, executor)
        if first != 0:
            return first, fn.recent_error()
        second = fn.phase2(workspace, size, executor)
        return second, fn.recent_error()
    finally:
        for t in tensors.values():
            if t.handle.value:
                fn.lib.aclDestroyTensor(t.handle)


def cases_for(spec: OpSpec, product: Product, dtype_filter: set[str] | None, quick: bool) -> list[Case]:
    """The case matrix of ``spec`` on ``product`` (family-specific generator)."""
    dtypes = [d for d in compute_dtypes(spec, product) if not dtype_filter or d.name in dtype_filter]
    cases = list(registry.family(spec.family).check_cases(spec, product, dtypes, quick))
    return [*determinism_cases(spec, cases), *format_cases(spec, cases)]


def example_selected(spec: OpSpec, dtype_filter: set[str] | None) -> bool:
    """Whether a check selecting the dtypes ``dtype_filter`` (``opgen check --dtype``; None or empty: every
    dtype) runs the op's generated example program. The program is compiled with the dtypes of the spec's
    ``example`` and cannot run another, so it runs when its compute dtype is selected: the dtype of its first
    required input, the tensor whose dtype selects the value cases (:func:`codegen.types.compute_dtypes`).
    A spec without an example always runs it (and fails, saying so)."""
    ex = spec.example
    if not dtype_filter or ex is None:
        return True
    first = next((t.name for t in spec.inputs if not t.optional), None)
    dtype = dict(ex.inputs)[first].dtype if first in dict(ex.inputs) else ex.output.dtype
    return dtype.name in dtype_filter


_RESULT_LINE = re.compile(r"result\[(\d+)\] is: (\S+)")


def prepare_example(built: Any, generated: Path | None) -> Path | BuildError:
    """Compiles the generated example program of ``built`` (cached); the build error instead of raising."""
    try:
        return build_example(built, generated)
    except BuildError as exc:
        return exc


def check_example(
    spec: OpSpec,
    product: Product,
    generated: Path | None,
    ref: ModuleType,
    built: Any,
    prepared: Path | BuildError | None = None,
) -> CaseResult:
    """Compiles (unless ``prepared`` by :func:`prepare_example`) and runs the generated example program;
    compares its printed output with the reference."""
    with quiet_numpy():
        return _check_example(spec, product, generated, ref, built, prepared)


def _check_example(
    spec: OpSpec,
    product: Product,
    generated: Path | None,
    ref: ModuleType,
    built: Any,
    prepared: Path | BuildError | None,
) -> CaseResult:
    start = time.perf_counter()
    ident = f"{spec.snake}/{product.name}/example/example program"
    ex = spec.example
    try:
        if ex is None:
            raise ValueError("the spec has no example")
        exe = prepared if prepared is not None else build_example(built, generated)
        if isinstance(exe, BuildError):
            raise exe
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0:
            from codegen.check.worker import signal_name

            raise RuntimeError(
                f"example exited with {signal_name(proc.returncode)}: {proc.stdout[-500:]}{proc.stderr[-500:]}"
            )
        got = np.array([float(v) for _, v in _RESULT_LINE.findall(proc.stdout)])
        params: dict[str, Any] = {}
        for name, et in ex.inputs:
            params[name] = np.asarray(et.values or [], dtype=np.float64).astype(numpy_dtype(et.dtype)).reshape(et.shape)
        params.update(dict(ex.attrs))
        result = _call_with(ref.reference, params)
        several = len(spec.outputs) > 1  # the program prints the first output
        expected = np.asarray(result[0] if several else result, dtype=np.float64).reshape(-1)
        out_dtype = numpy_dtype(ex.output.dtype)
        got_arr = got.astype(out_dtype)
        if several and hasattr(ref, "tolerance"):
            tol = reference_tolerance(ref, params, spec.output_names, result)
            atol, rtol, source = tol[0], tol[-1], "tolerance()"
        elif several:
            atol, rtol, source = 0.0, DEFAULT_RTOL, "default"
        else:
            atol, rtol, source = case_tolerance(spec, product, ref, params, expected.reshape(ex.output.shape))
        atol, rtol = np.asarray(atol).reshape(-1), np.asarray(rtol).reshape(-1)
        # The program prints %.9g, which round-trips fp32 exactly.
        cmp = compare(got_arr, expected, atol, rtol)
        return CaseResult(
            ident,
            spec.snake,
            product.name,
            ex.output.dtype.name,
            str(list(ex.output.shape)),
            "example program",
            cmp.ok,
            0,
            cmp.max_abs_err,
            cmp.max_ulp_err,
            (f"{cmp.detail} ({explain_bound(source, ref)})" if not cmp.ok else f"printed {got.tolist()}"),
            time.perf_counter() - start,
            bound=cmp.bound,
            bound_source=source,
        )
    except (BuildError, RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
        return CaseResult(
            ident,
            spec.snake,
            product.name,
            "-",
            "-",
            "example program",
            False,
            0,
            0.0,
            0.0,
            str(exc) if isinstance(exc, ToleranceError) else f"{type(exc).__name__}: {exc}",
            time.perf_counter() - start,
        )


def run_job(job: Job) -> list[CaseResult]:
    """Builds (op, product), runs its case matrix (each value case under every requested core order on
    its first run) and the example program; then copies every result to each product ``job.covers``
    (:func:`covered_copies`). Runs in a worker process."""
    results = _run_job(job)
    return [*results, *(c for name in job.covers for c in covered_copies(results, job.product, name))]


def covered_copies(results: list[CaseResult], ran: str, product: str) -> list[CaseResult]:
    """``results`` of product ``ran`` as results of ``product`` (same fingerprint): the product name replaced
    in ident and message, ``covered_by`` set to ``ran``."""
    return [
        replace(
            r,
            ident=covered_name(r.ident, ran, product),
            product=product,
            message=covered_name(r.message, ran, product),
            covered_by=ran,
        )
        for r in results
    ]


def _run_job(job: Job) -> list[CaseResult]:
    from codegen.specs import load_project

    catalogue, specs = load_project(job.specs_dir, job.products_file)
    spec = specs[job.spec_snake]
    product = catalogue.get(job.product)
    ident = f"{spec.snake}/{product.name}"
    try:
        reference_dir = reference_dir_for(job.specs_dir)
        ref = load_reference(spec, reference_dir)
        if not getattr(ref, "REFERENCE_IMPLEMENTED", True):
            shown = f"reference/{spec.snake}.py" if job.specs_dir is None else str(reference_dir / f"{spec.snake}.py")
            raise FileNotFoundError(f"reference not implemented: {shown} is a stub (REFERENCE_IMPLEMENTED = False)")
    except (FileNotFoundError, ReferenceLoadError) as exc:
        return [
            CaseResult(
                f"{ident}/-/reference",
                spec.snake,
                product.name,
                "-",
                "-",
                "reference",
                False,
                0,
                0.0,
                0.0,
                str(exc),
                0.0,
            )
        ]
    generated = Path(job.generated) if job.generated else None
    try:
        keys = launched_tiling_keys(job, spec, product, generated) if job.launched_keys_only else None
        began = time.perf_counter()
        built = build_op(spec, product, generated, sanitize=job.sanitize, jobs=1, tiling_keys=keys)
        built_progress(built, time.perf_counter() - began)
    except BuildError as exc:
        return [
            CaseResult(
                f"{ident}/-/build",
                spec.snake,
                product.name,
                "-",
                "-",
                "build",
                False,
                0,
                0.0,
                0.0,
                str(exc)[:4000],
                0.0,
            )
        ]
    # The cases run in a worker process: a crash of generated code fails one case, not the run.
    from codegen.check.worker import run_isolated

    return run_isolated(job, built.library, built.key)  # the example program runs last, in the worker too


def built_progress(built: Any, seconds: float) -> None:
    """One line on stderr when ``built`` (a :class:`codegen.build.BuiltOp`) was compiled rather than found in
    the build cache: ``built <op> for <product> (<library>, <seconds> s)``. A cold cache compiles for minutes
    before the first (op, product) job finishes; these lines show it working. Never on stdout, so
    ``--json /dev/stdout`` stays one JSON document."""
    if built.compiled:
        kind = ", sanitized" if built.sanitize else ""
        print(
            f"built {built.spec.snake} for {built.product.name} ({built.library.name}{kind}, {seconds:.1f} s)",
            file=sys.stderr,
            flush=True,
        )


def launched_tiling_keys(job: Job, spec: OpSpec, product: Product, generated: Path | None) -> set[int] | None:
    """The tiling keys the units of ``job`` (its cases and the example program, ``job.units`` of them when
    sharded) launch on ``product``: a pre-pass that builds the op without sanitizers and with every key
    (:func:`codegen.build.build_op`, the cached build a plain ``opgen check`` uses) and runs the job's units
    in a check worker in the runtime's tiling-key listing mode (:data:`codegen.check.worker.LIST_TILING_KEYS_ENV`):
    each launch records its key and runs no kernel, so the pre-pass costs the host code and the references,
    not the emulation. A call's keys are fixed by its host code (the tiling) before any kernel runs, so a
    real run launches the same ones. ``opgen check --sanitize`` compiles its instrumented kernel for these
    keys only; a launch of another key would be a ``[tiling key not built]`` kernel fault (a failed case,
    never a pass).

    Returns None (build every key) when the plain build fails (the instrumented build then reports the
    error) or no unit launched a kernel.
    """
    from codegen.check.worker import run_isolated

    try:
        began = time.perf_counter()
        plain = build_op(spec, product, generated, sanitize=False, jobs=1)
        built_progress(plain, time.perf_counter() - began)
    except BuildError:
        return None
    with tempfile.TemporaryDirectory(prefix="opgen-keys-") as tmp:
        listing = Path(tmp) / "tiling-keys"
        run_isolated(replace(job, sanitize=False, launched_keys_only=False), plain.library, plain.key, listing)
        text = listing.read_text(encoding="ascii") if listing.is_file() else ""
    keys = {int(line) for line in text.split()}
    return keys or None


class Terminated(KeyboardInterrupt):
    """SIGTERM reached :func:`run_check`'s process (a CI timeout, ``timeout(1)``, ``kill``): it stops the run as
    Ctrl-C does."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


class CheckInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped :func:`run_check`: ``results`` of the ``done`` jobs that finished (of
    ``total``), in job order; every worker process was killed. ``signal`` is ``SIGINT`` or ``SIGTERM``."""

    def __init__(self, results: list[CaseResult], done: int, total: int, signal_name: str = "SIGINT") -> None:
        super().__init__(f"interrupted after {done} of {total} jobs")
        self.results, self.done, self.total = results, done, total
        self.signal = signal_name

    @property
    def exit_status(self) -> int:
        """The shell's status of a process stopped by the signal: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + (signal.SIGTERM if self.signal == "SIGTERM" else signal.SIGINT)

    def summary(self) -> str:
        """One line: what ran before the interruption."""
        failed = sum(not r.passed for r in self.results)
        how = "interrupted" if self.signal == "SIGINT" else f"interrupted ({self.signal})"
        return (
            f"{how}: {self.done} of {self.total} (op, product) jobs finished ({len(self.results)} cases in "
            f"them: {len(self.results) - failed} passed, {failed} failed); the cases of the jobs that were stopped "
            "are not counted"
        )


def _pool_worker_init() -> None:
    from codegen.build import use_tool_warning_format
    from codegen.check.worker import die_with_parent

    die_with_parent()
    use_tool_warning_format()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (a forked worker inherits it)
    # what a reference module or generated code prints in this process goes to stderr: stdout is the
    # parent's table (and `--json /dev/stdout`); the pool talks to the parent through its own pipes
    sys.stdout.flush()
    os.dup2(2, 1)


def run_check(
    jobs: list[Job], workers: int, progress: Callable[[Job, list[CaseResult]], None] | None = None
) -> list[CaseResult]:
    """Runs ``jobs`` on at most ``workers`` processes (never more than there are jobs); calls ``progress`` as
    each finishes; results in job order.

    Raises:
        CheckInterrupted: Ctrl-C (KeyboardInterrupt) or SIGTERM (handled as Ctrl-C while this runs in the
            main thread); every worker process is killed first.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        return _run_check(jobs, workers, progress)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _run_check(
    jobs: list[Job], workers: int, progress: Callable[[Job, list[CaseResult]], None] | None
) -> list[CaseResult]:
    results: dict[int, list[CaseResult]] = {}
    workers = max(1, min(workers, len(jobs)))  # never more processes than jobs (each job is one process)

    def interrupted(exc: KeyboardInterrupt) -> CheckInterrupted:
        done = [r for i in sorted(results) for r in results[i]]
        how = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
        return CheckInterrupted(done, len(results), len(jobs), how)

    if workers <= 1:
        try:
            for i, job in enumerate(jobs):
                results[i] = run_job(job)
                if progress:
                    progress(job, results[i])
        except KeyboardInterrupt as exc:
            raise interrupted(exc) from None
    else:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_pool_worker_init)
        try:
            futures = {pool.submit(run_job, job): i for i, job in enumerate(jobs)}
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                if progress:
                    progress(jobs[i], results[i])
        except KeyboardInterrupt as exc:
            processes = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                process.kill()  # its case workers die with it (die_with_parent)
            pool.shutdown(wait=False, cancel_futures=True)
            raise interrupted(exc) from None
        pool.shutdown()
    return [r for i in sorted(results) for r in results[i]]


def select_products(spec: OpSpec, catalogue: Catalogue, wanted: list[str] | None) -> list[Product]:
    """The products ``spec`` supports, narrowed to ``wanted`` (unknown names raise KeyError)."""
    if wanted:
        for name in wanted:
            catalogue.get(name)
    return [catalogue.get(p) for p in spec.products if not wanted or p in wanted]


__all__ = ["CaseResult", "CheckInterrupted", "Job", "check_example", "run_check", "run_job", "sys"]
