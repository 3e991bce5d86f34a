"""Smoke tests of the benchmark suite's plumbing (bench/): no timing, no targets asserted.

The data-movement section runs for real at the small shape on one product (emulator counters into figures,
the report and the manual's benchmark block); the rest uses figures built here: the JSON layout, compare.py between
two result files, the benchmark page's markers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import compare, generation, readme, report, traffic  # noqa: E402
from bench.common import Figure, Section, Target  # noqa: E402
from bench.suite import result_data  # noqa: E402


def _meta(commit: str, quick: bool = False) -> dict[str, object]:
    machine = {"nproc": 2, "cpu_count": 2, "cpu_model": "test CPU", "python": "3", "numpy": "2", "torch": "none"}
    return {
        "schema": 1,
        "command": "python bench/run.py",
        "quick": quick,
        "started": "2025-01-01T00:00:00",
        "machine": {**machine, "git_commit": commit, "git_modified_files": 0},
        "load": {"mean": 1.0, "max": 1.5, "count": 3},
        "seconds": 1.0,
    }


def _sections(forced_s: float) -> list[Section]:
    sec = Section("generation", "1. Generation")
    forced = Figure("generation.forced_s", "forced generate", forced_s, "s", Target("<", 2.0))
    if forced.met is False:
        forced.why = "clang-format processes take most of it"
    sec.figures += [forced, Figure("generation.forced_per_op_ms", "per op", forced_s * 1e3 / 6, "ms")]
    return [sec]


@pytest.fixture(scope="module")
def traffic_section() -> Section:
    """The data-movement section at the small shape on Ascend910B (both seed ops, every variant)."""
    return traffic.run(products=("Ascend910B",), sizes=("small",))


def test_traffic_small_rows_come_from_the_counters(traffic_section: Section) -> None:
    sec = traffic_section
    assert sec.errors == []
    rows = sec.details["rows"]
    assert {r["op"] for r in rows} == {"SoftMarginLossBackward", "EmbeddingDenseBackward"}
    for r in rows:
        # the minimum is a lower bound of what any kernel moves: a formula above the counters would be wrong
        assert r["kernel_bytes"] >= r["min_bytes"] > 0, r
        assert r["min_read_bytes"] + r["min_write_bytes"] == r["min_bytes"]
        assert r["balance"] >= 1.0
        assert 0 < r["ub_fraction_pct"] <= 100.0
    # small shapes are not judged: only the "UB never above 100%" figure carries a target
    judged = [f for f in sec.figures if f.target is not None]
    assert [f.id for f in judged] == ["traffic.ub_pct_max_all"]


def test_report_and_benchmark_page_render_the_measured_figures(traffic_section: Section, tmp_path: Path) -> None:
    meta = _meta("abc")
    text = report.render(meta, [traffic_section])
    assert "## 4. Data movement" in text and "## Targets" in text
    assert "| measure | value | target | verdict |" in text
    data = json.loads(json.dumps(result_data(meta, [traffic_section])))
    block = "\n".join(report.readme_block(data))
    assert "UB high-water ÷ UB, largest over every row" in block
    target = tmp_path / "benchmarks.md"
    target.write_text(f"intro\n{readme.BEGIN}\nold\n{readme.END}\nafter\n")
    readme.update_page(data, target)
    new = target.read_text()
    assert new.startswith("intro\n") and new.endswith(f"{readme.END}\nafter\n") and "old" not in new
    assert "commit `abc`" in new


def test_benchmark_page_refuses_quick_runs_and_bad_markers(tmp_path: Path) -> None:
    data = result_data(_meta("abc", quick=True), _sections(1.0))
    target = tmp_path / "benchmarks.md"
    target.write_text(f"{readme.BEGIN}\n{readme.END}\n")
    with pytest.raises(ValueError, match="quick"):
        readme.update_page(data, target)
    readme.update_page(data, target, allow_quick=True)
    assert "QUICK" in target.read_text()
    with pytest.raises(ValueError, match="exactly one"):
        readme.replace_block("no markers", [])


def test_the_benchmark_page_holds_the_markers_the_bench_writes_between() -> None:
    """``bench/run.py --update-docs`` and ``bench/readme.py`` write into docs/benchmarks.md: it holds one marker
    pair, and the bench figures are on that page only (not left behind in the README)."""
    root = Path(__file__).resolve().parents[1]
    page = (root / readme.PAGE).read_text()
    assert readme.replace_block(page, ["x"]).count("\nx\n") == 1
    assert readme.BEGIN not in (root / "README.md").read_text()


def test_missed_targets_are_explained_in_the_report() -> None:
    sections = _sections(4.5)
    text = report.render(_meta("abc"), sections)
    assert "❌ MISSED" in text
    assert "clang-format processes take most of it" in text
    assert "0 met, 1 missed" in text


def test_compare_two_result_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(result_data(_meta("aaa"), _sections(4.0))))
    b.write_text(json.dumps(result_data(_meta("bbb"), _sections(1.5))))
    assert compare.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "`generation.forced_s`" in line)
    assert "better" in row and "MISSED → met" in row
    assert "| commit | aaa (+0 modified) | bbb (+0 modified) |" in out
    # an unchanged file hides every figure below the threshold
    lines = compare.compare(json.loads(a.read_text()), json.loads(a.read_text()), 2.0, False)
    assert any("not shown" in line for line in lines)


def test_forced_generation_explanation_uses_the_measurements() -> None:
    ops = {
        f"op{i}": {
            "render_ms": {"median": 900.0},
            "clang_format_ms": {"median": 700.0},
            "clang_format_calls": 7,
            "files": 8,
            "products": [],
        }
        for i in range(6)
    }
    probe = {"used": "/venv/bin/clang-format", "used_s": {"median": 0.074}, "native": "/x/clang-format"}
    probe["native_s"] = {"median": 0.004}
    why = generation.forced_why(4.7, 0.33, {"ops": ops}, probe)
    assert "42 clang-format processes take 4.20 s" in why
    # 42 processes x 70 ms saved: 4.7 - 2.94 = 1.76 s, within the 2 s target
    assert "forced run ≈ 1.76 s, within" in why


def test_check_section_reads_the_case_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import checking
    from bench.common import Timed

    calls: list[list[str]] = []

    def fake_run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Timed:
        calls.append(list(cmd))
        if "--json" in cmd:
            cache = Path((env or {})["OPGEN_CACHE_DIR"])
            (cache / "lib" / f"key{len(calls)}").mkdir(parents=True)  # one build per run
            cases = [
                {"op": "op_a", "product": "P", "ident": f"op_a/P/{i}", "seconds": 0.5, "passed": i != 0, "message": "x"}
                for i in range(4)
            ]
            Path(cmd[cmd.index("--json") + 1]).write_text(json.dumps({"cases": cases}))
        return Timed(80.0, 1, "3 passed, 1 failed\n")

    monkeypatch.setattr(checking, "run_timed", fake_run)
    sec = checking.run([2], cold=True)
    assert [c[c.index("check") + 1 : c.index("check") + 3] for c in calls] == [["-j", "2"], ["-j", "2"]]
    figs = {f.id: f for f in sec.figures}
    assert figs["check.cold_j2_cases_per_s"].value == pytest.approx(4 / 80.0)
    warm = figs["check.warm_j2_s"]
    assert warm.met is False and "2 s" in warm.why  # 4 cases x 0.5 s over 2 workers
    assert "1 lib" in warm.note and "not warm" in warm.note and "1 of 4 cases FAILED" in warm.note
    assert len(sec.errors) == 2  # one per run with failed cases


def test_ci_run_prints_its_step_split_and_budgets_reads_it(tmp_path: Path) -> None:
    """.ci/run's own timing (its lines up to the EXIT trap) around two steps, the second failing: the script
    exits with the step's status and prints a line per step and the total, which ``parse_ci_steps`` reads."""
    from bench.budgets import parse_ci_steps

    script = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    harness = script[: script.index("trap _ci_report EXIT")].replace('cd "$(dirname "$0")/.."', "")
    fake = tmp_path / "run"
    fake.write_text(harness + "trap _ci_report EXIT\nstep nap sleep 0.3\nstep boom bash -c 'exit 7'\nstep never true\n")
    proc = subprocess.run(["bash", str(fake)], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 7, proc.stdout + proc.stderr
    split = parse_ci_steps(proc.stdout)
    assert [s["step"] for s in split["steps"]] == ["nap", "boom"]
    nap, boom = split["steps"]
    assert nap["seconds"] >= 0.3 and float(nap["load_start"]) >= 0 and float(nap["load_end"]) >= 0
    assert boom["failed"] == 7 and boom["seconds"] is None
    assert split["total"] is not None and split["total"] >= nap["seconds"]
    assert split["load_end"] is not None and len(split["load_end"]) == 3


def test_only_merges_into_the_result_file_and_the_page_says_where_each_section_is_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import suite

    results = tmp_path / "results.json"
    earlier = Section("emulator", "2. Emulator")
    earlier.figures.append(Figure("emulator.calls_per_s", "calls per second", 123.0, "1/s"))
    results.write_text(json.dumps(result_data(_meta("old1"), [earlier]), default=float))
    monkeypatch.setattr(generation, "run", lambda reps: _sections(1.0)[0])
    assert suite.main(["--only", "generation", "--json", str(results)]) == 0
    data = json.loads(results.read_text())
    assert list(data["sections"]) == ["generation", "emulator"]
    assert data["figures"]["emulator.calls_per_s"]["value"] == 123.0
    assert data["figures"]["generation.forced_s"]["value"] == 1.0
    assert data["meta"]["earlier"]["emulator"]["git_commit"] == "old1"
    block = report.readme_block(data)
    assert block[0].endswith("(sections generation).")
    assert block[1] == "Sections emulator: measured 2025-01-01 on commit `old1`, `python bench/run.py`."
    # an --only run into a file that is not a result file writes nothing
    results.write_text("{}")
    assert suite.main(["--only", "generation", "--json", str(results)]) == 1
    assert results.read_text() == "{}"
