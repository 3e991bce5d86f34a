"""The case matrix of a gather/scatter op on one product (the check stage's hooks).

Value cases: every source dtype with rows of 7 elements along the middle dim (indices at both ends and
repeated; the first dtype with every index dtype); every dim of a rank-4 source (positive and negative); rows
of 1, 7, 8, 9 and 33 elements in every byte width; all indices equal; reversed indices; hostile index values
(each index dtype's minimum and maximum, -1, A, A + 1, 2**31, -2**31 - 1, 2**32 + k) in every byte width,
which must give zero rows and no emulator fault; 5000 rows of one element (tiles past DataCopyPad's 4095
rows, buffers reused); rows larger than a tile (chunks); rows over every core; a 0-d index; a 0-d source
with a valid and an invalid index; empty sources and indices (nothing launched, out left as it is); a
non-contiguous source, index and out. Status cases: :mod:`.status`. An element gather
(``direction: gather_elements``) takes :mod:`.elements` instead, a fill (``direction: fill``) :mod:`.fill`,
a scatter-add (``direction: scatter_add``) :mod:`.scatter`, a row scatter-add (``direction: index_add``)
:mod:`.rows`.
The 64-bit offset case: :mod:`.offsets` (a scatter-add's, one per strategy: :mod:`.scatter_offsets`). ``quick``
keeps one representative of each group.
"""

from collections.abc import Iterator
from typing import TYPE_CHECKING

from codegen.check.cases import Case
from codegen.families.gather_scatter.cases.elements import elements_status_cases, elements_value_cases
from codegen.families.gather_scatter.cases.fill import fill_status_cases, fill_value_cases
from codegen.families.gather_scatter.cases.offsets import check_offsets, offset_cases, probe_ranges
from codegen.families.gather_scatter.cases.outputs import infer_output
from codegen.families.gather_scatter.cases.rows import row_status_cases, row_value_cases
from codegen.families.gather_scatter.cases.scatter import scatter_status_cases, scatter_value_cases
from codegen.families.gather_scatter.cases.scatter_offsets import scatter_offset_cases
from codegen.families.gather_scatter.cases.status import status_cases
from codegen.families.gather_scatter.cases.values import Maker, value_cases
from codegen.families.gather_scatter.model import FILL_INDEX_DTYPE, GatherScatterCompute
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["check_cases", "check_offsets", "infer_output", "probe_ranges"]


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value, status and 64-bit offset cases of ``spec`` on ``product`` for the source ``dtypes``."""
    comp = spec.compute
    assert isinstance(comp, GatherScatterCompute)
    mk = Maker(spec, product)
    listed = list(spec.tensor(comp.source).dtypes_for(product))
    chosen = [d for d in dtypes if d in listed]
    if comp.fill:
        if chosen:
            yield from fill_value_cases(mk, chosen, quick)
        yield from fill_status_cases(mk, listed)
        yield from offset_cases(spec, product, (chosen or listed)[0], FILL_INDEX_DTYPE)
        return
    index_dtypes = list(spec.tensor(comp.index).dtypes)
    i64 = DType.INT64 if DType.INT64 in index_dtypes else index_dtypes[0]
    if comp.scatter:
        if comp.rows:
            if chosen:
                yield from row_value_cases(mk, chosen, index_dtypes, quick)
            yield from row_status_cases(mk, listed, index_dtypes)
        else:
            if chosen:
                yield from scatter_value_cases(mk, chosen, index_dtypes, quick)
            yield from scatter_status_cases(mk, listed, index_dtypes)
        yield from scatter_offset_cases(spec, product, (chosen or listed)[0], i64, quick)
        return
    if comp.elements:
        if chosen:
            yield from elements_value_cases(mk, chosen, index_dtypes, quick)
        yield from elements_status_cases(mk, listed, index_dtypes)
    else:
        if chosen:
            yield from value_cases(mk, chosen, index_dtypes, quick)
        yield from status_cases(mk, listed, index_dtypes)
    yield from offset_cases(spec, product, (chosen or listed)[0], i64)


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.gather_scatter import cases as _self
    from codegen.registry import contract

    _contract: contract.Cases = _self
    _probe_ranges: contract.CasesProbeRanges = _self
