"""What the core orders of one value case share in a check worker (codegen/check/case_run.py): a verdict is
reused only for bit-identical outputs, and a run is repeated by no sequential order only when every launch
ran on one core; the shard plan keeps a case's core orders together (codegen/check/matrix.py)."""

from __future__ import annotations

import types
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import codegen.check.expectation as expectation
from codegen.check.case_run import run_case
from codegen.check.cases import Case
from codegen.check.matrix import Unit, assign_shards
from codegen.specs import load_project

ROOT = Path(__file__).resolve().parents[1]


def _spec():
    _, specs = load_project(ROOT / "specs", ROOT / "specs" / "products.yaml")
    return specs["sigmoid_backward"]


class _Op:
    """A stand-in for a built op: returns the queued outputs one call after another, each call reporting a
    launch on ``block_dim`` cores; with ``into_out`` it writes each output into the ``output`` argument
    passed in place (an ``out=`` array), as the runner does."""

    def __init__(self, spec, outputs, block_dim, into_out=False):
        self.spec, self.outputs, self.block_dim, self.into_out = spec, list(outputs), block_dim, into_out
        self.calls, self.orders, self.last_stats = 0, [], {}

    def __call__(self, core_order, **params):
        self.calls += 1
        self.orders.append(core_order)
        self.last_stats = {"launches": [{"kernel": "k", "block_dim": self.block_dim, "cores": []}]}
        value = self.outputs.pop(0)
        if self.into_out:
            params["gradInput"][...] = value
            return params["gradInput"]
        return value


def _reference(gradOutput, output):
    return gradOutput.astype(np.float64) * output * (1.0 - output)


#: One reference module for every test: the expectation a worker keeps is keyed by the module too.
_REF = types.SimpleNamespace(reference=_reference)


def _ref():
    return _REF


def _inputs():
    g = np.arange(1, 9, dtype=np.float32)
    y = np.full(8, 0.25, dtype=np.float32)
    right = (g * np.float32(0.25 * 0.75)).astype(np.float32)
    return {"gradOutput": g, "output": y}, right


def _case(spec, params, order="in_order"):
    return Case(spec.snake, "Ascend910B", "FLOAT", "[8]", "reuse", params, core_order=order)


@pytest.fixture
def compare_calls(monkeypatch):
    """Counts the comparisons the driver makes."""
    calls: list[int] = []
    real = expectation.compare

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(expectation, "compare", counting)
    return calls


def test_bit_identical_outputs_of_two_orders_are_compared_once(compare_calls):
    spec = _spec()
    params, right = _inputs()
    op = _Op(spec, [right, right.copy()], block_dim=4)
    first = run_case(op, _case(spec, params), _ref())
    second = run_case(op, _case(spec, params, "reversed"), _ref())
    assert first.passed and second.passed
    assert op.calls == 2  # four cores: the reversed order is a run of its own
    assert op.orders == ["in_order", "reversed"]
    assert len(compare_calls) == 1
    assert (second.max_abs_err, second.max_ulp_err) == (first.max_abs_err, first.max_ulp_err)


def test_a_single_bit_of_difference_is_judged_again(compare_calls):
    # an op that does not promise determinism: another order may round differently within the bound
    spec = replace(_spec(), deterministic=False)
    params, right = _inputs()
    other = right.copy()
    other.view(np.uint32)[3] ^= 1  # one ULP at one element: still within the bound, but other bits
    op = _Op(spec, [right, other], block_dim=4)
    run_case(op, _case(spec, params), _ref())
    second = run_case(op, _case(spec, params, "reversed"), _ref())
    assert len(compare_calls) == 2
    assert second.passed and second.max_ulp_err == 1.0


def test_a_deterministic_case_fails_when_its_next_core_order_changes_one_bit():
    # the spec says deterministic: true (or the case runs in ACL_OPT_DETERMINISTIC): the reversed unit of the
    # same case must give the in_order unit's bits, even where both are within the bound
    spec = _spec()
    assert spec.deterministic
    params, right = _inputs()
    other = right.copy()
    other.view(np.uint32)[3] ^= 1
    op = _Op(spec, [right, other], block_dim=4)
    first = run_case(op, _case(spec, params), _ref())
    second = run_case(op, _case(spec, params, "reversed"), _ref())
    assert first.passed and not second.passed
    assert second.message.startswith(
        "not bit-identical over core orders: 1 of 8 elements differ between in_order and reversed (seed 0)"
    )
    assert second.max_ulp_err == 1.0  # the comparison with the reference ran as well
    # the same for a case in the deterministic mode of an op that is not deterministic by default
    loose = replace(spec, deterministic=False)
    op = _Op(loose, [right, other, right, other], block_dim=4)
    det = replace(_case(loose, dict(params)), deterministic=True)
    run_case(op, det, _ref())
    assert not run_case(op, replace(det, core_order="reversed"), _ref()).passed
    # and not across different cases, or for the same order run again
    assert run_case(op, _case(loose, dict(params)), _ref()).passed
    op = _Op(spec, [right, right, right], block_dim=4)
    case = _case(spec, params)
    assert all(run_case(op, case, _ref()).passed for _ in range(2))
    assert run_case(op, _case(spec, dict(params), "reversed"), _ref()).passed


def test_an_out_array_written_again_in_place_is_judged_by_its_new_bits(compare_calls):
    # the case passes its own out= array: both orders write the same array object, so what the first order
    # was judged by must be a copy, not that array
    spec = _spec()
    params, right = _inputs()
    wrong = right.copy()
    wrong[2] += 1.0
    params = {**params, "gradInput": np.zeros(8, dtype=np.float32)}
    op = _Op(spec, [right, wrong], block_dim=4, into_out=True)
    first = run_case(op, _case(spec, params), _ref())
    second = run_case(op, _case(spec, params, "reversed"), _ref())
    assert first.passed
    assert not second.passed and second.max_abs_err == 1.0
    assert len(compare_calls) == 2


def test_a_one_core_run_is_not_repeated_by_another_sequential_order():
    spec = _spec()
    params, right = _inputs()
    op = _Op(spec, [right, right.copy(), right.copy()], block_dim=1)
    case = _case(spec, params)
    first = run_case(op, case, _ref())
    second = run_case(op, replace(case, core_order="reversed", name="reuse (reversed)"), _ref())
    assert op.calls == 1  # one core: reversed is the very same schedule
    assert second.passed == first.passed and second.counters == first.counters
    assert second.name == "reuse (reversed)" and second.ident == "sigmoid_backward/Ascend910B/FLOAT/reuse (reversed)"
    # concurrent runs the cores on threads: it is run, as is any case with other inputs
    run_case(op, replace(case, core_order="concurrent"), _ref())
    assert op.calls == 2


def test_a_one_core_result_stands_only_for_the_same_inputs_and_options():
    spec = _spec()
    params, right = _inputs()
    op = _Op(spec, [right] * 4, block_dim=1)
    run_case(op, _case(spec, params), _ref())
    run_case(op, _case(spec, dict(params), "reversed"), _ref())  # equal values, another case
    assert op.calls == 2
    run_case(op, replace(_case(spec, params), deterministic=True), _ref())
    assert op.calls == 3
    other = _Op(spec, [right], block_dim=1)  # another op (library) with the same params object
    run_case(other, _case(spec, params, "reversed"), _ref())
    assert other.calls == 1


def test_a_multi_core_launch_runs_every_order():
    spec = _spec()
    params, right = _inputs()
    op = _Op(spec, [right, right.copy(), right.copy()], block_dim=2)
    case = _case(spec, params)
    for order in ("in_order", "reversed", "shuffle"):
        run_case(op, replace(case, core_order=order), _ref())
    assert op.calls == 3


def test_the_core_orders_of_a_case_land_in_one_shard():
    units = []
    for case in range(12):
        for k, order in enumerate(("in_order", "reversed")):
            units.append(Unit(0, 2 * case + k, f"op/P/FLOAT/case{case:02d} ({order})", 1000 * (case + 1), case))
    units.append(Unit(0, 24, "op/P/example/example program", -1))
    for count in (1, 2, 3, 4):
        shards = assign_shards(units, count, None)
        assert sorted(u.index for s in shards for u in s) == list(range(25))
        for shard in shards:
            cases = {u.case for u in shard if u.case >= 0}
            assert sum(1 for u in shard if u.case >= 0) == 2 * len(cases)  # both orders of each case
        assert assign_shards(list(reversed(units)), count, None) == shards


class _LazyOp(_Op):
    """Writes its output into the case's ``out=`` array on the first call only (a kernel that writes
    nothing under the second core order)."""

    def __call__(self, core_order, **params):
        self.calls += 1
        self.last_stats = {"launches": [{"kernel": "k", "block_dim": self.block_dim, "cores": []}]}
        if self.calls == 1:
            params["gradInput"][...] = self.outputs[0]
        return params["gradInput"]


def test_each_core_order_starts_from_the_out_arrays_initial_bytes():
    spec = _spec()
    params, right = _inputs()
    store = np.full((8, 2), np.nan, dtype=np.float32)  # poison; the case passes a strided view of it
    params = {**params, "gradInput": store[:, 0]}
    op = _LazyOp(spec, [right], block_dim=4)
    first = run_case(op, _case(spec, params), _ref())
    second = run_case(op, _case(spec, params, "reversed"), _ref())
    assert first.passed
    assert not second.passed  # it wrote nothing: the NaN poison is there again, not the first order's output
    assert params["gradInput"].base is store and np.isnan(store[:, 1]).all()  # the same view, its neighbours kept
