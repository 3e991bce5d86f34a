"""A check's NumPy reference module: loading it, calling it with the parameters it names, and the tolerance
(``tolerance()``, a family's derived bound or the default) a call's output is compared within."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from codegen import registry
from codegen.paths import project_paths
from codegen.runner import ScalarArg
from codegen.spec.model import OpSpec, Product


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


class ReferenceCallError(Exception):
    """A call of a reference module's ``reference(**params)`` did not give a usable value: it called
    ``sys.exit`` (``SystemExit``), returned None, or returned an array of another shape than the output it
    is compared with. ``str()`` is one line naming the reference file and what it did or returned."""


def reference_where(ref: ModuleType) -> str:
    """``the reference <file>`` of a loaded reference module, as failure messages name it."""
    return f"the reference {getattr(ref, '__file__', None) or 'module'}"


def call_reference(ref: ModuleType, params: dict[str, Any]) -> Any:
    """``ref.reference`` called with the entries of ``params`` it names; its return value, unchecked but for
    None.

    Raises:
        ReferenceCallError: the reference called ``sys.exit`` (or raised ``SystemExit``; the worker process
            would otherwise exit and every later case of the job would be lost with it), or returned None.
    """
    try:
        result = _call_with(ref.reference, params)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) or exc.code is None else repr(exc.code)
        raise ReferenceCallError(f"{reference_where(ref)} exited with status {code} (sys.exit)") from None
    if result is None:
        raise ReferenceCallError(f"{reference_where(ref)} returned None, not an array (a missing return?)")
    return result


def check_reference_shape(ref: ModuleType, name: str, expected: Any, shape: tuple[int, ...] | None) -> None:
    """Checks that ``expected``, what the reference returned for output ``name``, has the output's ``shape``
    (None: not known, nothing checked).

    Raises:
        ReferenceCallError: another shape, named with the output's.
    """
    got = np.shape(expected)
    if shape is not None and tuple(got) != tuple(shape):
        raise ReferenceCallError(
            f"{reference_where(ref)} returned shape {tuple(got)} for output {name}, whose shape is {tuple(shape)}"
        )


#: A one-byte shared flag (an ``mmap`` of a file the check's parent process reads) set to 1 while a
#: reference function runs and back to 0 when it returns or raises; None outside a check worker. A worker
#: that dies with the flag set died in the reference (``os._exit``, a signal, a fault in a C extension), which
#: the parent reports as the reference's fault (:func:`codegen.check.worker.reference_was_running`).
REFERENCE_RUNNING: Any = None


def _call_with(fn: Callable[..., Any], params: dict[str, Any]) -> Any:
    """``fn`` called with the entries of ``params`` that it names as parameters (with
    :data:`REFERENCE_RUNNING` set during the call)."""
    names = _parameter_names(fn)
    flag = REFERENCE_RUNNING
    if flag is None:
        return fn(**{k: v for k, v in params.items() if k in names})
    flag[0] = 1
    try:
        return fn(**{k: v for k, v in params.items() if k in names})
    finally:
        flag[0] = 0


@functools.lru_cache(maxsize=256)
def _parameter_names(fn: Callable[..., Any]) -> frozenset[str]:
    """The parameter names of ``fn`` (``inspect.signature`` once per function: it costs tens of microseconds
    and a reference's ``reference`` / ``tolerance`` are called once per case)."""
    return frozenset(inspect.signature(fn).parameters)


def reference_params(spec: OpSpec, params: dict[str, Any]) -> dict[str, Any]:
    """The arguments a case's reference (and derived bound) takes from its aclnn parameters ``params``: every
    input and attribute, no output; an aclScalar of a chosen dtype (:class:`codegen.runner.ScalarArg`) as
    its number (True for a BOOL one). With the spec's ``promote_type: out`` each input array of another
    dtype than the given output array's is cast to that dtype first, as the L2 API does before the device op
    (a FLOAT self with a FLOAT16 out is rounded to fp16; a FLOAT16 self with a FLOAT out is unchanged)."""
    out = params.get(spec.output_names[0]) if spec.promote_type == "out" else None
    promote = out.dtype if isinstance(out, np.ndarray) else None
    inputs = set(spec.input_names)
    return {
        k: (
            v.value
            if isinstance(v, ScalarArg)
            else v.astype(promote)
            if promote is not None and k in inputs and isinstance(v, np.ndarray) and v.dtype != promote
            else v
        )
        for k, v in params.items()
        if k not in spec.output_names
    }


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
