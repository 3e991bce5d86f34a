"""Generated ops inside PyTorch models: custom operators (``torch.library``) running on the emulator.

:func:`register` defines every op of a product as a PyTorch custom operator in the namespace
``opgen_<product>`` (``torch.ops.opgen_ascend910b.softmax``). Its schema comes from the spec: the aclnn
parameters in the API's order, outputs left out (tensors as ``Tensor``, ``Tensor?`` when optional;
``int64``/``uint64`` attributes as ``int``, ``float``/``double`` as ``float``, ``bool``, ``string`` as ``str``,
``scalar`` as ``Scalar``); it returns the aclnn outputs. Its CPU kernel calls the built library through
:func:`codegen.compile_op` (both aclnn phases on the emulator). A forward operator whose row of
:data:`TORCH_OPS` has a backward API the product has gets that API's operator as its autograd formula.

:func:`ops` is a context manager: inside it, the torch functions of :data:`TORCH_OPS` run through those
operators, forward and backward, with no change to the model's code; every other torch function, and a
call a row cannot take (an argument the aclnn API lacks, a dtype or product its spec does not list), runs
in eager PyTorch. The :class:`Report` it yields counts which ran where.

PyTorch is an optional dependency: ``import codegen`` does not import this module.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import ml_dtypes
import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from codegen.runner import OpCallable, compile_op, dtype_of_array
from codegen.spec.model import OpSpec
from codegen.specs import load_project
from codegen.types import TORCH_SCHEMA_TYPES

F = torch.nn.functional

#: torch's reduction strings as the aclnn ``reduction`` values (0 none, 1 mean, 2 sum; CANN's loss docs).
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}
_REDUCTION_NAMES = {v: k for k, v in _REDUCTION.items()}

Args = dict[str, Any]


@dataclass(frozen=True)
class TorchOp:
    """One row of :data:`TORCH_OPS`: a torch function and the aclnn APIs that compute it and its gradient.

    Attributes:
        name: the torch function's name (the key of :attr:`Report.eager` when it runs eagerly).
        functions: the torch callables replaced, each with a stub of its parameters that returns them by
            name (so positional and keyword calls bind alike); a call the stub rejects runs eagerly.
        tensors: the names (in the stubs' dicts) of the tensor arguments, in order.
        takes: whether the aclnn APIs can take a call (False: eager), from the bound arguments.
        forward: the aclnn API of the forward (``Softmax`` for aclnnSoftmax), or None (eager torch).
        forward_args: the forward API's parameters by their CANN names, from the bound arguments.
        backward: the aclnn API of the gradient, or None (eager torch, by autograd through the eager forward).
        backward_args: the backward API's parameters by their CANN names, from the bound arguments, the
            incoming gradient and the forward's result.
        grad_of: the tensor argument whose gradient the backward API returns; a call where another tensor
            argument needs a gradient computes the backward eagerly.
        from_cann: the bound arguments from the forward API's parameters (by CANN name), for rows with both
            APIs: the forward's custom operator then gets the backward's as its autograd formula.
    """

    name: str
    functions: tuple[tuple[Callable[..., Any], Callable[..., Args]], ...]
    tensors: tuple[str, ...]
    forward: str | None = None
    forward_args: Callable[[Args], Args] | None = None
    backward: str | None = None
    backward_args: Callable[[Args, torch.Tensor, torch.Tensor], Args] | None = None
    grad_of: str | None = None
    takes: Callable[[Args], bool] = lambda a: True
    from_cann: Callable[[Args], Args] | None = None


def _unary(
    name: str,
    fn: Callable[..., Any],
    backward: str,
    cann: Callable[[Args], Args] = lambda a: {},
    x: str = "self",
    more: tuple[Callable[..., Any], ...] = (),
) -> TorchOp:
    """A row for an activation ``fn(input, ...)`` (also reached as each of ``more``) computed eagerly, its
    gradient by ``backward`` (``gradOutput`` and the forward input as ``x``, plus the attributes ``cann``
    gives by their CANN names)."""
    return TorchOp(
        name,
        ((fn, _STUBS[name]), *((m, _STUBS[name]) for m in more)),
        ("input",),
        backward=backward,
        backward_args=lambda a, g, y: {"gradOutput": g, x: a["input"], **cann(a)},
        grad_of="input",
        takes=lambda a: not a.get("inplace", False),
    )


#: Parameter stubs of torch functions (their documented signatures; ``torch.nn.functional``).
_STUBS: dict[str, Callable[..., Args]] = {
    "silu": lambda input, inplace=False: {"input": input, "inplace": inplace},
    "gelu": lambda input, approximate="none": {"input": input, "approximate": approximate},
    "mish": lambda input, inplace=False: {"input": input, "inplace": inplace},
    "hardswish": lambda input, inplace=False: {"input": input, "inplace": inplace},
    "hardsigmoid": lambda input, inplace=False: {"input": input, "inplace": inplace},
    "softplus": lambda input, beta=1.0, threshold=20.0: {"input": input, "beta": beta, "threshold": threshold},
    "hardtanh": lambda input, min_val=-1.0, max_val=1.0, inplace=False: {
        "input": input,
        "min_val": min_val,
        "max_val": max_val,
        "inplace": inplace,
    },
    "leaky_relu": lambda input, negative_slope=0.01, inplace=False: {
        "input": input,
        "negative_slope": negative_slope,
        "inplace": inplace,
    },
    "hardshrink": lambda input, lambd=0.5: {"input": input, "lambd": lambd},
    "softshrink": lambda input, lambd=0.5: {"input": input, "lambd": lambd},
    "elu": lambda input, alpha=1.0, inplace=False: {"input": input, "alpha": alpha, "inplace": inplace},
    "relu": lambda input, inplace=False: {"input": input, "inplace": inplace},
    "sigmoid": lambda input: {"input": input},
}


def _loss_stub(
    input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean", weight: Any = None
) -> Args:
    legacy = size_average is not None or reduce is not None or weight is not None
    return {"input": input, "target": target, "legacy": legacy, "reduction": reduction}


def _loss_takes(a: Args) -> bool:
    """A loss call the aclnn APIs take: no weight, no legacy size_average/reduce, a known reduction."""
    return not a["legacy"] and a["reduction"] in _REDUCTION


def _softmax_stub(input: Any, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Args:
    return {"input": input, "dim": dim, "dtype": dtype}


def _softmax_method_stub(input: Any, dim: Any, dtype: Any = None) -> Args:
    return {"input": input, "dim": dim, "dtype": dtype}


def _row_takes(a: Args) -> bool:
    return isinstance(a["dim"], int) and a["dtype"] is None


def _rms_norm_stub(input: Any, normalized_shape: Any, weight: Any = None, eps: Any = None) -> Args:
    return {"input": input, "normalized_shape": tuple(normalized_shape), "weight": weight, "eps": eps}


def _embedding_stub(
    input: Any,
    weight: Any,
    padding_idx: Any = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Args:
    return {
        "input": input,
        "weight": weight,
        "padding_idx": padding_idx,
        "plain": max_norm is None and not sparse,
        "scale_grad_by_freq": scale_grad_by_freq,
    }


def _padding_row(a: Args) -> int:
    """torch's padding_idx as aclnn's ``paddingIdx``: a negative index counts from the end (as
    ``F.embedding`` normalizes it); None is -1, no padding row."""
    p = a["padding_idx"]
    if p is None:
        return -1
    return int(p) + a["weight"].shape[0] if p < 0 else int(p)


def _row_op(name: str, fn: Callable[..., Any], method: Callable[..., Any], forward: str, backward: str) -> TorchOp:
    """A row for softmax-like ``fn(input, dim)``: aclnn ``forward(self, dim)`` and ``backward(gradOutput,
    output, dim)`` (the gradient from the forward's result)."""
    return TorchOp(
        name,
        ((fn, _softmax_stub), (method, _softmax_method_stub), (getattr(torch, name), _softmax_method_stub)),
        ("input",),
        forward=forward,
        forward_args=lambda a: {"self": a["input"], "dim": a["dim"]},
        backward=backward,
        backward_args=lambda a, g, y: {"gradOutput": g, "output": y, "dim": a["dim"]},
        grad_of="input",
        takes=_row_takes,
        from_cann=lambda c: {"input": c["self"], "dim": c["dim"], "dtype": None},
    )


def _loss(
    name: str,
    fn: Callable[..., Any],
    forward: str,
    backward: str | None,
    grad: str = "gradOutput",
    stub: Callable[..., Args] | None = None,
    attrs: Callable[[Args], Args] = lambda a: {},
) -> TorchOp:
    """A row for a loss ``fn(input, target, reduction=)``: aclnn ``forward(self, target, reduction)`` and
    ``backward(<grad>, self, target, reduction)``, each also with the parameters ``attrs`` gives."""
    return TorchOp(
        name,
        ((fn, stub or _loss_stub),),
        ("input", "target"),
        forward=forward,
        forward_args=lambda a: {
            "self": a["input"],
            "target": a["target"],
            "reduction": _REDUCTION[a["reduction"]],
            **attrs(a),
        },
        backward=backward,
        backward_args=lambda a, g, y: {
            grad: g,
            "self": a["input"],
            "target": a["target"],
            "reduction": _REDUCTION[a["reduction"]],
            **attrs(a),
        },
        grad_of="input",
        takes=_loss_takes,
        from_cann=_loss_from_cann,
    )


def _loss_from_cann(c: Args) -> Args:
    """A loss row's bound arguments from its forward API's parameters (``self``, ``target``, ``reduction``
    and the API's other attributes under their CANN names, ``beta``, ``weight``)."""
    rest = {k: v for k, v in c.items() if k not in ("self", "target", "reduction")}
    return {"input": c["self"], "target": c["target"], "reduction": _REDUCTION_NAMES[c["reduction"]], **rest}


def _smooth_l1_stub(
    input: Any,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Args:
    return {**_loss_stub(input, target, size_average, reduce, reduction), "beta": beta}


def _bce_stub(
    input: Any, target: Any, weight: Any = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean"
) -> Args:
    return {**_loss_stub(input, target, size_average, reduce, reduction), "weight": weight}


#: Which aclnn API computes which torch function, with each entry's CANN parameter names: the one table
#: that names ops. A row with no forward API runs the forward in eager torch (the activations, whose
#: forward ops the project lacks, and the embedding lookup); one with no backward API differentiates the
#: eager forward with autograd (RmsNorm: the project has no RmsNorm backward op; L1Loss).
TORCH_OPS: tuple[TorchOp, ...] = (
    _row_op("softmax", F.softmax, torch.Tensor.softmax, "Softmax", "SoftmaxBackward"),
    _row_op("log_softmax", F.log_softmax, torch.Tensor.log_softmax, "LogSoftmax", "LogSoftmaxBackward"),
    TorchOp(
        "rms_norm",
        ((F.rms_norm, _rms_norm_stub), (torch.rms_norm, _rms_norm_stub)),
        ("input", "weight"),
        forward="RmsNorm",
        forward_args=lambda a: {
            "x": a["input"],
            "gamma": a["weight"],
            "epsilon": float(torch.finfo(a["input"].dtype).eps if a["eps"] is None else a["eps"]),
        },
        takes=lambda a: a["weight"] is not None and tuple(a["weight"].shape) == a["normalized_shape"],
    ),
    TorchOp(
        "embedding",
        ((F.embedding, _embedding_stub),),
        ("input", "weight"),
        backward="EmbeddingDenseBackward",
        backward_args=lambda a, g, y: {
            "grad": g,
            "indices": a["input"],
            "numWeights": a["weight"].shape[0],
            "paddingIdx": _padding_row(a),
            "scaleGradByFreq": bool(a["scale_grad_by_freq"]),
        },
        grad_of="weight",
        takes=lambda a: a["plain"],
    ),
    _unary("silu", F.silu, "SiluBackward"),
    _unary("gelu", F.gelu, "GeluBackwardV2", lambda a: {"approximate": a["approximate"]}),
    _unary("mish", F.mish, "MishBackward"),
    _unary("hardswish", F.hardswish, "HardswishBackward"),
    _unary("hardsigmoid", F.hardsigmoid, "HardsigmoidBackward"),
    _unary("softplus", F.softplus, "SoftplusBackward", lambda a: {"beta": a["beta"], "threshold": a["threshold"]}),
    _unary("hardtanh", F.hardtanh, "HardtanhBackward", lambda a: {"min": a["min_val"], "max": a["max_val"]}),
    _unary("leaky_relu", F.leaky_relu, "LeakyReluBackward", lambda a: {"negativeSlope": a["negative_slope"]}),
    _unary("hardshrink", F.hardshrink, "HardshrinkBackward", lambda a: {"lambd": a["lambd"]}),
    _unary("softshrink", F.softshrink, "SoftshrinkBackward", lambda a: {"lambd": a["lambd"]}),
    _unary(
        "elu",
        F.elu,
        "EluBackward",
        lambda a: {"alpha": a["alpha"], "scale": 1.0, "inputScale": 1.0, "isResult": False},
        x="selfOrResult",
    ),
    _unary("relu", F.relu, "ThresholdBackward", lambda a: {"threshold": 0.0}, more=(torch.relu, torch.Tensor.relu)),
    TorchOp(
        "sigmoid",
        ((torch.sigmoid, _STUBS["sigmoid"]), (torch.Tensor.sigmoid, _STUBS["sigmoid"])),
        ("input",),
        backward="SigmoidBackward",
        backward_args=lambda a, g, y: {"gradOutput": g, "output": y},
        grad_of="input",
    ),
    _loss("mse_loss", F.mse_loss, "MseLoss", "MseLossBackward"),
    _loss("l1_loss", F.l1_loss, "L1Loss", None),
    _loss(
        "smooth_l1_loss",
        F.smooth_l1_loss,
        "SmoothL1Loss",
        "SmoothL1LossBackward",
        grad="gradOut",
        stub=_smooth_l1_stub,
        attrs=lambda a: {"beta": float(a["beta"])},
    ),
    TorchOp(
        "binary_cross_entropy",
        ((F.binary_cross_entropy, _bce_stub),),
        ("input", "target", "weight"),
        forward="BinaryCrossEntropy",
        forward_args=lambda a: {
            "self": a["input"],
            "target": a["target"],
            "weight": a["weight"],
            "reduction": _REDUCTION[a["reduction"]],
        },
        backward="BinaryCrossEntropyBackward",
        backward_args=lambda a, g, y: {
            "gradOutput": g,
            "self": a["input"],
            "target": a["target"],
            "weightOptional": a["weight"],
            "reduction": _REDUCTION[a["reduction"]],
        },
        grad_of="input",
        takes=_loss_takes,
        from_cann=_loss_from_cann,
    ),
    _loss("soft_margin_loss", F.soft_margin_loss, "SoftMarginLoss", "SoftMarginLossBackward"),
)


# --- custom operators ------------------------------------------------------------------------------------

_LIBRARIES: dict[str, Any] = {}
_REGISTER_LOCK = threading.Lock()


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    """A CPU tensor's data as a NumPy array (a view; BF16 as ``ml_dtypes.bfloat16``)."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _to_torch(a: np.ndarray) -> torch.Tensor:
    """A NumPy array as a tensor sharing its memory (``ml_dtypes.bfloat16`` as ``torch.bfloat16``)."""
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def namespace(product: str) -> str:
    """The ``torch.ops`` namespace of a product's operators: ``opgen_`` and the product name in lower case."""
    return "opgen_" + product.lower()


def schema(spec: OpSpec) -> str:
    """The ``torch.library`` schema of an op: ``softmax(Tensor self, int dim) -> Tensor``."""
    attrs = {a.name: a for a in spec.attrs}
    inputs = {t.name: t for t in spec.inputs}
    params = []
    for name in spec.aclnn_order:
        if name in inputs:
            params.append(f"Tensor{'?' if inputs[name].optional else ''} {name}")
        elif name in attrs:
            params.append(f"{TORCH_SCHEMA_TYPES[attrs[name].type]} {name}")
    outs = "Tensor" if len(spec.outputs) == 1 else "(" + ", ".join("Tensor" for _ in spec.outputs) + ")"
    return f"{spec.snake}({', '.join(params)}) -> {outs}"


@cache
def _callable(op: str, product: str) -> OpCallable:
    return compile_op(op, product)


def _kernel(spec: OpSpec, product: str) -> Callable[..., Any]:
    """The CPU kernel of an op's custom operator: tensors to arrays, both aclnn phases, arrays back."""
    names = [n for n in spec.aclnn_order if n in {t.name for t in spec.inputs} | {a.name for a in spec.attrs}]

    def kernel(*args: Any) -> Any:
        params: Args = {n: _to_numpy(v) if isinstance(v, torch.Tensor) else v for n, v in zip(names, args)}
        out = _callable(spec.snake, product)(deterministic=torch.are_deterministic_algorithms_enabled(), **params)
        return tuple(_to_torch(o) for o in out) if isinstance(out, tuple) else _to_torch(out)

    return kernel


def register(product: str) -> str:
    """Defines every op of ``product`` (each spec listing it) as a custom operator and returns the
    namespace (``torch.ops.<namespace>.<snake name>``). Idempotent; ops are built on first call.

    Raises:
        KeyError: unknown product (the message lists the catalogue's).
        codegen.spec.errors.SpecErrors: a spec is invalid.
    """
    catalogue, specs = load_project()
    prod = catalogue.get(product).name
    ns = namespace(prod)
    with _REGISTER_LOCK:
        if ns not in _LIBRARIES:
            lib = torch.library.Library(ns, "DEF")
            for spec in specs.values():
                if prod in spec.products:
                    lib.define(schema(spec))
                    lib.impl(spec.snake, _kernel(spec, prod), "CPU")
            by_op = {s.op: s for s in specs.values() if prod in s.products}
            for row in TORCH_OPS:
                if row.forward in by_op and row.backward in by_op:
                    _register_autograd(ns, row, by_op[row.forward], by_op[row.backward])
            _LIBRARIES[ns] = lib
    return ns


def _register_autograd(ns: str, row: TorchOp, forward: OpSpec, backward: OpSpec) -> None:
    """Gives the forward API's custom operator the backward API's as its gradient (of the tensor the row's
    ``grad_of`` names; the other inputs get none)."""
    names = [n for n in forward.aclnn_order if n not in forward.output_names]
    from_cann, forward_args, backward_args, grad_of = row.from_cann, row.forward_args, row.backward_args, row.grad_of
    if from_cann is None or forward_args is None or backward_args is None or grad_of is None:
        return

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        result = output[0] if isinstance(output, tuple) else output
        ctx.attrs = {n: v for n, v in zip(names, inputs) if not isinstance(v, torch.Tensor)}
        ctx.tensor_names = [n for n, v in zip(names, inputs) if isinstance(v, torch.Tensor)]
        ctx.save_for_backward(*(v for v in inputs if isinstance(v, torch.Tensor)), result)

    def gradient(ctx: Any, grad: Any) -> tuple[Any, ...]:
        *tensors, result = ctx.saved_tensors
        bound = from_cann(dict(ctx.attrs, **dict(zip(ctx.tensor_names, tensors))))
        of = next(n for n, v in forward_args(bound).items() if v is bound[grad_of])  # its CANN name
        with torch.no_grad():
            g = _call(ns, backward, backward_args(bound, grad, result))
        return tuple(g if n == of else None for n in names)

    torch.library.register_autograd(f"{ns}::{forward.snake}", gradient, setup_context=setup_context)


def _specs_of(product: str) -> dict[str, OpSpec]:
    """The specs of ``product``'s ops by aclnn op name (``Softmax``)."""
    _, specs = load_project()
    return {s.op: s for s in specs.values() if product in s.products}


def _call(ns: str, spec: OpSpec, cann: Args) -> Any:
    """Calls an op's custom operator with its parameters by CANN name; an attribute left out takes the
    spec's default."""
    defaults = {a.name: a.default for a in spec.attrs}
    inputs_attrs = [n for n in spec.aclnn_order if n not in spec.output_names]
    return getattr(getattr(torch.ops, ns), spec.snake)(*(cann.get(n, defaults.get(n)) for n in inputs_attrs))


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


# --- the autograd pairs and the mode ---------------------------------------------------------------------


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
        call: _Call = ctx.call
        row, mode = call.row, call.mode
        with torch._C.DisableTorchFunction():  # the backward's own tensor work is not the model's
            *tensors, result = ctx.saved_tensors
            needs = ctx.needs_input_grad[1:]
            only_grad_of = all(n == row.grad_of or not need for n, need in zip(row.tensors, needs))
            if row.backward is not None and row.backward_args is not None and only_grad_of:
                cann = row.backward_args(call.args, grad, result)
                if mode.can_run(row.backward, cann):
                    g = mode.run(row.backward, cann)
                    return (None, *(g if n == row.grad_of else None for n in row.tensors))
            # eager: autograd through the eager forward, on the saved inputs
            with torch.enable_grad():
                leaves = [None if t is None else t.detach().requires_grad_(need) for t, need in zip(tensors, needs)]
                swap = {id(call.args[n]): leaf for n, leaf in zip(row.tensors, leaves) if leaf is not None}
                out = mode.eager(row.name + " backward", call, swap)
                wanted = [t for t in leaves if t is not None and t.requires_grad]
                grads = iter(torch.autograd.grad(out, wanted, grad))
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
        if found is not None:
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

    Tensors must be on the CPU (others run eagerly). A backward run after the block (``loss.backward()``
    outside it) still uses the generated backward ops of the forwards recorded inside it.

    Raises:
        KeyError: unknown product.
        codegen.build.BuildError: an op failed to build (on its first call).
        codegen.AclnnError: a generated op returned a non-zero status.
    """
    mode = _Mode(product)
    with mode:
        yield mode.report
