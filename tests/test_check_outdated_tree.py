"""``opgen check`` tells a tree generated before its spec changed (refused before anything is built) from a
hand-edited tree (checked as it is, after a warning) by the tree's generation manifest; a tree without a
manifest cannot be told apart and is checked as it is. (A formula changed without ``opgen generate`` once
passed every case with exit status 0: the cases ran the old kernel.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from project_copy import spec_dir_with_reference

from codegen.check.freshness import freshness
from codegen.cli import main
from codegen.manifest import MANIFEST_NAME
from codegen.paths import project_paths
from codegen.spec.loader import load_specs

OP = "soft_margin_loss_backward"
#: its folder in a generated tree
FOLDER = "loss/soft_margin_loss_grad"


def _generated(tmp_path: Path) -> tuple[Path, Path]:
    """A spec directory holding OP and the tree ``opgen generate`` makes of it."""
    reference = (project_paths().root / "reference" / f"{OP}.py").read_text()
    specs = spec_dir_with_reference(tmp_path, OP, reference)
    out = tmp_path / "generated"
    assert main(["--specs", str(specs), "generate", "--out", str(out)]) == 0
    return specs, out


def _change_formula(specs: Path) -> None:
    spec = specs / f"{OP}.yaml"
    old = 'out: "-target * gradOutput * sigmoid(-target * self) * norm"'
    assert spec.read_text().count(old) == 1
    spec.write_text(spec.read_text().replace(old, old.removesuffix('"') + ' * 2"'))


def test_a_formula_changed_without_generating_is_refused_before_any_build(tmp_path: Path) -> None:
    specs, out = _generated(tmp_path)
    _change_formula(specs)
    report = tmp_path / "check.json"
    argv = ["--specs", str(specs), "check", OP, "--quick", "--generated", str(out), "--json", str(report)]
    # a new process: this one keeps the specs it loaded for generating
    captured = subprocess.run([sys.executable, "-m", "codegen", *argv], capture_output=True, text=True, check=False)
    assert captured.returncode == 2, captured.stdout[-2000:] + captured.stderr[-2000:]
    err = captured.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {out} is behind the specs: "), err
    assert "file(s) were generated from older specs or templates" in err[0]
    assert f"`opgen --specs {specs} generate --out {out}`" in err[0]
    assert not report.exists() and "passed" not in captured.stdout  # nothing was built or run
    cat, loaded = load_specs(specs)
    found = freshness([loaded[OP]], cat, out)
    assert found.behind and found.outdated and found.differ == [] and found.missing == []
    assert all(rel.startswith(f"{FOLDER}/") for rel in found.outdated)


def test_a_hand_edit_of_a_current_tree_is_only_a_difference(tmp_path: Path) -> None:
    specs, out = _generated(tmp_path)
    kernel = next((out / FOLDER / "op_kernel").glob("*.cpp"))
    kernel.write_text(kernel.read_text() + "// edited\n")
    cat, loaded = load_specs(specs)
    found = freshness([loaded[OP]], cat, out, cache=tmp_path / "cache")
    rel = kernel.relative_to(out).as_posix()
    assert (found.missing, found.outdated, found.differ, found.behind) == ([], [], [rel], False)
    # the kept verdict follows the manifest: without it (a copied tree) a spec change is only a difference
    _change_formula(specs)
    cat, loaded = load_specs(specs)
    assert freshness([loaded[OP]], cat, out, cache=tmp_path / "cache").behind
    (out / MANIFEST_NAME).unlink()
    found = freshness([loaded[OP]], cat, out, cache=tmp_path / "cache")
    assert found.outdated == [] and rel in found.differ and len(found.differ) > 1 and not found.behind
