"""The emulated stream: phase 2 only queues work on the stream, so a host read of an output before
``aclrtSynchronizeStream`` is refused (on a device it reads garbage). The runtime's own C++ test of the
stream (launch order, sync return codes, the refused copies and memsets) is ``TestStream`` in
``runtime/tests_host/test_host.cpp``; this file covers the Python API and the generated example programs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from generated_mutant import check_mutant

from codegen.runner import AclnnError, OpCallable, device_memory

F32 = np.float32


@pytest.fixture(scope="module")
def op910b(built_op: Callable[[str, str], OpCallable]) -> OpCallable:
    return built_op("SoftMarginLossBackward", "Ascend910B")


def test_the_python_api_refuses_to_read_an_output_before_the_stream_is_synchronised(op910b: OpCallable) -> None:
    ones = np.ones((2, 3), F32)
    out = np.zeros((2, 3), F32)
    tensors = {
        n: op910b.make_tensor(v) for n, v in {"gradOutput": ones, "self": ones, "target": ones, "out": out}.items()
    }
    status, size, executor = op910b.phase1(tensors, {"reduction": 0})
    assert status == 0
    assert op910b.launch(device_memory(size), size, executor) == 0
    with pytest.raises(AclnnError) as err:
        op910b.require_synchronised({"out": out, "unused": None})
    assert err.value.status == 500001
    assert "read of output out by the Python API: host read of" in err.value.message
    assert (
        "output gradient of SoftMarginLossGrad (kernel soft_margin_loss_grad) launched by aclnnSoftMarginLossBackward"
        in err.value.message
    )
    assert "call aclrtSynchronizeStream" in err.value.message
    op910b.require_synchronised({"gradOutput": ones})  # an input the launch only reads: the host may read it
    assert op910b.synchronize() == 0
    op910b.require_synchronised({"out": out})
    # -t * g * sigmoid(-t * x) with g = x = t = 1
    np.testing.assert_allclose(out, -1 / (1 + np.e), rtol=1e-6)
    # a plain call synchronises before it returns its output
    np.testing.assert_allclose(op910b(gradOutput=ones, self=ones, target=ones, reduction=2), -1 / (1 + np.e), rtol=1e-6)


def test_an_example_program_that_reads_its_output_before_synchronising_fails_the_check(tmp_path: Path) -> None:
    sync = "  ret = aclrtSynchronizeStream(stream);\n"
    failed = check_mutant(tmp_path, "sigmoid_backward", "example_cpp", ((sync, "  ret = ACL_SUCCESS;\n"),))
    assert [c["name"] for c in failed] == ["example program"], [c["name"] for c in failed]
    message = failed[0]["message"]
    assert "copy result from device to host failed. ERROR: 500001" in message, message
    assert "aclrtMemcpy(ACL_MEMCPY_DEVICE_TO_HOST): host read of" in message, message
    assert "output z of SigmoidGrad (kernel sigmoid_grad) launched by aclnnSigmoidBackward" in message, message
