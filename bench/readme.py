"""Write a result file's figures into the manual's benchmark page: ``python bench/readme.py [RESULTS.json]``.

Replaces the text between ``<!-- bench:begin -->`` and ``<!-- bench:end -->`` in ``docs/benchmarks.md``
(:data:`PAGE`; the markers stay) with :func:`bench.report.readme_block` of the result file (default
``bench/results.json``). A ``--quick`` run is refused unless ``--allow-quick`` is given: the manual's figures
come from a full run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"
#: The page holding the markers, relative to the checkout.
PAGE = Path("docs") / "benchmarks.md"


def replace_block(text: str, block: list[str]) -> str:
    """``text`` with the lines between the markers replaced by ``block``.

    Raises:
        ValueError: the markers are missing, repeated or out of order.
    """
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"expected exactly one {BEGIN} followed by one {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + "\n".join(block) + "\n" + END + tail


def update_page(data: dict[str, Any], page: Path, allow_quick: bool = False) -> None:
    """Writes the figures of ``data`` (a loaded result file) between the markers of ``page``.

    Raises:
        ValueError: ``data`` comes from a quick run (and ``allow_quick`` is false) or the markers are wrong.
    """
    from bench.report import readme_block

    if data.get("meta", {}).get("quick") and not allow_quick:
        raise ValueError("a --quick run is not a measurement for the manual (pass --allow-quick to write it anyway)")
    text = page.read_text()
    page.write_text(replace_block(text, readme_block(data)))


def main(argv: list[str] | None = None) -> int:
    """Command line: the result file, ``--page`` (default the checkout's docs/benchmarks.md), ``--allow-quick``."""
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    p = argparse.ArgumentParser(prog="bench/readme.py", description="Write benchmark figures into the manual.")
    p.add_argument("results", nargs="?", default=str(root / "bench" / "results.json"), help="result file (JSON)")
    p.add_argument("--page", default=str(root / PAGE), help="the file with the markers")
    p.add_argument("--allow-quick", action="store_true", help="also write the figures of a --quick run")
    args = p.parse_args(argv)
    try:
        data = json.loads(Path(args.results).read_text())
        update_page(data, Path(args.page), args.allow_quick)
    except (OSError, ValueError, KeyError) as exc:
        print(f"bench/readme.py: {exc}", file=sys.stderr)
        return 1
    print(f"wrote the figures of {args.results} into {args.page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
