"""The probe launch of the 64-bit offset cases (``tiling_2g``, :func:`codegen.check.offsets.probe_offsets`):
the kernel itself runs on its last core over tensors of more than 2**32 elements held as reserved address
space, and its recorded GM ranges are held to the ranges the tiling gives that core. For the elementwise
family (the one with a ``probe_ranges`` hook), a planted explicit int32 cast of a core's offset (which
``-Wconversion`` lets through) must fail and the generated kernel must pass."""

from __future__ import annotations

from pathlib import Path

from generated_mutant import check_mutant

from codegen import compile_op
from codegen.check.offsets import BIG, check_offsets
from codegen.registry import family
from codegen.spec.model import DType

#: The elementwise kernel's start offset of a core past the former ones (generated op_kernel Init).
_TAIL_OFFSET = "offset = tiling.formerNum * tiling.formerLength + (blockIdx - tiling.formerNum) * tiling.tailLength;"


def test_probe_fails_a_core_offset_truncated_to_int32(tmp_path: Path) -> None:
    cast = (
        "offset = static_cast<int32_t>(tiling.formerNum * tiling.formerLength + "
        "(blockIdx - tiling.formerNum) * tiling.tailLength);"
    )
    failed = check_mutant(tmp_path, "gelu_backward", "kernel_cpp", ((_TAIL_OFFSET, cast),))
    messages = [c["message"] for c in failed]
    # Ascend910B: 48 cores, 9 former ones of 134238568 elements and 39 of 134238560 (BIG float elements);
    # the last core owns elements [6309212392, BIG); the cast wraps its start by 2**32. The quick check's
    # probe stops the core after its first tiles, so the read range ends inside the (wrapped) share.
    start = 9 * 134238568 + 38 * 134238560
    wrapped = (start - 2**32) * 4
    head, tail = f"probe: core 47, dy: read bytes [{wrapped}, ", f"), owns [{start * 4}, {BIG * 4})"
    hits = [m for m in messages if m.startswith(head) and m.endswith(tail)]
    assert hits, messages
    end = int(hits[0][len(head) : -len(tail)])
    assert wrapped < end <= wrapped + 134238560 * 4


def test_probe_passes_the_generated_kernel() -> None:
    fn = compile_op("gelu_backward", "Ascend910B")
    cases = [c for c in family(fn.spec.family).check_cases(fn.spec, fn.product, [DType.FLOAT], True)]
    cases = [c for c in cases if c.mode == "tiling_2g"]
    assert cases
    for case in cases:
        assert check_offsets(fn, case) == "", case.name
    # The probe really ran the kernel: its last core wrote an output past byte 2**32.
    request = cases[0].params["request"]
    last = fn.run_tiling(request)["block_dim"] - 1
    result = fn.probe_launch(request, [last])
    assert result["ok"], result["fault"]
    writes = [s["write"] for s in result["spans"] if s["region"].startswith("output") and s["write"]]
    assert writes and max(hi for _, hi in writes) > 2**32
