"""aclnnAddRmsNorm: its spec's dtype table, its reference against PyTorch, and the generated op in the three
modes ops-nn's op_api chooses by the null outputs.

- The spec's dtype combinations are the OpDef's columns (one dtype for every tensor but rstd, FLOAT), BF16 off
  Ascend310P.
- reference/add_rms_norm.py against PyTorch float64: ``x = x1 + x2``, ``torch.nn.functional.rms_norm(x,
  gamma.shape, gamma, eps)`` for y, ``torch.rsqrt(mean(x**2) + eps)`` for rstd (hand values too).
- The kernel on Ascend910B against PyTorch (fp32 computation of the rounded inputs, within the reference's
  ``tolerance()`` plus half an ULP of the output dtype): every output given (FLOAT), rstdOut null (FLOAT16:
  ``(y, None, x)``) and both null (BF16: ``(y, None, None)``); the refused combinations answer 161001 and
  161002 through the Python API.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import ml_dtypes
import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.runner import AclnnError, OpCallable
from codegen.specs import load_project

torch = pytest.importorskip("torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'")

CATALOGUE, SPECS = load_project()
SPEC = SPECS["add_rms_norm"]
BF16 = np.dtype(ml_dtypes.bfloat16)


def _reference() -> ModuleType:
    path = project_paths().reference / "add_rms_norm.py"
    spec = importlib.util.spec_from_file_location("add_rms_norm_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _reference()


def _torch(x1: np.ndarray, x2: np.ndarray, gamma: np.ndarray, eps: float) -> tuple[np.ndarray, ...]:
    """PyTorch float64: ``(y, rstd, x)``."""
    x = torch.from_numpy(x1.astype(np.float64)) + torch.from_numpy(x2.astype(np.float64))
    g = torch.from_numpy(gamma.astype(np.float64))
    y = torch.nn.functional.rms_norm(x, tuple(g.shape), g, eps)
    dims = tuple(range(x.dim() - g.dim(), x.dim()))
    rstd = torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y.numpy(), rstd.numpy(), x.numpy()


def test_the_spec_declares_the_opdef_columns() -> None:
    table = {tuple(d.name for _, d in c.dtypes): set(c.products) for c in SPEC.dtype_combos}
    every = {"Ascend910B", "Ascend910_93", "Ascend950", "Ascend310P"}
    assert table == {
        ("FLOAT16",) * 4 + ("FLOAT", "FLOAT16"): every,
        ("FLOAT",) * 6: every,
        ("BF16",) * 4 + ("FLOAT", "BF16"): every,
    }
    p310 = CATALOGUE.get("Ascend310P")
    assert [c.dtype("x1").name for c in SPEC.combos_for(p310)] == ["FLOAT16", "FLOAT"]
    assert [t.name for t in SPEC.outputs if t.nullable] == ["rstdOut", "xOut"]
    assert "Ascend910" not in SPEC.products


def test_reference_hand_values() -> None:
    # x = (3, 4); mean(9, 16) = 12.5; rstd = 1/sqrt(12.5); y = (3 * 1, 4 * 2) * rstd
    y, rstd, x = REF.reference(np.array([[1.0, 3.0]]), np.array([[2.0, 1.0]]), np.array([1.0, 2.0]), 0.0)
    np.testing.assert_array_equal(x, [[3.0, 4.0]])
    assert rstd.shape == (1, 1)
    assert rstd[0, 0] == pytest.approx(0.28284271247461906, rel=1e-15)
    np.testing.assert_allclose(y, [[0.848528137423857, 2.262741699796952]], rtol=1e-15)


@pytest.mark.parametrize(("shape", "k"), [((5, 33), 1), ((2, 3, 4, 6), 2), ((7,), 1), ((0, 8), 1)])
def test_reference_matches_pytorch_float64(shape: tuple[int, ...], k: int) -> None:
    rng = np.random.default_rng(len(shape) * 10 + k)
    x1, x2 = rng.standard_normal(shape) * 2, rng.standard_normal(shape)
    gamma = rng.standard_normal(shape[len(shape) - k :])
    got = REF.reference(x1, x2, gamma, 1e-5)
    for g, w in zip(got, _torch(x1, x2, gamma, 1e-5)):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _close(got: np.ndarray, want: np.ndarray, atol: np.ndarray) -> bool:
    """``got`` within ``atol`` plus half an ULP of its dtype at ``want`` (the rounding on store)."""
    half_ulp = np.spacing(np.abs(want).astype(got.dtype)).astype(np.float64) / 2
    return bool(np.all(np.abs(got.astype(np.float64) - want) <= atol + half_ulp))


#: (mode, dtype, outputs passed as None)
MODES = [("every output", np.float32, ()), ("rstdOut null", np.float16, ("rstdOut",))]
MODES.append(("both null", BF16, ("rstdOut", "xOut")))


@pytest.mark.heavy(120)
@pytest.mark.parametrize(("mode", "dtype", "absent"), MODES)
def test_kernel_matches_pytorch_in_each_mode(
    built_op: Callable[[str, str], OpCallable], mode: str, dtype: np.dtype, absent: tuple[str, ...]
) -> None:
    rng = np.random.default_rng(7)
    shape = (3 * 48 + 5, 40)  # rows over every core of Ascend910B
    x1 = (rng.standard_normal(shape) * 2).astype(dtype)
    x2 = rng.standard_normal(shape).astype(dtype)
    gamma = rng.standard_normal(shape[-1:]).astype(dtype)
    fn = built_op("add_rms_norm", "Ascend910B")
    got = fn(x1=x1, x2=x2, gamma=gamma, epsilon=1e-5, **{n: None for n in absent})
    want = _torch(x1, x2, gamma, 1e-5)
    atols = REF.tolerance(x1.astype(np.float32), x2.astype(np.float32), gamma.astype(np.float32), 1e-5)[:3]
    for name, g, w, atol in zip(SPEC.output_names, got, want, atols):
        if name in absent:
            assert g is None, name
            continue
        assert g.shape == w.shape and g.dtype == (np.float32 if name == "rstdOut" else dtype), name
        assert _close(g, w, atol), (mode, name)


@pytest.mark.heavy(60)
def test_the_refused_modes_answer_their_status(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op("add_rms_norm", "Ascend910B")
    x = np.ones((4, 16), np.float16)
    with pytest.raises(AclnnError) as rstd_alone:  # rstdOut given, xOut null
        fn(x1=x, x2=x, gamma=np.ones(16, np.float16), xOut=None)
    assert rstd_alone.value.status == 161001
    assert "xOut must not be null when rstdOut is given" in rstd_alone.value.message
    with pytest.raises(AclnnError) as fp32:  # FLOAT needs every output
        fn(x1=x.astype(np.float32), x2=x.astype(np.float32), gamma=np.ones(16, np.float32), rstdOut=None)
    assert fp32.value.status == 161002
    with pytest.raises(AclnnError) as rank3:  # with rstdOut null gamma has at most 2 dims
        fn(
            x1=np.ones((2, 2, 2, 4), np.float16),
            x2=np.ones((2, 2, 2, 4), np.float16),
            gamma=np.ones((2, 2, 4), np.float16),
            rstdOut=None,
        )
    assert rank3.value.status == 161002


@pytest.mark.heavy(30)
def test_the_custom_operator_is_pytorchs_add_then_rms_norm() -> None:
    """``torch.ops.opgen_ascend910b.add_rms_norm(x1, x2, gamma, epsilon)`` (every output produced, in the order
    of torch_npu's ``npu_add_rms_norm``: y, rstd, x) against ``rms_norm(x1 + x2)`` in float64."""
    import codegen.torch as ct

    ns = ct.register("Ascend910B")
    rng = np.random.default_rng(3)
    x1 = rng.standard_normal((6, 24)).astype(np.float32)
    x2 = rng.standard_normal((6, 24)).astype(np.float32)
    gamma = rng.standard_normal(24).astype(np.float32)
    y, rstd, x = getattr(torch.ops, ns).add_rms_norm(
        torch.from_numpy(x1), torch.from_numpy(x2), torch.from_numpy(gamma), 1e-6
    )
    want = _torch(x1, x2, gamma, 1e-6)
    atols = REF.tolerance(x1, x2, gamma, 1e-6)[:3]
    for got, w, atol in zip((y, rstd, x), want, atols):
        assert _close(got.numpy(), w, atol)
