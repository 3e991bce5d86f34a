"""The first message phase 1 logs names the real fault (the statuses and CANN's check order kept): a wrong
length of the rows attr is reported as the attr's, not as the rank of an output whose shape it gives; of two
per-row inputs that differ in shape, the one that is not of the rows' shape is named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from codegen.runner import OpCallable

X = np.arange(6, dtype=np.float32).reshape(2, 3)
ROWS = np.zeros((2, 1), np.float32)


def _backward(**changed: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"gradOut": X, "input": X, "normalizedShape": [3], "mean": ROWS, "rstd": ROWS}
    call.update(changed)
    return call


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # the outputs the Python API allocates from normalizedShape are 0-d: their rank took the blame
        (_backward(normalizedShape=[]), "The length of normalizedShape must be 1 to 8, but got 0."),
        (_backward(normalizedShape=[1] * 9), "The length of normalizedShape must be 1 to 8, but got 9."),
        (
            _backward(mean=np.zeros((2,), np.float32)),
            "mean must have the shape of rstd [2, 1], but has [2] (the rows' shape, gradOut's with the last 1 dims "
            "set to 1, is [2, 1]).",
        ),
        (
            _backward(rstd=np.zeros((2,), np.float32)),
            "rstd must have the shape of mean [2, 1], but has [2] (the rows' shape, gradOut's with the last 1 dims "
            "set to 1, is [2, 1]).",
        ),
    ],
    ids=["empty-normalized-shape", "normalized-shape-of-9", "mean-odd", "rstd-odd"],
)
def test_layer_norm_backward_names_the_real_fault(
    call: dict[str, Any], message: str, host_built_op: Callable[[str, str], OpCallable]
) -> None:
    fn = host_built_op("LayerNormBackward", "Ascend910B")
    assert fn.phase1_status(**call) == (161002, message)


def test_layer_norm_names_an_empty_normalized_shape(host_built_op: Callable[[str, str], OpCallable]) -> None:
    fn = host_built_op("LayerNorm", "Ascend910B")
    assert fn.phase1_status(input=X, normalizedShape=[]) == (
        161002,
        "The length of normalizedShape must be 1 to 8, but got 0.",
    )
