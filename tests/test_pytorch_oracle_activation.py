"""Issue 15: PyTorch CPU as the independent oracle of the twelve activation-backward ops.

1. Every NumPy reference against PyTorch's aten backward op in float64, on values derived from the op's branch
   points (each point, one fp32 ULP either side, ±0, NaN, ±inf) plus random values, for several attribute
   values each. Attribute values are exactly representable in fp32 here, so the only differences are the
   documented ones, which are masked in this comparison and asserted separately.
2. The deliberate differences, one named test each (``test_difference_*``): this project's value (from the
   reference and, once the op is generated, from the kernel), PyTorch's value, and the line of the generated
   document that states it.
3. The generated kernels (for every op whose spec exists) against PyTorch fp32 on the upcast inputs, rounded
   once to the output dtype, on Atlas training (Ascend910) and Atlas A2 (Ascend910B), with an error model of
   the fp32 evaluation written here from the inputs alone (no call into ``reference/``).
"""

from __future__ import annotations

import importlib.util
import math
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from torch_oracle import FP32_U, PRODUCTS, assert_matches_oracle, kernel, np_dtype, to_numpy, to_torch, torch

from codegen.paths import project_paths
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
aten = torch.ops.aten
F32 = np.float32
INF = float("inf")
NAN = float("nan")


def _reference(op: str) -> ModuleType:
    path = project_paths().reference / f"{op}.py"
    spec = importlib.util.spec_from_file_location(f"oracle_activation_reference_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------------------------- the ops


@dataclass(frozen=True)
class Op:
    """One activation-backward op: its aclnn tensor names, PyTorch call and branch points.

    ``torch_fn(g, x, attrs)`` calls the aten op on tensors of one dtype; ``points(attrs)`` are the values of
    ``x`` where a branch of the formula changes; ``limits`` says that at ``x = ±inf`` this project returns the
    derivative's limit (``g * 1`` and ``g * 0``) where PyTorch computes ``inf * 0 = NaN``.
    """

    snake: str
    grad: str
    x: str
    torch_fn: Callable[[Any, Any, dict[str, Any]], Any]
    points: Callable[[dict[str, Any]], list[float]]
    attr_sets: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    limits: bool = False
    smooth: bool = False  # transcendental: the kernel's error model is the smooth one


OPS: dict[str, Op] = {
    op.snake: op
    for op in (
        Op(
            "threshold_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.threshold_backward(g, x, a["threshold"]),
            lambda a: [a["threshold"]],
            [{"threshold": 0.0}, {"threshold": 1.25}, {"threshold": -0.75}],
        ),
        Op(
            "hardtanh_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.hardtanh_backward(g, x, a["min"], a["max"]),
            lambda a: [a["min"], a["max"]],
            [{"min": -1.0, "max": 1.0}, {"min": -0.5, "max": 2.25}, {"min": 1.5, "max": 1.5}],
        ),
        Op(
            "hardswish_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.hardswish_backward(g, x),
            lambda a: [-3.0, 3.0],
        ),
        Op(
            "hardsigmoid_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.hardsigmoid_backward(g, x),
            lambda a: [-3.0, 3.0],
        ),
        Op(
            "leaky_relu_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.leaky_relu_backward(g, x, a["negativeSlope"], a["selfIsResult"]),
            lambda a: [0.0],
            [
                {"negativeSlope": 0.015625, "selfIsResult": False},
                {"negativeSlope": -0.25, "selfIsResult": False},
                {"negativeSlope": 0.5, "selfIsResult": True},
            ],
        ),
        Op(
            "elu_backward",
            "gradOutput",
            "selfOrResult",
            lambda g, x, a: aten.elu_backward(g, a["alpha"], a["scale"], a["inputScale"], a["isResult"], x),
            lambda a: [0.0],
            [
                {"alpha": 1.0, "scale": 1.0, "inputScale": 1.0, "isResult": False},
                {"alpha": 1.5, "scale": 0.5, "inputScale": 2.0, "isResult": False},
                {"alpha": 1.0, "scale": 1.0, "inputScale": 1.0, "isResult": True},
                {"alpha": 0.75, "scale": 2.0, "inputScale": 0.5, "isResult": True},
            ],
            smooth=True,
        ),
        Op(
            "softplus_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.softplus_backward(g, x, a["beta"], a["threshold"]),
            lambda a: [a["threshold"] / a["beta"]] if a["beta"] else [],
            [
                {"beta": 1.0, "threshold": 20.0},
                {"beta": 2.0, "threshold": 3.0},
                {"beta": 0.5, "threshold": 1.0},
                {"beta": -1.0, "threshold": 2.0},
            ],
            smooth=True,
        ),
        Op(
            "softshrink_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.softshrink_backward(g, x, a["lambd"]),
            lambda a: [-a["lambd"], a["lambd"]],
            [{"lambd": 0.5}, {"lambd": 0.0}, {"lambd": 2.5}],
        ),
        Op(
            "hardshrink_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.hardshrink_backward(g, x, a["lambd"]),
            lambda a: [-a["lambd"], a["lambd"]],
            [{"lambd": 0.5}, {"lambd": 0.0}, {"lambd": 2.5}],
        ),
        Op(
            "silu_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.silu_backward(g, x),
            lambda a: [0.0],
            limits=True,
            smooth=True,
        ),
        Op(
            "gelu_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.gelu_backward(g, x, approximate="none"),
            lambda a: [0.0],
            limits=True,
            smooth=True,
        ),
        Op(
            "gelu_backward_v2",
            "gradOutput",
            "self",
            lambda g, x, a: aten.gelu_backward(g, x, approximate=a["approximate"]),
            lambda a: [0.0],
            [{"approximate": "none"}, {"approximate": "tanh"}],
            limits=True,
            smooth=True,
        ),
        Op(
            "mish_backward",
            "gradOutput",
            "self",
            lambda g, x, a: aten.mish_backward(g, x),
            lambda a: [0.0],
            limits=True,
            smooth=True,
        ),
    )
}
REFS = {name: _reference(name) for name in OPS}
CASES = [pytest.param(name, i, id=f"{name}-{i}") for name, op in OPS.items() for i in range(len(op.attr_sets))]


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def branch_values(op: Op, attrs: dict[str, Any], rng: np.random.Generator, n_random: int = 200) -> np.ndarray:
    """fp32 values of ``x``: every branch point, one ULP either side, ±0, NaN, ±inf, values far out
    (±10, ±20, ±88, ±100, ±1e30) and ``n_random`` normal values of scale 4."""
    base = [0.0, -0.0, NAN, INF, -INF, 1.0, -1.0, 10.0, -10.0, 20.0, -20.0, 88.0, -88.0, 100.0, -100.0, 1e30, -1e30]
    for p in op.points(attrs):
        v = F32(p)
        base += [float(v), float(np.nextafter(v, F32(INF))), float(np.nextafter(v, F32(-INF)))]
    values = np.concatenate([np.array(base, dtype=F32), (rng.standard_normal(n_random) * 4).astype(F32)])
    return values


def torch_value(op: Op, g: np.ndarray, x: np.ndarray, attrs: dict[str, Any], dtype: torch.dtype) -> np.ndarray:
    """PyTorch's result on ``g`` and ``x`` converted to ``dtype``, as float64."""
    tg, tx = to_torch(np.ascontiguousarray(g)).to(dtype), to_torch(np.ascontiguousarray(x)).to(dtype)
    return to_numpy(op.torch_fn(tg, tx, attrs)).astype(np.float64)


def ref_value(op: Op, g: np.ndarray, x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return np.asarray(REFS[op.snake].reference(**{op.grad: g, op.x: x}, **attrs), dtype=np.float64)


def documented_differences(op: Op, x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """Where this project deliberately differs from PyTorch (each one has a ``test_difference_*``)."""
    mask = np.zeros(x.shape, dtype=bool)
    if op.limits:
        mask |= np.isinf(x)
    if op.snake == "hardshrink_backward" and attrs["lambd"] < 0:
        mask |= x == 0
    return mask


def assert_same(got: np.ndarray, want: np.ndarray, rtol: float, what: str, atol: Any = 0.0) -> None:
    """Equal NaN positions, and ``|got - want| <= atol + rtol * |want|`` (infinities equal) elsewhere."""
    assert got.shape == want.shape, what
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    assert (nan_got == nan_want).all(), f"{what}: NaN at {np.argwhere(nan_got != nan_want)[:4].tolist()}"
    ok = ~nan_want
    with np.errstate(invalid="ignore"):
        bound = np.broadcast_to(atol, got.shape)[ok] + rtol * np.abs(want[ok])
        close = (got[ok] == want[ok]) | (np.abs(got[ok] - want[ok]) <= bound)
    if not close.all():
        i = int(np.argwhere(~close)[0][0])
        raise AssertionError(f"{what}: got {got[ok][i]!r}, PyTorch {want[ok][i]!r}")


# ================================================================= 1. references against PyTorch float64


@pytest.mark.parametrize(("name", "index"), CASES)
def test_reference_matches_pytorch_float64(name: str, index: int) -> None:
    op, attrs = OPS[name], OPS[name].attr_sets[index]
    rng = _rng(f"{name}-{index}")
    x = branch_values(op, attrs, rng).astype(np.float64)
    g = rng.uniform(-3, 3, x.shape)
    g[:3] = [1.0, -2.0, 0.5]
    keep = ~documented_differences(op, x, attrs)
    got = ref_value(op, g, x, attrs)
    want = torch_value(op, g, x, attrs, torch.float64)
    # erf/tanh/exp of the two libraries differ in the last float64 bits only (plus cancellation in 1 + tanh for
    # very negative x); PyTorch's hardsigmoid multiplies by the fp32 constant 1/6 even in float64.
    rtol = 1e-12 if op.smooth else 0.0
    if name == "hardsigmoid_backward":
        rtol = 2.0**-24
    atol = 1e-15 * np.abs(g[keep]) if op.smooth else 0.0
    if attrs.get("approximate") == "tanh":  # PyTorch cancels in 0.5 * (1 + t) + x * (1 - t**2) * ... for x < 0
        atol = 1e-15 * np.abs(g[keep]) * (1.0 + np.minimum(np.abs(x[keep]), 1e3) ** 3)
    assert_same(got[keep], want[keep], rtol, f"reference {name} {attrs}", atol)


@pytest.mark.parametrize(("name", "index"), CASES)
def test_reference_broadcasts_like_pytorch(name: str, index: int) -> None:
    op, attrs = OPS[name], OPS[name].attr_sets[index]
    rng = _rng(f"bcast-{name}-{index}")
    g = rng.uniform(-2, 2, (3, 1, 4))
    x = (rng.standard_normal((5, 1)) * 3).astype(F32).astype(np.float64)
    got = ref_value(op, g, x, attrs)
    want = torch_value(op, *np.broadcast_arrays(g, x), attrs, torch.float64)
    assert got.shape == (3, 5, 4)
    assert_same(got, want, 2.0**-24 if name == "hardsigmoid_backward" else 1e-12, f"broadcast {name}", 1e-15)


def test_branch_conventions_at_the_boundaries() -> None:
    """The conventions PyTorch uses exactly at the branch points, asserted as values (not derived)."""
    g = np.array([2.0])

    def ref(name: str, x: float, **attrs: Any) -> float:
        return float(ref_value(OPS[name], g, np.array([x]), attrs)[0])

    assert ref("threshold_backward", 1.25, threshold=1.25) == 0.0  # self <= threshold -> 0
    assert ref("threshold_backward", NAN, threshold=1.25) == 2.0  # NaN is not <= threshold
    assert ref("hardtanh_backward", -1.0, min=-1.0, max=1.0) == 0.0
    assert ref("hardtanh_backward", 1.0, min=-1.0, max=1.0) == 0.0
    assert ref("hardtanh_backward", NAN, min=-1.0, max=1.0) == 0.0
    assert ref("hardswish_backward", -3.0) == 0.0  # the outer pieces at ±3
    assert ref("hardswish_backward", 3.0) == 2.0
    assert ref("hardswish_backward", 1.5) == 2.0  # 2 * (1.5/3 + 0.5)
    assert math.isnan(ref("hardswish_backward", NAN))
    assert ref("hardsigmoid_backward", -3.0) == 0.0 and ref("hardsigmoid_backward", 3.0) == 0.0
    assert ref("hardsigmoid_backward", 2.0) == pytest.approx(2.0 / 6.0, rel=1e-15)
    assert ref("leaky_relu_backward", 0.0, negativeSlope=0.25, selfIsResult=False) == 0.5  # 0 is not > 0
    assert ref("elu_backward", 0.0, alpha=2.0, scale=1.0, inputScale=1.0, isResult=False) == 4.0
    assert ref("softplus_backward", 10.0, beta=2.0, threshold=20.0) == pytest.approx(2.0 / (1 + math.exp(-20.0)))
    assert ref("softplus_backward", float(np.nextafter(F32(10), F32(11))), beta=2.0, threshold=20.0) == 2.0
    assert ref("softshrink_backward", 0.5, lambd=0.5) == 0.0 and ref("softshrink_backward", -0.5, lambd=0.5) == 0.0
    assert ref("hardshrink_backward", NAN, lambd=0.5) == 0.0


# ====================================================================================== 2. the differences

NOTE_SCALARS_FP32 = (
    "lambd is converted to fp32 (aclScalar ToFloat, as CANN passes it to the kernel) and compared in fp32; "
    "PyTorch converts it to the dtype of a FLOAT16 or BF16 self, so there the band edges are rounded to 16 bits "
    "(an fp16 self equal to fp16(0.3) is inside PyTorch's band for lambd = 0.3 and outside this one)."
)
NOTE_LIMITS = (
    "For self = +inf or -inf the result is gradOutput times the limit of the derivative (1 and 0); PyTorch "
    "computes inf * 0 there and returns NaN."
)
NOTE_HARDSHRINK_NEGATIVE = (
    "A negative lambd is used as 0, as CANN documents: then only self = 0 gives 0; PyTorch uses the negative "
    "lambd, whose zero band is empty, and returns gradOutput at self = 0."
)
NOTE_SOFTPLUS_BRANCH = (
    "The branch self * beta > threshold is decided on the fp32 product (the kernel's); sigmoid(beta * self) is "
    "computed as 1 / (1 + exp(-beta * self)), finite for every input; PyTorch eager fp32 evaluates "
    "exp(z) / (exp(z) + 1) and returns NaN where exp(beta * self) overflows below the threshold (threshold above "
    "88.7)."
)


def generated_doc(snake: str) -> str | None:
    """The generated aclnn doc of ``snake``, or None when the op is not generated in the tree under test."""
    root = Path(os.environ.get("OPGEN_TEST_GENERATED") or project_paths().generated)
    spec = SPECS.get(snake)
    if spec is None:
        return None
    return (root / spec.folder / "docs" / f"aclnn{spec.op}.md").read_text(encoding="utf-8")


def assert_doc_line(snake: str, line: str) -> None:
    """Once ``snake`` has a spec, its generated doc has ``line`` (a note of ``specs/<snake>.yaml``)."""
    doc = generated_doc(snake)
    if doc is None:
        return
    assert line in [raw.strip().removeprefix("- ") for raw in doc.splitlines()], (
        f"generated doc of {snake} lacks the line:\n{line}\n(add the note to specs/{snake}.yaml, regenerate)"
    )


def run_kernel(op: Op, product: str, g: np.ndarray, x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray | None:
    """The generated op's result, or None when ``op`` has no spec yet."""
    if op.snake not in SPECS:
        return None
    return np.asarray(kernel(op.snake, product)(**{op.grad: g, op.x: x}, **attrs))


@pytest.mark.parametrize("name", [n for n, op in OPS.items() if op.limits])
def test_difference_limits_at_infinity(name: str) -> None:
    op = OPS[name]
    attrs = op.attr_sets[-1]
    x = np.array([INF, -INF], dtype=F32)
    g = np.array([3.0, 3.0], dtype=F32)
    np.testing.assert_array_equal(ref_value(op, g, x, attrs), [3.0, 0.0])
    assert np.isnan(torch_value(op, g, x, attrs, torch.float32)).all()
    got = run_kernel(op, "Ascend910B", g, x, attrs)
    if got is not None:
        np.testing.assert_array_equal(got, [3.0, 0.0])
    assert_doc_line(name, NOTE_LIMITS)


def test_difference_hardshrink_negative_lambd() -> None:
    op = OPS["hardshrink_backward"]
    x = np.array([0.0, -0.0, 1e-30, -1.0], dtype=F32)
    g = np.full(4, 2.0, dtype=F32)
    np.testing.assert_array_equal(ref_value(op, g, x, {"lambd": -1.0}), [0.0, 0.0, 2.0, 2.0])
    np.testing.assert_array_equal(torch_value(op, g, x, {"lambd": -1.0}, torch.float32), [2.0, 2.0, 2.0, 2.0])
    got = run_kernel(op, "Ascend910B", g, x, {"lambd": -1.0})
    if got is not None:
        np.testing.assert_array_equal(got, [0.0, 0.0, 2.0, 2.0])
    assert_doc_line("hardshrink_backward", NOTE_HARDSHRINK_NEGATIVE)


def test_difference_softplus_large_threshold_is_finite() -> None:
    op = OPS["softplus_backward"]
    attrs = {"beta": 1.0, "threshold": 100.0}
    x = np.array([90.0, 95.0, -90.0], dtype=F32)
    g = np.ones(3, dtype=F32)
    assert np.isnan(torch_value(op, g, x, attrs, torch.float32)[:2]).all()  # exp(90) overflows fp32
    exact = torch_value(op, g, x, attrs, torch.float64)  # PyTorch in float64 is finite there
    np.testing.assert_allclose(ref_value(op, g, x, attrs), exact, rtol=1e-15, atol=0)
    got = run_kernel(op, "Ascend910B", g, x, attrs)
    if got is not None:
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got[:2], [1.0, 1.0], rtol=4 * FP32_U)
    assert_doc_line("softplus_backward", NOTE_SOFTPLUS_BRANCH)


def test_difference_softplus_branch_decided_in_fp32() -> None:
    """beta * self rounded to fp32 equals the threshold while the exact product exceeds it: the fp32 product
    decides (sigmoid branch); PyTorch in float64 takes the linear branch. The two values differ by
    ``sigmoid(threshold)``'s distance from 1."""
    op = OPS["softplus_backward"]
    attrs = {"beta": 3.0, "threshold": 1.0}
    x32 = F32(1.0) / F32(3.0)  # 0.3333333432674408: 3 * x32 = 1.0000000298 exactly, 1.0 in fp32
    assert float(x32) * 3.0 > 1.0 and F32(x32 * F32(3.0)) == F32(1.0)
    x = np.array([x32], dtype=F32)
    g = np.ones(1, dtype=F32)
    assert torch_value(op, g, x, attrs, torch.float64)[0] == 1.0
    assert ref_value(op, g, x, attrs)[0] == pytest.approx(1.0 / (1.0 + math.exp(-3.0 * float(x32))), rel=1e-15)
    assert_doc_line("softplus_backward", NOTE_SOFTPLUS_BRANCH)


@pytest.mark.parametrize(
    ("name", "attrs", "x"),
    [
        ("softshrink_backward", {"lambd": 0.3}, 0.300048828125),  # fp16(0.3) > fp32(0.3)
        ("hardshrink_backward", {"lambd": 0.3}, -0.300048828125),
    ],
)
def test_difference_scalars_are_fp32_for_16bit_tensors(name: str, attrs: dict[str, Any], x: float) -> None:
    """An FLOAT16 ``self`` equal to the boundary rounded to fp16: PyTorch rounds the boundary to fp16 as well, so
    ``self`` is exactly at it (gradient 0); here the boundary stays fp32 and ``self`` lies outside the zero band
    (gradient ``gradOutput``)."""
    op = OPS[name]
    xs = np.array([x], dtype=np.float16)
    g = np.ones(1, dtype=np.float16)
    assert torch_value(op, g, xs, attrs, torch.float16)[0] == 0.0
    assert ref_value(op, g.astype(np.float64), xs.astype(np.float64), attrs)[0] == 1.0
    got = run_kernel(op, "Ascend910B", g, xs, attrs)
    if got is not None:
        assert float(got[0]) == 1.0
    assert_doc_line(name, NOTE_SCALARS_FP32)


@pytest.mark.parametrize(
    ("name", "attrs"),
    [
        ("leaky_relu_backward", {"negativeSlope": -0.5, "selfIsResult": True}),
        ("elu_backward", {"alpha": -0.5, "scale": 1.0, "inputScale": 1.0, "isResult": True}),
    ],
)
def test_negative_slope_with_result_is_rejected_by_both(name: str, attrs: dict[str, Any]) -> None:
    """Not a difference: PyTorch raises and CANN returns 161002 for a negative slope on the forward result."""
    op = OPS[name]
    g = np.ones(2, dtype=F32)
    x = np.array([1.0, -1.0], dtype=F32)
    with pytest.raises(RuntimeError, match="negative slope"):
        torch_value(op, g, x, attrs, torch.float32)
    with pytest.raises(ValueError):
        ref_value(op, g, x, attrs)
    if name in SPECS:
        from codegen.runner import AclnnError

        with pytest.raises(AclnnError) as info:
            run_kernel(op, "Ascend910B", g, x, attrs)
        assert info.value.status == 161002


# =========================================================================== 3. kernels against PyTorch


def kernel_error_model(op: Op, g: np.ndarray, x: np.ndarray, attrs: dict[str, Any]) -> tuple[np.ndarray, float]:
    """``(atol, rtol)`` of an fp32 evaluation, from the inputs.

    Piecewise-linear ops: two roundings (``rtol = 2u``). Smooth ops: ``exp``/``log``/``tanh`` instructions and
    up to 12 roundings, relative to ``|g|`` times the size of the terms (``1 + |x|``), plus the 1.5e-7 absolute
    error of the erf approximation for GELU. Results below the smallest normal fp32 get an absolute allowance
    (vector units flush them).
    """
    g64, x64 = np.abs(g.astype(np.float64)), np.abs(x.astype(np.float64))
    finite_x = np.where(np.isfinite(x64), x64, 0.0)
    tiny = 4.0 * 2.0**-126 * (1.0 + g64)
    if not op.smooth:
        return tiny, 2 * FP32_U
    scale = 1.0
    for key in ("alpha", "scale", "inputScale", "beta"):
        scale *= max(1.0, abs(float(attrs.get(key, 1.0))))
    if op.snake.startswith("gelu"):
        terms = 1.0 + np.minimum(finite_x, 10.0) ** 3 * 0.2
    else:
        terms = 1.0 + np.minimum(finite_x, 100.0) * scale
    atol = 32.0 * FP32_U * g64 * terms * scale + tiny
    if op.snake.startswith("gelu"):
        atol = atol + 2.0e-7 * g64
    return atol, 16 * FP32_U


@pytest.mark.parametrize("product", PRODUCTS)
@pytest.mark.parametrize(("name", "index"), CASES)
def test_kernel_matches_pytorch_fp32(name: str, index: int, product: str) -> None:
    if name not in SPECS:
        pytest.skip(f"specs/{name}.yaml is not in this tree")
    op, attrs = OPS[name], OPS[name].attr_sets[index]
    prod = CATALOGUE.get(product)
    spec = SPECS[name]
    for dt in [d for d in ("FLOAT", "FLOAT16", "BF16") if d in spec.inputs[0].dtypes and prod.supports(d)]:
        rng = _rng(f"kernel-{name}-{index}-{dt}")
        x = branch_values(op, attrs, rng, n_random=3000).astype(np_dtype(dt))
        g = rng.uniform(-3, 3, x.shape).astype(np_dtype(dt))
        got = np.asarray(kernel(name, product)(**{op.grad: g, op.x: x}, **attrs))
        g32, x32 = g.astype(F32), x.astype(F32)
        oracle = torch_value(op, g32, x32, attrs, torch.float32)
        # Where PyTorch fp32 overflows an intermediate (inf * 0) although the value is finite, the kernel must be
        # finite and is compared with PyTorch in float64 (the GELU tanh form for |x| above about 1.8e19).
        exact = torch_value(op, g32, x32, attrs, torch.float64)
        overflow = ~np.isfinite(oracle) & np.isfinite(exact) & ~np.isinf(x32.astype(np.float64))
        oracle = np.where(overflow, exact, oracle)
        if op.limits:
            inf = np.isinf(x32.astype(np.float64))
            oracle = np.where(inf, g32.astype(np.float64) * (x32 > 0), oracle)
        atol, rtol = kernel_error_model(op, g32, x32, attrs)
        assert_matches_oracle(got, oracle, atol, rtol, f"{name} {attrs} {dt} {product}")


#: ops-nn's mixed SiluGrad columns (dy, x; dx FLOAT), registered on Ascend950 only
SILU_MIXED = [
    ("FLOAT16", "BF16"),
    ("FLOAT16", "FLOAT"),
    ("BF16", "FLOAT16"),
    ("BF16", "FLOAT"),
    ("FLOAT", "FLOAT16"),
    ("FLOAT", "BF16"),
]


@pytest.mark.parametrize(("dy", "x"), SILU_MIXED, ids=[f"{a}-{b}" for a, b in SILU_MIXED])
def test_silu_backward_mixed_dtypes_match_pytorch_on_the_upcast_inputs(dy: str, x: str) -> None:
    """On Ascend950 gradOutput and self of two dtypes launch SiluGrad's mixed column (each input read in its
    own dtype, a FLOAT gradInput): the result is PyTorch's silu_backward in fp32 on the inputs upcast from
    their own dtypes, within the fp32 error model above (the limits at infinity as documented; NaN where
    PyTorch's is NaN)."""
    if "silu_backward" not in SPECS:
        pytest.skip("specs/silu_backward.yaml is not in this tree")
    op = OPS["silu_backward"]
    rng = _rng(f"mixed-silu-{dy}-{x}")
    with np.errstate(over="ignore"):  # +-1e30 is an infinity in FLOAT16
        xs = branch_values(op, {}, rng, n_random=3000).astype(np_dtype(x))
    gs = rng.uniform(-3, 3, xs.shape).astype(np_dtype(dy))
    got = np.asarray(kernel("silu_backward", "Ascend950")(gradOutput=gs, self=xs, gradInput=np.zeros(xs.shape, F32)))
    assert got.dtype == F32
    g32, x32 = gs.astype(F32), xs.astype(F32)
    oracle = torch_value(op, g32, x32, {}, torch.float32)
    inf = np.isinf(x32.astype(np.float64))
    oracle = np.where(inf, g32.astype(np.float64) * (x32 > 0), oracle)
    nan = np.isnan(oracle)  # a NaN self gives NaN on both sides (the oracle helper fails every NaN)
    assert nan.any() and np.array_equal(np.isnan(got), nan)
    atol, rtol = kernel_error_model(op, g32[~nan], x32[~nan], {})
    assert_matches_oracle(got[~nan], oracle[~nan], atol, rtol, f"silu_backward dy {dy} x {x} Ascend950")


NOTE_GELU_TANH_OVERFLOW = (
    "PyTorch eager fp32 also returns NaN in the tanh form where self^2 overflows (|self| above about 1.8e19); "
    "here the result stays gradOutput or 0."
)


def test_difference_gelu_tanh_form_finite_for_huge_self() -> None:
    op = OPS["gelu_backward_v2"]
    attrs = {"approximate": "tanh"}
    x = np.array([1e30, -1e30, 1e20], dtype=F32)
    g = np.full(3, 2.0, dtype=F32)
    assert np.isnan(torch_value(op, g, x, attrs, torch.float32)).all()
    np.testing.assert_array_equal(torch_value(op, g, x, attrs, torch.float64), [2.0, 0.0, 2.0])
    np.testing.assert_array_equal(ref_value(op, g, x, attrs), [2.0, 0.0, 2.0])
    got = run_kernel(op, "Ascend910B", g, x, attrs)
    if got is not None:
        np.testing.assert_array_equal(got, [2.0, 0.0, 2.0])
    assert_doc_line("gelu_backward_v2", NOTE_GELU_TANH_OVERFLOW)
