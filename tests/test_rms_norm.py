"""aclnnRmsNorm end to end: two outputs of different shapes and dtypes (``yOut`` of x's shape and dtype,
``rstdOut`` FLOAT with one value per row), dtype columns per product (``dtype_combos``: FLOAT gamma with a
16-bit x on Atlas A2/A3/950 only) and shape errors answered with the spec's ``shape_status`` (561002, as
CANN's doc states).

- The planner and ``opgen explain`` against the generated tiling function for every dtype column (the tiling
  key is the column's position; a FLOAT gamma costs 4 bytes per line element).
- ``opgen check --quick`` on Ascend910B and Ascend310P passes, with the cases of each dtype column and the
  status cases: gamma or rstdOut of a wrong shape 561002, a dtype pair outside the table 161002, gamma under
  32 bytes on Ascend310P 561002.
- PyTorch (torch.nn.functional.rms_norm in float64, rstd = 1 / sqrt(mean(x^2) + eps) computed in torch) as the
  independent oracle of y and rstd for each column.
- Mutants planted in the generated kernel are killed by ``opgen check``: rstd written for the wrong row, and
  gamma read as fp16 when it is fp32.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.families.row_reduce.plan import validate
from codegen.families.row_reduce.plan.tensors import combos
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.families.row_reduce.plan.tiling_report import explain_tiling
from codegen.paths import project_paths
from codegen.runner import AclnnError, OpCallable
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(60)

OP = "rms_norm"
CATALOGUE, SPECS = load_project()
SPEC = SPECS[OP]
BF16 = np.dtype(ml_dtypes.bfloat16)


def _opgen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        env={**os.environ},
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )


def test_the_spec_declares_the_doc_dtype_table() -> None:
    # the five columns of aclnnRmsNorm.md, the mixed and BF16 ones not on Ascend310P
    table = {tuple(d.name for _, d in c.dtypes): set(c.products) for c in SPEC.dtype_combos}
    a2 = {"Ascend910B", "Ascend910_93", "Ascend950"}
    assert table == {
        ("FLOAT16", "FLOAT", "FLOAT16", "FLOAT"): a2,
        ("BF16", "FLOAT", "BF16", "FLOAT"): a2,
        ("FLOAT16", "FLOAT16", "FLOAT16", "FLOAT"): a2 | {"Ascend310P"},
        ("BF16", "BF16", "BF16", "FLOAT"): a2 | {"Ascend310P"},
        ("FLOAT", "FLOAT", "FLOAT", "FLOAT"): a2 | {"Ascend310P"},
    }
    p310 = CATALOGUE.get("Ascend310P")
    assert [c.dtype("x").name for c in SPEC.combos_for(p310)] == ["FLOAT16", "FLOAT"]  # no BF16 there
    assert SPEC.shape_status == 561002


#: (x shape, gamma dims): rows that fit, a chunked row, a row of 2 dims.
TILING_SHAPES = [((96, 1000), 1), ((2, 70000), 1), ((3, 4, 6), 2)]
NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BF16": BF16}


@pytest.mark.parametrize("key", range(5))
@pytest.mark.parametrize(("shape", "k"), TILING_SHAPES)
def test_explain_and_the_planner_equal_the_generated_tiling(
    built_op: Callable[[str, str], OpCallable], key: int, shape: tuple[int, ...], k: int
) -> None:
    fn = built_op(OP, "Ascend910B")
    product = CATALOGUE.get("Ascend910B")
    combo = combos(SPEC)[key]
    rstd = [*shape[: len(shape) - k], *([1] * k)]
    request = {
        "inputs": [
            {"shape": list(shape), "dtype": combo.dtype("x").name},
            {"shape": list(shape[len(shape) - k :]), "dtype": combo.dtype("gamma").name},
        ],
        "outputs": [{"shape": list(shape), "dtype": combo.dtype("yOut").name}, {"shape": rstd, "dtype": "FLOAT"}],
        "attrs": {"epsilon": 0.25},
    }
    got = fn.run_tiling(request)
    assert got.get("status") == 0, got
    d = tiling_decision(SPEC, product, shape, -1, combo, row_ndim=k)
    assert d.tiling_key == key
    for name, value in d.tiling_fields().items():
        assert int(got["tiling"][name]) == value, name
    assert float(got["tiling"]["attr0"]) == 0.25
    assert (got["block_dim"], got["tiling_key"]) == (d.block_dim, d.tiling_key)
    if k == 1 and combo == combos(SPEC)[[c.dtype("x") for c in combos(SPEC)].index(combo.dtype("x"))]:
        text = explain_tiling(SPEC, product, shape, combo.dtype("x").name)
        assert f"tiling key {key}," in text
        assert f"rows per tile: {d.tile_rows}; chunks per row: {d.chunk_num} of {d.chunk_len} elements" in text


def test_a_fp32_gamma_costs_more_line_bytes_than_a_fp16_one() -> None:
    product = CATALOGUE.get("Ascend910B")
    mixed = tiling_decision(SPEC, product, (2, 70000), -1, combos(SPEC)[0])  # FLOAT16 x, FLOAT gamma
    same = tiling_decision(SPEC, product, (2, 70000), -1, combos(SPEC)[2])  # FLOAT16 x, FLOAT16 gamma
    assert mixed.line_bytes_per_elem == same.line_bytes_per_elem + 2
    assert mixed.tile_bytes_per_elem == same.tile_bytes_per_elem  # x and y only: rstd costs bytes per row


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend310P"])
def test_opgen_check_passes_with_every_column_and_the_documented_statuses(tmp_path: Path, product: str) -> None:
    report = tmp_path / "check.json"
    proc = _opgen("check", OP, "--quick", "--product", product, "-j", "1", "--json", str(report))
    assert proc.returncode == 0, proc.stdout[-3000:]
    cases = json.loads(report.read_text())["cases"]
    names = " | ".join(c["name"] for c in cases)
    status = {c["name"]: c["status"] for c in cases}
    for expected in ("R = 1", "R at the UB limit", "one above the UB limit (chunked)", "R far above UB"):
        assert expected in names
    for expected in ("fewer rows than cores", "empty outer", "large dynamic range", "inf and NaN rows"):
        assert expected in names
    assert status["gamma not the last dim's shape -> 561002"] == 561002
    assert status["rstdOut of x's shape -> 561002"] == 561002
    assert status["wrong out shape -> 561002"] == 561002
    assert status["null rstdOut -> 161001"] == 161001
    assert status["empty outer (gamma of 1 dim(s))"] == 0  # an empty x is a value case (gamma of 16 elements)
    if product == "Ascend910B":
        assert "R = 1 [x FLOAT16, gamma FLOAT, yOut FLOAT16, rstdOut FLOAT] (gamma" in names  # full set
        assert "R = 1 [x FLOAT16, gamma FLOAT16, yOut FLOAT16, rstdOut FLOAT] (gamma" not in names
        assert "inf and NaN rows [x FLOAT16, gamma FLOAT16, yOut FLOAT16, rstdOut FLOAT] (gamma" in names
        assert status["gamma BF16 with x FLOAT16 -> 161002"] == 161002  # the first x dtype's status cases
        assert status["yOut FLOAT -> 161002"] == 161002
        assert status["rstdOut FLOAT16 -> 161002"] == 161002
    else:  # no FLOAT gamma with a 16-bit x on Atlas inference products, and gamma needs 32 bytes there
        assert status["gamma FLOAT with x FLOAT16 -> 161002"] == 161002
        assert status["R = 1 (gamma of 1 dim(s)): gamma_bytes -> 561002"] == 561002


def test_the_python_api_returns_both_outputs_and_answers_the_documented_statuses(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    fn = built_op(OP, "Ascend910B")
    x = np.array([[3.0, 4.0], [1.0, 1.0]], np.float32)
    y, rstd = fn(x=x, gamma=np.array([1.0, 2.0], np.float32), epsilon=0.0)
    assert rstd.shape == (2, 1) and rstd.dtype == np.float32
    # hand values: row 0 mean(9, 16) = 12.5, row 1 mean(1, 1) = 1
    np.testing.assert_allclose(rstd[:, 0], [1 / np.sqrt(12.5), 1.0], rtol=2e-7)
    np.testing.assert_allclose(y, [[3 / np.sqrt(12.5), 8 / np.sqrt(12.5)], [1.0, 2.0]], rtol=4e-7)
    y16, rstd16 = fn(x=x.astype(np.float16), gamma=np.array([1.0, 2.0], np.float32))
    assert y16.dtype == np.float16 and rstd16.dtype == np.float32
    with pytest.raises(AclnnError) as err:
        fn(x=x, gamma=np.ones(3, np.float32))
    assert err.value.status == 561002
    with pytest.raises(AclnnError) as err:
        fn(x=x, gamma=np.ones(2, np.float16))  # FLOAT x with FLOAT16 gamma: not a column
    assert err.value.status == 161002
    with pytest.raises(AclnnError) as err:
        fn(x=x, gamma=np.ones(2, np.float32), rstdOut=np.zeros((2, 2), np.float32))
    assert err.value.status == 561002
    # a 0-d x is refused by its own rank, an empty gamma by its emptiness (not "1 to 0 dims", "want 0")
    with pytest.raises(AclnnError) as err:
        fn(x=np.float32(1.0).reshape(()), gamma=np.ones((), np.float32))
    assert err.value.status == 561002 and "x has 0 dimensions" in err.value.message
    assert "at least 1 are required" in err.value.message
    with pytest.raises(AclnnError) as err:
        fn(x=np.ones((4, 0), np.float32), gamma=np.ones(0, np.float32))
    assert err.value.status == 561002 and "gamma must not be empty" in err.value.message


def test_a_constraint_message_ending_in_a_full_stop_gets_one(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op(OP, "Ascend310P")
    with pytest.raises(AclnnError) as err:
        fn(x=np.ones((4, 4), np.float32), gamma=np.ones(4, np.float32))
    assert err.value.status == 561002
    assert err.value.message == "gamma must hold at least 32 bytes on this product, but holds 16."


#: (name, x shape, gamma dims, scale)
ORACLE_CASES = [
    ("R = 1", (6, 1), 1, 2.0),
    ("rows", (7, 33), 1, 2.0),
    ("row of 2 dims", (3, 4, 6), 2, 2.0),
    ("multi-chunk row", (2, 70000), 1, 3.0),
    ("large dynamic range", (6, 64), 1, 1e4),
]
#: (x dtype, gamma dtype): every column on Ascend910B
COLUMNS = [("FLOAT", "FLOAT"), ("FLOAT16", "FLOAT"), ("FLOAT16", "FLOAT16"), ("BF16", "FLOAT"), ("BF16", "BF16")]


@pytest.mark.parametrize(("xdt", "gdt"), COLUMNS)
@pytest.mark.parametrize(("name", "shape", "k", "scale"), ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_kernel_matches_pytorch(
    built_op: Callable[[str, str], OpCallable],
    xdt: str,
    gdt: str,
    name: str,
    shape: tuple[int, ...],
    k: int,
    scale: float,
) -> None:
    """y and rstd against torch in float64: y = F.rms_norm(x, gamma.shape, gamma, eps), rstd = rsqrt(mean of
    squares + eps); within the fp32 accumulation bound (|v| * 2**-24 * (R / 2 + 16)) plus one ULP of the
    output dtype (y is rounded to x's dtype once)."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'"
    )
    fn = built_op(OP, "Ascend910B")
    rng = np.random.default_rng(len(name) + 7 * len(xdt + gdt))
    x = (rng.standard_normal(shape) * scale).astype(NP[xdt])
    g = rng.standard_normal(shape[len(shape) - k :]).astype(NP[gdt])
    y, rstd = fn(x=x, gamma=g, epsilon=1e-5)
    eps = float(np.float32(1e-5))
    tx, tg = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(g.astype(np.float64))
    want_y = torch.nn.functional.rms_norm(tx, tuple(g.shape), weight=tg, eps=eps).numpy()
    dims = tuple(range(x.ndim - k, x.ndim))
    want_r = torch.rsqrt(tx.pow(2).mean(dim=dims, keepdim=True) + eps).numpy()
    assert rstd.shape == want_r.shape and rstd.dtype == np.float32
    assert y.shape == x.shape and y.dtype == x.dtype
    r = int(g.size)
    for got, want, dt in ((rstd, want_r, np.float32), (y, want_y, NP[xdt])):
        ulp = np.abs(np.spacing(np.abs(want).astype(dt))).astype(np.float64)  # one ULP of the output dtype
        atol = np.abs(want) * 2.0**-24 * (r / 2 + 16) + ulp
        err = np.abs(np.asarray(got, np.float64) - want)
        assert np.all(err <= atol), float(np.max(err - atol))


def test_inf_and_nan_rows_follow_the_formula(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op(OP, "Ascend910B")
    x = np.array([[1.0, np.inf, 2.0], [1.0, np.nan, 2.0], [1.0, 2.0, 2.0]], np.float32)
    y, rstd = fn(x=x, gamma=np.ones(3, np.float32))
    assert rstd[0, 0] == 0.0 and np.isnan(rstd[1, 0])  # inf row: 1 / sqrt(inf) = 0; NaN row: NaN
    np.testing.assert_allclose(rstd[2, 0], 1 / np.sqrt(3 + 1e-6), rtol=3e-7)  # mean(1, 4, 4) = 3
    assert y[0, 0] == 0.0 and np.isnan(y[0, 1]) and np.isnan(y[1]).all()


def test_a_row_whose_float32_sum_of_squares_overflows_gives_rstd_0_in_kernel_and_reference(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """Each square (1e38) and the mean fit float32, the sum of four does not (above 3.40282347e38): the
    kernel, like PyTorch's float32 reduction, gives rstd 0 and y 0; the reference gave the float64 rstd."""
    from reference.rms_norm import reference

    fn = built_op(OP, "Ascend910B")
    x = np.array([[1e19, 1e19, 1e19, 1e19], [1e19, 1e19, 1.0, 1.0]], np.float32)  # row 1: sum 2e38 fits
    gamma = np.ones(4, np.float32)
    y, rstd = fn(x=x, gamma=gamma)
    want_y, want_r = reference(x, gamma)
    assert rstd[0, 0] == 0.0 and want_r[0, 0] == 0.0
    assert np.all(y[0] == 0.0) and np.all(want_y[0] == 0.0)
    # the row that fits: rstd = 1 / sqrt(5e37) (the ones add nothing at this scale)
    np.testing.assert_allclose([rstd[1, 0], want_r[1, 0]], 1 / np.sqrt(5e37), rtol=1e-6)


MUTANTS = [
    # rstd of row l written to slot l + 1 (mod the rows of a tile): the wrong row's value
    (
        "rstd-wrong-row",
        "SetValue(static_cast<uint32_t>(l), RowOut(o, sc, attrs_));",
        "SetValue(static_cast<uint32_t>((l + 1) % tileRows_), RowOut(o, sc, attrs_));",
    ),
    # a tile's rstd values written one row early in GM (the last row's never written)
    (
        "rstd-tile-one-row-early",
        "CopyOut(o, static_cast<uint64_t>(row), outs[o], 0, rows);",
        "CopyOut(o, static_cast<uint64_t>(row > 0 ? row - 1 : row), outs[o], 0, rows);",
    ),
    # the FLOAT16 x / FLOAT gamma column instantiated with gamma's bit cleared: gamma's fp32 bytes read as fp16
    ("gamma-read-as-fp16", "KernelRmsNorm<half, 10U> op;", "KernelRmsNorm<half, 8U> op;"),
]


@pytest.mark.parametrize(("ident", "old", "new"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_mutant_is_killed_by_opgen_check(tmp_path: Path, ident: str, old: str, new: str) -> None:
    tree = tmp_path / "generated"
    folder = SPECS[OP].folder
    shutil.copytree(project_paths().generated / folder, tree / folder)
    path = tree / folder / "op_kernel" / "rms_norm.cpp"
    text = path.read_text()
    assert text.count(old) == 1, f"{ident}: anchor found {text.count(old)} times"
    path.write_text(text.replace(old, new))
    # `opgen check OP --quick --product Ascend910B --dtype FLOAT16 --generated tree`, the kernel at -O0 for the
    # keys the unmutated op launches (tests/generated_mutant.py)
    results = kernel_mutant_results(tree, OP, "FLOAT16", "Ascend910B")
    failed = [c for c in results if not c["passed"]]
    assert failed, ident
    if ident.startswith("rstd"):  # a value mismatch of rstdOut, or the emulator's fault on the slot never written
        assert any("rstdOut" in c["message"] or "kernel fault" in c["message"] for c in failed), failed[:3]
    else:  # the column of the FLOAT gamma (the untagged cases of x FLOAT16) fails, the FLOAT16 one does not
        assert any("gamma FLOAT16" not in c["name"] for c in failed), [c["name"] for c in failed]
        assert not any("gamma FLOAT16, yOut" in c["name"] for c in failed), [c["name"] for c in failed]


def test_dtype_of_a_column_outside_the_family_rule_is_refused() -> None:
    bad = SPEC.dtype_combos[0]  # x FLOAT16: gamma BF16 is neither x's dtype nor FLOAT
    odd = type(bad)(tuple((n, DType.BF16 if n == "gamma" else d) for n, d in bad.dtypes), bad.products)
    spec = dataclasses.replace(SPEC, dtype_combos=(odd, *SPEC.dtype_combos[1:]))
    from codegen.spec.errors import SpecError

    with pytest.raises(SpecError, match="has the dtype of 'x' or FLOAT") as err:
        validate(spec, CATALOGUE)
    assert err.value.field == "dtype_combos[0].gamma"


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        (
            "  - {x: FLOAT, gamma: FLOAT, yOut: FLOAT, rstdOut: FLOAT}\n",
            "  - {x: FLOAT, gamma: FLOAT, yOut: FLOAT16, rstdOut: FLOAT}\n",
            "dtype_combos[3].yOut",
            "'yOut' is FLOAT16; a row-reduce tensor has the dtype of 'x' or FLOAT",
        ),
        (
            "    shape: reduced(x, rank(gamma))\n",
            "    shape: x\n",
            "outputs[1].shape",
            "output 'rstdOut' has one value per row",
        ),
    ],
)
def test_a_product_independent_fault_is_one_error_at_its_own_line(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    """Not one error per product at ``products:``: the entry's own line and field, once, and nothing written."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    shutil.copytree(project_paths().specs.parent / "reference", tmp_path / "reference")
    assert SPEC_TEXT.count(old) == 1
    text = SPEC_TEXT.replace(old, new)
    (specs / f"{OP}.yaml").write_text(text)
    line = SPEC_TEXT[: SPEC_TEXT.index(old)].count("\n") + 1
    done = _opgen("--specs", str(specs), "generate", OP, "--out", str(tmp_path / "out"))
    assert done.returncode != 0
    errors = [e for e in done.stderr.splitlines() if ".yaml:" in e]
    assert len(errors) == 1, done.stderr
    assert f"{OP}.yaml:" in errors[0] and f": {field}: " in errors[0] and message in errors[0], errors[0]
    got_line = int(errors[0].split(f"{OP}.yaml:")[1].split(":")[0])
    # the combination's own line, or the output entry's first line a few lines above its shape
    assert line - 4 <= got_line <= line, (got_line, line)
    assert not (tmp_path / "out").exists()


SPEC_TEXT = (project_paths().specs / f"{OP}.yaml").read_text()
_FIRST_COMBO = (
    "  - {x: FLOAT16, gamma: FLOAT, yOut: FLOAT16, rstdOut: FLOAT, products: [Ascend910B, Ascend910_93, Ascend950]}\n"
)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (_FIRST_COMBO, _FIRST_COMBO.replace("gamma: FLOAT,", "beta: FLOAT,"), "unknown key 'beta'"),
        (_FIRST_COMBO, _FIRST_COMBO.replace("rstdOut: FLOAT,", ""), "missing"),
        (_FIRST_COMBO, _FIRST_COMBO.replace("rstdOut: FLOAT,", "rstdOut: FLOAT16,"), "'rstdOut' does not take FLOAT16"),
        (_FIRST_COMBO, _FIRST_COMBO.replace("Ascend950]", "Ascend910]"), "'Ascend910' is not a product of the op"),
        (_FIRST_COMBO, _FIRST_COMBO * 2, "duplicate dtype combination"),
        ("shape_status: 561002\n", "shape_status: 42\n", "shape_status 42 is not an aclnnStatus error code"),
        ("shape: reduced(x, rank(gamma))", "shape: reduced(x)", "reduced"),
    ],
)
def test_a_bad_combo_or_shape_status_names_the_line_and_writes_nothing(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    assert SPEC_TEXT.count(old) == 1
    path = tmp_path / f"{OP}.yaml"
    path.write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text and f"{OP}.yaml:" in text, text
    assert list(tmp_path.iterdir()) == [path]


def test_dtype_combos_in_a_family_that_does_not_honour_them_is_a_spec_error(tmp_path: Path) -> None:
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec

    text = (project_paths().specs / "soft_margin_loss_backward.yaml").read_text()
    combo = "dtype_combos:\n  - {gradOutput: FLOAT, self: FLOAT, target: FLOAT, out: FLOAT}\n"
    path = tmp_path / "soft_margin_loss_backward.yaml"
    path.write_text(text + combo)
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert "dtype_combos is supported by the row_reduce family only, not 'elementwise'" in text, text
    assert "soft_margin_loss_backward.yaml:" in text
    assert list(tmp_path.iterdir()) == [path]


def test_explain_refuses_an_empty_gamma_as_the_api_does(built_op: Callable[[str, str], OpCallable]) -> None:
    """A last dim of 0 makes gamma empty: explain gives no tiling and names the status the call returns."""
    done = _opgen("explain", OP, "--product", "Ascend910B", "--shape", "4,0")
    assert done.returncode == 2 and "tiling key" not in done.stdout
    assert "gamma [0] would be empty" in done.stderr and "561002" in done.stderr
    with pytest.raises(AclnnError) as err:
        built_op(OP, "Ascend910B")(x=np.ones((4, 0), np.float32), gamma=np.ones(0, np.float32))
    assert err.value.status == 561002
    # an empty x with a non-empty gamma is a valid call: explain tiles it
    done = _opgen("explain", OP, "--product", "Ascend910B", "--shape", "0,4")
    assert done.returncode == 0 and "tiling key 0," in done.stdout
