"""``opgen explain --shape``'s model section: its call gives every attr a value for every op and product,
and a call too big for the Python API's memory cap is skipped with a note, never allocated."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

from codegen.explain import call_params, model_section
from codegen.runner import OpCallable
from codegen.runner.arguments import call_attrs
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()


@pytest.mark.parametrize("op", sorted(SPECS))
def test_the_model_call_has_every_attr_and_input_for_every_op(op: str) -> None:
    spec = SPECS[op]
    for product in spec.products:
        params = call_params(spec, CATALOGUE.get(product), (4, 8), None)
        attrs = call_attrs(spec, params)  # TypeError: an attr without a value
        assert set(attrs) == {a.name for a in spec.attrs}
        for t in spec.inputs:
            value = params[t.name]
            if t.is_list:  # a tensor list: one array per tensor
                assert isinstance(value, list) and value, (product, t.name)
                assert all(isinstance(v, np.ndarray) for v in value), (product, t.name)
            else:
                assert t.optional or isinstance(value, np.ndarray), (product, t.name)


@pytest.mark.parametrize(
    ("op", "shape", "read"),
    [
        ("layer_norm", "4,4096", {"input": (4, 4096), "weightOptional": (4096,), "normalizedShape": [4096]}),
        ("rms_norm", "2,3,16", {"x": (2, 3, 16), "gamma": (16,)}),
    ],
)
def test_a_row_op_broadcasts_every_row_input_and_its_int_array_attr(
    op: str, shape: str, read: dict[str, object]
) -> None:
    spec = SPECS[op]
    params = call_params(spec, CATALOGUE.get("Ascend910B"), tuple(int(d) for d in shape.split(",")), None)
    got = {k: params[k].shape if isinstance(params[k], np.ndarray) else params[k] for k in read}
    assert got == read


def test_layer_norm_is_modelled(built_op: Callable[[str, str], OpCallable]) -> None:
    built_op("layer_norm", "Ascend910B")  # the session's build (also used by the LayerNorm tests)
    text = model_section(SPECS["layer_norm"], CATALOGUE.get("Ascend910B"), "4,4096", None)
    assert text.startswith("performance model on Ascend910B"), text
    assert "vector element-ops per element of input: " in text


@pytest.mark.parametrize(
    ("op", "shape"), [("SoftMarginLossBackward", "1099511627776"), ("ForeachAddcmulScalarV2", "400000000")]
)
def test_a_call_beyond_the_memory_cap_is_skipped_not_allocated(op: str, shape: str) -> None:
    """Sized before anything is allocated, a tensor list's tensors included (OPGEN_MAX_CALL_BYTES is 4 GiB; the
    list call needs about 10 GiB): the command stays small and says why the model is skipped."""
    proc = subprocess.run(
        [sys.executable, "-m", "codegen", "explain", op, "--product", "Ascend910B", "--shape", shape],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "OPGEN_MAX_CALL_BYTES": str(4 * 2**30)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "blockDim" in proc.stdout
    last = proc.stdout.splitlines()[-1]
    assert last.startswith(f"performance model: skipped (aclnn{op}: the call would need about ")
    assert "(OPGEN_MAX_CALL_BYTES)" in last
