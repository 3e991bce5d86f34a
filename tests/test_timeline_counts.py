"""Vector element-ops per element of one op per family on Ascend910B, from the emulator's counters, against
counts made by hand from the generated kernels' instruction sequences (``op_kernel/`` of the op folders of
``generated/``), and the pipe timeline of the same calls (present, consistent with the counters).

Hand counts (fp32 unless said):

- elementwise, MseLossBackward (reduction none): ``Sub``, ``Mul``, ``Muls``: 3 per element; FLOAT16 adds a
  ``Cast`` of each of the 3 inputs and one of the result: 7.
- row_reduce, LogSoftmaxBackward along the last dim (FLOAT rows that fit UB: computed in the queue buffers,
  no conversion copies): the count-form ``ReduceSum`` of gradOutput, ``Exp`` of output, ``Muls`` by the row
  sum (a per-row scalar), ``Sub``: 4.
  Measured as the difference of two row lengths (48 rows of 2048 and of 1024), so per-row instructions
  cancel.
- index_accumulate, EmbeddingDenseBackward (fp32, D 128, 1024 rows, no scaling): the rows are added by
  atomic DMA, not by vector instructions; each of the 48 cores fills one zero row of D floats: 48 x 128 vector
  elements whatever N.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from codegen import compile_op

PRODUCT = "Ascend910B"


def vector_elements(stats: dict[str, Any]) -> int:
    return sum(int(c["vector_elements"]) for launch in stats["launches"] for c in launch["cores"])


def check_timeline(stats: dict[str, Any]) -> None:
    tl = stats["timeline"]
    assert tl is not None and tl["modelled_cycles"] > 0
    assert tl["vector_elements"] == vector_elements(stats)
    assert 0 < tl["roofline_fraction"] <= 1.0 + 1e-9
    assert 0.0 <= tl["copy_hidden_fraction"] <= 1.0


@pytest.mark.parametrize(("dtype", "per_element"), [(np.float32, 3), (np.float16, 7)])
def test_elementwise_mse_loss_backward(dtype: type, per_element: int) -> None:
    fn = compile_op("MseLossBackward", PRODUCT)
    a = np.random.default_rng(0).uniform(0.1, 0.9, (64, 1024)).astype(dtype)
    fn(gradOutput=a, self=a, target=a, reduction=0, core_order="in_order")
    assert vector_elements(fn.last_stats) == per_element * a.size
    check_timeline(fn.last_stats)


def test_row_reduce_log_softmax_backward() -> None:
    fn = compile_op("LogSoftmaxBackward", PRODUCT)
    rng = np.random.default_rng(0)
    counts = []
    for r in (1024, 2048):
        a = rng.uniform(0.1, 0.9, (48, r)).astype(np.float32)
        fn(gradOutput=a, output=a, dim=-1, core_order="in_order")
        counts.append(vector_elements(fn.last_stats))
        check_timeline(fn.last_stats)
    assert (counts[1] - counts[0]) == 4 * 48 * 1024


def test_index_accumulate_embedding_dense_backward() -> None:
    fn = compile_op("EmbeddingDenseBackward", PRODUCT)
    rng = np.random.default_rng(0)
    for n in (4096, 8192):
        grad = rng.uniform(0.1, 0.9, (n, 128)).astype(np.float32)
        idx = (rng.permutation(n) % 1024).astype(np.int64)
        fn(grad=grad, indices=idx, numWeights=1024, paddingIdx=2**64 - 1, scaleGradByFreq=False, core_order="in_order")
        assert vector_elements(fn.last_stats) == 48 * 128
        check_timeline(fn.last_stats)
