"""aclnnScatterAdd's check of ``out``'s shape, as ops-nn makes it (index/scatter_elements_v2/op_api/
aclnn_scatter.cpp, ``CheckShape``): ``out`` must have ``self``'s shape unless ``out`` is 0-d, which that
check deliberately skips (the 0-d ``self`` path unsqueezes both). A 0-d ``out`` beside a ``self`` of more
elements passes the parameter checks there and is refused by the final ``l0op::ViewCopy`` into it, which
CANN's ``CHECK_COND(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR, ...)`` answers with 561103; the
generated API answers the same, not a parameter status CANN does not give. Nothing is written to ``out``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from codegen.runner import AclnnError, OpCallable


def _call(fn: OpCallable, self_: np.ndarray, out: np.ndarray) -> None:
    fn(self=self_, dim=0, index=np.zeros((2, 3), np.int64), src=np.ones((2, 3), np.float32), out=out)


def test_out_of_another_shape_is_161002(built_op: Callable[[str, str], OpCallable]) -> None:
    fn = built_op("ScatterAdd", "Ascend910B")
    out = np.full((2, 3), 7.0, np.float32)
    with pytest.raises(AclnnError) as e:
        _call(fn, np.zeros((3, 3), np.float32), out)
    assert e.value.status == 161002 and e.value.phase == 1
    assert (out == 7.0).all()


def test_zero_d_out_skips_the_shape_check_and_the_copy_into_it_fails_561103(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    fn = built_op("ScatterAdd", "Ascend910B")
    out = np.full((), 7.0, np.float32)
    with pytest.raises(AclnnError) as e:
        _call(fn, np.zeros((3, 3), np.float32), out)
    assert e.value.status == 561103 and e.value.phase == 1
    assert "ViewCopy" in e.value.message and "[3, 3]" in e.value.message
    assert out == 7.0


def test_zero_d_self_and_out(built_op: Callable[[str, str], OpCallable]) -> None:
    # the case the exemption is for: self, index and src of rank 0 or 1 (a 0-d tensor counts as rank 1)
    fn = built_op("ScatterAdd", "Ascend910B")
    out = np.full((), 7.0, np.float32)
    got = fn(self=np.float32(2.0), dim=0, index=np.zeros(1, np.int64), src=np.full(1, 0.5, np.float32), out=out)
    assert got is out and out == 2.5
