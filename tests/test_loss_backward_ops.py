"""The four ops added from a spec and a reference only (MseLossBackward, SigmoidBackward, SmoothL1LossBackward,
BinaryCrossEntropyBackward), through their generated C ABI: the CANN documentation examples, the rules their
specs document (smooth L1 at beta = 0, BCE's optional weight and shape rule) and their error statuses."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from codegen.families.elementwise.plan.tiling import tiling_decision
from codegen.runner import AclnnError, OpCallable, compile_op
from codegen.spec.model import DType
from codegen.specs import load_project

F32 = np.float32
CATALOGUE, SPECS = load_project()


@pytest.fixture(scope="module")
def mse(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("MseLossBackward", "Ascend910B")


@pytest.fixture(scope="module")
def smooth_l1(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("SmoothL1LossBackward", "Ascend910B")


@pytest.fixture(scope="module")
def sigmoid(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("SigmoidBackward", "Ascend910B")


@pytest.fixture(scope="module", params=["Ascend910B", "Ascend910"])
def bce(request: pytest.FixtureRequest, built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("BinaryCrossEntropyBackward", request.param)


def test_mse_doc_example_and_mean_divisor(mse: OpCallable) -> None:
    x = np.array([[0, 1], [2, 3]], F32)
    got = mse(gradOutput=x, self=x, target=np.ones((2, 2), F32), reduction=1)
    np.testing.assert_array_equal(got, np.array([[0, 0], [1, 3]], F32))  # 2 * (x - 1) * x / 4
    # mean divides by the element count of the broadcast shape (6), not of self (3).
    got = mse(gradOutput=np.ones((2, 3), F32), self=np.ones(3, F32), target=np.zeros((2, 3), F32), reduction=1)
    np.testing.assert_allclose(got, np.full((2, 3), 2 / 6), rtol=1e-7)


def test_mse_requires_the_dtype_of_self(mse: OpCallable) -> None:
    with pytest.raises(AclnnError) as info:
        mse(gradOutput=np.ones(4, np.float16), self=np.ones(4, F32), target=np.ones(4, F32), reduction=0)
    assert info.value.status == 161002
    assert "gradOutput and target must have the dtype of self" in info.value.message


def test_smooth_l1_doc_example_and_beta_rules(smooth_l1: OpCallable) -> None:
    x = np.arange(8, dtype=F32).reshape(4, 2)
    g, t = np.ones((4, 2), F32), np.ones((4, 2), F32)
    got = smooth_l1(gradOut=g, self=x, target=t, reduction=0, beta=1.0)
    np.testing.assert_array_equal(got.reshape(-1), [-1, 0, 1, 1, 1, 1, 1, 1])
    got = smooth_l1(gradOut=g, self=x, target=t, reduction=0, beta=4.0)
    np.testing.assert_array_equal(got.reshape(-1), [-0.25, 0, 0.25, 0.5, 0.75, 1, 1, 1])
    # beta = 0 is the L1 gradient: sign(self - target), 0 where they are equal, even for tiny differences.
    tiny = np.array([1e-30, -1e-30, 0, 3, -2e-38], F32)
    got = smooth_l1(gradOut=np.ones(5, F32), self=tiny, target=np.zeros(5, F32), reduction=0, beta=0.0)
    np.testing.assert_array_equal(got, [1, -1, 0, 1, -1])
    for beta in (-0.5, float("nan")):
        with pytest.raises(AclnnError) as info:
            smooth_l1(gradOut=g, self=x, target=t, reduction=0, beta=beta)
        assert info.value.status == 161002
        assert "beta must be greater than or equal to 0, but got" in info.value.message


def test_sigmoid_doc_example(sigmoid: OpCallable) -> None:
    y = np.array([[0.5, 0.25], [0.75, 0.9]], F32)
    got = sigmoid(gradOutput=np.full((2, 2), 2, F32), output=y)
    expected = 2 * y.astype(np.float64) * (1 - y.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=2e-7)


def test_bce_doc_example_and_null_weight(bce: OpCallable) -> None:
    g, x, t = (np.full((2, 2), v, F32) for v in (0.1, 0.3, 0.5))
    with_ones = bce(gradOutput=g, self=x, target=t, weightOptional=np.ones((2, 2), F32), reduction=0)
    np.testing.assert_allclose(with_ones, np.full((2, 2), 0.1 * -0.2 / 0.21), rtol=1e-6)
    rng = np.random.default_rng(5)
    g, x, t = (rng.uniform(0.01, 0.99, (37, 129)).astype(F32) for _ in range(3))
    ones = bce(gradOutput=g, self=x, target=t, weightOptional=np.ones((37, 129), F32), reduction=2)
    null = bce(gradOutput=g, self=x, target=t, weightOptional=None, reduction=2)
    np.testing.assert_array_equal(null, ones)  # the weight-free program is the same arithmetic without w * 1
    assert bce.last_stats["launches"][0]["tiling_key"] == 3  # FLOAT, weight absent


def test_bce_clamps_the_denominator_and_means_over_self(bce: OpCallable) -> None:
    x = np.array([0.0, 1.0, 0.5, 2.0], F32)
    got = bce(gradOutput=np.ones(4, F32), self=x, target=np.full(4, 0.5, F32), reduction=1)
    denom = np.maximum(x.astype(np.float64) * (1 - x.astype(np.float64)), 1e-12)
    np.testing.assert_allclose(got, (x - 0.5) / denom / 4, rtol=1e-6)


def test_bce_inputs_broadcast_to_self_only(bce: OpCallable) -> None:
    x = np.full((3, 4), 0.25, F32)
    w = np.array([1, 2, 3, 4], F32)
    got = bce(gradOutput=np.float32(1), self=x, target=np.zeros((1, 4), F32), weightOptional=w, reduction=0)
    np.testing.assert_allclose(got, np.broadcast_to(w * 0.25 / 0.1875, (3, 4)), rtol=1e-6)
    with pytest.raises(AclnnError) as info:  # broadcastable with self, but to a larger shape than self's
        bce(gradOutput=np.ones((2, 3, 4), F32), self=x, target=x, out=np.zeros((3, 4), F32), reduction=0)
    assert info.value.status == 161002
    assert "gradOutput shape [2, 3, 4] must broadcast to the shape [3, 4] of self" in info.value.message


@pytest.mark.parametrize("absent", [(), ("weightOptional",)])
def test_bce_tiling_rule_equals_the_tiling_function(absent: tuple[str, ...]) -> None:
    spec = SPECS["binary_cross_entropy_backward"]
    for product in ("Ascend910", "Ascend910B"):
        d = tiling_decision(spec, CATALOGUE.get(product), (1000, 1000), DType.FLOAT16, absent)
        tensor: dict[str, object] = {"shape": [1000, 1000], "dtype": "FLOAT16"}
        inputs: list[dict[str, object] | None] = [tensor] * 4
        if absent:
            inputs[3] = None
        got = compile_op(spec.op, product).run_tiling(
            {"inputs": inputs, "outputs": [tensor], "attrs": {"reduction": "mean"}}
        )
        assert got["status"] == 0, got
        assert (got["tiling_key"], got["block_dim"]) == (d.tiling_key, d.block_dim)
        t = got["tiling"]
        assert (t["tileLength"], t["inBufferNum"], t["outBufferNum"]) == (
            d.tile_length,
            d.in_buffer_num,
            d.out_buffer_num,
        )
