"""Planning the ``opgen check`` matrix: one run per distinct target, shards, recorded case costs.

**Distinct targets.** Two products of the catalogue (``specs/products.yaml``) run an op identically when
everything the generated code, the tiling, the case generator and the emulator read about them is equal.
:func:`product_fingerprint` hashes exactly that: the catalogue fields of role ``behaviour``
(:data:`PRODUCT_FIELD_ROLES`: the glue hands every one of them to the emulator, see
:func:`codegen.build.glue_source`, and the plans read them), the spec's per-product data (the dtypes each
tensor has there, the constraints that name the product), the compiled generated sources of the op and the
product's own generated files (``op_host/config/<config_name>/*_binary.json``). The ``identity`` fields
(``name``, ``config_name``, ``soc_version``) only say which product it is; they enter the fingerprint when
the op's compiled sources test them (``GetSocVersion``/``SocVersion::<soc>``, ``OPGEN_PRODUCT_NAME`` or the
quoted product name, ``GetSocLongVersion``, the quoted config name outside an ``AddConfig`` registration),
and how the OpDef registers the product (its ``AddConfig`` config object). The ``documentation``
fields reach only the docs. Products of one op with equal fingerprints share one build and one run of each
case (:func:`distinct_targets`); ``opgen check --all-products`` runs them all.

**Shards.** ``opgen check --shard K/N`` runs the units (the case runs and the example program, see
:func:`codegen.check.worker.case_units`) that :func:`assign_shards` gives shard K: a greedy longest-first
(LPT) assignment of every unit of the matrix to the least-loaded shard, by the unit's recorded cost in
seconds (:class:`CaseCosts`) or, without a record, an estimate from its tensor bytes
(:func:`estimate_seconds`). Ties break on the unit's ident, so every shard computes the same plan from the
same inputs and cost table.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import heapq
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.inputs import InputFileError, read_input_text
from codegen.spec.model import OpSpec, Product
from codegen.writer import write_output

#: The role of every catalogue field (:class:`codegen.spec.model.Product`): ``behaviour`` fields reach the
#: emulator, the tiling or the templates' code; ``identity`` fields name the product (they matter only where
#: the compiled code tests them); ``documentation`` fields reach only docs and error locations.
PRODUCT_FIELD_ROLES: dict[str, str] = {
    "name": "identity",
    "config_name": "identity",
    "soc_version": "identity",
    "doc_term": "documentation",
    "source": "documentation",
    "capability_source": "documentation",
    "doc_aliases": "documentation",
    "loc": "documentation",
    "npu_arch": "behaviour",
    "ub_bytes": "behaviour",
    "vector_core_num": "behaviour",
    "bf16": "behaviour",
    "data_copy_pad": "behaviour",
    "atomic_add_dtypes": "behaviour",
    "queue_buffer_cap": "behaviour",
    "hw_sync_all": "behaviour",
    "sys_workspace_bytes": "behaviour",
    # the glue hands the cost model to the emulator: it changes the timeline in the counters, not results
    "cost_model": "behaviour",
    # the glue hands it to the emulator (Sort32 and MrgSort fault without it); tilings choose the vector sort by it
    "vector_sort": "behaviour",
}

#: The generated files that are compiled (template kinds of :func:`codegen.spec.generated_names.op_files`).
COMPILED_KINDS = ("op_api_cpp", "op_api_h", "l0_cpp", "l0_h", "infershape_cpp", "tiling_h", "tiling_cpp", "def_cpp")
COMPILED_KINDS_KERNEL = ("kernel_cpp",)


def _roles_complete() -> None:
    names = {f.name for f in dataclasses.fields(Product)}
    missing = names - PRODUCT_FIELD_ROLES.keys()
    if missing:
        raise ValueError(f"catalogue field(s) without a fingerprint role: {', '.join(sorted(missing))}")


def compiled_sources(spec: OpSpec, generated: Path) -> dict[str, str]:
    """The compiled generated files of ``spec`` under ``generated`` (the generated tree's root), relative
    path -> text ("" for a missing file: the build reports it)."""
    from codegen.spec.generated_names import op_files

    files = op_files(spec)
    root = generated / spec.folder
    out: dict[str, str] = {}
    for kind in (*COMPILED_KINDS, *COMPILED_KINDS_KERNEL):
        path = root / files[kind]
        out[files[kind]] = path.read_text(errors="replace") if path.is_file() else ""
    return out


def identity_reads(product: Product, texts: Iterable[str]) -> dict[str, str]:
    """The identity fields of ``product`` that the compiled sources ``texts`` test, with their values."""
    joined = "\n".join(texts)
    reads: dict[str, str] = {}
    if "GetSocVersion" in joined or re.search(rf"SocVersion::{re.escape(product.soc_version)}\b", joined):
        reads["soc_version"] = product.soc_version
    if any(token in joined for token in ("OPGEN_PRODUCT_NAME", "GetSocLongVersion", f'"{product.name}"')):
        reads["name"] = product.name
    quoted = f'"{product.config_name}"'
    if joined.count(quoted) > joined.count(f"AddConfig({quoted}"):
        reads["config_name"] = product.config_name
    return reads


def registration(product: Product, texts: Iterable[str]) -> list[str]:
    """How the OpDef registers ``product`` (the emulator looks its config up by config name,
    runtime/src/host/launcher.cpp): for each ``AddConfig("<config_name>", obj)`` the config object's
    statements (``obj.Input(...)...;``, white space folded, the object's own name left out, so that two
    products registered with equal configs in objects of their own names read alike), ``""`` for a
    registration without one; empty when the product is not registered."""
    pattern = re.compile(rf'AddConfig\("{re.escape(product.config_name)}"\s*(?:,\s*(\w+))?\s*\)')
    joined = "\n".join(texts)
    out = []
    for m in pattern.finditer(joined):
        obj = m.group(1)
        if not obj:
            out.append("")
            continue
        body = re.findall(rf"\b{re.escape(obj)}\.(.*?);", joined, re.S)
        out.append("\n".join(" ".join(b.split()) for b in body))
    return out


def product_fingerprint(spec: OpSpec, product: Product, generated: Path) -> str:
    """The fingerprint of ``spec`` on ``product`` (see the module doc): 24 hex digits.

    Args:
        spec: the op.
        product: a product of the op.
        generated: the generated tree's root (``generated/`` or ``opgen check --generated``).

    Raises:
        ValueError: a catalogue field has no entry in :data:`PRODUCT_FIELD_ROLES`.
    """
    _roles_complete()
    compiled = compiled_sources(spec, generated)
    binary = generated / spec.folder / "op_host" / "config" / product.config_name
    parts: dict[str, Any] = {
        "behaviour": {
            f: repr(getattr(product, f)) for f, role in sorted(PRODUCT_FIELD_ROLES.items()) if role == "behaviour"
        },
        "identity": identity_reads(product, compiled.values()),
        "registration": registration(product, compiled.values()),
        "dtypes": {t.name: [d.name for d in t.dtypes_for(product)] for t in [*spec.inputs, *spec.outputs]},
        "constraints": [
            (c.name, c.loc.line if c.loc is not None else None) for c in spec.constraints if product.name in c.products
        ],
        "compiled": hashlib.sha256(json.dumps(sorted(compiled.items())).encode()).hexdigest(),
        "binary": sorted((p.name, p.read_text(errors="replace")) for p in binary.glob("*")) if binary.is_dir() else [],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def distinct_targets(spec: OpSpec, products: list[Product], generated: Path) -> list[tuple[Product, list[Product]]]:
    """``products`` of ``spec`` grouped by :func:`product_fingerprint`, in catalogue order: ``(runs, covers)``
    pairs, ``runs`` the first product of a group and ``covers`` the others (run as ``runs``)."""
    groups: dict[str, tuple[Product, list[Product]]] = {}
    for product in products:
        key = product_fingerprint(spec, product, generated)
        if key in groups:
            groups[key][1].append(product)
        else:
            groups[key] = (product, [])
    return list(groups.values())


# ---------------------------------------------------------------------------------------------------- costs

#: Seconds every unit costs in the estimate, plus ...
ESTIMATE_BASE_SECONDS = 0.004
#: ... this many seconds per byte of the unit's tensors (about 60 MB/s through emulator and comparison).
ESTIMATE_SECONDS_PER_BYTE = 1.0 / 60e6
#: The estimated cost of an example program (compiling it is cached; running it starts a process).
EXAMPLE_ESTIMATE_SECONDS = 0.05


def estimate_seconds(nbytes: int) -> float:
    """The estimated cost of a unit with ``nbytes`` bytes of tensors (no recorded cost)."""
    return ESTIMATE_BASE_SECONDS + nbytes * ESTIMATE_SECONDS_PER_BYTE


#: Largest cost table read (bytes): one entry is about 100 bytes, so this holds millions of cases; a larger
#: file is not one opgen wrote, and reading it whole could take gigabytes of memory.
MAX_COST_TABLE_BYTES = 256 << 20

#: Largest seconds a cost table may record for one unit (about 11.6 days): a unit's time limit is minutes
#: (``--timeout`` aside), and larger values (an integer of hundreds of digits, 1e308) would overflow the
#: shard planner's sums to infinity, so a table holding one is not one opgen wrote.
MAX_UNIT_SECONDS = 1e6


class CaseCosts:
    """Recorded seconds per unit ident, kept in a JSON file (``{"version": 1, "seconds": {ident: s}}``).

    ``opgen check`` records the time of every unit it ran (:meth:`record`, :meth:`save`) in
    ``<build cache>/case-costs.json`` or the ``--costs`` file. The build cache's table is the tool's own: a
    missing or unreadable one is an empty table (the estimate applies) and is rewritten; a ``--costs`` file is
    read with :meth:`read`, which refuses one it cannot use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}
        if path.exists() or path.is_symlink():
            try:  # the checks of a --costs file: a damaged table (NaN or negative seconds too) is empty
                self.seconds = type(self).read(path, created=False).seconds
            except ValueError:
                self.seconds = {}

    @classmethod
    def read(cls, path: Path, *, created: bool) -> CaseCosts:
        """The table in ``path``, a file the user named (``--costs FILE``), checked: unlike the build cache's
        own table, a file that cannot be used is an error, not an empty table.

        Args:
            path: the cost table.
            created: True where the command writes the table (an unsharded check, ``opgen report merge``):
                a missing file is an empty table, created on :meth:`save`. False where it only reads it
                (``opgen check --shard``): a missing file is an error.

        Raises:
            ValueError: ``"<reason>"``: the file is missing (and not ``created``), unreadable, not JSON, or not
                ``{"version": 1, "seconds": {ident: seconds}}`` with the integer 1 (not ``true`` or ``1.0``) and
                seconds in [0, MAX_UNIT_SECONDS] (a huge integer too: it would overflow the planner's sums).
        """
        if created and not path.exists() and not path.is_symlink():
            return cls(path)
        try:
            text = read_input_text(path, MAX_COST_TABLE_BYTES)
        except InputFileError as exc:
            if exc.errno != errno.ENOENT:
                raise ValueError(f"cannot read: {exc.reason}") from None
            if created:  # a symlink to nothing: writing would create a file where the link points
                raise ValueError("a symbolic link to a missing file") from None
            raise ValueError("no such file (a sharded run reads the cost table; it never creates one)") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        except RecursionError:  # valid JSON nested deeper than the decoder's recursion limit ([[[[...)
            raise ValueError("not a cost table (JSON nested too deeply to read)") from None
        seconds = data.get("seconds") if isinstance(data, dict) else None
        shape = 'expected {"version": 1, "seconds": {"<case>": <seconds>, ...}}'
        version = data.get("version") if isinstance(data, dict) else None
        if not isinstance(seconds, dict) or type(version) is not int or version != 1:  # true, 1.0: not version 1
            raise ValueError(f"not a cost table ({shape})")
        for ident, value in seconds.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_UNIT_SECONDS:
                shown = repr(value) if not isinstance(value, int) or value.bit_length() < 64 else "a huge integer"
                raise ValueError(
                    f"not a cost table: seconds of {ident!r} is {shown}, not a number of seconds in "
                    f"[0, {MAX_UNIT_SECONDS:g}]"
                )
        table = cls.__new__(cls)
        table.path = path
        table.seconds = {str(k): float(v) for k, v in seconds.items()}
        return table

    def get(self, ident: str) -> float | None:
        """The recorded seconds of ``ident``, or None."""
        return self.seconds.get(ident)

    def record(self, results: Iterable[Any]) -> None:
        """Records ``results`` (:class:`codegen.check.driver.CaseResult`) that ran (not copies for covered
        products, not job-level failures)."""
        for r in results:
            if not r.covered_by and "/-/" not in r.ident and r.seconds > 0:
                self.seconds[r.ident] = round(float(r.seconds), 6)

    def save(self) -> None:
        """Writes the table with :func:`codegen.writer.write_output` (atomically: a temporary file renamed over
        it; in place through a descriptor link or to a FIFO or device); an unwritable place is ignored (costs
        are an optimisation)."""
        with contextlib.suppress(OSError):
            write_output(self.path, json.dumps({"version": 1, "seconds": dict(sorted(self.seconds.items()))}, indent=0))


# --------------------------------------------------------------------------------------------------- shards


@dataclass(frozen=True)
class Unit:
    """One unit of the matrix: the job it belongs to (index into the job list), its index among the job's
    units (the example program is the last), its ident, its tensor bytes and the index of its case among
    the job's cases (the core orders of one value case are units of one case; -1: a unit of its own)."""

    job: int
    index: int
    ident: str
    nbytes: int
    case: int = -1


def job_units(job: Any, job_index: int) -> list[Unit]:
    """The units of ``job`` (:class:`codegen.check.driver.Job`) in the order its worker runs them: its case
    runs, then the example program unless ``--dtype`` excludes its dtype
    (:func:`codegen.check.example.example_selected`).

    Raises:
        KeyError: the op or product is unknown (the caller built the job from the same catalogue).
    """
    from codegen.check.driver import cases_for
    from codegen.check.example import example_selected
    from codegen.check.worker import case_units, unit_ident
    from codegen.specs import load_project

    catalogue, specs = load_project(job.specs_dir, job.products_file)
    spec = specs[job.spec_snake]
    product = catalogue.get(job.product)
    try:
        cases = cases_for(spec, product, set(job.dtype_filter) or None, job.quick)
    except Exception:  # a broken case generator fails the job in its worker; here it is one unit
        cases = []
    units: list[Unit] = []
    case_index: dict[int, int] = {}  # id of a case's params -> the case's index (its units share the dict)
    for i, (case, suffix) in enumerate(case_units(cases, job.core_orders)):
        nbytes = sum(int(getattr(v, "nbytes", 0) or 0) for v in case.params.values())
        group = case_index.setdefault(id(case.params), len(case_index))
        units.append(Unit(job_index, i, unit_ident(case, suffix), nbytes, group))
    if example_selected(spec, set(job.dtype_filter) or None):
        units.append(Unit(job_index, len(units), f"{spec.snake}/{product.name}/example/example program", -1))
    return units


def unit_cost(unit: Unit, costs: CaseCosts | None) -> float:
    """The recorded cost of ``unit``, else its estimate."""
    recorded = costs.get(unit.ident) if costs is not None else None
    if recorded is not None:
        return recorded
    return EXAMPLE_ESTIMATE_SECONDS if unit.nbytes < 0 else estimate_seconds(unit.nbytes)


def assign_shards(units: list[Unit], count: int, costs: CaseCosts | None) -> list[list[Unit]]:
    """Greedy longest-processing-time assignment of ``units`` to ``count`` shards: the units of one case (its
    core orders, :attr:`Unit.case`) go together, as one item of their summed cost, so the shard's worker
    runs them one after another and reuses what they share (the reference and bound, the verdict of
    bit-identical outputs, a one-core run, see :mod:`codegen.check.driver`); the costliest item first
    (ties by its first ident), each to the shard with the least total so far (ties: the lowest shard).
    Every unit is in exactly one shard; each shard keeps the matrix order. Only the first
    ``min(count, items)`` shards are returned (the others are empty).

    Raises:
        ValueError: ``count`` < 1.
    """
    if count < 1:
        raise ValueError(f"shard count must be at least 1, got {count}")
    # Shards past the number of units stay empty (each empty shard takes the next unit first, lowest first):
    # only that many are built, so a huge count costs nothing. Callers treat a missing shard as empty.
    groups: dict[tuple[int, int, int], list[Unit]] = {}
    for unit in units:
        key = (unit.job, unit.case, -1) if unit.case >= 0 else (unit.job, -1, unit.index)
        groups.setdefault(key, []).append(unit)
    items = [
        (sum(unit_cost(u, costs) for u in g), min((u.ident, u.job, u.index) for u in g), g) for g in groups.values()
    ]
    bins = min(count, max(1, len(items)))
    items.sort(key=lambda item: (-item[0], item[1]))
    heap = [(0.0, k) for k in range(bins)]
    shards: list[list[Unit]] = [[] for _ in range(bins)]
    for cost, _, group in items:
        load, k = heapq.heappop(heap)
        shards[k].extend(group)
        heapq.heappush(heap, (load + cost, k))
    return [sorted(s, key=lambda u: (u.job, u.index)) for s in shards]


def plan_digest(shards: list[list[Unit]]) -> str:
    """A digest of a shard plan (which unit ident is in which shard): equal in every shard of one plan;
    :func:`idents_digest` of the shards' unit idents."""
    return idents_digest([[unit.ident for unit in shard] for shard in shards])


def idents_digest(shards: list[list[str]]) -> str:
    """The digest of a shard plan given as the unit idents of each shard (shard 1 first, each in run order):
    24 hex digits. ``opgen report merge`` recomputes it from the ``planned`` units the shards' JSONs record."""
    h = hashlib.sha256()
    for k, idents in enumerate(shards):
        for ident in idents:
            h.update(f"{k}\0{ident}\0".encode())
    return h.hexdigest()[:24]


def planned_jobs(jobs: list[Any], units: list[Unit]) -> list[dict[str, Any]]:
    """What one shard plans to run, for its JSON's ``meta.planned``: one object per job with units in
    ``units`` (job order): ``op`` (snake name), ``product`` (the product that runs), ``covers`` (the products
    that get copies of its results, :attr:`codegen.check.results.Job.covers`) and ``units`` (the unit idents,
    in run order).

    Args:
        jobs: the whole matrix's :class:`codegen.check.results.Job` list (``Unit.job`` indexes it).
        units: the shard's units (:func:`assign_shards`), in matrix order.
    """
    planned: dict[int, dict[str, Any]] = {}
    for unit in sorted(units, key=lambda u: (u.job, u.index)):
        job = jobs[unit.job]
        entry = planned.setdefault(
            unit.job, {"op": job.spec_snake, "product": job.product, "covers": list(job.covers), "units": []}
        )
        entry["units"].append(unit.ident)
    return [planned[i] for i in sorted(planned)]


def _input_paths(
    specs_dir: Path, products_file: Path, reference_dir: Path, generated: Path, ops: list[str]
) -> dict[str, list[Path]]:
    """The files a check's results depend on besides the tool, by part: ``specs`` (every ``*.yaml`` of the
    specs folder but the catalogue), ``catalogue``, ``references`` and ``generated`` (the files under the op
    folders ``ops`` of ``generated``, each an op's ``folder``)."""
    generated_files: list[Path] = []
    for op in sorted(ops):
        root = generated / op
        if root.is_dir():
            generated_files += sorted(p for p in root.rglob("*") if p.is_file())
    return {
        "specs": [p for p in sorted(specs_dir.glob("*.yaml")) if p != products_file],
        "catalogue": [products_file],
        "references": sorted(reference_dir.glob("*.py")),
        "generated": generated_files,
    }


def _digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(str(path.name).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.hexdigest()[:24]


def inputs_digest(specs_dir: Path, products_file: Path, reference_dir: Path, generated: Path, ops: list[str]) -> str:
    """A digest of what a check's results depend on besides the tool: the spec files, the catalogue, the
    reference modules and the generated op folders ``ops`` (each an op's ``folder``, relative to ``generated``)."""
    parts = _input_paths(specs_dir, products_file, reference_dir, generated, ops)
    specs = sorted(specs_dir.glob("*.yaml"))  # the catalogue too when it is there (the digest's original form)
    return _digest([*specs, products_file, *parts["references"], *parts["generated"]])


def input_part_digests(
    specs_dir: Path, products_file: Path, reference_dir: Path, generated: Path, ops: list[str]
) -> dict[str, str]:
    """The digest of each part of :func:`inputs_digest` (``specs``, ``catalogue``, ``references``,
    ``generated``): ``opgen report merge`` names the part in which two shards' inputs differ."""
    parts = _input_paths(specs_dir, products_file, reference_dir, generated, ops)
    return {name: _digest(files) for name, files in parts.items()}
