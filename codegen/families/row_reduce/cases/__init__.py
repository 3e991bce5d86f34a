"""The case matrix of a row-reduce op on one product, derived from the family's tiling (not per op).

Value cases per dtype: R = 1; a few rows of 10; the largest R whose rows fit UB and R just above it (the row is
then cut into chunks, also with one dominant value per row at the first chunk's last element); R far larger than UB
(4 chunks; 13 unless ``quick``); one more chunked row than cores (the first core takes two: what a row leaves for
the next; in the ``dim`` form unless ``quick``); a non-last dim (inner > 1), also with a negative dim and with more
lines than fit UB (line chunks); fewer rows than cores; a 0-d tensor; empty tensors (a zero outer and a zero R); a
large dynamic range (values up to about +-200: without the max subtraction exp overflows, without fp32 accumulation
16-bit sums lose the small terms); rows with +inf, -inf and NaN (also inside a multi-chunk row), lines with them
along a non-last dim (inner 3), -inf line chunks before the finite ones (the line-chunked combine of a non-last
dim); non-contiguous inputs (a transposed first input, the others every second element) and a strided out, along
the last dim (and dim 0 unless ``quick``); many rows over all cores (a determinism case); rows of 64 elements,
whose tiles are one GM range copied in one DMA.
An ``out`` of another supported dtype than a FLOAT input is accepted and gets the result cast to it (CANN's
rule: aclnn_softmax.cpp and the other row ops' op_api check ``out`` against the dtype list only and end with
``l0op::Cast(result, out->GetDataType())``).
A value case with a tensor of a rank the spec does not allow it is left out (phase 1 refuses it; the status
cases check that). Status cases: null pointers, unsupported dtypes (of an input, of ``out``, one the product
lacks), inputs of different dtypes, ranks, shapes that differ, dim out of range (161002).
``quick`` keeps one representative of each group (the UB boundary, multi-chunk rows and two chunked rows on one
core are kept).

Trailing rows (``compute.rows``): the input broadcast over the rows takes the shape of the last ``k`` dims
(``k`` = 1 unless a case says otherwise; standard normal values); the same R cases (R = 1, the UB limit and
one above, far above, two chunked rows on the first core, fewer rows than cores, empty (also with chunked
rows: a core without rows zeroes its column-sum partials), large dynamic range, inf/NaN rows and inside a
multi-chunk row, non-contiguous inputs and outputs, rows over all cores) plus a row of 2 dims, a row of
every dim, a rank-4 tensor with a row of 3 dims and every float attr at 0.5; status cases replace the dim
cases by that input of a wrong shape, of a rank above the first input's, empty, and of another dtype
(161002).

The modules, one idea each: ``matrix`` (the groups in order), ``dim_values`` and ``rows_values`` (the value
cases of each form), ``status`` (the status cases), ``offsets`` (the 64-bit offset case and its check),
``tiling_probes`` (shapes derived from the tiling), ``patterns`` (special values, non-contiguous views),
``labels`` (the check table's dtype column) and ``outputs`` (the outputs a call allocates). This package holds
the check stage's hooks only.
"""

from typing import TYPE_CHECKING

from codegen.families.row_reduce.cases.matrix import check_cases
from codegen.families.row_reduce.cases.offsets import check_offsets, probe_ranges
from codegen.families.row_reduce.cases.outputs import infer_output, infer_outputs

__all__ = ["check_cases", "check_offsets", "infer_output", "infer_outputs", "probe_ranges"]

if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.row_reduce import cases as _self
    from codegen.registry import contract

    _contract: contract.Cases = _self
    _infer_outputs: contract.CasesInferOutputs = _self
    _probe_ranges: contract.CasesProbeRanges = _self
