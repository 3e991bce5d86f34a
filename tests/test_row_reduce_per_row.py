"""The row_reduce family's per-row inputs (``compute.per_row``) with column sums, end to end, on the test op of
``tests/data/rows_backward_op``.

``RowNormBackward`` (not a CANN API) is the layer-norm backward over the trailing dims gamma gives, from the
forward pass's saved ``mean`` and ``rstd`` (inputs of x's shape with the reduced dims set to 1, one value per
row, read as each row's scalars): ``dx`` per element, ``dgamma`` and ``dbeta`` column sums. The unmutated op
passes ``opgen check`` on Ascend910B and Ascend910 (4 queue buffers per position: the per-row inputs share one
queue; one core, no hardware SyncAll) (its cases: ``mean`` of x's shape 161002, rows over all cores
bit-identical under seven core orders, a device dtype column of FLOAT mean, rstd and column sums beside FLOAT16
x) and equals PyTorch's ``native_layer_norm_backward``; a kernel that reads every tile's per-row values from the
first rows, or converts a FLOAT per-row input as if it were FLOAT16, must fail the check. Bad ``per_row``
entries are spec errors at their line.
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

pytestmark = pytest.mark.heavy(30)  # about 20 s alone: two builds of the test op and their checks

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
    specs: Path, generated: Path, report: Path, product: str = "Ascend910B"
) -> tuple[int, list[dict[str, object]]]:
    proc = _opgen(
        specs, "check", OP, "--quick", "--product", product, "--generated", str(generated), "--json", str(report)
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
    ):
        assert want in names, sorted(names)


#: (kernel text, its mutant, a case that must fail)
MUTANTS = [
    # every tile reads the per-row values of the first rows
    (
        "inGm_[i][static_cast<uint64_t>(row)], rows);",
        "inGm_[i][0], rows);",
        "rows over all cores (gamma of 1 dim(s)) bit-identical over 7 core orders",
    ),
    # a FLOAT per-row input beside a FLOAT16 x converted as if it were FLOAT16
    (
        "Muls(f, x.template ReinterpretCast<float>(), 1.0f, static_cast<int32_t>(rows));",
        "ToFloat(f, x, static_cast<int32_t>(rows));",
        "rows of 10 [dy FLOAT16, x FLOAT16, mean FLOAT, rstd FLOAT, gamma FLOAT, dx FLOAT16, dgamma FLOAT, dbeta "
        "FLOAT] (gamma of 1 dim(s))",
    ),
]


@pytest.mark.parametrize(("old", "new", "kill"), MUTANTS, ids=["first rows", "fp32 as fp16"])
def test_a_per_row_mutant_fails_the_check(
    project: tuple[Path, Path], tmp_path: Path, old: str, new: str, kill: str
) -> None:
    specs, generated = project
    tree = tmp_path / "mutant"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / KERNEL
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    # `opgen check OP --quick --product Ascend910B --generated tree`, the kernel at -O0 for the launched keys
    cases = kernel_mutant_results(tree, OP, None, "Ascend910B", base=generated, specs_dir=specs)
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
