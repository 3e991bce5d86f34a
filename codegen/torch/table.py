"""The torch functions the generated ops stand for (:data:`TORCH_OPS`): per row, the torch callables, how a
call's arguments bind, and the aclnn APIs of its forward and gradient with their parameters by CANN name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

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


def _bce_takes(a: Args) -> bool:
    """A ``binary_cross_entropy`` call both sides take: :func:`_loss_takes`, and every input value in
    ``[0, 1]`` (PyTorch's CPU kernel raises otherwise, where the aclnn API computes a value; NaN fails too)."""
    t = a["input"]
    if not _loss_takes(a) or not isinstance(t, torch.Tensor) or not t.is_floating_point():
        return False
    if t.numel() == 0:
        return True
    with torch._C.DisableTorchFunction():
        smallest, largest = torch.aminmax(t.detach())
        return bool(smallest >= 0) and bool(largest <= 1)


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


def _layer_norm_stub(
    input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Args:
    return {"input": input, "normalized_shape": tuple(normalized_shape), "weight": weight, "bias": bias, "eps": eps}


def _index_select_stub(input: Any, dim: int, index: Any) -> Args:
    return {"input": input, "dim": dim, "index": index}


def _take_stub(input: Any, index: Any) -> Args:
    return {"input": input, "index": index}


def _gather_stub(input: Any, dim: int, index: Any, *, sparse_grad: bool = False) -> Args:
    return {"input": input, "dim": dim, "index": index, "sparse_grad": sparse_grad}


def _index_add_stub(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Args:
    return {"input": input, "dim": dim, "index": index, "source": source, "alpha": alpha}


#: Source dtypes PyTorch 2.13's CPU kernels of ``gather`` and ``take`` do not implement (NotImplementedError).
_NO_CPU_GATHER = (torch.uint16, torch.uint32, torch.uint64)


def _indices_within(index: Any, dtypes: tuple[Any, ...], low: int, high: int) -> bool:
    """Whether PyTorch itself takes ``index``: a CPU tensor of one of ``dtypes`` whose values all lie in
    ``[low, high)``. The generated index ops also take what PyTorch refuses (an index outside the source gives
    zeros, CANN's index dtypes), but the eager backward of such a forward would raise, so a call PyTorch
    refuses runs eagerly and raises PyTorch's error (a tensor on another device, a meta one included, runs
    eagerly too)."""
    if not isinstance(index, torch.Tensor) or index.dtype not in dtypes or index.device.type != "cpu":
        return False
    if index.numel() == 0:
        return True
    with torch._C.DisableTorchFunction():
        smallest, largest = torch.aminmax(index)  # one pass over the index
        return int(smallest) >= low and int(largest) < high


def _source(a: Args) -> torch.Tensor | None:
    """``input`` when it is a CPU tensor (other devices run eagerly)."""
    t = a["input"]
    return t if isinstance(t, torch.Tensor) and t.device.type == "cpu" else None


def _dim_size(a: Args) -> int | None:
    """The size of ``input`` along ``dim`` (None: not a CPU tensor, or dim outside its rank)."""
    t, dim = _source(a), a["dim"]
    if t is None or not isinstance(dim, int):
        return None
    rank = max(t.dim(), 1)
    if not -rank <= dim < rank:
        return None
    return int(t.shape[dim]) if t.dim() else 1


def _index_select_takes(a: Args) -> bool:
    """``torch.index_select``'s own rules: an int32 or int64 index of at most one dim, values in [0, A)."""
    size, index = _dim_size(a), a["index"]
    if size is None or not isinstance(index, torch.Tensor) or index.dim() > 1:
        return False
    return _indices_within(index, (torch.int32, torch.int64), 0, size)


def _take_takes(a: Args) -> bool:
    """``torch.take``'s own rules: an int64 index with values in [-numel, numel), a source dtype its CPU
    kernel implements."""
    t = _source(a)
    if t is None or t.dtype in _NO_CPU_GATHER:
        return False
    return _indices_within(a["index"], (torch.int64,), -t.numel(), t.numel())


def _gather_takes(a: Args) -> bool:
    """``torch.gather``'s own rules: an int32 or int64 index of the source's rank (0-d counts as 1), no larger
    than the source in any dim but ``dim``, values in [0, A) along ``dim``; a source dtype its CPU kernel
    implements; ``sparse_grad=False``."""
    t, index, size = _source(a), a["index"], _dim_size(a)
    if a["sparse_grad"] or t is None or size is None or not isinstance(index, torch.Tensor):
        return False
    if t.dtype in _NO_CPU_GATHER or max(index.dim(), 1) != max(t.dim(), 1):
        return False
    dim = a["dim"] % max(t.dim(), 1)
    sizes, wanted = (list(t.shape) or [1]), (list(index.shape) or [1])
    if any(w > s for d, (w, s) in enumerate(zip(wanted, sizes)) if d != dim):
        return False
    return _indices_within(index, (torch.int32, torch.int64), 0, size)


def _index_add_takes(a: Args) -> bool:
    """``torch.index_add``'s own rules: an int32 or int64 index of at most one dim, values in [0, A); a CPU
    source of the input's dtype and rank (0-d counts as 1) with the input's sizes but ``dim``'s, where it has
    numel(index); a real number alpha (not a bool)."""
    t, index, source, size = _source(a), a["index"], a["source"], _dim_size(a)
    if t is None or size is None or not isinstance(index, torch.Tensor) or index.dim() > 1:
        return False
    if not isinstance(source, torch.Tensor) or source.dtype != t.dtype or source.device.type != "cpu":
        return False
    alpha = a["alpha"]
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return False
    dim = a["dim"] % max(t.dim(), 1)
    sizes, given = (list(t.shape) or [1]), (list(source.shape) or [1])
    if len(given) != len(sizes) or any(
        g != (index.numel() if d == dim else s) for d, (g, s) in enumerate(zip(given, sizes))
    ):
        return False
    return _indices_within(index, (torch.int32, torch.int64), 0, size)


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
            # no weight: gamma of ones (aclnnRmsNorm's gamma is required), in the input's dtype
            "gamma": a["weight"]
            if a["weight"] is not None
            else torch.ones(a["normalized_shape"], dtype=a["input"].dtype),
            "epsilon": float(torch.finfo(a["input"].dtype).eps if a["eps"] is None else a["eps"]),
        },
        takes=lambda a: a["weight"] is None or tuple(a["weight"].shape) == a["normalized_shape"],
    ),
    TorchOp(
        "layer_norm",
        ((F.layer_norm, _layer_norm_stub), (torch.layer_norm, _layer_norm_stub)),
        ("input", "weight", "bias"),
        forward="LayerNorm",
        forward_args=lambda a: {
            "input": a["input"],
            "normalizedShape": list(a["normalized_shape"]),
            "weightOptional": a["weight"],
            "biasOptional": a["bias"],
            "eps": float(a["eps"]),
        },
    ),
    TorchOp(
        "index_select",
        ((torch.index_select, _index_select_stub), (torch.Tensor.index_select, _index_select_stub)),
        ("input", "index"),
        forward="IndexSelect",
        forward_args=lambda a: {"self": a["input"], "dim": int(a["dim"]), "index": a["index"]},
        takes=_index_select_takes,
    ),
    TorchOp(
        "take",
        ((torch.take, _take_stub), (torch.Tensor.take, _take_stub)),
        ("input", "index"),
        forward="Take",
        forward_args=lambda a: {"self": a["input"], "index": a["index"]},
        takes=_take_takes,
    ),
    TorchOp(
        "gather",
        ((torch.gather, _gather_stub), (torch.Tensor.gather, _gather_stub)),
        ("input", "index"),
        forward="Gather",
        forward_args=lambda a: {"self": a["input"], "dim": int(a["dim"]), "index": a["index"]},
        takes=_gather_takes,
    ),
    TorchOp(
        "index_add",
        ((torch.index_add, _index_add_stub), (torch.Tensor.index_add, _index_add_stub)),
        ("input", "index", "source"),
        forward="IndexAdd",
        forward_args=lambda a: {
            "self": a["input"],
            "dim": int(a["dim"]),
            "index": a["index"],
            "source": a["source"],
            "alpha": a["alpha"],
        },
        takes=_index_add_takes,
    ),
    TorchOp(
        "embedding",
        ((F.embedding, _embedding_stub),),
        ("input", "weight"),
        forward="Embedding",
        forward_args=lambda a: {"weight": a["weight"], "indices": a["input"]},
        from_cann=lambda c: {
            "input": c["indices"],
            "weight": c["weight"],
            "padding_idx": None,
            "plain": True,
            "scale_grad_by_freq": False,
        },
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
        takes=_bce_takes,
        from_cann=_loss_from_cann,
    ),
    _loss("soft_margin_loss", F.soft_margin_loss, "SoftMarginLoss", "SoftMarginLossBackward"),
)
