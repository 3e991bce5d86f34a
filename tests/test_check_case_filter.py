"""``opgen check --case PATTERN``: the planned matrix narrowed to the cases whose ident matches, nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OPGEN = [sys.executable, "-m", "codegen"]
SELECT = ["check", "softmax", "--quick", "--product", "Ascend910B"]


def _idents(report: Path) -> list[str]:
    return [c["ident"] for c in json.loads(report.read_text())["cases"]]


def test_a_pattern_runs_exactly_the_matching_cases(tmp_path: Path) -> None:
    narrowed = tmp_path / "narrowed.json"
    proc = subprocess.run(
        [*OPGEN, *SELECT, "--case", "*/FLOAT16 */empty*", "--case", "*/example/*", "--json", str(narrowed)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(_idents(narrowed)) == [
        "softmax/Ascend910B/FLOAT16 (out FLOAT16)/empty R (dim -1)",
        "softmax/Ascend910B/FLOAT16 (out FLOAT16)/empty outer (dim 1)",
        "softmax/Ascend910B/example/example program",
    ]
    assert json.loads(narrowed.read_text())["meta"]["options"]["cases"] == ["*/FLOAT16 */empty*", "*/example/*"]


def test_a_pattern_matching_nothing_is_exit_2_naming_it(tmp_path: Path) -> None:
    proc = subprocess.run([*OPGEN, *SELECT, "--case", "*no such case*"], capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "nothing to check: no case of the selected ops and products matches --case '*no such case*'"
    )


def test_a_pattern_only_the_full_matrix_matches_says_so_under_quick() -> None:
    pattern = "*/FLOAT16/*empty*"  # soft_margin_loss_backward's quick matrix runs its empty case in FLOAT only
    proc = subprocess.run(
        [*OPGEN, "check", "soft_margin_loss_backward", "--quick", "--product", "Ascend910B", "--case", pattern],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        f"nothing to check: no case of the selected ops and products matches --case '{pattern}'; without --quick "
        "1 case(s) match (the quick matrix runs fewer)"
    )


def test_case_and_shard_do_not_combine() -> None:
    proc = subprocess.run(
        [*OPGEN, *SELECT, "--case", "*", "--shard", "1/2"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "--case does not combine with --shard" in proc.stderr
