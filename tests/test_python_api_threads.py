"""Two Python threads calling two callables of one op library: the run options a call sets
(``deterministic=``, ``core_order=``) are the library's process-wide state, so one thread's call must never run
with the options another thread's call set in between (``codegen.runner.op_callable._library_lock``)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

import codegen

# EmbeddingDenseBackward's tiling keys on Ascend910B for 3000 indices of 5 rows of width 3 (opgen explain
# EmbeddingDenseBackward --product Ascend910B --shape 5,3,3000): 104 deterministic, 4 by GM atomics
DETERMINISTIC_KEY = 104
ATOMIC_KEY = 4


def test_a_deterministic_call_keeps_its_options_while_another_thread_calls_without() -> None:
    a = codegen.compile_op("embedding_dense_backward", "Ascend910B")
    b = codegen.compile_op("embedding_dense_backward", "Ascend910B")
    indices = np.arange(3000, dtype=np.int64) % 5
    grad = np.ones((3000, 3), np.float32)
    args: dict[str, Any] = {"grad": grad, "indices": indices, "numWeights": 5, "paddingIdx": -1}
    args["scaleGradByFreq"] = False

    a_in_phase1 = threading.Event()
    b_done = threading.Event()
    real_phase1 = a.phase1

    def paused_phase1(*p: Any, **k: Any) -> Any:
        # a's options are set; let b's call run now (it cannot while a holds the library)
        a_in_phase1.set()
        b_done.wait(timeout=3.0)
        return real_phase1(*p, **k)

    a.phase1 = paused_phase1  # type: ignore[method-assign]
    b_key: list[int] = []

    def call_b() -> None:
        a_in_phase1.wait(timeout=30.0)
        b(**args, deterministic=False)
        b_key.append(b.last_stats["launches"][0]["tiling_key"])
        b_done.set()

    thread = threading.Thread(target=call_b)
    thread.start()
    out = a(**args, deterministic=True)
    thread.join(timeout=60.0)
    assert not thread.is_alive()
    assert a.last_stats["launches"][0]["tiling_key"] == DETERMINISTIC_KEY
    assert b_key == [ATOMIC_KEY]
    # 3000 indices over 5 rows: 600 ones summed per row
    np.testing.assert_array_equal(out, np.full((5, 3), 600.0, np.float32))
