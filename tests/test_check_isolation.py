"""`opgen check` survives generated code that crashes the process: each (op, product) runs its cases in a
worker process; a crash fails the case it happened in (naming the signal) and the rest of the matrix runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from codegen.check.worker import case_units, signal_name

OP = "soft_margin_loss_backward"
OPGEN = (sys.executable, "-m", "codegen")
FLOAT_ON_910B = ("--product", "Ascend910B", "--dtype", "FLOAT")
TILING = "op_host/soft_margin_loss_grad_tiling.cpp"
ANCHOR = "  const int64_t totalBlocks = CeilDiv(totalLength, blockElems);\n"
# Two faults the emulator cannot see: an integer division by zero for 9 elements (the FLOAT "block+1"
# case) and a null write for 8 elements (the "one block" case).
CRASHES = (
    "  if (totalLength == 9) { volatile int64_t zero = 0; volatile int64_t q = totalLength / zero; (void)q; }\n"
    "  if (totalLength == 8) { *static_cast<volatile int *>(nullptr) = 1; }\n"
)


def test_signal_names() -> None:
    assert signal_name(-8) == "SIGFPE (signal 8)"
    assert signal_name(-11) == "SIGSEGV (signal 11)"
    assert signal_name(3) == "exit status 3"


def test_crashing_cases_fail_and_the_rest_of_the_matrix_runs(
    broken_tree: Callable[[str, str, str, str], Path], tmp_path: Path
) -> None:
    tree = broken_tree(OP, TILING, ANCHOR, CRASHES + ANCHOR)
    out = tmp_path / "check.json"
    proc = subprocess.run(
        [*OPGEN, "check", OP, "--generated", str(tree), "--quick", *FLOAT_ON_910B, "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
        env=dict(os.environ),
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    cases = json.loads(out.read_text())["cases"]
    failed = {c["name"]: c["message"] for c in cases if not c["passed"]}
    assert set(failed) == {"one block [8]", "block+1 [9]"}, failed
    assert failed["block+1 [9]"].startswith(
        f"crashed: the process running case {OP}/Ascend910B/FLOAT/block+1 [9] was killed by SIGFPE (signal 8)"
    )
    assert failed["one block [8]"].startswith(
        f"crashed: the process running case {OP}/Ascend910B/FLOAT/one block [8] was killed by SIGSEGV (signal 11)"
    )
    # Every other case of the matrix ran (and passed) after the two crashes, in matrix order.
    from codegen.check.driver import cases_for
    from codegen.specs import load_project

    catalogue, specs = load_project()
    expected = case_units(cases_for(specs[OP], catalogue.get("Ascend910B"), {"FLOAT"}, True), ("in_order",))
    names = [c["name"] for c in cases]
    assert names == [case.name for case, _ in expected] + ["example program"]
    assert sum(c["passed"] for c in cases) == len(cases) - 2
    assert "2 failed" in proc.stdout and "SIGFPE (signal 8)" in proc.stdout


def test_a_broken_reference_fails_its_op_and_the_other_ops_are_checked(tmp_path: Path) -> None:
    from codegen.paths import project_paths

    src = project_paths()
    root = tmp_path / "proj"
    for name in ("specs", "templates", "reference", "runtime", "generated"):
        shutil.copytree(src.root / name, root / name)
    (root / "reference" / "sigmoid_backward.py").write_text("import numpy as np\n\nSCALE = 1 / 0\n")
    (root / "reference" / "mse_loss_backward.py").write_text("def tolerance():\n    return 0.0, 0.0\n")
    js = tmp_path / "r.json"
    proc = subprocess.run(
        [*OPGEN, "check", "sigmoid_backward", "mse_loss_backward", OP, "--quick", *FLOAT_ON_910B, "--json", str(js)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
        env={**os.environ, "OPGEN_ROOT": str(root)},
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    cases = json.loads(js.read_text())["cases"]
    failed = {c["op"]: c["message"] for c in cases if not c["passed"]}
    ref = root / "reference"
    assert failed == {
        "sigmoid_backward": f"reference {ref / 'sigmoid_backward.py'} failed to import: "
        "ZeroDivisionError: division by zero",
        "mse_loss_backward": f"reference {ref / 'mse_loss_backward.py'} defines no function "
        "reference(**params) -> np.ndarray",
    }
    # the third op still ran its whole matrix
    assert sum(c["op"] == OP and c["passed"] for c in cases) > 20


def test_numpy_warnings_of_a_reference_stay_inside_the_checker() -> None:
    import types
    import warnings

    import numpy as np

    from codegen.check.case_run import run_case
    from codegen.check.cases import Case
    from codegen.specs import load_project

    _, specs = load_project()
    spec = specs["sigmoid_backward"]

    class FakeOp:  # the op's result: log(-1) is NaN, which the reference also gives
        def __init__(self) -> None:
            self.spec = spec
            self.last_stats: dict[str, object] = {}

        def __call__(self, **params: object) -> np.ndarray:
            return np.array([np.nan, 0.5], np.float32)

    ref = types.ModuleType("ref")
    ref.reference = lambda **params: np.log(np.array([-1.0, np.sqrt(np.e)]))  # type: ignore[attr-defined]
    case = Case(spec.snake, "Ascend910B", "FLOAT", "x", "warning case", {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_case(FakeOp(), case, ref)  # type: ignore[arg-type]
    assert [str(w.message) for w in caught] == []
    assert result.passed, result.message
    assert result.max_abs_err == 0.0
