"""How ``opgen check`` runs a determinism case (seven runs over core orders, outputs compared bit for bit):
every run gets its own output arrays and the case's input arrays, and a difference between two runs'
outputs fails the case.

The op is a stand-in callable (no build): it computes SigmoidBackward's formula written here with NumPy
(float64, rounded to the output dtype), optionally wrong in one core order, so the expected verdicts do not
come from the code under test.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from codegen.check.case_run import _fresh_outputs, run_case
from codegen.check.cases import DETERMINISM_RUNS, Case
from codegen.check.reference import load_reference
from codegen.paths import project_paths, reference_dir_for
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
SPEC = SPECS["sigmoid_backward"]
REF = load_reference(SPEC, reference_dir_for(project_paths().specs))


class _FakeOp:
    """Stands in for an OpCallable: records what each call received and answers the formula, with one
    element changed when called with ``core_order == wrong_order``."""

    def __init__(self, wrong_order: str | None, block_dim: int = 8) -> None:
        self.spec = SPEC
        self.product = CATALOGUE.get("Ascend910B")
        # the counters of one launch on ``block_dim`` cores
        self.last_stats: dict[str, Any] = {"launches": [{"kernel": "sigmoid_backward", "block_dim": block_dim}]}
        self.wrong_order = wrong_order
        self.calls: list[dict[str, Any]] = []

    def __call__(self, *, core_order: str, seed: int, deterministic: bool, formats: Any, **params: Any) -> Any:
        self.calls.append(dict(params))
        g = params["gradOutput"].astype(np.float64)
        y = params["output"].astype(np.float64)
        value = (g * y * (1.0 - y)).astype(params["gradOutput"].dtype)
        if core_order == self.wrong_order:
            value.reshape(-1)[3] = np.nextafter(value.reshape(-1)[3], np.float32(np.inf))
        out = params.get("gradInput")
        if out is None:
            return value
        out[...] = value
        return out


def _case(with_out: bool) -> Case:
    rng = np.random.default_rng(5)
    params: dict[str, Any] = {
        "gradOutput": rng.standard_normal(40).astype(np.float32),
        "output": rng.uniform(0.0, 1.0, 40).astype(np.float32),
    }
    if with_out:
        params["gradInput"] = np.full(40, 7.0, dtype=np.float32)
    return Case(
        "sigmoid_backward", "Ascend910B", "FLOAT", "[40]", "stand-in [deterministic]", params, mode="determinism"
    )


def test_a_determinism_case_passes_when_every_run_gives_the_same_bits() -> None:
    for with_out in (False, True):
        fake = _FakeOp(None)
        result = run_case(fake, _case(with_out), REF)  # type: ignore[arg-type]
        assert result.passed, result.message
        assert len(fake.calls) == len(DETERMINISM_RUNS) == 7


def test_a_determinism_case_fails_when_one_core_order_changes_one_element() -> None:
    for with_out in (False, True):
        result = run_case(_FakeOp("reversed"), _case(with_out), REF)  # type: ignore[arg-type]
        assert not result.passed
        assert "not bit-identical over core orders: 1 of 40 elements differ between in_order and reversed" in (
            result.message
        )


def test_a_determinism_case_whose_call_ran_on_one_core_runs_once() -> None:
    # one core per launch: every core order is the same schedule, so the other six runs would repeat it
    fake = _FakeOp(None, block_dim=1)
    result = run_case(fake, _case(True), REF)  # type: ignore[arg-type]
    assert result.passed, result.message
    assert len(fake.calls) == 1
    # its name promises seven core orders: the result says why it ran once
    assert result.message.startswith("ran on one core (every launch)")
    # two cores: every order runs, and a difference in the last one still fails the case
    fake = _FakeOp("concurrent", block_dim=2)
    result = run_case(fake, _case(True), REF)  # type: ignore[arg-type]
    assert len(fake.calls) == 7
    assert not result.passed and "between in_order and concurrent" in result.message
    assert "ran on one core" not in result.message


def test_each_run_writes_its_own_out_array_and_reads_the_cases_inputs() -> None:
    case = _case(with_out=True)
    fake = _FakeOp(None)
    run_case(fake, case, REF)  # type: ignore[arg-type]
    outs = [call["gradInput"] for call in fake.calls]
    assert len({id(o) for o in outs}) == 7
    assert all(o is not case.params["gradInput"] for o in outs)
    assert np.all(case.params["gradInput"] == 7.0)  # the case's own out array is never written
    for call in fake.calls:
        assert call["gradOutput"] is case.params["gradOutput"]
        assert call["output"] is case.params["output"]


def test_fresh_outputs_copies_the_named_outputs_only_or_every_array_without_names() -> None:
    a, b = np.arange(4.0), np.zeros(4)
    params = {"x": a, "out": b, "alpha": 2}
    named = _fresh_outputs(params, ("out",))
    assert named["x"] is a and named["alpha"] == 2
    assert named["out"] is not b and np.array_equal(named["out"], b)
    every = _fresh_outputs(params)
    assert every["x"] is not a and every["out"] is not b
    assert np.array_equal(every["x"], a)


def test_result_dict_is_what_asdict_gives_and_serialises_to_the_same_json() -> None:
    from dataclasses import asdict

    from codegen.check.results import CaseResult, result_dict

    counters = {"launches": [{"kernel": "k", "cores": [{"dma_bytes": 64}, {"dma_bytes": 32}], "tiling": {"n": 3}}]}
    r = CaseResult("a/b/FLOAT/c", "a", "b", "FLOAT", "[3]", "c", True, 0, 0.5, 1.0, "", 0.25, counters, bound=1e-7)
    assert result_dict(r) == asdict(r)
    assert json.dumps(result_dict(r), default=float) == json.dumps(asdict(r), default=float)
    assert list(result_dict(r)) == list(asdict(r))  # the same key order in the written files
