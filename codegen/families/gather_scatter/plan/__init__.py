"""Planning for the gather_scatter family: the tiling rule (:mod:`.tiling`), the tiling struct
(:mod:`.fields`), the views (:mod:`.views`) and the op_host unit-test cases (:mod:`.ut`).

A row gather views the source as ``[P, A, Q]`` around ``dim`` and writes ``out[p, k, q] = source[p,
index[k], q]``; an index outside ``[0, A)`` gives a zero row. The kernel (tiling key ``width digit * 10 +
index digit``: it moves elements as 1-, 2-, 4- or 8-byte words, so one instantiation serves every dtype of a
width) reads each index with a scalar load, tests it, then copies the source row into a 32-byte-aligned slot
of a UB tile with DataCopyPad (or fills the slot with zeros) and writes a tile of consecutive output rows
with one DataCopyPad; two tiles alternate so that the write of one overlaps the reads of the next (explicit
MTE3 -> MTE2/V events guard each tile's reuse). This package holds the plan stage's hooks only.
"""

from typing import TYPE_CHECKING

from codegen.families.gather_scatter.plan.tiling import validate
from codegen.families.gather_scatter.plan.views import VIEWS as VIEWS  # the view classes (tests read them)
from codegen.families.gather_scatter.plan.views import build_views

__all__ = ["build_views", "validate"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import plan as _self
    from codegen.registry import contract

    _contract: contract.Plan = _self
    _validate: contract.PlanValidate = _self
