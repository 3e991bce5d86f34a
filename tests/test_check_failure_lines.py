"""One cause, one line: a failure that every product's job of an op reports alike (a reference that does not
import, a build error of code all products share) is printed once, naming the other products, instead of
once per product; failures that differ, or that come from different ops, keep their own lines."""

from __future__ import annotations

import pytest

from codegen.check.report import failure_lines, print_table
from codegen.check.results import CaseResult


def _failed(op: str, product: str, name: str, message: str) -> CaseResult:
    return CaseResult(f"{op}/{product}/-/{name}", op, product, "-", "-", name, False, 0, 0.0, 0.0, message, 0.0)


def test_a_failure_repeated_on_every_product_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    ref = "reference /r/softmax.py failed to import: ZeroDivisionError: division by zero"
    results = [
        _failed("softmax", "Ascend910", "reference", ref),
        _failed("softmax", "Ascend910B", "reference", ref),
        _failed("mse_loss", "Ascend910", "build", "g++ failed on Ascend910: x.cpp:3: error"),
        _failed("mse_loss", "Ascend910B", "build", "g++ failed on Ascend910B: x.cpp:3: error"),
        _failed("mse_loss", "Ascend950", "build", "g++ failed on Ascend950: x.cpp:9: other error"),
        _failed("softmax_backward", "Ascend910", "reference", ref.replace("softmax.py", "softmax_backward.py")),
    ]
    assert failure_lines(results) == [
        ("softmax/Ascend910/-/reference (also on Ascend910B)", ref),
        ("mse_loss/Ascend910/-/build (also on Ascend910B)", "g++ failed on Ascend910: x.cpp:3: error"),
        ("mse_loss/Ascend950/-/build", "g++ failed on Ascend950: x.cpp:9: other error"),
        ("softmax_backward/Ascend910/-/reference", ref.replace("softmax.py", "softmax_backward.py")),
    ]
    print_table(results)
    fails = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL ")]
    assert fails[0] == f"FAIL softmax/Ascend910/-/reference (also on Ascend910B): {ref}"
    assert len(fails) == 4


def test_a_value_failure_shows_plain_numbers_not_numpy_reprs() -> None:
    import numpy as np

    from codegen.check.compare import compare

    got = np.array([1.0, 6.5], dtype=np.float32)
    ref = np.array([1.0, 2.25], dtype=np.float64)
    assert (
        compare(got, ref, 0.0, 0.0).detail
        == "1 of 2 elements out of tolerance; first at (1,): got 6.5, reference 2.25, bound 1.19e-07"
    )
