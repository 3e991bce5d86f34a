"""The check's case rules hold for any catalogue entry ``generate`` accepts, not only for the catalogue's own
products: a product with one vector core, one with 96 cores and software SyncAll, and one with a 24 KiB UB,
3 cores, no DataCopyPad and no bf16. Every op's full and quick case matrix builds on each (the case
generators size their cases from the product's tiling, so a rule that assumes several cores or a large UB
dies here), one op of each family's matrix builds at the smallest UB generation accepts for it, and
``opgen check --quick`` of one op per family passes on the one-core and the small product
(a rule that judges a valid tiling wrongly fails a case there).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from project_copy import copy_project

from codegen import registry
from codegen.check.driver import cases_for
from codegen.paths import project_paths
from codegen.spec.errors import SpecError, SpecErrors
from codegen.spec.model import Catalogue, OpSpec, Product
from codegen.specs import load_project

pytestmark = pytest.mark.heavy(150)  # about 150 s alone on a cold build cache: scheduled before lighter files

#: Test products; each differs from every catalogue product in what the case rules read (cores, UB bytes,
#: DataCopyPad, bf16, hardware SyncAll), and each has an NpuArch of its own.
ODD_PRODUCTS = """\
  - name: AscendOneCore
    doc_term: Test SoC with one vector core
    config_name: ascendonecore
    soc_version: ASCENDONECORE
    npu_arch: 2291
    ub_bytes: 196608
    vector_core_num: 1
    bf16: true
    data_copy_pad: true
    atomic_add_dtypes: [INT8, INT16, FLOAT16, BF16, INT32, FLOAT]
    queue_buffer_cap: 8
    hw_sync_all: true
    sys_workspace_bytes: 16777216
    source: "test product (tests/test_any_product.py)"
  - name: AscendWide
    doc_term: Test SoC with 96 vector cores and software SyncAll
    config_name: ascendwide
    soc_version: ASCENDWIDE
    npu_arch: 2292
    ub_bytes: 196608
    vector_core_num: 96
    bf16: true
    data_copy_pad: true
    atomic_add_dtypes: [FLOAT16, BF16, INT32, FLOAT]
    queue_buffer_cap: 8
    hw_sync_all: false
    sys_workspace_bytes: 16777216
    source: "test product (tests/test_any_product.py)"
  - name: AscendSmallUb
    doc_term: Test SoC with a 24 KiB UB, 3 vector cores, no DataCopyPad and no bf16
    config_name: ascendsmallub
    soc_version: ASCENDSMALLUB
    npu_arch: 2293
    ub_bytes: 24576
    vector_core_num: 3
    bf16: false
    data_copy_pad: false
    atomic_add_dtypes: [FLOAT]
    queue_buffer_cap: 4
    hw_sync_all: false
    sys_workspace_bytes: 2097152
    source: "test product (tests/test_any_product.py)"
"""
ODD = ("AscendOneCore", "AscendWide", "AscendSmallUb")
_PRODUCTS_LINE = re.compile(r"^products: \[(.*)\]", re.MULTILINE)


def _with_odd_products(specs: Path, ops: list[str] | None = None) -> None:
    """Writes into ``specs`` (created) the catalogue with :data:`ODD_PRODUCTS` appended and the project's specs
    (``ops``, every op when None) with those products added to their ``products`` list."""
    src = project_paths().specs
    specs.mkdir(parents=True, exist_ok=True)
    (specs / "products.yaml").write_text((src / "products.yaml").read_text() + ODD_PRODUCTS)
    for path in sorted(src.glob("*.yaml")):
        if path.name == "products.yaml" or (ops is not None and path.stem not in ops):
            continue
        text, count = _PRODUCTS_LINE.subn(lambda m: f"products: [{m.group(1)}, {', '.join(ODD)}]", path.read_text())
        assert count == 1, f"{path.name}: no one-line products list to extend"
        (specs / path.name).write_text(text)


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "full"])
def test_every_case_matrix_builds_on_any_product(tmp_path: Path, quick: bool) -> None:
    _with_odd_products(tmp_path / "specs")
    catalogue, specs = load_project(tmp_path / "specs", tmp_path / "specs" / "products.yaml")
    for name in ODD:
        product = catalogue.get(name)
        for op, spec in sorted(specs.items()):
            cases = cases_for(spec, product, None, quick)
            values = [c for c in cases if c.expect_status is None and c.mode is None]
            assert values, (op, name)
            assert {c.product for c in cases} == {name}, (op, name)


def _accepts(spec: OpSpec, catalogue: Catalogue, product: Product) -> Catalogue | None:
    """``catalogue`` with ``product`` in place of its namesake when the op's planning accepts it (what
    ``opgen generate`` asks), else None."""
    changed = dataclasses.replace(
        catalogue, products=tuple(product if p.name == product.name else p for p in catalogue.products)
    )
    try:
        registry.family(spec.family).validate(spec, changed)
        registry.family(spec.family).build_views(spec, changed)
    except (ValueError, SpecError, SpecErrors):
        return None
    return changed


@pytest.mark.parametrize("base", ["Ascend910", "Ascend910B"])
def test_a_case_matrix_builds_at_the_smallest_ub_an_op_accepts(base: str) -> None:
    """For the first op of each family that ``base`` has, on three cores of ``base`` (Ascend910: no DataCopyPad,
    no bf16; the other: both), the smallest UB (in 32-byte steps) that generation accepts, found by bisection: there its
    full and quick case matrices build (a rule sized for a large UB dies here), and 32 bytes less is refused."""
    catalogue, specs = load_project()
    firsts: dict[str, str] = {}
    for name in sorted(specs):
        if base in specs[name].products:  # an op generated for base (its UB bounds nothing elsewhere)
            firsts.setdefault(specs[name].family, name)
    for name in sorted(firsts.values()):
        spec = specs[name]
        start = dataclasses.replace(catalogue.get(base), vector_core_num=3)
        lo, hi = 0, start.ub_bytes // 32  # in 32-byte blocks: lo refused (nothing), hi accepted
        assert _accepts(spec, catalogue, start) is not None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _accepts(spec, catalogue, dataclasses.replace(start, ub_bytes=32 * mid)) is not None:
                hi = mid
            else:
                lo = mid
        smallest = dataclasses.replace(start, ub_bytes=32 * hi)
        accepted = _accepts(spec, catalogue, smallest)
        assert accepted is not None and hi > 1, name
        for quick in (True, False):
            assert cases_for(spec, accepted.get(base), None, quick), (name, smallest.ub_bytes)


def test_quick_check_of_every_family_passes_on_one_core_and_a_small_ub(tmp_path: Path) -> None:
    """One op of each family (the first by name, :func:`project_copy.copy_project`) generated for the odd
    products and checked with ``--quick`` on the one-core and the 24 KiB products."""
    ops = copy_project(tmp_path)
    shutil.rmtree(tmp_path / "specs")
    _with_odd_products(tmp_path / "specs", ops)
    base = [sys.executable, "-m", "codegen", "--specs", str(tmp_path / "specs")]
    generated = tmp_path / "generated"
    proc = subprocess.run([*base, "generate", "--out", str(generated)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = tmp_path / "check.json"
    args = [*base, "check", *ops, "--quick", "--generated", str(generated), "-j", "2", "--json", str(report)]
    args += ["--product", "AscendOneCore", "--product", "AscendSmallUb"]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    data = json.loads(report.read_text())
    failed = [f"{c['op']}/{c['product']}/{c['name']}: {c['message']}" for c in data["cases"] if not c["passed"]]
    assert proc.returncode == 0 and not failed, failed[:10] or proc.stderr[-2000:]
    ran = {(c["op"], c["product"]) for c in data["cases"]}
    assert ran == {(op, p) for op in ops for p in ("AscendOneCore", "AscendSmallUb")}
    tiling_2g = [c for c in data["cases"] if "64 bits" in c["name"] and c["product"] == "AscendOneCore"]
    assert {c["op"] for c in tiling_2g} == set(ops)  # the 64-bit offset rule ran on one core, every family
