"""The elementwise lowering does no more vector work than the formula needs.

Held by structure, not timings: no generated program computes one value twice (re-derived here by value
numbering the emitted instructions), a ``min``/``max`` keeps a NaN only where nothing else in the result
carries it, and the emulator's counters (``vector_elements``) give hand-counted element-ops per element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from codegen.families.elementwise.compiler import Program, compile_formula
from codegen.families.elementwise.plan.variants import compile_all
from codegen.spec.errors import SourceLoc
from codegen.spec.expr import parse_expr, to_source
from codegen.specs import load_project, resolve_op

COMMUTATIVE = {"Add", "Mul", "Max", "Min"}


def _programs() -> list[tuple[str, str, Program]]:
    _, specs = load_project()
    out = []
    for spec in specs.values():
        if spec.family != "elementwise":
            continue
        for v in compile_all(spec):
            for k, case in enumerate(v.formula.cases):
                out.append((f"{spec.op}/{v.index}/{k}", "fp32", case.fp32))
                out.append((f"{spec.op}/{v.index}/{k}", "cast16", case.cast16))
    return out


def _numbered(prog: Program) -> list[tuple[Any, ...]]:
    """The value of each instruction as a key over the values of its operands (buffers are reused, so a
    buffer name stands for the value last written to it)."""
    holds: dict[str, Any] = {}
    keys = []
    for ins in prog.instructions:
        srcs = tuple(holds.get(s, ("input", s)) for s in ins.srcs)
        if ins.op in COMMUTATIVE:
            srcs = tuple(sorted(srcs, key=repr))
        key = (ins.op, srcs, ins.scalar, ins.mode, ins.round_mode)
        keys.append(key)
        holds[ins.dst] = key
    return keys


def _self_compares(prog: Program) -> int:
    """NaN keeps: ``Select`` instructions whose mask is a ``Compare`` of a buffer with itself (``EQ``; two
    keeps of one operand share that mask)."""
    nan_masks: set[str] = set()
    keeps = 0
    for i in prog.instructions:
        if i.op == "Select" and i.srcs[0] in nan_masks:
            keeps += 1
        if i.op == "Compare" and i.mode == "EQ" and i.srcs[0] == i.srcs[1]:
            nan_masks.add(i.dst)
        else:
            nan_masks.discard(i.dst)
    return keeps


@pytest.mark.parametrize(("name", "kind", "prog"), _programs(), ids=lambda x: x if isinstance(x, str) else "")
def test_no_value_is_computed_twice(name: str, kind: str, prog: Program) -> None:
    keys = _numbered(prog)
    repeated = {k for k in keys if keys.count(k) > 1}
    assert not repeated, f"{name} {kind} computes {sorted(map(repr, repeated))[0]} more than once"


def _compile(formula: str, tensors: tuple[str, ...] = ("x", "y")) -> Program:
    loc = SourceLoc("t.yaml", 1)
    return compile_formula("out", parse_expr(formula, loc, "compute.out"), tensors, {}, loc).fp32


@pytest.mark.parametrize(
    ("formula", "keeps"),
    [
        ("max(x, 0) * y", 1),  # y does not carry x's NaN
        ("max(x, 0) * exp(x)", 0),  # exp(x) is NaN wherever x is
        ("clamp(x, -1, 1) * y", 1),  # one keep for the literal-bounded chain, against x
        ("clamp(x, -1, 1) * (x + y)", 0),
        ("where(y > 0, x, 2 * x) * max(x, 0)", 0),  # both branches carry x
        ("where(y > 0, x, 2.0) * max(x, 0)", 1),  # the 2.0 branch does not
        ("max(x, 0) * max(x, 1)", 2),  # neither keep may lean on the other
        ("max(x - y, 0) * x", 1),  # x - y may be NaN without x or y (inf - inf): kept
        ("max(x, y) * x", 1),  # y's keep stays, x's goes
        ("(x - y) / max(x * (1 - x), 0.5)", 0),  # x * (1 - x) is NaN only where x is, and x - y carries x
        ("(x - y) / max(x * (1 - y), 0.5)", 1),  # x * (1 - y) may be 0 * inf
        ("y / max(x * (1 - x), 0.5)", 1),  # y does not carry x
        ("where(x >= 0, max(log(x), -100), log(x))", 0),  # log(x) is NaN only where x >= 0 is false
        ("where(x <= 1, max(log(1 - x), -100), y)", 0),  # 1 - x < 0 only where x <= 1 is false
        ("where(x <= 2, max(log(1 - x), -100), y)", 1),  # 1 < x <= 2: log(1 - x) NaN under a true condition
        ("where(x > -1, max(sqrt(x + 1), 2), y)", 0),
        ("where(x >= -1, max(log(x), -100), y)", 1),  # -1 <= x < 0: NaN under a true condition
        ("where(x != 0, max(log(x), -100), y)", 1),  # != is true at NaN
    ],
)
def test_nan_keep_only_where_the_result_would_lose_it(formula: str, keeps: int) -> None:
    assert _self_compares(_compile(formula)) == keeps


def test_spec_nan_keeps() -> None:
    """GeluBackward's clamp is multiplied by exp(-x^2/2), which carries x's NaN: no keep; SmoothL1LossBackward's
    clamp of (self - target) * invBeta stands alone: one keep, after the Maxs and the Mins."""
    _, specs = load_project()
    gelu = compile_all(resolve_op("GeluBackward", specs))[0].formula
    smooth = compile_all(resolve_op("SmoothL1LossBackward", specs))[0].formula
    assert (_self_compares(gelu.fp32), _self_compares(gelu.cast16)) == (0, 0)
    assert (_self_compares(smooth.fp32), _self_compares(smooth.cast16)) == (1, 1)


def test_one_minus_a_scaled_product_is_one_adds() -> None:
    """``1 - 0.5 * x * y``: the negation folds into the coefficient (Mul, Muls -0.5, Adds 1)."""
    prog = _compile("1 - 0.5 * x * y")
    assert [(i.op, i.scalar) for i in prog.instructions] == [("Mul", None), ("Muls", "-0.5f"), ("Adds", "1.0f")]


def test_abs_of_a_value_never_negative_is_the_value() -> None:
    """``abs(exp(u))``, ``abs(abs(u))``, ``abs(u * u)`` cost no ``Abs`` of their own."""
    assert [i.op for i in _compile("abs(exp(x)) + abs(abs(y)) + abs(x * x)").instructions] == [
        "Exp",
        "Abs",
        "Add",
        "Mul",
        "Add",
    ]


def test_shared_square_across_forms() -> None:
    """``exp(-(x * c)^2)`` and ``exp(-0.5 * x * x)`` for ``c = 1 / sqrt(2)`` are one ``Exp`` (the
    coefficients agree in fp32)."""
    prog = _compile("exp(-((x * 0.7071067811865476) * (x * 0.7071067811865476))) + exp(-0.5 * x * x)", ("x",))
    assert [i.op for i in prog.instructions].count("Exp") == 1


def _ops(prog: Program) -> list[tuple[str, str, tuple[str, ...], str | None]]:
    return [(i.op, i.dst, i.srcs, i.scalar) for i in prog.instructions]


def _compile_both(formula: str, tensors: tuple[str, ...] = ("x", "y"), defs: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    loc = SourceLoc("t.yaml", 1)
    scalar_defs = {k: parse_expr(v, loc, k) for k, v in (defs or {}).items()}
    return compile_formula("out", parse_expr(formula, loc, "compute.out"), tensors, scalar_defs, loc)


def test_axpy_into_a_cast_copy() -> None:
    """``x + 2 * y`` on 16-bit inputs: both cast up, one Axpy into x's fp32 copy (dead afterwards), the cast
    back: 4 instructions where Muls and Add took 5. In fp32 x is its input tile, which is not the output:
    Axpy would need a copy into it, so Muls and Add stay."""
    compiled = _compile_both("x + 2 * y")
    assert _ops(compiled.cast16) == [
        ("Cast", "tmp0", ("xLocal",), None),
        ("Cast", "tmp1", ("yLocal",), None),
        ("Axpy", "tmp0", ("tmp1",), "2.0f"),
        ("Cast", "outLocal", ("tmp0",), None),
    ]
    assert [i.op for i in compiled.fp32.instructions] == ["Muls", "Add"]
    # s * y + a and a host scalar: the same
    swapped = _compile_both("alpha * y + x", defs={"alpha": "beta * 2"})
    assert [(i.op, i.scalar) for i in swapped.cast16.instructions] == [
        ("Cast", None),
        ("Cast", None),
        ("Axpy", "scalar0_"),
        ("Cast", None),
    ]


def test_axpy_into_a_computed_value() -> None:
    """A computed addend takes the result in its own buffer: ``exp(x) + 2 * y`` computes ``exp(x)`` into the
    output tile and Axpys into it (fp32, 2 instructions for 3); inside a formula, into the addend's temporary; a
    division by a host value is a scale too."""
    assert _ops(_compile("exp(x) + 2 * y")) == [
        ("Exp", "outLocal", ("xLocal",), None),
        ("Axpy", "outLocal", ("yLocal",), "2.0f"),
    ]
    assert _ops(_compile("sqrt(exp(x) * x + y / 4) * y")) == [
        ("Exp", "tmp0", ("xLocal",), None),
        ("Mul", "tmp0", ("tmp0", "xLocal"), None),
        ("Axpy", "tmp0", ("yLocal",), "0.25f"),
        ("Sqrt", "tmp0", ("tmp0",), None),
        ("Mul", "outLocal", ("tmp0", "yLocal"), None),
    ]
    # an input tile at its last use (not the output) takes it too, as allocation reuses it for any value
    assert _ops(_compile("exp(x + 2 * y)")) == [
        ("Axpy", "xLocal", ("yLocal",), "2.0f"),
        ("Exp", "outLocal", ("xLocal",), None),
    ]


def test_axpy_of_a_difference_negates_the_scale() -> None:
    """``a - s * y`` (the form the simplifier gives ``a + -3 * y``) is Axpy by ``-s``: a literal negated, a host
    scalar hoisted negated."""
    assert _ops(_compile("exp(x) + -3 * y")) == [
        ("Exp", "outLocal", ("xLocal",), None),
        ("Axpy", "outLocal", ("yLocal",), "-3.0f"),
    ]
    compiled = _compile_both("exp(x) - alpha * y", defs={"alpha": "beta * 2"})
    (scalar,) = [t[3] for t in _ops(compiled.fp32) if t[0] == "Axpy"]
    field = next(hs for hs in compiled.scalars if f"{hs.field_name}_" == scalar)
    assert to_source(field.expr) == "-(beta * 2)"
    # y * s - a is not an Axpy (a would need negating first)
    assert [i.op for i in _compile("2 * y - exp(x)").instructions] == ["Muls", "Exp", "Sub"]


@pytest.mark.parametrize(
    ("formula", "ops"),
    [
        # the addend is read again afterwards: its buffer may not take the sum
        ("(exp(x) + 2 * y) * exp(x)", ["Exp", "Muls", "Add", "Mul"]),
        # the addend is an input tile still needed later (x read again)
        ("exp(x + 2 * y) * x", ["Muls", "Add", "Exp", "Mul"]),
        # the addend is an input tile and the sum is the fp32 output: Axpy would need a copy into it
        ("x + 2 * y", ["Muls", "Add"]),
        # the scaled value is read elsewhere too: the Muls stays, so nothing is saved
        ("(exp(x) + 2 * y) * exp(2 * y)", ["Exp", "Muls", "Add", "Exp", "Mul"]),
    ],
)
def test_no_axpy_where_the_addend_is_live_or_nothing_is_saved(formula: str, ops: list[str]) -> None:
    assert [i.op for i in _compile(formula).instructions] == ops


#: Element-ops per element counted by hand from each formula (16-bit: + one Cast per input and one for the
#: output). GeluBackward: erf(x / sqrt2) = Abs, Muls p / sqrt2, Adds 1, Reciprocal (4); the polynomial, its
#: coefficients times -0.5, Muls a5 and four Adds + Mul (9); exp(-x^2 / 2), shared with the density term: Mul,
#: Muls, Exp (3); 0.5 + 0.5 erf = w + 1 where x >= 0 and -w where x < 0 with w = -0.5 poly exp: Mul, Adds,
#: Muls -1, Compares, Select (5); clamp(x, -10, 10): Maxs, Mins, no NaN keep (2); clamp times exp: Mul (1); its
#: 0.3989 times added to the erf term: one Axpy into the Select's temporary (1); times gradOutput: Mul (1): 26.
#: SigmoidBackward g * y * (1 - y): Mul, Sub from a per-core constant 1, Mul (3). MseLossBackward
#: (s - t) * g * norm: Sub, Mul, Muls (3). SoftMarginLossBackward -t * g * sigmoid(-t * s) * norm: Mul, Exp,
#: Adds, Reciprocal (4), then Mul, Mul, Muls -norm (3): 7. The last column: per-core constants, each filled once
#: per core over one tile (tileLength elements), besides the per-element work.
EXPECTED_OPS = [
    ("GeluBackward", np.float32, 26, 0),
    ("GeluBackward", "bfloat16", 29, 0),
    ("SigmoidBackward", np.float16, 6, 1),
    ("MseLossBackward", np.float32, 3, 0),
    ("SoftMarginLossBackward", np.float32, 7, 0),
]


@pytest.mark.parametrize(("op", "dtype", "ops", "constants"), EXPECTED_OPS)
def test_element_ops_per_element(
    built_op: Callable[[str, str], Any], op: str, dtype: Any, ops: int, constants: int
) -> None:
    import ml_dtypes

    fn = built_op(op, "Ascend910B")
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(1)
    n = 1 << 16  # a multiple of every core's 64-element compare granule
    params = {
        t.name: rng.standard_normal(n, dtype=np.float32).astype(np_dtype) for t in fn.spec.inputs if not t.optional
    }
    fn(**params)
    (launch,) = fn.last_stats["launches"]
    elements = sum(int(c["vector_elements"]) for c in launch["cores"])
    assert elements == ops * n + constants * launch["block_dim"] * launch["tiling"]["tileLength"]


#: EluBackward's where(selfOrResult > 0, gradOutput * scale, where(isResult, A, B)), counted by hand per value of
#: the host condition isResult (FLOAT): Compares, Muls (gradOutput * scale) and Select, then A = gradOutput *
#: inputScale * (selfOrResult + alpha * scale): Adds, Mul, Muls (6); B = gradOutput * negscale *
#: exp(selfOrResult * inputScale): Muls, Exp, Mul, Muls (7). Computing both and selecting would be 13 or more.
HOST_CASE_OPS = [(True, 6), (False, 7)]


@pytest.mark.parametrize(("is_result", "ops"), HOST_CASE_OPS)
def test_a_host_condition_runs_only_its_taken_branch(
    built_op: Callable[[str, str], Any], is_result: bool, ops: int
) -> None:
    fn = built_op("EluBackward", "Ascend910B")
    rng = np.random.default_rng(2)
    n = 1 << 16  # a multiple of every core's 64-element compare granule
    x = rng.standard_normal(n, dtype=np.float32)
    fn(gradOutput=x, selfOrResult=x, alpha=1.0, scale=1.0, inputScale=1.0, isResult=is_result)
    elements = sum(int(c["vector_elements"]) for launch in fn.last_stats["launches"] for c in launch["cores"])
    assert elements == ops * n
