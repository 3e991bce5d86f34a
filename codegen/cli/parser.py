"""The argument parser of ``opgen``: its subcommands and options, and option values that start with '-'."""

from __future__ import annotations

import argparse

from codegen.cli.check import cmd_check, cmd_report_merge
from codegen.cli.commands import cmd_build, cmd_explain, cmd_generate, cmd_import, cmd_list, cmd_new
from codegen.cli.options import MAX_SHARDS, _positive_int, _positive_seconds, _shard, _version


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``opgen`` (subcommands list, generate, build, check, explain)."""
    parser = argparse.ArgumentParser(prog="opgen", description="Generate and check Ascend operator sources.")
    parser.add_argument("--version", action="version", version=f"opgen {_version()}")
    parser.add_argument("--specs", help="spec directory (default: the project's specs/)")
    parser.add_argument("--products", help="alternative product catalogue YAML")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="ops, families, products").set_defaults(func=cmd_list)
    g = sub.add_parser("generate", help="render specs into generated/")
    g.add_argument("ops", nargs="*", help="ops to generate (snake name or OpType); default all")
    g.add_argument("--out", help="output directory (default generated/)")
    g.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 and list the stale files of the whole tree (takes no OP)",
    )
    g.add_argument("--force", action="store_true", help="ignore the manifest: re-render every file")
    g.add_argument(
        "--prune",
        action="store_true",
        help="delete the files opgen wrote into the output directory (per its manifest) that no spec or template "
        "produces any more; nothing else is deleted",
    )
    g.add_argument(
        "--dry-run", action="store_true", help="write and delete nothing: list what would be written and pruned"
    )
    g.add_argument("-v", "--verbose", action="store_true", help="also list the files skipped")
    g.set_defaults(func=cmd_generate)
    b = sub.add_parser("build", help="compile an op for a product; print the library path")
    b.add_argument("op")
    b.add_argument("--product", required=True)
    b.add_argument("--generated", help="generated tree to build (default generated/)")
    b.add_argument("--sanitize", action="store_true")
    b.set_defaults(func=cmd_build)
    from codegen.check.legend import LEGEND

    c = sub.add_parser(
        "check",
        help="build, run and compare against NumPy references",
        description="Build every (op, product), run its case matrix, compare with the NumPy references and "
        "print a table; exit 1 when a case fails.",
        epilog=f"The result table: {LEGEND}",
    )
    c.add_argument("ops", nargs="*", help="ops (snake name or OpType); default all")
    c.add_argument("--product", action="append", help="only this product (repeatable)")
    c.add_argument("--dtype", action="append", help="only this dtype (repeatable), e.g. FLOAT16")
    c.add_argument("--generated", help="check the sources in this directory instead of generated/")
    c.add_argument("--quick", action="store_true", help="a reduced matrix (no large shapes, one core order)")
    c.add_argument(
        "--sanitize",
        action="store_true",
        help="build and run with AddressSanitizer + UBSan (the kernel compiled for the tiling keys the cases launch)",
    )
    c.add_argument(
        "--core-order",
        action="append",
        choices=["in_order", "reversed", "shuffle", "concurrent"],
        help="core scheduling mode(s) for every value case",
    )
    c.add_argument("--json", help="write every result with emulator counters to this file")
    c.add_argument("-j", "--jobs", type=_positive_int, default=1, help="worker processes (at least 1)")
    c.add_argument(
        "--timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="time limit of every case (default: 60 s plus 1 s per MiB of the case's tensors, x4 with --sanitize)",
    )
    c.add_argument("-v", "--verbose", action="store_true", help="list every case, not only failures")
    c.add_argument(
        "--all-products",
        action="store_true",
        help="build and run every product, also those whose fingerprint equals another's (by default such a "
        "product's results are copies of the product that ran, marked 'ran as')",
    )
    c.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="run the K-th of N cost-balanced parts of the matrix (join the parts' --json with `opgen report merge`); "
        f"N is at most {MAX_SHARDS}: each part builds the libraries its cases use and plans the whole matrix, so "
        "more parts repeat that work more than they split the cases' time (CI matrices are smaller: GitHub "
        "Actions runs at most 256 jobs of one matrix)",
    )
    c.add_argument(
        "--case",
        action="append",
        metavar="PATTERN",
        help="run only the cases whose ident (as a failure prints it: op/product/dtype/shape/name) matches this "
        "shell-style pattern, e.g. '*/Ascend910B/*empty*' (repeatable: any pattern); the example program's ident "
        "is <op>/<product>/example/example program",
    )
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per case) to FILE")
    c.add_argument(
        "--coverage",
        action="store_true",
        help="build the generated units with gcov and print the lines and branches of each generated file "
        "the cases reached, per op x product",
    )
    c.add_argument(
        "--coverage-json",
        metavar="FILE",
        help="with --coverage: also write the report (per file: reached/total lines and branches, unreached "
        "lines with their text) to FILE",
    )
    c.add_argument(
        "--costs",
        metavar="FILE",
        help="case cost table that --shard balances by (it must exist) and an unsharded run records into "
        "(created when missing); a file that is not a cost table is an error (default: case-costs.json in the "
        "build cache)",
    )
    c.set_defaults(func=cmd_check)
    r = sub.add_parser("report", help="work with `opgen check --json` result files")
    rsub = r.add_subparsers(dest="report_command", required=True)
    m = rsub.add_parser(
        "merge",
        help="join the --json files of the shards of one matrix: the table and exit status of one full run",
        description="Join the --json files of `opgen check --shard K/N` runs (all N shards of one plan) and print "
        "the table and totals one full run prints; exit 1 when a case failed, 2 when the files do not make one "
        "matrix (a shard missing or given twice, overlapping cases, different specs, options or opgen versions).",
    )
    m.add_argument("files", nargs="+", help="the shards' JSON files")
    m.add_argument("--json", help="write the merged results to this file")
    m.add_argument("--junit", metavar="FILE", help="write JUnit XML of the merged results to FILE")
    m.add_argument(
        "--costs",
        metavar="FILE",
        help="record the merged case times in this cost table (for the next `opgen check --shard --costs FILE`; "
        "created when missing, an existing file that is not a cost table is an error)",
    )
    m.add_argument("-v", "--verbose", action="store_true", help="list every case, not only failures")
    m.set_defaults(func=cmd_report_merge)
    n = sub.add_parser("new", help="write a starter spec and a reference stub for a new op")
    n.add_argument("op", help="aclnn name without the prefix, UpperCamelCase (e.g. MseLossBackward)")
    n.add_argument("--family", required=True, help="op family (one with a starter; see `opgen list`)")
    n.set_defaults(func=cmd_new)
    im = sub.add_parser("import", help="write a starter spec from an aclnn API document")
    im.add_argument("doc", help="aclnnXxx document: ops-nn Markdown (docs/aclnnXxx.md) or its English rendering")
    im.add_argument("--out", help="spec file to write (default: <specs>/<op_snake>.yaml)")
    im.add_argument("--family", help="op family (see `opgen list`); without it the spec asks for one")
    im.add_argument("--force", action="store_true", help="overwrite an existing spec file")
    im.set_defaults(func=cmd_import)
    e = sub.add_parser("explain", help="normalized spec and the tiling decision for a shape")
    e.add_argument("op")
    e.add_argument("--product", required=True)
    e.add_argument(
        "--shape",
        help="output shape, e.g. 1024,4096 or 1024x4096 ('x' separates too: 0x10 is [0, 10]; 'scalar' or '' for a 0-d "
        "tensor); index ops: numWeights,D[,N]",
    )
    e.add_argument("--dtype", help="compute dtype (default: the first supported)")
    e.add_argument(
        "--no-model",
        action="store_true",
        help="with --shape: leave out the performance model (it builds the op and runs the call on the emulator)",
    )
    e.add_argument(
        "--generated", help="with --shape: build the performance model's call from this tree (default generated/)"
    )
    e.set_defaults(func=cmd_explain)
    return parser


def _value_options(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """The option strings of ``parser`` and its subcommands: ``(those taking one value, all of them)``."""
    valued: set[str] = set()
    every: set[str] = set()
    todo = [parser]
    while todo:
        current = todo.pop()
        for action in current._actions:
            every.update(action.option_strings)
            if action.option_strings and action.nargs is None and action.const is None:
                valued.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return valued, every


def _values_joined(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with each value that starts with '-' joined to its option (``--shape -1,4`` becomes
    ``--shape=-1,4``), so that the option's own check reports the value instead of argparse's "expected one
    argument". A value that is itself an option of opgen is left alone (argparse reports the missing value)."""
    valued, every = _value_options(parser)
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        following = argv[i + 1] if i + 1 < len(argv) else None
        if token in valued and following is not None and following.startswith("-") and following not in every:
            out.append(f"{token}={following}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out
