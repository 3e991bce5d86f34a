"""The tiling-key filter of the builder (``build_op(tiling_keys=...)``, ``-DOPGEN_TILING_KEYS``): a kernel
compiled for some of its keys runs those keys exactly as the full build does, and a launch of any other key
is refused with a ``[tiling key not built]`` kernel fault (status 507035
from the stream's synchronisation), never a kernel that silently does
nothing. And the key pre-pass of ``opgen check --sanitize`` (``Job.launched_keys_only``), which compiles the
instrumented kernel for the keys the job's cases launch: it lists exactly the keys a real run launches, and a
case that launches a key outside the list fails with that fault."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codegen.build import BuildError, build_op
from codegen.check import driver
from codegen.check.results import Job
from codegen.check.worker import LIST_TILING_KEYS_ENV
from codegen.runner import AclnnError, OpCallable
from codegen.specs import load_project

OP = "soft_margin_loss_backward"
RUNTIME_ERROR = 507035  # ACL_ERROR_RT_VECTOR_CORE_EXCEPTION: the stream sync's status of a kernel fault


def _args(dtype: type) -> dict[str, object]:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 5)).astype(dtype)
    return {"gradOutput": x, "self": x * 2, "target": np.sign(x) + (x == 0), "reduction": 0}


@pytest.fixture(scope="module")
def float_only() -> OpCallable:
    """SoftMarginLossBackward on Ascend910B compiled for tiling key 0 only (its FLOAT kernel)."""
    catalogue, specs = load_project()
    return OpCallable(build_op(specs[OP], catalogue.get("Ascend910B"), tiling_keys=[0]))


def test_a_built_key_runs_as_the_full_build(float_only: OpCallable, built_op: Callable[[str, str], OpCallable]) -> None:
    full = built_op(OP, "Ascend910B")
    args = _args(np.float32)
    got = float_only(**args)
    assert float_only.last_stats["launches"][0]["tiling_key"] == 0
    np.testing.assert_array_equal(got, full(**args))
    # the formula in float64 (the full build's own output is no reference for values)
    x, t = args["self"], args["target"]
    expected = -t * np.exp(-t * x) / (1 + np.exp(-t * x)) * args["gradOutput"]  # type: ignore[operator]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert float_only.built.library != full.built.library
    # the branches of the other keys were not compiled: the library is smaller
    assert float_only.built.library.stat().st_size < full.built.library.stat().st_size


def test_a_key_outside_the_filter_faults_at_launch(float_only: OpCallable) -> None:
    with pytest.raises(AclnnError) as err:
        float_only(**_args(np.float16))
    assert err.value.status == RUNTIME_ERROR
    message = err.value.message
    assert "kernel fault [tiling key not built]" in message
    assert "tiling key 1 is not one of the keys this kernel was compiled for (0," in message
    assert "(Ascend910B)" in message


@pytest.mark.parametrize("keys", [[], [-1], [2**64], [True]], ids=["empty", "negative", "too-large", "bool"])
def test_a_bad_key_set_is_refused(keys: list[int]) -> None:
    catalogue, specs = load_project()
    with pytest.raises(BuildError, match="tiling_keys must be a non-empty set of uint64 integers"):
        build_op(specs[OP], catalogue.get("Ascend910B"), tiling_keys=keys)


def _job(product: str, launched_keys_only: bool = False) -> Job:
    return Job(OP, product, (), True, None, ("in_order",), False, None, launched_keys_only=launched_keys_only)


def _launched(results: list[driver.CaseResult]) -> set[int]:
    """The tiling keys of the launches the emulator counted in a real run's results."""
    return {int(launch["tiling_key"]) for r in results for launch in r.counters.get("launches", ())}


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_the_key_pre_pass_lists_the_keys_a_real_run_launches(product: str) -> None:
    """The listing (the runtime's listing mode, read from a file) against the launch counters of the same
    quick matrix run for real (the emulator's per-launch stats, another path)."""
    catalogue, specs = load_project()
    listed = driver.launched_tiling_keys(_job(product), specs[OP], catalogue.get(product), None)
    real = driver.run_job(_job(product))
    assert real and all(r.passed for r in real)
    assert listed == _launched(real)
    # the quick matrix covers a 16-bit dtype besides FLOAT: at least two keys
    assert listed is not None and len(listed) >= 2


def test_listing_mode_records_the_key_and_runs_no_kernel(
    tmp_path: Path, built_op: Callable[[str, str], OpCallable], monkeypatch: pytest.MonkeyPatch
) -> None:
    fn = built_op(OP, "Ascend910B")
    listing = tmp_path / "keys"
    monkeypatch.setenv(LIST_TILING_KEYS_ENV, str(listing))
    args = _args(np.float16)
    out = np.full((3, 5), 7.0, dtype=np.float16)
    fn(**args, out=out)
    fn(**_args(np.float32))
    assert listing.read_text() == "1\n0\n"  # FLOAT16 is key 1, FLOAT key 0 (the spec's dtype order)
    np.testing.assert_array_equal(out, np.full((3, 5), 7.0, dtype=np.float16))  # no kernel wrote it
    assert [launch["cores"] for launch in fn.last_stats["launches"]] == [[]]  # no core ran
    monkeypatch.delenv(LIST_TILING_KEYS_ENV)
    assert LIST_TILING_KEYS_ENV not in os.environ
    fn(**args, out=out)
    assert not np.array_equal(out, np.full((3, 5), 7.0, dtype=np.float16))  # a real launch again
    assert len(fn.last_stats["launches"][0]["cores"]) == fn.last_stats["launches"][0]["block_dim"] >= 1


def test_a_case_launching_a_key_left_out_of_the_pre_pass_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job built for its listed keys runs its cases; with a listed key missing (as if the listing were
    wrong), every case launching it fails with the [tiling key not built] fault instead of passing."""
    real = driver.launched_tiling_keys
    listed: list[set[int]] = []

    def fewer(*args: object, **kwargs: object) -> set[int] | None:
        keys = real(*args, **kwargs)  # type: ignore[arg-type]
        assert keys is not None
        listed.append(set(keys))
        return keys - {max(keys)}

    monkeypatch.setattr(driver, "launched_tiling_keys", fewer)
    results = driver.run_job(_job("Ascend910", launched_keys_only=True))
    assert listed and len(listed[0]) >= 2
    dropped = max(listed[0])
    failed = [r for r in results if not r.passed]
    assert failed, "a case launching the key left out passed"
    for r in failed:
        assert "kernel fault [tiling key not built]" in r.message, r.message
        assert f"tiling key {dropped} is not one of the keys this kernel was compiled for" in r.message
    assert any(r.passed and r.counters.get("launches") for r in results)  # the listed keys ran


@pytest.mark.parametrize("sanitize", [False, True], ids=["plain", "sanitize"])
def test_only_a_sanitized_check_builds_for_the_launched_keys(sanitize: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`opgen check --sanitize` asks every job for the key pre-pass; a plain check compiles every key."""
    from codegen import cli

    seen: list[Job] = []

    def capture(jobs: list[Job], workers: int, progress: object = None) -> list[driver.CaseResult]:
        seen.extend(jobs)
        return []

    monkeypatch.setattr(driver, "run_check", capture)
    monkeypatch.setenv("OPGEN_SANITIZE_CHILD", "1")  # as in the rerun with the sanitizer runtimes preloaded
    cli.main(
        ["check", OP, "--quick", "--product", "Ascend910B", "--product", "Ascend910", *(["--sanitize"] * sanitize)]
    )
    assert sorted(j.product for j in seen) == ["Ascend910", "Ascend910B"]
    assert all(j.sanitize is sanitize and j.launched_keys_only is sanitize for j in seen)
