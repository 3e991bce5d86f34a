"""Issue 15: the device interface each activation-backward spec declares, against the OpDef ops-nn registers
for the same OpType (``tests/data/cann_registered_opdefs.yaml``, recorded from the public sources).

Input and output names in registration order, attribute names, kinds, REQUIRED/OPTIONAL and defaults must
match. The three places where the spec format cannot express ops-nn's interface are listed here explicitly
(and in the specs' notes), so that a change on either side shows up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.specs import load_project

_, SPECS = load_project()
RECORDED: dict[str, Any] = yaml.safe_load(
    (Path(__file__).parent / "data" / "cann_registered_opdefs.yaml").read_text(encoding="utf-8")
)
ACTIVATION_OPS = (
    "threshold_backward",
    "hardtanh_backward",
    "hardswish_backward",
    "leaky_relu_backward",
    "softplus_backward",
    "softshrink_backward",
    "silu_backward",
    "gelu_backward",
    "gelu_backward_v2",
    "mish_backward",
)
#: Known gaps of the spec format (see each spec's notes): registered inputs the spec cannot feed, and device
#: attributes the spec must add because it carries every aclnn attribute to the device.
MISSING_INPUTS = {"gelu_backward": ["y"], "mish_backward": ["tanhx"]}
EXTRA_ATTRS = {"leaky_relu_backward": ["self_is_result"]}


@pytest.mark.parametrize("op", ACTIVATION_OPS)
def test_device_interface_equals_the_registered_opdef(op: str) -> None:
    if op not in SPECS:
        pytest.skip(f"specs/{op}.yaml is not in this tree")
    spec = SPECS[op]
    entry = RECORDED[spec.op_type]
    dev = spec.device_interface
    want_inputs = [t["name"] for t in entry["inputs"] if t["name"] not in MISSING_INPUTS.get(op, [])]
    assert [t.name for t in dev.inputs] == want_inputs
    assert [t.name for t in dev.outputs] == [t["name"] for t in entry["outputs"]]
    got_attrs = [
        {"name": a.name, "attr_type": "REQUIRED" if a.default is None else "OPTIONAL", "type": a.type}
        | ({} if a.default is None else {"default": a.default})
        for a in dev.attrs
        if a.name not in EXTRA_ATTRS.get(op, [])
    ]
    assert got_attrs == entry["attrs"]


def test_the_recorded_gaps_are_real() -> None:
    """Each listed gap names something ops-nn registers (inputs) or does not register (attributes)."""
    for op, names in MISSING_INPUTS.items():
        registered = [t["name"] for t in RECORDED[SPECS[op].op_type]["inputs"]] if op in SPECS else names
        assert set(names) <= set(registered)
    for op, names in EXTRA_ATTRS.items():
        if op in SPECS:
            registered = [a["name"] for a in RECORDED[SPECS[op].op_type]["attrs"]]
            assert not set(names) & set(registered)
