"""Entry point of the benchmark suite: ``python bench/run.py [--quick] [--json FILE]`` (or ``python -m bench.run``).

Runs against the checkout this file lives in (its ``codegen`` package, ``specs/``, ``generated/``): the
checkout is put first on ``sys.path`` and on the ``PYTHONPATH`` of every child process.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> int:
    """Puts the checkout first on ``sys.path`` and runs :func:`bench.suite.main`."""
    here = Path(__file__).resolve().parent
    root = str(here.parent)
    sys.path[:] = [root, *(p for p in sys.path if p != root and Path(p or ".").resolve() != here)]
    from bench.suite import main as suite_main

    return suite_main()


if __name__ == "__main__":
    raise SystemExit(main())
