"""Which elementwise inputs a valid call may pass with one element while the output has more
(:func:`codegen.families.elementwise.plan.shape.one_element_inputs`), and that the generated code has a
one-element path (the ``scalarInputs`` bit, the filled tile) for exactly those. The expected sets are read off
the specs' shape rules and constraints by hand: an output shaped ``like`` an input never has that input
smaller, and a ``numel(a) == numel(b)`` constraint on every product ties ``a`` to ``b``."""

from __future__ import annotations

import pytest

from codegen.families.elementwise.plan.shape import one_element_inputs
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.specs import load_project

_, SPECS = load_project()

EXPECTED = {
    # output "like" self, gradOutput tied to self by the same_shape constraint
    "hardsigmoid_backward": set(),
    "elu_backward": set(),
    # output "like" self, target tied to self; the optional weight broadcasts
    "binary_cross_entropy": {"weight"},
    # output "like" self; the others broadcast to it
    "binary_cross_entropy_backward": {"gradOutput", "target", "weightOptional"},
    # the broadcast of every input: any of them may be one element
    "soft_margin_loss_backward": {"gradOutput", "self", "target"},
}


@pytest.mark.parametrize("op", sorted(EXPECTED))
def test_one_element_inputs_follow_the_shape_rule_and_constraints(op: str) -> None:
    assert one_element_inputs(SPECS[op]) == EXPECTED[op]


@pytest.mark.parametrize("op", sorted(EXPECTED))
def test_generated_code_has_a_one_element_path_for_those_inputs_only(op: str) -> None:
    spec = SPECS[op]
    folder = project_paths().generated / spec.folder
    kernel = (folder / op_files(spec)["kernel_cpp"]).read_text()
    tiling = (folder / op_files(spec)["tiling_cpp"]).read_text()
    for k, t in enumerate(spec.inputs):
        single = t.name in EXPECTED[op]
        assert (f"{t.name}Fill_" in kernel) == single, t.name
        assert (f"scalarInputs |= {1 << k};" in tiling) == single, t.name
    assert ("IsScalar(" in kernel) == bool(EXPECTED[op])
