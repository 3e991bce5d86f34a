"""The row_reduce family's per-row inputs (``compute.per_row``) with column sums, end to end, on the test op of
``tests/data/rows_backward_op``.

``RowNormBackward`` (not a CANN API) is the layer-norm backward over the trailing dims gamma gives, from the
forward pass's saved ``mean`` and ``rstd`` (inputs of x's shape with the reduced dims set to 1, one value per
row, read as each row's scalars): ``dx`` per element, ``dgamma`` and ``dbeta`` column sums. The unmutated op
passes ``opgen check`` on Ascend910B and Ascend910 (4 queue buffers per position: the per-row inputs share one
queue; one core, no hardware SyncAll) (its cases: ``mean`` of x's shape 161002, rows over all cores
bit-identical under seven core orders, device dtype columns of FLOAT mean, rstd and column sums beside FLOAT16
x, a FLOAT16 mean and rstd the L2 API casts to the FLOAT of every column, an output twin of FLOAT16 dgamma and
dbeta that the L2 API serves with its earlier FLOAT column and a cast) and equals PyTorch's
``native_layer_norm_backward``; outputMask (``compute.output_mask``) gates the outputs: each set of them left out
(null, or given and left untouched), a null output the mask asks for 161001. A kernel that reads every tile's
per-row values from the first rows, or converts a FLOAT per-row input as if it were FLOAT16, an L0 API allocating
the twin's outputs, an L2 API launching a FLOAT16 mean uncast or ignoring outputMask for dgamma, and an L2 API and
tiling that both ignore a false entry, must fail the check.
Bad ``per_row`` entries are spec errors at their line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(40)  # about 30 s alone: the builds of the test op and its mutants, their checks

OP = "row_norm_backward"
FOLDER = "norm/row_norm_backward"
KERNEL = "op_kernel/row_norm_backward.cpp"
DATA = Path(__file__).parent / "data" / "rows_backward_op"
SPEC_TEXT = (DATA / "specs" / f"{OP}.yaml").read_text()
CATALOGUE, _ = load_project()


def _opgen(specs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(specs), *args],
        env={**os.environ},
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(specs dir, generated dir) of the test op."""
    root = tmp_path_factory.mktemp("rows_backward_op")
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    gen = _opgen(root / "specs", "generate", "--out", str(root / "generated"))
    assert gen.returncode == 0, gen.stderr
    return root / "specs", root / "generated"


@pytest.fixture(scope="module")
def built(project: tuple[Path, Path]) -> OpCallable:
    specs, generated = project
    return compile_op(OP, "Ascend910B", generated=generated, specs_dir=specs)


def _check(
    specs: Path, generated: Path, report: Path, product: str = "Ascend910B", case: str = ""
) -> tuple[int, list[dict[str, object]]]:
    only = ("--case", case) if case else ()
    proc = _opgen(
        specs, "check", OP, "--quick", "--product", product, "--generated", str(generated), "--json", str(report), *only
    )
    return proc.returncode, json.loads(report.read_text())["cases"]


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_per_row_inputs_pass_the_check(project: tuple[Path, Path], tmp_path: Path, product: str) -> None:
    specs, generated = project
    kernel = (generated / FOLDER / KERNEL).read_text()
    assert "constexpr bool PER_ROW_IN[NUM_IN] = {false, false, true, true, false};" in kernel
    # Ascend910 holds 4 queue buffers per position: dy, x, gamma and the one queue mean and rstd share
    assert (
        "constexpr int64_t ROW_IN_QUEUES = 2;"
        in (generated / FOLDER / "op_host/row_norm_backward_tiling.cpp").read_text()
    )
    # the output twin has a tiling key of its own; the L0 API allocates its earlier column's FLOAT dgamma
    tiling = (generated / FOLDER / "op_host/row_norm_backward_tiling.cpp").read_text()
    assert tiling.count("// dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma") == 3
    l0 = (generated / FOLDER / "op_api/row_norm_backward.cpp").read_text()
    assert l0.count("pd_gammaResultDtype = op::DataType::DT_FLOAT;") == 2 and "DT_FLOAT16;" not in l0
    # beta (device.host_inputs) is checked by the L2 API only: the L0 API and the device op never take it
    assert "L0_DFX(RowNormBackward, dy, x, mean, rstd, gamma);" in l0
    code, cases = _check(specs, generated, tmp_path / "check.json", product)
    assert code == 0, [c for c in cases if not c["passed"]][:3]
    names = {str(c["name"]) for c in cases if c["passed"]}
    mixed = "[dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma FLOAT, dx FLOAT16, dgamma FLOAT, dbeta FLOAT]"
    for want in (
        "mean of x's shape -> 161002",
        "rows over all cores (gamma of 1 dim(s)) bit-identical over 7 core orders",
        "R far above UB (multi-chunk) (gamma of 1 dim(s))",
        "a second, partial row tile on some cores (gamma of 1 dim(s))",
        f"rows of 10 {mixed} (gamma of 1 dim(s))",  # FLOAT mean, rstd and column sums beside FLOAT16 x
        f"rows of 10 {CAST} (gamma of 1 dim(s))",  # FLOAT16 mean and rstd, cast to FLOAT by the L2 API
        f"rows of 10 {TWIN} (gamma of 1 dim(s))",  # the twin's dtypes: its earlier column runs, then a cast
        "null dx, dbeta (outputMask false for it): rows of 33",  # outputMask [false, true, false]
        "null dx, dgamma, dbeta (outputMask false for it): rows of 33",  # nothing asked: nothing launched
        "outputMask false for dgamma, given: rows of 33",  # a given dgamma the mask leaves out stays as it was
        "null dgamma with its outputMask entry true -> 161001",
        # the host input beta: accepted in its dtypes (the outputs as without it), its shape and dtype checked
        "beta FLOAT given",
        "beta FLOAT16 given",
        "beta of shape [8] -> 161002",
        "beta INT32 -> 161002",
    ):
        assert want in names, sorted(names)
    # FLOAT16 is cast, not refused; BF16 (on a product that has it) is outside mean's dtypes
    assert "mean FLOAT16 with dy FLOAT -> 161002" not in names
    assert ("mean BF16 with dy FLOAT -> 161002" in names) is (product == "Ascend910B")


#: a call whose FLOAT16 mean and rstd the L2 API casts to the FLOAT every device column registers
CAST = "[dy FLOAT16, x FLOAT16, mean FLOAT16, rstd FLOAT16, gamma FLOAT, dx FLOAT16, dgamma FLOAT, dbeta FLOAT]"
#: the column of FLOAT16 gamma with FLOAT dgamma and dbeta, and its output twin of FLOAT16 ones
HALF_GAMMA = "[dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma FLOAT16, dx FLOAT16, dgamma FLOAT, dbeta FLOAT]"
TWIN = "[dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma FLOAT16, dx FLOAT16, dgamma FLOAT16, dbeta FLOAT16]"

#: (generated file, its text, the mutant, a case that must fail)
MUTANTS = [
    # every tile reads the per-row values of the first rows
    (
        KERNEL,
        "inGm_[i][static_cast<uint64_t>(row)], rows);",
        "inGm_[i][0], rows);",
        "rows over all cores (gamma of 1 dim(s)) bit-identical over 7 core orders",
    ),
    # a FLOAT per-row input beside a FLOAT16 x converted as if it were FLOAT16
    (
        KERNEL,
        "Muls(f, x.template ReinterpretCast<float>(), 1.0f, static_cast<int32_t>(rows));",
        "ToFloat(f, x, static_cast<int32_t>(rows));",
        "rows of 10 [dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma FLOAT, dx FLOAT16, dgamma FLOAT, dbeta "
        "FLOAT] (gamma of 1 dim(s))",
    ),
    # the L0 API allocates the output twin's FLOAT16 dgamma and dbeta (InferDataType gives FLOAT)
    (
        "op_api/row_norm_backward.cpp",
        "    pd_gammaResultDtype = op::DataType::DT_FLOAT;\n    pd_betaResultDtype = op::DataType::DT_FLOAT;\n  }\n"
        "  // dx passed",
        "    pd_gammaResultDtype = op::DataType::DT_FLOAT16;\n    pd_betaResultDtype = op::DataType::DT_FLOAT16;\n  }\n"
        "  // dx passed",
        f"rows of 10 {HALF_GAMMA} (gamma of 1 dim(s))",
    ),
    # the L2 API launches a FLOAT16 mean as it is, where every device column registers FLOAT
    (
        "op_api/aclnn_row_norm_backward.cpp",
        "auto meanCasted = l0op::Cast(meanContiguous, op::DataType::DT_FLOAT, uniqueExecutor.get());",
        "auto meanCasted = meanContiguous;",
        f"rows of 10 {CAST} (gamma of 1 dim(s))",
    ),
]


#: the L2 API's outputMask handling of dgamma (a true entry: dgamma must be given; false: as if null)
DGAMMA_MASK = """    if ((*outputMask)[1]) {
      OP_CHECK_NULL(dgamma, return ACLNN_ERR_PARAM_NULLPTR);
    } else {
      dgamma = nullptr;
    }
"""
#: the tiling's clearing of dgamma's writeMask bit for a false outputMask entry
DGAMMA_TILING_MASK = """  if (!outputMask->GetData()[1]) {
    writeMask &= ~(int64_t{1} << 1);  // dgamma
  }
"""
L2 = "op_api/aclnn_row_norm_backward.cpp"
TILING = "op_host/row_norm_backward_tiling.cpp"

#: (edits: (generated file, its text, the mutant), a case that must fail)
MASK_MUTANTS = [
    # the L2 API ignores outputMask for dgamma: a null dgamma its entry asks for is accepted
    ([(L2, DGAMMA_MASK, "")], "null dgamma with its outputMask entry true -> 161001"),
    # the L2 API passes a given dgamma its entry leaves out to the device op, and the tiling ignores the entry
    # too (each alone is covered by the other: the kernel writes nothing either way)
    (
        [(L2, "      dgamma = nullptr;\n", "      (void)dgamma;\n"), (TILING, DGAMMA_TILING_MASK, "")],
        "outputMask false for dgamma, given: rows of 33",
    ),
    # the L2 API does not check the host input beta's shape (the device op never reads it)
    (
        # (the check's body stays a statement: an empty one is a -Wempty-body build failure, not the kill)
        [(L2, "    OP_CHECK_SHAPE_NOT_EQUAL(beta, gamma, return ACLNN_ERR_PARAM_INVALID);\n", "    (void)beta;\n")],
        "beta of shape [8] -> 161002",
    ),
]


@pytest.mark.parametrize(
    ("edits", "kill"),
    [*(([(f, o, n)], k) for f, o, n, k in MUTANTS), *MASK_MUTANTS],
    ids=["first rows", "fp32 as fp16", "twin launched", "mean uncast", "mask ignored", "mask written", "beta shape"],
)
def test_a_per_row_mutant_fails_the_check(
    project: tuple[Path, Path], tmp_path: Path, edits: list[tuple[str, str, str]], kill: str
) -> None:
    specs, generated = project
    tree = tmp_path / "mutant"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    for file, old, new in edits:
        path = tree / FOLDER / file
        text = path.read_text()
        assert text.count(old) == 1, (file, old)
        path.write_text(text.replace(old, new))
    if all(file == KERNEL for file, _, _ in edits):
        # `opgen check OP --quick --product Ascend910B --generated tree`, the kernel at -O0 for the launched keys
        cases = kernel_mutant_results(tree, OP, None, "Ascend910B", base=generated, specs_dir=specs)
    else:
        # only the cases of the kill's name (its text before the dtypes or the rows' dims): the build dominates
        code, cases = _check(specs, tree, tmp_path / "mutant.json", case=f"*/{kill.split(' [')[0].split(' (')[0]}*")
        assert code == 1
    failed = [str(c["name"]) for c in cases if not c["passed"]]
    assert kill in failed, failed


#: (name, x shape, gamma dims)
ORACLE_CASES = [("rows", (7, 33), 1), ("row of 2 dims", (5, 4, 6), 2), ("rows over all cores", (150, 40), 1)]


@pytest.mark.parametrize(("name", "shape", "k"), ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_kernel_matches_pytorch_native_layer_norm_backward(
    built: OpCallable, name: str, shape: tuple[int, ...], k: int
) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    gamma = rng.standard_normal(shape[len(shape) - k :]).astype(np.float32)
    xt, gt, bt = torch.from_numpy(x), torch.from_numpy(gamma), torch.zeros(gamma.shape)
    # the forward's saved statistics, as PyTorch computes them
    _, mean_t, rstd_t = torch.ops.aten.native_layer_norm(xt, list(gamma.shape), gt, bt, 1e-5)
    mean, rstd = mean_t.numpy(), rstd_t.numpy()
    want = torch.ops.aten.native_layer_norm_backward(
        torch.from_numpy(dy), xt, list(gamma.shape), mean_t, rstd_t, gt, bt, [True, True, True]
    )
    dx, dgamma, dbeta = built(dy=dy, x=x, mean=mean, rstd=rstd, gamma=gamma)
    # outputMask as PyTorch's output_mask: the outputs it leaves out are not produced
    masked = built(dy=dy, x=x, mean=mean, rstd=rstd, gamma=gamma, outputMask=(False, True, False), dx=None, dbeta=None)
    assert masked[0] is None and masked[2] is None
    np.testing.assert_array_equal(masked[1], dgamma)
    rows = int(np.prod(shape[: len(shape) - k]))
    np.testing.assert_allclose(dx, want[0].numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dgamma, want[1].numpy(), rtol=1e-4, atol=1e-5 * rows)
    np.testing.assert_allclose(dbeta, want[2].numpy(), rtol=1e-4, atol=1e-5 * rows)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  per_row: [mean, rstd]\n", "  per_row: [mean, gamma]\n", "'gamma' is not an input after the first outside"),
        ("  per_row: [mean, rstd]\n", "  per_row: [dy]\n", "'dy' is not an input after the first outside rows"),
        ("  per_row: [mean, rstd]\n", "  per_row: [mean, mean]\n", "'mean' is named twice in per_row"),
        ("  rows: gamma\n", "  dim: dy\n", "per_row needs the rows form"),
        ("  output_mask: outputMask\n", "  output_mask: dy\n", "'dy' is not a bool_array attr; output_mask names"),
        ("    length: 3\n", "    length: [1, 3]\n", "output_mask 'outputMask' must have the fixed length 3"),
        (
            "    shape: gamma\n    description: The gradient of the shift",
            "    shape: gamma\n    nullable: true\n    description: The gradient of the shift",
            "output_mask makes every output nullable (null when its entry is false); drop nullable from dbeta",
        ),
        (
            "type: list_bool, default: [true, true, true]}",
            "type: list_bool, default: [true, 1]}",
            "each element of a list_bool default must be true or false, got 1",
        ),
        # mean and rstd are cast to FLOAT (no FLOAT16 column of them is needed), but dx is not
        (
            "pd_x: FLOAT16, pd_gamma: FLOAT16,",
            "pd_x: FLOAT, pd_gamma: FLOAT16,",
            "dtype_columns must hold the one-dtype column (every tensor of that dtype, no attr set, on every product "
            "of the op) of each dtype of 'dy': the L2 API launches it when the aclnn tensors' dtypes match no column; "
            "missing: FLOAT16",
        ),
        # an output twin needs an earlier column of its input dtypes, and the mark
        (
            "gamma: FLOAT, pd_x: FLOAT16, pd_gamma: FLOAT, pd_beta: FLOAT}",
            "gamma: FLOAT, pd_x: FLOAT16, pd_gamma: FLOAT, pd_beta: FLOAT, twin: true}",
            "twin: true marks an output twin, but no earlier column has the input dtypes and attr values of column",
        ),
        (", twin: true}", "}", "but other output dtypes; the device op's output dtypes follow from its inputs'"),
        # device.host_inputs: optional aclnn inputs only, never carried by a device input nor read by a formula
        ("  host_inputs: [beta]\n", "  host_inputs: [gamma]\n", "aclnn input 'gamma' is required: only an optional"),
        ("  host_inputs: [beta]\n", "  host_inputs: [bias]\n", "'bias' is not an aclnn input; allowed: beta"),
        ("  host_inputs: [beta]\n", "  host_inputs: [beta, beta]\n", "'beta' is listed twice"),
        ("  host_inputs: [beta]\n", "", "every aclnn input must be carried by one device input; missing: beta"),
        (
            "    - {name: gamma, from: gamma}\n",
            "    - {name: gamma, from: gamma}\n    - {name: beta, from: beta}\n",
            "aclnn input 'beta' is listed in host_inputs (not sent to the device)",
        ),
        (
            "    - dbeta: colsum(dy)\n",
            "    - dbeta: colsum(dy + beta)\n",
            "the compute reads beta, listed in device.host_inputs: the device op does not take it",
        ),
    ],
)
def test_a_bad_per_row_entry_names_the_line_and_writes_nothing(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert SPEC_TEXT.count(old) == 1
    path = tmp_path / f"{OP}.yaml"
    path.write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text and f"{OP}.yaml:" in text, text
    assert list(tmp_path.iterdir()) == [path]


def test_the_generated_code_uses_only_recorded_cann_names(
    project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the project tree's check (tests/test_declarations.py) does not see the test op
    import re

    from tests import test_declarations as decl

    _, generated = project
    monkeypatch.setattr(decl, "GENERATED", generated)
    table = {re.split(r"[ (]", e["name"])[0].split("::")[-1] for e in decl._entries()}
    used = decl._used_api_names()
    assert {"SyncAll", "GetShapeSize", "ReinterpretCast"} <= set(used)
    assert not {n: sorted(f) for n, f in used.items() if n not in table}
