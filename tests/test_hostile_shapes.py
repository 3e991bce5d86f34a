"""Hostile shapes through the generated C ABI: a view may hold up to INT64_MAX elements (aclCreateTensor
refuses only an element count beyond int64), so phase 1 and the generated tiling functions see such counts
without any data behind them. Each test fails on the code before its fix; the expected numbers are worked
out by hand from the README's tiling rules (32-byte blocks spread over the cores, the first ``blocks %
cores`` taking one more; one core per started ``min_bytes_per_core`` bytes, at most every vector core).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from codegen.runner import OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("length", "dtype", "elem_bytes"),
    [
        (2**61, "FLOAT", 4),  # 2**63 bytes: one past INT64_MAX
        (2**62, "FLOAT", 4),  # 2**64 bytes: wrapped to 0 before the fix
        (INT64_MAX, "FLOAT16", 2),  # the largest count aclCreateTensor accepts
        (2**62 + 1, "FLOAT16", 2),
    ],
)
def test_elementwise_tiling_of_a_count_whose_bytes_pass_int64_uses_every_core(
    length: int, dtype: str, elem_bytes: int, built_op: Callable[[str, str], OpCallable]
) -> None:
    """The user saw blockDim 1 (an 8 EiB tensor on one core, and signed overflow, which UBSan reports at
    `totalLength * info.elemBytes` in the generated tiling) for an output of 2**61 FLOAT elements."""
    product = "Ascend910B"
    cores = CATALOGUE.get(product).vector_core_num
    assert cores == 48
    tensor = {"shape": [length], "dtype": dtype}
    got = built_op("SigmoidBackward", product).run_tiling(
        {"inputs": [tensor, tensor], "outputs": [tensor], "attrs": {}}
    )
    assert got["status"] == 0, got
    block_elems = 32 // elem_bytes
    blocks = -(-length // block_elems)
    assert got["block_dim"] == 48
    t = got["tiling"]
    assert t["totalLength"] == length
    assert t["formerNum"] == blocks % 48
    assert t["formerLength"] == (blocks // 48 + 1) * block_elems
    assert t["tailLength"] == (blocks // 48) * block_elems
