"""The probe launch of the 64-bit offset cases (``tiling_2g``, :func:`codegen.check.offsets.probe_offsets`):
the kernel itself runs on its last core over tensors of more than 2**32 elements held as reserved address
space, and its recorded GM ranges are held to the ranges the tiling gives that core. Per family with a
``probe_ranges`` hook, a planted explicit int32 cast of an offset (which ``-Wconversion`` lets through) must
fail the quick check naming the core and the tensor, and the generated kernels must pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from generated_mutant import check_mutant

from codegen import compile_op
from codegen.check.cases import Case
from codegen.check.driver import cases_for
from codegen.check.offsets import BIG, PROBE_QUICK_MAX_ACCESSES, check_offsets, with_probe_cap
from codegen.spec.model import DType


def test_the_check_sets_the_probe_cap_of_every_family() -> None:
    """The driver's one place: 2**12 GM accesses under --quick, 2**17 in the full check, a lower cap a case
    keeps, and cases of other modes untouched."""

    def case(mode: str | None, **params: int) -> Case:
        return Case("op", "P", "FLOAT", "[1]", "c", dict(params), mode=mode)

    value = case(None)
    for quick, cap in ((True, 2**12), (False, 2**17)):
        plain, low, other = with_probe_cap([case("tiling_2g"), case("tiling_2g", probe_max_accesses=8), value], quick)
        assert (plain.params["probe_max_accesses"], low.params["probe_max_accesses"]) == (cap, 8)
        assert other is value and "probe_max_accesses" not in other.params


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


#: The row kernel's GM element offset of a line it loads (generated op_kernel Load).
_ROW_LINE_OFFSET = "const uint64_t from = static_cast<uint64_t>(first + l * gmStride);"


def test_probe_fails_a_row_offset_truncated_to_int32(tmp_path: Path) -> None:
    cast = "const uint64_t from = static_cast<uint64_t>(static_cast<int32_t>(first + l * gmStride));"
    failed = check_mutant(tmp_path, "rms_norm", "kernel_cpp", ((_ROW_LINE_OFFSET, cast),))
    messages = [c["message"] for c in failed]
    # The rows case on Ascend910B (48 cores): 2**31 + 5 rows of 3 FLOAT elements, 44739242 rows a core and
    # one more on the first 37; the last core starts at row 47 * 44739242 + 37, element 3 times that, past
    # 2**32, so the cast wraps it by 2**32 (to a value below 2**31: a wrong place inside x, not outside it).
    rows = 2**31 + 5
    start = 3 * (47 * (rows // 48) + rows % 48)
    wrapped = (start - 2**32) * 4
    head, tail = f"probe: core 47, x: read bytes [{wrapped}, ", f"), owns [{start * 4}, {3 * rows * 4})"
    assert any(m.startswith(head) and m.endswith(tail) for m in messages), messages


#: The index kernel's zero fill of the accumulator rows a core owns (generated op_kernel ZeroOwnedRows).
_ZERO_OWNED = "ZeroRange(zeroLocal, rowStart_ * accStride_, (rowEnd_ - rowStart_) * accStride_);"


def test_probe_fails_an_index_row_offset_truncated_to_32_bits(tmp_path: Path) -> None:
    cast = "ZeroRange(zeroLocal, static_cast<uint32_t>(rowStart_ * accStride_), (rowEnd_ - rowStart_) * accStride_);"
    failed = check_mutant(tmp_path, "embedding_dense_backward", "kernel_cpp", ((_ZERO_OWNED, cast),))
    messages = [c["message"] for c in failed]
    # The probe's case of 3 * 2**31 + 3 output rows of D = 8 FLOAT (the output is the accumulator) on
    # Ascend910B: 48 row groups, the first rows % 48 of rows // 48 + 1 rows; the last core's first owned
    # element is past 2**32 and the cast keeps its low 32 bits. Both strategies split the rows so.
    rows = 3 * 2**31 + 3
    per, former = divmod(rows, 48)
    start = 8 * (former * (per + 1) + (47 - former) * per)
    wrapped = start % 2**32 * 4
    head, tail = f"probe: core 47, out: wrote bytes [{wrapped}, ", f"), owns [{start * 4}, {rows * 8 * 4})"
    hits = [m for m in messages if m.startswith(head) and m.endswith(tail)]
    assert len(hits) == 2, messages


@pytest.mark.parametrize("op", ["gelu_backward", "softmax", "rms_norm", "embedding_dense_backward"])
def test_probe_passes_the_generated_kernel(op: str) -> None:
    """Every 64-bit offset case of the quick check passes on the generated kernel, and its probe ran the last
    core past byte 2**32 of an output (one op of each family; the row family in both of its forms)."""
    fn = compile_op(op, "Ascend910B")
    cases = [c for c in cases_for(fn.spec, fn.product, {DType.FLOAT.name}, True) if c.mode == "tiling_2g"]
    assert cases
    reached = 0
    for case in cases:
        assert case.params["probe_max_accesses"] == PROBE_QUICK_MAX_ACCESSES
        assert check_offsets(fn, case) == "", case.name
        request = case.params["request"]
        last = fn.run_tiling(request)["block_dim"] - 1
        result = fn.probe_launch({**request, "max_accesses": PROBE_QUICK_MAX_ACCESSES}, [last])
        assert result["ok"], result["fault"]
        writes = [s["write"] for s in result["spans"] if s["region"].startswith("output") and s["write"]]
        reached += bool(writes) and max(hi for _, hi in writes) > 2**32
    assert reached
