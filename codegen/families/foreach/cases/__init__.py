"""The case matrix of a foreach op on one product (the check stage's hooks): :mod:`.values` (lists of one,
two and many tensors, empty and 0-d ones among them), :mod:`.status` (null lists and elements, dtype and
shape mismatches between the lists, the derived status matrix), :mod:`.offsets` (the 64-bit offset case) and
the outputs a call allocates (:func:`infer_outputs`)."""

from collections.abc import Iterator
from typing import TYPE_CHECKING

from codegen.check.cases import Case
from codegen.families.foreach.cases.offsets import check_offsets, offset_cases
from codegen.families.foreach.cases.outputs import infer_output, infer_outputs
from codegen.families.foreach.cases.status import status_cases
from codegen.families.foreach.cases.values import value_cases
from codegen.families.foreach.compute import ForeachCompute
from codegen.spec.model import DType, OpSpec, Product

__all__ = ["check_cases", "check_offsets", "infer_output", "infer_outputs"]


def check_cases(spec: OpSpec, product: Product, dtypes: list[DType], quick: bool) -> Iterator[Case]:
    """The value and status cases of ``spec`` on ``product`` for the list ``dtypes``."""
    comp = spec.compute
    assert isinstance(comp, ForeachCompute)
    listed = [d for d in spec.tensor(comp.source).dtypes if product.supports(d)]
    chosen = [d for d in dtypes if d in listed]
    if chosen:
        yield from value_cases(spec, product, chosen, quick)
    yield from status_cases(spec, product, listed or list(spec.tensor(comp.source).dtypes))
    yield from offset_cases(spec, product, (chosen or listed or list(spec.tensor(comp.source).dtypes))[0])


if TYPE_CHECKING:  # mypy checks this module against the contract's protocols (codegen.registry.contract)
    from codegen.families.foreach import cases as _self
    from codegen.registry import contract

    _contract: contract.Cases = _self
    _infer_outputs: contract.CasesInferOutputs = _self
