"""The row_reduce family's centred variance: a ``sum``/``mean`` of ``(a - m) * (a - m)`` with ``m = mean(a)`` shares
``m``'s pass, so a row cut into chunks is read once for both and once more for the output (two reads in all).
The test ops of ``tests/data/row_standardize_op`` also pass ``opgen check --quick``: RowStandardize (the ``dim``
form with a float attr, of rank 1 to 8: the parameter checks take an attr they do not read, and the check plans
no 0-d case) and RowVariance (the ``rows`` form whose only output has one value per row: no tile output queue).

The op is the test op of ``tests/data/row_standardize_op`` (``RowStandardize``, not a CANN API: ``(x - m) /
sqrt(v + 1e-5)`` along ``dim``), reduced along the last dim (mode 0) and along a leading dim with inner
positions (mode 1), each with rows that fit UB and rows cut into chunks. Expected values are float64 NumPy
(the reference module's formula written again here, not read from the code under test); the chunked figures
use data whose mean is far from 0 against its spread, where a variance taken about a drifting running mean
without the shift term ``seen * (m_old - m_new)**2`` is off by orders of magnitude more than the bound.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from codegen.check.driver import cases_for
from codegen.families.row_reduce.plan.program import program
from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.paths import project_paths
from codegen.runner import OpCallable, compile_op
from codegen.spec.loader import load_op_spec
from codegen.spec.model import DType
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(20)  # one build of the test op on Ascend910B

OP = "RowStandardize"
DATA = Path(__file__).parent / "data" / "row_standardize_op"
CATALOGUE, SPECS = load_project()
PRODUCT = CATALOGUE.get("Ascend910B")


def _spec():  # type: ignore[no-untyped-def]
    return load_op_spec(DATA / "specs" / "row_standardize.yaml", CATALOGUE)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test ops' project folder: specs, reference, generated."""
    root = tmp_path_factory.mktemp("row_standardize_op")
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    gen = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(root / "specs"), "generate", "--out", str(root / "generated")],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert gen.returncode == 0, gen.stderr
    return root


@pytest.fixture(scope="module")
def built(project: Path) -> OpCallable:
    return compile_op(OP, "Ascend910B", generated=project / "generated", specs_dir=project / "specs")


def test_the_test_ops_pass_the_quick_check(project: Path) -> None:
    where = ("--specs", str(project / "specs"), "check", "RowStandardize", "RowVariance", "--quick")
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", *where, "--generated", str(project / "generated"), "-j", "2"],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert ", 0 failed" in proc.stdout


def test_no_value_case_has_a_rank_the_spec_refuses() -> None:
    """RowStandardize's self has rank 1 to 8: its value cases hold no 0-d tensor (the family plans one for a
    spec of rank 0 to 8), while the status cases still send a tensor of a refused rank (161002)."""
    cases = cases_for(_spec(), PRODUCT, None, quick=False)
    values = [c for c in cases if c.expect_status is None]
    assert values and all(c.params["self"].ndim >= 1 for c in values if isinstance(c.params.get("self"), np.ndarray))
    assert any("0-d" in c.name for c in cases_for(SPECS["softmax"], PRODUCT, None, quick=False))


def _standardize64(x: np.ndarray, dim: int) -> np.ndarray:
    v = x.astype(np.float64)
    m = v.mean(axis=dim, keepdims=True)
    return (v - m) / np.sqrt(((v - m) ** 2).mean(axis=dim, keepdims=True) + 1e-5)


def _read_bytes(fn: OpCallable) -> int:
    (launch,) = fn.last_stats["launches"]
    return sum(int(c["gm_bytes_read"]) - int(launch["tiling_data_size"]) for c in launch["cores"])


def test_the_variance_shares_the_pass_of_its_mean() -> None:
    for spec in (_spec(), SPECS["layer_norm"]):
        prog = program(spec)
        kinds = {r.name: (r.kind, r.pass_index, r.online) for r in prog.reductions}
        assert prog.pass_num == 1, spec.op
        assert kinds["m"] == ("mean", 0, -1)
        assert kinds["v"] == ("mean", 0, 0)  # centred on reduction 0, the mean


def test_a_square_of_another_argument_is_not_centred() -> None:
    """``mean((a - m) * (a - m))`` is centred on ``m`` only when ``m`` averages ``a`` itself: the shift identity
    needs the mean of the very values squared."""
    text = (DATA / "specs" / "row_standardize.yaml").read_text()
    moved = text.replace("v: mean((self - m) * (self - m))", "v: mean((self * 2 - m) * (self * 2 - m))")
    assert moved != text
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "row_standardize.yaml"
        path.write_text(moved)
        prog = program(load_op_spec(path, CATALOGUE))
    assert prog.pass_num == 2
    assert [r.online for r in prog.reductions] == [-1, -1]


@pytest.mark.parametrize(
    ("shape", "dim", "mode", "chunked"),
    [
        ((3, 1000), -1, 0, False),
        ((2, 150000), -1, 0, True),
        ((300, 48), 0, 1, False),
        ((60000, 32), 0, 1, True),
    ],
)
def test_values_and_reads_in_every_layout(
    built: OpCallable, shape: tuple[int, int], dim: int, mode: int, chunked: bool
) -> None:
    t = tiling_decision(_spec(), PRODUCT, shape, dim, DType.FLOAT)
    assert (t.mode, t.chunk_num > 1) == (mode, chunked)  # the layout the case is named for
    r = shape[dim]
    ramp = np.linspace(-1.0, 1.0, r).reshape((-1, 1) if dim == 0 else (1, -1))
    noise = np.random.default_rng(7).standard_normal(shape) * 0.01
    x = (40.0 + ramp + noise).astype(np.float32)  # each chunk's mean moves away from the running one
    got = built(self=x, dim=dim)
    want = _standardize64(x, dim)
    # 64 ulps of the mean (about 40) through rstd (below 2), and 64 ulps of the result: the kernel stays
    # below a third of it in every layout; a sum of squares not moved to the new running mean is off by
    # 0.017 to 0.024 here
    rstd = 1 / np.sqrt(((x.astype(np.float64) - x.mean(axis=dim, keepdims=True)) ** 2).mean(axis=dim) + 1e-5)
    bound = 64 * 2.0**-24 * (40.0 * float(np.max(rstd)) + np.abs(want))
    assert np.all(np.abs(got - want) <= bound), float(np.max(np.abs(got - want) / bound))
    assert _read_bytes(built) == (2 if chunked else 1) * x.nbytes


def test_a_reserve_that_leaves_no_room_is_an_error_at_the_spec_tiling(tmp_path: Path) -> None:
    """A row op whose ``tiling.ub_reserved_bytes`` leaves a product's UB too small for one chunk: the error is at
    the spec's ``tiling`` entry (the reserve is the spec's), names the product and the bytes, writes nothing."""
    root = tmp_path / "op"
    shutil.copytree(DATA / "specs", root / "specs")
    shutil.copytree(DATA / "reference", root / "reference")
    shutil.copy(project_paths().specs / "products.yaml", root / "specs" / "products.yaml")
    spec = root / "specs" / "row_standardize.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("ub_reserved_bytes: 0", "ub_reserved_bytes: 192000"))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("tiling:"))
    gen = subprocess.run(
        [sys.executable, "-m", "codegen", "--specs", str(root / "specs"), "generate", "--out", str(root / "gen")],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert gen.returncode == 2
    assert f"{spec}:{line}: tiling.ub_reserved_bytes: UB of Ascend910B cannot hold one chunk" in gen.stderr
    assert "with 192000 of its 196608 UB bytes reserved" in gen.stderr
    assert not (root / "gen").exists()
