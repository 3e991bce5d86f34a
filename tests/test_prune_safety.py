"""``opgen generate --prune`` deletes only what opgen's manifest says it wrote into that output directory:
run inside a directory that holds the project itself and unrelated projects, nothing of theirs changes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_copy import copy_project

from codegen.manifest import load_manifest
from codegen.ownership import prune_plan


def opgen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPGEN_ROOT": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args], env=env, capture_output=True, text=True, check=False
    )


def snapshot(base: Path, names: list[str]) -> dict[str, str]:
    """Every file and folder under ``base/<name>`` with a hash of its bytes (folders: ``dir``)."""
    out: dict[str, str] = {}
    for name in names:
        top = base / name
        for p in [top, *sorted(top.rglob("*"))]:
            rel = p.relative_to(base).as_posix()
            out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, list[str]]:
    """A directory holding a small copy of the project (:func:`project_copy.copy_project`: specs/ of one op
    of each family and the ops the tests name, templates/, reference/, runtime/, README, the manual) and
    unrelated projects whose folders look like op folders (docs/, examples/, op_* subfolders)."""
    ws = tmp_path / "ws"
    copy_project(ws, ("sigmoid_backward", "soft_margin_loss_backward"), readme=True)
    foreign = {
        "website/docs/index.md": "# my site\n",
        "website/examples/demo.py": "print('hi')\n",
        "kernels/op_kernel/add.cpp": "// my kernel\n",
        "kernels/op_host/add_tiling.cpp": "// my tiling\n",
        "op_custom/op_api/aclnn_custom.cpp": "// someone else's op\n",
        "op_custom/docs/aclnnCustom.md": "# custom\n",
        "notes/todo.txt": "not an op folder\n",
    }
    for rel, text in foreign.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    theirs = ["specs", "templates", "reference", "runtime", "docs", "website", "kernels", "op_custom", "notes"]
    return ws, theirs


def test_prune_in_a_directory_holding_the_project_and_other_projects_touches_nothing_of_theirs(
    workspace: tuple[Path, list[str]],
) -> None:
    ws, theirs = workspace
    before = snapshot(ws, theirs)
    readme = (ws / "README.md").read_bytes()
    first = opgen(ws, "generate", "--out", str(ws), "--prune")
    assert first.returncode == 0, first.stderr
    assert (ws / "loss" / "soft_margin_loss_grad" / "op_kernel" / "soft_margin_loss_grad.cpp").is_file()
    dry = opgen(ws, "generate", "--out", str(ws), "--prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would prune" not in dry.stdout
    again = opgen(ws, "generate", "--out", str(ws), "--prune", "--force")
    assert again.returncode == 0, again.stderr
    assert "pruned" not in again.stdout
    for name in theirs:  # not even reported as ours
        assert f"{name}/" not in again.stderr + again.stdout
    check = opgen(ws, "generate", "--out", str(ws), "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "not produced by any spec" not in check.stdout
    assert snapshot(ws, theirs) == before
    assert (ws / "README.md").read_bytes() == readme


def test_prune_removes_a_removed_ops_files_after_listing_them_with_dry_run(workspace: tuple[Path, list[str]]) -> None:
    ws, _ = workspace
    out = ws / "out"
    assert opgen(ws, "generate", "--out", str(out)).returncode == 0
    (ws / "specs" / "sigmoid_backward.yaml").unlink()
    mine = out / "activation" / "sigmoid_grad" / "docs" / "my_notes.md"
    mine.write_text("my own notes\n")
    edited = out / "activation" / "sigmoid_grad" / "op_kernel" / "sigmoid_grad.cpp"
    edited.write_text(edited.read_text() + "// my fix\n")
    op_files = sorted(
        p.relative_to(out).as_posix() for p in (out / "activation" / "sigmoid_grad").rglob("*") if p.is_file()
    )
    dry = opgen(ws, "generate", "--out", str(out), "--prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    would = [line.split(" ", 2)[2] for line in dry.stdout.splitlines() if line.startswith("would prune ")]
    expected = [
        f for f in op_files if f not in ("activation/sigmoid_grad/docs/my_notes.md", edited.relative_to(out).as_posix())
    ]
    # sigmoid_backward's 24 generated files (ops-nn file set, 3 binary configs, docs, example, 2 op_host unit
    # tests and the 3 CMakeLists.txt that lead to them, the kernel unit tests' tiling header) but the edited kernel
    assert would == expected and len(expected) == 23
    assert "kept activation/sigmoid_grad/docs/my_notes.md (not written by opgen;" in dry.stderr
    assert "kept activation/sigmoid_grad/op_kernel/sigmoid_grad.cpp (changed since opgen wrote it;" in dry.stderr
    assert (
        sorted(p.relative_to(out).as_posix() for p in (out / "activation" / "sigmoid_grad").rglob("*") if p.is_file())
        == op_files
    )
    pruned = opgen(ws, "generate", "--out", str(out), "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert [
        line[len("pruned ") :]
        for line in pruned.stdout.splitlines()
        if line.startswith("pruned ") and "(empty)" not in line
    ] == expected
    left = sorted(
        p.relative_to(out).as_posix() for p in (out / "activation" / "sigmoid_grad").rglob("*") if p.is_file()
    )
    assert left == ["activation/sigmoid_grad/docs/my_notes.md", "activation/sigmoid_grad/op_kernel/sigmoid_grad.cpp"]
    assert not (out / "activation" / "sigmoid_grad" / "op_api").exists()  # emptied by the prune, so removed
    assert mine.read_text() == "my own notes\n"


def test_a_forged_manifest_entry_outside_the_output_directory_is_never_deleted(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    copy_project(root)
    out = tmp_path / "gen"
    assert opgen(root, "generate", "--out", str(out)).returncode == 0
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    manifest = json.loads((out / ".opgen-manifest.json").read_text())
    digest = hashlib.sha256(victim.read_bytes()).hexdigest()
    manifest["files"]["../precious.txt"] = {"spec": "gone", "templates": [], "input_hash": "x", "output_hash": digest}
    (out / ".opgen-manifest.json").write_text(json.dumps(manifest))
    proc = opgen(root, "generate", "--out", str(out), "--prune")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep me\n"


def test_generate_keeps_a_file_it_did_not_write_at_an_output_path(tmp_path: Path) -> None:
    """A user's file where opgen would write (no manifest record, no generator banner) is named and kept, the
    command exits 1, and opgen writes there only once the file is gone."""
    out = tmp_path / "out"
    (out / "activation" / "sigmoid_grad" / "docs").mkdir(parents=True)
    notes = out / "OPERATORS.md"
    doc = out / "activation" / "sigmoid_grad" / "docs" / "aclnnSigmoidBackward.md"
    notes.write_text("my notes\n")
    doc.write_text("my doc\n")
    cmd = [sys.executable, "-m", "codegen", "generate", "sigmoid_backward", "--out", str(out)]
    for extra in ((), ("--prune",), ("--force",)):
        proc = subprocess.run([*cmd, *extra], capture_output=True, text=True, check=False)
        assert proc.returncode == 1, proc.stderr
        assert "error: kept OPERATORS.md (it exists and opgen did not write it" in proc.stderr
        assert "error: kept activation/sigmoid_grad/docs/aclnnSigmoidBackward.md (it exists" in proc.stderr
        assert "produced by no template" not in proc.stderr
        assert notes.read_text() == "my notes\n" and doc.read_text() == "my doc\n"
    # --check names it as the user's, not as stale (generating would not rewrite it), and fails
    check_cmd = [sys.executable, "-m", "codegen", "generate", "--out", str(out), "--check"]
    proc = subprocess.run(check_cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "not written by opgen: activation/sigmoid_grad/docs/aclnnSigmoidBackward.md" in proc.stdout
    assert "stale: activation/sigmoid_grad/docs/aclnnSigmoidBackward.md" not in proc.stdout
    assert "move the files opgen did not write away from its output paths" in proc.stderr
    # the manifest keeps it as the user's: a prune would keep it as one opgen never wrote
    rel = "activation/sigmoid_grad/docs/aclnnSigmoidBackward.md"
    assert prune_plan(out, [rel], load_manifest(out)) == ([], {rel: "not written by opgen"})
    doc.unlink()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert "wrote activation/sigmoid_grad/docs/aclnnSigmoidBackward.md" in proc.stdout
    assert "Generated by ascend-opgen" in doc.read_text()
    assert notes.read_text() == "my notes\n"
