"""Planning for the row_reduce family: the passes over a row, the lowering of the formulas to AscendC vector
instructions, the tiling rule and the view model.

Every tensor is viewed as ``[outer, R, inner]`` around the reduced dim (``R`` its length; ``inner`` the
product of the dims after it). A *row* is the ``R`` elements sharing ``(outer, inner)`` indices.

Two layouts (tiling field ``mode``):

- **last dim** (``inner == 1``, mode 0): rows are contiguous. When a row fits UB (``Rs = AlignUp(R, 16)``
  elements per line slot), a tile holds ``tileRows`` whole rows, loaded once; each row is reduced with the
  count form of ``ReduceMax``/``ReduceSum`` (fp32, with the documented ``sharedTmpBuffer``; on products
  without fp32 reduce instructions, Ascend910 and Ascend310P, by halving with ``Max``/``Add`` down to 64
  elements and finishing on the scalar unit). When it does not fit, the row is cut into ``chunkNum`` chunks
  of ``chunkLen`` elements (a multiple of 64) and every reduction pass reads the chunks once more.
- **strided** (``inner > 1``, mode 1): a task is one ``outer`` index and a block of ``blockWidth`` inner
  positions (a multiple of 16). Its ``R`` lines of ``blockWidth`` elements are reduced with vector ``Max``/
  ``Add`` line after line in a fixed order; when ``R`` lines do not fit UB they are cut into chunks of
  ``tileRows`` lines.

Passes: a reduction step is evaluated in the first pass after every reduction it reads; a ``sum`` of
``exp(a - m)`` where ``m`` is a ``max`` of the same pass is evaluated in ``m``'s pass with the online
combine ``s = s * exp(m_old - m_new) + sum(exp(a - m_new))``; a ``sum`` or ``mean`` of ``(a - m) * (a - m)``
where ``m`` is the ``mean`` of ``a`` runs in ``m``'s pass too, centred on the running mean (``m`` kept as the
mean of the elements seen; ``v = v + seen * (m_old - m_new)^2 + sum((a - m_new)^2)``). So softmax- and
layer-norm-type ops read their input twice when a row is cut into chunks (one reduction pass, one output
pass) and once when rows fit UB. ``mean`` is
a sum multiplied by ``1 / R``. Elementwise steps that are not outputs are substituted into their users.

Trailing rows (``compute.rows: <input>``): the reduced dims are the last ``<input>.ndim`` dims, flattened
to one contiguous row of ``R`` elements (mode 0 always; ``outer`` the product of the leading dims). That input
has the row's shape and is broadcast over the rows: it is loaded once per core when rows fit UB (one line
slot every row reads) and chunk by chunk (at the chunk's offset inside the row) when they do not; it costs
line bytes, not tile bytes.

Lowering: a subformula that reads no input is a per-row value (``log(s)``; a per-row divisor becomes a
reciprocal per row and a multiply), computed once per row; in mode 0 the reductions and per-row values of a
tile's rows sit in 32-byte row slots and the element formulas read them as scalars (``Adds``/``Muls``) after
one vector-to-scalar wait per level (:attr:`program.Reduction.level`) of a tile; in mode 1 they are lines. A
reduction of a bare input reads its line directly; fp32 inputs and outputs are computed on in their queue
buffers. When rows fit whole, a subformula an output shares with a reduction's argument (:func:`program._saves`) is
kept per element from the reduction pass (``saveBytes`` per tile element) and read by the output. Tile
queues get the spec's ``tiling.buffer_num`` buffers where UB allows (else 1), and a tile of contiguous rows is
one DMA per tensor.

Per-row inputs (``compute.per_row``, ``rows`` form): inputs with one value per row are entries of kind
``load`` among the reductions (pass and level -1): a tile's values are copied and converted into the rows'
scalar slots before its first reduction, and the formulas read them as scalars.

Column sums (``colsum(e)`` outputs, ``rows`` form): each core adds its rows' ``e`` into an fp32 partial of
the row (in UB for whole rows, in its workspace slot chunk by chunk for chunked rows), writes it to its slot
of the user workspace (``AlignUp(R, 16)`` fp32 elements per core and column sum), ``SyncAll``, and core 0
adds the partials in core order (fixed: bit-identical under any core order) and writes the output; products
without hardware ``SyncAll`` run one core.

Float and double attrs reach the kernel as ``float`` tiling fields ``attr<k>`` (the device attr read with
``GetAttrPointer<float>``).

Cores: the tasks (rows in mode 0, (outer, inner block) pairs in mode 1) are split evenly over
``min(coreNum, tasks)`` cores, the first ``tasksFormerNum`` taking one more; a row is never split across
cores, so every result is computed in one fixed order (deterministic).

The planner's modules, one idea each: ``tensors`` (the op's tensors, dtype combinations, per-row inputs and
outputs), ``formulas`` (substitution and hoisting), ``program`` (passes, levels, kept subformulas),
``lowering`` (formulas to AscendC calls), ``buffers`` (UB bytes per element and row), ``tiling`` (the tiling
rule), ``tiling_report`` (its ``opgen explain`` text), ``products`` (product capabilities the kernel branches
on), ``validation`` (plan-time checks), ``view_records`` and ``view_kinds`` (the view dataclasses),
``views_*`` (each file kind's view entries; ``views_ut`` the op_host unit-test cases) and ``views`` (their
assembly). This package holds the plan stage's hooks only.
"""

from typing import TYPE_CHECKING

from codegen.families.row_reduce.plan.validation import validate
from codegen.families.row_reduce.plan.view_kinds import VIEWS as VIEWS  # the view classes (tests read them)
from codegen.families.row_reduce.plan.views import build_views

__all__ = ["build_views", "validate"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.row_reduce import plan as _self
    from codegen.registry import contract

    _contract: contract.Plan = _self
    _validate: contract.PlanValidate = _self
