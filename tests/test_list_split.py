"""The split of a tensor list's elements over cores (codegen.plan.tensor_lists): a hand-counted example, every
element assigned to exactly one core with cuts on each tensor's own block boundaries, empty and 0-d tensors,
and the balance on a list shaped like a model's parameters. Expected values are hand counts or recomputed here
element by element, never read from the planner."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from codegen.plan.tensor_lists import MAX_LIST_TENSORS, CoreShare, split_list
from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]

#: A program around the tiling's SplitList (templates/common/list_split.j2): per line of stdin
#: "blockElements coreCount count...", one line of "startTensor startOffset endTensor endOffset" per core.
PROGRAM = """
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
{{ ls.split_list_function() }}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    int64_t blockElements = 0, coreCount = 0, n = 0;
    in >> blockElements >> coreCount;
    std::vector<int64_t> counts;
    while (in >> n) {
      counts.push_back(n);
    }
    std::vector<int64_t> st(coreCount), so(coreCount), et(coreCount), eo(coreCount);
    const int64_t cores = SplitList(counts.data(), static_cast<int64_t>(counts.size()), blockElements, coreCount,
                                    st.data(), so.data(), et.data(), eo.data());
    for (int64_t c = 0; c < cores; ++c) {
      std::cout << st[c] << " " << so[c] << " " << et[c] << " " << eo[c] << (c + 1 < cores ? " " : "");
    }
    std::cout << "\\n";
  }
  return 0;
}
"""


def _owners(counts: list[int], block_elements: int, cores: int) -> list[np.ndarray]:
    """Per tensor, the core that computes each element (-1: none), from the split's shares, and checks each
    share's elements and blocks against its own range."""
    split = split_list(counts, block_elements, cores)
    owner = [np.full(n, -1, np.int64) for n in counts]
    for c, s in enumerate(split.cores):
        assert s.start_tensor <= s.end_tensor
        seen = blocks = 0
        for t in range(s.start_tensor, s.end_tensor + 1):
            lo = s.start_offset if t == s.start_tensor else 0
            hi = s.end_offset if t == s.end_tensor else counts[t]
            assert lo % block_elements == 0 and (hi % block_elements == 0 or hi == counts[t])
            assert (owner[t][lo:hi] == -1).all(), f"core {c} takes elements of tensor {t} another core took"
            owner[t][lo:hi] = c
            seen += hi - lo
            blocks += -(-(hi - lo) // block_elements)
        assert (seen, blocks) == (s.elements, s.blocks)
    return owner


def test_hand_counted_split() -> None:
    # fp32 (8 per block): [3, 5] = 15 elements (2 blocks), an empty [0, 4], a 0-d (1 block), [40] (5), [1, 1, 7]
    # (1): 9 blocks over 2 cores, 4 and 5
    split = split_list([15, 0, 1, 40, 7], 8, 2)
    assert split.cores == (CoreShare(0, 0, 3, 8, 15 + 1 + 8, 4), CoreShare(3, 8, 4, 7, 32 + 7, 5))
    assert split.block_dim == 2 and split.balance() == pytest.approx(5 * 2 / 9)
    # a core per block when there are fewer blocks than cores; the 0-d tensor is one core's whole share
    split = split_list([15, 0, 1], 8, 40)
    assert split.cores == (CoreShare(0, 0, 0, 8, 8, 1), CoreShare(0, 8, 0, 15, 7, 1), CoreShare(2, 0, 2, 1, 1, 1))


def test_every_element_once_and_empty_lists() -> None:
    rng = np.random.default_rng(5)
    for _ in range(30):
        counts = [int(n) for n in rng.choice([0, 1, 3, 16, 17, 255, 4096, 10007], size=rng.integers(1, 40))]
        for block_elements in (8, 16, 32):
            for cores in (1, 2, 7, 40, 48):
                owner = _owners(counts, block_elements, cores)
                assert all((o >= 0).all() for o in owner)
    assert split_list([], 8, 40).cores == ()
    assert split_list([0, 0], 8, 40).block_dim == 0  # no element: no launch
    with pytest.raises(ValueError, match="at most 256"):
        split_list([1] * (MAX_LIST_TENSORS + 1), 8, 40)


def test_model_shaped_list_is_balanced() -> None:
    """A transformer block's parameters (fp16, 16 per block) on the catalogue's vector core counts (Ascend310P 8,
    Ascend910 32, Ascend910B and Ascend910_93 48, Ascend950 64): four 4096 x 4096 and three
    11008 x 4096 matrices, 60 vectors of 4096, 30 of 11008, 20 of one element, a 0-d and an empty tensor; the
    sizes straddle the core split (cores take the tail of one matrix and the head of the next)."""
    counts = [4096 * 4096] * 4 + [11008 * 4096] * 3 + [4096] * 60 + [11008] * 30 + [1] * 20 + [1, 0]
    for cores in (8, 32, 48, 64):
        split = split_list(counts, 16, cores)
        assert split.block_dim == cores
        assert split.balance() <= 1.05
        elements = [s.elements for s in split.cores]
        assert max(elements) * cores / sum(counts) <= 1.05
        assert sum(elements) == sum(counts)
        assert any(s.start_tensor != s.end_tensor for s in split.cores)


def test_tiling_function_splits_as_the_planner(tmp_path: Path) -> None:
    """The C++ the tiling function holds (templates/common/list_split.j2) gives the planner's shares, on random
    lists with empty and 0-d tensors and on one of 2^62 elements (no int64 overflow)."""
    env = make_environment(ROOT / "templates")
    source = env.from_string('{% import "common/list_split.j2" as ls %}' + PROGRAM).render()
    (tmp_path / "split.cpp").write_text(source)
    binary = tmp_path / "split"
    subprocess.run(
        ["g++", "-std=c++17", "-O1", "-Wall", "-Werror", str(tmp_path / "split.cpp"), "-o", str(binary)], check=True
    )
    rng = np.random.default_rng(11)
    calls = [(8, 2, [15, 0, 1, 40, 7]), (16, 48, [2**62, 1, 0, 3]), (8, 40, [0, 0]), (8, 40, [])]
    for _ in range(40):
        counts = [int(n) for n in rng.choice([0, 1, 3, 16, 17, 255, 4096, 10007], size=rng.integers(1, 30))]
        calls.append((int(rng.choice([8, 16, 32])), int(rng.choice([1, 2, 7, 40, 48])), counts))
    stdin = "".join(f"{b} {k} {' '.join(map(str, counts))}\n" for b, k, counts in calls)
    lines = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(calls)
    for (b, k, counts), line in zip(calls, lines):
        want = [(s.start_tensor, s.start_offset, s.end_tensor, s.end_offset) for s in split_list(counts, b, k).cores]
        got = [int(v) for v in line.split()]
        assert [tuple(got[i : i + 4]) for i in range(0, len(got), 4)] == want, (b, k, counts)
