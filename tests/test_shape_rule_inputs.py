"""A ``broadcast(...)`` output shape rule names every input, optional ones included: the API's shape check
covers only its arguments, so a left-out input's bad shape failed later in l0op::BroadcastTo (561103) instead
of answering 161002."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.paths import project_paths
from codegen.spec.errors import SpecErrors
from codegen.spec.loader import load_op_spec, load_specs


def _load(tmp: Path, op: str, old: str, new: str) -> tuple[Path, int]:
    text = (project_paths().specs / f"{op}.yaml").read_text()
    assert old in text
    path = tmp / f"{op}.yaml"
    path.write_text(text.replace(old, new))
    lines = text.splitlines()
    shape_line = next(i for i, t in enumerate(lines, 1) if t.strip() == old.strip())
    entry = max(i for i, t in enumerate(lines[:shape_line], 1) if t.strip().startswith("- name:"))
    return path, entry


@pytest.mark.parametrize(
    ("op", "old", "new", "what"),
    [
        # an optional input left out of the rule
        ("binary_cross_entropy", 'shape: "self"', 'shape: "broadcast(self, target)"', "optional input 'weight'"),
        # a required one too
        (
            "mse_loss_backward",
            'shape: "broadcast(gradOutput, self, target)"',
            'shape: "broadcast(gradOutput, self)"',
            "input 'target'",
        ),
    ],
)
def test_an_input_left_out_of_a_broadcast_rule_is_refused(
    tmp_path: Path, op: str, old: str, new: str, what: str
) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, line = _load(tmp_path, op, old, new)
    with pytest.raises(SpecErrors) as info:
        load_op_spec(path, catalogue)
    rule = new.split('"')[1]
    assert str(info.value).splitlines() == [
        f"{path}:{line}: outputs[0].shape: {what} is not an argument of the shape rule {rule}: its shape would "
        "never be checked (a shape that does not broadcast would fail in l0op::BroadcastTo instead of answering "
        "161002); add it to broadcast(...)"
    ]


def test_a_broadcast_rule_with_every_input_loads(tmp_path: Path) -> None:
    catalogue = load_specs(project_paths().specs)[0]
    path, _ = _load(tmp_path, "binary_cross_entropy", 'shape: "self"', 'shape: "broadcast(self, target, weight)"')
    spec = load_op_spec(path, catalogue)
    assert str(spec.outputs[0].shape) == "broadcast(self, target, weight)"
