"""The index-accumulate family: rows of a source tensor are added into the output rows an index tensor selects
(``out[index[i]] += rows[i]``), with an optional padding row and occurrence-count scaling (see
:mod:`codegen.registry` for the package layout)."""

from typing import TYPE_CHECKING

from codegen.registry import Family

FAMILY = Family(
    name="index_accumulate",
    summary="out[index[i]] += rows[i] (optional padding row and count scaling), atomic or deterministic",
)


if TYPE_CHECKING:
    # mypy checks each stage module against its protocol, and each optional hook it has against the hook's
    # (the family contract, codegen.registry.contract)
    from codegen.families.index_accumulate import cases, compute, explain, plan
    from codegen.registry import contract

    _compute: contract.Compute = compute
    _plan: contract.Plan = plan
    _plan_validate: contract.PlanValidate = plan
    _plan_scratch_outputs: contract.PlanScratchOutputs = plan
    _explain: contract.Explain = explain
    _cases: contract.Cases = cases
