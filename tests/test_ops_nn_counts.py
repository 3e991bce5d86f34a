"""bench/ops_nn_counts.yaml, the hand counts of ops-nn's kernels the benchmark table compares with: it parses,
covers every aclnn API of the project, and every entry is complete (a source path or a formula minimum, a
catalogue product, a positive count for each of FLOAT, FLOAT16 and BF16)."""

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
    assert len(apis) == 29  # the project's ops at the time the counts were taken; a new op needs its count
    assert set(entries()) == apis


@pytest.mark.parametrize("api", sorted(entries()))
def test_entry_names_a_source_or_a_formula_minimum_and_positive_counts(api: str) -> None:
    entry = entries()[api]
    assert set(entry) <= {"source", "formula_minimum", "product", "element_ops_per_element", "note"}, entry
    source = entry.get("source")
    if source is None:
        assert isinstance(entry.get("formula_minimum"), dict), f"{api}: no source and no formula_minimum"
        counts = entry["formula_minimum"]
    else:
        assert isinstance(source, str) and "/op_kernel/" in source, source
        assert "formula_minimum" not in entry
        counts = entry["element_ops_per_element"]
    assert entry["product"] in {p.name for p in CATALOGUE.products}
    assert set(counts) == DTYPES, counts
    for dtype, value in counts.items():
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (dtype, value)
        assert math.isfinite(value) and value > 0, (dtype, value)
    assert isinstance(entry["note"], str) and entry["note"].strip()
    if entry["product"] != "Ascend910B":  # the note must say why the 910B kernel was not counted
        assert "no Ascend910B kernel" in entry["note"], entry["note"]
