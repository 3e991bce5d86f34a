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

from codegen.runner import dtype_of_array
from codegen.spec.model import OpSpec
from codegen.torch.operators import _call, _specs_of, _to_numpy, register
from codegen.torch.table import TORCH_OPS, Args, TorchOp


def _accepts(spec: OpSpec, cann: Args) -> bool:
    """Whether each tensor parameter's dtype is one the spec lists for it (else the call runs eagerly)."""
    for t in spec.inputs:
        value = cann.get(t.name)
        if isinstance(value, torch.Tensor):
            try:
                d = dtype_of_array(_to_numpy(torch.empty(0, dtype=value.dtype)))
            except TypeError:
                return False
            if d not in t.dtypes:
                return False
    return True


@dataclass
class Report:
    """Which ops ran where inside an :func:`ops` block.

    Attributes:
        generated: aclnn API (``Softmax``, ``SoftmaxBackward``) -> calls through the generated kernels.
        eager: torch function (``linear``, ``rms_norm backward``) -> calls in eager PyTorch. A function
            with no row in :data:`TORCH_OPS`, or a call its row's aclnn APIs cannot take, counts once under
            its name (its backward is torch's own, not counted); a row's forward or backward that runs
            eagerly beside a generated other half counts as ``<name>`` or ``<name> backward``.
            Only calls returning a tensor are counted.
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


class _Mode(TorchFunctionMode):
    """Sends the torch functions of :data:`TORCH_OPS` to the generated ops; counts the rest as eager."""

    def __init__(self, product: str) -> None:
        super().__init__()
        self.ns = register(product)
        self.specs = _specs_of(product)
        self.report = Report(product)
        self.rows = {fn: (row, stub) for row in TORCH_OPS for fn, stub in row.functions}

    def can_run(self, op: str | None, cann: Args) -> bool:
        return op is not None and op in self.specs and _accepts(self.specs[op], cann)

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

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        found = self.rows.get(func)
        # Under a functorch transform (vmap, grad, jacrev, ...) the tensors are functorch wrappers, which
        # neither the custom operators nor an autograd.Function without setup_context can take: eager.
        if found is not None and not torch._C._are_functorch_transforms_active():
            row, stub = found
            try:
                bound = stub(*args, **kwargs)
            except TypeError:
                bound = None
            if bound is not None and row.takes(bound) and self._fits(row, bound):
                call = _Call(row, bound, func, args, kwargs, self)
                tensors = [bound[n] for n in row.tensors]
                return _Pair.apply(call, *tensors)
        result = func(*args, **kwargs)
        if isinstance(result, torch.Tensor):
            self.report.eager[getattr(func, "__name__", str(func))] += 1
        return result

    def _fits(self, row: TorchOp, bound: Args) -> bool:
        """Whether the row's generated side(s) exist for this product and take these tensors."""
        given = [bound[n] for n in row.tensors if bound[n] is not None]  # None: an optional tensor left out
        if any(not isinstance(t, torch.Tensor) or t.device.type != "cpu" for t in given):
            return False
        if row.forward is not None and row.forward_args is not None:
            return self.can_run(row.forward, row.forward_args(bound))
        return row.backward is not None and row.backward in self.specs


@contextmanager
def ops(product: str = "Ascend910B") -> Iterator[Report]:
    """Runs the torch functions of :data:`TORCH_OPS` through ``product``'s generated ops, forward and
    backward, inside the block; yields the :class:`Report` of what ran where (filled as the block runs).

    Tensors must be on the CPU (others run eagerly). A backward run with grad mode on (``create_graph=True``)
    and every call made while a functorch transform (``torch.vmap``, ``torch.func.grad``) is active run
    eagerly, so higher-order gradients and transforms give eager's results. A backward run after the block
    (``loss.backward()`` outside it) still uses the generated backward ops of the forwards recorded inside it.

    Raises:
        KeyError: unknown product.
        codegen.build.BuildError: an op failed to build (on its first call).
        codegen.AclnnError: a generated op returned a non-zero status.
    """
    mode = _Mode(product)
    with mode:
        yield mode.report
