"""The ``rows`` form of the row_reduce family, end to end, on the test op of ``tests/data/rows_op``.

``ScaledRowNorm`` (not a CANN API) computes ``y = x * gamma / sqrt(mean(x * x) + epsilon)`` over the last
``gamma.dim()`` dims: a reduction over trailing dims flattened to one contiguous row, a second input
broadcast over the rows (indexed by the position inside the row), a double attr reaching the kernel as a
float tiling field. The unmutated op passes ``opgen check`` (Ascend910B: DataCopyPad and fp32 ReduceSum;
Ascend910: neither); each mutant planted in its generated kernel must fail it: epsilon dropped, the mean's
divisor off by one, the broadcast input indexed by the row instead of the position in the row, and the chunk
boundary off by one on the chunked path. The existing ops' generated files are unchanged by the form except
the tiling's line-byte local (tests/test_row_reduce.py covers them). Also: the planner and explain against the
generated tiling function, the GM traffic of the broadcast input from the counters, and the kernel against
PyTorch's torch.nn.functional.rms_norm (float64) as the independent oracle.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import kernel_mutant_results

from codegen.families.row_reduce.plan.buffers import buffer_bytes
from codegen.families.row_reduce.plan.tiling import tiling_decision, trailing_view_dims
from codegen.families.row_reduce.plan.tiling_report import explain_tiling
from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(60)  # about 35-55 s alone: scheduled before lighter files

OP = "scaled_row_norm"
#: its folder in the generated tree (category/kernel)
FOLDER = "norm/scaled_row_norm"
KERNEL = "op_kernel/scaled_row_norm.cpp"
DATA = Path(__file__).parent / "data" / "rows_op"
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
    root = tmp_path_factory.mktemp("rows_op")
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    gen = _opgen(root / "specs", "generate", "--out", str(root / "generated"))
    assert gen.returncode == 0, gen.stderr
    return root / "specs", root / "generated"


def test_the_planner_views_trailing_dims_as_one_row() -> None:
    assert trailing_view_dims((2, 3, 4, 8), 1) == (24, 8, 1)
    assert trailing_view_dims((2, 3, 4, 8), 2) == (6, 32, 1)
    assert trailing_view_dims((5,), 1) == (1, 5, 1)
    with pytest.raises(ValueError, match="do not fit"):
        trailing_view_dims((4, 8), 3)


def test_the_broadcast_input_costs_line_bytes_not_tile_bytes(tmp_path: Path) -> None:
    spec = load_op_spec(DATA / "specs" / f"{OP}.yaml", CATALOGUE)
    tile, line = buffer_bytes(spec, DType.FLOAT16)
    # tile: x (2 bytes + its fp32 copy) and y (2 bytes); gamma is one line (2 + 4 bytes) on top of the fp32
    # lines (a multiple of 4 bytes)
    assert tile == (2 + 4) + 2
    assert line % 4 == 2
    p = CATALOGUE.get("Ascend910B")
    d = tiling_decision(spec, p, (3, 4, 6), -1, DType.FLOAT, row_ndim=2)
    assert (d.outer, d.reduce_len, d.inner, d.mode, d.chunk_num) == (3, 24, 1, 0, 1)


def test_the_generated_op_launches_gamma_and_epsilon(project: tuple[Path, Path]) -> None:
    _, generated = project
    kernel = (generated / FOLDER / KERNEL).read_text()
    assert "constexpr bool ROW_IN[NUM_IN] = {false, true};" in kernel
    assert "constexpr bool PASS_READS_ROW_IN[NUM_PASS] = {false};" in kernel  # the mean does not read gamma
    tiling = (generated / FOLDER / "op_host/scaled_row_norm_tiling.cpp").read_text()
    assert "GetAttrPointer<float>(0)" in tiling and "GetInputShape(1)" in tiling
    l0 = (generated / FOLDER / "op_api/aclnn_scaled_row_norm.cpp").read_text()
    assert "l0op::ScaledRowNorm(xContiguous, gammaContiguous, static_cast<float>(epsilon)," in " ".join(l0.split())


@pytest.mark.parametrize("product", ["Ascend910B", "Ascend910"])
def test_unmutated_op_passes_opgen_check(project: tuple[Path, Path], tmp_path: Path, product: str) -> None:
    specs, generated = project
    report = tmp_path / "check.json"
    proc = _opgen(
        specs, "check", OP, "--quick", "--product", product, "--generated", str(generated), "--json", str(report)
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    cases = json.loads(report.read_text())["cases"]
    names = " | ".join(c["name"] for c in cases)
    for expected in ("R = 1", "one above the UB limit (chunked)", "row of 2 dims", "float attrs 0.5", "inf and NaN"):
        assert expected in names
    status = {c["name"]: c["status"] for c in cases}
    assert status["gamma not the last dim's shape -> 161002"] == 161002
    assert status["gamma of rank above x's -> 161002"] == 161002
    assert status["gamma empty -> 161002"] == 161002
    assert status["null gamma -> 161001"] == 161001


@dataclass(frozen=True)
class RowsMutant:
    """A fault on the rows path: ``old`` -> ``new`` (``old`` occurs once in the kernel); ``kill``: a case
    name part some failed case must show."""

    ident: str
    old: str
    new: str
    kill: str


_CHUNK_N = "const int32_t n = static_cast<int32_t>((r_ - start < chunkLen_) ? (r_ - start) : chunkLen_);"
_PASS_LOAD = "\n        Load(base + start, 0, 1, n);\n        if (PASS_READS_ROW_IN"

ROWS_MUTANTS = (
    RowsMutant(
        "epsilon-dropped", "Adds(tmp[2], reds[0], attrs[0], n);", "Adds(tmp[2], reds[0], 0.0f, n);", "float attrs"
    ),
    RowsMutant(
        "mean-divisor-off-by-one",
        "Muls(acc_[k][slot], acc_[k][slot], 1.0f / static_cast<float>(r_), n);",
        "Muls(acc_[k][slot], acc_[k][slot], 1.0f / static_cast<float>(r_ + 1), n);",
        "R = 1",
    ),
    RowsMutant(
        "gamma-indexed-by-row",
        "ins[i] = IsFloat(i) ? held_[i].template ReinterpretCast<float>() : inF_[i].template Get<float>();\n",
        "ins[i] = (IsFloat(i) ? held_[i].template ReinterpretCast<float>() : inF_[i].template Get<float>())"
        "[static_cast<uint32_t>(l * stride_)];\n",
        "rows over all cores",  # the case whose tiles hold several rows
    ),
    RowsMutant(
        "chunk-boundary-off-by-one",
        _CHUNK_N + _PASS_LOAD,
        _CHUNK_N.replace(": chunkLen_);", ": chunkLen_ - 1);") + _PASS_LOAD,
        "chunked",
    ),
)


@pytest.mark.parametrize("mutant", ROWS_MUTANTS, ids=lambda m: m.ident)
def test_rows_path_mutant_is_killed(project: tuple[Path, Path], tmp_path: Path, mutant: RowsMutant) -> None:
    specs, generated = project
    tree = tmp_path / "generated"
    shutil.copytree(generated / FOLDER, tree / FOLDER)
    path = tree / FOLDER / KERNEL
    text = path.read_text()
    assert text.count(mutant.old) == 1, f"{mutant.ident}: anchor found {text.count(mutant.old)} times"
    path.write_text(text.replace(mutant.old, mutant.new))
    # `opgen check OP --quick --product Ascend910B --dtype FLOAT --generated tree` with the kernel at -O0 for the
    # keys the unmutated op launches (tests/generated_mutant.py)
    results = kernel_mutant_results(tree, OP, "FLOAT", "Ascend910B", base=generated, specs_dir=specs)
    failed = [c for c in results if not c["passed"]]
    assert failed, f"{mutant.ident} SURVIVED"
    names = " | ".join(c["name"] + " " + c["message"][:200] for c in failed)
    assert mutant.kill in names, names[:3000]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  rows: gamma\n", "  rows: gamma\n  dim: epsilon\n", "give exactly one of 'dim'"),
        ("  rows: gamma\n", "", "give exactly one of 'dim'"),
        ("  rows: gamma\n", "  rows: x\n", "'x' is not an input after the first"),
        ("  rows: gamma\n", "  rows: beta\n", "'beta' is not an input after the first"),
        (
            "    description: The scale, of the shape of the last dims of x.\n",
            "    description: The scale, of the shape of the last dims of x.\n    optional: true\n",
            "inputs[1].optional: input 'gamma' is optional; in the row_reduce family only an input broadcast over "
            "the rows after the first",
        ),
    ],
)
def test_a_bad_rows_entry_names_the_line_and_writes_nothing(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert SPEC_TEXT.count(old) == 1
    path = tmp_path / f"{OP}.yaml"
    path.write_text(SPEC_TEXT.replace(old, new))
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, CATALOGUE)
    text = str(err.value)
    assert message in text and f"{OP}.yaml:" in text, text
    assert list(tmp_path.iterdir()) == [path]


def test_reference_of_the_test_op_is_exact_on_hand_values() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("scaled_row_norm_ref", DATA / "reference" / f"{OP}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # rows [3, 4]: mean 12.5 (epsilon 0.5 -> 13); gamma [1, 2]
    got = module.reference(np.array([[3.0, 4.0]]), np.array([1.0, 2.0]), 0.5)
    np.testing.assert_allclose(got, [[3 / np.sqrt(13.0), 8 / np.sqrt(13.0)]], rtol=1e-15)


@pytest.fixture(scope="module")
def built(project: tuple[Path, Path]) -> OpCallable:
    """The test op built for Ascend910B from the module's generated tree."""
    specs, generated = project
    return compile_op(OP, "Ascend910B", generated=generated, specs_dir=specs)


#: (x shape, gamma dims): rows that fit, a chunked row, a row of 2 dims, rank 1.
TILING_SHAPES = [((96, 1000), 1), ((2, 70000), 1), ((3, 4, 6), 2), ((5,), 1)]


@pytest.mark.parametrize(("shape", "k"), TILING_SHAPES)
def test_explain_and_the_planner_equal_the_generated_tiling(built: OpCallable, shape: tuple[int, ...], k: int) -> None:
    spec, product = built.spec, CATALOGUE.get("Ascend910B")
    tensor = {"shape": list(shape), "dtype": "FLOAT"}
    request = {
        "inputs": [tensor, {"shape": list(shape[len(shape) - k :]), "dtype": "FLOAT"}],
        "outputs": [tensor],
        "attrs": {"epsilon": 0.25},
    }
    got = built.run_tiling(request)
    assert got.get("status") == 0, got
    d = tiling_decision(spec, product, shape, -1, DType.FLOAT, row_ndim=k)
    tiling = got["tiling"]
    for name, value in d.tiling_fields().items():
        assert int(tiling[name]) == value, name
    assert float(tiling["attr0"]) == 0.25
    assert (got["block_dim"], got["tiling_key"]) == (d.block_dim, d.tiling_key)
    if k == 1:  # explain reduces over the last dim: its numbers are the planner's (and so the tiling's)
        text = explain_tiling(spec, product, shape, "FLOAT")
        assert f"rows per tile: {d.tile_rows}; chunks per row: {d.chunk_num} of {d.chunk_len} elements" in text
        assert f"cores: {d.block_dim} of {product.vector_core_num}" in text


def _data_bytes_read(fn: OpCallable) -> int:
    launch = fn.last_stats["launches"][0]
    return sum(int(c["gm_bytes_read"]) - int(launch["tiling_data_size"]) for c in launch["cores"])


def test_traffic_gamma_once_per_core_when_rows_fit_and_once_per_row_when_chunked(built: OpCallable) -> None:
    # rows fit: x read once, gamma once by every core used; chunked: x twice (the mean pass and the output
    # pass), gamma once per row (only the output pass reads it)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((96, 1000)).astype(np.float32)
    g = rng.standard_normal(1000).astype(np.float32)
    built(x=x, gamma=g)
    cores = built.last_stats["launches"][0]["block_dim"]
    assert _data_bytes_read(built) == x.nbytes + cores * g.nbytes
    x = rng.standard_normal((2, 70000)).astype(np.float32)
    g = rng.standard_normal(70000).astype(np.float32)
    built(x=x, gamma=g)
    assert int(built.last_stats["launches"][0]["tiling"]["chunkNum"]) > 1
    assert _data_bytes_read(built) == 2 * x.nbytes + x.shape[0] * g.nbytes


#: (name, x shape, gamma dims, scale)
ORACLE_CASES = [
    ("R = 1", (6, 1), 1, 2.0),
    ("rows", (7, 33), 1, 2.0),
    ("row of 2 dims", (3, 4, 6), 2, 2.0),
    ("multi-chunk row", (2, 70000), 1, 3.0),
    ("large dynamic range", (6, 64), 1, 1e15),
]


@pytest.mark.parametrize(("name", "shape", "k", "scale"), ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_kernel_matches_pytorch_rms_norm(
    built: OpCallable, name: str, shape: tuple[int, ...], k: int, scale: float
) -> None:
    """The kernel's y (fp32) against torch.nn.functional.rms_norm in float64 (torch as the independent
    oracle), within the test reference's tolerance() plus one fp32 ULP; fp32 accumulation must hold at
    1e15 (squares near 1e30, far from fp16/bf16 range) and over 70000 terms."""
    torch = pytest.importorskip(
        "torch", reason="PyTorch (the test's oracle) is not installed: pip install -e '.[test]'"
    )
    rng = np.random.default_rng(len(name))
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    g = rng.standard_normal(shape[len(shape) - k :]).astype(np.float32)
    got = np.asarray(built(x=x, gamma=g, epsilon=1e-5), dtype=np.float64)
    eps = float(np.float32(1e-5))
    want = torch.nn.functional.rms_norm(
        torch.from_numpy(x.astype(np.float64)), tuple(g.shape), weight=torch.from_numpy(g.astype(np.float64)), eps=eps
    ).numpy()
    r = int(g.size)
    atol = np.abs(want) * 2.0**-24 * (r / 2 + 16) + np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got - want) <= atol), float(np.max(np.abs(got - want) - atol))
