"""The check worker process (``python -m codegen.check.worker_main``): runs the cases of one job and streams
begin/result lines to its parent, :func:`codegen.check.worker.run_isolated` (protocol in
:mod:`codegen.check.worker`)."""

from __future__ import annotations

import faulthandler
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from codegen.check.case_run import launch_case, run_case
from codegen.check.driver import Job, cases_for
from codegen.check.example import check_example, example_selected, prepare_example
from codegen.check.reference import load_reference
from codegen.check.results import result_dict
from codegen.check.worker import (
    LIST_TILING_KEYS_ENV,
    REFERENCE_FLAG_FD_ENV,
    case_timeout,
    case_units,
    die_with_parent,
    unit_ident,
)


def _serve(request: dict[str, Any], out: IO[str]) -> None:
    """Serves one request; with ``list_tiling_keys`` in the runtime's tiling-key listing mode (set in this
    process's environment for the job only, so the example program inherits it)."""
    listing = request.get("list_tiling_keys")
    if listing:
        os.environ[LIST_TILING_KEYS_ENV] = str(listing)
    try:
        _serve_job(request, out)
    finally:
        os.environ.pop(LIST_TILING_KEYS_ENV, None)


def _serve_job(request: dict[str, Any], out: IO[str]) -> None:
    from codegen.build import BuiltOp
    from codegen.paths import reference_dir_for
    from codegen.runner import OpCallable
    from codegen.specs import load_project

    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in request["job"].items()}
    job = Job(**fields)
    catalogue, specs = load_project(job.specs_dir, job.products_file)
    spec = specs[job.spec_snake]
    product = catalogue.get(job.product)
    ref = load_reference(spec, reference_dir_for(job.specs_dir))
    built = BuiltOp(spec, product, Path(request["library"]), request["key"], job.sanitize)
    fn = OpCallable(built)
    cases = cases_for(spec, product, set(job.dtype_filter) or None, job.quick)
    units = case_units(cases, job.core_orders)
    chosen = None if job.units is None else set(job.units)  # opgen check --shard: this shard's units only
    for index in range(int(request["start"]), len(units)):
        if chosen is not None and index not in chosen:
            continue
        case, suffix = units[index]
        name = f"{case.name} ({suffix})" if suffix else case.name
        ident = unit_ident(case, suffix)
        begin = {"begin": index, "ident": ident, "op": case.op, "product": case.product}
        begin.update({"dtype": case.dtype, "shape": case.shape, "name": name})
        begin["timeout"] = case_timeout(case, job.timeout, job.sanitize, job.coverage_dir is not None)
        # the previous unit's result and this unit's begin go out in one write (half the wake-ups of the parent)
        out.write(json.dumps(begin) + "\n")
        out.flush()
        r = launch_case(fn, case) if request.get("list_tiling_keys") else run_case(fn, case, ref)
        r.name, r.ident = name, ident
        out.write(json.dumps({"result": result_dict(r)}, default=float) + "\n")
    out.flush()  # the last unit's result, before anything else takes time
    # the example program runs in another shard, or --dtype excludes its dtype
    dtypes = set(job.dtype_filter) or None
    # ... or it ran already: the parent resumes after it (start past it) when it crashed its process
    past = int(request["start"]) > len(units)
    if past or (chosen is not None and len(units) not in chosen) or not example_selected(spec, dtypes):
        sys.stderr.flush()
        out.write(json.dumps({"done": len(units) + 1}) + "\n")
        out.flush()
        return
    # The example program last, in this process too: its reference runs under the same time limit.
    generated = Path(job.generated) if job.generated else None
    prepared = prepare_example(built, generated)  # compiling it is not timed as a case
    begin = {"begin": len(units), "ident": f"{spec.snake}/{product.name}/example/example program"}
    begin.update({"op": spec.snake, "product": product.name, "dtype": "-", "shape": "-", "name": "example program"})
    begin["timeout"] = case_timeout(None, job.timeout, job.sanitize, job.coverage_dir is not None)
    out.write(json.dumps(begin) + "\n")
    out.flush()
    r = check_example(spec, product, generated, ref, built, prepared)
    out.write(json.dumps({"result": result_dict(r)}, default=float) + "\n")
    sys.stderr.flush()
    out.write(json.dumps({"done": len(units) + 1}) + "\n")
    out.flush()


def _share_reference_flag() -> None:
    """Maps the one-byte file the parent passed (its descriptor in :data:`REFERENCE_FLAG_FD_ENV`) as
    :data:`codegen.check.reference.REFERENCE_RUNNING`, so the parent can tell a death in the reference."""
    import mmap

    from codegen.check import reference

    fd = os.environ.get(REFERENCE_FLAG_FD_ENV)
    if fd is None:
        return
    reference.REFERENCE_RUNNING = mmap.mmap(int(fd), 1)


def main() -> int:
    """Worker entry point: serves one job per line of stdin (a JSON request), streaming begin/result lines
    and a ``done`` line per job; exits 0 at the end of stdin (the parent closed it, or died)."""
    from codegen.build import use_tool_warning_format

    die_with_parent()
    use_tool_warning_format()
    # a fatal signal prints the Python stack to stderr: the parent tells a crash in the reference from one in
    # the generated code by it (codegen.check.worker.in_reference)
    faulthandler.enable(all_threads=False)
    _share_reference_flag()
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # text printed by generated code or the runtime goes to stderr, not into the protocol
    with os.fdopen(protocol_fd, "w", encoding="utf-8") as out:
        for line in iter(sys.stdin.readline, ""):
            if line.strip():
                _serve(json.loads(line), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
