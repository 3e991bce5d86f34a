"""The gather/scatter family: tensors viewed as ``[P, A, Q]`` around a ``dim`` and moved by an index tensor
along ``A`` (a row gather: ``out[p, k, q] = self[p, index[k], q]``, IndexSelect; an element gather: one
element per element of an index of the source's rank, Gather; the index fill, IndexFillTensor; an element
scatter-add, ScatterAdd). See :mod:`codegen.registry` for the package
layout."""

from codegen.registry import Family

FAMILY = Family(
    name="gather_scatter",
    summary=(
        "rows of [P, A, Q] around dim (an attr, a constant or flattened) picked by an index tensor (row gather), "
        "or elements by an index of the source's rank (element gather); slices filled (index fill); elements "
        "added by an index of the source's rank (scatter-add); invalid indices give zeros or add nothing"
    ),
    product_dtypes=True,
)
