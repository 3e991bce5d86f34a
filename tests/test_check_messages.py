"""A failed case's message is data a case produced (an exception's text, a path): whatever it holds, the
check prints its table, writes ``--json`` and ``--junit``, and keeps the terminal usable. Found by a review
helper: a lone surrogate in an exception's text crashed ``opgen check`` before it wrote either file; an ESC
sequence in a message reached the terminal raw and a 2 MB message printed about 20,000 lines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from project_copy import spec_dir_with_reference

from codegen.check.report import MAX_TERMINAL_MESSAGE, terminal_text
from codegen.check.results import CaseResult
from codegen.cli import main

OP = "sigmoid_backward"

#: A reference that fails every case of an odd element count with a message holding a lone surrogate, a
#: terminal escape sequence, a carriage return and more text than the terminal shows.
RAISING_REFERENCE = """
import numpy as np


def reference(gradOutput, output):
    g, y = (np.asarray(a, dtype=np.float64) for a in (gradOutput, output))
    shape = np.broadcast_shapes(g.shape, y.shape)
    if int(np.prod(shape)) % 2 == 1:
        raise ValueError("path /data/\\udcff.bin \\x1b[2J\\x1b[31mred\\rover " + "x" * 9000)
    return np.broadcast_to(g * y * (1.0 - y), shape).astype(np.float64)
"""


@pytest.fixture(scope="module")
def specs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return spec_dir_with_reference(tmp_path_factory.mktemp("messages"), OP, RAISING_REFERENCE)


def test_a_message_with_a_lone_surrogate_and_control_characters_is_reported_and_written(
    specs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    argv = ["--specs", str(specs_dir), "check", OP, "--quick", "--dtype", "FLOAT", "--product", "Ascend910B"]
    status = main([*argv, "-j", "1", "--json", str(report), "--junit", str(junit)])
    out = capsys.readouterr().out
    assert status == 1
    failed = [c for c in json.loads(report.read_bytes().decode("utf-8"))["cases"] if not c["passed"]]
    assert failed and all("path /data/\\udcff.bin \x1b[2J" in c["message"] for c in failed)
    assert all(len(c["message"]) > 9000 for c in failed)  # the files keep the whole message
    cases = ET.parse(junit).getroot().iter("testcase")
    assert sum(1 for c in cases if c.find("failure") is not None) == len(failed)
    assert sum(line.startswith("FAIL ") for line in out.splitlines()) == len(failed)
    assert "\x1b" not in out and "\r" not in out
    flat = out.replace("\n", "")  # the table's console wraps a long line at 200 columns
    assert flat.count("/data/\\udcff.bin") == len(failed)
    assert flat.count("\\x1b[2J\\x1b[31mred\\rover") == len(failed)
    assert flat.count("characters: the --json and --junit files hold the whole message)") == len(failed)
    assert len(out) < len(failed) * (MAX_TERMINAL_MESSAGE + 1000) + 20000


def test_terminal_text_escapes_control_characters_and_cuts_long_messages() -> None:
    assert terminal_text("a\tb\nc é 中") == "a\tb\nc é 中"
    assert terminal_text("\x1b[31m\r\x00\x7f\x85\u2028") == "\\x1b[31m\\r\\x00\\x7f\\x85\\u2028"
    long = "y" * (MAX_TERMINAL_MESSAGE + 17)
    assert terminal_text(long) == "y" * MAX_TERMINAL_MESSAGE + (
        " ... (17 more characters: the --json and --junit files hold the whole message)"
    )


def test_a_result_keeps_a_lone_surrogate_as_its_escape() -> None:
    r = CaseResult("op/P/FLOAT/a", "op", "P", "FLOAT", "[1]", "a", False, 0, 0.0, 0.0, "x \ud800 é", 0.0)
    assert r.message == "x \\ud800 é"
    r.message.encode("utf-8")
