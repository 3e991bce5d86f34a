"""Result files of ``opgen check``: the JSON (with the run's metadata), merging shard JSONs, JUnit XML.

The JSON (``opgen check --json``) is ``{"passed", "failed", "meta", "cases"}``: ``cases`` one object per
:class:`codegen.check.driver.CaseResult`; ``meta`` says what the run was: ``opgen`` (the tool version),
``inputs`` (a digest of the specs, catalogue, references and generated folders,
:func:`codegen.check.matrix.inputs_digest`), ``options`` (what selects the matrix: ops, products, dtypes,
quick, core orders, all-products), ``shard`` ``[K, N]`` and ``plan`` (the digest of the shard plan,
:func:`codegen.check.matrix.plan_digest`; ``[1, 1]`` for an unsharded run) and ``planned`` (what the run
planned: per job its op, product, covered products and unit idents, :func:`codegen.check.matrix.planned_jobs`;
an unsharded run runs every unit of its jobs, so it records the cases they ran).

:func:`merge_results` joins the JSONs of the N shards of one matrix into the results one full run gives;
:func:`write_junit` writes JUnit XML (the schema Jenkins, GitLab and GitHub test reporters read: ``testsuites``
/ ``testsuite`` / ``testcase`` with ``failure``), built with the standard library's ``xml.etree``.
"""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from codegen.check.matrix import MAX_UNIT_SECONDS, idents_digest
from codegen.check.results import NO_MESSAGE, CaseResult, covered_name, result_dict
from codegen.inputs import InputFileError, read_input_text
from codegen.writer import write_output

#: Largest result file read (bytes): a full check's ``--json`` with every counter is tens of MB; JSON takes
#: several times its size in memory once parsed.
MAX_RESULT_BYTES = 512 << 20


class MergeError(Exception):
    """Shard result files that do not make one matrix (the message says which files and why)."""


def write_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` with :func:`codegen.writer.write_output`: a regular file or a new path
    through a temporary file in the same directory renamed over it (the old file's mode kept), so that a
    full disk or a killed process leaves the previous file whole, never a truncated one; through a symbolic
    link to the file it points to. A path through a file-descriptor link (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``) or one that is not a regular file (a FIFO, a device) is written in place.

    Raises:
        OSError: the directory cannot take the temporary file, the write fails (a full disk), the rename, or
            a FIFO has no reader (``ENXIO``).
    """
    write_output(path, text)


def write_json(results: list[CaseResult], path: Path, meta: dict[str, Any] | None = None) -> None:
    """Writes every result (counters included) and ``meta`` (see the module doc) as JSON: ``meta`` indented,
    then one line per case (atomically: :func:`write_atomically`). Each case is encoded by the json module's
    C encoder (an ``indent`` makes it use the pure-Python one: 6.9 s instead of 1.8 s for a full check's
    36,000 cases, at the end of every run).

    Raises:
        OSError: the file cannot be written (:func:`write_atomically`).
    """
    head = {
        "passed": sum(r.passed for r in results),
        "failed": sum(not r.passed for r in results),
        "meta": meta or {},
    }
    opening = json.dumps(head, indent=1, default=float)[: -len("\n}")]
    lines = ",\n".join(json.dumps(result_dict(r), default=float) for r in results)
    text = f'{opening},\n "cases": [\n{lines}\n ]\n}}\n' if results else f'{opening},\n "cases": []\n}}\n'
    write_atomically(path, text)


def read_json(path: Path) -> tuple[dict[str, Any], list[CaseResult]]:
    """``(meta, results)`` of a file written by :func:`write_json`.

    Raises:
        MergeError: the file cannot be read or is not an ``opgen check --json`` file: no ``cases`` list, no
            ``meta``, a string holding a lone surrogate (JSON may escape one; no UTF-8 output can hold it), a
            case lacking a field (named, with the case's index) or holding one of the wrong type.
    """
    try:
        data = json.loads(read_input_text(path, MAX_RESULT_BYTES))
    except InputFileError as exc:
        raise MergeError(str(exc)) from None
    except ValueError as exc:
        raise MergeError(f"{path}: cannot read: {exc}") from exc
    except RecursionError:  # valid JSON nested deeper than the decoder's recursion limit ([[[[...)
        raise MergeError(f"{path}: cannot read: JSON nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise MergeError(f"{path}: not an `opgen check --json` file (no 'cases' list)")
    if "meta" not in data:
        raise MergeError(
            f"{path}: no 'meta' (the run's metadata: opgen version, inputs, options, shard and plan); "
            "the file was edited or not written by `opgen check --json`"
        )
    where = _lone_surrogate(data)
    if where is not None:
        raise MergeError(
            f"{path}: {where} holds a lone surrogate (a \\ud800-\\udfff escape), which no UTF-8 text can hold; "
            "`opgen check --json` never writes one (an edited file?)"
        )
    known = {f.name for f in fields(CaseResult)}
    required = [f.name for f in fields(CaseResult) if f.default is MISSING and f.default_factory is MISSING]
    results = []
    for n, c in enumerate(data["cases"]):
        if not isinstance(c, dict):
            raise MergeError(f"{path}: cases[{n}] is a {type(c).__name__}, not an object")
        for name, kinds in _FIELD_KINDS.items():
            if name in c and (not isinstance(c[name], kinds) or (bool not in kinds and isinstance(c[name], bool))):
                raise MergeError(f"{path}: cases[{n}].{name} is {c[name]!r}, not {_KIND_NAMES[kinds]}")
        seconds = c.get("seconds", 0)
        if not 0 <= seconds <= MAX_UNIT_SECONDS:  # NaN, an infinity, a negative time: not a time opgen measured
            shown = repr(seconds) if not isinstance(seconds, int) or seconds.bit_length() < 64 else "a huge integer"
            raise MergeError(
                f"{path}: cases[{n}].seconds is {shown}, not a time in [0, {MAX_UNIT_SECONDS:g}] seconds "
                "(`opgen check --json` never writes one; an edited file?)"
            )
        lacking = [name for name in required if name not in c]
        if lacking:
            raise MergeError(
                f"{path}: cases[{n}] has no {', '.join(repr(k) for k in lacking)} (every case of `opgen check "
                f"--json` has {'it' if len(lacking) == 1 else 'them'}; an edited file?)"
            )
        results.append(CaseResult(**{k: v for k, v in c.items() if k in known}))
        r = results[-1]
        if not r.ident.startswith(f"{r.op}/{r.product}/"):
            raise MergeError(
                f"{path}: cases[{n}] has op {r.op!r} and product {r.product!r}, but its ident {r.ident!r} names "
                "another (an edited file?)"
            )
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise MergeError(f"{path}: 'meta' is a {type(meta).__name__}, not an object")
    return dict(meta), results


def _lone_surrogate(value: Any, where: str = "") -> str | None:
    """Where in the JSON value ``value`` a string (a value or a key) holds a lone surrogate code point (JSON
    text may escape one, ``"\\ud800"``; it cannot be printed or written as UTF-8), e.g.
    ``cases[3].message``; None when no string does."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "the file"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            at = f"{where}.{key}" if where else str(key)
            found = _lone_surrogate(key, f"a key in {where or 'the file'}") or _lone_surrogate(item, at)
            if found is not None:
                return found
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found = _lone_surrogate(item, f"{where}[{n}]")
            if found is not None:
                return found
    return None


#: The keys of ``meta`` the shards of one matrix must share (compared by :func:`merge_results`) and what
#: they say, for the message when two files differ.
_SHARED_META = (
    ("opgen", "opgen versions"),
    ("inputs", "specs, catalogue, references or generated sources"),
    ("options", "check options"),
    ("plan", "shard plans (the case costs they were balanced by differ)"),
)
#: The parts of ``meta["input_parts"]`` (:func:`codegen.check.matrix.input_part_digests`), as a message names
#: them when two shards' inputs differ.
_INPUT_PARTS = {
    "specs": "op specs",
    "catalogue": "product catalogues (products.yaml: the product set or a product's resources)",
    "references": "reference modules",
    "generated": "generated sources",
}


def _inputs_differ(path: Path, meta: dict[str, Any], first_path: Path, first_meta: dict[str, Any]) -> str:
    """The message for two files of different ``inputs``: the parts that differ when both files record
    ``input_parts``, else the combined digests."""
    mine, theirs = meta.get("input_parts"), first_meta.get("input_parts")
    if isinstance(mine, dict) and isinstance(theirs, dict):
        parts = [part for part in _INPUT_PARTS if mine.get(part) != theirs.get(part)]
        if parts:
            what = " and ".join(_INPUT_PARTS[part] for part in parts)
            return f"{path} and {first_path} come from different {what}"
    return (
        f"{path} and {first_path} come from different {_SHARED_META[1][1]}: "
        f"{meta.get('inputs')!r} != {first_meta.get('inputs')!r}"
    )


#: The JSON types each field of a result must have (a result file is read back from disk, maybe edited).
_FIELD_KINDS: dict[str, tuple[type, ...]] = {
    "ident": (str,),
    "op": (str,),
    "product": (str,),
    "dtype": (str,),
    "shape": (str,),
    "name": (str,),
    "passed": (bool,),
    "status": (int,),
    "max_abs_err": (int, float),
    "max_ulp_err": (int, float),
    "message": (str,),
    "seconds": (int, float),
    "counters": (dict,),
    "bound": (int, float),
    "bound_source": (str,),
    "kind": (str,),
    "covered_by": (str,),
}
_KIND_NAMES = {(str,): "a string", (bool,): "true or false", (int,): "an integer", (int, float): "a number"}
_KIND_NAMES[(dict,)] = "an object"


def _job_level(r: CaseResult) -> bool:
    """A result about a whole (op, product) job (its build, reference or worker), not one case: every shard
    with units of the job reports it."""
    return "/-/" in r.ident


def merge_results(paths: list[Path]) -> tuple[dict[str, Any], list[CaseResult]]:
    """The results of one full run from the JSONs of its shards (any order): every shard ``K/N`` of one
    plan exactly once, no case twice. Results are in the order of the shards; a job-level result (a build
    or reference failure) that several shards report is kept once.

    Raises:
        MergeError: a file is unreadable, has no metadata or lacks a key of it, holds a lone surrogate, or
            was written by an interrupted run (``meta.interrupted``);
            the files come from different tool versions, inputs (the message names the part: specs, product
            catalogue, references, generated sources), options or shard plans; a full run is given with a
            shard; a shard is given twice or
            missing; two shards hold the same case; a file lacks results of cases it planned (a run cut short,
            an edited file) or holds a case it did not plan; the files' planned cases do not give the plan
            digest they record.
    """
    if not paths:
        raise MergeError("no result files given")
    loaded = [(p, *read_json(p)) for p in paths]
    for path, meta, _ in loaded:
        if meta.get("interrupted"):
            stop = meta["interrupted"] if isinstance(meta["interrupted"], dict) else {}
            raise MergeError(
                f"{path}: written by an interrupted run ({stop.get('jobs_done', '?')} of "
                f"{stop.get('jobs_total', '?')} jobs finished): its results are not the whole shard; run it again"
            )
        lacking = [key for key, _ in _SHARED_META if key not in meta]
        if lacking:
            raise MergeError(
                f"{path}: its metadata has no {', '.join(repr(k) for k in lacking)} (written by an older opgen, or "
                "edited)"
            )
    _refuse_full_run_with_shards([(path, meta) for path, meta, _ in loaded])
    first_path, first_meta, _ = loaded[0]
    for key, what in _SHARED_META:
        for path, meta, _ in loaded[1:]:
            if meta.get(key) == first_meta.get(key):
                continue
            if key == "inputs":
                raise MergeError(_inputs_differ(path, meta, first_path, first_meta))
            mine, theirs = _shard(meta), _shard(first_meta)
            if key == "plan" and mine is not None and theirs is not None and mine[1] != theirs[1]:
                # shards of different counts have different plans: the count is the cause to name
                raise MergeError(f"{path} is shard {mine[0]}/{mine[1]} but {first_path} is of {theirs[1]} shards")
            raise MergeError(
                f"{path} and {first_path} come from different {what}: {meta.get(key)!r} != {first_meta.get(key)!r}"
            )
    shards: dict[int, Path] = {}
    total = None
    for path, meta, _ in loaded:
        shard = _shard(meta)
        if shard is None:
            raise MergeError(f"{path}: no shard in its metadata (written by an older opgen?)")
        k, n = shard
        if not 1 <= k <= n:
            raise MergeError(f"{path}: shard {k}/{n} is not one of {n} shards")
        if total is not None and n != total:
            raise MergeError(f"{path} is shard {k}/{n} but {first_path} is of {total} shards")
        total = n
        if k in shards:
            raise MergeError(f"{path} and {shards[k]} are both shard {k}/{n}")
        shards[k] = path
    assert total is not None
    # The count of shards comes from the files: count the missing ones without listing them all, and name
    # the first few (a file claiming to be 1 of 10**20 shards costs nothing).
    if len(shards) < total:
        first = list(
            itertools.islice(
                (k for k in itertools.takewhile(lambda k: k <= total, itertools.count(1)) if k not in shards), 5
            )
        )
        more = total - len(shards) - len(first)
        named = ", ".join(f"{k}/{total}" for k in first) + (f" and {more} more" if more else "")
        raise MergeError(f"shard(s) {named} missing: their cases are not in the given files")
    merged: list[CaseResult] = []
    owner: dict[str, Path] = {}
    in_order = sorted(loaded, key=lambda item: item[1]["shard"][0])
    for path, _meta, results in in_order:
        for r in results:
            if r.ident in owner:
                if _job_level(r) and owner[r.ident] != path:
                    continue
                if owner[r.ident] == path:
                    raise MergeError(f"{path}: case {r.ident} is in it twice (an edited file?)")
                raise MergeError(f"case {r.ident} is in both {owner[r.ident]} and {path}: the shards overlap")
            owner[r.ident] = path
            merged.append(r)
    planned_units: list[list[str]] = []
    for path, meta, results in in_order:
        planned = _planned(path, meta)
        _check_plan_covered(path, planned, results)
        planned_units.append([ident for job in planned for ident in job["units"]])
    digest = idents_digest(planned_units)
    if digest != first_meta.get("plan"):
        raise MergeError(
            f"the planned cases of {', '.join(str(p) for p, _, _ in in_order)} do not make one plan: together they "
            f"give plan digest {digest!r}, the files record {first_meta.get('plan')!r} (a plan was edited, or the "
            "files are shards of different plans)"
        )
    # the merged file is one unsharded run's: its plan is every shard's, in shard order (it merges again)
    every = [job for path, meta, _ in in_order for job in _planned(path, meta)]
    flat = [ident for units in planned_units for ident in units]
    meta = {
        **first_meta,
        "shard": [1, 1],
        "plan": idents_digest([flat]),
        "planned": every,
        "merged_from": [str(p) for p in paths],
    }
    return meta, merged


def _shard(meta: dict[str, Any]) -> tuple[int, int] | None:
    """The ``[K, N]`` of a file's ``meta["shard"]``, or None when it is not a pair of integers."""
    shard = meta.get("shard")
    if (
        isinstance(shard, list)
        and len(shard) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in shard)
    ):
        return shard[0], shard[1]
    return None


def _refuse_full_run_with_shards(files: list[tuple[Path, dict[str, Any]]]) -> None:
    """Refuses a full run (``shard`` ``[1, 1]``: an unsharded run, or a merge) given with a shard of N > 1
    (checked before the plans are compared: the two plans always differ, which said nothing about why).

    Raises:
        MergeError: naming the full run's file and the shard's file and its K/N.
    """
    full = next((path for path, meta in files if _shard(meta) == (1, 1)), None)
    if full is None:
        return
    for path, meta in files:
        shard = _shard(meta)
        if shard is not None and shard[1] > 1:
            raise MergeError(
                f"{full} is a full run (no shard) and {path} is shard {shard[0]}/{shard[1]}: a full run cannot be "
                "merged with shards (merge the shards of one run alone; a full run's file needs no merge)"
            )


def _planned(path: Path, meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``planned`` jobs of a result file's metadata (:func:`codegen.check.matrix.planned_jobs`), checked.

    Raises:
        MergeError: the file has no plan, or its plan is not a list of ``{op, product, covers, units}``.
    """
    planned = meta.get("planned")
    kinds = {"op": str, "product": str, "covers": list, "units": list}
    valid = isinstance(planned, list) and all(
        isinstance(job, dict)
        and all(isinstance(job.get(key), kind) for key, kind in kinds.items())
        and all(isinstance(x, str) for x in [*job["covers"], *job["units"]])
        for job in planned
    )
    if not valid:
        raise MergeError(
            f"{path}: no valid plan in its metadata ('planned': the cases the run planned; written by an older opgen?)"
        )
    assert isinstance(planned, list)
    return planned


def _check_plan_covered(path: Path, planned: list[dict[str, Any]], results: list[CaseResult]) -> None:
    """Checks that the results of one file are exactly its plan: every planned case of every product (the
    one that ran and the ones it covers) has a result, or its (op, product) job has a job-level result (a
    build, reference or worker failure, the remaining cases given up after timeouts); no result is unplanned.

    Raises:
        MergeError: planned cases without a result (how many, of how many, the first), or a result that is not
            in the plan.
    """
    expected: list[tuple[str, str]] = []  # (op/product, ident)
    for job in planned:
        for product in [job["product"], *job["covers"]]:
            for ident in job["units"]:
                shown = ident if product == job["product"] else covered_name(ident, job["product"], product)
                expected.append((f"{job['op']}/{product}", shown))
    idents = {r.ident for r in results}
    # only a failed job-level result stands for its job's cases (a passed one, which no run writes, would
    # hide cases edited out of the file)
    failed_jobs = {r.ident.split("/-/")[0] for r in results if _job_level(r) and not r.passed}
    missing = [ident for job, ident in expected if ident not in idents and job not in failed_jobs]
    if missing:
        raise MergeError(
            f"{path}: {len(missing)} of its {len(expected)} planned cases have no result (first: {missing[0]}); "
            "its run was cut short or the file was edited"
        )
    jobs = {job for job, _ in expected}
    planned_idents = {ident for _, ident in expected}
    for r in results:
        planned_here = r.ident.split("/-/")[0] in jobs if _job_level(r) else r.ident in planned_idents
        if not planned_here:
            raise MergeError(f"{path}: case {r.ident} is not in the file's plan")


#: Characters XML 1.0 does not allow (C0 controls other than tab, newline and carriage return; surrogates;
#: U+FFFE and U+FFFF): a kernel's message may quote raw bytes.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """``text`` with the characters XML cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def write_junit(results: list[CaseResult], path: Path, unfinished: str = "") -> None:
    """Writes ``results`` as JUnit XML (atomically: :func:`write_atomically`): one ``testsuite`` per (op,
    product), one ``testcase`` per case (``classname`` ``op.product``, ``name`` the ident after
    ``op/product/``, ``time`` in seconds), a ``failure`` with the message for a failed case (``type`` its
    kind: ``timeout``, ``crash`` or ``fail``), and the product that ran a covered case as a ``covered_by``
    property. ``unfinished`` (a run that was interrupted or is still running) adds a ``testsuite``
    ``opgen check`` whose one ``testcase`` ``run`` has an ``error`` saying so, so that a CI report of a
    file that does not hold the whole matrix is never green.

    Raises:
        OSError: the file cannot be written (:func:`write_atomically`).
    """
    root = ET.Element("testsuites", name="opgen check")
    if unfinished:
        suite = ET.SubElement(root, "testsuite", name="opgen check", tests="1", failures="0", errors="1")
        case = ET.SubElement(suite, "testcase", classname="opgen.check", name="run", time="0")
        error = ET.SubElement(case, "error", message=_xml_text(unfinished[:1000]), type="interrupted")
        error.text = _xml_text(unfinished)
    suites: dict[tuple[str, str], list[CaseResult]] = {}
    for r in results:
        suites.setdefault((r.op, r.product), []).append(r)
    for (op, product), rs in suites.items():
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{op}/{product}",
            tests=str(len(rs)),
            failures=str(sum(not r.passed for r in rs)),
            errors="0",
            skipped="0",
            time=f"{sum(r.seconds for r in rs):.6f}",
        )
        for r in rs:
            prefix = f"{r.op}/{r.product}/"
            name = r.ident[len(prefix) :] if r.ident.startswith(prefix) else r.ident
            case = ET.SubElement(
                suite, "testcase", classname=_xml_text(f"{op}.{product}"), name=_xml_text(name), time=f"{r.seconds:.6f}"
            )
            if r.covered_by:
                props = ET.SubElement(case, "properties")
                ET.SubElement(props, "property", name="covered_by", value=r.covered_by)
            if not r.passed:
                first = r.message.splitlines()[0] if r.message.strip() else NO_MESSAGE
                failure = ET.SubElement(case, "failure", message=_xml_text(first[:1000]), type=r.kind or "fail")
                failure.text = _xml_text(r.message if r.message.strip() else NO_MESSAGE)
    root.set("tests", str(len(results) + (1 if unfinished else 0)))
    root.set("failures", str(sum(not r.passed for r in results)))
    root.set("errors", "1" if unfinished else "0")
    write_atomically(path, ET.tostring(root, encoding="utf-8", xml_declaration=True).decode("utf-8"))
