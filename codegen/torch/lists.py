"""The ``torch._foreach_*`` functions the generated tensor-list (foreach) ops stand for (:data:`LIST_OPS`).

A row binds a call of one torch function (its in-place form ``_foreach_mul_`` included) and, when its
``takes`` accepts the bound arguments (e.g. the second argument is a list of tensors rather than a number),
gives the aclnn API's parameters by CANN name. Several rows may serve one torch function (a list or a scalar
second argument); the first that takes the call is used. These functions have no autograd formula here: an
:func:`codegen.torch.ops` block routes a call only when no gradient will be wanted (an optimizer's step runs
under ``torch.no_grad()``), see :meth:`codegen.torch.mode._Mode._list_call`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

Args = dict[str, Any]


@dataclass(frozen=True)
class ListOp:
    """One row of :data:`LIST_OPS`.

    Attributes:
        function: the torch function (``torch._foreach_sqrt_``).
        stub: a stub of its parameters returning them by name (a call it rejects runs eagerly).
        api: the aclnn API computing it (``ForeachSqrt`` for aclnnForeachSqrt).
        args: the API's parameters by CANN name, from the bound arguments (tensor lists as lists of tensors).
        in_place: the result is written into the list the stub names ``self`` (the function returns None).
        takes: whether this row's API computes the call (argument kinds only; phase 1 decides the rest).
    """

    function: Callable[..., Any]
    stub: Callable[..., Args]
    api: str
    args: Callable[[Args], Args]
    in_place: bool = False
    takes: Callable[[Args], bool] = lambda a: True

    @property
    def name(self) -> str:
        """The torch function's name (``_foreach_sqrt_``)."""
        return str(getattr(self.function, "__name__", self.function))


def tensor_list(value: Any) -> bool:
    """Whether ``value`` is a list or tuple of tensors (a foreach function's list argument)."""
    return isinstance(value, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in value)


def _unary(function: Callable[..., Any], api: str, in_place: bool) -> ListOp:
    return ListOp(function, lambda self: {"self": self}, api, lambda a: {"x": list(a["self"])}, in_place)


def _binary_list(function: Callable[..., Any], api: str, in_place: bool) -> ListOp:
    """``f(self, other)`` of two tensor lists, as an API of parameters ``x1`` and ``x2``."""
    return ListOp(
        function,
        lambda self, other: {"self": self, "other": other},
        api,
        lambda a: {"x1": list(a["self"]), "x2": list(a["other"])},
        in_place,
        takes=lambda a: tensor_list(a["other"]),
    )


#: The foreach functions with a generated op, each in its out-of-place and in-place form.
LIST_OPS: tuple[ListOp, ...] = (
    _unary(torch._foreach_sqrt, "ForeachSqrt", False),
    _unary(torch._foreach_sqrt_, "ForeachSqrt", True),
    _binary_list(torch._foreach_mul, "ForeachMulList", False),
    _binary_list(torch._foreach_mul_, "ForeachMulList", True),
    _binary_list(torch._foreach_div, "ForeachDivList", False),
    _binary_list(torch._foreach_div_, "ForeachDivList", True),
)
