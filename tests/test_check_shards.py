"""Sharding the check matrix, merging the shards and JUnit output (issue 18, item 3).

The end-to-end tests run ``opgen check`` on a small selection (SigmoidBackward, FLOAT16, quick, three
products of which two share a fingerprint) from a copy of the spec directory whose reference is deliberately
wrong for every case with an odd number of elements, so the matrix has failures. One full run is the
expectation; the shards of N = 1..4 must hold every one of its cases exactly once, and ``opgen report
merge`` of them must print the same totals and failures and exit with the same status.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from project_copy import spec_dir_with_reference

from codegen.check.driver import CaseResult, Job
from codegen.check.matrix import CaseCosts, Unit, assign_shards, idents_digest, job_units
from codegen.check.result_files import MergeError, merge_results, write_json, write_junit
from codegen.cli import main
from codegen.cli.options import MAX_SHARDS

pytestmark = pytest.mark.heavy(60)  # about 60 s alone: scheduled before lighter files

OP = "sigmoid_backward"
SELECTION = [OP, "--quick", "--dtype", "FLOAT16", "--product", "Ascend910B", "--product", "Ascend910_93"]
SELECTION += ["--product", "Ascend910", "-j", "1"]

WRONG_REFERENCE = """
import numpy as np


def reference(gradOutput, output):
    g, y = (np.asarray(a, dtype=np.float64) for a in (gradOutput, output))
    shape = np.broadcast_shapes(g.shape, y.shape)
    exact = np.broadcast_to(g * y * (1.0 - y), shape).astype(np.float64)
    # deliberately wrong (1% too large) for every output with an odd number of elements
    return exact * 1.01 + 1e-3 if exact.size % 2 == 1 else exact
"""


@pytest.fixture(scope="module")
def specs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return spec_dir_with_reference(tmp_path_factory.mktemp("shards"), OP, WRONG_REFERENCE)


def _check(specs: Path, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    status = main(["--specs", str(specs), "check", *SELECTION, "--json", str(out), *extra])
    return status, json.loads(out.read_text())


@pytest.fixture(scope="module")
def full_run(specs_dir: Path) -> tuple[int, dict[str, Any]]:
    # a --costs file that does not exist yet: an unsharded run creates it
    return _check(specs_dir, specs_dir.parent / "full.json", "--costs", str(specs_dir.parent / "full-costs.json"))


def _failures(data: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((c["ident"], c["message"]) for c in data["cases"] if not c["passed"])


def test_the_full_run_has_failures_and_covers_the_pair(full_run: tuple[int, dict[str, Any]], specs_dir: Path) -> None:
    status, data = full_run
    recorded = json.loads((specs_dir.parent / "full-costs.json").read_text())["seconds"]
    assert set(recorded) == {c["ident"] for c in data["cases"] if not c["covered_by"]}
    assert status == 1
    assert data["failed"] > 0 and data["passed"] > 0
    # --dtype FLOAT16 selects no example program: the spec's example computes on FLOAT
    assert [c["ident"] for c in data["cases"] if c["name"] == "example program"] == []
    assert {c["dtype"] for c in data["cases"]} <= {"FLOAT16", "-"}
    covered = {c["product"] for c in data["cases"] if c["covered_by"] == "Ascend910B"}
    assert covered == {"Ascend910_93"}
    ran = [c for c in data["cases"] if c["product"] == "Ascend910B"]
    assert len(ran) == sum(c["product"] == "Ascend910_93" for c in data["cases"])


@pytest.fixture(scope="module")
def shard_runs(specs_dir: Path) -> Callable[[int], list[Path]]:
    """``shard_runs(count)``: the result files of ``opgen check`` of the selection with ``--shard k/count`` for
    k = 1..count, run one after the other when first asked for and then kept for the module (the tests only
    read them): the shard tests of ``count`` = 2 and every test of :func:`two_shards` read the same two runs."""
    made: dict[int, list[Path]] = {}

    def get(count: int) -> list[Path]:
        if count not in made:
            files = []
            for k in range(1, count + 1):
                path = specs_dir.parent / f"shard{k}of{count}.json"
                _check(specs_dir, path, "--shard", f"{k}/{count}")
                files.append(path)
            made[count] = files
        return made[count]

    return get


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_shards_hold_every_case_once_and_merge_into_the_full_run(
    count: int,
    shard_runs: Callable[[int], list[Path]],
    full_run: tuple[int, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    full_status, full = full_run
    files = shard_runs(count)
    idents = Counter(c["ident"] for f in files for c in json.loads(f.read_text())["cases"])
    assert set(idents) == {c["ident"] for c in full["cases"]}
    assert max(idents.values()) == 1, [i for i, n in idents.items() if n > 1]
    capsys.readouterr()
    merged_json = tmp_path / "merged.json"
    status = main(["report", "merge", *map(str, reversed(files)), "--json", str(merged_json)])
    printed = capsys.readouterr().out
    merged = json.loads(merged_json.read_text())
    assert status == full_status == 1
    assert (merged["passed"], merged["failed"]) == (full["passed"], full["failed"])
    assert _failures(merged) == _failures(full)
    assert printed.rstrip().endswith(f"{full['passed']} passed, {full['failed']} failed")


@pytest.fixture(scope="module")
def two_shards(shard_runs: Callable[[int], list[Path]]) -> tuple[Path, Path]:
    """The result files of shards 1/2 and 2/2 of the selection (:func:`shard_runs`)."""
    a, b = shard_runs(2)
    return a, b


def test_a_missing_or_repeated_shard_and_different_inputs_are_errors(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_shards
    capsys.readouterr()
    assert main(["report", "merge", str(a)]) == 2
    assert "shard(s) 2/2 missing" in capsys.readouterr().err
    assert main(["report", "merge", str(a), str(a)]) == 2
    assert "are both shard 1/2" in capsys.readouterr().err
    # a shard of another spec version
    other = json.loads(b.read_text())
    other["meta"]["inputs"] = "0" * 24
    c = tmp_path / "c.json"
    c.write_text(json.dumps(other))
    assert main(["report", "merge", str(a), str(c)]) == 2
    assert "different specs" in capsys.readouterr().err


def test_shards_of_different_counts_are_named_as_such_not_as_other_plans(
    two_shards: tuple[Path, Path], specs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review helper merged shard 1/2 with shards 2/3 and 3/3 of the same inputs: the message blamed the
    case costs ("different shard plans") instead of the shard count."""
    a, _ = two_shards
    third = tmp_path / "s3.json"
    _check(specs_dir, third, "--shard", "3/3")
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(third)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"error: {third} is shard 3/3 but {a} is of 2 shards"]


def test_a_shard_of_a_huge_or_impossible_count_is_one_short_error(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that says it is shard 1 of 10**20 is answered at once, naming the first missing shards and how
    many more (not a list of them all); a shard number outside 1..N is named as such."""
    a, _ = two_shards
    capsys.readouterr()
    huge = _edited(a, tmp_path / "huge.json", lambda d: d["meta"].update(shard=[1, 10**20]))
    assert main(["report", "merge", str(huge)]) == 2
    err = capsys.readouterr().err
    assert f"shard(s) 2/{10**20}, 3/{10**20}, 4/{10**20}, 5/{10**20}, 6/{10**20} and {10**20 - 6} more missing" in err
    assert len(err) < 500
    beyond = _edited(a, tmp_path / "beyond.json", lambda d: d["meta"].update(shard=[3, 2]))
    assert main(["report", "merge", str(beyond)]) == 2
    assert f"{beyond}: shard 3/2 is not one of 2 shards" in capsys.readouterr().err


def _edited(source: Path, into: Path, edit: Any) -> Path:
    data = json.loads(source.read_text())
    edit(data)
    into.write_text(json.dumps(data))
    return into


def test_a_shard_without_its_metadata_is_one_error_line_naming_the_file(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shard whose ``meta`` was deleted or emptied: not 'different opgen versions: None != ...'."""
    a, b = two_shards
    capsys.readouterr()
    gone = _edited(b, tmp_path / "gone.json", lambda d: d.pop("meta"))
    for files in ([a, gone], [gone, a], [gone]):
        assert main(["report", "merge", *map(str, files)]) == 2
        assert capsys.readouterr().err.splitlines() == [
            f"error: {gone}: no 'meta' (the run's metadata: opgen version, inputs, options, shard and plan); the "
            "file was edited or not written by `opgen check --json`"
        ]
    empty = _edited(b, tmp_path / "empty.json", lambda d: d.update(meta={}))
    assert main(["report", "merge", str(a), str(empty)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {empty}: its metadata has no 'opgen', 'inputs', 'options', 'plan' (written by an older opgen, or "
        "edited)"
    ]


@pytest.mark.parametrize("field", ["message", "name"])
def test_a_lone_surrogate_in_a_shard_is_one_error_line(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    """JSON may escape a lone surrogate (``\\ud800``); no UTF-8 output can hold it (printing a failed case's
    message raised UnicodeEncodeError). The file is refused, named, with the place of the string."""
    a, b = two_shards
    data = json.loads(b.read_text())
    data["cases"][2][field] = "MARK"
    data["cases"][2]["passed"] = False
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data).replace('"MARK"', '"bad \\ud800 text"'))
    assert "\\ud800" in bad.read_text()
    capsys.readouterr()
    for extra in ([], ["--json", str(tmp_path / "m.json")], ["--junit", str(tmp_path / "m.xml")]):
        assert main(["report", "merge", str(a), str(bad), *extra]) == 2
        captured = capsys.readouterr()
        assert captured.err.splitlines() == [
            f"error: {bad}: cases[2].{field} holds a lone surrogate (a \\ud800-\\udfff escape), which no UTF-8 text "
            "can hold; `opgen check --json` never writes one (an edited file?)"
        ]
        assert captured.out == ""
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "m.xml").exists()


def test_a_shard_run_on_an_edited_catalogue_is_named_as_such(
    specs_dir: Path, two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 2 run with a products.yaml whose Ascend910B/Ascend910_93 have fewer cores (another fingerprint):
    the merge names the product catalogue as what differs."""
    a, _ = two_shards
    edited = tmp_path / "specs"
    shutil.copytree(specs_dir, edited)
    shutil.copytree(specs_dir.parent / "reference", tmp_path / "reference")
    catalogue = (edited / "products.yaml").read_text()
    assert catalogue.count("vector_core_num: 48\n") == 2
    (edited / "products.yaml").write_text(catalogue.replace("vector_core_num: 48\n", "vector_core_num: 40\n"))
    c = tmp_path / "c.json"
    _check(edited, c, "--shard", "2/2")
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(c)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {c} and {a} come from different product catalogues (products.yaml: the product set or a "
        "product's resources)"
    ]


def test_a_shard_that_lost_cases_is_an_error_naming_the_file_and_the_count(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_shards
    original = json.loads(b.read_text())
    assert original["failed"] > 0 and all("/-/" not in c["ident"] for c in original["cases"])
    planned = len(original["cases"])  # the shard ran completely: one result per planned case and product
    dropped = [c["ident"] for c in original["cases"][:3]]
    # three results deleted (an edited file, a run cut short): the plan still lists them
    c = _edited(b, tmp_path / "c.json", lambda d: d.update(cases=d["cases"][3:]))
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(c)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"error: {c}: 3 of its {planned} planned cases have no result (first: {dropped[0]}); its run was cut "
        "short or the file was edited"
    ]


def test_a_passed_job_level_result_does_not_stand_for_lost_cases(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A review helper replaced a case of a shard by a passed job-level result (``op/product/-/build``): the
    merge took it for the job's build failure standing for every planned case, and passed."""
    a, b = two_shards
    first = json.loads(b.read_text())["cases"][0]
    job = "/".join(first["ident"].split("/")[:2])
    stand_in = {**first, "ident": f"{job}/-/build", "name": "build", "passed": True, "message": ""}
    c = _edited(b, tmp_path / "c.json", lambda d: d.update(cases=[stand_in, *d["cases"][1:]]))
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(c)]) == 2
    assert f"error: {c}: 1 of its " in capsys.readouterr().err


def test_an_unsharded_file_that_lost_cases_is_an_error(
    specs_dir: Path, full_run: tuple[int, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, full = full_run
    assert main(["report", "merge", str(specs_dir.parent / "full.json")]) == 1  # as it was written: its failures
    last = full["cases"][-1]["ident"]
    cut = _edited(specs_dir.parent / "full.json", tmp_path / "cut.json", lambda d: d["cases"].pop())
    capsys.readouterr()
    assert main(["report", "merge", str(cut)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {cut}: 1 of its {len(full['cases'])} planned cases have no result (first: {last}); its run was "
        "cut short or the file was edited"
    ]


def test_shards_whose_plans_do_not_make_one_matrix_are_an_error(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_shards

    def drop_first_unit(d: dict[str, Any]) -> None:
        job = d["meta"]["planned"][0]
        ident = job["units"].pop(0)
        gone = {ident, *(ident.replace(f"/{job['product']}/", f"/{p}/") for p in job["covers"])}
        d["cases"] = [case for case in d["cases"] if case["ident"] not in gone]

    # a case removed from both the plan and the results: the file is consistent, the plans are not one
    c = _edited(b, tmp_path / "c.json", drop_first_unit)
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(c)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"error: the planned cases of {a}, {c} do not make one plan: together they give plan")
    # no plan at all (an older opgen's file, or an edited one)
    d = _edited(b, tmp_path / "d.json", lambda d: d["meta"].pop("planned"))
    assert main(["report", "merge", str(a), str(d)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {d}: no valid plan in its metadata ('planned': the cases the run planned; written by an older opgen?)"
    ]
    # a result the shard did not plan
    extra = json.loads(a.read_text())["cases"][0]
    e = _edited(b, tmp_path / "e.json", lambda d: d["cases"].append({**extra, "ident": extra["ident"] + " (copy)"}))
    assert main(["report", "merge", str(a), str(e)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {e}: case {extra['ident']} (copy) is not in the file's plan"
    ]


def _planned(*idents: str) -> list[dict[str, Any]]:
    return [{"op": "op", "product": "P", "covers": [], "units": list(idents)}]


def _result(ident: str, passed: bool = True, message: str = "") -> CaseResult:
    op, product, dtype = ident.split("/")[:3]
    return CaseResult(ident, op, product, dtype, "[4]", ident.split("/")[-1], passed, 0, 0.0, 0.0, message, 0.01)


def test_overlapping_shards_are_an_error(tmp_path: Path) -> None:
    meta = {"opgen": "1", "inputs": "i", "options": {}, "plan": idents_digest([["op/P/FLOAT/x"], ["op/P/FLOAT/y"]])}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    write_json(
        [_result("op/P/FLOAT/x"), _result("op/P/FLOAT/y")],
        a,
        {**meta, "shard": [1, 2], "planned": _planned("op/P/FLOAT/x")},
    )
    write_json([_result("op/P/FLOAT/y")], b, {**meta, "shard": [2, 2], "planned": _planned("op/P/FLOAT/y")})
    with pytest.raises(MergeError, match="op/P/FLOAT/y is in both"):
        merge_results([a, b])
    # a job-level failure (the build) is reported by every shard with units of the job: kept once, and it
    # stands for every planned case of its job
    write_json(
        [_result("op/P/-/build", False, "boom")], a, {**meta, "shard": [1, 2], "planned": _planned("op/P/FLOAT/x")}
    )
    write_json(
        [_result("op/P/-/build", False, "boom")], b, {**meta, "shard": [2, 2], "planned": _planned("op/P/FLOAT/y")}
    )
    assert [r.ident for r in merge_results([a, b])[1]] == ["op/P/-/build"]


def test_a_shard_count_above_the_limit_is_a_usage_error(
    specs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a review helper: N had no upper limit. N = 1024 (MAX_SHARDS) runs (a part past the unit count
    runs nothing); 1025 or more is a usage error (exit 2) naming the limit, before any work."""
    assert MAX_SHARDS == 1024
    out = tmp_path / "last.json"
    status, data = _check(specs_dir, out, "--shard", "1024/1024")
    assert (status, data["cases"], data["meta"]["shard"]) == (0, [], [1024, 1024])
    for text in ("1/1025", "1025/1025", f"1/{10**20}"):
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main(["--specs", str(specs_dir), "check", *SELECTION, "--shard", text])
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"opgen check: error: argument --shard: N must be at most 1024 (see --help), got {text!r}"
        )


def test_the_shard_plan_is_a_deterministic_partition_by_cost() -> None:
    units = [Unit(0, i, f"op/P/FLOAT/case{i:02d}", nbytes=(i * 7919) % 1000 * 1000) for i in range(40)]
    for count in (1, 2, 3, 4):
        shards = assign_shards(units, count, None)
        assert sorted((u.job, u.index) for s in shards for u in s) == [(0, i) for i in range(40)]
        assert assign_shards(list(reversed(units)), count, None) == shards  # independent of input order
    # recorded costs win over the estimate: the one costly unit gets a shard of its own
    costs = CaseCosts(Path("/nonexistent/costs.json"))
    costs.seconds = {u.ident: 0.001 for u in units}
    costs.seconds[units[5].ident] = 10.0
    shards = assign_shards(units, 2, costs)
    assert [u.ident for u in shards[0]] == [units[5].ident]


def test_job_units_are_the_worker_units_with_the_example_last() -> None:
    job = Job(OP, "Ascend910B", ("FLOAT",), True, None, ("in_order",), False, None)
    units = job_units(job, 3)
    assert [u.index for u in units] == list(range(len(units)))
    assert all(u.job == 3 for u in units)
    assert units[-1].ident == f"{OP}/Ascend910B/example/example program"
    assert len({u.ident for u in units}) == len(units)
    # the example program computes on FLOAT (the spec's example): --dtype FLOAT16 leaves it out
    half = job_units(Job(OP, "Ascend910B", ("FLOAT16",), True, None, ("in_order",), False, None), 3)
    assert [u.ident for u in half if "example" in u.ident] == []
    assert all("/FLOAT16/" in u.ident for u in half)
    both = job_units(Job(OP, "Ascend910B", ("FLOAT16", "FLOAT"), True, None, ("in_order",), False, None), 0)
    assert both[-1].ident == f"{OP}/Ascend910B/example/example program"


def test_junit_is_well_formed_with_one_testcase_per_case(tmp_path: Path) -> None:
    results = [
        _result("op/P/FLOAT/a"),
        _result("op/P/FLOAT/b", False, 'got <1> & "2"\nsecond line \x00\x1b end'),
        _result("op/Q/FLOAT16/a"),
    ]
    results[2].covered_by = "P"
    path = tmp_path / "junit.xml"
    write_junit(results, path)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["op/P", "op/Q"]
    cases = root.findall("testsuite/testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("op.P", "FLOAT/a"),
        ("op.P", "FLOAT/b"),
        ("op.Q", "FLOAT16/a"),
    ]
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("message") == 'got <1> & "2"'
    assert failure.text is not None and failure.text.startswith('got <1> & "2"\nsecond line ')
    assert cases[0].find("failure") is None
    prop = cases[2].find("properties/property")
    assert prop is not None and (prop.get("name"), prop.get("value")) == ("covered_by", "P")


def test_a_shard_count_far_above_the_unit_count_builds_only_the_used_shards() -> None:
    # 10**8 shards of 7 units: each unit gets a shard of its own, the rest are empty and never built
    units = [Unit(0, i, f"op/P/FLOAT/case{i}", nbytes=1000 * (i + 1)) for i in range(7)]
    shards = assign_shards(units, 10**8, None)
    assert len(shards) == 7 and sorted(len(s) for s in shards) == [1] * 7
    assert shards == assign_shards(units, 7, None)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("str", "cases[0] is a str, not an object"),
        ({"max_abs_err": "NaN"}, "cases[0].max_abs_err is 'NaN', not a number"),
        ({"passed": "no"}, "cases[0].passed is 'no', not true or false"),
        ({"status": True}, "cases[0].status is True, not an integer"),
        # times no run measures (a review helper's edited shard passed them on into the cost table and JUnit)
        ({"seconds": float("inf")}, "cases[0].seconds is inf, not a time in [0, 1e+06] seconds"),
        ({"seconds": float("nan")}, "cases[0].seconds is nan, not a time in [0, 1e+06] seconds"),
        ({"seconds": -5.0}, "cases[0].seconds is -5.0, not a time in [0, 1e+06] seconds"),
        ({"seconds": 10**400}, "cases[0].seconds is a huge integer, not a time in [0, 1e+06] seconds"),
    ],
)
def test_a_result_file_with_values_of_the_wrong_type_is_a_merge_error(tmp_path: Path, case: Any, message: str) -> None:
    good = tmp_path / "good.json"
    write_json([_result("op/P/FLOAT/a")], good, {"shard": [1, 1]})
    data = json.loads(good.read_text())
    data["cases"][0] = case if isinstance(case, str) else {**data["cases"][0], **case}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(MergeError, match=re.escape(f"{bad}: {message}")):
        merge_results([bad])


@pytest.mark.parametrize(
    ("drop", "named"),
    [
        (["passed"], "'passed' (every case of `opgen check --json` has it"),
        (
            ["status", "message", "seconds"],
            "'status', 'message', 'seconds' (every case of `opgen check --json` has them",
        ),
    ],
)
def test_a_case_lacking_a_field_is_one_merge_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], drop: list[str], named: str
) -> None:
    """Found by a review helper: a case without ``passed`` leaked ``CaseResult.__init__() missing 1 required
    positional argument``; the error names the file, the case's index and every missing field."""
    meta = {"opgen": "1", "inputs": "i", "options": {}, "plan": idents_digest([["op/P/FLOAT/x", "op/P/FLOAT/y"]])}
    bad = tmp_path / "bad.json"
    write_json(
        [_result("op/P/FLOAT/x"), _result("op/P/FLOAT/y")],
        bad,
        {**meta, "shard": [1, 1], "planned": _planned("op/P/FLOAT/x", "op/P/FLOAT/y")},
    )
    data = json.loads(bad.read_text())
    for name in drop:
        del data["cases"][1][name]
    bad.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["report", "merge", str(bad)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"error: {bad}: cases[1] has no {named}; an edited file?)"]


def test_a_failed_case_without_a_message_is_reported_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a review helper: merging printed ``FAIL <ident>: `` and nothing more for a failed case whose
    message is empty; the table and the JUnit failure say that no message was recorded."""
    meta = {"opgen": "1", "inputs": "i", "options": {}, "plan": idents_digest([["op/P/FLOAT/x", "op/P/FLOAT/y"]])}
    a = tmp_path / "a.json"
    write_json(
        [_result("op/P/FLOAT/x", False, ""), _result("op/P/FLOAT/y", False, "max abs err 2 > bound 1")],
        a,
        {**meta, "shard": [1, 1], "planned": _planned("op/P/FLOAT/x", "op/P/FLOAT/y")},
    )
    junit = tmp_path / "merged.xml"
    capsys.readouterr()
    assert main(["report", "merge", str(a), "--junit", str(junit)]) == 1
    fails = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL ")]
    assert fails == [
        "FAIL op/P/FLOAT/x: failed (no message recorded)",
        "FAIL op/P/FLOAT/y: max abs err 2 > bound 1",
    ]
    failures = {c.get("name"): c.find("failure") for c in ET.parse(junit).getroot().iter("testcase")}
    assert [(f.get("message"), f.text) for f in failures.values() if f is not None] == [
        ("failed (no message recorded)", "failed (no message recorded)"),
        ("max abs err 2 > bound 1", "max abs err 2 > bound 1"),
    ]


def test_a_full_run_and_a_shard_are_one_error_saying_so(
    full_run: tuple[int, dict[str, Any]],
    two_shards: tuple[Path, Path],
    specs_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found by a review helper: an unsharded run's file merged with a shard file said only that their shard
    plans differ; the error says which file is the full run and which shard the other is."""
    full = specs_dir.parent / "full.json"
    _, b = two_shards
    capsys.readouterr()
    for files in ([full, b], [b, full]):
        assert main(["report", "merge", *map(str, files)]) == 2
        assert capsys.readouterr().err.splitlines() == [
            f"error: {full} is a full run (no shard) and {b} is shard 2/2: a full run cannot be merged with shards "
            "(merge the shards of one run alone; a full run's file needs no merge)"
        ]


def test_run_check_starts_no_more_worker_processes_than_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.check import driver

    seen: list[int] = []

    class Pool:
        def __init__(self, max_workers: int, initializer: Any) -> None:
            seen.append(max_workers)
            raise RuntimeError("stop before any process starts")

    monkeypatch.setattr(driver, "ProcessPoolExecutor", Pool)
    jobs = [Job("a", "P", (), True, None, (), False, None), Job("b", "P", (), True, None, (), False, None)]
    with pytest.raises(RuntimeError, match="stop before"):
        driver.run_check(jobs, 100000)
    assert seen == [2]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no such file (a sharded run reads the cost table; it never creates one)"),
        ("{not json", "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('{"version": 1, "seconds": [1, 2]}', 'not a cost table (expected {"version": 1, "seconds": {"<case>": '),
        ('["version", 1]', 'not a cost table (expected {"version": 1, "seconds": {"<case>": '),
        ('{"version": true, "seconds": {}}', 'not a cost table (expected {"version": 1, "seconds": {"<case>": '),
        ('{"version": 1.0, "seconds": {}}', 'not a cost table (expected {"version": 1, "seconds": {"<case>": '),
        ('{"version": 1, "seconds": {"a/b": "fast"}}', "not a cost table: seconds of 'a/b' is 'fast', not a number"),
        ('{"version": 1, "seconds": {"a/b": -1}}', "not a cost table: seconds of 'a/b' is -1, not a number of se"),
        ('{"version": 1, "seconds": {"a/b": NaN}}', "not a cost table: seconds of 'a/b' is nan, not a number of s"),
        # an integer too large for a float (OverflowError in float()) and one that would overflow the sums
        ('{"version": 1, "seconds": {"a/b": 1' + "0" * 400 + "}}", "not a cost table: seconds of 'a/b' is a huge "),
        ('{"version": 1, "seconds": {"a/b": 1e308}}', "not a cost table: seconds of 'a/b' is 1e+308, not a number "),
        ("[" * 100000, "not a cost table (JSON nested too deeply to read)"),  # a RecursionError in json
    ],
)
def test_a_sharded_run_with_a_costs_file_it_cannot_use_is_one_error_line(
    specs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, reason: str
) -> None:
    costs = tmp_path / "costs.json"
    if content is not None:
        costs.write_text(content)
    out = tmp_path / "out.json"
    status = main(["--specs", str(specs_dir), "check", *SELECTION, "--shard", "1/2", "--costs", str(costs)])
    err = capsys.readouterr().err.splitlines()
    assert status == 2
    assert len(err) == 1 and err[0].startswith(f"error: --costs {costs}: {reason}"), err
    assert not out.exists()
    assert costs.exists() == (content is not None)


def test_a_costs_file_that_is_a_directory_is_an_error(specs_dir: Path, tmp_path: Path, capsys: Any) -> None:
    status = main(["--specs", str(specs_dir), "check", *SELECTION, "--shard", "2/2", "--costs", str(tmp_path)])
    assert status == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: --costs {tmp_path}: cannot read: a directory, not a regular file"
    ]


def test_merge_creates_a_missing_costs_file_and_refuses_to_overwrite_another_file(
    two_shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_shards
    idents = {c["ident"] for f in (a, b) for c in json.loads(f.read_text())["cases"] if not c["covered_by"]}
    created = tmp_path / "new-costs.json"
    assert main(["report", "merge", str(a), str(b), "--costs", str(created)]) == 1  # the matrix has failures
    recorded = json.loads(created.read_text())
    assert recorded["version"] == 1 and set(recorded["seconds"]) == idents
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a cost table\n")
    capsys.readouterr()
    assert main(["report", "merge", str(a), str(b), "--costs", str(notes)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"error: --costs {notes}: not JSON: Expecting value: line 1 column 1 (char 0)"]
    assert captured.out == ""
    assert notes.read_text() == "my notes, not a cost table\n"


@pytest.mark.parametrize(
    "content",
    [
        "[" * 100000,  # valid JSON beyond the decoder's recursion limit: a RecursionError, not a ValueError
        '{"version": 1, "seconds": {"a/b": NaN, "c/d": 1.5}}',
        '{"version": 1, "seconds": {"a/b": -2.0, "c/d": 1.5}}',
        '{"version": 1, "seconds": {"a/b": Infinity}}',
        '{"version": 1, "seconds": {"a/b": 1' + "0" * 400 + "}}",  # int() fine, float() overflows
        '{"version": 1, "seconds": {"a/b": 1e300, "c/d": 1.5}}',
        '{"version": 2, "seconds": {"c/d": 1.5}}',
        '{"seconds": {"c/d": 1.5}}',
    ],
)
def test_the_build_caches_damaged_cost_table_is_an_empty_table(tmp_path: Path, content: str) -> None:
    """The build cache's own case-costs.json is read with the checks of a ``--costs`` file, but a table it
    cannot use is empty (estimates apply) instead of an error or a traceback."""
    path = tmp_path / "case-costs.json"
    path.write_text(content)
    assert CaseCosts(path).seconds == {}
    path.write_text('{"version": 1, "seconds": {"c/d": 1.5, "e/f": 0}}')
    assert CaseCosts(path).seconds == {"c/d": 1.5, "e/f": 0.0}
    assert CaseCosts(tmp_path / "missing.json").seconds == {}


def test_a_result_file_nested_too_deeply_is_one_merge_error_line(tmp_path: Path, capsys: Any) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000)
    assert main(["report", "merge", str(deep)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"error: {deep}: cannot read: JSON nested too deeply"]


def _limited_opgen(*args: str) -> subprocess.CompletedProcess[str]:
    """``opgen args`` in a process with 1 GiB of address space and 120 s: a regression that reads
    ``/dev/zero`` whole, or blocks on a FIFO, fails the test instead of taking the machine's memory or
    hanging it."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    code = limit + "import sys; from codegen.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False, timeout=120)


def test_a_costs_file_that_is_a_device_fifo_or_huge_is_refused_before_reading_it(
    specs_dir: Path, tmp_path: Path
) -> None:
    """``--costs /dev/zero`` was read until the memory ran out (an unsharded run, which creates the table,
    and a sharded one); a FIFO blocked; a huge file was read whole."""
    from codegen.check.matrix import MAX_COST_TABLE_BYTES

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_COST_TABLE_BYTES + 1)  # sparse: no disk blocks
    for costs, reason in (
        (Path("/dev/zero"), "a character device, not a regular file"),
        (fifo, "a FIFO (named pipe), not a regular file"),
        (huge, f"{MAX_COST_TABLE_BYTES + 1:,} bytes, more than the {MAX_COST_TABLE_BYTES:,} bytes allowed"),
    ):
        for shard in ([], ["--shard", "1/2"]):
            proc = _limited_opgen("--specs", str(specs_dir), "check", *SELECTION, *shard, "--costs", str(costs))
            err = proc.stderr.splitlines()
            assert proc.returncode == 2, proc.stderr[-2000:]
            assert len(err) == 1 and err[0].startswith(f"error: --costs {costs}: cannot read: {reason}"), err
    assert fifo.exists() and huge.stat().st_size == MAX_COST_TABLE_BYTES + 1
    # the build cache's own table in such a state is an empty table
    assert CaseCosts(huge).seconds == {}
    proc = _limited_opgen("--version")  # the interpreter and limit work: the failures above are opgen's
    assert proc.returncode == 0, proc.stderr


def test_merge_refuses_a_device_or_fifo_before_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, kind in ((Path("/dev/zero"), "a character device"), (fifo, "a FIFO (named pipe)")):
        proc = _limited_opgen("report", "merge", str(path))
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert proc.stderr.splitlines() == [f"error: {path}: cannot read: {kind}, not a regular file"]


def test_a_result_file_that_cannot_be_written_is_an_error_line_after_the_table(
    two_shards: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json``/``--junit`` on a full disk (``/dev/full``): the table and totals, then one error line and
    exit 2, not an OSError traceback."""
    a, b = two_shards
    capsys.readouterr()
    for option in ("--json", "--junit"):
        assert main(["report", "merge", str(a), str(b), option, "/dev/full"]) == 2
        out, err = capsys.readouterr()
        assert out.splitlines()[-1].endswith(" failed")
        assert err.splitlines() == [f"error: {option} /dev/full: cannot write: No space left on device"]


def test_edited_result_files_the_merge_used_to_accept_are_errors(tmp_path: Path) -> None:
    """Found by a review helper: a case twice in one file was reported as two shards overlapping (naming the
    file twice), `shard: [true, 2]` passed as shard 1/2, and a case whose op contradicts its ident made a
    row for an op that never ran."""
    meta = {"opgen": "1", "inputs": "i", "options": {}, "plan": idents_digest([["op/P/FLOAT/x"]])}
    a = tmp_path / "a.json"
    one = {**meta, "shard": [1, 1], "planned": _planned("op/P/FLOAT/x")}
    write_json([_result("op/P/FLOAT/x"), _result("op/P/FLOAT/x")], a, one)
    with pytest.raises(MergeError) as info:
        merge_results([a])
    assert str(info.value) == f"{a}: case op/P/FLOAT/x is in it twice (an edited file?)"
    write_json([_result("op/P/FLOAT/x")], a, {**one, "shard": [True, 1]})
    with pytest.raises(MergeError, match="no shard in its metadata"):
        merge_results([a])
    data = json.loads(a.read_text())
    data["meta"]["shard"] = [1, 1]
    data["cases"][0]["op"] = "softmax"
    a.write_text(json.dumps(data))
    with pytest.raises(MergeError) as info:
        merge_results([a])
    assert str(info.value) == (
        f"{a}: cases[0] has op 'softmax' and product 'P', but its ident 'op/P/FLOAT/x' names another (an edited file?)"
    )
    data["cases"][0]["op"] = "op"
    a.write_text(json.dumps(data))
    assert [r.ident for r in merge_results([a])[1]] == ["op/P/FLOAT/x"]
