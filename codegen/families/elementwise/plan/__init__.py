"""The elementwise family's plan stage: its hooks (:mod:`codegen.registry`).

The planner's pieces, one idea a module: :mod:`.variants` (the compiled programs), :mod:`.tiling` (the tiling
rule), :mod:`.reduce` (the reduce epilogue's facts), :mod:`.products` (validation on the products),
:mod:`.shape` (the output-shape rule), :mod:`.view_records` and :mod:`.view_kinds` (the view dataclasses),
``views_*`` (each file kind's view entries) and :mod:`.views` (their assembly).
"""

from typing import TYPE_CHECKING

from codegen.families.elementwise.plan.products import validate
from codegen.families.elementwise.plan.view_kinds import VIEWS as VIEWS  # the view classes (tests read them)
from codegen.families.elementwise.plan.views import build_views

__all__ = ["build_views", "validate"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.elementwise import plan as _self
    from codegen.registry import contract

    _contract: contract.Plan = _self
    _validate: contract.PlanValidate = _self
