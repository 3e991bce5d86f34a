"""The :func:`ops` block: a torch function mode that runs the rows of :data:`~codegen.torch.table.TORCH_OPS`
through the custom operators, forward and backward, every other call in eager PyTorch, and reports which
ran where."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from codegen.torch.lists import LIST_OPS, ListOp, in_place_overlap, tensor_list
from codegen.torch.operators import _call, _specs_of, _status, register
from codegen.torch.table import TORCH_OPS, Args, TorchOp


@dataclass
class Report:
    """Which ops ran where inside an :func:`ops` block.

    Attributes:
        generated: aclnn API (``Softmax``, ``SoftmaxBackward``) -> calls through the generated kernels.
        eager: torch function (``linear``, ``rms_norm backward``) -> calls in eager PyTorch. A function
            with no row in :data:`TORCH_OPS`, or a call its row's aclnn APIs cannot take, counts once under
            its name (its backward is torch's own, not counted); a row's forward or backward that runs
            eagerly beside a generated other half counts as ``<name>`` or ``<name> backward``.
            Only calls returning a tensor or a list or tuple of tensors, and ``torch._foreach_*`` calls (the
            in-place ones return None), are counted, and not dunder methods or property getters (``x[0]``,
            ``x.T``, ``x.data``: attribute access, not a torch function).
    """

    product: str
    generated: Counter[str] = field(default_factory=Counter)
    eager: Counter[str] = field(default_factory=Counter)


@dataclass
class _Call:
    row: TorchOp
    args: Args
    func: Callable[..., Any]
    call_args: tuple[Any, ...]
    call_kwargs: dict[str, Any]
    mode: _Mode


class _Pair(torch.autograd.Function):
    """A row's forward and backward as one autograd function (either side generated or eager)."""

    @staticmethod
    def forward(ctx: Any, call: _Call, *tensors: torch.Tensor) -> Any:
        ctx.call = call
        row, mode = call.row, call.mode
        if row.forward is not None and row.forward_args is not None:
            out = mode.run(row.forward, row.forward_args(call.args))
            result = out[0] if isinstance(out, tuple) else out
        else:
            with torch.no_grad():
                result = mode.eager(row.name, call)
        ctx.save_for_backward(*tensors, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        """The gradients of the row's tensors: the generated backward op when it can take the call, else
        eager autograd through the torch function. A backward run with grad mode on (``create_graph=True``,
        as a gradient penalty needs) is always eager, on the saved inputs themselves, so that its gradients
        are differentiable in turn (the generated ops are not)."""
        call: _Call = ctx.call
        row, mode = call.row, call.mode
        higher_order = torch.is_grad_enabled()
        with torch._C.DisableTorchFunction():  # the backward's own tensor work is not the model's
            *tensors, result = ctx.saved_tensors
            needs = ctx.needs_input_grad[1:]
            only_grad_of = all(n == row.grad_of or not need for n, need in zip(row.tensors, needs))
            if row.backward is not None and row.backward_args is not None and only_grad_of and not higher_order:
                cann = row.backward_args(call.args, grad, result)
                if mode.can_run(row.backward, cann):
                    g = mode.run(row.backward, cann)
                    return (None, *(g if n == row.grad_of else None for n in row.tensors))
            # eager: autograd through the eager forward, on the saved inputs (detached unless the gradient
            # must itself be differentiable)
            with torch.enable_grad():
                if higher_order:
                    leaves = [None if t is None or not need else t for t, need in zip(tensors, needs)]
                else:
                    leaves = [None if t is None else t.detach().requires_grad_(need) for t, need in zip(tensors, needs)]
                swap = {id(call.args[n]): leaf for n, leaf in zip(row.tensors, leaves) if leaf is not None}
                out = mode.eager(row.name + " backward", call, swap)
                wanted = [t for t in leaves if t is not None and t.requires_grad]
                grads = iter(torch.autograd.grad(out, wanted, grad, create_graph=higher_order))
            return (None, *(next(grads) if t is not None and t.requires_grad else None for t in leaves))


def _counted(name: str, result: Any) -> bool:
    """Whether an eager call of the torch function ``name`` that returned ``result`` counts in
    :attr:`Report.eager`: it returned a tensor or a list or tuple of tensors (``torch._foreach_maximum``,
    ``torch.split``), or it is a ``torch._foreach_*`` function (the in-place ones return None); not a dunder
    method or property getter (``x[0]``: ``__getitem__``; ``x.T``, ``x.data``: ``__get__``), which is attribute
    access, not a function the model calls."""
    if name.startswith("__") and name.endswith("__"):
        return False
    if name.startswith("_foreach_") or isinstance(result, torch.Tensor):
        return True
    return isinstance(result, (list, tuple)) and len(result) > 0 and tensor_list(result)


class _Mode(TorchFunctionMode):
    """Sends the torch functions of :data:`TORCH_OPS` to the generated ops; counts the rest as eager."""

    def __init__(self, product: str) -> None:
        super().__init__()
        self.ns = register(product)
        self.product = product
        self.specs = _specs_of(product)
        self.report = Report(product)
        self.rows = {fn: (row, stub) for row in TORCH_OPS for fn, stub in row.functions}
        self.list_rows: dict[Any, list[ListOp]] = {}
        for list_row in LIST_OPS:
            self.list_rows.setdefault(list_row.function, []).append(list_row)

    def can_run(self, op: str | None, cann: Args) -> bool:
        """Whether the product has aclnn API ``op`` and its phase 1 takes the parameters ``cann`` (any status,
        or a parameter the Python API refuses, is no: the call runs eagerly)."""
        if op is None or op not in self.specs:
            return False
        try:
            return _status(self.product, self.specs[op], cann) == 0
        except (TypeError, ValueError):
            return False

    def run(self, op: str, cann: Args) -> Any:
        """Calls the custom operator of aclnn API ``op`` (counted in the report)."""
        self.report.generated[op] += 1
        with torch._C.DisableTorchFunction(), torch.no_grad():  # our own tensor work is not the model's
            return _call(self.ns, self.specs[op], cann)

    def eager(self, name: str, call: _Call, swap: dict[int, torch.Tensor] | None = None) -> Any:
        """The row's torch function in eager PyTorch (counted as ``name``); ``swap`` replaces tensor
        arguments, found by identity (``id``), with others."""
        self.report.eager[name] += 1
        swap = swap or {}
        args = tuple(swap.get(id(a), a) for a in call.call_args)
        kwargs = {k: swap.get(id(v), v) for k, v in call.call_kwargs.items()}
        with torch._C.DisableTorchFunction():
            return call.func(*args, **kwargs)

    # Dynamo (torch.compile) must not trace this: it is host code calling the emulator (file system,
    # ctypes, caches), which Dynamo mistraces. Disabled, every torch call in a compiled function breaks the
    # graph and runs here eagerly, so each routes or runs in eager PyTorch as outside torch.compile.
    @torch.compiler.disable
    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        list_rows = self.list_rows.get(func)
        if list_rows is not None:
            routed, result = self._list_call(list_rows, func, args, kwargs)
            if routed:
                return result
            self.report.eager[getattr(func, "__name__", str(func))] += 1
            return func(*args, **kwargs)
        found = self.rows.get(func)
        # Under a functorch transform (vmap, grad, jacrev, ...) the tensors are functorch wrappers, which
        # neither the custom operators nor an autograd.Function without setup_context can take: eager.
        if found is not None and not torch._C._are_functorch_transforms_active():
            row, stub = found
            try:
                bound = stub(*args, **kwargs)
            except TypeError:
                bound = None
            if bound is not None and row.takes(bound) and self._fits(row, bound, func, args, kwargs):
                call = _Call(row, bound, func, args, kwargs, self)
                tensors = [bound[n] for n in row.tensors]
                return _Pair.apply(call, *tensors)
        result = func(*args, **kwargs)
        name = getattr(func, "__name__", str(func))
        if _counted(name, result):
            self.report.eager[name] += 1
        return result

    def _list_call(
        self, rows: list[ListOp], func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[bool, Any]:
        """Runs a ``torch._foreach_*`` call through the first of ``rows`` that takes it, in calls of at most
        :data:`~codegen.plan.tensor_lists.MAX_LIST_TENSORS` tensors per list (one launch's list table; a longer
        list, an optimizer's parameters, is cut into such calls, as torch_npu does); ``(True, result)`` (a tuple
        of the results; for an in-place form the list itself, which then holds them, as eager returns), or
        ``(False, None)`` when it must run
        eagerly: no row takes its argument kinds, a tensor is not on the CPU, a gradient will be wanted (the
        list ops have no autograd formula), an in-place call's tensors overlap in memory
        (:func:`codegen.torch.lists.in_place_overlap`: PyTorch updates the entries in turn), PyTorch's own
        checks refuse it (the call run on ``meta`` copies), a functorch transform is active, or phase 1 of
        the API refuses it (e.g. a list of mixed dtypes)."""
        if torch._C._are_functorch_transforms_active():
            return False, None
        for row in rows:
            try:
                bound = row.stub(*args, **kwargs)
            except TypeError:
                continue
            if not tensor_list(bound.get("self")) or not row.takes(bound):
                continue
            tensors = [t for v in bound.values() if tensor_list(v) for t in v]
            tensors += [v for v in bound.values() if isinstance(v, torch.Tensor)]
            if any(t.device.type != "cpu" for t in tensors):
                return False, None
            if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
                return False, None
            if row.in_place and in_place_overlap(bound):
                return False, None
            meta = {id(t): t.detach().to("meta") for t in tensors}

            def on_meta(v: Any, meta: dict[int, torch.Tensor] = meta) -> Any:
                return [meta.get(id(t), t) for t in v] if tensor_list(v) else meta.get(id(v), v)

            try:
                with torch._C.DisableTorchFunction(), torch.no_grad():
                    func(*(on_meta(a) for a in args), **{k: on_meta(v) for k, v in kwargs.items()})
            except Exception:  # PyTorch refuses the call: eager gives its error
                return False, None
            chunks = _list_chunks(row.args(bound))
            if not all(self.can_run(row.api, c) for c in chunks):
                return False, None
            out = [t for c in chunks for t in self.run(row.api, c)]
            if not row.in_place:
                return True, tuple(out)  # as eager PyTorch's out-of-place forms return
            with torch._C.DisableTorchFunction(), torch.no_grad():
                for target, value in zip(bound["self"], out):
                    target.copy_(value)
            return True, bound["self"]  # eager's in-place forms return the list they updated
        return False, None

    def _fits(self, row: TorchOp, bound: Args, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """Whether the row's generated side(s) take this call, decided before anything runs: every tensor on
        the CPU; eager PyTorch takes the call's shapes and dtypes (its function run on ``meta`` copies of the
        tensors does not raise; the row's ``takes`` holds PyTorch's value checks); phase 1 of the forward API
        takes it; and, when a gradient will be wanted from the backward API, phase 1 of the backward API takes
        it too (with a gradient and forward result of the eager result's shape and dtype), so that a forward
        never routes when its backward would refuse the same call."""
        given = [bound[n] for n in row.tensors if bound[n] is not None]  # None: an optional tensor left out
        if any(not isinstance(t, torch.Tensor) or t.device.type != "cpu" for t in given):
            return False
        meta = {id(t): t.detach().to("meta") for t in given}
        try:
            with torch._C.DisableTorchFunction(), torch.no_grad():
                shaped = func(*(meta.get(id(a), a) for a in args), **{k: meta.get(id(v), v) for k, v in kwargs.items()})
        except Exception:  # PyTorch refuses the call (or has no meta kernel for it): eager gives its answer
            return False
        if not isinstance(shaped, torch.Tensor):
            return False
        if row.forward is not None and row.forward_args is not None:
            if not self.can_run(row.forward, row.forward_args(bound)):
                return False
        elif row.backward is None or row.backward not in self.specs:
            return False
        wanted = torch.is_grad_enabled() and any(t.requires_grad for t in given)
        if not wanted or row.backward is None or row.backward_args is None or row.backward not in self.specs:
            return True  # no gradient wanted, or the product has no backward op: its backward is eager
        grad = torch.zeros(shaped.shape, dtype=shaped.dtype)
        return self.can_run(row.backward, row.backward_args(bound, grad, grad))


@contextmanager
def ops(product: str = "Ascend910B") -> Iterator[Report]:
    """Runs the torch functions of :data:`TORCH_OPS` through ``product``'s generated ops, forward and
    backward, inside the block; yields the :class:`Report` of what ran where (filled as the block runs).

    Tensors must be on the CPU (others run eagerly). A backward run with grad mode on (``create_graph=True``)
    and every call made while a functorch transform (``torch.vmap``, ``torch.func.grad``) is active run
    eagerly, so higher-order gradients and transforms give eager's results. A backward run after the block
    (``loss.backward()`` outside it) still uses the generated backward ops of the forwards recorded inside it.

    A call routes only when it fits (see ``_Mode._fits``): phase 1 of the forward API, and of the backward
    API when a gradient will be wanted, takes it, and eager PyTorch's shape, dtype and value checks pass;
    otherwise the whole function runs eagerly and gives PyTorch's result or error.

    Raises:
        KeyError: unknown product.
        codegen.build.BuildError: an op failed to build (on its first call).
        codegen.AclnnError: phase 2 of a generated op returned a non-zero status.
    """
    mode = _Mode(product)
    with mode:
        yield mode.report


def _list_chunks(cann: dict[str, Any]) -> list[dict[str, Any]]:
    """The API call ``cann`` (its tensor lists as lists) as calls of at most
    :data:`~codegen.plan.tensor_lists.MAX_LIST_TENSORS` tensors per list: the lists cut at the same positions,
    every other argument repeated; one call for a list no longer than that (an empty one included)."""
    from codegen.plan.tensor_lists import MAX_LIST_TENSORS

    lists = [k for k, v in cann.items() if isinstance(v, list)]
    n = max((len(cann[k]) for k in lists), default=0)
    if n <= MAX_LIST_TENSORS:
        return [cann]
    return [
        {k: v[i : i + MAX_LIST_TENSORS] if k in lists else v for k, v in cann.items()}
        for i in range(0, n, MAX_LIST_TENSORS)
    ]
