"""Unit tests of the formula language's comparisons, where() and new functions: evaluation, lowering to
Compare/Compares/Select, the derived boundary inputs, the interval model of masks, scalar attribute values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from codegen.families.elementwise.boundary import boundary_values
from codegen.families.elementwise.compiler import compile_formula
from codegen.families.elementwise.intervals import _compare, _select
from codegen.runner import ScalarArg
from codegen.runner.arguments import attr_value
from codegen.spec.errors import SourceLoc
from codegen.spec.expr import evaluate, parse_expr
from codegen.spec.model import AttrSpec, DType

LOC = SourceLoc("t.yaml", 1)


def p(text: str):  # type: ignore[no-untyped-def]
    return parse_expr(text, LOC, "compute.out")


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tanh(0.5)", math.tanh(0.5)),
        ("erf(-0.25)", math.erf(-0.25)),
        ("log1p(1e-10)", 1e-10 - 5e-21),
        ("log1p(-1)", -math.inf),
        ("rsqrt(4)", 0.5),
        ("sign(-3)", -1.0),
        ("sign(0)", 0.0),
        ("clamp(5, -1, 2)", 2.0),
        ("clamp(-5, -1, 2)", -1.0),
        ("pow(2, 10)", 1024.0),
        ("where(1 < 2, 3, 4.5)", 3.0),
        ("where(not (1 < 2), 3, 4)", 4),
    ],
)
def test_host_evaluation_of_the_new_functions(text: str, want: float) -> None:
    got = evaluate(p(text), {})
    assert got == pytest.approx(want, rel=1e-15, abs=0) or (math.isinf(want) and got == want)


def test_sign_keeps_negative_zero_and_nan() -> None:
    assert math.copysign(1.0, evaluate(p("sign(x)"), {"x": -0.0})) == -1.0  # type: ignore[arg-type]
    assert math.isnan(evaluate(p("sign(x)"), {"x": math.nan}))  # type: ignore[arg-type]


def _ops(formula: str, scalars: dict[str, str] | None = None) -> list[tuple[str, str | None, str | None]]:
    defs = {k: p(v) for k, v in (scalars or {}).items()}
    c = compile_formula("out", p(formula), ("g", "x"), defs)
    return [(i.op, i.mode, i.scalar) for i in c.fp32.instructions]


def test_where_with_a_host_else_branch_is_one_compares_and_a_tensor_scalar_select() -> None:
    assert _ops("where(x > 0.5, g, 0)") == [("Compares", "GT", "0.5f"), ("Select", "VSEL_TENSOR_SCALAR_MODE", "0.0f")]


def test_a_host_value_on_the_left_flips_the_compare_mode() -> None:
    assert _ops("where(0.5 <= x, g, x)")[0] == ("Compares", "GE", "0.5f")
    assert _ops("where(0.5 > x, g, x)")[0] == ("Compares", "LT", "0.5f")


def test_two_tensors_compare_with_compare_and_select_tensor_tensor() -> None:
    assert _ops("where(g != x, g, x)") == [("Compare", "NE", None), ("Select", "VSEL_TENSOR_TENSOR_MODE", None)]


def test_and_or_not_nest_selects_without_mask_arithmetic() -> None:
    ops = [o for o, _, _ in _ops("where(x > 0 and x < 1 or not (g == 2), g, x)")]
    assert ops.count("Select") == 3 and ops.count("Compares") == 3
    assert all(o in ("Compares", "Select") for o in ops)


def test_masks_have_their_own_buffers_and_count_in_the_budget() -> None:
    c = compile_formula("out", p("where(x > 0, g, 0) + where(x < 1, g, 0)"), ("g", "x"), {})
    masks = {i.dst for i in c.fp32.instructions if i.op.startswith("Compare")}
    assert masks <= {"mask0", "mask1"} and c.fp32.masks >= 1
    assert c.fp32.budget_temps == c.fp32.temps + 1


def test_erf_carries_its_approximation_error_on_one_instruction() -> None:
    c = compile_formula("out", p("erf(x)"), ("x",), {})
    assert [i.approx for i in c.fp32.instructions if i.approx] == [1.5e-7]


def test_boundary_values_are_the_neighbours_in_the_dtype() -> None:
    # 0.5 = 0x3F000000 in fp32: neighbours 0x3EFFFFFF and 0x3F000001
    got = boundary_values(0.5, DType.FLOAT)
    bits = got[:3].view(np.uint32).tolist()
    assert bits == [0x3EFFFFFF, 0x3F000000, 0x3F000001]
    # 0.5 = 0x3800 in fp16: neighbours 0x37FF and 0x3801; 0 gets the smallest subnormals
    assert boundary_values(0.5, DType.FLOAT16)[:3].view(np.uint16).tolist() == [0x37FF, 0x3800, 0x3801]
    assert boundary_values(0.0, DType.FLOAT16)[:3].view(np.uint16).tolist() == [0x8001, 0x0000, 0x0001]
    tail = boundary_values(0.5, DType.BF16)[3:].astype(np.float64)
    assert (
        tail[0] == 0
        and math.copysign(1, tail[1]) == -1
        and math.isnan(tail[2])
        and tail[3:].tolist()
        == [
            math.inf,
            -math.inf,
        ]
    )


def test_interval_compare_decides_only_what_the_intervals_decide() -> None:
    x = (np.array([1.0, 2.0, np.nan, 0.0]), np.array([1.0, 2.0, np.nan, 3.0]))
    s = (np.asarray(1.5), np.asarray(1.5))
    may_t, may_f = _compare(x, s, "LT")
    assert may_t.tolist() == [True, False, False, True] and may_f.tolist() == [False, True, True, True]
    may_t, may_f = _compare(x, s, "NE")
    assert may_t[2] and not may_f[2]  # NaN != s is true
    lo, hi = _select((may_t, may_f), (np.zeros(4), np.zeros(4)), (np.ones(4), np.ones(4)))
    assert lo.tolist() == [0, 0, 0, 0] and hi.tolist() == [0, 0, 0, 1]


def test_a_python_number_for_a_scalar_attribute_becomes_a_double_aclscalar_where_the_attr_lists_double() -> None:
    a = AttrSpec("threshold", "scalar", None, 0.0, "", LOC, ("FLOAT", "DOUBLE", "BOOL"))

    class Spec:
        aclnn_name = "aclnnX"
        compute = None

    assert attr_value(Spec(), a, 0.25) == ScalarArg(0.25, "DOUBLE")  # type: ignore[arg-type]
    assert attr_value(Spec(), a, True) == ScalarArg(True, "BOOL")  # type: ignore[arg-type]
    assert attr_value(Spec(), a, None) is None  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        attr_value(Spec(), a, "0.5")  # type: ignore[arg-type]
    # an integer beyond a double names the attribute instead of a bare OverflowError
    with pytest.raises(ValueError, match=r"attribute 'threshold' .* does not fit a double"):
        attr_value(Spec(), a, 10**400)  # type: ignore[arg-type]


def test_a_string_attribute_with_a_nul_character_is_refused() -> None:
    a = AttrSpec("approximate", "string", ((0, "none"), (1, "tanh")), "none", "", LOC)

    class Spec:
        aclnn_name = "aclnnX"
        compute = None

    assert attr_value(Spec(), a, "tanh") == b"tanh"  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"attribute 'approximate' .* NUL character"):
        attr_value(Spec(), a, "tanh\x00x")  # type: ignore[arg-type]
