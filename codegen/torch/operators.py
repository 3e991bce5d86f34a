"""A product's generated ops as ``torch.library`` custom operators: their namespace and schema, a CPU kernel
calling the built library, and a backward API as a forward operator's autograd formula."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from typing import Any

import ml_dtypes
import numpy as np
import torch

from codegen import registry
from codegen.runner import OpCallable, ScalarArg, compile_op
from codegen.runner.arguments import call_attrs
from codegen.spec.model import OpSpec
from codegen.specs import load_project
from codegen.torch.table import TORCH_OPS, Args, TorchOp
from codegen.types import TORCH_SCHEMA_TYPES

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
    """The ``torch.library`` schema of an op: ``softmax(Tensor self, int dim) -> Tensor``; an aclTensorList
    parameter or output is ``Tensor[]`` (``(Tensor[] x) -> Tensor[]``); the outputs of an op with an output
    mask are ``Tensor?`` (one its mask switches off is None, as ``native_layer_norm_backward``'s undefined
    tensor)."""
    attrs = {a.name: a for a in spec.attrs}
    inputs = {t.name: t for t in spec.inputs}
    params = []
    for name in spec.aclnn_order:
        if name in inputs:
            kind = "Tensor[]" if inputs[name].is_list else "Tensor"
            params.append(f"{kind}{'?' if inputs[name].optional else ''} {name}")
        elif name in attrs:
            params.append(f"{TORCH_SCHEMA_TYPES[attrs[name].type]} {name}")
    # an output an output mask may switch off comes back as None (PyTorch's undefined tensor): ``Tensor?``
    maybe = "?" if spec.output_mask else ""
    kinds = ["Tensor[]" if t.is_list else f"Tensor{maybe}" for t in spec.outputs]
    outs = kinds[0] if len(kinds) == 1 else "(" + ", ".join(kinds) + ")"
    return f"{spec.snake}({', '.join(params)}) -> {outs}"


def _arg_to_numpy(v: Any) -> Any:
    """A custom operator's argument for the Python API: a tensor as an array, a tensor list as a list of
    arrays, anything else as it is."""
    if isinstance(v, torch.Tensor):
        return _to_numpy(v)
    if isinstance(v, (list, tuple)) and v and all(isinstance(t, torch.Tensor) for t in v):
        return [_to_numpy(t) for t in v]
    return v


def _out_to_torch(o: Any) -> Any:
    """An output of the Python API as the custom operator returns it: an array as a tensor, a list of arrays
    (an aclTensorList output) as a list of tensors, None (an output not produced) as None."""
    if o is None:  # an output the call's output mask switched off
        return None
    return [_to_torch(a) for a in o] if isinstance(o, list) else _to_torch(o)


@cache
def _callable(op: str, product: str) -> OpCallable:
    return compile_op(op, product)


def integer_scalars(spec: OpSpec, params: Args) -> Args:
    """``params`` (by CANN name, tensors as arrays) with each Python int given for a ``scalar`` attr that takes
    INT64 made an INT64 aclScalar (``ScalarArg(value, "INT64")``) where the first input holds integer arrays
    and the value is within their dtype's range: PyTorch keeps an integer tensor's dtype with such a number
    (``torch._foreach_add`` of an int32 list and 3 is int32), and ops-nn's tensor-list V2 APIs take an INT32 list's
    scalar as INT32 or INT64 only, where a plain Python number is a DOUBLE aclScalar (161002: the call would
    run eagerly). Any other value stays as it is (a float with an integer list: PyTorch promotes it, and the
    API's 161002 leaves the call to eager PyTorch)."""
    first = params.get(spec.inputs[0].name) if spec.inputs else None
    listed = first if isinstance(first, list) else [first]
    arrays = [a for a in listed if isinstance(a, np.ndarray) and a.dtype.kind == "i"]
    if not arrays or len(arrays) != len(listed):
        return params
    info = np.iinfo(arrays[0].dtype)
    out = dict(params)
    for a in spec.attrs:
        v = params.get(a.name)
        if not isinstance(v, int) or isinstance(v, bool) or not int(info.min) <= v <= int(info.max):
            continue
        if a.type == "scalar" and "INT64" in a.scalar_dtypes:
            out[a.name] = ScalarArg(v, "INT64")
    return out


def _kernel(spec: OpSpec, product: str) -> Callable[..., Any]:
    """The CPU kernel of an op's custom operator: tensors to arrays (a Python int scalar beside integer
    tensors an INT64 aclScalar, :func:`integer_scalars`), both aclnn phases, arrays back."""
    names = [n for n in spec.aclnn_order if n in {t.name for t in spec.inputs} | {a.name for a in spec.attrs}]

    def kernel(*args: Any) -> Any:
        params: Args = integer_scalars(spec, {n: _arg_to_numpy(v) for n, v in zip(names, args)})
        out = _callable(spec.snake, product)(deterministic=torch.are_deterministic_algorithms_enabled(), **params)
        return tuple(_out_to_torch(o) for o in out) if isinstance(out, tuple) else _out_to_torch(out)

    return kernel


def _numpy_dtype(dtype: torch.dtype) -> np.dtype[Any]:
    """The NumPy dtype the custom operators convert a tensor of ``dtype`` to (BF16: ``ml_dtypes.bfloat16``),
    from the names alone (no tensor is made: under a fake mode it would be fake)."""
    return np.dtype(ml_dtypes.bfloat16) if dtype == torch.bfloat16 else np.dtype(str(dtype).removeprefix("torch."))


def _torch_dtype(dtype: np.dtype[Any]) -> torch.dtype:
    """The tensor dtype of an output array of ``dtype`` (``float32`` -> ``torch.float32``; ``ml_dtypes``'
    ``bfloat16`` -> ``torch.bfloat16``)."""
    found = getattr(torch, np.dtype(dtype).name)
    assert isinstance(found, torch.dtype)
    return found


def _fake(spec: OpSpec) -> Callable[..., Any]:
    """The fake (meta) kernel of an op's custom operator, for tracing (``torch.compile``, ``FakeTensorMode``,
    ``meta`` tensors): empty tensors of the outputs' shapes and dtypes, on the first input's device, from the
    family's output inference (what :class:`codegen.runner.OpCallable` allocates when the caller passes no
    output), given arrays of the inputs' shapes and dtypes whose values are never read. Nothing is built or
    run, so the status phase 1 would answer is not checked: the real call raises it."""
    names = [n for n in spec.aclnn_order if n in {t.name for t in spec.inputs} | {a.name for a in spec.attrs}]
    inputs = {t.name: t for t in spec.inputs}
    attr_names = {a.name for a in spec.attrs}

    def shaped(t: Any) -> np.ndarray | None:
        if t is None:
            return None
        return np.broadcast_to(np.zeros((), _numpy_dtype(t.dtype)), tuple(int(d) for d in t.shape))

    def fake(*args: Any) -> Any:
        params = dict(zip(names, args))
        tensors = [t for v in params.values() for t in (v if isinstance(v, (list, tuple)) else [v])]
        device = next((t.device for t in tensors if isinstance(t, torch.Tensor)), torch.device("cpu"))
        arrays: dict[str, Any] = {
            n: (None if v is None else tuple(shaped(e) for e in v)) if inputs[n].is_list else shaped(v)
            for n, v in params.items()
            if n in inputs
        }
        attrs = call_attrs(spec, {n: v for n, v in params.items() if n in attr_names})
        inferred = registry.family(spec.family).infer_outputs(spec, arrays, attrs)

        def empty(a: Any) -> Any:
            if a is None:
                return None
            if isinstance(a, (list, tuple)):
                return [empty(e) for e in a]
            return torch.empty(a.shape, dtype=_torch_dtype(a.dtype), device=device)

        off = spec.masked_off(attrs)  # not produced: None, as the real kernel returns
        outs = tuple(None if n in off else empty(inferred[n]) for n in spec.output_names)
        return outs[0] if len(outs) == 1 else outs

    return fake


def register(product: str) -> str:
    """Defines every op of ``product`` (each spec listing it) as a custom operator and returns the
    namespace (``torch.ops.<namespace>.<snake name>``). Idempotent; ops are built on first call. Each has a
    CPU kernel (also the kernel of a call with no tensor, an empty list), a fake kernel (:func:`_fake`) and an
    autograd formula.

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
                    kernel = _kernel(spec, prod)
                    lib.impl(spec.snake, kernel, "CPU")
                    torch.library.register_fake(f"{ns}::{spec.snake}", _fake(spec), lib=lib)
                    # a call with no tensor (an empty list) has no dispatch key: PyTorch's dispatcher gives it
                    # the CompositeExplicitAutograd kernel (its Undefined entry), which is the CPU kernel
                    lib.impl(spec.snake, kernel, "CompositeExplicitAutograd")
            by_op = {s.op: s for s in specs.values() if prod in s.products}
            differentiable: set[str] = set()
            for row in TORCH_OPS:
                forward, backward = by_op.get(row.forward or ""), by_op.get(row.backward or "")
                if forward is not None and backward is not None and _register_autograd(ns, row, forward, backward):
                    differentiable.add(forward.op)
            for spec in by_op.values():
                if spec.op not in differentiable:
                    _register_no_gradient(ns, spec)
            _LIBRARIES[ns] = lib
    return ns


class _NotDifferentiable(torch.autograd.Function):
    """Passes a gradient computed by a generated backward op through unchanged, tied to the tensors it was
    computed from, so that differentiating it again raises instead of treating it as a constant."""

    @staticmethod
    def forward(ctx: Any, name: str, g: torch.Tensor, *sources: torch.Tensor) -> torch.Tensor:
        ctx.name = name
        return g.detach().clone()

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            f"the gradient of torch.ops.{ctx.name} comes from a generated backward op, which is not itself "
            "differentiable: a double backward (a gradient of this gradient) is not supported; inside "
            "codegen.torch.ops() the torch function computes it eagerly"
        )


def _register_no_gradient(ns: str, spec: OpSpec) -> None:
    """Gives an op without a generated backward API an autograd formula that raises when a backward pass
    reaches it, instead of PyTorch's default for a custom operator without one (a warning, and no gradient for
    the inputs: ``x.grad`` silently stays None)."""
    name = f"{ns}.{spec.snake}"

    def gradient(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            f"torch.ops.{name} has no gradient: the project generates no backward op that differentiates "
            f"{spec.aclnn_name}; inside codegen.torch.ops() the torch function runs the generated forward and "
            "computes its gradient eagerly"
        )

    torch.library.register_autograd(f"{ns}::{spec.snake}", gradient)


def _register_autograd(ns: str, row: TorchOp, forward: OpSpec, backward: OpSpec) -> bool:
    """Gives the forward API's custom operator the backward API's as its gradient (of the tensor the row's
    ``grad_of`` names; the other inputs get none). False, registering nothing, when the row does not say how
    to call the backward API."""
    names = [n for n in forward.aclnn_order if n not in forward.output_names]
    from_cann, forward_args, backward_args, grad_of = row.from_cann, row.forward_args, row.backward_args, row.grad_of
    if from_cann is None or forward_args is None or backward_args is None or grad_of is None:
        return False

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        result = output[0] if isinstance(output, tuple) else output
        ctx.attrs = {n: v for n, v in zip(names, inputs) if not isinstance(v, torch.Tensor)}
        ctx.tensor_names = [n for n, v in zip(names, inputs) if isinstance(v, torch.Tensor)]
        ctx.save_for_backward(*(v for v in inputs if isinstance(v, torch.Tensor)), result)

    def gradient(ctx: Any, grad: Any) -> tuple[Any, ...]:
        *tensors, result = ctx.saved_tensors
        bound = from_cann(dict(ctx.attrs, **dict(zip(ctx.tensor_names, tensors))))
        of = next(n for n, v in forward_args(bound).items() if v is bound[grad_of])  # its CANN name
        wanted = [n for n, needed in zip(names, ctx.needs_input_grad) if needed and n != of]
        if wanted:  # a gradient the backward API does not compute: raise rather than leave .grad None
            raise RuntimeError(
                f"torch.ops.{ns}.{forward.snake} has a gradient for {of} only (from {backward.aclnn_name}); "
                f"no generated op computes the gradient of {', '.join(wanted)}, which requires grad; inside "
                "codegen.torch.ops() the torch function computes it eagerly"
            )
        with torch.no_grad():
            g = _call(ns, backward, backward_args(bound, grad, result))
        if torch.is_grad_enabled():  # create_graph=True: differentiating g must raise, not see a constant
            g = _NotDifferentiable.apply(f"{ns}.{forward.snake}", g, grad, *tensors)
        return tuple(g if n == of else None for n in names)

    torch.library.register_autograd(f"{ns}::{forward.snake}", gradient, setup_context=setup_context)
    return True


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


def _status(product: str, spec: OpSpec, cann: Args) -> int:
    """The status phase 1 of ``spec``'s generated API on ``product`` answers for a call with the parameters
    ``cann`` (by CANN name; an attribute left out takes the spec's default): 0 when the API takes it. Nothing
    is launched; the L2 API's own checks decide (the product's dtypes, dtype combinations, promotion, shape
    constraints)."""
    defaults = {a.name: a.default for a in spec.attrs}
    params: dict[str, Any] = {
        n: _arg_to_numpy(v)
        for n in spec.aclnn_order
        if n not in spec.output_names
        for v in [cann.get(n, defaults.get(n))]
    }
    params = integer_scalars(spec, params)
    fn = _callable(spec.snake, product)
    status, _ = fn.phase1_status(deterministic=torch.are_deterministic_algorithms_enabled(), **params)
    return status
