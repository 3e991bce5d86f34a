"""bench/timeline.py's command line: an op given by spec name, OpType or aclnn name; an unknown op named as an
error (it printed an empty table before). No kernel is built."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import timeline  # noqa: E402


def test_unknown_op_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        timeline.main(["--op", "no_such_op", "--product", "Ascend910B"])
    assert exc.value.code == 2
    assert "unknown op: no_such_op" in capsys.readouterr().err


def test_unknown_product_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        timeline.main(["--op", "SoftmaxBackward", "--product", "Ascend911"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown product: Ascend911" in err and "Ascend910B" in err
