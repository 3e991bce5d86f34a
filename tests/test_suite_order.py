"""The order the suite's files reach pytest-xdist's ``--dist loadfile`` scheduler (tests/conftest.py): files
marked ``heavy`` first, longest first, then the others by number of tests, most first; pytest-xdist's own
re-sorting by test count is off, so a file of few long tests is not scheduled last."""

from __future__ import annotations

import itertools

import pytest


def _files_in_order(items: list[pytest.Item]) -> list[tuple[str, float | None, int]]:
    """(file, heavy seconds or None, number of its tests) in the order the files first occur in ``items``; a
    file's heavy seconds are the largest ``heavy`` mark of its tests."""
    seconds: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for item in items:
        file = item.nodeid.split("::", 1)[0]
        mark = item.get_closest_marker("heavy")
        here = float(mark.args[0]) if mark is not None and mark.args else None
        before = seconds.get(file)
        seconds[file] = here if before is None else before if here is None else max(before, here)
        counts[file] = counts.get(file, 0) + 1
    return [(f, s, counts[f]) for f, s in seconds.items()]


def test_xdist_does_not_reorder_the_files_by_test_count(pytestconfig: pytest.Config) -> None:
    """pytest-xdist's ``--loadscope-reorder`` (on by default) is turned off by the suite's conftest."""
    pytest.importorskip("xdist", reason="pytest-xdist is not installed: pip install -e '.[test]' brings it")
    assert pytestconfig.getoption("loadscopereorder") is False


def test_heavy_files_come_first_longest_first_then_the_rest_by_test_count(request: pytest.FixtureRequest) -> None:
    """In the session's collection (what each xdist worker reports to the scheduler), each file's tests are
    contiguous, the heavy files precede the others in non-increasing seconds, and the others follow in
    non-increasing number of tests."""
    items = list(request.session.items)
    files = _files_in_order(items)
    # contiguous: a file's tests are not split by another file's
    runs = [item.nodeid.split("::", 1)[0] for item in items]
    changes = [runs[0], *(b for a, b in itertools.pairwise(runs) if a != b)]
    assert len(changes) == len(files), "a file's tests are not contiguous"
    heavy = [s for _, s, _ in files if s is not None]
    assert [s for _, s, _ in files[: len(heavy)]] == heavy, "a file without the heavy mark precedes a heavy one"
    assert heavy == sorted(heavy, reverse=True)
    rest = [n for _, s, n in files[len(heavy) :]]
    assert rest == sorted(rest, reverse=True)
