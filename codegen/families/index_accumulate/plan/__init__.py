"""Planning for the index_accumulate family: tiling rule, kernel variants, checks and the view model; this
package holds the plan-stage hooks, each submodule one concern.

An index-accumulate op (EmbeddingDenseBackward is the first) adds row ``i`` of ``rows`` (``[N, D]``) into row
``index[i]`` of ``out`` (``[num_rows, D]``), skipping the padding row and invalid indices, optionally
dividing each row by the occurrence count of its index. The device op returns the fp32 sums; the L2 API
casts them once to the dtype of ``out`` and copies them into its (possibly strided) view.

Kernel strategies (chosen by the tiling from ``context->GetDeterministic()``; tiling key
``strategy * 100 + rows-dtype digit * 10 + index-dtype digit``):

- **atomic** (0): every row-phase core zero-fills the accumulator rows x D-slice it owns (and, with
  scaling, counts the occurrences of its rows by scanning all indices), ``SyncAll``; the indices are split
  into groups, each (index group x D-slice) core adds its slice of every valid row of grad with
  ``SetAtomicAdd<float>`` into the fp32 accumulator; ``SyncAll``; each row-phase core scales and writes its
  rows x D-slice.
- **deterministic** (1): each core owns a contiguous range of output rows x one D-slice, scans all indices
  in order and adds only into what it owns (read-modify-write of its own accumulator part), so every output
  element is summed by one core in index order whatever the core timing; then it scales and writes its
  part. No core touches another's part, so no ``SyncAll`` is needed. When rows x D-slices reach fewer
  cores than ``needRows`` (few rows, a small D, many indices) :func:`.split.index_groups` adds ``G`` index groups:
  core ``b`` is (index group ``b // rowCores``, row position ``b % rowCores``); it zero-fills and sums its
  index range in order into partial ``g`` (group 0: the accumulator; groups 1..G-1: ``[num_rows,
  accStride]`` fp32 in the workspace at ``partialsOffset``); the group-0 owners also count over every
  index; ``SyncAll``; the owners add partials 1..G-1 in group order, scale and write. The summation order of
  every element is fixed by the tiling, never by core timing.

Accumulator: ``[num_rows, accStride]`` fp32 with ``accStride = D`` rounded up to a 32-byte block, so every
copy and atomic add moves whole blocks (Ascend910 has no DataCopyPad and only fp32 atomics). When
``D % 8 == 0`` the fp32 device output itself is the accumulator; otherwise it lives in the workspace.
Workspace: ``[accumulator (if not in the output)] [partials 1..G-1 (deterministic index groups)] [int64 counts
(with scaling)]``; the partials and the counts start on a
64-byte line and each owning core's slice starts on a line of its own (the scalar data cache never holds
another core's counts or accumulator bytes).

The tiling rule: :mod:`codegen.families.index_accumulate.plan.tiling`.
"""

from typing import TYPE_CHECKING

from codegen.families.index_accumulate.plan.sync_counters import scratch_outputs
from codegen.families.index_accumulate.plan.validation import validate
from codegen.families.index_accumulate.plan.views import VIEWS as VIEWS  # the view classes (tests read them)
from codegen.families.index_accumulate.plan.views import build_views

__all__ = ["build_views", "scratch_outputs", "validate"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.index_accumulate import plan as _self
    from codegen.registry import contract

    _contract: contract.Plan = _self
    _scratch_outputs: contract.PlanScratchOutputs = _self
    _validate: contract.PlanValidate = _self
