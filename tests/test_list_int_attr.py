"""The ``list_int`` device attr type (CANN's ``ListInt``) in a family other than row_reduce: an elementwise
spec whose integer aclnn attr reaches the device op as the one-element list ``{value}`` generates the
AllocIntArray launch, the ``GetListInt`` tiling read and the ``ListInt`` OpDef, and passes ``opgen check``
with every value of the attr (the reference receives the aclnn integer).

The spec is SoftMarginLossBackward with its ``reduction`` device attr re-typed from ``string`` to
``list_int``, written to a temporary specs folder: no spec of the project uses the type this way.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.spec.loader import load_op_spec
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(25)  # a spec copy built and checked: about 25 s alone

CATALOGUE, SPECS = load_project()
OP = "soft_margin_loss_backward"
_STRING = "    - {name: reduction, from: reduction, type: string, default: mean}\n"
_LIST = "    - {name: reduction, from: reduction, type: list_int, default: [1]}\n"


def _project_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A specs folder holding the re-typed spec, and the reference folder next to it."""
    paths = project_paths()
    specs = tmp_path / "specs"
    specs.mkdir()
    text = (paths.specs / f"{OP}.yaml").read_text()
    assert text.count(_STRING) == 1
    (specs / f"{OP}.yaml").write_text(text.replace(_STRING, _LIST))
    shutil.copy(paths.specs / "products.yaml", specs / "products.yaml")
    shutil.copytree(paths.root / "reference", tmp_path / "reference")
    return specs, tmp_path / "gen"


def test_an_elementwise_list_int_attr_is_launched_as_a_list_and_read_with_get_list_int(tmp_path: Path) -> None:
    specs, gen = _project_copy(tmp_path)
    spec = load_op_spec(specs / f"{OP}.yaml", CATALOGUE)
    [attr] = spec.device_interface.attrs
    assert (attr.name, attr.source, attr.type, attr.default) == ("reduction", "reduction", "list_int", (1,))
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", OP, "--out", str(gen)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    files = op_files(spec)
    l0 = (gen / spec.folder / files["l0_cpp"]).read_text()
    assert "executor->AllocIntArray(" in l0 and "OP_ATTR(reductionList)" in l0
    tiling = (gen / spec.folder / files["tiling_cpp"]).read_text()
    assert "context->GetAttrs()->GetListInt(0)" in tiling
    opdef = (gen / spec.folder / files["def_cpp"]).read_text()
    assert 'this->Attr("reduction").AttrType(OPTIONAL).ListInt({1});' in opdef

    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "check", OP, "--generated", str(gen), "--quick"]
    cmd += ["--product", "Ascend910B", "--dtype", "FLOAT", "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    cases = json.loads(report.read_text())["cases"]
    assert cases and all(c["passed"] for c in cases)
    # every reduction value went through the list: none (0), mean (1) and sum (2)
    names = " ".join(c["name"] for c in cases)
    assert all(f"reduction={v}" in names for v in (0, 1, 2)), names[:2000]
