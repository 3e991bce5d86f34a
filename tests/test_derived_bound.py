"""The default bound of an elementwise case comes from the kernel's instruction sequence (issue 12, item 5).

The unit tests evaluate the formulas in NumPy float32 themselves (one rounding per operation, written out
here, not taken from the compiler) and judge that result with the derived bound; the end-to-end test runs a
new op, TanhBackward (``gradOutput * (1 - y * y)``), through ``opgen check`` without a ``tolerance()``.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.check.compare import compare
from codegen.families.elementwise.bound import derived_bound
from codegen.paths import project_paths
from codegen.spec.loader import load_specs
from codegen.specs import load_project

TANH_SPEC = """\
op: TanhBackward
op_type: TanhGrad
kernel: tanh_grad
category: activation
family: elementwise
summary: Backward of tanh, gradInput = gradOutput * (1 - y * y) with y = tanh(x) the forward result.
products: [Ascend910, Ascend910B, Ascend910_93, Ascend950]
deterministic: true
inputs:
  - name: gradOutput
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: Gradient of the forward result.
  - name: y
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    description: The forward result tanh(x).
attrs: []
outputs:
  - name: out
    dtypes: [FLOAT, FLOAT16, BF16]
    rank: [0, 8]
    shape: "broadcast(gradOutput, y)"
    description: Gradient with respect to x.
compute:
  promote: [gradOutput, y]
  scalars: {}
  out: "gradOutput * (1 - y * y)"
tiling:
  buffer_num: 2
  ub_reserved_bytes: 0
  min_bytes_per_core: 32768
notes: []
example:
  inputs:
    gradOutput: {shape: [2, 2], dtype: FLOAT, values: [1, 2, 3, 4]}
    y: {shape: [2, 2], dtype: FLOAT, values: [0.5, 0.9, 1.1, -2]}
  attrs: {}
  output: {shape: [2, 2], dtype: FLOAT}
"""

TANH_REFERENCE = """\
import numpy as np


def reference(gradOutput, y):
    g, t = (np.asarray(a, np.float64) for a in (gradOutput, y))
    return np.broadcast_to(g * (1.0 - t * t), np.broadcast_shapes(g.shape, t.shape)).astype(np.float64)
"""

U = 2.0**-24
OLD_DEFAULT_RTOL = 16 * U


def _tanh_project(root: Path) -> Path:
    specs = root / "specs"
    specs.mkdir(parents=True)
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    (specs / "tanh_backward.yaml").write_text(TANH_SPEC)
    (root / "reference").mkdir()
    (root / "reference" / "tanh_backward.py").write_text(TANH_REFERENCE)
    return specs


@pytest.fixture(scope="module")
def tanh(tmp_path_factory: pytest.TempPathFactory) -> tuple:  # type: ignore[type-arg]
    catalogue, specs = load_specs(_tanh_project(tmp_path_factory.mktemp("tanh")))
    return specs["tanh_backward"], catalogue.get("Ascend910B")


def _inputs(dtype: type, n: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(12)
    g = (rng.standard_normal(n) * 2).astype(dtype)
    # y around +-1, where 1 - y*y cancels, and elsewhere
    y = np.concatenate([1 + rng.standard_normal(n // 2) * 1e-3, rng.standard_normal(n - n // 2) * 2]).astype(dtype)
    return g, y


def _exact(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    g64, y64 = g.astype(np.float64), y.astype(np.float64)
    return g64 * (1.0 - y64 * y64)


def _fp32_kernel(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``gradOutput * (1 - y*y)`` with every operation rounded to fp32, as a vector unit computes it."""
    g32, y32 = g.astype(np.float32), y.astype(np.float32)
    yy = y32 * y32
    one_minus = np.float32(1) - yy
    return g32 * one_minus


def test_a_correct_fp32_kernel_passes_the_derived_bound_where_the_old_default_failed(tanh: tuple) -> None:  # type: ignore[type-arg]
    spec, product = tanh
    g, y = _inputs(np.float32)
    ref = _exact(g, y)
    got = _fp32_kernel(g, y)
    bound = derived_bound(spec, product, {"gradOutput": g, "y": y}, ref)
    assert bound is not None and bound.shape == ref.shape
    assert compare(got, ref, bound, 2.0**-40).ok
    # The 16-rounding default of before rejected this correct kernel where 1 - y*y cancels.
    old = compare(got, ref, 0.0, OLD_DEFAULT_RTOL)
    assert not old.ok
    # The bound is a few fp32 roundings of the terms, not a blanket allowance.
    terms = np.abs(g.astype(np.float64)) * (1 + y.astype(np.float64) ** 2)
    assert np.all(bound <= 8 * U * terms + 2.0**-120)


def test_a_wrong_kernel_still_fails_the_derived_bound(tanh: tuple) -> None:  # type: ignore[type-arg]
    spec, product = tanh
    g, y = _inputs(np.float32)
    ref = _exact(g, y)
    bound = derived_bound(spec, product, {"gradOutput": g, "y": y}, ref)
    good = _fp32_kernel(g, y)
    # 16 ULPs off everywhere, y rounded to fp16 on the way, and 1 - y instead of 1 - y*y
    off = (good.astype(np.float64) * (1 + 16 * 2.0**-23)).astype(np.float32)
    y16 = _fp32_kernel(g, y.astype(np.float16))
    wrong_formula = g * (np.float32(1) - y)
    for got in (off, y16, wrong_formula):
        assert not compare(got, ref, bound, 2.0**-40).ok


def test_a_16_bit_kernel_rounds_once_and_is_bounded_by_about_an_output_ulp(tanh: tuple) -> None:  # type: ignore[type-arg]
    spec, product = tanh
    for dtype in (np.float16, ml_dtypes.bfloat16):
        g, y = _inputs(dtype)
        ref = _exact(g, y)
        got = _fp32_kernel(g, y).astype(dtype)  # exact widening, fp32 compute, one CAST_RINT
        bound = derived_bound(spec, product, {"gradOutput": g, "y": y}, ref)
        assert compare(got, ref, bound, 2.0**-40).ok
        # two output ULPs off fails
        ulp = np.spacing(np.abs(got.astype(np.float32)).astype(dtype)).astype(np.float64)
        bad = (got.astype(np.float64) + 2 * ulp).astype(dtype)
        assert not compare(bad, ref, bound, 2.0**-40).ok


def _directed(values: np.ndarray, dtype: type, mode: str) -> np.ndarray:
    """fp32 ``values`` converted to the 16-bit ``dtype`` rounding toward zero (``trunc``), toward -inf
    (``floor``) or toward +inf (``ceil``): the nearest value, stepped one value back where it went the
    wrong way (the bits of a sign-magnitude format: the magnitude's bits minus one is one value nearer 0)."""
    nearest = values.astype(dtype)
    back = nearest.astype(np.float64)
    exact = values.astype(np.float64)
    if mode == "trunc":
        wrong = np.abs(back) > np.abs(exact)
    elif mode == "floor":
        wrong = back > exact
    else:
        wrong = back < exact
    wrong &= back != 0  # (no zero result in these cases: its step would need the sign flipped)
    bits = nearest.view(np.uint16).copy()
    toward_zero = wrong & ((back > 0) == (mode != "ceil")) | (wrong & (mode == "trunc"))
    bits[toward_zero] -= 1  # one value nearer 0
    bits[wrong & ~toward_zero] += 1  # one value farther from 0 (floor of a negative, ceil of a positive)
    return bits.view(dtype)


@pytest.mark.parametrize("mode", ["trunc", "floor", "ceil"])
def test_a_16_bit_result_rounded_in_a_fixed_direction_fails_the_derived_bound(tanh: tuple, mode: str) -> None:  # type: ignore[type-arg]
    """The kernel's CAST_RINT is modelled as the exact rounding of the interval's ends to the 16-bit type
    (not a relative half ULP on top of the comparison's own half ULP), so a cast with CAST_TRUNC, CAST_FLOOR
    or CAST_CEIL, at most one ULP from the correct rounding, fails on many elements."""
    spec, product = tanh
    for dtype in (np.float16, ml_dtypes.bfloat16):
        g, y = _inputs(dtype)
        ref = _exact(g, y)
        fp32 = _fp32_kernel(g, y)
        bound = derived_bound(spec, product, {"gradOutput": g, "y": y}, ref)
        assert compare(fp32.astype(dtype), ref, bound, 2.0**-40).ok
        got = _directed(fp32, dtype, mode)
        moved = int(np.count_nonzero(got.view(np.uint16) != fp32.astype(dtype).view(np.uint16)))
        assert moved > g.size // 8  # where the nearest value lies the other way
        result = compare(got, ref, bound, 2.0**-40)
        assert not result.ok
        bad = int(result.detail.split(" of ")[0])
        assert bad > moved // 4, result.detail


def test_overflow_inside_the_formula_gives_a_finite_bound_and_mixed_dtypes_promote() -> None:
    catalogue, specs = load_project()
    spec = specs["soft_margin_loss_backward"]
    product = catalogue.get("Ascend910B")
    # target * self = 200: exp overflows fp32 (the kernel's 1/(1+inf) is 0), the exact value is ~1e-87
    x = np.full((4,), 100.0, np.float32)
    t = np.full((4,), 2.0, np.float32)
    g = np.ones((4,), np.float32)
    ref = -t.astype(np.float64) * g / (1 + np.exp(t.astype(np.float64) * x)) / 4
    with np.errstate(all="raise"):  # no floating-point warnings from the analysis itself
        bound = derived_bound(spec, product, {"gradOutput": g, "self": x, "target": t, "reduction": 1}, ref)
    assert bound is not None and np.all(np.isfinite(bound)) and np.all(bound < 1e-30)
    assert compare(np.zeros(4, np.float32), ref, bound, 2.0**-40).ok
    assert not compare(np.full(4, 1e-6, np.float32), ref, bound, 2.0**-40).ok
    # FLOAT16 + FLOAT inputs compute in fp32 (the fp16 values widen exactly): an fp32-sized bound
    xs = np.linspace(-3, 3, 16).astype(np.float16)
    ones = np.ones(16, np.float32)
    ref2 = -1.0 / (1 + np.exp(xs.astype(np.float64)))
    b2 = derived_bound(spec, product, {"gradOutput": ones, "self": xs, "target": ones, "reduction": 0}, ref2)
    assert b2 is not None and np.all(b2 < 64 * U * np.abs(ref2))
    # an empty output (1 / numel(out) is undefined): an empty bound, no error
    e = np.zeros((0, 3), np.float32)
    b3 = derived_bound(spec, product, {"gradOutput": e, "self": e, "target": e, "reduction": 1}, np.zeros((0, 3)))
    assert b3 is not None and b3.shape == (0, 3)


def test_a_reference_tolerance_replaces_the_derived_bound() -> None:
    import types

    from codegen.check.reference import case_tolerance

    catalogue, specs = load_project()
    spec = specs["mse_loss_backward"]
    ref = types.ModuleType("ref")
    ref.tolerance = lambda **params: (0.5, 0.0)  # type: ignore[attr-defined]
    x = np.ones(3, np.float32)
    params = {"gradOutput": x, "self": x, "target": x, "reduction": 0}
    assert case_tolerance(spec, catalogue.get("Ascend910B"), ref, params, np.zeros(3)) == (0.5, 0.0, "tolerance()")
    atol, _, source = case_tolerance(spec, catalogue.get("Ascend910B"), types.ModuleType("r"), params, np.zeros(3))
    assert source == "derived" and np.shape(atol) == (3,)
    edb = specs["embedding_dense_backward"]  # no derived bound outside the elementwise family
    _, _, source = case_tolerance(edb, catalogue.get("Ascend910B"), types.ModuleType("r"), {}, np.zeros(3))
    assert source == "default"


def test_tanh_backward_passes_opgen_check_without_a_tolerance(tmp_path: Path) -> None:
    """Issue 12: this op failed 40 of 262 cases under the old default tolerance."""
    specs = _tanh_project(tmp_path)
    env = {**os.environ}

    def opgen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codegen", "--specs", str(specs), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )

    out = tmp_path / "generated"
    gen = opgen("generate", "--out", str(out))
    assert gen.returncode == 0, gen.stderr
    check = opgen("check", "tanh_backward", "--quick", "--product", "Ascend910B", "--generated", str(out))
    assert check.returncode == 0, check.stdout[-4000:]
    assert " 0 failed" in check.stdout
    rows = [line for line in check.stdout.splitlines() if line.startswith("│ tanh_backward")]
    assert rows and all("derived" in row for row in rows)


def test_an_exact_input_at_a_literal_gets_a_finite_bound() -> None:
    """binary_cross_entropy compares self with the literals 0.0f and 1.0f (``where(self <= 1, max(log(1 - self),
    -100), log(1 - self))``). A literal the compiler holds exactly is one value, so an input of exactly 1.0 is
    decided to be on the clamped side: the bound stays finite (an infinite bound would accept any output)."""
    catalogue, specs = load_project()
    spec = specs["binary_cross_entropy"]
    s = np.array([0.0, 0.5, 1.0, 1.0, 0.25], np.float32)
    t = np.array([1.0, 0.3, 0.0, 1.0, 0.5], np.float32)
    # -(t * max(log(s), -100) + (1 - t) * max(log(1 - s), -100)), worked out by hand: log(0) clamps to -100
    expected = np.array(
        [100.0, -(0.3 * np.log(0.5) + 0.7 * np.log(0.5)), 100.0, 0.0, -np.log(0.75) * 0.5 - np.log(0.25) * 0.5]
    )
    for reduction, ref in ((0, expected), (1, np.asarray(expected.mean())), (2, np.asarray(expected.sum()))):
        params = {"self": s, "target": t, "weight": None, "reduction": reduction}
        for product in ("Ascend910B", "Ascend910"):
            bound = derived_bound(spec, catalogue.get(product), params, ref)
            assert bound is not None and np.all(np.isfinite(bound)), (reduction, product, bound)
            # still wide enough for the kernel's own roundings of the finite elements; element 3 (s = t = 1:
            # log(1) * 1 + (1 - 1) * -100, every step exact) has none
            rounded = bound if reduction else np.delete(bound, 3)
            assert np.all(rounded > 0) and np.all(bound >= 0)


def test_an_exact_input_at_an_attribute_threshold_is_decided() -> None:
    """HardtanhBackward passes gradOutput where ``min < self < max``. With ``self`` exactly at ``min`` or ``max``
    (attributes fp32 holds, read bare by the formula) the kernel's comparison is decided: the bound is the
    comparison's own half ULP of 0, not the whole gradOutput (a reference that took the wrong side of the tie,
    ``>=`` for ``>``, passed every nonzero threshold: a review helper)."""
    catalogue, specs = load_project()
    spec = specs["hardtanh_backward"]
    g = np.array([5.0, -3.0, 2.0, 7.0], np.float32)
    x = np.array([-1.5, 0.75, 0.5, 0.25], np.float32)
    params = {"gradOutput": g, "self": x, "min": -1.5, "max": 0.75}
    ref = np.array([0.0, 0.0, 2.0, 7.0])
    bound = derived_bound(spec, catalogue.get("Ascend910B"), params, ref)
    assert bound is not None
    assert np.all(bound[:2] == 0), bound  # at the thresholds: exactly 0, decided
    assert np.all(bound[2:] < 1e-6), bound


def _log1p_fp32(x: np.ndarray, when_u_is_1: np.ndarray | None = None) -> np.ndarray:
    """log1p(x) as the vector unit evaluates the rewrite, every operation rounded to fp32: ``u = 1 + x``;
    ``x`` where ``u == 1`` (or ``when_u_is_1``, a fault), ``log(u) * x / (u - 1)`` where ``|x| < 0.5``, else
    ``log(u)``."""
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        u = np.float32(1) + x
        log_u = np.log(u)
        goldberg = (log_u * x) / (u - np.float32(1))
        near = np.where(np.abs(x) < np.float32(0.5), goldberg, log_u)
        return np.where(u == np.float32(1), x if when_u_is_1 is None else when_u_is_1, near)


def _soft_margin_fp32(s: np.ndarray, t: np.ndarray, fault: bool = False) -> np.ndarray:
    """``relu(-t*s) + log1p(exp(-|t*s|))`` in fp32; with ``fault`` the ``u == 1`` branch takes ``relu(-t*s)``
    instead of log1p's operand (a Select with the wrong source buffer)."""
    z = s.astype(np.float32) * t.astype(np.float32)
    r = np.maximum(-z, np.float32(0))
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(z))
    return r + _log1p_fp32(e, r if fault else None)


def _soft_margin_inputs(n: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    """|t*s| from 0 to 120: exp(-|t*s|) from 1 down past fp32's normal range, so 1 + x rounds to 1 for most
    elements (|t*s| above about 17) and the quotient log(u) * x / (u - 1) is 0 / 0 over intervals."""
    rng = np.random.default_rng(31)
    s = (rng.uniform(-120, 120, n)).astype(np.float32)
    s[:200] = rng.uniform(-1, 1, 200)
    t = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0).astype(np.float32)
    return s, t


def _soft_margin_reference(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    z = -(s.astype(np.float64) * t.astype(np.float64))
    return np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_the_log1p_rewrite_gets_a_finite_bound_that_a_correct_kernel_passes_and_faults_fail(reduction: int) -> None:
    """SoftMarginLoss's log1p(exp(-|z|)) where 1 + exp(-|z|) rounds to 1: the rewrite's quotient is 0 / 0 over
    intervals, which made the bound infinite, so any output passed (a review helper's doubled mean and a Select
    with the wrong source buffer passed ``opgen check``). The bound now comes from log1p of the operand's
    interval: finite at every element, and a few fp32 ULPs wide."""
    catalogue, specs = load_project()
    spec, product = specs["soft_margin_loss"], catalogue.get("Ascend910B")
    s, t = _soft_margin_inputs()
    per_element = _soft_margin_reference(s, t)
    exact = {0: per_element, 1: np.asarray(per_element.mean()), 2: np.asarray(per_element.sum())}[reduction]
    params = {"self": s, "target": t, "reduction": reduction}
    bound = np.asarray(derived_bound(spec, product, params, exact))
    assert np.all(np.isfinite(bound))
    if reduction == 0:
        # a few fp32 ULPs of each element: the rewrite's 20 * 2**-24, exp's 8, and exp's condition number |z|
        # times the roundings of z = t * s and of -|z| (2**-24 each); plus the subnormal allowances
        z = np.abs(s.astype(np.float64) * t)
        assert np.all(bound <= (2 * z + 64) * 2.0**-24 * np.abs(exact) + 2.0**-120)

    def reduced(v: np.ndarray) -> np.ndarray:
        if reduction == 0:
            return v
        return np.asarray(np.float32(v.astype(np.float64).sum() / (len(v) if reduction == 1 else 1)))

    good, bad = reduced(_soft_margin_fp32(s, t)), reduced(_soft_margin_fp32(s, t, fault=True))
    assert compare(good.astype(np.float32), exact, bound, 0.0).ok
    assert not compare(bad.astype(np.float32), exact, bound, 0.0).ok
    if reduction:
        assert not compare((2 * good).astype(np.float32), exact, bound, 0.0).ok  # the mean (or sum) doubled


@settings(max_examples=400, derandomize=True, deadline=None, database=None)
@given(st.one_of(
    st.floats(-1.0, 2.0**100, width=32),
    st.floats(-(2.0**-20), 2.0**-20, width=32),
    st.floats(0.25, 0.75, width=32),
    st.floats(-0.75, -0.25, width=32),
    st.sampled_from([0.0, -0.0, -1.0, 2.0**-24, -(2.0**-25), 2.0**-23, 1e-45, 0.5, -0.5, 3.4e38]),
))  # fmt: skip
def test_the_log1p_interval_holds_the_fp32_rewrite_and_is_a_few_ulps_wide(x: float) -> None:
    """For any fp32 x >= -1, the rewrite evaluated in fp32 (NumPy's float32 log is within one ULP, inside the
    stated four) lies in the interval the bound gives log1p(x), and that interval is at most 2**-18
    relative wide (plus fp32's smallest normal on each side)."""
    from codegen.families.elementwise.compiler import compile_formula
    from codegen.families.elementwise.interval_program import program_interval
    from codegen.spec.errors import SourceLoc
    from codegen.spec.expr import parse_expr
    from codegen.spec.model import DType

    formula = compile_formula("out", parse_expr("log1p(x)", SourceLoc("<test>", 1), "out"), ("x",), {})
    assert formula.fp32.instructions[-1].image == ("log1p", 1)
    v = np.array([x], dtype=np.float32)
    with np.errstate(all="ignore"):  # as derived_bound runs it: log(0) is -inf, not a warning
        lo, hi = program_interval(formula.fp32, {"x": v.astype(np.float64)}, {}, DType.FLOAT)
    kernel = float(_log1p_fp32(v)[0])
    assert lo[0] <= kernel <= hi[0], (x, kernel, lo[0], hi[0])
    exact = math.log1p(float(v[0])) if v[0] > -1 else -math.inf
    if math.isfinite(exact):
        assert hi[0] - lo[0] <= 2.0**-18 * abs(exact) + 2.0**-124


def _elementwise_specs() -> list[str]:
    """Single-output elementwise ops whose bound is derived (a reference ``tolerance()`` replaces it)."""
    from codegen.check.reference import load_reference

    _, specs = load_project()
    return sorted(
        n
        for n, s in specs.items()
        if s.family == "elementwise" and len(s.outputs) == 1 and not hasattr(load_reference(s), "tolerance")
    )


@pytest.mark.parametrize("name", _elementwise_specs())
def test_no_quick_case_gets_an_unbounded_error_where_its_reference_is_a_finite_output_value(name: str) -> None:
    """Where the derived bound is infinite, the comparison accepts any finite output. That is right only where
    the reference itself overflows the output dtype (or is within an ULP of doing so); anywhere else it means
    the interval model lost track of the formula (as it did for the log1p rewrite) and the check tests
    nothing there. Every quick case of every single-output elementwise op on Ascend910B is checked."""
    from codegen.check.driver import cases_for
    from codegen.check.reference import case_tolerance, load_reference, reference_params

    catalogue, specs = load_project()
    spec, product = specs[name], catalogue.get("Ascend910B")
    ref = load_reference(spec)
    checked = 0
    for case in cases_for(spec, product, None, True):
        if case.expect_status is not None or case.mode not in (None, "determinism"):
            continue
        params = reference_params(spec, case.params)
        with np.errstate(all="ignore"):
            expected = np.asarray(ref.reference(**params), dtype=np.float64)
            atol, _, source = case_tolerance(spec, product, ref, params, expected)
            assert source == "derived", case.ident
            out = case.params.get(spec.outputs[0].name)
            out_dtype = (
                out.dtype
                if isinstance(out, np.ndarray)
                else next(v.dtype for v in params.values() if isinstance(v, np.ndarray))
            )
            if np.issubdtype(out_dtype, np.integer):  # an integer output is never out of the dtype's range
                limit = np.inf
            else:
                info = ml_dtypes.finfo(out_dtype)  # NumPy's finfo does not know bfloat16
                limit = float(info.max) * (1 - 2.0 ** -(info.nmant + 1))
            bound = np.broadcast_to(np.asarray(atol), expected.shape)
            loose = ~np.isfinite(bound) & np.isfinite(expected) & (np.abs(expected) < limit)
        assert not loose.any(), f"{case.ident}: unbounded at {np.argwhere(loose)[:5].tolist()} of {expected.shape}"
        checked += 1
    assert checked > 0


def test_rounding_keeps_an_exact_zero_so_a_huge_host_scalar_times_it_is_bounded() -> None:
    """SmoothL1LossBackward at beta = 0 multiplies ``self - target`` by ``invBeta`` = FLT_MAX. Where ``self ==
    target`` the difference is exactly 0 and so is the product; the bound widened each rounding by the flush
    allowance 2**-126 on both sides, so 0 became [-2**-126, 2**-126] and, times FLT_MAX, [-4, 4], clamped to
    [-1, 1]: a tiling that gave invBeta = 1/0 = inf (0 * inf = NaN, clamped to -1) passed (found by a review
    helper). Rounding never crosses 0, so the bound there is 0 and that output fails."""
    catalogue, specs = load_project()
    spec, product = specs["smooth_l1_loss_backward"], catalogue.get("Ascend910B")
    rng = np.random.default_rng(5)
    g = rng.standard_normal((4, 33)).astype(np.float32)
    s = rng.standard_normal((4, 33)).astype(np.float32)
    t = s.copy()
    t[1:] = rng.standard_normal((3, 33)).astype(np.float32)  # row 0 equal, the rest not
    params = {"gradOut": g, "self": s, "target": t, "reduction": 0, "beta": 0.0}
    d = s.astype(np.float64) - t
    exact = np.clip(np.where(d == 0, 0.0, np.sign(d)), -1, 1) * g
    bound = np.asarray(derived_bound(spec, product, params, exact))
    assert np.all(bound[0] == 0.0)
    faulty = exact.astype(np.float32).copy()
    faulty[0] = -g[0]  # (0 * inf = NaN) clamped to -1, times gradOut
    assert not compare(faulty, exact, bound, 0.0).ok
    assert compare(exact.astype(np.float32), exact, bound, 0.0).ok


def test_the_sum_bound_follows_the_kernels_summation_tree_so_a_lost_tile_fails() -> None:
    """The reduce epilogue's sum bound was ``gamma(n - 1) * sum |v_i|`` (any summation order), about 6% of
    the sum at 10^6 elements: a kernel that lost one whole tile of one core passed the several-tiles case.
    The kernel's tree is fixed by the tiling (a tile's sum, the tiles of a core in order, the partials in
    core order), so ``sum_depth`` bounds the roundings any term goes through, and losing one tile fails."""
    from codegen.families.elementwise.bound import sum_depth
    from codegen.families.elementwise.plan.tiling import tiling_decision
    from codegen.spec.model import DType

    catalogue, specs = load_project()
    spec, product = specs["mse_loss"], catalogue.get("Ascend910B")
    rng = np.random.default_rng(17)
    n = 1_108_807
    plan = tiling_decision(spec, product, (n,), DType.FLOAT, attrs={"reduction": 2})
    depth = sum_depth(plan.tile_length, plan.tiles_per_core_max, plan.block_dim, n)
    assert plan.tiles_per_core_max > 1 and plan.block_dim > 1
    assert depth == plan.tile_length - 1 + plan.tiles_per_core_max + plan.block_dim < n // 100
    x = rng.uniform(0.05, 0.95, n).astype(np.float32)
    t = rng.uniform(0.05, 0.95, n).astype(np.float32)
    terms = (x.astype(np.float64) - t) ** 2
    ref = np.asarray(terms.sum())
    params = {"self": x, "target": t, "reduction": 2}
    bound = float(np.asarray(derived_bound(spec, product, params, ref)))
    values = np.square(x - t)  # fp32 formula values, summed in fp32 tile by tile as the kernel's tree does
    tiles = [values[k : k + plan.tile_length].sum(dtype=np.float32) for k in range(0, n, plan.tile_length)]
    kernel = np.float32(0)
    for s in tiles:
        kernel = np.float32(kernel + s)
    assert compare(np.asarray(kernel), ref, bound, 2.0**-40).ok
    lost = np.float32(kernel - tiles[len(tiles) // 2])  # one tile of one core never added
    assert not compare(np.asarray(lost), ref, bound, 2.0**-40).ok
    # what any summation order allows would have accepted it
    u = 2.0**-24
    anywhere = (n - 1) * u / (1 - (n - 1) * u) * float(np.abs(terms).sum())
    assert abs(float(lost) - float(ref)) < anywhere
