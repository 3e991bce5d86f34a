"""The functions an expression may call, implemented in Python: numeric ones (C-like at the edges) and
tensor queries and shape constructors."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence

from codegen.spec.expr.values import ExprEvalError, _int64, _number


def _fn_abs(x: object) -> int | float:
    v = _number(x, "abs()")
    return math.fabs(v) if isinstance(v, float) else _int64(abs(v), f"abs({v})")


def _fn_min(*args: object) -> int | float:
    return _pick(args, "min", lambda cand, cur: cand < cur)


def _fn_max(*args: object) -> int | float:
    return _pick(args, "max", lambda cand, cur: cand > cur)


def _pick(args: Sequence[object], fn: str, better: Callable[[float, float], bool]) -> int | float:
    if len(args) < 2:
        raise ExprEvalError(f"{fn}() needs at least 2 arguments")
    vals = [_number(a, f"{fn}()") for a in args]
    mixed = any(isinstance(v, float) for v in vals)
    best = vals[0]
    for v in vals[1:]:
        if better(float(v), float(best)) if mixed else better(v, best):
            best = v
    return float(best) if mixed else best


def _fn_sqrt(x: object) -> float:
    v = float(_number(x, "sqrt()"))
    return math.nan if v < 0 else math.sqrt(v)


def _fn_exp(x: object) -> float:
    try:
        return math.exp(float(_number(x, "exp()")))
    except OverflowError:
        return math.inf


def _fn_log(x: object) -> float:
    v = float(_number(x, "log()"))
    if v == 0:
        return -math.inf
    return math.nan if v < 0 else math.log(v)


def _fn_sigmoid(x: object) -> float:
    return 1.0 / (1.0 + _fn_exp(-float(_number(x, "sigmoid()"))))


def _fn_tanh(x: object) -> float:
    return math.tanh(float(_number(x, "tanh()")))


def _fn_erf(x: object) -> float:
    return math.erf(float(_number(x, "erf()")))


def _fn_log1p(x: object) -> float:
    v = float(_number(x, "log1p()"))
    if v == -1:
        return -math.inf
    return math.nan if v < -1 else math.log1p(v)


def _fn_rsqrt(x: object) -> float:
    v = float(_number(x, "rsqrt()"))
    if v == 0:
        return math.copysign(math.inf, v)
    return math.nan if v < 0 else 1.0 / math.sqrt(v)


def _fn_sign(x: object) -> float:
    v = float(_number(x, "sign()"))
    return 1.0 if v > 0 else -1.0 if v < 0 else v


def _fn_clamp(x: object, lo: object, hi: object) -> float:
    v = float(_number(x, "clamp()"))
    v = max(v, float(_number(lo, "clamp()")))
    return min(v, float(_number(hi, "clamp()")))


def _fn_pow(x: object, p: object) -> float:
    base, exponent = float(_number(x, "pow()")), float(_number(p, "pow()"))
    try:
        return math.pow(base, exponent)
    except ValueError:
        return math.nan
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _fn_where(cond: object, a: object, b: object) -> int | float:
    if not isinstance(cond, bool):
        raise ExprEvalError(f"where(): the condition must be a boolean, got {cond!r}")
    va, vb = _number(a, "where()"), _number(b, "where()")
    picked = va if cond else vb
    return float(picked) if isinstance(va, float) or isinstance(vb, float) else picked


def _fn_relu(x: object) -> int | float:
    v = _number(x, "relu()")
    if isinstance(v, float):
        return v if v > 0 else 0.0
    return v if v > 0 else 0


#: Python implementations of the numeric functions, C-like at the edges (``log(0) == -inf``,
#: ``sqrt(-1)`` is NaN, ``exp`` overflows to inf, ``sigmoid(-1000) == 0.0``); they match
#: :data:`~codegen.spec.expr.DEFAULT_CPP_FUNCTIONS`. ``min``/``max`` of mixed ints and floats give a float
#: (C++'s common type).
NUMERIC_FUNCTIONS: Mapping[str, Callable[..., object]] = {
    "abs": _fn_abs,
    "min": _fn_min,
    "max": _fn_max,
    "sqrt": _fn_sqrt,
    "exp": _fn_exp,
    "log": _fn_log,
    "sigmoid": _fn_sigmoid,
    "relu": _fn_relu,
    "tanh": _fn_tanh,
    "erf": _fn_erf,
    "log1p": _fn_log1p,
    "rsqrt": _fn_rsqrt,
    "sign": _fn_sign,
    "clamp": _fn_clamp,
    "pow": _fn_pow,
    "where": _fn_where,
}


def as_shape(value: object) -> tuple[int, ...]:
    """The shape of a tensor-like value: a tuple/list of ints, or any object with a ``shape`` (NumPy array).

    Raises:
        ExprEvalError: ``value`` has no shape or a dimension is not a non-negative int64.
    """
    dims = value if isinstance(value, (tuple, list)) else getattr(value, "shape", None)
    if dims is None:
        raise ExprEvalError(f"expected a tensor or a shape, got {type(value).__name__}")
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or int(d) < 0:
            raise ExprEvalError(f"invalid dimension {d!r} in shape {tuple(dims)!r}")
        out.append(_int64(int(d), "dimension"))
    return tuple(out)


def _fn_numel(t: object) -> int:
    n = 1
    for d in as_shape(t):
        n = _int64(n * d, "numel")
    return n


def _fn_rank(t: object) -> int:
    return len(as_shape(t))


def _fn_dim(t: object, axis: object) -> int:
    shape = as_shape(t)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ExprEvalError(f"dim(): axis must be an integer, got {axis!r}")
    if not -len(shape) <= axis < len(shape):
        raise ExprEvalError(f"dim(): axis {axis} is out of range for rank {len(shape)}")
    return shape[axis]


def _fn_dtype(t: object) -> object:
    if not hasattr(t, "dtype"):
        raise ExprEvalError(f"dtype(): {type(t).__name__} has no dtype")
    return t.dtype


def _fn_present(t: object) -> bool:
    """Whether the call passed the tensor: an absent one (a null nullable output or optional input) is None."""
    return t is not None


def _fn_broadcast(*tensors: object) -> tuple[int, ...]:
    """NumPy broadcasting of the shapes of ``tensors``."""
    shapes = [as_shape(t) for t in tensors]
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        size = 1
        for s in shapes:
            d = s[i - rank + len(s)] if i - rank + len(s) >= 0 else 1
            if d != 1 and size != 1 and d != size:
                raise ExprEvalError(f"broadcast(): shapes {', '.join(str(list(s)) for s in shapes)} do not broadcast")
            if d != 1:
                size = d
        out.append(size)
    return tuple(out)


def _fn_shape(*dims: object) -> tuple[int, ...]:
    return as_shape(tuple(dims))


def _fn_reduced(t: object, k: object) -> tuple[int, ...]:
    """The shape of ``t`` with its last ``k`` dims set to 1 (a reduction over them, dims kept)."""
    shape = as_shape(t)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(shape):
        raise ExprEvalError(f"reduced(): k must be an integer in [0, {len(shape)}], got {k!r}")
    return shape[: len(shape) - k] + (1,) * k


def _fn_replaced(t: object, axis: object, n: object) -> tuple[int, ...]:
    """The shape of ``t`` with dim ``axis`` (negative counts from the end) set to ``n``; a 0-d ``t`` takes
    ``axis`` 0 or -1 (its one element) and stays 0-d (an index-select of a 0-d tensor is 0-d)."""
    shape = as_shape(t)
    for name, v in (("axis", axis), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ExprEvalError(f"replaced(): {name} must be an integer, got {v!r}")
    assert isinstance(axis, int) and isinstance(n, int)
    rank = max(len(shape), 1)
    if not -rank <= axis < rank:
        raise ExprEvalError(f"replaced(): axis {axis} is out of range for rank {len(shape)}")
    if n < 0:
        raise ExprEvalError(f"replaced(): n must be non-negative, got {n}")
    if not shape:
        return ()
    k = axis % rank
    return (*shape[:k], _int64(n, "dimension"), *shape[k + 1 :])


def _fn_inserted(t: object, axis: object, s: object) -> tuple[int, ...]:
    """The shape of ``t`` with dim ``axis`` (in ``[0, rank)``) replaced by all the dims of ``s`` (a tensor or a
    shape): a gather of ``t`` along ``axis`` by an index of shape ``s`` (Embedding: ``inserted(weight, 0,
    indices)`` is ``indices.shape + weight.shape[1:]``)."""
    shape, inner = as_shape(t), as_shape(s)
    if isinstance(axis, bool) or not isinstance(axis, int) or not 0 <= axis < len(shape):
        raise ExprEvalError(f"inserted(): axis must be an integer in [0, {len(shape)}), got {axis!r}")
    return (*shape[:axis], *inner, *shape[axis + 1 :])


#: Python implementations of the tensor functions. A tensor value is anything :func:`as_shape` accepts
#: (``dtype(t)`` reads ``t.dtype``; ``present(t)`` is False for None, an absent tensor). ``broadcast`` and
#: ``shape`` return shape tuples.
TENSOR_FUNCTIONS: Mapping[str, Callable[..., object]] = {
    "numel": _fn_numel,
    "rank": _fn_rank,
    "dim": _fn_dim,
    "dtype": _fn_dtype,
    "present": _fn_present,
    "broadcast": _fn_broadcast,
    "shape": _fn_shape,
    "reduced": _fn_reduced,
    "replaced": _fn_replaced,
    "inserted": _fn_inserted,
}

#: The default ``functions`` of :func:`~codegen.spec.expr.evaluate`.
DEFAULT_FUNCTIONS: Mapping[str, Callable[..., object]] = {**NUMERIC_FUNCTIONS, **TENSOR_FUNCTIONS}
