"""The reference and its tolerance run once per case, not once per core order (codegen/check/expectation.py
``_expectation``): the units of one case share their inputs, so the second unit reuses the first's
expectation, and yet each unit's own output is judged."""

from __future__ import annotations

import types
from dataclasses import replace
from pathlib import Path

import numpy as np

from codegen.check.case_run import run_case
from codegen.check.cases import Case
from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]


def _spec():
    _, specs = load_project(ROOT / "specs", ROOT / "specs" / "products.yaml")
    return specs["sigmoid_backward"]


class _Op:
    """A stand-in for a built op: returns the queued outputs one call after another."""

    def __init__(self, spec, outputs):
        self.spec, self.outputs, self.last_stats, self.calls = spec, list(outputs), {}, 0

    def __call__(self, **params):
        self.calls += 1
        return self.outputs.pop(0)


def _reference(counter):
    def reference(gradOutput, output):
        counter.append(1)
        return gradOutput.astype(np.float64) * output * (1.0 - output)

    return types.SimpleNamespace(reference=reference)


def _case(spec, params, order="in_order"):
    return Case(spec.snake, "Ascend910B", "FLOAT", "[8]", "memo", params, core_order=order)


def test_two_core_orders_call_the_reference_once_and_each_output_is_judged():
    spec = _spec()
    g = np.arange(1, 9, dtype=np.float32)
    y = np.full(8, 0.25, dtype=np.float32)
    right = (g * np.float32(0.25 * 0.75)).astype(np.float32)
    wrong = right.copy()
    wrong[5] += 1.0
    calls: list[int] = []
    ref = _reference(calls)
    op = _Op(spec, [right, wrong])
    case = _case(spec, {"gradOutput": g, "output": y})
    first = run_case(op, case, ref)
    second = run_case(op, replace(case, core_order="reversed"), ref)
    assert first.passed, first.message
    assert not second.passed  # the reused expectation still judges the second order's own output
    assert second.max_abs_err == 1.0
    assert len(calls) == 1
    assert op.calls == 2


def test_equal_inputs_of_another_case_are_computed_again():
    spec = _spec()
    g = np.ones(8, dtype=np.float32)
    y = np.full(8, 0.5, dtype=np.float32)
    out = np.full(8, 0.25, dtype=np.float32)
    calls: list[int] = []
    ref = _reference(calls)
    op = _Op(spec, [out, out])
    assert run_case(op, _case(spec, {"gradOutput": g, "output": y}), ref).passed
    assert run_case(op, _case(spec, {"gradOutput": g.copy(), "output": y.copy()}), ref).passed
    assert len(calls) == 2


def test_a_reference_that_writes_its_input_fails_loudly():
    spec = _spec()

    def reference(gradOutput, output):
        gradOutput *= 2  # would make a kept expectation stale for the next core order
        return gradOutput.astype(np.float64)

    op = _Op(spec, [np.ones(8, dtype=np.float32)])
    r = run_case(
        op,
        _case(spec, {"gradOutput": np.ones(8, np.float32), "output": np.ones(8, np.float32)}),
        types.SimpleNamespace(reference=reference),
    )
    assert not r.passed
    assert "read-only" in r.message
