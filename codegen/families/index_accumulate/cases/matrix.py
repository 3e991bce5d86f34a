"""The whole case matrix of an index-accumulate op on one product: the value cases of both strategies,
the status cases and the 64-bit offset cases (the ``check_cases`` hook)."""

from __future__ import annotations

from collections.abc import Iterator

from codegen.check.cases import Case
from codegen.families.index_accumulate.cases.maker import MODES, CaseMaker
from codegen.families.index_accumulate.cases.offsets import index_offset_cases
from codegen.families.index_accumulate.cases.status import status_cases
from codegen.families.index_accumulate.cases.values import value_cases
from codegen.families.index_accumulate.plan.roles import index_dtypes, row_dtypes
from codegen.spec.model import DType, OpSpec, Product


def index_accumulate_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """Value and status cases of an index-accumulate op on ``product``.

    Args:
        spec: the op.
        product: the product (its dtypes, cores, UB and limits shape the matrix).
        dtypes: the rows dtypes to cover (the driver's ``--dtype`` filter already applied).
        quick: keep one representative case per group.
    """
    mk = CaseMaker(spec, product)
    idx_all = [d for d in index_dtypes(spec) if product.supports(d)]
    rows_all = [d for d in row_dtypes(spec) if product.supports(d)]
    grads = [d for d in dtypes if d in rows_all]
    for _, det in MODES:
        yield from value_cases(mk, grads, rows_all, idx_all, det, quick)
    yield from status_cases(mk, rows_all, idx_all)
    roles = {"num_rows": mk.num_rows, "padding": mk.padding or "", "count_scaling": mk.scaling or ""}
    i64 = DType.INT64 if DType.INT64 in idx_all else idx_all[0]
    yield from index_offset_cases(spec, product, roles, grads[0] if grads else rows_all[0], i64)


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The family's cases of ``spec`` on ``product`` (:func:`index_accumulate_cases`)."""
    return index_accumulate_cases(spec, product, dtypes, quick)
