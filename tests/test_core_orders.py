"""Every value case of both seed ops under every core schedule of the emulator, on one product each.

The value cases are the ``--quick`` matrix plus the multi-core cases of ``multicore_cases`` (the quick
matrix of the elementwise op runs on one core only, where the order of cores cannot matter). Each case is
judged exactly as ``opgen check`` judges it, under ``in_order``, ``reversed``, ``shuffle`` with three seeds
and ``concurrent``.

What tests/test_embedding_dense_backward.py already covers is not repeated: it checks bit-identical
deterministic output over 20 schedules for ONE input (6000 x 20 FLOAT, INT64 indices, scaling) on Ascend910
and Ascend910B. Here the same property is extended to EVERY deterministic value case of the matrix (every
grad dtype, the quick index dtypes, padding, scaling, rank 8, out dtype conversions, the UB chunk boundary,
invalid indices, row splits with uneven cores) on Ascend950, the product with the most cores.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from multicore_cases import EDB, SMLB, multicore_cases, targeted_cases

from codegen.check.case_run import run_case
from codegen.check.cases import Case
from codegen.check.driver import CaseResult
from codegen.check.reference import load_reference
from codegen.runner import OpCallable, compile_op

#: (core order, shuffle seed): every schedule of opgen_rt::CoreOrder, shuffle with three seeds.
SCHEDULES: tuple[tuple[str, int], ...] = (
    ("in_order", 0),
    ("reversed", 0),
    ("shuffle", 1),
    ("shuffle", 2),
    ("shuffle", 3),
    ("concurrent", 0),
)

#: One product per op: the elementwise op on the product without DataCopyPad (scalar tails, 32 cores),
#: the index op on the product with the most vector cores.
PRODUCT = {SMLB: "Ascend910", EDB: "Ascend950"}


@dataclass
class Run:
    """The results of every value case of one op under one schedule, and the output bytes of the
    deterministic cases (by case ident)."""

    results: list[CaseResult]
    det_bytes: dict[str, bytes]
    max_block_dim: int


def _value_cases(op: str) -> list[Case]:
    # plain value cases: determinism cases run every order themselves, tiling_2g cases launch nothing
    return [c for c in targeted_cases(op, PRODUCT[op]) if c.expect_status is None and c.mode is None]


def _run(fn: OpCallable, op: str, order: str, seed: int) -> Run:
    ref = load_reference(fn.spec)
    results: list[CaseResult] = []
    det: dict[str, bytes] = {}
    max_dim = 0
    for case in _value_cases(op):
        case.core_order, case.seed = order, seed
        result = run_case(fn, case, ref)
        results.append(result)
        for launch in result.counters.get("launches", []):
            max_dim = max(max_dim, int(launch["block_dim"]))
        if case.deterministic and result.passed:
            # the output again, to keep its bytes (run_case does not return it)
            got = fn(core_order=order, seed=seed, deterministic=True, **case.params)
            det[case.ident] = np.ascontiguousarray(got).tobytes()
    return Run(results, det, max_dim)


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, dict[tuple[str, int], Run]]]:
    out: dict[str, dict[tuple[str, int], Run]] = {}
    for op in (SMLB, EDB):
        fn = compile_op(op, PRODUCT[op])
        out[op] = {(order, seed): _run(fn, op, order, seed) for order, seed in SCHEDULES}
    yield out


@pytest.mark.parametrize("op", [SMLB, EDB])
@pytest.mark.parametrize(("order", "seed"), SCHEDULES, ids=[f"{o}-{s}" for o, s in SCHEDULES])
def test_value_cases_pass_under_every_core_order(
    op: str, order: str, seed: int, runs: dict[str, dict[tuple[str, int], Run]]
) -> None:
    run = runs[op][(order, seed)]
    assert len(run.results) >= 30
    failed = [r for r in run.results if not r.passed]
    assert not failed, "\n".join(f"{r.ident}: {r.message}" for r in failed[:10])
    # the schedules are exercised: some launch of the op runs on many cores
    assert run.max_block_dim >= 16, run.max_block_dim


def test_multicore_cases_launch_several_cores_in_every_schedule(runs: dict[str, dict[tuple[str, int], Run]]) -> None:
    """The schedules can only differ where a launch has several cores: every multi-core case has them."""
    for op in (SMLB, EDB):
        for schedule, run in runs[op].items():
            multi = [r for r in run.results if r.name.startswith("multi-core")]
            assert multi, (op, schedule)
            assert all(max(int(x["block_dim"]) for x in r.counters["launches"]) > 1 for r in multi), (op, schedule)


def test_deterministic_mode_is_bit_identical_for_every_case_and_schedule(
    runs: dict[str, dict[tuple[str, int], Run]],
) -> None:
    by_schedule = runs[EDB]
    first = by_schedule[SCHEDULES[0]]
    det_cases = [c for c in _value_cases(EDB) if c.deterministic]
    assert len(first.det_bytes) == len(det_cases) >= 40
    multi = [ident for ident in first.det_bytes if "multi-core" in ident]
    # every deterministic multi-core case of tests/multicore_cases.py ran (five shapes there)
    assert len(multi) == sum(c.deterministic for c in multicore_cases(EDB, first.results[0].product)) == 5
    for schedule, run in by_schedule.items():
        assert run.det_bytes.keys() == first.det_bytes.keys(), schedule
        differ = [ident for ident, b in run.det_bytes.items() if b != first.det_bytes[ident]]
        assert not differ, f"{schedule}: deterministic output differs from in_order for {differ[:5]}"
