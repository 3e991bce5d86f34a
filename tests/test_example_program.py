"""The generated example program builds and prints 16-bit data as CANN's samples do: FLOAT16 through acl's
``aclFloatToFloat16``/``aclFloat16ToFloat``, BF16 through the program's own widening of the upper 16 bits."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from codegen.paths import project_paths


@pytest.mark.parametrize("dtype", ["FLOAT16", "BF16"])
def test_a_16_bit_example_prints_floats_and_passes_check(tmp_path: Path, dtype: str) -> None:
    src = project_paths()
    shutil.copytree(src.specs, tmp_path / "specs")
    shutil.copytree(src.reference, tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    spec_file = tmp_path / "specs" / "sigmoid_backward.yaml"
    text = spec_file.read_text()
    assert text.count("dtype: FLOAT}") == 1 and text.count("dtype: FLOAT, values") == 2
    text = text.replace("dtype: FLOAT}", f"dtype: {dtype}}}").replace("dtype: FLOAT, values", f"dtype: {dtype}, values")
    if dtype == "BF16":
        # An example's dtype must exist on every product of the op: keep the products that have bf16.
        line = "products: [Ascend910, Ascend910B, Ascend910_93, Ascend950, Ascend310P]"
        assert text.count(line) == 1
        text = text.replace(line, "products: [Ascend910B, Ascend910_93, Ascend950]")
    spec_file.write_text(text)
    env = {**os.environ}

    def opgen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codegen", "--specs", str(tmp_path / "specs"), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=1200,
        )

    gen = opgen("generate", "sigmoid_backward", "--out", str(tmp_path / "generated"))
    assert gen.returncode == 0, gen.stderr
    example = (
        tmp_path / "generated" / "activation" / "sigmoid_grad" / "examples" / "test_aclnn_sigmoid_backward.cpp"
    ).read_text()
    if dtype == "FLOAT16":
        assert "std::vector<aclFloat16> outputHostData = {aclFloatToFloat16(0.5f), " in example
        assert "aclFloat16ToFloat(resultData[i])" in example
    else:
        assert "std::vector<uint16_t> outputHostData = {FloatToBf16(0.5f), " in example
        assert "Bf16ToFloat(resultData[i])" in example
    assert "%lld" not in example
    check = opgen(
        "check",
        "sigmoid_backward",
        "--product",
        "Ascend910B",
        "--quick",
        "--dtype",
        dtype,
        "--generated",
        str(tmp_path / "generated"),
        "--json",
        str(tmp_path / "check.json"),
    )
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-2000:]
    cases = json.loads((tmp_path / "check.json").read_text())["cases"]
    (detail,) = [c["message"] for c in cases if c["name"] == "example program"]
    printed = re.fullmatch(r"printed \[([^\]]*)\]", detail)
    assert printed is not None, detail
    values = [float(v) for v in printed.group(1).split(",")]
    # The example's values are 1 * y * (1 - y) for y = 0.5, 0.25, 0.75, 0.9 in the 16-bit dtype, computed in
    # fp32 and rounded once to the 16-bit dtype.
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "BF16" else np.dtype(np.float16)
    y = np.array([0.5, 0.25, 0.75, 0.9]).astype(np_dtype).astype(np.float32)
    expected = (y * (1 - y)).astype(np_dtype).astype(np.float64)
    # %.9g round-trips fp32, and every 16-bit value is an fp32 value.
    assert np.asarray(values, np.float32).tolist() == expected.astype(np.float32).tolist()


@pytest.mark.parametrize(
    ("reduction", "out_shape", "error"),
    [
        (1, "[]", None),  # mean: the epilogue writes a 0-d output
        (2, "[]", None),  # sum
        (0, "[2, 2]", None),  # none: the broadcast shape
        (1, "[2, 2]", "example output shape [2, 2] does not match [], the shape the example's attrs select"),
        (0, "[]", "example output shape [] does not match broadcast(self, target) = [2, 2]"),
    ],
)
def test_a_reduction_example_s_output_shape_follows_its_attrs(
    tmp_path: Path, reduction: int, out_shape: str, error: str | None
) -> None:
    """A loss forward's example with ``reduction`` mean or sum has a 0-d output, and only then."""
    from codegen.spec.errors import SpecErrors
    from codegen.spec.loader import load_op_spec
    from codegen.specs import load_project

    catalogue, _ = load_project()
    text = (project_paths().specs / "mse_loss.yaml").read_text()
    old_attrs, old_out = "  attrs: {reduction: 0}\n", "  output: {shape: [2, 2], dtype: FLOAT}\n"
    assert text.count(old_attrs) == 1 and text.count(old_out) == 1
    text = text.replace(old_attrs, f"  attrs: {{reduction: {reduction}}}\n")
    text = text.replace(old_out, f"  output: {{shape: {out_shape}, dtype: FLOAT}}\n")
    path = tmp_path / "mse_loss.yaml"
    path.write_text(text)
    if error is None:
        spec = load_op_spec(path, catalogue)
        assert spec.example is not None and list(spec.example.output.shape) == json.loads(out_shape)
        return
    with pytest.raises(SpecErrors) as err:
        load_op_spec(path, catalogue)
    line = text[: text.index("  output: {shape")].count("\n") + 1
    assert f"mse_loss.yaml:{line}: example.output: {error}" in str(err.value), str(err.value)
