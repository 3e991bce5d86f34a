"""``opgen check`` refuses a generated tree that is behind the specs before it builds or runs anything, and
names the command that brings the tree up to date; a tree whose text differs (a hand edit) is checked as it
is, after a warning."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from project_copy import copy_project

from codegen.check.freshness import freshness
from codegen.specs import load_project

EXTRA_PRODUCT = """\
  - name: AscendLate
    doc_term: Test SoC added after generation
    config_name: ascendlate
    soc_version: ASCENDLATE
    npu_arch: 2294
    ub_bytes: 196608
    vector_core_num: 8
    bf16: true
    data_copy_pad: true
    atomic_add_dtypes: [FLOAT]
    queue_buffer_cap: 8
    hw_sync_all: true
    sys_workspace_bytes: 16777216
    source: "test product (tests/test_check_stale_tree.py)"
"""


def _opgen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "codegen", "--specs", str(root / "specs"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def test_a_product_added_without_generating_is_refused_before_any_build(tmp_path: Path) -> None:
    ops = copy_project(tmp_path)
    generated = tmp_path / "generated"
    assert _opgen(tmp_path, "generate", "--out", str(generated)).returncode == 0
    op = ops[0]
    catalogue = tmp_path / "specs" / "products.yaml"
    catalogue.write_text(catalogue.read_text() + EXTRA_PRODUCT)
    spec = tmp_path / "specs" / f"{op}.yaml"
    text, count = re.subn(r"^products: \[(.*)\]", r"products: [\1, AscendLate]", spec.read_text(), flags=re.M)
    assert count == 1
    spec.write_text(text)
    report = tmp_path / "check.json"
    proc = _opgen(tmp_path, "check", op, "--quick", "--generated", str(generated), "--json", str(report))
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"{generated} is behind the specs" in proc.stderr
    folder = load_project(tmp_path / "specs")[1][op].folder
    assert f"{folder}/op_host/config/ascendlate/" in proc.stderr  # the missing binary config of the new product
    assert f"`opgen --specs {tmp_path / 'specs'} generate --out {generated}`" in proc.stderr
    assert not report.exists() and "passed" not in proc.stdout  # nothing ran
    # generating again makes the tree current
    assert _opgen(tmp_path, "generate", "--out", str(generated)).returncode == 0
    cat, specs = load_project(tmp_path / "specs")
    found = freshness([specs[op]], cat, generated)
    assert (found.missing, found.differ) == ([], [])


def test_a_hand_edit_is_reported_as_differing_not_missing(tmp_path: Path) -> None:
    ops = copy_project(tmp_path)
    generated = tmp_path / "generated"
    assert _opgen(tmp_path, "generate", "--out", str(generated)).returncode == 0
    cat, specs = load_project(tmp_path / "specs")
    spec = specs[ops[0]]
    kernel = next((generated / spec.folder / "op_kernel").glob("*.cpp"))
    kernel.write_text(kernel.read_text() + "// edited\n")
    found = freshness([spec], cat, generated, cache=tmp_path / "cache")
    rel = kernel.relative_to(generated).as_posix()
    assert (found.missing, found.differ, found.behind) == ([], [rel], False)
    # the kept verdict follows the tree: undoing the edit is seen
    kernel.write_text(kernel.read_text().removesuffix("// edited\n"))
    assert freshness([spec], cat, generated, cache=tmp_path / "cache").differ == []
