"""Host arrays standing for device memory: fresh memory is poisoned, an array's byte span, and the arrays a
call refuses before anything runs (an ``out=`` array it could not write in place, a call beyond int64 or
the memory cap)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from codegen.spec.model import OpSpec


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds  # type: ignore[attr-defined]
    low, high = byte_bounds(a)
    return int(low), int(high)


#: The byte that fresh emulated device memory holds: 0xFF (NaN for floats, -1 for integers).
POISON_BYTE = 0xFF


def device_memory(size: int, dtype: Any = np.uint8, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """An array standing for fresh device memory: every byte is ``POISON_BYTE``, never zeros.

    Real ``aclrtMalloc`` does not clear memory, so a kernel that relies on a zeroed workspace or output
    without filling it itself must give wrong values here too. ``size`` is in elements of ``dtype``
    (bytes for the default uint8); ``shape`` (optional) reshapes the result and must hold ``size`` elements.
    """
    a = np.empty(size, dtype=dtype)
    a.view(np.uint8).fill(POISON_BYTE)
    return a if shape is None else a.reshape(shape)


def check_out_array(op: str, name: str, out: Any) -> None:
    """Rejects an ``out=`` array the kernel could not write in place, before anything runs.

    Raises:
        TypeError: ``out`` is not a NumPy array (the result would be lost).
        ValueError: ``out`` is read-only, has a negative or not element-aligned stride (it would be copied
            and the copy written), or elements that share memory (a zero stride, as ``np.broadcast_to`` gives).
    """
    where = f"{op}: out= array '{name}'"
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{where} must be a NumPy array written in place, got {type(out).__name__}")
    if out.size <= 1:
        dims: list[tuple[int, int]] = []
    else:
        dims = sorted((abs(st), n) for st, n in zip(out.strides, out.shape) if n > 1)
    if any(st == 0 for st, _ in dims):
        raise ValueError(
            f"{where} has a zero stride (shape {out.shape}, strides {out.strides} bytes): several of its "
            "elements are one memory location, as with np.broadcast_to; pass an array with one location per "
            f"element, e.g. np.empty({out.shape}, {out.dtype.name})"
        )
    if any(st < 0 or st % out.itemsize for st in out.strides):
        raise ValueError(
            f"{where} has strides {out.strides} bytes: negative or not a multiple of the element size "
            f"({out.itemsize}) cannot be passed to aclCreateTensor in place; pass a view with positive strides"
        )
    extent = out.itemsize
    for st, n in dims:
        if st < extent:
            raise ValueError(
                f"{where} has overlapping elements (shape {out.shape}, strides {out.strides} bytes); pass an "
                f"array with one memory location per element, e.g. np.empty({out.shape}, {out.dtype.name})"
            )
        extent = st * n
    if not out.flags.writeable:
        raise ValueError(f"{where} is read-only (flags.writeable is False); pass a writable array")


INT64_MAX = 2**63 - 1


#: Default of the memory cap of one Python API call (bytes); ``$OPGEN_MAX_CALL_BYTES`` overrides it.
DEFAULT_MAX_CALL_BYTES = 4 << 30


def max_call_bytes() -> int:
    """The memory cap of one call (bytes): ``$OPGEN_MAX_CALL_BYTES`` when set to a positive integer (``1e9``
    notation too), else
    (unset or empty) :data:`DEFAULT_MAX_CALL_BYTES` (4 GiB).

    Raises:
        ValueError: ``OPGEN_MAX_CALL_BYTES`` is set, not empty, but not a positive integer.
    """
    text = os.environ.get("OPGEN_MAX_CALL_BYTES")
    if not text:  # unset or empty (as for OPGEN_CACHE_DIR)
        return DEFAULT_MAX_CALL_BYTES
    try:
        value = int(text)
    except ValueError:
        try:  # an integral number in float notation (1e9, 4.5e9)
            number = float(text)
            value = int(number) if number.is_integer() else 0
        except (ValueError, OverflowError):
            value = 0
    if value < 1:
        raise ValueError(f"OPGEN_MAX_CALL_BYTES must be a positive number of bytes, got {text!r}")
    return value


def _gib(nbytes: int) -> str:
    """``nbytes`` in the largest binary unit (bytes, KiB, MiB, GiB) it holds at least one of, 3 significant
    digits (``4 GiB``, ``672 bytes``, ``1.5 MiB``)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes} bytes"


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _output_bytes(
    where: str, rule: Any, present: dict[str, np.ndarray], attrs: dict[str, Any], spec: OpSpec, copies: int
) -> int:
    """The bytes of an output the call allocates, from its shape ``rule`` (Python integers), times ``1 +
    copies``; 0 when the rule cannot be evaluated (phase 1 answers it).

    Raises:
        ValueError: an integer attr the rule reads, or the shape's element count, is beyond int64.
    """
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate
    from codegen.spec.expr import names as expr_names
    from codegen.spec.model import absent_optional_shapes

    read = sorted(expr_names(rule) & (set(present) | set(attrs)))
    for name in read:
        values = attrs.get(name)
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and abs(int(value)) > INT64_MAX:
                raise ValueError(
                    f"{where}: {name}={values} is beyond int64 ({INT64_MAX}), so the result's shape "
                    f"{rule} cannot be represented; pass a smaller {name}"
                )
    try:
        shape = as_shape(evaluate(rule, {**absent_optional_shapes(spec.inputs, present), **present, **attrs}))
    except ExprEvalError:
        return 0
    numel = _numel(shape)
    given = ", ".join(f"{n}={list(present[n].shape)}" if n in present else f"{n}={attrs[n]}" for n in read)
    if numel > INT64_MAX:
        raise ValueError(
            f"{where}: the result would have shape {list(shape)} = {numel} elements (from {given}), "
            f"beyond int64 ({INT64_MAX}); no array was allocated"
        )
    item = max([4, *(a.itemsize for a in present.values())])
    return numel * item * (1 + copies)


def check_call_size(
    spec: OpSpec,
    arrays: dict[str, np.ndarray | tuple[np.ndarray | None, ...] | None],
    attrs: dict[str, Any],
    out_given: bool,
) -> None:
    """Checks, before anything is allocated, that a call's tensors fit int64 and the memory cap.

    Each output's shape is computed from its shape rule in the spec with Python integers (every output with
    one: an output shaped by an int_array attr, such as a normalized shape, counts as the first does);
    the call is refused when that shape has more than ``2**63 - 1`` elements, when an integer attr the rule
    reads is beyond int64, or when the memory the call needs exceeds :func:`max_call_bytes`. The estimate
    (bytes) counts every input as a contiguous copy (the L2 API makes one of a strided or zero-stride
    view), and, when the call allocates the output, the output plus one fp32 tensor of the output's shape
    per input (broadcast and cast copies). A tensor list (a tuple of arrays) counts each element as a
    contiguous copy; when the first output is a list the call allocates, it counts as many elements as the
    largest input list, at the widest itemsize (at least 4 bytes), once for the output and once per input.

    Raises:
        ValueError: naming the parameters, the shape and the limit. A shape rule that cannot be evaluated
            for other reasons (shapes that do not broadcast, a null input) is left to phase 1, which returns
            the aclnn status.
    """
    where = spec.aclnn_name
    lists = {name: [e for e in a if e is not None] for name, a in arrays.items() if isinstance(a, tuple)}
    present = {name: a for name, a in arrays.items() if isinstance(a, np.ndarray)}
    need = sum(int(a.size) * a.itemsize for a in present.values())
    need += sum(int(e.size) * e.itemsize for elements in lists.values() for e in elements)
    if spec.outputs[0].is_list:
        if not out_given and lists:
            items = [e.itemsize for elements in lists.values() for e in elements]
            item = max([4, *items, *(a.itemsize for a in present.values())])
            numel = max(sum(int(e.size) for e in elements) for elements in lists.values())
            need += numel * item * (1 + len(lists) + len(present))
    elif not out_given:
        for k, output in enumerate(o for o in spec.outputs if not o.is_list and o.shape is not None):
            # the first output also counts a fp32 copy per input (broadcast and cast copies); every other
            # output (one shaped by an int_array attr, e.g. a normalized shape) counts itself
            need += _output_bytes(where, output.shape, present, attrs, spec, copies=len(present) if k == 0 else 0)
    cap = max_call_bytes()
    rules = list(dict.fromkeys(str(o.shape) for o in spec.outputs if not o.is_list and o.shape is not None))
    if need > cap:
        shapes = ", ".join(
            [
                *(f"{n} {list(a.shape)} {a.dtype}" for n, a in present.items()),
                *(f"{n}: a list of {len(elements)} tensors" for n, elements in lists.items()),
            ]
        )
        raise ValueError(
            f"{where}: the call would need about {_gib(need)} of memory ({shapes}"
            + ("" if out_given or not rules else f"; result shapes from {', '.join(rules)}")
            + f"), beyond the cap of {_gib(cap)} (OPGEN_MAX_CALL_BYTES); no array was allocated"
        )
