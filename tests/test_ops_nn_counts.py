"""bench/ops_nn_counts.yaml, the hand counts of ops-nn's kernels the benchmark table compares with: it parses,
covers every aclnn API of the project, and every entry is complete (a source path or a formula minimum, a
catalogue product, a positive count for each of FLOAT, FLOAT16 and BF16, or 0 for a kernel that moves data
only, and possibly INT32 and INT16 where the op's first input lists them: the foreach family's counts of its
integer kernels, which ``tests/test_foreach.py`` compares with); and every elementwise op's generated
program does no more element-ops per element than that count, or exactly the ``generated_above`` figure its
entry states (and explains in its note)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.specs import load_project

COUNTS = Path(__file__).resolve().parent.parent / "bench" / "ops_nn_counts.yaml"
CATALOGUE, SPECS = load_project()
DTYPES = {"FLOAT", "FLOAT16", "BF16"}


def entries() -> dict[str, Any]:
    with COUNTS.open(encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict)
    return data


def test_every_aclnn_api_has_exactly_one_entry() -> None:
    apis = {spec.aclnn_name for spec in SPECS.values()}
    assert len(apis) == len(SPECS)  # no two specs share an aclnn API; a new op needs its count (the set below)
    assert set(entries()) == apis


@pytest.mark.parametrize("api", sorted(entries()))
def test_entry_names_a_source_or_a_formula_minimum_and_positive_counts(api: str) -> None:
    entry = entries()[api]
    assert set(entry) <= {
        "source",
        "formula_minimum",
        "product",
        "element_ops_per_element",
        "note",
        "generated_above",
        "generated_below",
    }
    for dtype, value in (entry.get("generated_below") or {}).items():  # a foreach kernel that does less: say why
        assert value < entry["element_ops_per_element"][dtype] and "generated_below" in entry["note"], (dtype, value)
    source = entry.get("source")
    if source is None:
        assert isinstance(entry.get("formula_minimum"), dict), f"{api}: no source and no formula_minimum"
        counts = entry["formula_minimum"]
    else:
        assert isinstance(source, str) and "/op_kernel/" in source, source
        assert "formula_minimum" not in entry
        counts = entry["element_ops_per_element"]
    assert entry["product"] in {p.name for p in CATALOGUE.products}
    spec = next(s for s in SPECS.values() if s.aclnn_name == api)
    integer = {d.name for d in spec.inputs[0].dtypes} & {"INT32", "INT16"} if source is not None else set()
    assert DTYPES <= set(counts) <= DTYPES | integer, counts
    for dtype, value in counts.items():
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (dtype, value)
        # 0 only for a kernel whose note says it moves data only (a gather: no vector instruction per element)
        assert math.isfinite(value) and (value > 0 or (value == 0 and "moves data only" in entry["note"])), (
            dtype,
            value,
        )
    assert isinstance(entry["note"], str) and entry["note"].strip()
    if entry["product"] != "Ascend910B":  # the note must say why the 910B kernel was not counted
        assert "no Ascend910B kernel" in entry["note"], entry["note"]


def generated_element_ops(spec: Any, dtype: str) -> float:
    """Element-ops per element of the generated kernel for ``spec`` (elementwise) in ``dtype`` with every input
    present: one per vector instruction of its program (each runs over the tile's elements; of a formula with host
    conditions, the longest host case's program, the one attribute path that runs per call); a loss forward adds
    its reduction's Add into the UB accumulator and skips the 16-bit program's rounding into the output. The
    per-core accumulator fill and final ReduceSum are left out, like ops-nn's once-per-core work. A FLOAT16
    input compared only with host values is compared in half: its ``CastElemsForCompare`` runs on BF16 only."""
    from codegen.families.elementwise.compiler.narrow import WIDEN_FOR_COMPARE
    from codegen.families.elementwise.plan.variants import compile_all

    formula = compile_all(spec)[0].formula
    ops = max(
        sum(1 for i in p.instructions if not (dtype == "FLOAT16" and i.op == WIDEN_FOR_COMPARE))
        for p in formula.programs(dtype != "FLOAT")
    )
    if spec.compute.reduce is not None:
        ops += 1 if dtype == "FLOAT" else 0
    return float(ops)


@pytest.mark.parametrize("api", sorted(s.aclnn_name for s in SPECS.values() if s.family == "elementwise"))
def test_elementwise_ops_do_no_more_than_ops_nn(api: str) -> None:
    spec = next(s for s in SPECS.values() if s.aclnn_name == api)
    entry = entries()[api]
    bar = entry.get("element_ops_per_element") or entry["formula_minimum"]
    above = entry.get("generated_above") or {}
    got = {dtype: generated_element_ops(spec, dtype) for dtype in sorted(DTYPES)}
    want = {dtype: float(above[dtype]) if dtype in above else min(got[dtype], bar[dtype]) for dtype in got}
    assert got == want, f"{api}: generated {got}, ops-nn {bar}, generated_above {above}"
    for dtype in above:  # a stated excess is a real one, and the note says why
        assert above[dtype] > bar[dtype], (api, dtype)
    if above:
        assert "Generated kernel above this count" in entry["note"], api
