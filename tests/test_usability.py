"""The rough edges a new user hit (issue 12, item 6), each pinned by a test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from codegen.paths import project_paths
from codegen.specs import load_project

ROOT = project_paths().root
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"


def opgen(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env=env,
    )


# --- the result table -----------------------------------------------------------------------------------


def test_the_table_shows_the_bound_beside_the_error_and_explains_its_notations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from codegen.check.driver import CaseResult
    from codegen.check.report import print_table

    def result(dtype: str, err: float, bound: float, source: str, passed: bool = True) -> CaseResult:
        return CaseResult(
            f"op/P/{dtype}/c", "op", "P", dtype, "[3]", "c", passed, 0, err, 1.0, "", 0.0, {}, bound, source
        )

    print_table(
        [
            result("FLOAT/INT64", 2.16e12, 4.5e12, "tolerance()"),
            result("FLOAT->FLOAT16", 1e-3, 2e-3, "derived"),
            result("FLOAT16+FLOAT", 1e-7, 3e-7, "derived"),
        ]
    )
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if "max abs err" in line)
    assert re.search(r"max abs err\s*┃\s*bound\s*┃\s*max ULP err\s*┃\s*bound from", header)
    row = next(line for line in text.splitlines() if "FLOAT/INT64" in line)
    assert re.search(r"2\.16e\+12\s*│\s*4\.5e\+12\s*│\s*1\s*│\s*tolerance\(\)", row)
    assert re.search(r"│\s*1 case\s*│", row)  # one case: no "1 cases"
    flat = " ".join(text.split())
    for notation in ("A/B = grad in A, indices in B", "A->B = inputs in A, output in B", "A+B = inputs of both"):
        assert notation in flat


def test_check_help_explains_the_dtype_notations_and_columns() -> None:
    done = opgen("check", "--help")
    assert done.returncode == 0
    flat = " ".join(done.stdout.split())
    for text in ("A/B = grad in A, indices in B", "A->B = inputs in A, output in B", "bound from: derived"):
        assert text in flat


def test_a_failure_line_names_the_tolerance_that_applied() -> None:
    from codegen.check.case_run import run_case
    from codegen.check.cases import Case

    catalogue, specs = load_project()
    spec = specs["mse_loss_backward"]

    class WrongOp:  # returns 1.0 where the reference is 0
        def __init__(self) -> None:
            self.spec = spec
            self.product = catalogue.get("Ascend910B")
            self.last_stats: dict[str, object] = {}

        def __call__(this, **params: object) -> np.ndarray:  # an aclnn parameter is named self
            return np.ones(4, np.float32)

    x = np.ones(4, np.float32)
    case = Case(
        spec.snake, "Ascend910B", "FLOAT", "[4]", "c", {"gradOutput": x, "self": x, "target": x, "reduction": 0}
    )
    hand = types.ModuleType("hand")
    hand.__file__ = "/somewhere/reference/mse_loss_backward.py"
    hand.reference = lambda **p: np.zeros(4)  # type: ignore[attr-defined]
    hand.tolerance = lambda **p: (0.25, 0.0)  # type: ignore[attr-defined]
    r = run_case(WrongOp(), case, hand)  # type: ignore[arg-type]
    assert not r.passed and r.bound_source == "tolerance()" and r.bound == pytest.approx(0.25)
    assert "bound from tolerance() in /somewhere/reference/mse_loss_backward.py" in r.message
    derived = types.ModuleType("derived")
    derived.reference = lambda **p: np.zeros(4)  # type: ignore[attr-defined]
    r = run_case(WrongOp(), case, derived)  # type: ignore[arg-type]
    assert not r.passed and r.bound_source == "derived"
    assert "tolerance(**params) -> (atol, rtol)" in r.message and "replaces it" in r.message


# --- the command line -----------------------------------------------------------------------------------


def test_version_prints_the_package_version() -> None:
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert version is not None
    done = opgen("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"opgen {version.group(1)}"


def test_list_prints_the_families_with_their_ops() -> None:
    done = opgen("list")
    assert done.returncode == 0, done.stderr
    families = done.stdout.split("families:\n")[1].split("products:\n")[0]
    _, specs = load_project()
    for family in {s.family for s in specs.values()}:
        line = next(x for x in families.splitlines() if x.split()[0] == family)
        listed = set(line.split(": ", 1)[1].split(", "))  # whole names: embedding is not embedding_dense_backward
        for name, s in specs.items():
            assert (name in listed) == (s.family == family)


def test_explain_fills_constraint_values_for_a_shape_and_says_whether_it_holds() -> None:
    ok = opgen("explain", "EmbeddingDenseBackward", "--product", "Ascend910", "--shape", "65536,128")
    bad = opgen("explain", "EmbeddingDenseBackward", "--product", "Ascend910", "--shape", "65536,20000")
    generic = opgen("explain", "EmbeddingDenseBackward", "--product", "Ascend910")
    for done in (ok, bad, generic):
        assert done.returncode == 0, done.stderr

    def constraint(text: str) -> list[str]:
        lines = text.splitlines()
        i = next(k for k, line in enumerate(lines) if line.startswith("  constraint "))
        return lines[i : i + 2]

    # countsSize = 65536 // 32 + 65536 % 32 = 2048; limit = (180192 - 2048 * 8) / 20 = 8190.4 (INT64 indices)
    line, verdict = constraint(ok.stdout)
    assert "<" not in line.replace("embeddingDim <", "")
    assert "= 8190.4" in line and "= 2048 (numWeights 65536, coreNum 32)" in line and "got embeddingDim 128" in line
    assert verdict.strip().startswith("for shape [65536, 128] with scaleGradByFreq true: satisfied")
    line, verdict = constraint(bad.stdout)
    assert "got embeddingDim 20000" in line
    assert "VIOLATED" in verdict and "161002" in verdict
    assert "<bytesPerCount>" in constraint(generic.stdout)[0]


@pytest.mark.parametrize("text", ["scalar", "", "()"])
def test_explain_takes_a_0d_shape(text: str) -> None:
    done = opgen("explain", "SigmoidBackward", "--product", "Ascend910B", "--shape", text)
    assert done.returncode == 0, done.stderr
    assert "tiling for output shape [] (1 element)" in done.stdout


def test_build_for_an_unsupported_product_is_one_line_and_compiles_nothing(tmp_path: Path) -> None:
    _, specs = load_project()
    spec, product = next((s, p) for s in specs.values() for p in ("Ascend310P", "Ascend950") if p not in s.products)
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache")}
    done = opgen("build", spec.op, "--product", product, env=env)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"is not supported on {product}" in done.stderr
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.so"))


def test_generate_check_names_the_out_directory(tmp_path: Path) -> None:
    out = tmp_path / "elsewhere"
    out.mkdir()
    assert opgen("generate", "--out", str(out)).returncode == 0
    done = opgen("generate", "--check", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"{out} is up to date") and "generated/" not in done.stdout


def test_yml_specs_load_and_hidden_or_backup_files_are_ignored(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    shutil.copytree(project_paths().specs, specs)
    shutil.copytree(project_paths().reference, tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    (specs / "sigmoid_backward.yaml").rename(specs / "sigmoid_backward.yml")
    os.symlink("user@host.12345:1700000000", specs / ".#mse_loss_backward.yaml")  # an Emacs lock: dangling
    (specs / "mse_loss_backward.yaml~").write_text("op: [unclosed\n")
    (specs / ".sigmoid_backward.yaml.swp").write_text("\0binary")
    (specs / "#soft_margin_loss_backward.yaml#").write_text("garbage: [\n")
    (specs / ".hidden.yaml").write_text("garbage: [\n")
    listed = opgen("--specs", str(specs), "list")
    assert listed.returncode == 0, listed.stderr
    _, ours = load_project()
    for name in ours:
        assert f"  {name} " in listed.stdout
    out = tmp_path / "generated"
    out.mkdir()
    gen = opgen("--specs", str(specs), "generate", "sigmoid_backward", "--out", str(out))
    assert gen.returncode == 0, gen.stderr
    assert (out / "activation" / "sigmoid_grad" / "op_kernel").is_dir()
    # one op in both spellings is an error naming both files
    shutil.copy(specs / "sigmoid_backward.yml", specs / "sigmoid_backward.yaml")
    both = opgen("--specs", str(specs), "list")
    assert both.returncode == 2
    assert "sigmoid_backward.yml and sigmoid_backward.yaml both define op file 'sigmoid_backward'" in both.stderr


# --- the Python API -------------------------------------------------------------------------------------


def test_padding_idx_minus_one_means_no_padding_row_in_the_attribute_check() -> None:
    from codegen.runner.arguments import attr_value

    _, specs = load_project()
    spec = specs["embedding_dense_backward"]
    assert attr_value(spec, spec.attr("paddingIdx"), -1) == 2**64 - 1
    assert attr_value(spec, spec.attr("paddingIdx"), -(2**63)) == 2**63
    with pytest.raises(ValueError, match="numWeights"):
        attr_value(spec, spec.attr("numWeights"), -1)  # only the padding role takes negatives
    with pytest.raises(ValueError, match="paddingIdx"):
        attr_value(spec, spec.attr("paddingIdx"), -(2**63) - 1)


def test_the_python_api_checks_padding_seed_and_deterministic() -> None:
    import codegen

    g = codegen.compile_op("embedding_dense_backward", "Ascend910B")
    grad = np.arange(24, dtype=np.float32).reshape(6, 4)
    indices = np.array([0, 1, 2, 1, 0, 2], np.int64)
    call = {"grad": grad, "indices": indices, "numWeights": 3, "scaleGradByFreq": False}
    none = g(paddingIdx=2**64 - 1, **call)
    torch_style = g(paddingIdx=-1, **call)
    np.testing.assert_array_equal(torch_style, none)
    assert np.all(none[1] == grad[1] + grad[3])  # no row is skipped
    with pytest.raises(TypeError, match=r"seed takes an integer, got str 'x'"):
        g(paddingIdx=-1, seed="x", **call)
    with pytest.raises(TypeError, match=r"deterministic takes True or False, got str 'yes'"):
        g(paddingIdx=-1, deterministic="yes", **call)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64 - 1\]"):
        g(paddingIdx=-1, seed=-1, **call)


# --- the manual -----------------------------------------------------------------------------------------


def test_the_manual_names_every_op_every_spec_key_every_column_and_the_notations() -> None:
    from codegen.check.report import COLUMNS
    from codegen.spec.loader.document import _ROOT_OPTIONAL, _ROOT_REQUIRED

    catalogue, specs = load_project()
    pages = ("index.md", "spec.md", "check.md", "commands.md")
    overview, spec_page, check_page, commands = [(DOCS / page).read_text() for page in pages]
    op_rows = [line for line in overview.splitlines() if line.startswith("| `aclnn")]
    for spec in specs.values():
        row = next((line for line in op_rows if line.startswith(f"| `{spec.aclnn_name}`")), None)
        assert row is not None, spec.aclnn_name
        # the products column lists exactly the spec's products, in the catalogue's order
        listed = [p.strip() for p in row.rstrip(" |").rsplit("|", 1)[1].split(",")]
        assert listed == [p.name for p in catalogue.products if p.name in spec.products], (spec.aclnn_name, listed)
    for text in (README, overview):
        assert "speaks of two ops" not in text and "Seed ops: `aclnnSoftMarginLossBackward`" not in text
    spec_table = spec_page.split("# The spec format")[1].split("\n\n")[2]
    for key in (*_ROOT_REQUIRED, *_ROOT_OPTIONAL):
        assert re.search(rf"^\| [^|]*`{key}`", spec_table, re.MULTILINE), key
    attrs_row = next(line for line in spec_table.splitlines() if line.startswith("| `attrs`"))
    assert "`description`" in attrs_row
    for column in COLUMNS:
        assert re.search(rf"^\| [^|]*`{re.escape(column)}`", check_page, re.MULTILINE), column
    for notation in ("`FLOAT/INT64`", "`FLOAT->FLOAT16`", "`FLOAT16+FLOAT`"):
        assert notation in check_page
    assert "--shape scalar" in commands and "opgen --version" in commands


def test_failure_lines_and_case_names_print_brackets_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel fault's rule name (``[pipe race]``) and a shape (``[4, 8]``) are data, not rich markup: the
    failure line and the verbose table show them as they are."""
    from codegen.check.driver import CaseResult
    from codegen.check.report import print_table

    message = "kernel fault [pipe race] in kernel k on core 3: V reads UB [0, 32) written by MTE2"
    failed = CaseResult(
        "op/P/FLOAT/several cores [4, 8]",
        "op",
        "P",
        "FLOAT",
        "[4, 8]",
        "several cores [4, 8]",
        False,
        361001,
        0.0,
        0.0,
        message,
        0.0,
    )
    print_table([failed], verbose=True)
    text = capsys.readouterr().out
    assert f"FAIL op/P/FLOAT/several cores [4, 8]: {message}" in " ".join(text.split())
    assert "[pipe race]" in text
    assert "V reads UB [0, 32) written by MTE2" in " ".join(text.split())


def test_the_spec_reference_names_every_family() -> None:
    """docs/spec.md's `family` row lists exactly the registered family packages (a new family left out of it
    went unnoticed)."""
    from codegen import registry

    row = next(line for line in (ROOT / "docs" / "spec.md").read_text().splitlines() if line.startswith("| `family` |"))
    named = set(re.findall(r"`([a-z_]+)`", row.split("|")[2]))
    assert named == {f.name for f in registry.families()}
