"""Incremental generation: the manifest skips unchanged inputs, a template edit rewrites exactly the files
that template produces, --force re-renders, removed ops are reported and deleted only with --prune."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_copy import copy_project

from codegen.manifest import MANIFEST_NAME
from codegen.specs import load_project

NAMED = ("embedding_dense_backward", "sigmoid_backward", "soft_margin_loss_backward")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the project's templates and runtime headers and of the specs of the ops named here
    and one op of every family (:func:`project_copy.copy_project`; OPGEN_ROOT points at it)."""
    root = tmp_path / "proj"
    ops = copy_project(root, NAMED)
    _, specs = load_project()
    assert {specs[op].family for op in ops} == {s.family for s in specs.values()}
    return root


def opgen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPGEN_ROOT": str(root)}
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", *args], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def written(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("wrote "))


def all_files(root: Path) -> list[str]:
    out = root / "generated"
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and not p.name.startswith("."))


def test_second_run_skips_everything(project: Path) -> None:
    first = opgen(project, "generate")
    assert written(first) == all_files(project)
    second = opgen(project, "generate", "-v")
    assert written(second) == []
    skipped = sorted(line.split()[1] for line in second.stdout.splitlines() if line.startswith("skipped "))
    assert skipped == all_files(project)
    assert f"0 written, 0 rendered and unchanged, {len(skipped)} skipped" in second.stdout


def test_template_edit_rewrites_exactly_its_files(project: Path) -> None:
    opgen(project, "generate")
    kernel_template = project / "templates" / "op_kernel" / "elementwise_kernel.cpp.j2"
    anchor = "// Lowered: {{ formula.lowered }}"
    assert anchor in kernel_template.read_text()
    kernel_template.write_text(kernel_template.read_text().replace(anchor, anchor + "\n// edited"))
    after = opgen(project, "generate")
    _, specs = load_project()
    elementwise = {spec.folder for spec in specs.values() if spec.family == "elementwise"}
    elementwise_kernels = [f for f in all_files(project) if "/op_kernel/" in f and f.rsplit("/", 2)[0] in elementwise]
    assert "loss/soft_margin_loss_grad/op_kernel/soft_margin_loss_grad.cpp" in elementwise_kernels
    assert written(after) == elementwise_kernels  # every elementwise op's kernel, nothing else
    # A template every C++ file imports (the banner macro) re-renders all C++ outputs, and no document.
    macros = project / "templates" / "common" / "macros.j2"
    macros.write_text(macros.read_text().replace("Do not edit:", "Never edit:"))
    after = opgen(project, "generate")
    assert written(after) == [f for f in all_files(project) if f.endswith((".cpp", ".h"))]


def test_skeleton_edit_rewrites_every_family_file_of_its_kind(project: Path) -> None:
    opgen(project, "generate")
    skeleton = project / "templates" / "op_kernel" / "kernel.cpp.j2"
    skeleton.write_text(skeleton.read_text().replace("using namespace AscendC;", "using namespace AscendC;\n// edited"))
    after = opgen(project, "generate")
    kernels = [f for f in all_files(project) if "/op_kernel/" in f and "/tests/" not in f]
    assert "index/embedding_dense_grad_accumulate/op_kernel/embedding_dense_grad_accumulate.cpp" in kernels
    assert "activation/sigmoid_grad/op_kernel/sigmoid_grad.cpp" in kernels
    assert written(after) == kernels  # every op's kernel, of every family, nothing else


def test_spec_edit_rerenders_only_that_op(project: Path) -> None:
    opgen(project, "generate")
    spec = project / "specs" / "soft_margin_loss_backward.yaml"
    spec.write_text(
        spec.read_text().replace(
            "description: The target y of the forward loss", "description: The target of the forward loss"
        )
    )
    after = opgen(project, "generate")
    # The description appears only in the document; the op's 23 other files are rendered, found equal and
    # left alone, and the other op is not rendered at all.
    assert written(after) == ["loss/soft_margin_loss_grad/docs/aclnnSoftMarginLossBackward.md"]
    assert "1 written, 23 rendered and unchanged" in after.stdout


def test_force_rerenders_and_prune_removes_orphans(project: Path) -> None:
    opgen(project, "generate")
    forced = opgen(project, "generate", "--force")
    assert written(forced) == []
    assert f"{len(all_files(project))} rendered and unchanged" in forced.stdout
    (project / "specs" / "soft_margin_loss_backward.yaml").unlink()
    kept = opgen(project, "generate")
    assert "loss/soft_margin_loss_grad/ is produced by no spec" in kept.stderr
    assert (project / "generated" / "loss" / "soft_margin_loss_grad").is_dir()
    assert written(kept) == ["OPERATORS.md"]
    pruned = opgen(project, "generate", "--prune")
    assert "pruned loss/soft_margin_loss_grad/op_kernel/soft_margin_loss_grad.cpp" in pruned.stdout
    assert "pruned loss/soft_margin_loss_grad/ (empty)" in pruned.stdout
    assert not (project / "generated" / "loss" / "soft_margin_loss_grad").exists()


def test_hand_edited_output_is_restored(project: Path) -> None:
    opgen(project, "generate")
    victim = (
        project
        / "generated"
        / "index"
        / "embedding_dense_grad_accumulate"
        / "op_api"
        / "aclnn_embedding_dense_backward.cpp"
    )
    original = victim.read_text()
    victim.write_text(original + "// hand edit\n")
    after = opgen(project, "generate")
    assert written(after) == ["index/embedding_dense_grad_accumulate/op_api/aclnn_embedding_dense_backward.cpp"]
    assert victim.read_text() == original


def test_an_op_folder_in_the_layout_before_categories_moves_keeping_what_opgen_did_not_write(project: Path) -> None:
    """A tree generated when op folders were named by the aclnn API (``generated/sigmoid_backward/``, its
    manifest recording that): generating removes the files opgen wrote there, moves the user's own file into
    the op's folder and leaves a hand-edited file whose place is taken, saying where each went."""
    opgen(project, "generate")
    out = project / "generated"
    old, new = "sigmoid_backward", "activation/sigmoid_grad"
    (out / new).rename(out / old)
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    # the records an older generator wrote: the same files at their old paths, from other inputs
    manifest["files"] = {
        rel.replace(f"{new}/", f"{old}/", 1) if rel.startswith(f"{new}/") else rel: r
        for rel, r in manifest["files"].items()
    }
    for rel, record in manifest["files"].items():
        if rel.startswith(f"{old}/"):
            record["input_hash"] = "an older generator"
    (out / MANIFEST_NAME).write_text(json.dumps(manifest))
    (out / old / "docs" / "my_notes.md").write_text("my notes\n")
    kernel = out / old / "op_kernel" / "sigmoid_grad.cpp"
    kernel.write_text(kernel.read_text() + "// my fix\n")
    before = sorted(p.relative_to(out).as_posix() for p in (out / old).rglob("*"))

    dry = opgen(project, "generate", "--dry-run")
    assert f"would move {old}/docs/my_notes.md to {new}/docs/my_notes.md" in dry.stdout
    assert f"warning: left {old}/op_kernel/sigmoid_grad.cpp where it is" in dry.stderr
    assert sorted(p.relative_to(out).as_posix() for p in (out / old).rglob("*")) == before
    assert not (out / new).exists()

    moved = opgen(project, "generate")
    assert f"moved {old}/docs/my_notes.md to {new}/docs/my_notes.md" in moved.stdout
    assert (
        f"warning: left {old}/op_kernel/sigmoid_grad.cpp where it is: the op's folder moved and "
        f"{new}/op_kernel/sigmoid_grad.cpp is taken"
    ) in moved.stderr
    assert f"warning: {old}/ is produced by no spec" in moved.stderr
    assert (out / new / "docs" / "my_notes.md").read_text() == "my notes\n"
    assert sorted(p.relative_to(out).as_posix() for p in (out / old).rglob("*") if p.is_file()) == [
        f"{old}/op_kernel/sigmoid_grad.cpp"
    ]
    assert kernel.read_text().endswith("// my fix\n")
    assert "// my fix" not in (out / new / "op_kernel" / "sigmoid_grad.cpp").read_text()
    assert len(list((out / new).rglob("*_binary.json"))) == 5
    pruned = opgen(project, "generate", "--prune")
    assert f"kept {old}/op_kernel/sigmoid_grad.cpp (changed since opgen wrote it" in pruned.stderr
    assert kernel.is_file()
