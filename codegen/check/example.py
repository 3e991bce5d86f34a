"""The generated example program in a check: whether a dtype selection runs it, compiling it, and comparing
what it prints with the reference."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from codegen.build import BuildError, build_example
from codegen.check.case_run import quiet_numpy
from codegen.check.compare import compare
from codegen.check.reference import (
    DEFAULT_RTOL,
    ReferenceCallError,
    ToleranceError,
    call_reference,
    case_tolerance,
    check_reference_shape,
    explain_bound,
    reference_tolerance,
    reference_where,
)
from codegen.check.results import CaseResult
from codegen.runner import numpy_dtype
from codegen.spec.model import OpSpec, Product


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
        result = call_reference(ref, params)
        several = len(spec.outputs) > 1  # the program prints the first output
        if several and not (isinstance(result, tuple) and len(result) == len(spec.outputs)):
            raise ReferenceCallError(
                f"{reference_where(ref)} must return a tuple of {len(spec.outputs)} arrays, not a "
                f"{type(result).__name__}"
            )
        if not spec.outputs[0].is_list:  # a tensor list's tensors are printed one after the other
            first = result[0] if several else result
            check_reference_shape(ref, spec.output_names[0], first, tuple(ex.output.shape))
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
    except (BuildError, RuntimeError, ValueError, ReferenceCallError, subprocess.TimeoutExpired) as exc:
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
            str(exc) if isinstance(exc, (ToleranceError, ReferenceCallError)) else f"{type(exc).__name__}: {exc}",
            time.perf_counter() - start,
        )
