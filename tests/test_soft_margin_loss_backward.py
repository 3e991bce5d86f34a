"""aclnnSoftMarginLossBackward end to end through the generated C ABI: values, statuses, numerics, faults."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from codegen.runner import AclnnError, OpCallable, compile_op, device_memory

F32 = np.float32


@pytest.fixture(scope="module")
def op910b(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("SoftMarginLossBackward", "Ascend910B")


@pytest.fixture(scope="module")
def op910(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("soft_margin_loss_backward", "Ascend910")


def formula(g: np.ndarray, x: np.ndarray, t: np.ndarray, reduction: int) -> np.ndarray:
    """The literal CANN formula in float64: -t * exp(-t x) / (1 + exp(-t x)) * g * norm."""
    g, x, t = (np.asarray(a, np.float64) for a in (g, x, t))
    shape = np.broadcast_shapes(g.shape, x.shape, t.shape)
    norm = 1.0 / np.prod(shape) if reduction == 1 else 1.0
    return -t * np.exp(-t * x) / (1 + np.exp(-t * x)) * g * norm


def test_cann_doc_example(op910b) -> None:  # type: ignore[no-untyped-def]
    x = np.array([[0, 1], [2, 3]], F32)
    got = op910b(gradOutput=x, self=x, target=np.ones((2, 2), F32), reduction=1)
    expected = formula(x, x, np.ones((2, 2)), 1)
    np.testing.assert_array_max_ulp(got, expected.astype(F32), maxulp=1)
    assert got[0, 0] == 0.0
    assert got[0, 1] == pytest.approx(-0.25 / (1 + np.e), rel=1e-6)


@pytest.mark.parametrize("reduction,norm", [(0, 1.0), (1, 1 / 12), (2, 1.0)])
def test_reductions_and_broadcast_mean_divisor(op910b, reduction: int, norm: float) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    g = np.asarray(rng.standard_normal(()), F32)  # 0-d gradOutput, as PyTorch passes for mean/sum
    x = rng.standard_normal((3, 1)).astype(F32)  # self smaller than the broadcast shape
    t = rng.standard_normal((3, 4)).astype(F32)
    got = op910b(gradOutput=g, self=x, target=t, reduction=reduction)
    assert got.shape == (3, 4)
    expected = -t.astype(np.float64) * g * (1 / (1 + np.exp(t.astype(np.float64) * x))) * norm
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-12)


def test_finite_on_both_sides_of_the_exp_overflow_threshold(op910b) -> None:  # type: ignore[no-untyped-def]
    # t*x from -200 to 200 crosses -88.7, where exp(-t*x) overflows fp32 and the literal form gives NaN.
    x = np.linspace(-200, 200, 4001, dtype=F32)
    t = np.ones_like(x)
    g = np.ones_like(x)
    got = op910b(gradOutput=g, self=x, target=t, reduction=0)
    assert np.all(np.isfinite(got))
    with np.errstate(over="ignore", invalid="ignore"):
        literal = formula(g.astype(F32), x, t, 0).astype(F32)
        literal32 = (-t * np.exp(-t * x) / (1 + np.exp(-t * x)) * g).astype(F32)
    assert np.isnan(literal32[x < -88.8]).all()  # what PyTorch eager's literal fp32 form gives
    stable = -1.0 / (1.0 + np.exp(x.astype(np.float64)))
    np.testing.assert_allclose(got, stable, rtol=5e-5, atol=1e-30)
    assert got[0] == pytest.approx(-1.0) and got[-1] == pytest.approx(0.0, abs=1e-38)
    assert np.isfinite(literal[x > -700]).all()


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_16bit_inputs_are_computed_in_fp32_and_rounded_once(op910b, dtype) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    x, t, g = (rng.standard_normal(1000).astype(dtype) for _ in range(3))
    got = op910b(gradOutput=g, self=x, target=t, reduction=2)
    assert got.dtype == np.dtype(dtype)
    exact = -t.astype(np.float64) * g.astype(np.float64) / (1 + np.exp(t.astype(np.float64) * x.astype(np.float64)))
    # Rounded once from an fp32 result: within one ULP of the correctly rounded value.
    spacing = np.abs(exact.astype(dtype).astype(np.float64)) * (2.0**-10 if dtype == np.float16 else 2.0**-7)
    assert np.all(np.abs(got.astype(np.float64) - exact) <= spacing + 1e-7)


def test_non_contiguous_inputs_and_output(op910) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(11)
    x = rng.standard_normal((40, 30)).astype(F32).T  # transposed
    t = rng.standard_normal((30, 80)).astype(F32)[:, ::2]  # sliced
    g = rng.standard_normal((30, 40)).astype(F32)
    store = np.full((30, 120), 7.0, F32)
    out = store[:, ::3]
    op910(gradOutput=g, self=x, target=t, reduction=0, out=out)
    expected = formula(g, x, t, 0)
    np.testing.assert_allclose(store[:, ::3], expected, rtol=1e-5, atol=1e-7)
    untouched = np.delete(store, np.arange(0, 120, 3), axis=1)
    assert (untouched == 7.0).all()


def test_out_arrays_that_cannot_be_written_in_place_are_rejected_before_the_call(op910b) -> None:  # type: ignore[no-untyped-def]
    x = np.ones((4, 6), F32)
    ok = {"gradOutput": x, "self": x, "target": x, "reduction": 0}
    op910b(**ok)
    assert op910b.last_stats
    frozen = np.full((4, 6), 7.0, F32)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match=r"out= array 'out' is read-only"):
        op910b(**ok, out=frozen)
    assert (frozen == 7.0).all()
    store = np.full(6, 7.0, F32)
    with pytest.raises(ValueError, match=r"out= array 'out' has a zero stride .*np.broadcast_to"):
        op910b(**ok, out=np.broadcast_to(store, (4, 6)))
    writable_zero_stride = np.lib.stride_tricks.as_strided(store, (4, 6), (0, 4))
    with pytest.raises(ValueError, match=r"has a zero stride"):
        op910b(**ok, out=writable_zero_stride)
    overlapping = np.lib.stride_tricks.as_strided(np.full(16, 7.0, F32), (4, 6), (8, 4))
    with pytest.raises(ValueError, match=r"has overlapping elements"):
        op910b(**ok, out=overlapping)
    backwards = np.full((4, 6), 7.0, F32)
    with pytest.raises(ValueError, match=r"negative or not a multiple"):
        op910b(**ok, out=backwards[::-1])
    with pytest.raises(TypeError, match=r"must be a NumPy array"):
        op910b(**ok, out=[[0.0] * 6] * 4)
    assert (store == 7.0).all() and (backwards == 7.0).all()
    assert op910b.last_stats == {}  # nothing ran; no counters of the earlier call


def test_empty_self_gives_empty_out(op910b) -> None:  # type: ignore[no-untyped-def]
    e = np.zeros((0, 4), F32)
    assert op910b(gradOutput=e, self=e, target=e, reduction=1).shape == (0, 4)


def _status(fn, **params) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(AclnnError) as err:
        fn(**params)
    return err.value.status, err.value.message


def test_exact_statuses_and_messages(op910, op910b) -> None:  # type: ignore[no-untyped-def]
    a = np.ones((2, 3), F32)
    ok = {"gradOutput": a, "self": a, "target": a, "reduction": 1}
    status, msg = _status(op910b, **{**ok, "self": None})
    assert status == 161001 and "self" in msg
    status, msg = _status(op910, **{**ok, "self": a.astype(ml_dtypes.bfloat16)})
    assert status == 161002 and "self" in msg and "BF16" in msg
    nine = np.ones((1,) * 8 + (2,), F32)
    status, msg = _status(op910b, gradOutput=nine, self=nine, target=nine, reduction=0)
    assert status == 161002 and "9" in msg
    status, msg = _status(op910b, **{**ok, "target": np.ones((4, 3), F32)})
    assert status == 161002 and "broadcast" in msg
    status, msg = _status(op910b, **ok, out=np.zeros((3, 2), F32))
    assert status == 161002 and msg == "out shape [3, 2] must equal the broadcast shape [2, 3]."
    for bad in (3, -1):
        status, msg = _status(op910b, **{**ok, "reduction": bad})
        assert status == 161002
        assert msg == f"reduction must be one of 0 (none), 1 (mean), 2 (sum), but got {bad}."


def test_null_workspace_size_executor_and_phase2_twice(op910b) -> None:  # type: ignore[no-untyped-def]
    a = np.ones((2, 3), F32)
    out = np.zeros((2, 3), F32)
    tensors = {n: op910b.make_tensor(v) for n, v in {"gradOutput": a, "self": a, "target": a, "out": out}.items()}
    status, _, _ = op910b.phase1(tensors, {"reduction": 0}, null_workspace_size=True)
    assert status == 161001 and "workspaceSize" in op910b.recent_error()
    status, _, _ = op910b.phase1(tensors, {"reduction": 0}, null_executor=True)
    assert status == 161001 and "executor" in op910b.recent_error()
    status, size, executor = op910b.phase1(tensors, {"reduction": 0})
    assert status == 0 and size == 16 * 1024 * 1024  # only the system workspace (RESERVED_WORKSPACE of NpuArch 2201)
    workspace = device_memory(size)
    assert op910b.phase2(workspace, size, executor) == 0
    assert op910b.phase2(workspace, size, executor) == 161002  # the executor was consumed: an error, not a crash
    assert "executor" in op910b.recent_error()
    np.testing.assert_allclose(out, -1 / (1 + np.e), rtol=1e-6)


KERNEL = "op_kernel/soft_margin_loss_grad.cpp"


def test_ub_over_allocation_is_a_kernel_fault(broken_tree: Callable[..., Path]) -> None:
    root = broken_tree(
        "soft_margin_loss_backward",
        KERNEL,
        "pipe_.InitBuffer(outQueue_, static_cast<uint8_t>(tiling.outBufferNum),\n"
        "                     static_cast<uint32_t>(tileLength_ * sizeof(T)));",
        "pipe_.InitBuffer(outQueue_, static_cast<uint8_t>(tiling.outBufferNum),\n"
        "                     static_cast<uint32_t>(tileLength_ * sizeof(T) + 4096));",
    )
    fn = compile_op("soft_margin_loss_backward", "Ascend910B", generated=root)
    a = np.ones(100000, F32)
    with pytest.raises(AclnnError) as err:
        fn(gradOutput=a, self=a, target=a, reduction=0)
    assert err.value.status == 507035  # ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, from the stream's sync
    assert "[UB capacity]" in err.value.message and "soft_margin_loss_grad" in err.value.message
    assert "core 0/" in err.value.message and "Ascend910B" in err.value.message


def test_gm_read_past_a_buffer_is_a_kernel_fault(broken_tree: Callable[..., Path]) -> None:
    root = broken_tree(
        "soft_margin_loss_backward",
        KERNEL,
        "CopyGmToUb(selfLocal, selfGm_[offset], count);",
        "CopyGmToUb(selfLocal, selfGm_[offset + 64], count);",
    )
    fn = compile_op("soft_margin_loss_backward", "Ascend910B", generated=root)
    a = np.ones(1000, F32)
    with pytest.raises(AclnnError) as err:
        fn(gradOutput=a, self=a, target=a, reduction=0)
    assert err.value.status == 507035  # ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, from the stream's sync
    assert "[GM bounds]" in err.value.message and "soft_margin_loss_grad" in err.value.message
