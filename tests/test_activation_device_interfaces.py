"""Issues 15 and 16: the device interface each activation-backward and row-reduce spec declares, against the
OpDef ops-nn registers for the same OpType (``tests/data/cann_registered_opdefs.yaml``, recorded from the
public sources).

Input and output names in registration order, REQUIRED/OPTIONAL, attribute names, kinds, REQUIRED/OPTIONAL
and defaults must be equal, with no exceptions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
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
    "elu_backward",
    "softplus_backward",
    "softshrink_backward",
    "silu_backward",
    "gelu_backward",
    "gelu_backward_v2",
    "mish_backward",
)
#: Issue 16: the row-reduce ops, whose device ops take the reduced dim as a ListInt attr.
ROW_REDUCE_OPS = ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward")


def _param(spec_optional: bool) -> str:
    return "OPTIONAL" if spec_optional else "REQUIRED"


@pytest.mark.parametrize("op", ACTIVATION_OPS + ROW_REDUCE_OPS)
def test_device_interface_equals_the_registered_opdef(op: str) -> None:
    if op not in SPECS:
        pytest.skip(f"specs/{op}.yaml is not in this tree")
    spec = SPECS[op]
    entry = RECORDED[spec.op_type]
    dev = spec.device_interface
    got_inputs = [
        {"name": t.name, "param": _param(t.source is None or spec.tensor(t.source).optional)} for t in dev.inputs
    ]
    assert got_inputs == entry["inputs"]
    got_outputs = [{"name": t.name, "param": "REQUIRED"} for t in dev.outputs]
    assert got_outputs == entry["outputs"]
    got_attrs = [
        {"name": a.name, "attr_type": "REQUIRED" if a.default is None else "OPTIONAL", "type": a.type}
        | ({} if a.default is None else {"default": list(a.default) if isinstance(a.default, tuple) else a.default})
        for a in dev.attrs
    ]
    assert got_attrs == entry["attrs"]


def test_gelu_grad_gets_grad_output_as_its_unused_forward_output() -> None:
    """CANN's L2 API launches GeluGrad with gradOutput as both dy and y (the recorded l0 note)."""
    if "gelu_backward" not in SPECS:
        pytest.skip("specs/gelu_backward.yaml is not in this tree")
    assert "gradOutput, self, gradOutput" in " ".join(RECORDED["GeluGrad"]["l0"].split())
    dev = SPECS["gelu_backward"].device_interface
    assert [(t.name, t.source) for t in dev.inputs] == [("dy", "gradOutput"), ("x", "self"), ("y", "gradOutput")]


def test_mish_grad_tanhx_is_passed_absent() -> None:
    """CANN's L2 API launches MishGrad with tanhx absent (nullptr): no aclnn tensor feeds it."""
    if "mish_backward" not in SPECS:
        pytest.skip("specs/mish_backward.yaml is not in this tree")
    assert "nullptr" in RECORDED["MishGrad"]["l0"]
    dev = SPECS["mish_backward"].device_interface
    assert [(t.name, t.source) for t in dev.inputs] == [("grad", "gradOutput"), ("x", "self"), ("tanhx", None)]


def test_hardsigmoid_grad_gets_the_constant_attrs_of_cann_l2_api() -> None:
    """aclnn_hardsigmoid_backward.cpp passes alpha = 1/6 and beta = 0.5 (fp32) to HardSigmoidGrad, whose
    tiling reads them as float attrs 0 and 1 (hicann/ops-nn activation/hard_sigmoid_grad/op_host/arch35/
    hard_sigmoid_grad_tiling_arch35.cpp)."""
    if "hardsigmoid_backward" not in SPECS:
        pytest.skip("specs/hardsigmoid_backward.yaml is not in this tree")
    dev = SPECS["hardsigmoid_backward"].device_interface
    one_sixth = float(np.float32(1.0) / np.float32(6.0))
    assert [(a.name, a.source, a.type, a.value) for a in dev.attrs] == [
        ("alpha", None, "float", one_sixth),
        ("beta", None, "float", 0.5),
    ]


def test_elu_backward_header_has_the_cann_parameter_order() -> None:
    """aclnnEluBackwardGetWorkspaceSize as CANN declares it (hicann/ops-nn activation/elu_grad_v2,
    docs/aclnnEluBackward.md): tensors and attributes interleaved."""
    if "elu_backward" not in SPECS:
        pytest.skip("specs/elu_backward.yaml is not in this tree")
    header = (
        Path(__file__).parents[1] / "generated" / "activation" / "elu_grad_v2" / "op_api" / "aclnn_elu_backward.h"
    ).read_text(encoding="utf-8")
    decl = " ".join(header[header.index("aclnnEluBackwardGetWorkspaceSize(") :].split(";")[0].split())
    assert decl == (
        "aclnnEluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclScalar *alpha, const aclScalar "
        "*scale, const aclScalar *inputScale, bool isResult, const aclTensor *selfOrResult, aclTensor *gradInput, "
        "uint64_t *workspaceSize, aclOpExecutor **executor)"
    )
