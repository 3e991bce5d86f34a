"""bench/list_traffic.py: the model-shaped list is what its docstring says, and one launch of aclnnForeachSqrt
over it on Ascend910B meets the section's targets from the emulator's counters (GM ÷ minimum, core balance)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import list_traffic  # noqa: E402


def test_model_list_is_a_block_at_an_eighth_of_the_width() -> None:
    shapes = list_traffic.model_list()
    assert len(shapes) == 4 + 3 + 60 + 30 + 20 + 2 == 119
    assert (
        sum(int(np.prod(s, dtype=np.int64)) for s in shapes)
        == 4 * 512 * 512 + 3 * 1376 * 512 + 60 * 512 + 30 * 1376 + 20 + 1
    )
    assert shapes[-2:] == [(), (0,)]


def test_one_launch_over_the_model_list_meets_the_targets() -> None:
    m = list_traffic.measure("foreach_sqrt", ("x",), "Ascend910B")
    elements = 4 * 512 * 512 + 3 * 1376 * 512 + 60 * 512 + 30 * 1376 + 20 + 1
    assert m["minimum_bytes"] == 2 * 2 * elements  # FLOAT16 in and out
    assert m["block_dim"] == [48]  # 12.9 MB of list: every vector core of Ascend910B
    assert 1.0 <= m["gm_over_minimum"] <= list_traffic.GM_TARGET.threshold
    assert 1.0 <= m["balance"] <= list_traffic.BALANCE_TARGET.threshold
