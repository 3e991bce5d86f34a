"""A reference that exits, crashes or returns something unusable fails its cases naming the reference (and
what it returned), the job gives up after three crashes in a row, and nothing of the run stalls."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from codegen.check.expectation import _compare_outputs
from codegen.check.reference import ReferenceCallError
from codegen.paths import project_paths

OP = "sigmoid_backward"
OPGEN = (sys.executable, "-m", "codegen")
# three value cases of the quick FLOAT matrix, and the example program
SELECT = (
    *("--quick", "--product", "Ascend910B", "--dtype", "FLOAT"),
    *("--case", "*block*", "--case", "*one element*", "--case", "*example*"),
)


def _check_with_reference(
    tmp_path: Path, body: str, select: tuple[str, ...] = SELECT
) -> tuple[subprocess.CompletedProcess[str], list[dict], Path]:
    """Runs ``opgen check OP`` (``select``) on a copy of the project's specs whose reference is ``body``;
    returns the process, the ``--json`` cases and the reference file."""
    src = project_paths()
    shutil.copytree(src.specs, tmp_path / "specs")
    shutil.copytree(src.reference, tmp_path / "reference")
    ref = tmp_path / "reference" / f"{OP}.py"
    ref.write_text(body)
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [*OPGEN, "--specs", str(tmp_path / "specs"), "check", OP, *select, "--timeout", "60", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, json.loads(out.read_text())["cases"], ref.resolve()


@pytest.mark.heavy(30)
def test_a_reference_that_calls_sys_exit_fails_each_case_naming_it(tmp_path: Path) -> None:
    proc, cases, ref = _check_with_reference(tmp_path, "import sys\n\n\ndef reference(**params):\n    sys.exit(3)\n")
    names = [c["name"] for c in cases]
    assert names == ["one element [1]", "one block [8]", "block+1 [9]", "example program"], names
    for c in cases:
        assert not c["passed"] and c["kind"] != "crash", c
        assert c["message"] == f"the reference {ref} exited with status 3 (sys.exit)", c
    assert "0 passed, 4 failed" in proc.stdout


@pytest.mark.heavy(30)
def test_a_reference_that_segfaults_fails_naming_the_reference_and_the_job_stops_after_three(tmp_path: Path) -> None:
    body = "import ctypes\n\n\ndef reference(**params):\n    return ctypes.string_at(0)\n"
    proc, cases, ref = _check_with_reference(tmp_path, body)
    assert [c["name"] for c in cases] == ["one element [1]", "one block [8]", "block+1 [9]", "remaining cases"]
    assert all(c["kind"] == "crash" and not c["passed"] for c in cases)
    for c in cases[:3]:
        assert c["message"].startswith(f"crashed with SIGSEGV (signal 11) in the reference {ref} (case {c['ident']})")
    assert cases[3]["message"].startswith("crash: 3 cases in a row crashed their process")
    assert "the remaining cases of this (op, product) were not run" in proc.stdout


@pytest.mark.heavy(30)
def test_a_reference_that_segfaults_in_the_example_program_fails_it_once(tmp_path: Path) -> None:
    """The example program runs last in its worker; the worker that resumes after its crash does not run it
    again (it did, for ever: a new worker every few seconds and no output)."""
    body = "import ctypes\n\n\ndef reference(**params):\n    return ctypes.string_at(0)\n"
    select = ("--quick", "--product", "Ascend910B", "--dtype", "FLOAT", "--case", "*example*")
    _, cases, ref = _check_with_reference(tmp_path, body, select)
    assert [(c["name"], c["kind"]) for c in cases] == [("example program", "crash")]
    assert cases[0]["message"].startswith(f"crashed with SIGSEGV (signal 11) in the reference {ref}")


def _reference_module(fn: object) -> types.ModuleType:
    module = types.ModuleType("opgen_reference_test")
    module.__file__ = "/refs/sigmoid_backward.py"
    module.reference = fn  # type: ignore[attr-defined]
    return module


def _compare(fn: object, out_shape: tuple[int, ...]) -> tuple[bool, float, float, str, float, str]:
    from codegen.specs import load_project

    catalogue, specs = load_project()
    x = np.linspace(0.1, 0.9, int(np.prod(out_shape)), dtype=np.float32).reshape(out_shape)
    params = {"gradOutput": x, "output": x.copy()}
    got = (np.zeros(out_shape, np.float32),)
    return _compare_outputs(specs[OP], catalogue.get("Ascend910B"), _reference_module(fn), params, got)


def test_a_reference_returning_none_is_named() -> None:
    with pytest.raises(ReferenceCallError) as info:
        _compare(lambda gradOutput, output: None, (4, 3))
    assert str(info.value) == "the reference /refs/sigmoid_backward.py returned None, not an array (a missing return?)"


def test_a_reference_returning_another_shape_is_named_with_both_shapes() -> None:
    with pytest.raises(ReferenceCallError) as info:
        _compare(lambda gradOutput, output: np.zeros(3), (4, 3))
    assert str(info.value) == (
        "the reference /refs/sigmoid_backward.py returned shape (3,) for output gradInput, whose shape is (4, 3)"
    )


def test_a_reference_of_the_right_shape_is_compared() -> None:
    ok, *_ = _compare(lambda gradOutput, output: np.zeros((4, 3)), (4, 3))
    assert ok


@pytest.mark.heavy(20)
def test_a_reference_that_ends_its_process_without_a_trace_is_named(tmp_path: Path) -> None:
    """``os._exit`` (or a signal with no Python stack printed) inside the reference: the worker's reference flag
    was set when it died, so the case names the reference, not the generated code."""
    body = "import os\n\n\ndef reference(**params):\n    os._exit(5)\n"
    select = ("--quick", "--product", "Ascend910B", "--dtype", "FLOAT", "--case", "*one element*")
    _, cases, ref = _check_with_reference(tmp_path, body, select)
    assert [c["kind"] for c in cases] == ["crash"]
    assert cases[0]["message"].startswith(f"crashed: the reference {ref} ended its process with "), cases[0]
    assert "generated" not in cases[0]["message"].splitlines()[0]
