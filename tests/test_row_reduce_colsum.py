"""The row_reduce family's column sums (``colsum``), end to end, on the test op of ``tests/data/rows_colsum_op``.

``RowNormColumnGrad`` (not a CANN API) computes ``y = (x - mean) / sqrt(var + epsilon) * gamma`` over the
trailing dims gamma gives and two column sums of gamma's shape: ``gammaGrad = colsum(dy * (x - mean) /
sqrt(var + epsilon))`` and ``betaGrad = colsum(dy)`` (the layer-norm weight and bias gradients; betaGrad
nullable). Each core
adds its rows into an fp32 partial, writes it to its slot of the user workspace, SyncAll, then core 0 adds
the partials in core order. The unmutated op passes ``opgen check`` on Ascend910B (many cores; its cases run
one call under seven core orders and require bit-identical outputs) and on Ascend910 (no hardware SyncAll:
one core); a kernel whose combine reads the partials without the SyncAll must fail it. Bad ``colsum`` steps
are spec errors at their line.
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

from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(30)  # about 20 s alone: two builds of the test op and their checks

OP = "row_norm_column_grad"
FOLDER = "norm/row_norm_column_grad"
KERNEL = "op_kernel/row_norm_column_grad.cpp"
DATA = Path(__file__).parent / "data" / "rows_colsum_op"
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
    root = tmp_path_factory.mktemp("rows_colsum_op")
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


def _check(specs: Path, generated: Path, report: Path, product: str) -> tuple[int, list[dict[str, object]]]:
    proc = _opgen(
        specs, "check", OP, "--quick", "--product", product, "--generated", str(generated), "--json", str(report)
    )
    return proc.returncode, json.loads(report.read_text())["cases"]


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_the_column_sums_pass_the_check_bit_identical_over_core_orders(
    project: tuple[Path, Path], tmp_path: Path, product: str
) -> None:
    specs, generated = project
    code, cases = _check(specs, generated, tmp_path / "check.json", product)
    assert code == 0, [c for c in cases if not c["passed"]][:3]
    names = {str(c["name"]) for c in cases if c["passed"]}
    for want in (
        "rows over all cores (gamma of 1 dim(s)) bit-identical over 7 core orders",
        "R far above UB (multi-chunk) (gamma of 1 dim(s))",  # partials accumulated in the workspace
        "empty outer (gamma of 1 dim(s))",  # no row: the column sums are zeros
        "gammaGrad of x's shape -> 161002",
        "null betaGrad: rows of 33",  # a nullable column sum passed as null: combined, never written
    ):
        assert want in names, sorted(names)


def test_a_combine_without_the_syncall_fails_the_check(project: tuple[Path, Path], tmp_path: Path) -> None:
    specs, generated = project
    tree = tmp_path / "mutant"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / KERNEL
    text = path.read_text()
    old = "\n    SyncAll();"
    assert text.count(old) == 1
    path.write_text(text.replace(old, "\n    // SyncAll();"))
    # `opgen check OP --quick --product Ascend910B --generated tree`, the kernel at -O0 for the launched keys
    cases = kernel_mutant_results(tree, OP, None, "Ascend910B", base=generated, specs_dir=specs)
    failed = [str(c["name"]) for c in cases if not c["passed"]]
    assert "rows over all cores (gamma of 1 dim(s)) bit-identical over 7 core orders" in failed, failed


def test_the_sums_equal_float64_sums_under_every_core_order(built: OpCallable) -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal((300, 40)).astype(np.float32)
    dy = rng.standard_normal((300, 40)).astype(np.float32)
    gamma = rng.standard_normal(40).astype(np.float32)
    xd = x.astype(np.float64)
    xhat = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + float(np.float32(1e-5)))
    results = []
    for order in ("in_order", "reversed", "shuffle", "concurrent"):
        y, gg, bg = built(x=x, dy=dy, gamma=gamma, epsilon=1e-5, core_order=order, seed=3)
        results.append((y.tobytes(), gg.tobytes(), bg.tobytes()))
        np.testing.assert_allclose(gg, (dy * xhat).sum(0), rtol=0, atol=2e-4)
        np.testing.assert_allclose(bg, dy.astype(np.float64).sum(0), rtol=0, atol=2e-4)
    assert built.last_stats["launches"][0]["block_dim"] > 1
    assert len(set(results)) == 1  # bit-identical whatever order the cores ran in


@pytest.mark.parametrize(("shape", "product"), [((300, 40), "Ascend910B"), ((2, 70000), "Ascend910B")])
def test_the_workspace_holds_a_partial_per_core_and_column_sum(
    built: OpCallable, shape: tuple[int, ...], product: str
) -> None:
    spec, p = built.spec, CATALOGUE.get(product)
    tensor = {"shape": list(shape), "dtype": "FLOAT"}
    row = {"shape": [shape[-1]], "dtype": "FLOAT"}
    request = {"inputs": [tensor, tensor, row], "outputs": [tensor, row, row], "attrs": {"epsilon": 0.5}}
    got = built.run_tiling(request)
    assert got.get("status") == 0, got
    d = tiling_decision(spec, p, shape, -1, DType.FLOAT, row_ndim=1)
    assert got["block_dim"] == d.block_dim == min(shape[0], p.vector_core_num)
    # two column sums, each partial R rounded up to 16 fp32 elements, after the system workspace
    want = p.sys_workspace_bytes + d.block_dim * 2 * (-(-shape[-1] // 16) * 16) * 4
    assert got["workspace_sizes"] == [d.workspace_bytes] == [want]


def test_one_core_without_hardware_syncall() -> None:
    spec = load_op_spec(DATA / "specs" / f"{OP}.yaml", CATALOGUE)
    p = CATALOGUE.get("Ascend910")
    assert not p.hw_sync_all
    d = tiling_decision(spec, p, (300, 40), -1, DType.FLOAT, row_ndim=1)
    assert d.block_dim == 1 and d.workspace_bytes == p.sys_workspace_bytes + 2 * 48 * 4


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    - betaGrad: colsum(dy)\n", "    - betaGrad: dy + colsum(dy)\n", "colsum() may only be the whole formula"),
        ("    - betaGrad: colsum(dy)\n", "    - betaGrad: colsum(m)\n", "this one reads no input"),
        ("    - betaGrad: colsum(dy)\n", "    - betaGrad: colsum(dy, x)\n", "colsum() takes one argument, got 2"),
        (
            "    - m: mean(x)\n",
            "    - m: mean(x)\n    - s: colsum(dy)\n",
            "colsum() gives an output (one value per element of the row); 's' is not an output",
        ),
        (
            "    - betaGrad: colsum(dy)\n",
            "    - betaGrad: colsum(dy)\n    - z: betaGrad * 2\n",
            "'betaGrad' is a colsum() output",
        ),
    ],
)
def test_a_bad_colsum_step_names_the_line_and_writes_nothing(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert SPEC_TEXT.count(old) == 1
    path = tmp_path / f"{OP}.yaml"
    path.write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text and f"{OP}.yaml:" in text, text
    assert list(tmp_path.iterdir()) == [path]


def test_a_column_sum_of_another_shape_is_refused_at_generate(tmp_path: Path) -> None:
    old = "    shape: gamma\n    description: The sum over the rows of dy,"
    assert SPEC_TEXT.count(old) == 1
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / f"{OP}.yaml").write_text(SPEC_TEXT.replace(old, old.replace("gamma", "x")))
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    proc = _opgen(specs, "generate", "--out", str(tmp_path / "generated"))
    assert proc.returncode != 0
    line = SPEC_TEXT[: SPEC_TEXT.index("  - name: betaGrad\n")].count("\n") + 1  # the output's entry
    assert f"{OP}.yaml:{line}: outputs[2].shape: output 'betaGrad' has the shape of the reduced dims" in proc.stderr
    assert "nothing was written" in proc.stderr and not (tmp_path / "generated").exists()


def test_explain_names_the_column_partials_and_their_workspace() -> None:
    from codegen.families.row_reduce.plan.tiling_report import explain_tiling

    spec = load_op_spec(DATA / "specs" / f"{OP}.yaml", CATALOGUE)
    text = explain_tiling(spec, CATALOGUE.get("Ascend910B"), (4096, 1024), "FLOAT")
    # 48 cores x 2 column sums x 1024 fp32 elements = 393216 bytes after the 16 MiB system workspace
    assert "workspace 17170432 bytes (system 16777216, then 393216 of fp32 column partials" in text, text
    assert "column sums (gammaGrad, betaGrad): each core's fp32 partials in UB; SyncAll, then core 0" in text
    text = explain_tiling(spec, CATALOGUE.get("Ascend910"), (2, 70000), "FLOAT")
    assert "blockDim 1 of 32" in text and "in its workspace slot, chunk by chunk; one core (no SyncAll)" in text


def test_the_generated_code_uses_only_recorded_cann_names(
    project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the project tree's check (tests/test_declarations.py) does not see the test op: its column-sum code (the
    # workspace events, SyncAll) must use only names the declarations table records from public sources
    import re

    from tests import test_declarations as decl

    _, generated = project
    monkeypatch.setattr(decl, "GENERATED", generated)
    table = {re.split(r"[ (]", e["name"])[0].split("::")[-1] for e in decl._entries()}
    used = decl._used_api_names()
    assert {"SyncAll", "GetUserWorkspace", "V_MTE2", "MTE3_MTE2", "AppendDim"} <= set(used)
    assert not {n: sorted(f) for n, f in used.items() if n not in table}
