"""The status matrix of ``opgen check``: error cases derived from the whole spec, for every family.

From one valid call (``base``: arrays by tensor name, attrs by name) the matrix derives, for every tensor of
the spec in turn (inputs and outputs), a call that breaks exactly one documented rule, and expects the
exact ``aclnnStatus`` of CANN's check order (reference/ascend-platform.md, "aclnn conventions": null
``workspaceSize``/``executor`` and null tensors 161001 first, then dtype, rank, shape relations and format
161002):

- the base call itself is accepted (status 0), so a broken base cannot make the matrix pass vacuously;
- every dtype the tensor does not list on the product (all ``aclDataType`` values the checker can build);
- every tensor at once in a dtype none of them lists on the product but one of them takes on another product
  (a spec's ``product_dtypes``: all of them, so an L2 API taking another product's list fails here);
- every tensor at once in a dtype none of them lists (the first :data:`MAX_COMMON_DTYPES` such dtypes);
- every output in a shape with the right element count but other dims (dims reversed, flattened, a
  trailing 1);
- every rank bound: one rank below the minimum (a 0-d tensor when the minimum is 1) and one above the
  maximum, keeping the element count where it can;
- every rejected format: the device-private formats (FRACTAL_NZ, NC1HWC0, FRACTAL_Z, NDC1HWC0) that the tensor does not
  declare (a spec without format information declares ND only, which is what the generated L2 API
  and OpDef accept);
- the order itself: a null tensor together with another tensor's unsupported dtype is 161001, not 161002;
- every array attr (``int_array``, ``bool_array``) null (161001, also beside an unsupported dtype), one
  element shorter than its shortest length and one longer than its longest (161002).

Each family supplies ``base``; a base whose tensors with a minimum rank of 1 hold one element lets the
0-d case break the rank rule alone (otherwise a shape relation would reject it too).

A tensor list (``list: true``) is in ``base`` as a tuple of arrays: a dtype case converts every tensor of the
list, a shape or rank case changes its first tensor, a format case gives every tensor the format, and a null
case passes a null list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from codegen.check.cases import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, Case
from codegen.runner import numpy_dtype
from codegen.spec.model import PRIVATE_ACL_FORMATS, DType, OpSpec, Product, TensorSpec

#: Device-private layouts the matrix tries (``codegen.spec.model.PRIVATE_ACL_FORMATS``): never accepted by a
#: tensor that does not declare them.
PRIVATE_FORMATS = tuple(PRIVATE_ACL_FORMATS)
#: The formats a tensor accepts when its spec says nothing about formats (the templates' L2 API checks
#: ``GetStorageFormat() == FORMAT_ND`` and the OpDef registers ``FORMAT_ND``).
DEFAULT_FORMATS = ("ND",)


def accepted_formats(tensor: TensorSpec) -> tuple[str, ...]:
    """The formats ``tensor`` accepts: its spec's ``formats`` when the model has them, else ND."""
    declared = getattr(tensor, "formats", None)
    if not declared:
        return DEFAULT_FORMATS
    return tuple(str(getattr(f, "name", f)) for f in declared)


def _with_rank(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """A shape of ``rank`` dims holding the elements of ``shape`` (leading dims merged, or leading 1s
    added); rank 0 gives ``()`` whatever the element count."""
    if rank == 0:
        return ()
    if len(shape) >= rank:
        keep = len(shape) - rank + 1
        return (int(np.prod(shape[:keep])), *shape[keep:])
    return (1,) * (rank - len(shape)) + tuple(shape)


def _other_dims(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes with the element count of ``shape`` but other dims: reversed, flattened, a trailing 1."""
    found: list[tuple[int, ...]] = []
    for s in (tuple(reversed(shape)), (int(np.prod(shape)),), (*shape, 1)):
        if s != tuple(shape) and s not in found:
            found.append(s)
    return found


def _as_dtype(array: Any, d: DType) -> Any:
    """``array`` converted to ``d``; a tensor list's tuple with every tensor converted."""
    if isinstance(array, tuple):
        return tuple(_as_dtype(a, d) for a in array)
    with np.errstate(all="ignore"):
        return np.asarray(array).astype(numpy_dtype(d))


def _is_tensor(value: Any) -> bool:
    """Whether ``value`` is a tensor of a call: an array, or a tensor list's non-empty tuple of arrays."""
    if isinstance(value, tuple):
        return bool(value) and all(isinstance(a, np.ndarray) for a in value)
    return isinstance(value, np.ndarray)


def _first(value: Any) -> np.ndarray:
    """The array a shape or rank case changes: the array itself, or a tensor list's first tensor."""
    return value[0] if isinstance(value, tuple) else value


def _replace_first(value: Any, array: np.ndarray) -> Any:
    """``array`` in place of :func:`_first` of ``value``."""
    return (array, *value[1:]) if isinstance(value, tuple) else array


#: Most dtypes the "every tensor in one dtype" cases try (in ``DType`` order).
MAX_COMMON_DTYPES = 4


def status_matrix(spec: OpSpec, product: Product, base: dict[str, Any], label: str) -> Iterator[Case]:
    """The derived status cases of ``spec`` on ``product`` (see the module docstring).

    Args:
        spec: the op.
        product: the product (its dtype lists decide which dtypes are unsupported).
        base: a call the op accepts on ``product``: every tensor of the spec that is not optional as a NumPy
            array, every attr.
        label: the ``dtype`` column of the cases (e.g. ``FLOAT`` or ``FLOAT/INT64``).
    """
    op = spec.snake
    tensors = [t for t in (*spec.inputs, *spec.outputs) if _is_tensor(base.get(t.name))]

    def case(name: str, code: int, params: dict[str, Any], mode: str | None = None, **kw: Any) -> Case:
        return Case(op, product.name, label, "status matrix", name, params, expect_status=code, mode=mode, **kw)

    yield case("the matrix's base call -> 0", 0, dict(base))
    unsupported: dict[str, list[DType]] = {}
    for t in tensors:
        array = base[t.name]
        listed = set(t.dtypes_for(product))
        unsupported[t.name] = [d for d in DType if d not in listed]
        for d in unsupported[t.name]:
            yield case(
                f"{t.name} {d.name} unsupported -> 161002",
                ACLNN_ERR_PARAM_INVALID,
                {**base, t.name: _as_dtype(array, d)},
            )
    # every tensor in one dtype none of them lists: each tensor's own dtype check must refuse it (a call
    # whose tensors agree with each other passes the checks that compare them, so only those show)
    common = [d for d in DType if all(d in unsupported[t.name] for t in tensors)]
    elsewhere = [d for d in common if any(d in t.all_dtypes for t in tensors)]
    for d in elsewhere:
        yield case(
            f"every tensor {d.name} (taken on another product) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**base, **{t.name: _as_dtype(base[t.name], d) for t in tensors}},
        )
    common = [d for d in common if d not in elsewhere]
    for d in common[:MAX_COMMON_DTYPES]:
        yield case(
            f"every tensor {d.name} (listed by none) -> 161002",
            ACLNN_ERR_PARAM_INVALID,
            {**base, **{t.name: _as_dtype(base[t.name], d) for t in tensors}},
        )
    for t in spec.outputs:
        value = base.get(t.name)
        if not _is_tensor(value) or _first(value).size < 2:
            continue
        array = _first(value)
        where = f"{t.name}[0]" if isinstance(value, tuple) else t.name
        for s in _other_dims(array.shape):
            p = {**base, t.name: _replace_first(value, np.zeros(s, array.dtype))}
            yield case(f"{where} {list(s)} (same count as {list(array.shape)}) -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    for t in tensors:
        value = base[t.name]
        array = _first(value)
        where = f"{t.name}[0]" if isinstance(value, tuple) else t.name
        lo, hi = t.rank
        if lo > 0:
            s = _with_rank(array.shape, lo - 1)
            low = np.resize(array, s) if s else np.asarray(array.reshape(-1)[0])
            p = {**base, t.name: _replace_first(value, low)}
            yield case(f"{where} rank {lo - 1} {list(s)} (minimum {lo}) -> 161002", ACLNN_ERR_PARAM_INVALID, p)
        s = _with_rank(array.shape, hi + 1)
        p = {**base, t.name: _replace_first(value, array.reshape(s))}
        yield case(f"{where} rank {hi + 1} (maximum {hi}) -> 161002", ACLNN_ERR_PARAM_INVALID, p)
    yield from format_cases(spec, product, base, label)
    yield from array_attr_cases(spec, base, case)
    # CANN's order: every null check before any dtype check.
    for t in tensors:
        if t.optional:
            continue
        other = next((o for o in tensors if o is not t and unsupported[o.name]), None)
        if other is None:
            continue
        bad = unsupported[other.name][0]
        p = {**base, t.name: None, other.name: _as_dtype(base[other.name], bad)}
        yield case(f"null {t.name} with {other.name} {bad.name} -> 161001 (nulls first)", ACLNN_ERR_PARAM_NULLPTR, p)
    for a in spec.attrs:
        other = next((o for o in tensors if unsupported[o.name]), None)
        if a.is_array and other is not None:
            bad = unsupported[other.name][0]
            p = {**base, a.name: None, other.name: _as_dtype(base[other.name], bad)}
            yield case(
                f"null {a.name} with {other.name} {bad.name} -> 161001 (nulls first)", ACLNN_ERR_PARAM_NULLPTR, p
            )
    # the first tensor with an unsupported dtype (a tensor listing every dtype has none)
    first = next((t for t in tensors if unsupported[t.name]), None)
    if first is not None:
        p = {**base, first.name: _as_dtype(base[first.name], unsupported[first.name][0])}
        yield case(
            f"null workspaceSize with {first.name} {unsupported[first.name][0].name} -> 161001 (nulls first)",
            ACLNN_ERR_PARAM_NULLPTR,
            p,
            "null_workspace_size",
        )


def array_attr_cases(spec: OpSpec, base: dict[str, Any], case: Callable[..., Case]) -> Iterator[Case]:
    """For each array attr of ``spec`` (in ``base`` as a tuple): null (161001), and a length one below its
    shortest and one above its longest (161002), made from ``base``'s value (cut, or its last element
    repeated; ones or true when it is empty)."""
    for a in spec.attrs:
        value = base.get(a.name)
        if not a.is_array or a.length is None or not isinstance(value, tuple):
            continue
        yield case(f"null {a.name} -> 161001", ACLNN_ERR_PARAM_NULLPTR, {**base, a.name: None})
        lo, hi = a.length
        fill = value[-1] if value else (True if a.type == "bool_array" else 1)
        for n in (lo - 1, hi + 1):
            resized = tuple(value[:n]) + (fill,) * max(n - len(value), 0)
            yield case(
                f"{a.name} of length {n} (length {lo if lo == hi else f'{lo} to {hi}'}) -> 161002",
                ACLNN_ERR_PARAM_INVALID,
                {**base, a.name: resized},
            )


def format_cases(spec: OpSpec, product: Product, base: dict[str, Any], label: str) -> Iterator[Case]:
    """Every rejected format (161002): the valid call ``base`` with one tensor (input or output) in each
    device-private format (:data:`PRIVATE_FORMATS`) it does not declare; ``label`` is the cases' ``dtype``
    column. Part of :func:`status_matrix`, and usable alone by a family whose other status rules differ."""
    for t in (*spec.inputs, *spec.outputs):
        if not _is_tensor(base.get(t.name)):
            continue
        accepted = accepted_formats(t)
        for f in PRIVATE_FORMATS:
            if f in accepted:
                continue
            yield Case(
                spec.snake,
                product.name,
                label,
                "status matrix",
                f"{t.name} format {f} -> 161002",
                dict(base),
                expect_status=ACLNN_ERR_PARAM_INVALID,
                formats={t.name: f},
            )


__all__ = ["accepted_formats", "format_cases", "status_matrix"]
