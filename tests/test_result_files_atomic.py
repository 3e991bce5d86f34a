"""The result files of ``opgen check`` never stand for a run they do not hold: while a run is going (and after
it was killed with SIGKILL, which no handler sees) ``--json`` says the run has not finished, so that `opgen
report merge` refuses it, and ``--junit`` has an error; an interrupted run's JUnit has one too; a write that
fails (a full disk) leaves the previous file whole. Found by a review helper: a killed shard's previous JSON
merged as if it were the new run's, a full disk left a truncated JSON, an interrupted run's JUnit was green."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from codegen.check import driver
from codegen.check.result_files import MergeError, merge_results, write_atomically, write_junit
from codegen.check.results import CaseResult
from codegen.cli import main

SELECTION = ["sigmoid_backward", "--quick", "--dtype", "FLOAT", "--product", "Ascend910B", "-j", "1"]


def _result(ident: str, passed: bool = True) -> CaseResult:
    op, product, dtype, name = ident.split("/", 3)
    return CaseResult(ident, op, product, dtype, "[4]", name, passed, 0, 0.0, 0.0, "" if passed else "bad", 0.01)


def test_the_result_files_say_the_run_has_not_finished_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    report.write_text('{"an earlier run": true}')
    seen: dict[str, Any] = {}

    def run_check(jobs: list[Any], *args: Any, **kwargs: Any) -> list[CaseResult]:
        # what a SIGKILL at this moment would leave behind
        seen["json"] = json.loads(report.read_text())
        seen["junit"] = ET.parse(junit).getroot()
        with pytest.raises(MergeError, match=r"written by an interrupted run \(0 of 1 jobs finished\)"):
            merge_results([report])
        return [_result("sigmoid_backward/Ascend910B/FLOAT/a")]

    monkeypatch.setattr(driver, "run_check", run_check)
    assert main(["check", *SELECTION, "--json", str(report), "--junit", str(junit)]) == 0
    capsys.readouterr()
    assert seen["json"]["cases"] == [] and seen["json"]["meta"]["interrupted"]["running"] is True
    errors = seen["junit"].findall("./testsuite/testcase/error")
    assert seen["junit"].get("errors") == "1" and len(errors) == 1
    assert "has not finished" in errors[0].get("message")
    # the finished run's files replace them
    done = json.loads(report.read_text())
    assert done["passed"] == 1 and "interrupted" not in done["meta"]
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "0" and root.findall("./testsuite/testcase/error") == []
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_junit_of_an_unfinished_run_is_not_green(tmp_path: Path) -> None:
    path = tmp_path / "j.xml"
    write_junit([_result("op/P/FLOAT/a")], path, "the run was interrupted: 1 of 3 (op, product) jobs finished")
    root = ET.parse(path).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "0", "1")
    (error,) = root.findall("./testsuite/testcase/error")
    assert error.get("message") == "the run was interrupted: 1 of 3 (op, product) jobs finished"
    write_junit([_result("op/P/FLOAT/a")], path)
    assert ET.parse(path).getroot().get("errors") == "0"


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.json"
    path.write_text("the previous run's file\n")

    def full_disk(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, "x" * 100000)
    assert path.read_text() == "the previous run's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_device_path_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    write_atomically(Path(os.devnull), "results")
    assert not Path(os.devnull).is_file()


def test_a_device_path_gets_only_the_final_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--json /dev/stdout`` prints one JSON document, the finished run's, not the running placeholder too."""
    import codegen.check.result_files as rf

    original = rf.write_json
    written: list[tuple[Path, Any]] = []

    def spy(results: list[CaseResult], path: Path, meta: dict[str, Any] | None = None) -> None:
        written.append((path, (meta or {}).get("interrupted")))
        original(results, path, meta)

    monkeypatch.setattr(driver, "run_check", lambda *args, **kwargs: [_result("sigmoid_backward/Ascend910B/FLOAT/a")])
    monkeypatch.setattr(rf, "write_json", spy)
    assert main(["check", *SELECTION, "--json", os.devnull]) == 0
    assert written == [(Path(os.devnull), None)]
