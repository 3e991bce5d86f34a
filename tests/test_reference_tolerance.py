"""A reference module's ``tolerance()`` that returns an infinity or a negative number is an error of the
reference module, not a bound: every case of the op fails with one message naming ``tolerance()`` in that file
(an infinite atol passed any output). A NaN in a tolerance is allowed (references derive tolerances from inputs
that hold NaN) and accepts nothing: the wrong output still fails.

The op is a stand-in callable (no build) answering a fixed, wrong value; the reference is a file written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegen.check.case_run import run_case
from codegen.check.cases import Case
from codegen.check.reference import ToleranceError, load_reference, reference_tolerance
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
SPEC = SPECS["sigmoid_backward"]
PARAMS = {"gradOutput": np.zeros(2), "output": np.zeros(2)}


class _WrongOp:
    """Stands in for an OpCallable: every element 100 (the formula gives values below 1)."""

    def __init__(self) -> None:
        self.spec = SPEC
        self.product = CATALOGUE.get("Ascend910B")
        self.last_stats: dict[str, Any] = {"launches": [{"kernel": "sigmoid_backward", "block_dim": 1}]}

    def __call__(self, *, core_order: str, seed: int, deterministic: bool, formats: Any, **params: Any) -> Any:
        return np.full(params["gradOutput"].shape, 100.0, dtype=params["gradOutput"].dtype)


def _reference(tmp_path: Path, tolerance: str) -> Any:
    (tmp_path / "sigmoid_backward.py").write_text(
        "import numpy as np\n"
        "def reference(gradOutput, output):\n"
        "    return gradOutput.astype(np.float64) * output * (1.0 - output)\n"
        f"def tolerance(gradOutput, output):\n    return {tolerance}\n"
    )
    return load_reference(SPEC, tmp_path)


def _case() -> Case:
    rng = np.random.default_rng(3)
    params = {
        "gradOutput": rng.standard_normal(8).astype(np.float32),
        "output": rng.uniform(0, 1, 8).astype(np.float32),
    }
    return Case("sigmoid_backward", "Ascend910B", "FLOAT", "[8]", "stand-in", params)


@pytest.mark.parametrize(
    ("tolerance", "shown"),
    [
        ("(float('inf'), 0.0)", "atol inf"),
        ("(-1.0, 0.0)", "atol -1.0"),
        ("(np.where(np.arange(8) == 5, np.inf, 0.0).reshape(2, 4), 0.0)", "atol inf at element (1, 1)"),
    ],
)
def test_a_non_finite_or_negative_tolerance_fails_the_case_naming_the_reference(
    tmp_path: Path, tolerance: str, shown: str
) -> None:
    ref = _reference(tmp_path, tolerance)
    result = run_case(_WrongOp(), _case(), ref)  # type: ignore[arg-type]
    assert not result.passed
    assert result.message == (
        f"tolerance() in {tmp_path / 'sigmoid_backward.py'} returned {shown}: a bound must be finite and "
        "non-negative (an infinite bound accepts any output)"
    )


def test_a_finite_tolerance_still_judges_the_output(tmp_path: Path) -> None:
    result = run_case(_WrongOp(), _case(), _reference(tmp_path, "(0.5, 0.0)"))  # type: ignore[arg-type]
    assert not result.passed and "out of tolerance" in result.message and result.bound_source == "tolerance()"


def test_several_outputs_name_the_output_whose_atol_is_bad(tmp_path: Path) -> None:
    ref = _reference(tmp_path, "(np.zeros(3), np.array([0.0, -2.0]), 0.0)")
    with pytest.raises(ToleranceError, match=r"returned the atol of rstd -2\.0 at element \(1,\): a bound must"):
        reference_tolerance(ref, PARAMS, ("y", "rstd"))
    with pytest.raises(ToleranceError, match=r"must return 3 atols \(one per output\) and an rtol, not 3 values"):
        reference_tolerance(ref, PARAMS, ("y", "rstd", "z"))
    assert len(reference_tolerance(_reference(tmp_path, "(0.1, np.ones(2), 0.0)"), PARAMS, ("y", "rstd"))) == 3


def test_a_nan_tolerance_accepts_no_wrong_output(tmp_path: Path) -> None:
    for tolerance in ("(float('nan'), 0.0)", "(0.0, float('nan'))"):
        result = run_case(_WrongOp(), _case(), _reference(tmp_path, tolerance))  # type: ignore[arg-type]
        assert not result.passed and "out of tolerance" in result.message, result.message


def test_an_infinite_atol_is_allowed_only_where_the_reference_is_not_finite() -> None:
    ref = type("Ref", (), {"tolerance": staticmethod(lambda **_: (np.array([0.1, np.inf, np.inf]), 0.0))})()
    expected = (np.array([1.0, np.inf, np.nan]),)
    assert len(reference_tolerance(ref, {}, ("out",), expected)) == 2  # type: ignore[arg-type]
    with pytest.raises(ToleranceError, match=r"atol inf at element \(1,\)"):
        reference_tolerance(ref, {}, ("out",), (np.array([1.0, 2.0, np.nan]),))  # type: ignore[arg-type]
    with pytest.raises(ToleranceError, match=r"atol inf at element \(1,\)"):
        reference_tolerance(ref, {}, ("out",))  # type: ignore[arg-type]
