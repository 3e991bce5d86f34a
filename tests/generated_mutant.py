"""Checking a mutant of a generated op folder through ``opgen check --generated``: the shared steps of the
tests that keep a fault a review found as a mutant (copy ``generated/<op>``, apply exact text edits whose
anchors must occur once, run the check on one product, read the failed cases)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

_, SPECS = load_project()


def check_mutant(
    tmp_path: Path,
    op: str,
    kind: str,
    edits: tuple[tuple[str, str], ...],
    *,
    dtype: str = "FLOAT",
    product: str = "Ascend910B",
) -> list[dict[str, Any]]:
    """The failed cases of ``opgen check <op> --quick --dtype <dtype> --product <product> -j 1`` on a copy
    of the op's generated folder whose ``kind`` file (a key of ``op_files``) has ``edits`` (anchor,
    replacement) applied. Asserts every anchor occurs exactly once and the check exits with status 1 (a
    case failed), so a mutant that survives or an anchor that no longer matches fails the calling test."""
    root = tmp_path / "gen"
    folder = SPECS[op].folder
    shutil.copytree(project_paths().generated / folder, root / folder)
    target = root / folder / op_files(SPECS[op])[kind]
    text = target.read_text()
    for anchor, replacement in edits:
        assert text.count(anchor) == 1, f"an anchor occurs {text.count(anchor)} times in {target.name}: {anchor!r}"
        text = text.replace(anchor, replacement)
    target.write_text(text)
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", op, "--generated", str(root), "--quick", "--dtype", dtype]
    cmd += ["--product", product, "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    failed = [c for c in json.loads(report.read_text())["cases"] if not c["passed"]]
    assert failed
    return failed
