"""Checking a mutant of a generated op folder as ``opgen check --generated`` checks it: the shared steps of the
tests that keep a fault a review found as a mutant (copy ``generated/<op>``, apply exact text edits whose
anchors must occur once, run the quick check on one product and dtype, read the failed cases).

A mutant of a host file runs the command itself (``opgen check --generated``, a subprocess): its library
shares the kernel object of the unmutated build, so only the edited unit is compiled. A mutant of the kernel
runs the check's own job in this process instead (:func:`codegen.check.worker.run_isolated`, the check's worker
processes, its cases, judging and example program) on a build whose kernel is compiled for the tiling keys
the job launches only, at -O0, as tests/test_mutations.py builds its kernel mutants: the keys are those the
same job launches on the unmutated op (the check's key pre-pass, :func:`codegen.check.driver.launched_tiling_keys`,
on the unmutated build the rest of the suite shares), since a kernel edit does not change the host code that
picks them. A launch of any other key would be a ``[tiling key not built]`` fault, which fails the calling
test as a harness error, never as a kill. A whole kernel at -O1 (every dtype and strategy key) is by far the
longest step of such a check; the cases, their verdicts and the example program are the same."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()

#: The fault of a launch of a tiling key a filtered build did not compile
#: (runtime/include/opgen_rt/device/core_state.h).
KEY_NOT_BUILT = "[tiling key not built]"


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
    replacement) applied (for ``kernel_cpp``, the same job in this process on a key-filtered -O0 kernel: see
    the module's text). Asserts every anchor occurs exactly once and some case failed (the command exits with
    status 1), so a mutant that survives or an anchor that no longer matches fails the calling test; a
    kernel mutant's failed case must not be a launch of a key its build left out."""
    root = tmp_path / "gen"
    folder = SPECS[op].folder
    shutil.copytree(project_paths().generated / folder, root / folder)
    target = root / folder / op_files(SPECS[op])[kind]
    text = target.read_text()
    for anchor, replacement in edits:
        assert text.count(anchor) == 1, f"an anchor occurs {text.count(anchor)} times in {target.name}: {anchor!r}"
        text = text.replace(anchor, replacement)
    target.write_text(text)
    if kind == "kernel_cpp":
        failed = [c for c in kernel_mutant_results(root, op, dtype, product) if not c["passed"]]
        assert failed
        return failed
    report = tmp_path / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", op, "--generated", str(root), "--quick", "--dtype", dtype]
    cmd += ["--product", product, "-j", "1", "--json", str(report)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    failed = [c for c in json.loads(report.read_text())["cases"] if not c["passed"]]
    assert failed
    return failed


def kernel_mutant_results(
    tree: Path,
    op: str,
    dtype: str | None,
    product: str,
    *,
    base: Path | None = None,
    specs_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """Every result (the dicts ``opgen check --json`` writes, in its order) of ``opgen check <op> --quick
    [--dtype <dtype>] --product <product> --generated <tree> [--specs <specs_dir>]`` for a tree whose only edit
    is in the op's kernel: the check's job run in this process (:func:`codegen.check.worker.run_isolated`: its worker
    processes, cases, judging and example program) on a build of ``tree`` whose kernel is compiled at -O0 for
    the tiling keys the same job launches on the unmutated op of ``base`` (a generated tree; None: the
    project's ``generated/``), which the check's key pre-pass lists
    (:func:`codegen.check.driver.launched_tiling_keys`). Asserts that no case launched a key the build left
    out (a harness error, never a kill)."""
    from codegen.build import build_op
    from codegen.check.driver import launched_tiling_keys
    from codegen.check.results import Job, result_dict
    from codegen.check.worker import run_isolated

    catalogue, specs = load_project(specs_dir) if specs_dir is not None else (CATALOGUE, SPECS)
    spec, target = specs[op], catalogue.get(product)
    # what `opgen check <op> --quick --dtype <dtype> --product <product>` runs: one job, the quick core order
    dtypes = () if dtype is None else (dtype,)
    job = Job(op, product, dtypes, True, None, ("in_order",), False, None if specs_dir is None else str(specs_dir))
    keys = launched_tiling_keys(replace(job, generated=None if base is None else str(base)), spec, target, base)
    assert keys, f"the quick cases of {op} ({dtype or 'every dtype'}) launch no kernel on {product}"
    built = build_op(spec, target, tree, jobs=1, tiling_keys=keys, unoptimized_kernel=True)
    results = run_isolated(replace(job, generated=str(tree)), built.library, built.key)
    harness = [r.message for r in results if KEY_NOT_BUILT in r.message]
    assert not harness, harness[0]
    return [result_dict(r) for r in results]
