"""The API document's lines every family writes alike (codegen.plan.doc_lines), on a spec whose example has a
bool attr (elu_backward: isResult true) and one without an example."""

from __future__ import annotations

import dataclasses

from codegen.plan.doc_lines import example_lines, product_tiling_line
from codegen.specs import load_project


def test_example_lines_spell_bools_as_asked() -> None:
    _, specs = load_project()
    spec = next(s for s in specs.values() if s.snake == "elu_backward")
    head = [
        "`gradOutput`: FLOAT [2, 2] = [-2.0, -1.0, 0.0, 1.0]",
        "`selfOrResult`: FLOAT [2, 2] = [-2.0, -1.0, 0.0, 1.0]",
        "`alpha` = 1.0",
        "`scale` = 1.0",
        "`inputScale` = 1.0",
    ]
    assert example_lines(spec) == [*head, "`isResult` = True"]
    assert example_lines(spec, c_bools=True) == [*head, "`isResult` = true"]
    assert example_lines(dataclasses.replace(spec, example=None)) == []


def test_product_tiling_line() -> None:
    catalogue, _ = load_project()
    line = product_tiling_line(catalogue.get("Ascend950"), "tile 8 elements")
    assert line == "Ascend950: UB 253952 bytes, 64 cores, tile 8 elements."
