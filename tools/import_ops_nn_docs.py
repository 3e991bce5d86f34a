"""Run ``opgen import``'s document reader over every aclnn document of an ops-nn checkout and tally the
rejections by cause.

Usage::

    python tools/import_ops_nn_docs.py [--repo /work/.mirror/hicann+ops-nn/repo] [--rev HEAD] [--list]

``--repo`` is a bare git repository or a work tree of hicann/ops-nn; every ``*/docs/aclnn*.md`` at ``--rev``
is read through :func:`codegen.aclnn_doc.run.parse_doc` and :func:`codegen.aclnn_doc.emit.emit_spec` (no spec
is written). The report is the number of documents, the number rejected, and the rejections grouped by their
message with digits, quoted names and list contents blanked (``--list`` also prints each rejected document).
A traceback (any exception other than ``DocError``) is counted as its own cause. Nothing of ops-nn is copied
into this repository: the documents are read from the given checkout at run time.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from codegen.aclnn_doc.emit import emit_spec
from codegen.aclnn_doc.model import DocError
from codegen.aclnn_doc.run import parse_doc
from codegen.registry import family_names
from codegen.spec import load_catalogue


def _git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


def _cause(message: str) -> str:
    """A message with its document-specific parts blanked, so equal causes group together."""
    s = re.sub(r"'[^']*'", "'…'", message)
    s = re.sub(r"\[[^\]]*\]", "[…]", s)
    s = re.sub(r"; known: .*|; the catalogue .*", "", s)
    return re.sub(r"\d+", "N", s)


def main(argv: list[str] | None = None) -> int:
    """Prints the tally; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default="/work/.mirror/hicann+ops-nn/repo")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--list", action="store_true", help="print each rejected document and its error")
    args = ap.parse_args(argv)
    names = [
        p
        for p in _git(args.repo, "ls-tree", "-r", "--name-only", args.rev).decode().splitlines()
        if re.search(r"(^|/)docs/aclnn[^/]*\.md$", p)
    ]
    catalogue = load_catalogue(Path(__file__).resolve().parent.parent / "specs" / "products.yaml")
    families = tuple(family_names())
    causes: collections.Counter[str] = collections.Counter()
    rejected: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            path = Path(tmp) / name.replace("/", "__")
            path.write_bytes(_git(args.repo, "show", f"{args.rev}:{name}"))
            try:
                emit_spec(parse_doc(path, catalogue), catalogue, None, families)
            except DocError as exc:
                causes[_cause(exc.message)] += 1
                rejected.append((name, f"{exc}".replace(str(path), name)))
            except Exception as exc:  # a traceback is a finding of its own
                causes[f"TRACEBACK {type(exc).__name__}"] += 1
                rejected.append((name, f"TRACEBACK {type(exc).__name__}: {exc}"))
    print(f"{len(names)} documents, {len(rejected)} rejected")
    for cause, n in causes.most_common():
        print(f"{n:5d}  {cause}")
    if args.list:
        for name, err in rejected:
            print(f"{name}: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
