"""The formula compiler's programs for mixed dtype columns (inputs of dtypes of their own, e.g. SiluGrad's
dy FLOAT16 with x FLOAT giving dx FLOAT on Ascend950): each 16-bit input is cast to fp32 by itself, each fp32
input is read in place, and only a 16-bit output is rounded from the fp32 result.

The programs run on a typed NumPy interpreter: every buffer holds the elements of one dtype (an input's
buffer its own dtype's bit patterns, temporaries fp32, the output buffer the output's dtype), a ``Cast``
reads its source in that source's dtype, and every arithmetic instruction must read and write fp32 buffers.
A program that casts an input with another input's dtype, or computes on a 16-bit buffer as if it held fp32,
therefore fails here; its values are compared with the formula evaluated in float64 on each input's own
values (independent of the compiler: NumPy only).
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from codegen import registry
from codegen.families.elementwise.compiler import ColumnDtypes, Program, compile_variants
from codegen.families.elementwise.plan.columns import column_problem
from codegen.spec.errors import SourceLoc, SpecErrors
from codegen.spec.expr import parse_expr
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

LOC = SourceLoc("test.yaml", 1)
#: SiluGrad's formula (specs/silu_backward.yaml), over its aclnn input names
SILU_GRAD = "gradOutput * sigmoid(self) * (1 + clamp(self, -100, 100) * (1 - sigmoid(self)))"
INPUTS = ("gradOutput", "self")
#: NumPy storage of each dtype the interpreter holds
STORAGE = {"FLOAT": np.dtype(np.float32), "FLOAT16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16)}


def _run_typed(prog: Program, inputs: dict[str, np.ndarray], out_dtype: str) -> np.ndarray:
    """Runs ``prog`` with each buffer in one dtype: ``<input>Local`` in its input's storage dtype, ``tmp``
    and ``const`` buffers and masks as fp32 and bool, ``outLocal`` in ``out_dtype``. A ``Cast`` converts its
    source from that source's dtype; any other instruction that reads or writes a 16-bit buffer fails."""
    bufs: dict[str, np.ndarray] = {f"{k}Local": v.copy() for k, v in inputs.items()}
    out_storage = STORAGE[out_dtype]

    def fp32(name: str) -> np.ndarray:
        a = bufs[name]
        assert a.dtype in (np.float32, np.bool_), f"{name} ({a.dtype}) read as fp32"
        return a

    def store(name: str, value: np.ndarray) -> None:
        if name == "outLocal":
            assert out_storage == np.float32, "fp32 arithmetic written into a 16-bit output buffer"
        elif name.endswith("Local"):
            assert bufs[name].dtype == np.float32, f"fp32 arithmetic written into 16-bit {name}"
        bufs[name] = value

    with np.errstate(all="ignore"):
        for ins in (*prog.constants, *prog.instructions):
            scalar = float((ins.scalar or "nan").removesuffix("f"))
            if ins.op == "Cast":
                src = bufs[ins.srcs[0]]
                if ins.dst == "outLocal":
                    bufs[ins.dst] = fp32(ins.srcs[0]).astype(out_storage)
                else:
                    bufs[ins.dst] = src.astype(np.float32)
                continue
            if ins.op == "Duplicate":
                store(ins.dst, np.full(next(iter(inputs.values())).shape, scalar, np.float32))
                continue
            src = [fp32(s) for s in ins.srcs]
            binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
            scalars = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum}
            unary = {"Exp": np.exp, "Reciprocal": lambda x: np.float32(1) / x, "Abs": np.abs}
            if ins.op in binary:
                value = binary[ins.op](src[0], src[1])
            elif ins.op in scalars:
                value = scalars[ins.op](src[0], np.float32(scalar))
            elif ins.op == "Compare":
                value = {"EQ": np.equal, "NE": np.not_equal}[ins.mode or ""](src[0], src[1])
            elif ins.op == "Select":
                value = np.where(src[0], src[1], src[2] if len(src) > 2 else np.float32(scalar))
            else:
                value = unary[ins.op](src[0])
            store(ins.dst, np.asarray(value, np.bool_ if ins.op == "Compare" else np.float32))
    return bufs["outLocal"]


def _reference(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """SiluGrad in float64 from each input's own values: dy * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    d, v = dy.astype(np.float64), x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        s = 1.0 / (1.0 + np.exp(-v))
        return d * s * (1.0 + v * (1.0 - s))


#: (gradOutput, self, gradInput): three of ops-nn's mixed SiluGrad columns and one with a 16-bit output
COLUMNS = [
    ("FLOAT16", "FLOAT", "FLOAT"),
    ("FLOAT", "BF16", "FLOAT"),
    ("BF16", "FLOAT16", "FLOAT"),
    ("FLOAT", "FLOAT16", "FLOAT16"),
]


def _compile(columns: list[tuple[str, str, str]]) -> tuple[Program, ...]:
    dtypes = [
        ColumnDtypes(frozenset(n for n, d in zip(INPUTS, c[:2], strict=True) if d != "FLOAT"), c[2] != "FLOAT")
        for c in columns
    ]
    (compiled,) = compile_variants(
        "gradInput", parse_expr(SILU_GRAD, LOC, "compute.gradInput"), INPUTS, {}, {}, LOC, columns=tuple(dtypes)
    )
    (case,) = compiled.cases
    return case.columns


@pytest.mark.parametrize("column", COLUMNS, ids=["-".join(c) for c in COLUMNS])
def test_a_mixed_column_casts_each_16bit_input_from_its_own_dtype(column: tuple[str, str, str]) -> None:
    (prog,) = _compile([column])
    casts = [i.srcs[0] for i in prog.instructions if i.op == "Cast" and i.dst != "outLocal"]
    assert sorted(casts) == sorted(f"{n}Local" for n, d in zip(INPUTS, column[:2], strict=True) if d != "FLOAT")
    rng = np.random.default_rng(7)
    dy_dtype, x_dtype, out_dtype = column
    dy = rng.uniform(-3, 3, 512).astype(STORAGE[dy_dtype])
    x = np.concatenate([rng.uniform(-12, 12, 508), [-200.0, 200.0, -np.inf, np.inf]]).astype(STORAGE[x_dtype])
    got = _run_typed(prog, {"gradOutput": dy, "self": x}, out_dtype).astype(np.float64)
    want = _reference(dy, x)
    want[np.isinf(x.astype(np.float64))] = np.where(x[np.isinf(x.astype(np.float64))] > 0, 1.0, 0.0) * dy[
        np.isinf(x.astype(np.float64))
    ].astype(np.float64)
    # fp32 steps (exp, reciprocal, five products): a few units of fp32; a 16-bit output one rounding more
    eps = 2.0**-20 if out_dtype == "FLOAT" else 2.0**-10
    np.testing.assert_allclose(got, want, rtol=eps, atol=eps)


def test_column_programs_follow_the_columns_and_leave_the_one_dtype_programs_alone() -> None:
    """One program per column in their order; the fp32 and 16-bit programs are those compiled without
    columns."""
    (plain,) = compile_variants("gradInput", parse_expr(SILU_GRAD, LOC, "compute.gradInput"), INPUTS, {}, {}, LOC)
    progs = _compile(COLUMNS)
    assert len(progs) == len(COLUMNS)
    # the FLOAT16 output column rounds once at the end; the FLOAT ones write the fp32 result directly
    assert [p.instructions[-1].op == "Cast" for p in progs] == [False, False, False, True]
    (with_columns,) = compile_variants(
        "gradInput",
        parse_expr(SILU_GRAD, LOC, "compute.gradInput"),
        INPUTS,
        {},
        {},
        LOC,
        columns=(ColumnDtypes(frozenset({"gradOutput"}), False),),
    )
    assert with_columns.cases[0].fp32 == plain.cases[0].fp32
    assert with_columns.cases[0].cast16 == plain.cases[0].cast16


def test_a_mixed_column_the_kernel_cannot_run_is_a_spec_error_at_its_line(tmp_path: Path) -> None:
    """A mixed column on an op with a reduce epilogue (MseLoss's spec given ops-nn's one-dtype columns and one
    of FLOAT16 self with FLOAT target) is a plan-time spec error at the column's line; the one-dtype columns
    alone plan."""
    catalogue, specs = load_project()
    source = Path(specs["mse_loss"].path).read_text()
    columns = (
        "  dtype_columns:\n"
        "    - {predict: BF16, label: BF16, y: BF16}\n"
        "    - {predict: FLOAT16, label: FLOAT16, y: FLOAT16}\n"
        "    - {predict: FLOAT, label: FLOAT, y: FLOAT}\n"
    )
    assert "  dtypes: [BF16, FLOAT16, FLOAT]\n" in source
    path = tmp_path / "mse_loss.yaml"
    path.write_text(source.replace("  dtypes: [BF16, FLOAT16, FLOAT]\n", columns))
    spec = load_op_spec(path, catalogue)
    assert column_problem(spec) is None
    mixed = "    - {predict: FLOAT16, label: FLOAT, y: FLOAT}\n"
    path.write_text(source.replace("  dtypes: [BF16, FLOAT16, FLOAT]\n", columns + mixed))
    spec = load_op_spec(path, catalogue)
    line = source.splitlines().index("  dtypes: [BF16, FLOAT16, FLOAT]") + 5
    with pytest.raises(SpecErrors) as info:
        registry.family(spec.family).validate(spec, catalogue)
    assert [str(e) for e in info.value.errors] == [
        f"{path}:{line}: device.dtype_columns[3]: a column whose tensors differ in dtype needs one output, no "
        "optional input and no reduce epilogue in the elementwise family"
    ]
