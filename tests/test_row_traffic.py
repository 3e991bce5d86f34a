"""Row-op input traffic from the emulator's counters (bench/row_traffic.py).

Expected values come from the family's design, not from the code under test: when whole rows fit UB every
input element is loaded into UB once (ratio 1); when a row is cut into chunks, the four row ops need one
reduction pass and one output pass, each loading every chunk of every input once (ratio 2). The counters
are the emulator's ``gm_bytes_read`` per core; the tiling struct each core reads is subtracted with the
launch's own ``tiling_data_size``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import row_traffic  # noqa: E402

pytestmark = pytest.mark.heavy(30)  # builds the four row ops on Ascend910B (about 30 s alone)

ROW_OPS = ("Softmax", "LogSoftmax", "SoftmaxBackward", "LogSoftmaxBackward")


def test_the_family_has_the_four_row_ops() -> None:
    assert set(ROW_OPS) <= set(row_traffic.row_ops())


@pytest.mark.parametrize("op", ROW_OPS)
def test_rows_that_fit_ub_are_read_once(op: str) -> None:
    m = row_traffic.measure(op, "Ascend910B", (96, 1000))
    assert m["chunk_num"] == [1]  # the shape class is what it claims: whole rows per tile
    n_inputs = len(row_traffic.row_inputs(op, "Ascend910B", (1, 1))) - 1  # minus the dim attr
    assert m["input_bytes"] == m["least_bytes"] == n_inputs * 96 * 1000 * 4
    assert m["kernel_read"] == m["input_bytes"]
    assert m["read_ratio"] == 1.0


@pytest.mark.parametrize("op", ROW_OPS)
def test_multi_chunk_rows_are_read_twice(op: str) -> None:
    m = row_traffic.measure(op, "Ascend910B", (2, 200000))
    assert m["chunk_num"][0] > 2  # several chunks per row
    assert m["kernel_read"] == 2 * m["input_bytes"]
    assert m["read_ratio"] == 2.0


def test_read_ratio_subtracts_the_tiling_struct_of_each_core() -> None:
    stats = {
        "launches": [
            {"block_dim": 2, "tiling_data_size": 112, "cores": [{"gm_bytes_read": 1112}, {"gm_bytes_read": 1112}]}
        ]
    }
    ratio, data, tiling = row_traffic.read_ratio(stats, 2000)
    assert (data, tiling) == (2000, 224)
    assert ratio == 1.0
    assert row_traffic.read_ratio(stats, 1000)[0] == 2.0
    with pytest.raises(ValueError, match="no bytes"):
        row_traffic.read_ratio(stats, 0)


def test_the_least_read_counts_a_broadcast_input_per_core_and_the_column_partials_once() -> None:
    """RmsNorm's gamma (broadcast over the rows) is read by each of the cores; LayerNormBackward's two column sums
    add each core's fp32 partials of R elements, which the combine reads once."""
    x = np.zeros((8, 100), np.float32)
    gamma = np.zeros(100, np.float32)
    assert row_traffic.minimum_read("RmsNorm", {"x": x, "gamma": gamma, "epsilon": 1e-6}, 4) == 3200 + 4 * 400
    params = {
        "gradOut": x,
        "input": x,
        "mean": np.zeros((8, 1), np.float32),
        "rstd": np.zeros((8, 1), np.float32),
        "weightOptional": gamma,
        "normalizedShape": [100],
    }
    assert row_traffic.minimum_read("LayerNormBackward", params, 4) == 2 * 3200 + 2 * 32 + 4 * 400 + 2 * 4 * 400


def test_section_reports_both_ratios_against_their_targets() -> None:
    sec = row_traffic.run(ops=["Softmax"])
    assert sec.errors == []
    figs = {f.id: f for f in sec.figures}
    fit = figs["row_traffic.Softmax.fit.Ascend910B.read_ratio"]
    chunked = figs["row_traffic.Softmax.chunked.Ascend910B.read_ratio"]
    assert (fit.value, fit.met, fit.target.threshold if fit.target else None) == (1.0, True, 1.0)
    assert (chunked.value, chunked.met, chunked.target.threshold if chunked.target else None) == (2.0, True, 2.0)
    assert any("| Softmax | Ascend910B |" in line for line in sec.markdown)


@pytest.mark.parametrize("op", sorted(set(row_traffic.row_ops()) - set(ROW_OPS)))
def test_every_other_row_op_reads_no_more_than_one_reduction_pass_and_the_output_pass(op: str) -> None:
    """The ops with inputs broadcast over the rows, per-row inputs or column sums: rows that fit UB read
    exactly the least the call must read; chunked rows at most twice it (one reduction pass, shared by a
    mean and the variance about it, and the output pass)."""
    fit = row_traffic.measure(op, "Ascend910B", (96, 1000))
    assert fit["chunk_num"] == [1]
    assert fit["kernel_read"] == fit["least_bytes"]
    chunked = row_traffic.measure(op, "Ascend910B", (2, 200000))
    assert chunked["chunk_num"][0] > 2
    assert chunked["least_bytes"] < chunked["kernel_read"] <= 2 * chunked["least_bytes"]
