"""The ``torch._foreach_*`` functions the generated tensor-list ops stand for (:data:`LIST_OPS`).

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
        in_place: the result is written into the list the stub names ``self`` (the function returns that list).
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
    """Whether ``value`` is a list or tuple of tensors (a ``torch._foreach_*`` function's list argument)."""
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


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    """The half-open range of addresses ``[first, end)`` a tensor's elements occupy in its storage (the
    storage's base address plus the byte offsets its storage offset, sizes and strides reach); empty for a
    tensor of no elements."""
    if t.numel() == 0:
        return (0, 0)
    base = t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()
    lo = sum((n - 1) * s for n, s in zip(t.shape, t.stride()) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(t.shape, t.stride()) if s > 0)
    return (base + lo * t.element_size(), base + (hi + 1) * t.element_size())


def _same_view(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether ``a`` and ``b`` name the same elements in the same order (one storage, offset, shape, strides
    and dtype): an in-place update of one reads each element of the other just before writing it."""
    return (
        a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        and a.storage_offset() == b.storage_offset()
        and a.shape == b.shape
        and a.stride() == b.stride()
        and a.dtype == b.dtype
    )


def _overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the storage byte ranges of ``a`` and ``b`` (see :func:`_byte_range`) share a byte."""
    (a0, a1), (b0, b1) = _byte_range(a), _byte_range(b)
    return a0 < a1 and b0 < b1 and a0 < b1 and b0 < a1


def in_place_overlap(bound: Args) -> bool:
    """Whether an in-place list call's entries overlap in memory, which the generated op cannot compute as
    PyTorch does: PyTorch updates the entries of ``bound["self"]`` one after the other, each reading the
    others' already-updated values (``_foreach_mul_([t, t], 2.0)`` multiplies ``t`` by 4), while the generated
    op reads every input before any result is written back. True when an entry of ``self`` shares storage
    bytes with another entry of ``self`` or with any other tensor of the call (an entry of another list, or a
    tensor argument), except the same view at the same list position (``_foreach_mul_(a, a)``: each element
    reads itself), or when an entry of ``self`` overlaps itself (an expanded tensor, which PyTorch refuses to
    write). Detected from storage addresses and byte ranges (conservative: interleaved strided views whose
    ranges overlap count as overlapping)."""
    outs = list(bound["self"])
    if any(t.numel() > 1 and torch._debug_has_internal_overlap(t) != 0 for t in outs):
        return True
    others: list[tuple[int | None, torch.Tensor]] = []
    for name, value in bound.items():
        if name != "self" and tensor_list(value):
            others += list(enumerate(value))
        elif isinstance(value, torch.Tensor):
            others.append((None, value))
    for i, out in enumerate(outs):
        if any(_overlap(out, other) for other in outs[i + 1 :]):
            return True
        for j, other in others:
            if _overlap(out, other) and not (j == i and _same_view(out, other)):
                return True
    return False


def number(value: Any) -> bool:
    """Whether ``value`` is a Python int or float (not a bool): what an aclScalar parameter takes."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list_scalar(
    function: Callable[..., Any], api: str, in_place: bool, keyword: str = "scalar", eager: tuple[float, ...] = ()
) -> ListOp:
    """``f(self, <keyword>)`` of a tensor list and a number (PyTorch names the number ``scalar``, or
    ``exponent`` for pow), as an API of parameters ``x`` and ``scalar``; a number among ``eager`` leaves the
    call to eager PyTorch (where PyTorch's result differs from the API's)."""

    def stub(self: Any, *number: Any, **named: Any) -> Args:
        if len(number) + len(named) != 1 or (named and keyword not in named):
            raise TypeError(f"{keyword} expected")
        return {"self": self, "scalar": number[0] if number else named[keyword]}

    return ListOp(
        function,
        stub,
        api,
        lambda a: {"x": list(a["self"]), "scalar": a["scalar"]},
        in_place,
        takes=lambda a: number(a["scalar"]) and a["scalar"] not in eager,
    )


def _add_list(function: Callable[..., Any], in_place: bool) -> ListOp:
    """``_foreach_add(self, other, alpha=1)`` of two lists: aclnnForeachAddListV2 (x1 + alpha x x2)."""
    return ListOp(
        function,
        lambda self, other, alpha=1: {"self": self, "other": other, "alpha": alpha},
        "ForeachAddListV2",
        lambda a: {"x1": list(a["self"]), "x2": list(a["other"]), "alpha": a["alpha"]},
        in_place,
        takes=lambda a: tensor_list(a["other"]) and number(a["alpha"]),
    )


def _add_scalar(function: Callable[..., Any], in_place: bool) -> ListOp:
    """``_foreach_add(self, scalar)``: aclnnForeachAddScalarV2 (no alpha in this overload)."""
    return ListOp(
        function,
        lambda self, other, alpha=1: {"self": self, "other": other, "alpha": alpha},
        "ForeachAddScalarV2",
        lambda a: {"x": list(a["self"]), "scalar": a["other"]},
        in_place,
        takes=lambda a: number(a["other"]) and a["alpha"] == 1,
    )


def _lerp(function: Callable[..., Any], in_place: bool) -> ListOp:
    """``_foreach_lerp(self, tensors1, weight)`` with a number weight: aclnnForeachLerpScalar."""
    return ListOp(
        function,
        lambda self, tensors1, weight: {"self": self, "end": tensors1, "weight": weight},
        "ForeachLerpScalar",
        lambda a: {"x1": list(a["self"]), "x2": list(a["end"]), "weight": a["weight"]},
        in_place,
        takes=lambda a: tensor_list(a["end"]) and number(a["weight"]),
    )


def _addcmul(function: Callable[..., Any], in_place: bool) -> ListOp:
    """``_foreach_addcmul(self, tensor1, tensor2, value=1)`` with a number value: aclnnForeachAddcmulScalarV2."""
    return ListOp(
        function,
        lambda self, tensor1, tensor2, value=1: {"self": self, "t1": tensor1, "t2": tensor2, "value": value},
        "ForeachAddcmulScalarV2",
        lambda a: {"x1": list(a["self"]), "x2": list(a["t1"]), "x3": list(a["t2"]), "scalar": a["value"]},
        in_place,
        takes=lambda a: tensor_list(a["t1"]) and tensor_list(a["t2"]) and number(a["value"]),
    )


#: The exponents whose ``_foreach_pow`` runs eagerly: PyTorch computes ``x ** 0.5`` as ``sqrt(x)`` and
#: ``x ** -0.5`` as ``rsqrt(x)`` (NaN for ``-inf``, a signed zero or infinity for ``-0``), where
#: aclnnForeachPowScalarV2 gives IEEE pow's ``+inf`` / ``+0`` and ``+0`` / ``+inf`` (ops-nn's Power and powf).
POW_EAGER_EXPONENTS = (0.5, -0.5)

#: The ``torch._foreach_*`` functions with a generated op, each in its out-of-place and in-place form. A row whose
#: API the product does not have (or whose phase 1 refuses the call) leaves the call to eager PyTorch.
#: ``_foreach_maximum`` has no row: aclnnForeachMaximumScalarV2 gives the scalar for a NaN element (ops-nn's
#: Maxs), where PyTorch keeps the NaN.
LIST_OPS: tuple[ListOp, ...] = (
    _unary(torch._foreach_sqrt, "ForeachSqrt", False),
    _unary(torch._foreach_sqrt_, "ForeachSqrt", True),
    _binary_list(torch._foreach_mul, "ForeachMulList", False),
    _binary_list(torch._foreach_mul_, "ForeachMulList", True),
    _binary_list(torch._foreach_div, "ForeachDivList", False),
    _binary_list(torch._foreach_div_, "ForeachDivList", True),
    _list_scalar(torch._foreach_mul, "ForeachMulScalarV2", False),
    _list_scalar(torch._foreach_mul_, "ForeachMulScalarV2", True),
    _list_scalar(torch._foreach_pow, "ForeachPowScalarV2", False, "exponent", POW_EAGER_EXPONENTS),
    _list_scalar(torch._foreach_pow_, "ForeachPowScalarV2", True, "exponent", POW_EAGER_EXPONENTS),
    _add_list(torch._foreach_add, False),
    _add_list(torch._foreach_add_, True),
    _add_scalar(torch._foreach_add, False),
    _add_scalar(torch._foreach_add_, True),
    _lerp(torch._foreach_lerp, False),
    _lerp(torch._foreach_lerp_, True),
    _addcmul(torch._foreach_addcmul, False),
    _addcmul(torch._foreach_addcmul_, True),
)
