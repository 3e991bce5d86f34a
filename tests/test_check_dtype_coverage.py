"""A spec constraint that refuses every call of a dtype the spec lists on a product fails the check's case
planning (naming the dtype, the product and the constraint) instead of dropping that dtype's value cases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegen.check.driver import CasePlanError, cases_for
from codegen.paths import project_paths
from codegen.specs import load_project

REFUSE_FP16 = """
  - name: no_half
    when: "dtype(self) == FLOAT16"
    require: "numel(self) < 0"
    message: "never"
"""


def _project(tmp_path: Path, extra: str) -> tuple[object, object]:
    specs = project_paths().specs
    shutil.copy(specs / "products.yaml", tmp_path / "products.yaml")
    text = (specs / "mse_loss_backward.yaml").read_text()
    assert "\nconstraints:\n" in text
    (tmp_path / "mse_loss_backward.yaml").write_text(text.replace("\nconstraints:\n", "\nconstraints:" + extra, 1))
    catalogue, loaded = load_project(tmp_path)
    return catalogue.get("Ascend910B"), loaded["mse_loss_backward"]


def test_a_constraint_refusing_every_call_of_a_listed_dtype_fails_the_plan(tmp_path: Path) -> None:
    product, spec = _project(tmp_path, REFUSE_FP16)
    with pytest.raises(CasePlanError) as err:
        cases_for(spec, product, None, False)  # type: ignore[arg-type]
    assert err.value.dtype == "FLOAT16"
    text = str(err.value)
    assert text.startswith("aclnnMseLossBackward lists FLOAT16 on Ascend910B but no value case of it is left")
    assert f"no_half ({tmp_path / 'mse_loss_backward.yaml'}:" in text
    assert "when dtype(self) == FLOAT16, require numel(self) < 0" in text
    # another dtype, or a --dtype selection without FLOAT16, is planned as before
    assert cases_for(spec, product, {"FLOAT"}, False)  # type: ignore[arg-type]


def test_a_constraint_refusing_some_calls_keeps_the_plan(tmp_path: Path) -> None:
    product, spec = _project(tmp_path, REFUSE_FP16.replace("numel(self) < 0", "numel(self) < 100000"))
    cases = cases_for(spec, product, {"FLOAT16"}, False)  # type: ignore[arg-type]
    assert any(c.expect_status is None and c.dtype.startswith("FLOAT16") for c in cases)
