"""The formula compiler: instruction selection, buffer allocation and numerical equivalence.

Programs are executed by a small NumPy interpreter of the AscendC instructions they use, and compared with
a direct float64 evaluation of the formula, so a wrong lowering, a wrong operand order or a buffer that is
overwritten while still live is caught without any C++ involved.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codegen.families.elementwise.compiler import Program, compile_formula
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import ExprEvalError, evaluate, parse_expr

LOC = SourceLoc("test.yaml", 1)
TENSORS = ("a", "b", "c")


def run_program(prog: Program, inputs: dict[str, np.ndarray], scalars: dict[str, float]) -> np.ndarray:
    """Executes ``prog`` on float64 copies of ``inputs``; scalar operands are literals or ``scalarK_``."""
    bufs: dict[str, np.ndarray] = {f"{k}Local": v.astype(np.float64).copy() for k, v in inputs.items()}

    def scalar(text: str) -> float:
        return float(text[:-1]) if text.endswith("f") else scalars[text]

    with np.errstate(all="ignore"):
        for ins in (*prog.constants, *prog.instructions):
            src = [bufs[s] for s in ins.srcs]
            if ins.op == "Cast":
                out = src[0].copy()
            elif ins.op == "Duplicate":
                assert ins.scalar is not None
                out = np.full(16, scalar(ins.scalar))
            elif ins.op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
                fn = {
                    "Add": np.add,
                    "Sub": np.subtract,
                    "Mul": np.multiply,
                    "Div": np.divide,
                    "Max": np.maximum,
                    "Min": np.minimum,
                }[ins.op]
                out = fn(src[0], src[1])
            elif ins.op in ("Compare", "Compares"):
                other = src[1] if ins.op == "Compare" else scalar(ins.scalar or "")
                cmp = {"LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}
                cmp.update({"EQ": np.equal, "NE": np.not_equal})
                out = cmp[ins.mode or ""](src[0], other)
            elif ins.op == "Select":
                other = src[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else scalar(ins.scalar or "")
                out = np.where(src[0], src[1], other)
            elif ins.op == "Axpy":  # dst = src * scalar + dst: the addend is the destination's value
                assert ins.scalar is not None
                out = bufs[ins.dst] + src[0] * scalar(ins.scalar)
            elif ins.op in ("Adds", "Muls", "Maxs", "Mins"):
                assert ins.scalar is not None
                s = scalar(ins.scalar)
                out = {
                    "Adds": src[0] + s,
                    "Muls": src[0] * s,
                    "Maxs": np.maximum(src[0], s),
                    "Mins": np.minimum(src[0], s),
                }[ins.op]
            else:
                fn1 = {
                    "Exp": np.exp,
                    "Ln": np.log,
                    "Abs": np.abs,
                    "Sqrt": np.sqrt,
                    "Reciprocal": lambda x: 1.0 / x,
                    "Relu": lambda x: np.maximum(x, 0.0),
                }[ins.op]
                out = fn1(src[0])
            bufs[ins.dst] = out
    return bufs["outLocal"]


def compile_text(text: str, scalar_defs: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    defs = {k: parse_expr(v, LOC, k) for k, v in (scalar_defs or {}).items()}
    return compile_formula("out", parse_expr(text, LOC, "compute.out"), TENSORS, defs, LOC, "compute.out")


def test_soft_margin_loss_backward_program() -> None:
    compiled = compile_text("-a * b * sigmoid(-a * c) * norm", {"norm": "1 / numel(out) if reduction == 1 else 1"})
    assert [i.op for i in compiled.fp32.instructions] == ["Mul", "Mul", "Exp", "Adds", "Reciprocal", "Mul", "Muls"]
    assert compiled.fp32.temps == 0
    assert compiled.fp32.instructions[-1].dst == "outLocal"
    assert compiled.fp32.instructions[-1].scalar == "scalar0_"
    # The negation folds into the host scalar: one scalar, the negated norm.
    assert len(compiled.scalars) == 1
    env = {"reduction": 1, "out": (4, 5)}
    assert evaluate(compiled.scalars[0].expr, env) == pytest.approx(-1 / 20)
    ops16 = [i.op for i in compiled.cast16.instructions]
    assert ops16.count("Cast") == 4 and ops16[-1] == "Cast"
    assert compiled.cast16.instructions[-1].round_mode == "CAST_RINT"
    assert compiled.cast16.temps == 3


def test_sigmoid_is_finite_where_exp_overflows() -> None:
    compiled = compile_text("sigmoid(a)")
    a = np.array([-1000.0, -100.0, 0.0, 100.0, 1000.0])
    got = run_program(compiled.fp32, {"a": a, "b": a, "c": a}, {})
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, [0.0, 1 / (1 + np.exp(100.0)), 0.5, 1 / (1 + np.exp(-100.0)), 1.0])


def test_unsupported_construct_is_a_spec_error() -> None:
    with pytest.raises(SpecError) as err:
        compile_text("a if b else c")
    assert str(err.value).startswith("test.yaml:1: compute.out: cannot compile 'IfElse'")


_LEAVES = st.sampled_from(["a", "b", "c", "2", "0.5", "s"])


def _formula(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _LEAVES
    sub = _formula(depth - 1)
    return st.one_of(
        _LEAVES,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda x: f"-({x})"),
        st.tuples(st.sampled_from(["exp", "abs", "sigmoid", "relu"]), sub).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["min", "max"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
    )


@settings(max_examples=300, deadline=None)
@given(_formula(3))
def test_compiled_program_matches_formula(text: str) -> None:
    """Both programs (in place fp32 and cast-to-temporaries) compute the formula."""
    compiled = compile_text(text, {"s": "0.25"})
    rng = np.random.default_rng(1)
    inputs = {n: rng.uniform(0.5, 2.0, 16) for n in TENSORS}
    try:
        scalars = {f"{hs.field_name}_": float(evaluate(hs.expr, {})) for hs in compiled.scalars}  # type: ignore[arg-type]
        env = {**inputs, "s": 0.25}
        with np.errstate(all="ignore"):
            expected = _numpy_eval(parse_expr(text, LOC, "f"), env)
    except (ZeroDivisionError, ExprEvalError):
        assume(False)  # a constant division by zero: not a formula worth compiling
    assume(bool(np.all(np.isfinite(expected))))
    for prog in (compiled.fp32, compiled.cast16):
        got = run_program(prog, inputs, scalars)
        np.testing.assert_allclose(got, np.broadcast_to(expected, got.shape), rtol=1e-9, atol=1e-12)
        # No instruction reads a buffer after it was recycled for another value: checked by the equality above;
        # and temporaries are numbered densely from 0.
        used = {b for i in prog.instructions for b in (i.dst, *i.srcs) if b.startswith("tmp")}
        assert used == {f"tmp{k}" for k in range(prog.temps)}


def _numpy_eval(e, env):  # type: ignore[no-untyped-def]
    from codegen.spec.expr import Binary, Call, Name, Num, Unary

    if isinstance(e, Num):
        return float(e.value)
    if isinstance(e, Name):
        return env[e.id]
    if isinstance(e, Unary):
        return -_numpy_eval(e.operand, env)
    if isinstance(e, Binary):
        left, right = _numpy_eval(e.left, env), _numpy_eval(e.right, env)
        return {"+": left + right, "-": left - right, "*": left * right, "/": left / right}[e.op]
    if isinstance(e, Call):
        args = [_numpy_eval(a, env) for a in e.args]
        fns = {
            "exp": np.exp,
            "abs": np.abs,
            "relu": lambda x: np.maximum(x, 0.0),
            "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
            "min": np.minimum,
            "max": np.maximum,
        }
        return fns[e.func](*args)
    raise AssertionError(e)


@pytest.mark.parametrize(
    ("text", "a", "b", "ops"),
    [
        ("erf(a)", 0.0, 1.0, 5),  # odd: the x < 0 branch is -P, one Muls
        ("0.5 + 0.5 * erf(a)", 0.5, 0.5, 5),  # a - b = 0: the x < 0 branch is -w itself
        ("1 - erf(a)", 1.0, -1.0, 5),  # a + b = 0: the x >= 0 branch is w itself
        ("3 + 2 * erf(a * 0.5)", 3.0, 2.0, 6),
        ("erf(a) * -4 - 1", -1.0, -4.0, 6),
    ],
)
def test_affine_erf_folds_into_its_branches(text: str, a: float, b: float, ops: int) -> None:
    """``a + b * erf(u)`` costs the erf's own instructions (Abs, Muls, Adds, Reciprocal, the 9 of the
    polynomial, Mul, Muls, Exp of exp(-u^2)) plus ``ops`` after the polynomial (Mul by the exponential, the
    branches' Adds/Muls, Compares, Select), never a Muls b and an Adds a after the sign select; the values
    agree with math.erf within b times Abramowitz-Stegun's 1.5e-7 (plus float64 rounding), at +-inf the
    limits a +- b, and NaN stays NaN."""
    import math

    prog = compile_text(text).fp32
    assert len(prog.instructions) == 16 + ops, [i.op for i in prog.instructions]
    scale = 0.5 if "a * 0.5" in text else 1.0
    x = np.array([-6.0, -2.5, -1.0, -0.3, -1e-3, 0.0, 1e-3, 0.3, 1.0, 2.5, 6.0])
    got = run_program(prog, {"a": x, "b": x, "c": x}, {})
    want = np.array([a + b * math.erf(scale * v) for v in x])
    np.testing.assert_allclose(got, want, rtol=0, atol=abs(b) * 1.5e-7 + 1e-12)
    edge = run_program(prog, {k: np.array([-np.inf, np.inf, np.nan]) for k in TENSORS}, {})
    assert edge[0] == a - b and edge[1] == a + b and np.isnan(edge[2])


@pytest.mark.parametrize("lam", [0.5, 0.0, -0.5])
@pytest.mark.parametrize(
    ("text", "ops"),
    [
        ("where(a < -s, b, where(a > s, b, 0))", ["Abs", "Compares", "Select"]),
        ("where(a >= s, b, where(a <= -s, b, c))", ["Abs", "Compares", "Select"]),
        ("where(a < -s, b, where(a > s, c, 0))", ["Compares", "Compares", "Select", "Select"]),  # other value
        ("where(a < -s, b, where(a >= s, b, 0))", ["Compares", "Compares", "Select", "Select"]),  # mixed strictness
        ("where(a < -s, b, where(a > 2 * s, b, 0))", ["Compares", "Compares", "Select", "Select"]),
    ],
)
def test_two_sided_band_is_one_test_of_abs(text: str, ops: list[str], lam: float) -> None:
    """``x < -s or x > s`` selecting one value is ``|x| > s``; the programs agree with the formula for a
    positive, zero and negative ``s``, at both band edges, +-0, +-inf and NaN."""
    compiled = compile_text(text, {"s": "lambd"})
    assert [i.op for i in compiled.fp32.instructions] == ops
    x = np.array([-np.inf, -1.0, -0.5, -0.25, -0.0, 0.0, 0.25, 0.5, 1.0, np.inf, np.nan])
    b = np.arange(1.0, 12.0)
    c = -b
    scalars = {hs.field_name + "_": float(evaluate(hs.expr, {"lambd": lam})) for hs in compiled.scalars}
    got = run_program(compiled.fp32, {"a": x, "b": b, "c": c}, scalars)
    with np.errstate(invalid="ignore"):
        want = np.array(
            [
                float(evaluate(parse_expr(text, LOC, "f"), {"a": v, "b": w, "c": u, "s": lam}))
                for v, w, u in zip(x, b, c)
            ]
        )
    np.testing.assert_array_equal(got, want)


def test_a_where_on_host_values_compiles_one_program_per_case() -> None:
    # flag and mode are host names (attributes): the where is decided per call, each case keeps its own branch
    compiled = compile_text("where(flag, a * b, exp(c)) + where(mode > 1, a, c)")
    assert [hs.expr for hs in compiled.scalars[:2]] == [
        parse_expr("1.0 if flag else 0.0", LOC, "x"),
        parse_expr("1.0 if mode > 1 else 0.0", LOC, "x"),
    ]
    cases = {case.guards: [i.op for i in case.fp32.instructions] for case in compiled.cases}
    assert cases == {
        (("scalar0", True), ("scalar1", True)): ["Mul", "Add"],
        (("scalar0", False), ("scalar1", True)): ["Exp", "Add"],
        (("scalar0", True), ("scalar1", False)): ["Mul", "Add"],
        (("scalar0", False), ("scalar1", False)): ["Exp", "Add"],
    }
    assert compiled.case_for({"scalar0": 0.0, "scalar1": 1.0}).guards == (("scalar0", False), ("scalar1", True))
    a, b, c = (np.array([2.0, -1.0]), np.array([3.0, 4.0]), np.array([0.0, 1.0]))
    got = run_program(compiled.case_for({"scalar0": 1.0, "scalar1": 0.0}).fp32, {"a": a, "b": b, "c": c}, {})
    np.testing.assert_array_equal(got, a * b + c)
    with pytest.raises(ValueError, match="4 host cases"):
        _ = compiled.fp32


def test_a_clamped_operand_carries_its_nan_into_bounded_arithmetic() -> None:
    # c = clamp(a, -20, 20) keeps a's NaN once; u = 0.5 c + c^3 is NaN only where c is, and the product with c
    # carries c's NaN: the clamp of u needs no NaN keep of its own
    c = "clamp(a, -20, 20)"
    compiled = compile_text(f"c * min(max(0.5 * {c} + {c} * {c} * {c}, -10), 10) * {c}")
    ops = [i.op for i in compiled.fp32.instructions]
    assert ops.count("Compare") == 1 and ops.count("Select") == 1, ops


def _ops(prog: Program) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(i.op, i.dst, i.srcs) for i in prog.instructions]


def test_a_16bit_select_chain_among_inputs_picks_their_own_elements() -> None:
    # where(a <= s, 0, b): a is read by the comparison only, which compares its own 16-bit elements with s
    # rounded down to T (CompareElems; the widening is for BF16 only); the Select reads b's 16-bit tile and a
    # constant 0 of the input dtype and writes the output, with no rounding Cast after it
    compiled = compile_text("where(a <= s, 0, b)", {"s": "threshold"})
    prog = compiled.cast16
    low, zero = prog.narrow
    assert _ops(prog) == [
        ("CastElemsForCompare", "tmp0", ("aLocal",)),
        ("CompareElems", "mask0", ("tmp0", "aLocal", low)),
        ("Select", "outLocal", ("mask0", zero, "bLocal")),
    ]
    assert [(c.dst, c.scalar, c.round_mode) for c in prog.constants] == [
        (low, "scalar0_", "CAST_FLOOR"),
        (zero, "0.0f", None),
    ]
    # nested selects with a literal 0 as the scalar src1: both write the output, each 0 a tensor of T; a > 1
    # rounds 1 down, a < 2 rounds 2 up (both exact in T, so both stay)
    prog = compile_text("where(a > 1, where(a < 2, b, 0), 0)").cast16
    one, two, zero = prog.narrow
    assert _ops(prog) == [
        ("CastElemsForCompare", "tmp0", ("aLocal",)),
        ("CompareElems", "mask0", ("tmp0", "aLocal", one)),
        ("CompareElems", "mask1", ("tmp0", "aLocal", two)),
        ("Select", "outLocal", ("mask1", "bLocal", zero)),
        ("Select", "outLocal", ("mask0", "outLocal", zero)),
    ]
    assert [(c.scalar, c.round_mode) for c in prog.constants] == [
        ("1.0f", "CAST_FLOOR"),
        ("2.0f", "CAST_CEIL"),
        ("0.0f", None),
    ]
    assert {i.mode for i in prog.instructions if i.op == "Select"} == {"VSEL_TENSOR_TENSOR_MODE"}
    # the fp32 program keeps its form
    assert compile_text("where(a <= s, 0, b)", {"s": "threshold"}).fp32.narrow == ()


@pytest.mark.parametrize(
    "formula",
    [
        "where(a > 0, b, 2 * b)",  # an arithmetic branch: computed in fp32 and rounded
        "where(a > 0, b, 0.1)",  # 0.1 is neither a half nor a bfloat16 value
        "where(a > 0, b, 70000)",  # beyond the half range
        "where(a > 0, b, s)",  # a host value, known per call only
        "where(a > 0, b, c) + 1",
    ],
)
def test_a_16bit_result_that_is_not_a_select_of_exact_values_is_rounded_from_fp32(formula: str) -> None:
    prog = compile_text(formula, {"s": "threshold"}).cast16
    # the only constants in T are a's comparison bound, 0 rounded down (a > 0 compares a's own elements)
    assert [(c.scalar, c.round_mode) for c in prog.constants if c.dst in prog.narrow] == [("0.0f", "CAST_FLOOR")]
    assert prog.instructions[-1].op == "Cast" and prog.instructions[-1].round_mode == "CAST_RINT"


def test_narrow_literals_are_exact_in_both_16bit_dtypes() -> None:
    from codegen.families.elementwise.compiler.narrow import exact_in_16bit

    assert [exact_in_16bit(t) for t in ("0.0f", "-0.0f", "1.0f", "-2.5f", "0.1f", "65536.0f", "scalar0_")] == [
        True,
        True,
        True,
        True,
        False,  # not a half value
        False,  # a bfloat16 value, beyond the half range
        False,
    ]


def test_a_host_value_minus_a_tensor_is_one_sub_from_a_constant() -> None:
    # 1 - a: Sub from the per-core constant 1 (one instruction, the rounding of -a + 1), not Muls -1 and Adds 1
    prog = compile_text("b * (1 - a)").fp32
    assert [i.op for i in prog.instructions] == ["Sub", "Mul"]
    (fill,) = prog.constants
    assert (fill.op, fill.scalar) == ("Duplicate", "1.0f")
    assert prog.instructions[0].srcs == (fill.dst, "aLocal")
    # a host scalar the same way; where -a is computed anyway (exp(-a)), s - a adds to it
    prog = compile_text("s - a * b", {"s": "threshold"}).fp32
    assert [i.op for i in prog.instructions] == ["Mul", "Sub"]
    assert [i.op for i in compile_text("exp(-a) + (2 - a)").fp32.instructions] == ["Muls", "Exp", "Adds", "Add"]
    # a coefficient absorbs the sign: 1 - 2a is Muls -2, Adds 1
    assert [i.op for i in compile_text("1 - 2 * a").fp32.instructions] == ["Muls", "Adds"]
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(16), rng.standard_normal(16)
    got = run_program(compile_text("b * (1 - a)").fp32, {"a": a, "b": b, "c": a}, {})
    np.testing.assert_array_equal(got, b * (1 - a))


@pytest.mark.parametrize(
    "formula",
    [
        "where(a == s, 0, b)",  # equality: no rounding of s keeps it
        "where(a <= s, a * 2, b)",  # a is also read by arithmetic: its widening stays
        "where(abs(a) <= s, 0, b)",  # a function of a is compared, not a itself
        "where(a <= b, 0, b)",  # a tensor, not a host value
    ],
)
def test_a_16bit_input_is_compared_in_fp32_unless_only_compared_in_order_with_host_values(formula: str) -> None:
    ops = [i.op for i in compile_text(formula, {"s": "threshold"}).cast16.instructions]
    assert "CompareElems" not in ops and "CastElemsForCompare" not in ops, ops
