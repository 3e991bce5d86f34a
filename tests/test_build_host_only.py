"""``build_op(host_only=True)``: an (op, product) library without its kernel, for what never launches it (the
op_host unit tests and OpDef / infershape queries of tests/test_ops_nn_files.py).

The host-only library must answer the host queries exactly as the full library (which the session builds
anyway: ``built_op``) does, must hold no kernel, must refuse a launch with the runtime's "no kernel" error,
and must not be confused with the full library in the cache."""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
import pytest

from codegen.build import BuildError, build_op
from codegen.runner import AclnnError, OpCallable
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
OP, PRODUCT = "soft_margin_loss_backward", "Ascend910B"


@pytest.fixture(scope="module")
def host() -> OpCallable:
    return OpCallable(build_op(SPECS[OP], CATALOGUE.get(PRODUCT), host_only=True))


def test_host_only_library_answers_the_host_queries_as_the_full_one(
    host: OpCallable, built_op: Callable[[str, str], OpCallable]
) -> None:
    full = built_op(OP, PRODUCT)
    assert host.built.library != full.built.library and host.built.key != full.built.key
    assert host.opdef() == full.opdef()
    assert host.opdef()["op_type"] == "SoftMarginLossGrad"
    tensor = {"shape": [40, 1000], "dtype": "FLOAT16"}
    request = {"inputs": [tensor] * 3, "outputs": [tensor], "attrs": {"reduction": "mean"}}
    got = host.run_tiling(request)
    assert got["status"] == 0, got
    assert got == full.run_tiling(request)
    inputs = [{"shape": shape, "dtype": "FLOAT"} for shape in ([4, 1, 3], [5, 1], [3])]
    shapes = {"inputs": inputs, "attrs": {"reduction": "none"}}
    inferred = host.run_infershape(shapes)
    assert inferred["outputs"] == [{"shape": [4, 5, 3], "dtype": "DT_FLOAT"}]
    assert inferred == full.run_infershape(shapes)


def test_host_only_library_holds_no_kernel_and_refuses_a_launch(
    host: OpCallable, built_op: Callable[[str, str], OpCallable]
) -> None:
    kernel = SPECS[OP].kernel  # the kernel's extern "C" symbol
    assert hasattr(ctypes.CDLL(str(built_op(OP, PRODUCT).built.library)), kernel)
    assert not hasattr(ctypes.CDLL(str(host.built.library)), kernel)
    x = np.ones((2, 3), np.float32)
    with pytest.raises(AclnnError) as err:
        host(gradOutput=x, self=x, target=x, reduction=0)
    assert "no kernel is registered" in str(err.value)


def test_host_only_refuses_a_tiling_key_filter() -> None:
    with pytest.raises(BuildError, match="host_only build has no kernel"):
        build_op(SPECS[OP], CATALOGUE.get(PRODUCT), tiling_keys=[1], host_only=True)
