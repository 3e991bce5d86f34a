"""The row-reduce family: tensors viewed as ``[outer, R, inner]`` around a reduced ``dim``; the compute section
states reductions along ``dim`` (``sum``, ``max``, ``mean``) and elementwise formulas before and after them
(softmax, log-softmax and their backward ops). See :mod:`codegen.registry` for the package layout."""

from typing import TYPE_CHECKING

from codegen.registry import Family

FAMILY = Family(
    name="row_reduce",
    summary="reductions along one dim (sum, max, mean) with elementwise formulas around them; rows split in chunks",
    device_section=True,
    dtype_combos=True,
    several_outputs=True,
    shape_status=True,
)


if TYPE_CHECKING:
    # mypy checks each stage module against its protocol, and each optional hook it has against the hook's
    # (the family contract, codegen.registry.contract)
    from codegen.families.row_reduce import cases, compute, explain, plan
    from codegen.registry import contract

    _compute: contract.Compute = compute
    _plan: contract.Plan = plan
    _plan_validate: contract.PlanValidate = plan
    _explain: contract.Explain = explain
    _cases: contract.Cases = cases
    _cases_infer_outputs: contract.CasesInferOutputs = cases
