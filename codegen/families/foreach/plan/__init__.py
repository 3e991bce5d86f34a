"""Planning for the foreach family: the tiling rule (:mod:`.tiling`), the views (:mod:`.views`) and the op_host
unit-test cases (:mod:`.ut`).

A foreach op computes ``out[i] = f(x[i])`` for every tensor ``i`` of a tensor list in one launch: the tiling
reads the list's tensor shapes from the DYNAMIC input's instances and splits the list's 32-byte blocks over the
cores across tensor boundaries (:func:`codegen.plan.tensor_lists.split_list`); the kernel walks its share
tensor by tensor (``ListUnary`` of templates/common/list_kernel.j2). This package holds the plan stage's hooks
only.
"""

from typing import TYPE_CHECKING

from codegen.families.foreach.plan.tiling import validate
from codegen.families.foreach.plan.views import VIEWS as VIEWS  # the view classes (tests read them)
from codegen.families.foreach.plan.views import build_views

__all__ = ["build_views", "validate"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.foreach import plan as _self
    from codegen.registry import contract

    _contract: contract.Plan = _self
    _validate: contract.PlanValidate = _self
