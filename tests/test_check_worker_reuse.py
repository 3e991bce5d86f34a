"""A check worker serves one (op, product) after another: the worker that finished a job runs the next job of
the same process, gives the same results as a new one, and is replaced when it died in between."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegen.build import build_op
from codegen.check import worker
from codegen.check.driver import cases_for
from codegen.check.example import example_selected
from codegen.check.results import Job
from codegen.check.worker import case_units, run_isolated, stop_idle_worker
from codegen.specs import load_project

OP = "sigmoid_backward"
PRODUCT = "Ascend910B"


def _job(op: str) -> Job:
    return Job(op, PRODUCT, ("FLOAT",), True, None, ("in_order",), False, None)


@pytest.fixture
def libraries() -> Iterator[dict[str, tuple[str, str]]]:
    catalogue, specs = load_project()
    built = {op: build_op(specs[op], catalogue.get(PRODUCT), None, jobs=1) for op in (OP, "softmax")}
    yield {op: (str(b.library), b.key) for op, b in built.items()}
    stop_idle_worker()


def _idle_pid() -> int:
    idle = worker._IDLE
    assert idle is not None and idle[0] == os.getpid()
    return idle[1].proc.pid


def _expected_names(op: str) -> list[str]:
    catalogue, specs = load_project()
    units = case_units(cases_for(specs[op], catalogue.get(PRODUCT), {"FLOAT"}, True), ("in_order",))
    example = ["example program"] if example_selected(specs[op], {"FLOAT"}) else []
    return [case.name for case, _ in units] + example


def test_the_worker_of_one_job_runs_the_next_job(libraries: dict[str, tuple[str, str]]) -> None:
    lib, key = libraries[OP]
    first = run_isolated(_job(OP), Path(lib), key)
    pid = _idle_pid()
    other_lib, other_key = libraries["softmax"]
    other = run_isolated(_job("softmax"), Path(other_lib), other_key)
    again = run_isolated(_job(OP), Path(lib), key)
    assert _idle_pid() == pid  # one worker process served the three jobs
    assert [r.name for r in first] == _expected_names(OP)
    assert [r.name for r in other] == _expected_names("softmax")
    assert all(r.passed for r in [*first, *other]), [r.message for r in [*first, *other] if not r.passed]
    # the same op again in the reused worker: the same verdicts, errors, bounds and counters
    strip = [(r.ident, r.passed, r.status, r.max_abs_err, r.max_ulp_err, r.bound, r.counters) for r in first]
    assert [(r.ident, r.passed, r.status, r.max_abs_err, r.max_ulp_err, r.bound, r.counters) for r in again] == strip


def test_a_worker_that_died_while_idle_is_replaced(libraries: dict[str, tuple[str, str]]) -> None:
    lib, key = libraries[OP]
    run_isolated(_job(OP), Path(lib), key)
    pid = _idle_pid()
    os.kill(pid, signal.SIGKILL)
    results = run_isolated(_job(OP), Path(lib), key)
    assert _idle_pid() != pid
    assert [r.name for r in results] == _expected_names(OP)
    assert all(r.passed for r in results)
    assert not any(r.kind in ("crash", "timeout") for r in results)


def test_stopping_the_idle_worker_ends_its_process(libraries: dict[str, tuple[str, str]]) -> None:
    lib, key = libraries[OP]
    run_isolated(_job(OP), Path(lib), key)
    idle = worker._IDLE
    assert idle is not None
    stop_idle_worker()
    assert worker._IDLE is None
    assert idle[1].proc.returncode == 0  # it read the end of its stdin and exited normally
