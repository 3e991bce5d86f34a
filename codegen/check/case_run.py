"""Running one case on a built op: its aclnn calls under each core order, the run rules a value, status or
determinism case is judged by, and what the core orders of one case share in a worker process."""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator
from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np

from codegen.check.cases import DETERMINISM_RUNS, Case
from codegen.check.compare import plain_number
from codegen.check.expectation import _bit_differences, _compare_outputs
from codegen.check.in_place import in_place_params
from codegen.check.reference import ReferenceCallError, ToleranceError, reference_params
from codegen.check.results import CaseResult
from codegen.runner import AclnnError, OpCallable, device_memory, numpy_dtype
from codegen.runner.arguments import attr_value, format_ids, tensor_list_value
from codegen.spec.model import ACL_FORMATS, DType, OpSpec
from codegen.types import AclnnStatus


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
_DETERMINISTIC_MEMO: list[tuple[Any, dict[str, Any], tuple[Any, ...], str, int, tuple[np.ndarray | None, ...]]] = []


def _same_case_other_order(fn: OpCallable, case: Case, got: tuple[np.ndarray | None, ...]) -> str:
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
        (fn, case.params, options, case.core_order, case.seed, tuple(_copy_output(g) for g in got))
    )
    return differ


def _order_difference(
    names: tuple[str, ...] | list[str],
    first: tuple[np.ndarray | None, ...],
    other: tuple[np.ndarray | None, ...],
    first_order: str,
    order: str,
    seed: int,
) -> str:
    """``not bit-identical over core orders: ...`` naming the first output (of ``names``) whose bits differ
    between the runs under ``first_order`` and ``order`` (seed ``seed``) and how many elements do, or ``""``.
    An absent output (None: a nullable output the call passed as null) has no bits to compare."""
    for name, got, again in _flat_pairs(names, first, other):
        if got is None or again is None:
            continue
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
            outputs: list[tuple[np.ndarray | None, ...]] = []
            if len(runs) == 1:
                _restore_outputs(case.params, spec.output_names)
            before = {n: np.array(params[n], copy=True) for n in case.untouched}
            for order, seed in runs:
                fresh = _fresh_outputs(params, spec.output_names) if len(runs) > 1 else params
                fresh, guards = in_place_params(fresh, case.in_place)
                result = fn(
                    core_order=order,
                    seed=seed,
                    deterministic=case.deterministic,
                    formats=case.formats or None,
                    **fresh,
                )
                touched = sum(g.touched() for g in guards)
                if touched:
                    raise _Verdict(f"an in-place call changed {touched} byte(s) beside the tensors it updates")
                # each run's outputs are its own arrays (fresh copies or allocated by the call): no copy needed
                # a nullable output passed as null comes back as None (nothing to compare)
                results = result if isinstance(result, tuple) else (result,)
                outputs.append(tuple(_output_value(r) for r in results))
                counters = _summarise(fn.last_stats)
                atomic = _atomic_bytes(spec, case, counters)
                if atomic:
                    raise _Verdict(
                        f"GM atomic add in a deterministic run ({order}): {atomic} bytes added with SetAtomicAdd, "
                        "but the spec declares deterministic_gm_atomics: false"
                    )
                if len(runs) > 1 and _one_core_schedule(counters):
                    break  # every other order is this very schedule again (see _one_core_schedule)
            got_all = _untouched(spec, case, _narrowed(spec, case, outputs[0]), before)
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
    except (_Verdict, ToleranceError, ReferenceCallError) as exc:
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


def _copy_output(g: Any) -> Any:
    """A copy of one output of a call (None, an absent nullable output, stays None; a tensor list's tuple is a
    tuple of copies)."""
    if isinstance(g, tuple):
        return tuple(_copy_output(e) for e in g)
    return None if g is None else np.array(g, copy=True)


def _output_value(r: Any) -> Any:
    """One output a call returned, as the checker keeps it: an array, None (a nullable output passed as null),
    or for a tensor list (the call returns a list) the tuple of its arrays."""
    if r is None:
        return None
    if isinstance(r, list):
        return tuple(None if e is None else np.asarray(e) for e in r)
    return np.asarray(r)


def _flat_pairs(names: Any, first: tuple[Any, ...], other: tuple[Any, ...]) -> list[tuple[str, Any, Any]]:
    """``(name, first's array, other's array)`` per output of ``names``, a tensor list's tensors each its own
    (``out[i]``; lists of different lengths pair their tensors as far as both go, the rest against None)."""
    pairs: list[tuple[str, Any, Any]] = []
    for name, a, b in zip(names, first, other):
        if isinstance(a, tuple) or isinstance(b, tuple):
            a_list, b_list = tuple(a or ()), tuple(b or ())
            n = max(len(a_list), len(b_list))
            pad = (None,) * n
            pairs += [(f"{name}[{i}]", x, y) for i, (x, y) in enumerate(zip((*a_list, *pad)[:n], (*b_list, *pad)[:n]))]
        else:
            pairs.append((name, a, b))
    return pairs


class _Verdict(Exception):
    """A value case failed a rule other than the comparison (e.g. GM atomics in a deterministic run)."""


def _narrowed(spec: OpSpec, case: Case, got: tuple[np.ndarray | None, ...]) -> tuple[np.ndarray | None, ...]:
    """``got`` with each output of ``case.rounded_to`` as an array of its narrower dtype (the comparison then
    allows that dtype's half ULP: the L2 API computed it so and cast the result).

    Raises:
        _Verdict: an element of such an output that is not a value of the narrower dtype (not computed in it).
    """
    if not case.rounded_to:
        return got
    out = list(got)
    for k, name in enumerate(spec.output_names):
        g = got[k] if k < len(got) else None
        if g is None or isinstance(g, tuple) or name not in case.rounded_to:
            continue
        narrow = g.astype(numpy_dtype(DType[case.rounded_to[name]]))
        with np.errstate(invalid="ignore"):
            inexact = np.flatnonzero(~((narrow.astype(g.dtype) == g) | (np.isnan(g) & np.isnan(narrow))).reshape(-1))
        if inexact.size:
            at = tuple(int(i) for i in np.unravel_index(int(inexact[0]), g.shape))
            raise _Verdict(
                f"{name} at {at} is {plain_number(g.reshape(-1)[inexact[0]])}, not a {case.rounded_to[name]} value: "
                f"the L2 API computes this call in {case.rounded_to[name]} and casts the result"
            )
        out[k] = narrow
    return tuple(out)


def _untouched(
    spec: OpSpec, case: Case, got: tuple[np.ndarray | None, ...], before: dict[str, np.ndarray]
) -> tuple[np.ndarray | None, ...]:
    """``got`` with the :attr:`Case.untouched` outputs as None (not compared with the reference), after checking
    that the call left each as it was (``before``: copies of them taken before the call).

    Raises:
        _Verdict: an untouched output was written.
    """
    if not case.untouched:
        return got
    names = list(spec.output_names)
    out = list(got)
    for n in case.untouched:
        k = names.index(n)
        was = before.get(n)
        now = out[k] if k < len(out) else None
        if was is not None and now is not None and was.tobytes() != np.asarray(now).tobytes():
            raise _Verdict(
                f"output {n} was written, but the call must leave it untouched (its output mask entry is false)"
            )
        if k < len(out):
            out[k] = None
    return tuple(out)


def _fresh_outputs(params: dict[str, Any], output_names: tuple[str, ...] | list[str] | None = None) -> dict[str, Any]:
    """``params`` with the arrays of ``output_names`` copied (an ``out=`` array is written in place by each
    run), every array when ``output_names`` is None. Input arrays need no copy: a call never writes them (the
    emulator stages inputs as read-only GM regions and writes back only the outputs and workspace), and the
    single-run path passes them uncopied too."""
    return {k: (_copy_output(v) if _copied(k, v, output_names) else v) for k, v in params.items()}


def _copied(name: str, value: Any, output_names: tuple[str, ...] | list[str] | None) -> bool:
    """Whether :func:`_fresh_outputs` copies ``value``: an array, or a tensor list's tuple of arrays, of an output
    of ``output_names`` (of any parameter when None)."""
    is_array = isinstance(value, np.ndarray) or (
        isinstance(value, (tuple, list)) and all(isinstance(e, np.ndarray) for e in value)
    )
    return is_array and (output_names is None or name in output_names)


#: The initial bytes of the ``out=`` arrays of the last case run in this process: ``(params, {name: copy})``.
_OUT_INITIAL: list[tuple[dict[str, Any], dict[str, np.ndarray]]] = []


def _restore_outputs(params: dict[str, Any], output_names: tuple[str, ...] | list[str]) -> None:
    """Gives the ``out=`` arrays of a case (output arrays in ``params``, written in place by a run) the
    bytes they had before the case's first run, so that each core order of the case starts from the same
    memory (poison, zeros, ...), not from what the previous order wrote there: a kernel that writes nothing
    under the second order would otherwise pass on the first order's output. The arrays keep their
    identity and layout (a strided view stays one); the first run of a case records the bytes."""
    outs: dict[str, np.ndarray] = {}
    for n in output_names:
        value = params.get(n)
        if isinstance(value, np.ndarray):
            outs[n] = value
        elif isinstance(value, (tuple, list)):  # a tensor list given as out=: each of its arrays
            outs.update((f"{n}[{i}]", a) for i, a in enumerate(value) if isinstance(a, np.ndarray))
    if not outs:
        return
    if _OUT_INITIAL and _OUT_INITIAL[0][0] is params:
        for name, initial in _OUT_INITIAL[0][1].items():
            np.copyto(outs[name], initial)
        return
    _OUT_INITIAL[:] = [(params, {n: np.array(a, copy=True) for n, a in outs.items()})]


def _atomic_bytes(spec: OpSpec, case: Case, counters: dict[str, Any]) -> int:
    """GM bytes added atomically by a run that the spec promises adds none: a deterministic run (the op is
    deterministic, or the case requests the mode) of a spec with ``deterministic_gm_atomics: false``; else 0."""
    if spec.deterministic_gm_atomics or not (spec.deterministic or case.deterministic):
        return 0
    return sum(int(launch["totals"]["gm_bytes_atomic_added"]) for launch in counters.get("launches", []))


def launch_case(fn: OpCallable, case: Case) -> CaseResult:
    """Makes the aclnn calls of ``case`` that can launch a kernel, once, without judging them: the tiling-key
    pre-pass of :func:`codegen.check.driver.launched_tiling_keys` (run in the runtime's listing mode, where a
    launch only records its key). A status case makes its calls (phase 1, and phase 2 for ``phase2_twice``); a value or
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
    lists = {t.name: t for t in [*spec.inputs, *spec.outputs] if t.is_list}
    fn.set_run_options(False, "in_order", 0)
    fmt_ids = format_ids(spec, case.formats)
    tensors: dict[str, Any] = {}
    try:
        for n, a in arrays.items():
            fmt = fmt_ids.get(n, ACL_FORMATS["ND"])
            if n in lists:  # a tensor list: its arrays (an element None is a null aclTensor in the list)
                tensors[n] = fn.make_tensor_list(tensor_list_value(spec, lists[n], a), fmt)
            else:
                tensors[n] = fn.make_tensor(a, fmt)
        status, size, executor = fn.phase1(
            tensors,
            attrs,
            null_workspace_size=case.mode in ("null_workspace_size", "null_workspace_size_and_executor"),
            null_executor=case.mode in ("null_executor", "null_workspace_size_and_executor"),
        )
        if case.mode != "phase2_twice" or status != AclnnStatus.ACLNN_SUCCESS:
            message = fn.recent_error()
            if executor.value:  # phase 2 will not run: the executor phase 1 made is the caller's to destroy
                fn.lib.aclDestroyAclOpExecutor(executor)
            return status, message
        workspace = device_memory(size) if size else None
        first = fn.phase2(workspace, size, executor)
        if first != 0:
            return first, fn.recent_error()
        second = fn.phase2(workspace, size, executor)
        return second, fn.recent_error()
    finally:
        fn._destroy(list(tensors.values()))
