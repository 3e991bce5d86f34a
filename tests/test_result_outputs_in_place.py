"""Result outputs (``--json``, ``--junit``, ``--costs`` of ``opgen check`` and ``opgen report merge``) that are
not plain files: a path through a file-descriptor link (``/dev/stdout`` as a pipe or redirected to a file,
``/dev/fd/N``) or a FIFO is written in place, once, at the end (never renamed over, never given the running
placeholder); a FIFO with no reader is refused up front with one line, exit 2, instead of hanging."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.check import driver
from codegen.check.results import CaseResult
from codegen.cli import main
from codegen.writer import write_output, writes_in_place

SELECTION = ["sigmoid_backward", "--quick", "--dtype", "FLOAT", "--product", "Ascend910B", "-j", "1"]
IDENT = "sigmoid_backward/Ascend910B/FLOAT/a"
# `opgen check` with its run replaced by one passing case (no build): what it does with the result files
SCRIPT = f"""
import sys
from codegen.check import driver
from codegen.check.results import CaseResult
from codegen.cli import main
driver.run_check = lambda *a, **k: [CaseResult({IDENT!r}, "sigmoid_backward", "Ascend910B", "FLOAT", "[4]", "a",
    True, 0, 0.0, 0.0, "", 0.01)]
sys.exit(main(["check", *{SELECTION!r}, *sys.argv[1:]]))
"""


def _result() -> CaseResult:
    return CaseResult(IDENT, "sigmoid_backward", "Ascend910B", "FLOAT", "[4]", "a", True, 0, 0.0, 0.0, "", 0.01)


def _json_of(text: str) -> dict[str, Any]:
    """The one JSON document in ``text`` (the table and totals around it)."""
    start = text.index("\n{\n") + 1
    end = text.index("\n}\n", start) + 2
    assert text.count('\n "cases": [') == 1  # one document: no running placeholder before it
    data: dict[str, Any] = json.loads(text[start:end])
    return data


def test_json_to_dev_stdout_through_a_pipe(tmp_path: Path) -> None:
    proc = subprocess.run(
        f'{sys.executable} -c "$SCRIPT" --json /dev/stdout | cat',
        shell=True,
        capture_output=True,
        text=True,
        env={**os.environ, "SCRIPT": SCRIPT},
        check=False,
    )
    assert "cannot write" not in proc.stderr
    data = _json_of(proc.stdout)
    assert (data["passed"], data["failed"]) == (1, 0) and "interrupted" not in data["meta"]
    assert [c["ident"] for c in data["cases"]] == [IDENT]
    assert proc.stdout.endswith("wrote /dev/stdout\n1 passed, 0 failed\n")


def test_json_to_dev_stdout_redirected_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        code = subprocess.run([sys.executable, "-c", SCRIPT, "--json", "/dev/stdout"], stdout=f, check=False)
    assert code.returncode == 0
    text = out.read_text()
    data = _json_of(text)  # the final results, after the table (the file was not replaced)
    assert data["passed"] == 1 and "interrupted" not in data["meta"]
    assert text.index("sigmoid_backward") < text.index("\n{\n") < text.index("1 passed, 0 failed")


def test_a_descriptor_link_to_a_regular_file_is_written_in_place(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    with open(path, "w") as f:
        f.write("table\n")
        f.flush()
        inode = os.stat(path).st_ino
        link = f"/proc/self/fd/{f.fileno()}"
        assert writes_in_place(link) and writes_in_place(f"/dev/fd/{f.fileno()}")
        write_output(link, "results\n")
    assert path.read_text() == "table\nresults\n" and os.stat(path).st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.txt"]
    assert not writes_in_place(path) and not writes_in_place(tmp_path / "new.json")


@pytest.mark.parametrize(
    "option",
    [["--json"], ["--junit"], ["--costs"], ["report", "--json"], ["report", "--junit"], ["report", "--costs"]],
)
def test_a_fifo_without_a_reader_is_refused_before_any_work(
    tmp_path: Path, option: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the run started")

    monkeypatch.setattr(driver, "run_check", never)
    if option[0] == "report":
        shard = tmp_path / "shard.json"
        shard.write_text("{}")
        argv = ["report", "merge", str(shard), option[1], str(fifo)]
    else:
        argv = ["check", *SELECTION, option[0], str(fifo)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    if option[-1] == "--costs":  # a cost table is read too: a FIFO is no table
        assert f"error: --costs {fifo}: cannot read: a FIFO (named pipe), not a regular file" in err
    else:
        assert f"error: {option[-1]} {fifo}: cannot write: a FIFO (named pipe) with no reader" in err


def test_a_fifo_with_a_reader_gets_only_the_final_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        monkeypatch.setattr(driver, "run_check", lambda *args, **kwargs: [_result()])
        assert main(["check", *SELECTION, "--json", str(fifo)]) == 0
        chunks = []
        while chunk := os.read(reader, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(reader)
    data = json.loads(b"".join(chunks))
    assert data["passed"] == 1 and "interrupted" not in data["meta"]
    assert f"wrote {fifo}" in capsys.readouterr().out
