"""The tiling side of the element scatter-add (templates/common/scatter_tiling.j2: ScatterViewOf, PlanScatter,
ScatterShare) against codegen.plan.scatter (scatter_view, plan_scatter): the same view words, strategy, cores,
window, tile and per-core shares on random shapes, dims, dtypes and products, and on a tensor of 2^40
elements; and each core's share recomputed here element by element (out's lines and index's elements each
owned by exactly one core, cuts on 64-byte lines)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from codegen.plan.scatter import LINE_BYTES, ScatterPlan, plan_scatter, scatter_view
from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]

#: Per line of stdin "rank axis itemsize indexItemsize sumItemsize coreNum ubBytes pad atomic deterministic rows"
#: then the out, index and src shapes (rank numbers each; a row scatter passes src's shape as index's, as the
#: generated tiling does); per line of stdout the 47 view words, then
#: "strategy cores windowLen tileLen", then the four numbers of each core's share.
PROGRAM = """
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
{{ sk.scatter_view_struct() }}
{{ st.scatter_plan_functions() }}
{{ st.scatter_share_function("static") }}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    int64_t rank, axis, item, indexItem, sumItem, coreNum, ub, pad, atomic, det, rows;
    in >> rank >> axis >> item >> indexItem >> sumItem >> coreNum >> ub >> pad >> atomic >> det >> rows;
    int64_t shapes[3][SCATTER_DIMS];
    for (auto &shape : shapes) {
      for (int64_t i = 0; i < rank; ++i) {
        in >> shape[i];
      }
    }
    ScatterView v{};
    ScatterViewOf(shapes[0], shapes[1], shapes[2], rank, axis, rows != 0, v);
    const int64_t *words = reinterpret_cast<const int64_t *>(&v);
    for (size_t i = 0; i < sizeof(v) / sizeof(int64_t); ++i) {
      std::cout << words[i] << " ";
    }
    const ScatterPlan p = PlanScatter(v, item, indexItem, sumItem, coreNum, ub, pad != 0, atomic != 0, det != 0);
    std::cout << p.strategy << " " << p.cores << " " << p.windowLen << " " << p.tileLen;
    for (int64_t c = 0; c < p.cores; ++c) {
      int64_t r[4];
      ScatterShare(p.strategy, p.cores, p.lineElems, p.units, v.outNum, v.indexNum, c, r);
      std::cout << " " << r[0] << " " << r[1] << " " << r[2] << " " << r[3];
    }
    std::cout << "\\n";
  }
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env = make_environment(ROOT / "templates")
    source = env.from_string(
        '{% import "common/scatter_kernel.j2" as sk %}{% import "common/scatter_tiling.j2" as st %}' + PROGRAM
    ).render()
    work = tmp_path_factory.mktemp("scatter_tiling")
    (work / "plan.cpp").write_text(source)
    subprocess.run(
        ["g++", "-std=c++17", "-O1", "-Wall", "-Werror", str(work / "plan.cpp"), "-o", str(work / "plan")], check=True
    )
    return work / "plan"


def _random_case(rng: np.random.Generator) -> tuple:
    """Shapes of rank 1 to 8 (index within src, and within out outside dim), an axis, a dtype width and a
    product-like core count and UB size, and the three strategy switches."""
    rank = int(rng.integers(1, 9))
    axis = int(rng.integers(0, rank))
    out = [int(rng.integers(1, 6)) for _ in range(rank)]
    index = [int(rng.integers(0 if rng.random() < 0.05 else 1, e + 1)) for e in out]
    index[axis] = int(rng.integers(0, 9))
    src = [i + int(rng.integers(0, 3)) for i in index]
    item = int(rng.choice([1, 2, 4, 8]))
    return (
        tuple(out),
        tuple(index),
        tuple(src),
        axis,
        item,
        int(rng.choice([4, 8])),
        4 if item == 2 else 0,
        int(rng.choice([1, 8, 32, 48])),
        int(rng.choice([2048, 196608])),
        bool(rng.integers(0, 2)),
        bool(rng.integers(0, 2)),
        bool(rng.integers(0, 2)),
    )


def _expected(case: tuple) -> tuple[list[int], ScatterPlan | None]:
    out, index, src, axis, item, idx_item, wide, cores, ub, pad, atomic, det = case
    view = scatter_view(out, index, src, axis)
    try:
        plan = plan_scatter(
            view,
            item,
            idx_item,
            core_num=cores,
            ub_bytes=ub,
            data_copy_pad=pad,
            atomic_add=atomic,
            deterministic=det,
            sum_itemsize=wide,
        )
    except ValueError:
        plan = None
    return list(view.words()), plan


def test_host_plan_matches_python(program: Path) -> None:
    """400 random cases and a 2^40-element out (dim 0, one index row): the C++ view, plan and shares equal the
    Python planner's; every core's share is whole 64-byte lines of out (the last one clipped), the shares
    cover out and (atomic) index exactly once, in order."""
    rng = np.random.default_rng(11)
    cases = [_random_case(rng) for _ in range(400)]
    cases.append(((2**20, 2**20), (1, 2**20), (1, 2**20), 0, 4, 8, 0, 48, 196608, True, True, True))
    lines = []
    for out, index, src, axis, item, idx_item, wide, cores, ub, pad, atomic, det in cases:
        head = [len(out), axis, item, idx_item, wide, cores, ub, int(pad), int(atomic), int(det), 0]
        lines.append(" ".join(map(str, [*head, *out, *index, *src])))
    got = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    checked = 0
    for case, row in zip(cases, got.stdout.splitlines(), strict=True):
        values = [int(v) for v in row.split()]
        words, plan = _expected(case)
        assert values[:47] == words, case
        strategy, cores, window, tile = values[47:51]
        if plan is None:  # the Python planner refuses it: the C++ window does not fit either
            assert window <= 0, case
            continue
        assert (strategy, cores, window, tile) == (
            STRATEGY[plan.strategy],
            len(plan.cores),
            plan.window_len,
            plan.tile_len,
        ), case
        shares = [tuple(values[51 + 4 * c : 55 + 4 * c]) for c in range(cores)]
        assert shares == [(c.own_begin, c.own_end, c.index_begin, c.index_end) for c in plan.cores], case
        out_num, index_num = words[-4], words[-5]  # ..., indexNum, outNum, srcNum, indexAxis, indexLen
        line = LINE_BYTES // case[4]
        assert [s[0] for s in shares] == [0] + [s[1] for s in shares[:-1]]
        assert shares[-1][1] == out_num if shares else out_num == 0
        assert all(s[0] % line == 0 for s in shares)
        if plan.strategy == "atomic":
            assert shares[0][2] == 0 and shares[-1][3] == index_num
            assert [s[2] for s in shares[1:]] == [s[3] for s in shares[:-1]]
        checked += 1
    assert checked > 300
    assert STRATEGY[_expected(cases[-1])[1].strategy] == 0  # type: ignore[union-attr]


STRATEGY = {"owned": 0, "atomic": 1}


def test_row_view_matches_python(program: Path) -> None:
    """A row scatter (``Tensor.index_add``): 200 random self shapes of rank 1 to 8, dims, index counts ``K``
    (0 to 8) and products; the C++ view (src's shape passed as the index's, ``rows``) and plan equal
    ``scatter_view(..., rows=True)``'s and plan_scatter's: the walk runs over src's elements (extents src's),
    ``indexAxis`` is dim's view dim, ``indexLen`` is K."""
    rng = np.random.default_rng(12)
    lines, expected = [], []
    for _ in range(200):
        out, _, _, axis, item, idx_item, wide, cores, ub, pad, atomic, det = _random_case(rng)
        k = int(rng.integers(0, 9))
        src = tuple(k if i == axis else e for i, e in enumerate(out))
        view = scatter_view(out, (k,), src, axis, rows=True)
        assert view.extents[8 - len(out) :] == src and view.index_axis == 8 - len(out) + axis and view.index_len == k
        head = [len(out), axis, item, idx_item, wide, cores, ub, int(pad), int(atomic), int(det), 1]
        lines.append(" ".join(map(str, [*head, *out, *src, *src])))
        try:
            plan: ScatterPlan | None = plan_scatter(
                view, item, idx_item, core_num=cores, ub_bytes=ub, data_copy_pad=pad, atomic_add=atomic,
                deterministic=det, sum_itemsize=wide,
            )  # fmt: skip
        except ValueError:  # does not fit UB: the C++ window is not positive either
            plan = None
        expected.append((list(view.words()), plan))
    got = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    for (words, plan), row in zip(expected, got.stdout.splitlines(), strict=True):
        values = [int(v) for v in row.split()]
        assert values[:47] == words
        if plan is None:
            assert values[49] <= 0
            continue
        assert values[47:51] == [STRATEGY[plan.strategy], len(plan.cores), plan.window_len, plan.tile_len]


def test_row_view_refuses_what_index_add_refuses() -> None:
    """``scatter_view(rows=True)`` raises for a 2-d index, a src of another rank, or a src whose extents are
    not self's outside dim and numel(index) along it (CANN's aclnnIndexAdd shape checks)."""
    for index, src in (((2, 1), (2, 3)), ((2,), (2, 3, 1)), ((2,), (3, 3)), ((2,), (2, 4))):
        with pytest.raises(ValueError):
            scatter_view((4, 3), index, src, 0, rows=True)
    assert scatter_view((), (), (), 0, rows=True).index_len == 1
