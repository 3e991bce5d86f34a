"""Rules over a whole call that no single tensor or attr states: the allowed dtype combinations
(:class:`DtypeCombo`) and the product-specific constraints (:class:`Constraint`) phase 1 checks."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.errors import NO_LOC, SourceLoc
from codegen.spec.expr import Expr
from codegen.spec.model.products import Product
from codegen.types import AclnnStatus, DType


@dataclass(frozen=True)
class Constraint:
    """A product-specific limit, checked by the generated phase-1 function.

    When ``when`` holds (or is None), the ``let`` values are computed in order and ``require`` must be
    true; otherwise phase 1 fails with ``status`` and ``message`` (``{name}`` placeholders of let and attr
    names are filled with their values).

    Attributes:
        name: identifier of the constraint.
        products: products the limit applies to (a subset of the op's products).
        when: condition under which the limit applies; may not use let names.
        let: named intermediate values, each may use the earlier ones.
        require: the condition that must hold.
        message: error text with ``{name}`` placeholders.
        status: aclnnStatus returned on violation (default 161002, ACLNN_ERR_PARAM_INVALID).
        loc: the constraint's entry.
    """

    name: str
    products: tuple[str, ...]
    when: Expr | None
    let: tuple[tuple[str, Expr], ...]
    require: Expr
    message: str
    status: int = int(AclnnStatus.ACLNN_ERR_PARAM_INVALID)
    loc: SourceLoc = NO_LOC


@dataclass(frozen=True)
class DtypeCombo:
    """One allowed combination of tensor dtypes (a "dtype column" of a CANN doc's dtype table), from the
    spec's ``dtype_combos`` list.

    Attributes:
        dtypes: ``(tensor name, dtype)`` for every input and output, in inputs-then-outputs spec order.
        products: catalogue names of the products the combination is allowed on (the op's products when the
            entry lists none); a product without a dtype of the combination (BF16) never allows it.
        loc: the entry.
    """

    dtypes: tuple[tuple[str, DType], ...]
    products: tuple[str, ...]
    loc: SourceLoc = NO_LOC

    def dtype(self, name: str) -> DType:
        """The dtype of tensor ``name`` in this combination.

        Raises:
            KeyError: ``name`` is not a tensor of the combination.
        """
        return dict(self.dtypes)[name]

    def allowed_on(self, product: Product) -> bool:
        """Whether the combination is allowed on ``product`` (listed, and every dtype supported there)."""
        return product.name in self.products and all(product.supports(d) for _, d in self.dtypes)

    @property
    def text(self) -> str:
        """``x FLOAT16, gamma FLOAT, ...`` for messages and docs."""
        return ", ".join(f"{n} {d.name}" for n, d in self.dtypes)
