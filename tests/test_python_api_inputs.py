"""The Python API's answers to arguments the C API cannot take as given: an omitted ``scalar`` attribute
without a default is a ``TypeError`` naming it (never a silent default), and an array of a dtype the op does
not accept, also one no aclDataType represents (complex, object, strings), is the aclnn status of a refused
dtype (161002), after the null checks (161001) CANN makes first."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import codegen
from codegen.generate import run_generate
from codegen.paths import project_paths
from codegen.runner import OpCallable

X = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.5]], np.float32)


@pytest.fixture(scope="module")
def threshold_without_default(tmp_path_factory: pytest.TempPathFactory) -> OpCallable:
    """ThresholdBackward from a copy of its spec whose ``threshold`` (type scalar) has no default."""
    root = tmp_path_factory.mktemp("no_default")
    paths = project_paths()
    specs = root / "specs"
    specs.mkdir()
    text = (paths.specs / "threshold_backward.yaml").read_text()
    lines = text.splitlines(keepends=True)
    at = lines.index("  - name: threshold\n")
    assert lines[at + 1 : at + 3] == ["    type: scalar\n", "    default: 1.0\n"]
    (specs / "threshold_backward.yaml").write_text("".join(lines[: at + 2] + lines[at + 3 :]))
    shutil.copy(paths.specs / "products.yaml", specs)
    (root / "reference").mkdir()
    shutil.copy(paths.root / "reference" / "threshold_backward.py", root / "reference")
    run_generate(out=root / "generated", specs_dir=specs)
    return codegen.compile_op("threshold_backward", "Ascend910B", generated=root / "generated", specs_dir=specs)


def test_an_omitted_scalar_attribute_without_default_is_a_type_error(threshold_without_default: OpCallable) -> None:
    f = threshold_without_default
    assert next(a for a in f.spec.attrs if a.name == "threshold").default is None
    with pytest.raises(TypeError) as info:
        f(gradOutput=X, self=X)
    assert str(info.value) == "aclnnThresholdBackward: missing attribute 'threshold'"
    # given, it is used: self at or below the threshold gets a zero gradient
    got = f(gradOutput=np.ones_like(X), self=X, threshold=0.5)
    assert got.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
