"""Plan-time validation of an index-accumulate spec on its products (the ``validate`` hook)."""

from __future__ import annotations

from codegen.families.index_accumulate.plan.roles import compute_of, index_dtypes, row_dtypes
from codegen.families.index_accumulate.plan.tiling import buffer_num
from codegen.plan.products import spec_products
from codegen.spec.model import Catalogue, OpSpec


def validate(spec: OpSpec, catalogue: Catalogue) -> None:
    """Plan-time validation of ``spec`` on its products, before any view is built.

    Raises:
        TypeError: the spec is not of this family.
        ValueError: more than 10 rows or index dtypes (one decimal digit each in the tiling key), or the
            queue depth exceeds a product's buffers per position.
    """
    compute_of(spec)
    grads, idxs = row_dtypes(spec), index_dtypes(spec)
    if len(grads) > 10 or len(idxs) > 10:
        raise ValueError(f"{spec.op}: at most 10 rows and 10 index dtypes fit the tiling key's digits")
    buffer_num(spec, spec_products(spec, catalogue))
