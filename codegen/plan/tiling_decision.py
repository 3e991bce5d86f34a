"""The records a family's tiling decision (the Python mirror of its tiling function's result for one call on
one product) is built on: what every decision holds (:class:`TilingDecisionBase`), and what a decision
that splits the call over cores under a UB budget holds besides (:class:`UbSplitDecision`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from codegen.plan.tiling_fields import TilingField, tiling_values


@dataclass(frozen=True)
class TilingDecisionBase:
    """What the tiling function decides for one call on one product, in every family.

    A family's decision extends it with its own fields (units in their names) and sets :attr:`FIELDS` to its
    tiling struct's field table.

    Attributes:
        FIELDS: the family's tiling struct fields (class attribute) whose values :meth:`tiling_fields` reads.
        product: the product's catalogue name (``Product.name``, e.g. ``Ascend910B``).
        tiling_key: the tiling key the function sets (selects the kernel branch).
        block_dim: cores the call launches on.
        workspace_bytes: GM workspace the call asks for (bytes, the system workspace included).
    """

    FIELDS: ClassVar[tuple[TilingField[Any], ...]] = ()
    product: str
    tiling_key: int
    block_dim: int
    workspace_bytes: int

    def tiling_fields(self) -> dict[str, int]:
        """The tiling struct's values of :attr:`FIELDS` in this decision, by field name in table order.

        Raises:
            ValueError: a field of :attr:`FIELDS` has no value in the decision (see :func:`tiling_values`).
        """
        return tiling_values(self.FIELDS, self)


@dataclass(frozen=True)
class UbSplitDecision(TilingDecisionBase):
    """A tiling decision that spreads the call over cores and sizes each core's tiles to a UB budget.

    Attributes:
        bytes_per_element: UB bytes one element of a tile takes over every buffer of one core.
        ub_budget_bytes: UB bytes one core's tiles may take (after the reserved and fixed allocations).
        ub_split: ``(buffer, count, bytes_each)`` for every UB allocation of one core.
    """

    bytes_per_element: int
    ub_budget_bytes: int
    ub_split: tuple[tuple[str, int, int], ...]
