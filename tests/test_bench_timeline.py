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


def _timeline(v_busy: float, vector_bound_us: float) -> object:
    from codegen.perf import CallTimeline

    return CallTimeline(
        modelled_cycles=47613.0,
        modelled_us=26.45,
        pipe_busy_cycles={"S": 0.0, "V": v_busy, "MTE2": 28490.0, "MTE3": 10238.0},
        critical_pipe="V",
        copy_hidden_fraction=0.95,
        gm_bytes=25168512,
        vector_elements=125829120,
        memory_bound_us=15.73,
        vector_bound_us=vector_bound_us,
        roofline_us=vector_bound_us,
        bound="vector",
        roofline_fraction=0.89,
    )


def test_vector_busy_over_bound_is_the_v_pipe_over_the_vector_roofline_in_cycles() -> None:
    from codegen.specs import load_project

    catalogue, _ = load_project()
    products = {p.name: p for p in catalogue.products}
    # Ascend910B at 1800 MHz: 23.53 us of vector roofline are 42354 cycles; V busy 46120 cycles
    assert timeline.vector_busy_over_bound(_timeline(46120.0, 23.53), products["Ascend910B"]) == pytest.approx(
        46120 / 42354, rel=1e-12
    )
    assert timeline.vector_busy_over_bound(_timeline(0.0, 0.0), products["Ascend910B"]) == 0.0
    with pytest.raises(ValueError, match="Ascend310P has no cost model"):
        timeline.vector_busy_over_bound(_timeline(46120.0, 23.53), products["Ascend310P"])
