"""A case that never returns fails as a ``timeout`` naming it while the rest of the matrix runs, and Ctrl-C
stops ``opgen check`` promptly with a one-line summary and no traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegen.check.cases import Case
from codegen.check.result_files import MergeError, merge_results
from codegen.check.worker import BASE_TIMEOUT_SECONDS, case_timeout
from codegen.paths import project_paths

OP = "sigmoid_backward"
OPGEN = (sys.executable, "-m", "codegen")
SELECT = ("--quick", "--product", "Ascend910B", "--dtype", "FLOAT")
# The reference never returns for the 9-element case (and only there).
LOOPING = """
import numpy as np


def reference(gradOutput, output):
    g, y = np.asarray(gradOutput, np.float64), np.asarray(output, np.float64)
    while np.broadcast_shapes(g.shape, y.shape) == (9,):
        pass
    return np.broadcast_to(g * y * (1.0 - y), np.broadcast_shapes(g.shape, y.shape))
"""


@pytest.fixture
def looping_specs(tmp_path: Path) -> Path:
    """A spec directory (a copy of the project's) whose sigmoid_backward reference loops for ever on [9]."""
    src = project_paths()
    shutil.copytree(src.specs, tmp_path / "specs")
    shutil.copytree(src.reference, tmp_path / "reference")
    (tmp_path / "reference" / f"{OP}.py").write_text(LOOPING)
    return tmp_path / "specs"


def test_a_reference_that_never_returns_is_a_timeout_and_the_rest_of_the_matrix_runs(
    looping_specs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [*OPGEN, "--specs", str(looping_specs), "check", OP, *SELECT, "--timeout", "3", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    cases = json.loads(out.read_text())["cases"]
    failed = [c for c in cases if not c["passed"]]
    ident = f"{OP}/Ascend910B/FLOAT/block+1 [9]"
    assert [(c["ident"], c["kind"]) for c in failed] == [(ident, "timeout")]
    assert failed[0]["message"].startswith(f"timeout: case {ident} did not finish within 3 s, the --timeout;")
    from codegen.check.driver import cases_for
    from codegen.specs import load_project

    catalogue, specs = load_project()
    matrix = cases_for(specs[OP], catalogue.get("Ascend910B"), {"FLOAT"}, True)
    # every case of the matrix ran (the ones after the timeout too), then the example program
    assert [c["name"] for c in cases[:-1]] == [c.name for c in matrix] and cases[-1]["name"] == "example program"
    assert f"FAIL {ident}: timeout: case {ident} did not finish within 3 s" in proc.stdout
    assert f"{len(matrix)} passed, 1 failed" in proc.stdout


def test_the_default_time_limit_grows_with_the_case_size() -> None:
    import numpy as np

    small = Case("op", "P", "FLOAT", "[1]", "one", {"x": np.zeros(1, np.float32)})
    big = Case("op", "P", "FLOAT", "[2**22]", "big", {"x": np.zeros(1 << 22, np.float32), "n": 3})
    assert case_timeout(small, None, False) == pytest.approx(BASE_TIMEOUT_SECONDS + 4 / 2**20)
    assert case_timeout(big, None, False) == pytest.approx(BASE_TIMEOUT_SECONDS + 16)
    assert case_timeout(big, None, True) == pytest.approx(4 * (BASE_TIMEOUT_SECONDS + 16))
    assert case_timeout(big, None, False, coverage=True) == pytest.approx(4 * (BASE_TIMEOUT_SECONDS + 16))
    assert case_timeout(big, None, True, coverage=True) == pytest.approx(16 * (BASE_TIMEOUT_SECONDS + 16))
    assert case_timeout(big, 2.5, True) == 2.5
    assert case_timeout(big, 2.5, False, coverage=True) == 2.5


def _workers_of(mark: str) -> list[int]:
    """Pids of the ``codegen.check.worker`` processes whose environment carries ``OPGEN_TEST_MARK=mark``
    (inherited from the ``opgen check`` this test started; other runs on the machine are not counted, and a
    worker reparented after its parent died still is)."""
    found = []
    needle = f"OPGEN_TEST_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes() if b"codegen.check.worker" in cmdline else b""
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_stops_check_with_a_summary_line_and_no_traceback(
    looping_specs: Path, jobs: str, sig: signal.Signals, tmp_path: Path
) -> None:
    """Ctrl-C, and SIGTERM as a CI timeout or ``timeout(1)`` sends it (found by a review helper: it left an
    earlier run's --json file in place, looking current), stop the run the same way."""
    mark = f"{os.getpid()}-{jobs}-{time.monotonic_ns()}"
    out = tmp_path / "r.json"
    out.write_text('{"passed": 79, "failed": 0, "meta": {}, "cases": []}')  # an earlier run's file
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "codegen", "--specs", str(looping_specs), "check", OP, *SELECT, "-j", jobs),
            *("--json", str(out)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OPGEN_TEST_MARK": mark},
        # Ctrl-C as in a terminal: a run started in the background of a non-interactive shell (`cmd &`)
        # inherits SIGINT ignored, which Python keeps, so the signal would never reach opgen check
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 600
        while not _workers_of(mark):  # wait until a case worker runs (the reference then loops)
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        time.sleep(2)  # well inside the looping case (its default limit is a minute)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    lines = stderr.strip().splitlines()
    how = "interrupted" if sig == signal.SIGINT else "interrupted (SIGTERM)"
    assert lines[-1] == (
        f"{how}: 0 of 1 (op, product) jobs finished (0 cases in them: 0 passed, 0 failed); the cases of the jobs "
        "that were stopped are not counted"
    )
    time.sleep(1)
    assert not _workers_of(mark)  # no worker left behind
    # the --json file is this run's, marked interrupted, and no shard of a merge
    assert f"wrote {out}" in lines
    data = json.loads(out.read_text())
    assert (data["passed"], data["failed"], data["cases"]) == (0, 0, [])
    assert data["meta"]["interrupted"] == {"jobs_done": 0, "jobs_total": 1}
    with pytest.raises(MergeError, match="written by an interrupted run \\(0 of 1 jobs finished\\)"):
        merge_results([out])


def test_a_reference_that_hangs_on_every_input_gives_up_the_job_after_three_timeouts(tmp_path: Path) -> None:
    """Three timeouts in a row end the (op, product) job with one ``remaining cases`` failure of kind
    ``timeout``, instead of one full time limit per case of the matrix."""
    src = project_paths()
    shutil.copytree(src.specs, tmp_path / "specs")
    shutil.copytree(src.reference, tmp_path / "reference")
    (tmp_path / "reference" / f"{OP}.py").write_text("def reference(**params):\n    while True:\n        pass\n")
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [*OPGEN, "--specs", str(tmp_path / "specs"), "check", OP, *SELECT, "--timeout", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    cases = json.loads(out.read_text())["cases"]
    value = [c for c in cases if c["kind"] == "timeout"]
    assert [c["name"] for c in value][-1] == "remaining cases"
    assert len(value) == 4 and all(not c["passed"] for c in value)
    assert "3 cases in a row ran past their time limit" in value[-1]["message"]
