"""The gather_scatter family through the Python API and ``opgen explain``: what a user calling without
``out=`` gets for a null tensor, an empty source and a dim out of range, and the tiling explain describes for
each of the family's copy strategies and for an empty output."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from codegen.explain import explain
from codegen.runner import AclnnError, OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()


def _status(fn: OpCallable, **kwargs: object) -> int:
    with pytest.raises(AclnnError) as err:
        fn(**kwargs)
    return err.value.status


def test_a_null_tensor_or_a_wrong_dim_without_out_is_the_aclnn_status(
    built_op: Callable[[str, str], OpCallable],
) -> None:
    """The output is allocated from the inputs; with one of them None (a null pointer) or a dim out of range
    the call still reaches the aclnn API, which answers 161001 or 161002 (no Python error first)."""
    f = built_op("IndexSelect", "Ascend910B")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert _status(f, self=None, dim=0, index=np.array([0])) == 161001
    assert _status(f, self=x, dim=0, index=None) == 161001
    assert _status(f, self=x, dim=2, index=np.array([0])) == 161002
    e = built_op("Embedding", "Ascend910B")
    assert _status(e, weight=None, indices=np.array([1])) == 161001


def test_an_empty_source_gives_zero_rows(built_op: Callable[[str, str], OpCallable]) -> None:
    """An empty source launches nothing (CANN's early return leaves out as it is); every index is outside it,
    which the family defines as a row of zeros: the Python API's own output holds zeros, not its poison."""
    got = built_op("IndexSelect", "Ascend910B")(
        self=np.zeros((0, 4), np.int32), dim=0, index=np.array([0, 5], np.int64)
    )
    assert got.dtype == np.int32 and got.shape == (2, 4) and not got.any()
    got = built_op("Embedding", "Ascend910B")(weight=np.zeros((0, 3), np.float32), indices=np.array([[1, 0]]))
    assert got.shape == (1, 2, 3) and not got.any()


@pytest.mark.parametrize(
    ("product", "shape", "want"),
    [
        ("Ascend910B", "3,5", "rows in slots of 32 bytes, 3072 rows per tile"),
        ("Ascend910", "3,5", "no DataCopyPad on Ascend910: the output is split in whole 64-byte lines"),
        ("Ascend310P", "4,7", "no DataCopyPad on Ascend310P: the output is split in whole 64-byte lines"),
        ("Ascend910B", "3,0", "none (the output has no element; the aclnn API launches nothing)"),
    ],
)
def test_explain_names_the_copy_strategy(product: str, shape: str, want: str) -> None:
    """Products with DataCopyPad gather rows into 32-byte slots (98304-byte tiles on Ascend910B's UB: 3072
    slots of one 5-element FLOAT row); without it the output goes by whole 64-byte lines; an empty output has
    no tiling, and explain says the call launches no kernel (exit 0, as for the other families)."""
    text = explain(SPECS["index_select"], CATALOGUE.get(product), shape, None)
    assert want in text
    if "none" in want:
        assert "the call launches no kernel" in text
