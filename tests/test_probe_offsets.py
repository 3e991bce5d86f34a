"""The probe launch of the 64-bit offset cases (``tiling_2g``, :func:`codegen.check.offsets.probe_offsets`):
the kernel itself runs on its last core over tensors of more than 2**32 elements held as reserved address
space, and its recorded GM ranges are held to the ranges the tiling gives that core. Per family with a
``probe_ranges`` hook, a planted explicit int32 cast of an offset (which ``-Wconversion`` lets through) must
fail the quick check naming the core and the tensor (the scatter-add's atomic adds, past the quick cap: the
full check), and the generated kernels must pass."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from generated_mutant import CATALOGUE, SPECS, check_mutant

from codegen import compile_op
from codegen.build import build_op
from codegen.check.cases import Case
from codegen.check.driver import cases_for
from codegen.check.offsets import BIG, PROBE_QUICK_MAX_ACCESSES, check_offsets, with_probe_cap
from codegen.families.gather_scatter.cases import probe_ranges
from codegen.paths import project_paths
from codegen.runner.op_callable import OpCallable
from codegen.spec.generated_names import op_files
from codegen.spec.model import DType
from codegen.specs import load_project


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


#: The scatter-add offset call on Ascend910B (48 cores): self, out and src [2208000, 2048] FLOAT along dim 1
#: (2208000 = 48 * 46000 rows); the last core owns rows [47 * 46000, 2208000) of out, elements from
#: 47 * 46000 * 2048 = 4427776000 (past 2**32) to the end.
_SCATTER_ROWS, _SCATTER_A, _SCATTER_FIRST_ROW = 2208000, 2048, 47 * 46000
_SCATTER_OUT = (_SCATTER_FIRST_ROW * _SCATTER_A * 4, _SCATTER_ROWS * _SCATTER_A * 4)


def _scatter_want(op: str) -> dict[str, tuple[int, int]]:
    """The bytes core 47 owns in the scatter-add offset call with every index 0, worked out by hand: self and
    out its rows; an element scatter (index [2208000, 1] INT64) reads its rows' index elements and src at the
    start of each of its rows (the last at element 2207999 * 2048); a row scatter (index [2048] INT64, every
    element of source walked) reads all of index, its rows of source and the one alpha."""
    if op == "scatter_add":
        src_end = ((_SCATTER_ROWS - 1) * _SCATTER_A + 1) * 4
        index = (_SCATTER_FIRST_ROW * 8, _SCATTER_ROWS * 8)
        return {"self": _SCATTER_OUT, "index": index, "src": (_SCATTER_OUT[0], src_end), "out": _SCATTER_OUT}
    return {
        "self": _SCATTER_OUT,
        "index": (0, _SCATTER_A * 8),
        "source": _SCATTER_OUT,
        "alpha": (0, 4),
        "out": _SCATTER_OUT,
    }


@pytest.mark.parametrize("op", ["scatter_add", "index_add"])
def test_scatter_offset_cases_pass_in_both_strategies(op: str) -> None:
    """The full check's offset cases of a scatter-add on Ascend910B: one per strategy (atomic, deterministic),
    tiling as the planner's, and the probe's last core held to the ranges worked out by hand; the quick check
    keeps the deterministic one."""
    fn = compile_op(op, "Ascend910B")
    full = [c for c in cases_for(fn.spec, fn.product, {"FLOAT"}, False) if c.mode == "tiling_2g"]
    quick = [c for c in cases_for(fn.spec, fn.product, {"FLOAT"}, True) if c.mode == "tiling_2g"]
    assert [c.deterministic for c in full] == [False, True]
    assert [c.deterministic for c in quick] == [True]
    for case in full:
        assert check_offsets(fn, case) == "", case.name
        got = fn.run_tiling(case.params["request"])
        assert got["block_dim"] == 48
        tiling = {k: int(v) for k, v in got["tiling"].items() if not isinstance(v, list)}
        assert tiling["strategy"] == (0 if case.deterministic else 1)
        assert probe_ranges(fn, case, tiling, 47) == _scatter_want(op), case.name


#: The owned (deterministic) scatter's load of the src element an index element adds
#: (templates/common/scatter_kernel.j2).
_SCATTER_SRC_LOAD = "C term = static_cast<C>(srcGm_.GetValue(static_cast<uint64_t>(at.srcBase)));"


def test_probe_fails_a_scatter_src_offset_truncated_to_int32(tmp_path: Path) -> None:
    cast = "C term = static_cast<C>(srcGm_.GetValue(static_cast<uint64_t>(static_cast<int32_t>(at.srcBase))));"
    failed = check_mutant(tmp_path, "scatter_add", "kernel_cpp", ((_SCATTER_SRC_LOAD, cast),))
    messages = [c["message"] for c in failed]
    # The quick check's deterministic case: core 47 first reads src at element 4427776000 (its first row's
    # start), which the cast wraps by 2**32 to 132808704 (below 2**31: a wrong place inside src).
    wrapped = (_SCATTER_FIRST_ROW * _SCATTER_A - 2**32) * 4
    src_end = ((_SCATTER_ROWS - 1) * _SCATTER_A + 1) * 4
    head, tail = f"probe: core 47, src: read bytes [{wrapped}, ", f"), owns [{_SCATTER_OUT[0]}, {src_end})"
    assert any(m.startswith(head) and m.endswith(tail) for m in messages), messages


#: The atomic scatter's target of a one-element add (templates/common/scatter_kernel.j2).
_SCATTER_TARGET = "targets[used] = at.outBase + position * view_.dimStride;"


def test_probe_fails_an_atomic_scatter_target_truncated_to_int32(tmp_path: Path) -> None:
    """The atomic strategy's adds come after the copy of self (about 11500 GM accesses on the last core), past
    the quick cap: the full check's atomic case (cap 2**17) catches a target cast to int32. The mutant kernel
    is built for the FLOAT/INT64 key only (key 1), at -O0, as generated_mutant builds one."""
    spec, product = SPECS["scatter_add"], CATALOGUE.get("Ascend910B")
    root = tmp_path / "gen"
    shutil.copytree(project_paths().generated / spec.folder, root / spec.folder)
    kernel = root / spec.folder / op_files(spec)["kernel_cpp"]
    text = kernel.read_text()
    assert text.count(_SCATTER_TARGET) == 1
    cast = "targets[used] = static_cast<int32_t>(at.outBase + position * view_.dimStride);"
    kernel.write_text(text.replace(_SCATTER_TARGET, cast))
    fn = OpCallable(build_op(spec, product, root, jobs=1, tiling_keys=[1], unoptimized_kernel=True))
    (case,) = [c for c in cases_for(spec, product, {"FLOAT"}, False) if c.mode == "tiling_2g" and not c.deterministic]
    assert case.params["probe_max_accesses"] == 2**17
    message = check_offsets(fn, case)
    # the first add (at its first row's start, element 4427776000) lands at element 132808704 after the
    # cast: out's write range starts there instead of at the core's first row
    wrapped = (_SCATTER_FIRST_ROW * _SCATTER_A - 2**32) * 4
    assert message.startswith(f"probe: core 47, out: wrote bytes [{wrapped}, "), message
    assert message.endswith(f"), owns [{_SCATTER_OUT[0]}, {_SCATTER_OUT[1]})"), message


@pytest.mark.heavy(10)  # a spec copy generated, two kernel builds (FLOAT/INT64 only, -O0), their probes
def test_scatter_offset_case_without_data_copy_pad(tmp_path: Path) -> None:
    """No listed product of the scatter-adds lacks DataCopyPad; a copy of scatter_add's spec listing Ascend910
    (32 cores, no DataCopyPad, no hardware SyncAll: the deterministic strategy only, its GM copies whole
    32-byte blocks) gets one offset case, which passes on the generated kernel with the ranges worked out by
    hand and fails on one whose src offset is cast to int32."""
    specs = tmp_path / "specs"
    specs.mkdir()
    text = (project_paths().specs / "scatter_add.yaml").read_text()
    anchor = "products: [Ascend910B, "
    assert text.count(anchor) == 1
    (specs / "scatter_add.yaml").write_text(text.replace(anchor, "products: [Ascend910, Ascend910B, "))
    shutil.copy(project_paths().specs / "products.yaml", specs / "products.yaml")
    gen = tmp_path / "gen"
    cmd = [sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "scatter_add", "--out", str(gen)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    catalogue, loaded = load_project(specs)
    spec, product = loaded["scatter_add"], catalogue.get("Ascend910")
    (case,) = [c for c in cases_for(spec, product, {"FLOAT"}, False) if c.mode == "tiling_2g"]
    assert case.deterministic
    # 32 cores of 2208000 / 32 = 69000 rows: the last starts at row 31 * 69000, element 4380672000
    first = 31 * 69000
    out = (first * _SCATTER_A * 4, _SCATTER_OUT[1])
    src = (out[0], ((_SCATTER_ROWS - 1) * _SCATTER_A + 1) * 4)
    want = {"self": out, "index": (first * 8, _SCATTER_ROWS * 8), "src": src, "out": out}
    kernel = gen / spec.folder / op_files(spec)["kernel_cpp"]
    clean = kernel.read_text()
    for edit, fault in ((None, ""), (_SCATTER_SRC_LOAD, "probe: core 31, src: read bytes [")):
        if edit is not None:
            cast = edit.replace(
                "static_cast<uint64_t>(at.srcBase)", "static_cast<uint64_t>(static_cast<int32_t>(at.srcBase))"
            )
            kernel.write_text(clean.replace(edit, cast))
        fn = OpCallable(build_op(spec, product, gen, jobs=1, tiling_keys=[1], unoptimized_kernel=True))
        got = fn.run_tiling(case.params["request"])
        tiling = {k: int(v) for k, v in got["tiling"].items() if not isinstance(v, list)}
        assert (got["block_dim"], tiling["strategy"]) == (32, 0)
        assert probe_ranges(fn, case, tiling, 31) == want
        message = check_offsets(fn, case)
        if not fault:
            assert message == ""
            continue
        wrapped = (first * _SCATTER_A - 2**32) * 4
        assert message.startswith(f"{fault}{wrapped}, ") and message.endswith(f"owns [{src[0]}, {src[1]})"), message
