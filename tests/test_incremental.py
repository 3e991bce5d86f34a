"""Incremental generation: the manifest skips unchanged inputs, a template edit rewrites exactly the files
that template produces, --force re-renders, removed ops are reported and deleted only with --prune."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_copy import copy_project

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
    kernel_template.write_text(
        kernel_template.read_text().replace("// Lowered: {{ formula }}", "// Lowered: {{ formula }}\n// edited")
    )
    after = opgen(project, "generate")
    _, specs = load_project()
    elementwise = {op for op, spec in specs.items() if spec.family == "elementwise"}
    elementwise_kernels = [f for f in all_files(project) if "/op_kernel/" in f and f.split("/")[0] in elementwise]
    assert "soft_margin_loss_backward/op_kernel/soft_margin_loss_grad.cpp" in elementwise_kernels
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
    kernels = [f for f in all_files(project) if "/op_kernel/" in f]
    assert "embedding_dense_backward/op_kernel/embedding_dense_grad_accumulate.cpp" in kernels
    assert "sigmoid_backward/op_kernel/sigmoid_grad.cpp" in kernels
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
    # The description appears only in the document; the op's 22 other files are rendered, found equal and
    # left alone, and the other op is not rendered at all.
    assert written(after) == ["soft_margin_loss_backward/docs/aclnnSoftMarginLossBackward.md"]
    assert "1 written, 22 rendered and unchanged" in after.stdout


def test_force_rerenders_and_prune_removes_orphans(project: Path) -> None:
    opgen(project, "generate")
    forced = opgen(project, "generate", "--force")
    assert written(forced) == []
    assert f"{len(all_files(project))} rendered and unchanged" in forced.stdout
    (project / "specs" / "soft_margin_loss_backward.yaml").unlink()
    kept = opgen(project, "generate")
    assert "soft_margin_loss_backward/ is produced by no spec" in kept.stderr
    assert (project / "generated" / "soft_margin_loss_backward").is_dir()
    assert written(kept) == ["OPERATORS.md"]
    pruned = opgen(project, "generate", "--prune")
    assert "pruned soft_margin_loss_backward/op_kernel/soft_margin_loss_grad.cpp" in pruned.stdout
    assert "pruned soft_margin_loss_backward/ (empty)" in pruned.stdout
    assert not (project / "generated" / "soft_margin_loss_backward").exists()


def test_hand_edited_output_is_restored(project: Path) -> None:
    opgen(project, "generate")
    victim = project / "generated" / "embedding_dense_backward" / "op_api" / "aclnn_embedding_dense_backward.cpp"
    original = victim.read_text()
    victim.write_text(original + "// hand edit\n")
    after = opgen(project, "generate")
    assert written(after) == ["embedding_dense_backward/op_api/aclnn_embedding_dense_backward.cpp"]
    assert victim.read_text() == original
