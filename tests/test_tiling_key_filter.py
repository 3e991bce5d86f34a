"""The tiling-key filter of the builder (``build_op(tiling_keys=...)``, ``-DOPGEN_TILING_KEYS``): a kernel
compiled for some of its keys runs those keys exactly as the full build does, and a launch of any other key
is refused with a ``[tiling key not built]`` kernel fault (status 361001), never a kernel that silently does
nothing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from codegen.build import BuildError, build_op
from codegen.runner import AclnnError, OpCallable
from codegen.specs import load_project

OP = "soft_margin_loss_backward"
RUNTIME_ERROR = 361001  # ACLNN_ERR_RUNTIME_ERROR, the status of a kernel fault


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
