"""The emulator's counters of the seed kernels over ``opgen check --quick --json`` on every product.

One real ``opgen check`` run (a subprocess: the CLI a user runs) checks both seed ops on every product of
their specs and writes every result with its counters. The cases are regenerated in-process from the same
seeded generators (``cases_for``) to know each case's arrays, and paired with the JSON results one by one
(identifiers must match). Definitions:

* a value case is a case without an expected status (status cases never reach a kernel; the example
  program is judged by its printed values only);
* a launch of a seed kernel is an entry of ``counters.launches`` whose kernel is ``soft_margin_loss_grad``
  or ``embedding_dense_grad_accumulate``; one value case with a non-empty output launches exactly one;
* UB bytes and core counts of a product are ``ub_bytes`` and ``vector_core_num`` of specs/products.yaml;
* the data a kernel moves (for the core count): SoftMarginLossBackward, the bytes of the device op's output
  (numel(out) x the kernel's element size: the inputs are broadcast to it and cast to its dtype on the host);
  EmbeddingDenseBackward, the bytes of grad (N x D x its element size), the data the index split divides;
* a core is used when it writes GM (plain or atomic adds); a launch must use at least
  ``min(vector_core_num, ceil(bytes / 32 KiB))`` cores;
* the minimum GM traffic the math needs: SoftMarginLossBackward reads its 3 (broadcast) inputs once and
  writes numel(out) elements; EmbeddingDenseBackward reads every index once and every grad row whose index
  selects a row that is valid and not the padding row once, and writes the fp32 sums [numWeights, D] once
  (plain writes: the zero fill or the final write; atomic adds are counted apart).
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import yaml

from codegen import registry
from codegen.check.cases import Case
from codegen.check.driver import cases_for
from codegen.paths import project_paths
from codegen.specs import load_project

SMLB = "soft_margin_loss_backward"
EDB = "embedding_dense_backward"
KERNELS = {SMLB: "soft_margin_loss_grad", EDB: "embedding_dense_grad_accumulate"}
_CATALOGUE, _ = load_project()
MIN_BYTES_PER_CORE = 32 * 1024
FP32_BYTES = 4


def _edb_reference() -> ModuleType:
    path = project_paths().reference / f"{EDB}.py"
    spec = importlib.util.spec_from_file_location("edb_counters_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class ProductFacts:
    ub_bytes: int
    cores: int


def _product_facts() -> dict[str, ProductFacts]:
    data = yaml.safe_load((project_paths().specs / "products.yaml").read_text())
    return {p["name"]: ProductFacts(int(p["ub_bytes"]), int(p["vector_core_num"])) for p in data["products"]}


@dataclass(frozen=True)
class Needs:
    """What the math of one value case needs: bytes moved (for the core count), GM read and written."""

    data_bytes: int
    min_read: int
    min_written: int
    out_empty: bool


@dataclass
class Entry:
    """One value case: its generated ``case``, its JSON ``result`` and what it ``needs``."""

    case: Case
    result: dict[str, Any]
    needs: Needs

    @property
    def launches(self) -> list[dict[str, Any]]:
        return list(self.result["counters"].get("launches", []))


def _needs_smlb(case: Case, spec: Any) -> Needs:
    params = case.params
    arrays = {t.name: params.get(t.name) for t in spec.inputs}
    out = params.get("out")
    if out is None:
        out = registry.family(spec.family).infer_output(spec, arrays, {a.name: params[a.name] for a in spec.attrs})
    numel, item = int(np.asarray(out).size), int(np.asarray(out).dtype.itemsize)
    # each input read once, with its own element count: a one-element input broadcast over the output is read
    # once per core by the kernel, not expanded (an absent optional input is not read)
    read = sum(int(np.asarray(a).size) * item for a in arrays.values() if a is not None) if numel else 0
    return Needs(numel * item, read, numel * item, numel == 0)


def _needs_edb(case: Case, ref: ModuleType) -> Needs:
    p = case.params
    grad, indices, num_rows = np.asarray(p["grad"]), np.asarray(p["indices"]), int(p["numWeights"])
    n, d = int(indices.size), int(grad.shape[-1])
    rows, valid = ref.index_rows(indices, num_rows)
    pad = ref._as_int64(p.get("paddingIdx", -1))
    contributing = int(np.count_nonzero(valid & (rows != pad))) if pad >= 0 else int(np.count_nonzero(valid))
    grad_item = int(grad.dtype.itemsize)
    return Needs(
        data_bytes=n * d * grad_item,
        min_read=n * int(indices.dtype.itemsize) + contributing * d * grad_item,
        min_written=num_rows * d * FP32_BYTES,
        out_empty=num_rows * d == 0,
    )


@dataclass
class Report:
    returncode: int
    stdout: str
    entries: dict[tuple[str, str], list[Entry]]  # (op, product) -> value cases
    products: dict[str, list[str]]  # op -> products in the JSON
    facts: dict[str, ProductFacts]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = tmp_path_factory.mktemp("counters") / "check.json"
    cmd = [sys.executable, "-m", "codegen", "check", SMLB, EDB, "--quick", "--json", str(path), "-j", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, check=False)
    assert path.is_file(), (
        f"opgen check wrote no JSON (exit {proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    )
    cases = json.loads(path.read_text())["cases"]
    catalogue, specs = load_project()
    ref = _edb_reference()
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in cases:
        grouped.setdefault((c["op"], c["product"]), []).append(c)
    entries: dict[tuple[str, str], list[Entry]] = {}
    products: dict[str, list[str]] = {}
    for (op, product), results in grouped.items():
        products.setdefault(op, []).append(product)
        spec = specs[op]
        generated = list(cases_for(spec, catalogue.get(product), None, True))
        assert results[-1]["name"] == "example program"
        assert [r["ident"] for r in results[:-1]] == [g.ident for g in generated], f"{op}/{product}: case list differs"
        entries[(op, product)] = [
            Entry(g, r, _needs_smlb(g, spec) if op == SMLB else _needs_edb(g, ref))
            for g, r in zip(generated, results[:-1])
            if g.expect_status is None and g.mode != "tiling_2g"  # tiling_2g cases launch no kernel
        ]
    return Report(proc.returncode, proc.stdout, entries, products, _product_facts())


def _fail(violations: list[str], what: str) -> None:
    assert not violations, f"{len(violations)} {what}:\n" + "\n".join(violations[:60])


def test_check_covers_every_product_and_passes(report: Report) -> None:
    _, specs = load_project()
    for op in (SMLB, EDB):
        assert sorted(report.products[op]) == sorted(specs[op].products)
        for product in specs[op].products:
            assert len(report.entries[(op, product)]) >= 30
    assert report.returncode == 0, report.stdout[-4000:]


def test_every_value_case_has_counters(report: Report) -> None:
    bad: list[str] = []
    for (op, _product), entries in report.entries.items():
        for e in entries:
            counters = e.result["counters"]
            if not counters or "launches" not in counters or "host_tasks" not in counters:
                bad.append(f"{e.case.ident}: no counters")
                continue
            seed = [x for x in e.launches if x["kernel"] == KERNELS[op]]
            want = 0 if e.needs.out_empty else 1
            if len(seed) != want or len(e.launches) != want:
                bad.append(f"{e.case.ident}: {len(e.launches)} launches ({len(seed)} of {KERNELS[op]}), want {want}")
            for launch in seed:
                cores = launch["cores"]
                if len(cores) != int(launch["block_dim"]) or not all("ub_high_water_bytes" in c for c in cores):
                    bad.append(f"{e.case.ident}: per-core counters missing")
    _fail(bad, "value cases without the expected counters")


def test_ub_high_water_never_exceeds_the_product_ub(report: Report) -> None:
    bad: list[str] = []
    peak: dict[tuple[str, str], int] = {}
    for (op, product), entries in report.entries.items():
        ub = report.facts[product].ub_bytes
        for e in entries:
            for launch in e.launches:
                for i, core in enumerate(launch["cores"]):
                    hw = int(core["ub_high_water_bytes"])
                    peak[(op, product)] = max(peak.get((op, product), 0), hw)
                    if hw > ub or hw <= 0:
                        bad.append(f"{e.case.ident}: core {i} UB high-water {hw} bytes, product UB {ub}")
    for (op, product), hw in sorted(peak.items()):
        print(f"{op} on {product}: max UB high-water {hw} / {report.facts[product].ub_bytes} bytes")
    _fail(bad, "launches over the product's UB")


def test_every_launch_uses_enough_cores(report: Report) -> None:
    bad: list[str] = []
    for (op, product), entries in report.entries.items():
        cores = report.facts[product].cores
        largest = max(entries, key=lambda e: e.needs.data_bytes)
        for e in entries:
            need = min(cores, math.ceil(e.needs.data_bytes / MIN_BYTES_PER_CORE))
            for launch in e.launches:
                used = sum(
                    1 for c in launch["cores"] if int(c["gm_bytes_written"]) + int(c["gm_bytes_atomic_added"]) > 0
                )
                tiling = launch.get("tiling") or {}
                wanted = need
                if not _CATALOGUE.get(product).hw_sync_all and "rowGroupNum" in tiling:
                    # Without hardware SyncAll the index-accumulation kernel runs barrier-free: only the owners
                    # of (row group x D-slice) write, so no more cores than that split reaches can take part.
                    wanted = min(need, int(tiling["rowGroupNum"]) * int(tiling["rowSliceNum"]))
                if used < wanted:
                    bad.append(
                        f"{e.case.ident}: {e.needs.data_bytes} bytes need min({cores}, "
                        f"ceil({e.needs.data_bytes}/32768)) = {wanted} cores; {used} of {launch['block_dim']} "
                        f"launched cores write GM (tiling key {launch['tiling_key']})"
                    )
        dims = [int(x["block_dim"]) for x in largest.launches]
        size = largest.needs.data_bytes
        print(f"{op} on {product}: largest quick case {largest.case.name} ({size} bytes): {dims} cores")
    _fail(bad, "launches on fewer cores than their data needs")


def test_gm_traffic_covers_what_the_math_needs(report: Report) -> None:
    bad: list[str] = []
    for (op, _product), entries in report.entries.items():
        for e in entries:
            for launch in e.launches:
                if launch["kernel"] != KERNELS[op]:
                    continue
                totals = launch["totals"]
                read, written = int(totals["gm_bytes_read"]), int(totals["gm_bytes_written"])
                if read < e.needs.min_read:
                    bad.append(f"{e.case.ident}: read {read} GM bytes < {e.needs.min_read} needed")
                if written < e.needs.min_written:
                    bad.append(f"{e.case.ident}: wrote {written} GM bytes < {e.needs.min_written} needed")
    _fail(bad, "launches that move less GM data than the math needs")
