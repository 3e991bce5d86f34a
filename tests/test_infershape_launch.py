"""Every AICore launch is held to the op's registered InferShape and InferDataType (runtime/src/host/
launcher.cpp): in graph mode those functions decide the output tensors the kernel writes, so an InferShape
that disagrees with the L0 API's outputs must fail ``opgen check`` although the aclnn call itself would
compute the right values. Found by a review helper's mutant: RmsNorm's rstd inferred with an off-by-one
(one reduced dim left at its size) passed every case."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

_, SPECS = load_project()

#: (op, anchor, replacement, a dtype it runs in): faults of the generated InferShape only.
MUTANTS = [
    (
        "rms_norm",
        "for (size_t i = xShape->GetDimNum() - rowShape->GetDimNum(); i < xShape->GetDimNum(); ++i) {",
        "for (size_t i = xShape->GetDimNum() - rowShape->GetDimNum() + 1; i < xShape->GetDimNum(); ++i) {",
    ),
    ("mse_loss", "    outShape->SetDimNum(0);", "    outShape->SetDimNum(1);\n    outShape->SetDim(0, 1);"),
]


@pytest.mark.parametrize(("op", "anchor", "replacement"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_an_infershape_that_disagrees_with_the_launch_fails_the_check(
    tmp_path: Path, op: str, anchor: str, replacement: str
) -> None:
    root = tmp_path / "gen"
    shutil.copytree(project_paths().generated / op, root / op)
    target = root / op / op_files(SPECS[op])["infershape_cpp"]
    text = target.read_text()
    assert text.count(anchor) == 1, f"the anchor occurs {text.count(anchor)} times in {target.name}"
    target.write_text(text.replace(anchor, replacement))
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", op, "--generated", str(root), "--quick", "--dtype", "FLOAT"]
    cmd += ["--product", "Ascend910B", "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    failed = [c for c in json.loads(report.read_text())["cases"] if not c["passed"]]
    assert failed
    assert any("the registered InferShape/InferDataType give" in c["message"] for c in failed), failed[0]["message"]
