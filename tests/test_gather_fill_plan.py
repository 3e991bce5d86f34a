"""The index-fill walk of the gather_scatter family (codegen/families/gather_scatter/plan/fill.py): every
output element written once, ``self`` read only outside the filled slices, no segment longer than a tile,
cores on whole 32-byte blocks; checked against a brute-force NumPy mask and hand counts."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.families.gather_scatter.plan.fill import Segment, core_ranges, fill_positions, segments, traffic


def test_fill_positions_wrap_sort_dedup() -> None:
    """[9, -1, 0, 0, -10] along A = 10 names 0 and 9; a value outside [-A, A) raises."""
    assert fill_positions(10, [9, -1, 0, 0, -10]) == (0, 9)
    assert fill_positions(10, []) == ()
    for bad in (10, -11):
        with pytest.raises(ValueError, match="outside"):
            fill_positions(10, [bad])


def test_hand_counted_segments() -> None:
    """[4, 10, 3] filled at 0 and 9 along dim 1: a fill of 3, then per block a copy of 8 * 3 = 24 and a fill of
    6 (slice 9 of one block and slice 0 of the next, adjacent in the output), and a last fill of 3."""
    got = list(segments(10, 3, (0, 9), 0, 120, 1000))
    want = [Segment("fill", 0, 3)]
    for b in range(3):
        want += [Segment("copy", 3 + 30 * b, 24), Segment("fill", 27 + 30 * b, 6)]
    want += [Segment("copy", 93, 24), Segment("fill", 117, 3)]
    assert got == want
    # a tile of 10 elements cuts the copies into 10, 10, 4
    cut = [s.length for s in segments(10, 3, (0, 9), 3, 27, 10)]
    assert cut == [10, 10, 4]
    for bad in ((9, 0), (0, 0), (-1,), (10,)):  # positions the L2 API did not prepare
        with pytest.raises(ValueError, match="positions"):
            list(segments(10, 3, bad, 0, 30, 10))


def test_core_ranges_whole_blocks() -> None:
    """1000 FLOAT elements = 125 blocks of 8; 4096 bytes per core at least -> 1 core; with 64 bytes per core
    and 8 cores: 125 = 8 * 15 + 5 blocks, the first 5 cores take 16 blocks."""
    assert core_ranges(1000, 4, 8, 4096) == [(0, 1000)]
    r = core_ranges(1000, 4, 8, 64)
    assert [(e - b) // 8 for b, e in r] == [16] * 5 + [15] * 3
    assert r[0][0] == 0 and r[-1][1] == 1000 and all(r[i][1] == r[i + 1][0] for i in range(7))
    assert all(b % 8 == 0 for b, _ in r)


CASES = [
    ((4, 10, 3), 1, [0, 9, 9, -1], 2),
    ((5, 7), 0, [-5, 4, 3], 4),
    ((6, 5, 4), 2, [0, 1, 2, 3], 1),  # every slice filled: no read of self
    ((3, 33), 1, [5], 8),
    ((2, 9, 7), 0, [1], 2),
    ((1000,), 0, [0, 999, 500, 501], 4),
]


@pytest.mark.parametrize(("shape", "dim", "index", "width"), CASES)
def test_every_element_once_and_minimum_traffic(shape: tuple[int, ...], dim: int, index: list[int], width: int) -> None:
    """Over 1 to 8 cores and tiles of 7 and 4096 elements: the segments cover the output once, in order; fill
    segments are exactly the elements a NumPy mask of the named slices marks; GM traffic is the minimum
    (self read where not filled, out written once: GM / minimum = 1.0)."""
    a = shape[dim]
    p = int(np.prod(shape[:dim]))
    q = int(np.prod(shape[dim + 1 :]))
    n = p * a * q
    mask = np.zeros(shape, dtype=bool)
    sl: list[object] = [slice(None)] * len(shape)
    for i in index:
        sl[dim] = i
        mask[tuple(sl)] = True
    flat = mask.reshape(-1)
    positions = fill_positions(a, index)
    for cores, per_core in ((1, 1 << 30), (8, 32)):
        ranges = core_ranges(n, width, cores, per_core)
        for tile in (7, 4096):
            seen = np.zeros(n, dtype=np.int64)
            for begin, end in ranges:
                at = begin
                for s in segments(a, q, positions, begin, end, tile):
                    assert s.start == at and 0 < s.length <= tile
                    assert bool(
                        flat[s.start : s.start + s.length].all()
                        if s.kind == "fill"
                        else not flat[s.start : s.start + s.length].any()
                    )
                    seen[s.start : s.start + s.length] += 1
                    at += s.length
                assert at == end
            assert (seen == 1).all()
        read, written = traffic(p, a, q, positions, width, ranges)
        filled = int(flat.sum())
        assert written == n * width
        assert read == (n - filled) * width
