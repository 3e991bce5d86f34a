"""aclnnLayerNorm's and aclnnLayerNormBackward's kernels against PyTorch as the independent oracle.

``torch.ops.aten.native_layer_norm(input, normalized_shape, weight, bias, eps)`` in float64 returns ``(out,
mean, rstd)`` with the shapes CANN documents; the generated op runs on Ascend910B and is compared within the
reference module's ``tolerance()`` (the fp32 accumulation bound) plus one ULP of each output's dtype. PyTorch
takes weight and bias of input's dtype only: the oracle gets them upcast to float64 (CANN also takes FLOAT
weight and bias beside a FLOAT16 input). Cases: rows of one and of two dims, a row cut in chunks, a large mean
against a small spread (a one-pass E[x^2] - E[x]^2 would lose every digit), null weight and bias, a FLOAT16
input with FLOAT weight and bias, and null mean and rstd outputs. The backward against
``torch.ops.aten.native_layer_norm_backward`` (same parameters, the saved mean and rstd of ``native_layer_norm``):
the reference within float64 rounding and the kernel within its ``tolerance()``, with a weight and with a null one
(PyTorch gets ones, and a zero bias) and a gradBiasOut the outputMask leaves out (null, not produced).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.runner import OpCallable

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

#: (name, input shape, normalized dims, scale, offset, input dtype, weight/bias dtype or None for null)
CASES = [
    ("rows", (7, 33), 1, 2.0, 0.0, np.float32, np.float32),
    ("row of 2 dims", (3, 4, 6), 2, 2.0, 0.0, np.float32, np.float32),
    ("chunked row", (2, 30000), 1, 3.0, 0.0, np.float32, np.float32),
    ("large mean, small spread", (5, 64), 1, 1.0, 1.0e4, np.float32, np.float32),
    ("null weight and bias", (6, 40), 1, 2.0, 0.5, np.float32, None),
    ("FLOAT16 input, FLOAT weight and bias", (4, 48), 1, 2.0, 0.0, np.float16, np.float32),
]


def _reference(op: str = "layer_norm") -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"ref_{op}_torch", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "shape", "k", "scale", "offset", "xdt", "wdt"), CASES, ids=[c[0] for c in CASES])
def test_kernel_matches_pytorch_native_layer_norm(
    built_op: Callable[[str, str], OpCallable],
    name: str,
    shape: tuple[int, ...],
    k: int,
    scale: float,
    offset: float,
    xdt: type,
    wdt: type | None,
) -> None:
    fn = built_op("layer_norm", "Ascend910B")
    rng = np.random.default_rng(len(name))
    x = (rng.standard_normal(shape) * scale + offset).astype(xdt)
    row = shape[len(shape) - k :]
    w = None if wdt is None else rng.standard_normal(row).astype(wdt)
    b = None if wdt is None else rng.standard_normal(row).astype(wdt)
    eps = 1e-5
    out, mean, rstd = fn(input=x, normalizedShape=row, weightOptional=w, biasOptional=b, eps=eps)
    t = torch.from_numpy(x.astype(np.float64))
    tw = None if w is None else torch.from_numpy(w.astype(np.float64))
    tb = None if b is None else torch.from_numpy(b.astype(np.float64))
    want = [a.numpy() for a in torch.ops.aten.native_layer_norm(t, list(row), tw, tb, float(np.float32(eps)))]
    atols = _reference().tolerance(x, row, w, b, eps)[:3]
    for got, w_arr, atol, label in zip((out, mean, rstd), want, atols, ("out", "mean", "rstd"), strict=True):
        assert got.shape == w_arr.shape, label
        ulp = np.abs(np.spacing(np.abs(w_arr).astype(got.dtype))).astype(np.float64)
        err = np.abs(np.asarray(got, np.float64) - w_arr)
        assert np.all(err <= atol + ulp), (label, float(np.max(err - atol - ulp)))
    assert out.dtype == x.dtype


def test_null_mean_and_rstd_are_not_produced(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op("layer_norm", "Ascend910B")
    x = np.array([[1, 2, 3, 6], [-1, 1, -1, 1]], np.float32)
    out, mean, rstd = fn(input=x, normalizedShape=(4,), meanOutOptional=None, rstdOutOptional=None)
    assert mean is None and rstd is None
    # rows: mean 3, variance 3.5; mean 0, variance 1
    r0, r1 = 1 / np.sqrt(3.5 + float(np.float32(1e-5))), 1 / np.sqrt(1 + float(np.float32(1e-5)))
    want = np.array([[-2 * r0, -r0, 0, 3 * r0], [-r1, r1, -r1, r1]])
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


#: (name, input shape, normalized dims, weight given, outputMask)
BACKWARD_CASES = [
    ("rows, weight", (6, 40), 1, True, (True, True, True)),
    ("row of 2 dims, null weight, no gradBiasOut", (3, 4, 6), 2, False, (True, True, False)),
]


@pytest.mark.parametrize(("name", "shape", "k", "weighted", "mask"), BACKWARD_CASES, ids=[c[0] for c in BACKWARD_CASES])
def test_backward_matches_pytorch_native_layer_norm_backward(
    built_op: Callable[[str, str], OpCallable],
    name: str,
    shape: tuple[int, ...],
    k: int,
    weighted: bool,
    mask: tuple[bool, bool, bool],
) -> None:
    rng = np.random.default_rng(len(name))
    row = shape[len(shape) - k :]
    x = (rng.standard_normal(shape) * 2.0 + 0.5).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(row).astype(np.float32) if weighted else None
    t = torch.from_numpy(x.astype(np.float64))
    tw = torch.from_numpy(w.astype(np.float64)) if w is not None else torch.ones(row, dtype=torch.float64)
    _, tmean, trstd = torch.ops.aten.native_layer_norm(t, list(row), tw, None, 1e-5)
    mean, rstd = tmean.numpy().astype(np.float32), trstd.numpy().astype(np.float32)
    tg = torch.from_numpy(dy.astype(np.float64))
    tm, tr = (torch.from_numpy(a.astype(np.float64)) for a in (mean, rstd))
    tb = torch.zeros(row, dtype=torch.float64)  # never read; PyTorch wants a bias for its grad_bias
    want = [a.numpy() for a in torch.ops.aten.native_layer_norm_backward(tg, t, list(row), tm, tr, tw, tb, [True] * 3)]
    ref = _reference("layer_norm_backward")
    for got_ref, w_arr in zip(ref.reference(dy, x, row, mean, rstd, w), want, strict=True):
        np.testing.assert_allclose(got_ref, w_arr, rtol=1e-12, atol=1e-12)
    fn = built_op("layer_norm_backward", "Ascend910B")
    outs = {"gradInputOut": None, "gradWeightOut": None, "gradBiasOut": None}
    given = {n: a for (n, a), m in zip(outs.items(), mask, strict=True) if not m}
    got = fn(gradOut=dy, input=x, normalizedShape=row, mean=mean, rstd=rstd, weightOptional=w, outputMask=mask, **given)
    atols = ref.tolerance(dy, x, row, mean, rstd, w)[:3]
    for g, w_arr, atol, wanted, label in zip(got, want, atols, mask, outs, strict=True):
        if not wanted:
            assert g is None, label
            continue
        assert g.shape == w_arr.shape, label
        ulp = np.abs(np.spacing(np.abs(w_arr).astype(g.dtype))).astype(np.float64)
        err = np.abs(np.asarray(g, np.float64) - w_arr)
        assert np.all(err <= atol + ulp), (label, float(np.max(err - atol - ulp)))


def test_backward_takes_a_bias_it_never_reads(built_op: Callable[[str, str], OpCallable]) -> None:
    """biasOptional is an aclnn input the device op does not take (checked by the L2 API, never launched): a call
    that passes it allocates its outputs as one without it (the dtype combinations do not list it) and gives
    bit-identical results; a bias of the wrong shape is the L2 API's 161002."""
    from codegen.runner import AclnnError

    fn = built_op("layer_norm_backward", "Ascend910B")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 7)).astype(np.float32)
    dy = rng.standard_normal((4, 7)).astype(np.float32)
    mean = x.mean(axis=1, keepdims=True).astype(np.float32)
    rstd = (1.0 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)).astype(np.float32)
    call = {"gradOut": dy, "input": x, "normalizedShape": [7], "mean": mean, "rstd": rstd, "outputMask": [True] * 3}
    without = fn(**call)
    with_bias = fn(**call, biasOptional=rng.standard_normal(7).astype(np.float32))
    for a, b in zip(without, with_bias, strict=True):
        assert a.tobytes() == b.tobytes()
    with pytest.raises(AclnnError) as info:
        fn(**call, biasOptional=np.zeros(6, np.float32))
    assert info.value.status == 161002


#: output masks leaving out one output or two (each not passed by the caller)
MASKS = [(True, False, True), (False, True, True), (True, True, False), (False, False, True)]


@pytest.mark.parametrize("mask", MASKS, ids=["".join("TF"[not m] for m in mask) for mask in MASKS])
def test_backward_output_the_mask_switches_off_is_none_when_not_passed(
    built_op: Callable[[str, str], OpCallable], mask: tuple[bool, bool, bool]
) -> None:
    # no array is allocated for it (the emulator's poison, NaN, would come back); the others as PyTorch's
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 7)).astype(np.float32)
    dy = rng.standard_normal((3, 7)).astype(np.float32)
    w = rng.standard_normal(7).astype(np.float32)
    t, tw = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64))
    _, tm, tr = torch.ops.aten.native_layer_norm(t, [7], tw, None, 1e-5)
    mean, rstd = tm.numpy().astype(np.float32), tr.numpy().astype(np.float32)
    want = torch.ops.aten.native_layer_norm_backward(
        torch.from_numpy(dy.astype(np.float64)), t, [7], tm, tr, tw, torch.zeros(7, dtype=torch.float64), list(mask)
    )
    fn = built_op("layer_norm_backward", "Ascend910B")
    got = fn(gradOut=dy, input=x, normalizedShape=[7], mean=mean, rstd=rstd, weightOptional=w, outputMask=list(mask))
    for g, w_t, on in zip(got, want, mask, strict=True):
        assert (g is None) == (not on) and (w_t is None) == (not on)
        if on:
            np.testing.assert_allclose(g, w_t.numpy(), rtol=1e-4, atol=1e-4)


def test_backward_masked_output_passed_explicitly_is_still_written_or_left(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    # an output the caller passes keeps being the caller's array, whatever its mask entry
    x = np.linspace(-1.0, 1.0, 14, dtype=np.float32).reshape(2, 7)
    mean = x.mean(axis=1, keepdims=True)
    rstd = np.ones((2, 1), np.float32)
    given = np.full(7, 5.0, np.float32)
    fn = built_op("layer_norm_backward", "Ascend910B")
    got = fn(
        gradOut=np.ones_like(x),
        input=x,
        normalizedShape=[7],
        mean=mean,
        rstd=rstd,
        weightOptional=None,
        outputMask=[True, False, True],
        gradWeightOut=given,
    )
    assert got[1] is given
    np.testing.assert_array_equal(got[2], np.full(7, 2.0, np.float32))  # gradBias: the sum of gradOut over rows


def test_torch_op_returns_none_for_an_output_the_mask_switches_off() -> None:
    # as torch.ops.aten.native_layer_norm_backward, whose output a false mask entry leaves undefined (None)
    from torch._subclasses.fake_tensor import FakeTensorMode

    from codegen.torch.operators import register

    ns = getattr(torch.ops, register("Ascend910B"))
    x = torch.linspace(-1.0, 1.0, 14).reshape(2, 7)
    mean, rstd = x.mean(1, keepdim=True), torch.ones(2, 1)
    w = torch.ones(7)
    want = torch.ops.aten.native_layer_norm_backward(x, x, [7], mean, rstd, w, torch.zeros(7), [True, False, True])
    got = ns.layer_norm_backward(x, x, [7], mean, rstd, w, None, [True, False, True])
    assert want[1] is None and got[1] is None
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[2], want[2])
    with FakeTensorMode() as mode:
        fake = [mode.from_tensor(a) for a in (x, mean, rstd, w)]
        traced = ns.layer_norm_backward(fake[0], fake[0], [7], fake[1], fake[2], fake[3], None, [False, True, True])
    assert traced[0] is None and tuple(traced[1].shape) == (7,) and tuple(traced[2].shape) == (7,)


@pytest.mark.parametrize(("mask", "status"), [(None, 161001), ([True, False], 161002)], ids=["null", "length 2"])
def test_backward_a_mask_the_api_refuses_is_its_status_not_a_guess(
    built_op: Callable[[str, str], OpCallable], mask: list[bool] | None, status: int
) -> None:
    # a null mask or one of another length than the outputs switches nothing off: the API answers it
    from codegen.runner import AclnnError

    x = np.ones((2, 7), np.float32)
    fn = built_op("layer_norm_backward", "Ascend910B")
    with pytest.raises(AclnnError) as e:
        fn(
            gradOut=x,
            input=x,
            normalizedShape=[7],
            mean=np.zeros((2, 1), np.float32),
            rstd=np.ones((2, 1), np.float32),
            weightOptional=None,
            outputMask=mask,
        )
    assert e.value.status == status
