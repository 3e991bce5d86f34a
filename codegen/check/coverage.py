"""``opgen check --coverage``: which lines and branches of an op's generated sources the check's cases reach.

A coverage run builds each (op, product) with its generated units instrumented for gcov
(:func:`codegen.build.build_op` with ``coverage=True``) and runs its cases in check workers whose
``GCOV_PREFIX`` is the job's own folder (:func:`worker_env`): every process of the job (each worker, the
example program) adds its counts to the same ``.gcda`` files there, and libgcov merges concurrent writers
under a file lock. :func:`collect` then reads the counts with ``gcov --json-format`` and keeps the files
under the op's generated folder only (not runtime/ nor system headers).

Counting (per source line, over every function and template instantiation that has code on it):
a line is reached when any of its code ran; its branches are the conditional edges gcov reports on it,
less the exception edges (``throw``), and a branch is reached when any instantiation took it. A line is
unreachable text only if it has no code (comments, declarations): those are not counted.

A worker killed by a crash or a timeout writes no counts: its cases reach nothing in the report.

Constructs no call of the emulated check can run (:data:`ALLOWLIST`, by kind, with the reason) are found in
the generated text (:func:`allowed_lines`): their lines, or only their branches, are listed per file under
``allowed`` and left out of the reached/total figures, and :func:`report` counts them by kind under its table.
So are the branches gcov puts on a statement that states no condition (``no-decision``): the compiler's own
(static-local guards, cleanups of temporaries) and those of code inlined there from a callee. The units are
not built with ``-fno-exceptions`` to drop the former: the emulator stops a faulting kernel core by throwing
through the generated kernel's frames, whose objects must still be destroyed, and a coverage build runs the
code the check runs.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Constructs of the generated sources that only a device (or a product outside the catalogue) runs, by kind:
#: ``(what is left out, the reason)``. ``lines``: the construct's lines and the branches on them; ``branches``:
#: the branches on its line only (the line itself still counts).
ALLOWLIST: dict[str, tuple[str, str]] = {
    "npu-arch-default": (
        "lines",
        "the default label of a switch over the NpuArch (and its body): taken only on an NPU whose architecture "
        "no product of the op lists (specs/products.yaml); the check runs the op's products only",
    ),
    "other-npu-arch-case": (
        "lines",
        "a case group of a switch over the NpuArch whose labels are other products' architectures: reached in "
        "those products' jobs, never on this one",
    ),
    "tiling-parse": (
        "lines",
        "the TilingParse callback registered with IMPL_OP_OPTILING: the CANN op-tiling framework calls it with "
        "the compiled kernel's compile info on a device; the emulated aclnn path runs the tiling function only",
    ),
    "null-result-check": (
        "branches",
        "the failing side of CHECK_RET(<pointer> != nullptr, ...): taken when the executor or an L0 op cannot "
        "allocate its tensor (device memory exhausted), which the emulator never injects",
    ),
    "graph-failed-guard": (
        "lines",
        "an if whose only statement returns ge::GRAPH_FAILED (a null shape, desc or attribute, no core, an "
        "unknown NpuArch, no room in UB): the tiling and InferShape functions' answer to a context that the "
        "graph engine may build; the aclnn path calls them only after its checks, and a call those checks let "
        "through with such a context fails the check with the tiling error status",
    ),
    "launch-status-check": (
        "branches",
        "the failing side of CHECK_RET(<status> == ACLNN_SUCCESS, ...) on the status of ADD_TO_LAUNCHER_LIST_AICORE: "
        "taken when the launch disagrees with the OpDef or InferShape or no kernel is registered, a defect of the "
        "generated sources that fails the check's cases with that status, never a valid call's outcome",
    ),
    "npu-arch-switch": (
        "branches",
        "the outcomes of a switch over the NpuArch: one per case group, and the groups of other products and "
        "the default are left out above; which group ran shows in its lines",
    ),
    "no-decision": (
        "branches",
        "branches gcov puts on a statement that has no condition of its own (no if, for, while, switch, case, "
        "?:, &&, || nor a CHECK_RET/OP_CHECK condition): code the compiler adds (static-local guards, cleanups "
        "of temporaries on exception paths) or inlines from a callee (std::max, the emulated CANN macros' and "
        "classes' own code, such as TILING_DATA_FIELD_DEF, OP_TYPE_REGISTER, OP_LOGE)",
    ),
}

_SWITCH = re.compile(r"\bswitch\s*\(")
#: A condition of the generated code's own in a statement's text (comments and string literals removed).
_DECISION = re.compile(r"\b(?:if|for|while|switch|case|default|CHECK_RET\w*|OP_CHECK\w*)\b|\?|&&|\|\|")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_TILING_PARSE = re.compile(r"^static\s+ge::graphStatus\s+TilingParseFor\w*\(")
_NULL_CHECK = re.compile(r"\bCHECK_RET\(\s*[\w.>()-]+\s*!=\s*nullptr\s*,")
_STATUS_CHECK = re.compile(r"^CHECK_RET\(\s*(\w+)\s*==\s*ACLNN_SUCCESS\s*,")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_CASE = re.compile(r"^case\s+(\d+)\s*:")


def _arch_switch(text: list[str], i: int) -> bool:
    """Whether the label on line ``i`` (0-based) of ``text`` belongs to a switch over the NpuArch."""
    depth = _indent(text[i])
    head = next((t for t in reversed(text[:i]) if _SWITCH.search(t) and _indent(t) < depth), "")
    return "NpuArch" in head or "npuArch" in head


def _label_body(text: list[str], i: int, kind: str, found: dict[int, str]) -> None:
    """Marks the label group starting on line ``i`` (0-based) and its body as ``kind``: the group's further
    labels, then every line deeper than the labels up to the next label or the switch's end."""
    depth = _indent(text[i])
    found[i + 1] = kind
    j = i + 1
    while j < len(text) and _indent(text[j]) == depth and _CASE.match(text[j].strip()):
        found[j + 1] = kind
        j += 1
    while j < len(text) and (not text[j].strip() or _indent(text[j]) > depth):
        found[j + 1] = kind
        j += 1


def _code(line: str) -> str:
    """``line`` without its string and character literals and its ``//`` comment."""
    return _STRING.sub('""', line).split("//", 1)[0].strip()


def _statement(text: list[str], i: int) -> str:
    """The code of the statement line ``i`` (0-based) of ``text`` belongs to: back to the line after one that
    ends a statement or opens or closes a block (``;``, ``{``, ``}``, a label's ``:``), on to the line that
    does. Preprocessor lines stand alone."""
    if _code(text[i]).startswith("#"):
        return _code(text[i])
    first = i
    while first > 0:
        before = _code(text[first - 1])
        if not before or before.startswith("#") or before.endswith((";", "{", "}", ":")):
            break
        first -= 1
    last = i
    while last + 1 < len(text) and not _code(text[last]).endswith((";", "{", "}", ":")):
        last += 1
    return " ".join(_code(t) for t in text[first : last + 1])


def _launch_status(text: list[str], i: int, name: str) -> bool:
    """Whether the statement before line ``i`` (0-based) of ``text`` sets ``name`` to the status of
    ``ADD_TO_LAUNCHER_LIST_AICORE``."""
    j = i - 1
    while j > 0 and not _code(text[j - 1]).endswith((";", "{", "}")):
        j -= 1
    before = _statement(text, j) if j >= 0 else ""
    return re.search(rf"\b{name}\s*=\s*ADD_TO_LAUNCHER_LIST_AICORE\(", before) is not None


def _graph_failed_guard(text: list[str], i: int) -> list[int]:
    """The 1-based lines of the ``if`` on line ``i`` (0-based) of ``text`` (its condition may go on over
    several lines) and of its body when that body is only ``return ge::GRAPH_FAILED;``; else none."""
    last = i
    while last + 1 < len(text) and not _code(text[last]).endswith("{"):
        last += 1
    body = [_code(t) for t in text[last + 1 : last + 3]]
    if body != ["return ge::GRAPH_FAILED;", "}"]:
        return []
    return list(range(i + 1, last + 4))


def allowed_lines(text: list[str], npu_arch: int | None = None) -> dict[int, str]:
    """The 1-based line numbers of ``text`` (a generated C++ file's lines) in a construct of
    :data:`ALLOWLIST`, each with its kind; with ``npu_arch`` (the job's product's NpuArch number) also the
    case groups of NpuArch switches that do not list it. Found by the layout the templates give
    (clang-format): a label belongs to the nearest ``switch (`` above it at a smaller indentation, and its body
    runs to the next line at the label's indentation or less; a function ends at its first ``}`` in column 0.
    """
    found: dict[int, str] = {}
    for i, line in enumerate(text):
        stripped = line.strip()
        if i + 1 in found:
            continue
        if stripped == "default:" and _arch_switch(text, i):
            _label_body(text, i, "npu-arch-default", found)
        elif npu_arch is not None and _CASE.match(stripped) and not _CASE.match(text[i - 1].strip()):
            group = [stripped]
            j = i + 1
            while j < len(text) and _indent(text[j]) == _indent(line) and _CASE.match(text[j].strip()):
                group.append(text[j].strip())
                j += 1
            archs = {int(m.group(1)) for t in group if (m := _CASE.match(t))}
            if npu_arch in archs or (j < len(text) and text[j].strip() == "default:"):
                continue
            if _arch_switch(text, i):
                _label_body(text, i, "other-npu-arch-case", found)
        elif _TILING_PARSE.match(line):
            for j in range(i, len(text)):
                found[j + 1] = "tiling-parse"
                if text[j].startswith("}"):
                    break
        elif stripped.startswith("if (") and (guard := _graph_failed_guard(text, i)):
            for n in guard:
                found[n] = "graph-failed-guard"
        elif _NULL_CHECK.search(stripped):
            found[i + 1] = "null-result-check"
        elif (status := _STATUS_CHECK.match(stripped)) and _launch_status(text, i, status.group(1)):
            found[i + 1] = "launch-status-check"
        elif _SWITCH.search(stripped) and ("NpuArch" in stripped or "npuArch" in stripped):
            found[i + 1] = "npu-arch-switch"
        elif stripped and not _DECISION.search(_statement(text, i)):
            found[i + 1] = "no-decision"
    return found


#: The file each job's folder gets (:func:`collect`), read by :func:`report`.
SUMMARY = "coverage.json"


def job_dir(root: Path, op: str, product: str) -> Path:
    """The folder of one (op, product) in a coverage run's folder ``root``."""
    return root / op / product


def worker_env(folder: Path, notes: tuple[Path, ...]) -> dict[str, str]:
    """The environment variables that send the counts of the units whose gcov notes are ``notes`` to
    ``folder`` (``GCOV_PREFIX``; ``GCOV_PREFIX_STRIP`` drops the build's work directory, the folder the
    unit was compiled in, from the recorded ``.gcda`` path)."""
    depth = 0
    if notes:
        # the unit's object was compiled as <cache>/opgen-build-*/<name>.o: the cache's components and the
        # work directory's (the parts of <cache> count the root "/" as one); the note is <cache>/obj/<key>/
        depth = len(notes[0].parents[2].parts)
    return {"GCOV_PREFIX": str(folder), "GCOV_PREFIX_STRIP": str(depth)}


def _gcov_json(folder: Path, note: Path) -> list[dict[str, Any]]:
    """gcov's JSON records of one unit (``note``'s ``.gcda`` in ``folder``; none when it never ran)."""
    data = folder / f"{note.stem}.gcda"
    if not data.is_file():
        return []
    shutil.copyfile(note, folder / note.name)
    proc = subprocess.run(
        ["gcov", "--json-format", "--stdout", "--branch-probabilities", str(data)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"gcov failed on {data}: {proc.stderr.strip()}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _relative(path: str, folder: str) -> str | None:
    """``path`` (as gcov recorded it) relative to the op's folder ``folder`` (``<category>/<kernel>``), or
    None for a file outside it. A unit compiled from another copy of the tree (the build cache shares
    unchanged units between copies) names that copy: the part after the folder is what counts."""
    marker = f"/{folder}/"
    at = path.rfind(marker)
    return None if at < 0 else path[at + len(marker) :]


def collect(
    folder: Path, notes: tuple[Path, ...], op_folder: str, root: Path, npu_arch: int | None = None
) -> dict[str, Any]:
    """The coverage of one (op, product) from the counts in ``folder``: per generated file (path relative to
    the op's folder ``op_folder``, text read from the generated op folder ``root``), reached and total lines
    and branches and the unreached lines ``[number, text]``, less the allowlisted constructs, which are listed
    as ``allowed`` ``[number, kind]`` (:func:`allowed_lines`; ``npu_arch`` is the job's product's NpuArch).
    Also written to ``folder/coverage.json``.

    Raises:
        RuntimeError: gcov failed on a unit's counts.
    """
    lines: dict[str, dict[int, bool]] = {}
    branches: dict[str, dict[int, list[bool]]] = {}
    for note in notes:
        for record in _gcov_json(folder, note):
            for entry in record.get("files", []):
                rel = _relative(entry["file"], op_folder)
                if rel is None:
                    continue
                file_lines = lines.setdefault(rel, {})
                file_branches = branches.setdefault(rel, {})
                for line in entry.get("lines", []):
                    number = int(line["line_number"])
                    file_lines[number] = file_lines.get(number, False) or int(line["count"]) > 0
                    taken = [int(b["count"]) > 0 for b in line.get("branches", []) if not b.get("throw")]
                    known = file_branches.setdefault(number, [])
                    known.extend([False] * (len(taken) - len(known)))
                    for i, hit in enumerate(taken):
                        known[i] = known[i] or hit
    files: dict[str, Any] = {}
    for rel in sorted(lines):
        text = (root / rel).read_text(errors="replace").splitlines() if (root / rel).is_file() else []
        allowed = allowed_lines(text, npu_arch)
        counted = {n: hit for n, hit in lines[rel].items() if ALLOWLIST.get(allowed.get(n, ""), ("",))[0] != "lines"}
        missed = sorted(n for n, hit in counted.items() if not hit)
        per_line = {n: b for n, b in branches[rel].items() if n not in allowed}
        files[rel] = {
            "lines": {"reached": sum(counted.values()), "total": len(counted)},
            "branches": {
                "reached": sum(sum(b) for b in per_line.values()),
                "total": sum(len(b) for b in per_line.values()),
            },
            "unreached_lines": [[n, text[n - 1].strip() if n <= len(text) else ""] for n in missed],
            "unreached_branch_lines": sorted(n for n, b in per_line.items() if not all(b)),
            "allowed": [
                [n, kind]
                for n, kind in sorted(allowed.items())
                if branches[rel].get(n) or (ALLOWLIST[kind][0] == "lines" and n in lines[rel])
            ],
        }
    summary = {"files": files}
    (folder / SUMMARY).write_text(json.dumps(summary, indent=1))
    return summary


def _percent(reached: int, total: int) -> str:
    return f"{100.0 * reached / total:5.1f}%" if total else "    -"


def report(root: Path, json_path: Path | None) -> list[str]:
    """The coverage table of a run whose folder is ``root`` (one row per op x product and generated file:
    lines and branches reached of total) and, with ``json_path``, the whole report written there as JSON
    ``{"<op>/<product>": {"files": {<file>: ...}}}`` (see :func:`collect`). Jobs that wrote no counts (a build
    failure) are absent."""
    results: dict[str, Any] = {}
    for summary in sorted(root.glob(f"*/*/{SUMMARY}")):
        results[f"{summary.parent.parent.name}/{summary.parent.name}"] = json.loads(summary.read_text())
    rows = [("op/product", "file", "lines", "", "branches", "")]
    for name, data in results.items():
        for rel, f in data["files"].items():
            ln, br = f["lines"], f["branches"]
            rows.append(
                (
                    name,
                    rel,
                    f"{ln['reached']}/{ln['total']}",
                    _percent(ln["reached"], ln["total"]),
                    f"{br['reached']}/{br['total']}",
                    _percent(br["reached"], br["total"]),
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    out = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    out += counted_out(results)
    if json_path is not None:
        json_path.write_text(json.dumps(results, indent=1))
        out.append(f"coverage report written to {json_path}")
    return out


def counted_out(results: dict[str, Any]) -> list[str]:
    """What the figures of ``results`` (the report's JSON, see :func:`report`) leave out, one line per
    :data:`ALLOWLIST` kind that occurs: how many lines of that kind, over all rows, had code or branches, what
    of them is left out and why."""
    counts: dict[str, int] = {}
    for data in results.values():
        for f in data["files"].values():
            for _, kind in f["allowed"]:
                counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return []
    out = ["not counted (each file's `allowed` in --coverage-json lists the lines):"]
    for kind in ALLOWLIST:
        if kind in counts:
            what, why = ALLOWLIST[kind]
            out.append(
                f"  {kind}: {counts[kind]} line(s), {'the lines' if what == 'lines' else 'their branches'}: {why}"
            )
    return out


def print_report(root: Path, json_path: Path | None) -> None:
    """:func:`report` on stdout."""
    for line in report(root, json_path):
        print(line, file=sys.stdout)
