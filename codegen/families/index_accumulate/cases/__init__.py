"""The case matrix of an index_accumulate op (EmbeddingDenseBackward) on one product, in both strategies.

Value cases (each run with ``Case.deterministic`` False — atomic kernel — and True — deterministic kernel;
in deterministic mode the multi-core ones run as determinism cases only, seven core orders each):
every rows dtype x every index dtype; every integer index dtype across its range (:func:`.values._range_indices`);
rows ranks 2-8 and index ranks 1-8; D at 1, 7, 8, 16, the UB chunk boundary -1/0/+1, 100,003 and 1,000,000;
two rows with D = 65,539 (D split over the cores); all indices equal with N >= 4096; the padding row used
>= 1000 times; scaling with and without a padding row; non-contiguous rows, index and output views; empty
inputs and zero output rows; out-of-range, NaN and infinite indices; an output dtype different from the rows
dtype; deterministic only: 2 rows x D 8 x 20,003 indices (index groups; kept by ``quick``); many rows over
many cores; the sorted-run strategy at the fewest indices the tiling takes it with on all of the product's
cores, at most 64 without hardware SyncAll (:func:`.sorted_runs.sorted_run_indices`, fp32: 464,000 on Ascend910, 142,848
on Ascend910B, 256,000 on Ascend950 for 5000 rows; none on a product whose tiling never takes it); the
sorted-run strategy's small-dim variant (records; D 8 with and without scaling, D 3) and, in atomic mode, its
(row, position) pairs path (1000 rows of D 16, where records do not fit the staging slots), each at the
smallest N the tiling takes it, half their rows seen exactly 1, 2 or 3 times (:meth:`.maker.CaseMaker.counted_indices`);
the product limits of the spec at their boundary (the last passing value).
Status cases (atomic only; phase 1 never reaches a kernel): every null pointer, unsupported dtypes, ranks
outside the spec's range, mismatched shapes and every product limit just past its boundary.
``quick`` keeps one representative of each group.

This package holds the check-stage hooks; each submodule is one group of cases.
"""

from typing import TYPE_CHECKING

from codegen.families.index_accumulate.cases.matrix import check_cases
from codegen.families.index_accumulate.cases.offsets import check_offsets, probe_ranges
from codegen.families.index_accumulate.cases.outputs import infer_output

__all__ = ["check_cases", "check_offsets", "infer_output", "probe_ranges"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.index_accumulate import cases as _self
    from codegen.registry import contract

    _contract: contract.Cases = _self
    _probe_ranges: contract.CasesProbeRanges = _self
