"""`opgen explain` prints the numbers the generated tiling function computes for the same shape."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codegen.explain import explain
from codegen.plan.elementwise import tiling_decision
from codegen.runner import compile_op
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()
SMLB = SPECS["soft_margin_loss_backward"]


CASES = [
    pytest.param(product, shape, dtype, id=f"{product}-{dtype}-{'x'.join(map(str, shape))}")
    for product in SMLB.products
    for dtype in ("FLOAT", "FLOAT16", "BF16")
    if CATALOGUE.get(product).supports(DType[dtype])
    for shape in [(1,), (9,), (1000, 1000), (48, 8, 1025), (1 << 31, 3)]
]


@pytest.mark.parametrize(("product", "shape", "dtype"), CASES)
def test_elementwise_explain_equals_the_tiling_function(product: str, shape: tuple[int, ...], dtype: str) -> None:
    prod = CATALOGUE.get(product)
    d = tiling_decision(SMLB, prod, shape, DType[dtype])
    tensor = {"shape": list(shape), "dtype": dtype}
    got = compile_op("soft_margin_loss_backward", product).run_tiling(
        {"inputs": [tensor] * 3, "outputs": [tensor], "attrs": {"reduction": 1}}
    )
    assert got["status"] == 0, got
    t = got["tiling"]
    assert got["block_dim"] == d.block_dim
    assert got["tiling_key"] == d.tiling_key
    assert got["workspace_sizes"] == [d.workspace_bytes]
    assert (t["totalLength"], t["formerNum"], t["formerLength"], t["tailLength"], t["tileLength"]) == (
        d.total_length,
        d.former_num,
        d.former_length,
        d.tail_length,
        d.tile_length,
    )
    assert (t["inBufferNum"], t["outBufferNum"]) == (d.in_buffer_num, d.out_buffer_num)
    text = explain(SMLB, prod, ",".join(map(str, shape)), dtype)
    assert f"tile length: {d.tile_length} elements" in text
    assert f"cores used (blockDim): {d.block_dim} of {prod.vector_core_num}" in text
    assert f"workspace: {d.workspace_bytes} bytes" in text


def test_explain_cli_runs_for_both_seed_ops() -> None:
    for op, shape in (("SoftMarginLossBackward", "4096,4096"), ("embedding_dense_backward", "100000,128,1048576")):
        out = subprocess.run(
            [sys.executable, "-m", "codegen", "explain", op, "--product", "Ascend910B", "--shape", shape],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "Ascend910B" in out and "blockDim" in out


def test_explain_marks_optional_inputs_and_their_null_value() -> None:
    bce = SPECS["binary_cross_entropy_backward"]
    lines = explain(bce, CATALOGUE.get("Ascend910B"), None, None).splitlines()
    by_input = {line.split(":")[0].split()[-1]: line for line in lines if line.startswith("  input  ")}
    assert set(by_input) == {"gradOutput", "self", "target", "weightOptional"}
    assert by_input["weightOptional"].endswith("; optional: may be null, then every element is 1")
    assert all("optional" not in by_input[name] for name in ("gradOutput", "self", "target"))
