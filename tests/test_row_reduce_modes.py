"""A row_reduce kernel holds the strided path (mode 1: ``ProcessBlock`` and the line forms of the arguments and
outputs, ``EvalArgLine``/``EvalOutLine``) only for an op that reduces along a ``dim`` attribute, where a call
with dims after the reduced one takes it. An op of the ``rows`` form reduces its last dims (``inner`` is 1), so
its tiling always takes mode 0 and the generated kernel has no code that no call runs. The ops of each form are
read off the specs by hand (``compute.rows``)."""

from __future__ import annotations

import pytest

from codegen.families.row_reduce.plan.tiling import tiling_decision
from codegen.paths import project_paths
from codegen.spec.generated_names import op_files
from codegen.spec.model import DType
from codegen.specs import load_project

CATALOGUE, SPECS = load_project()

ROWS_FORM = {"rms_norm", "layer_norm", "add_rms_norm", "layer_norm_backward"}
DIM_FORM = {"softmax", "log_softmax", "softmax_backward", "log_softmax_backward"}


def test_every_row_reduce_op_is_listed() -> None:
    assert {n for n, s in SPECS.items() if s.family == "row_reduce"} == ROWS_FORM | DIM_FORM


@pytest.mark.parametrize("op", sorted(ROWS_FORM | DIM_FORM))
def test_the_kernel_has_the_strided_path_only_for_a_dim_reduction(op: str) -> None:
    spec = SPECS[op]
    kernel = (project_paths().generated / spec.folder / op_files(spec)["kernel_cpp"]).read_text()
    strided = op in DIM_FORM
    for name in ("ProcessBlock(", "EvalArgLine(", "EvalOutLine(", "if (mode_ == 0)"):
        assert (name in kernel) == strided, name
    assert "EvalRow(" in kernel or not spec.compute.rows  # per-row values' line forms stay (mode 0 runs them)


@pytest.mark.parametrize("op", sorted(DIM_FORM))
def test_a_dim_reduction_with_inner_dims_takes_mode_1(op: str) -> None:
    """The planner's side of the same fact: [4, 6, 40] reduced along dim 1 has 40 inner positions."""
    t = tiling_decision(SPECS[op], CATALOGUE.get("Ascend910B"), (4, 6, 40), 1, DType.FLOAT)
    assert (t.mode, t.inner) == (1, 40)
