"""EmbeddingDenseBackward's sorted-run sums order their pipes with event flags and the grad tile queue, not
with a PipeBarrier<PIPE_ALL> per gathered run: the gathers of the next tile (MTE2) overlap the adds of the
current one (V). The emulator's pipe-race check must still see a missing flag: a planted fault removes the
MTE2 -> S wait after the pair chunk is copied in, and ``opgen check`` must fail with a pipe race."""

from __future__ import annotations

from pathlib import Path

from generated_mutant import check_mutant

from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

OP = "embedding_dense_backward"
_, SPECS = load_project()

#: The scalar unit's wait for the copy of a pair chunk (LoadPairs of the sorted-run kernel).
_PAIRS_WAIT = "    WaitFlag<HardEvent::MTE2_S>(pairsLoaded);\n"


def _kernel_text() -> str:
    spec = SPECS[OP]
    return (project_paths().generated / spec.folder / op_files(spec)["kernel_cpp"]).read_text()


def test_sorted_gather_loop_has_no_full_barrier() -> None:
    text = _kernel_text()
    start = text.index("LocalTensor<TRows> gathered = tileQueue_.AllocTensor<TRows>();")
    end = text.index("tileQueue_.FreeTensor(gathered);", start)
    loop = text[start:end]
    assert "PipeBarrier<PIPE_ALL>" not in loop
    assert "tileQueue_.EnQue(gathered);" in loop and "tileQueue_.DeQue<TRows>();" in loop
    assert text.count(_PAIRS_WAIT) == 1


def test_a_missing_wait_flag_is_a_pipe_race(tmp_path: Path) -> None:
    failed = check_mutant(tmp_path, OP, "kernel_cpp", ((_PAIRS_WAIT, ""),))
    messages = [str(c.get("message", "")) for c in failed]
    races = [m for m in messages if "pipe race" in m and "(PIPE_S) reads" in m and "(PIPE_MTE2)" in m]
    assert races, messages[:5]
