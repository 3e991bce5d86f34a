"""How the activation-backward specs feed their device OpTypes, against what ops-nn's L2 APIs pass (the
``l0`` notes of ``tests/data/cann_registered_opdefs.yaml``) and CANN's aclnn declarations. The OpDefs
themselves are compared with ops-nn's in ``tests/test_opdef.py``.
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
