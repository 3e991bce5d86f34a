"""The arrays of an in-place call (a :class:`~codegen.check.cases.Case` with ``in_place`` pairs): the input's
arrays copied into one guarded buffer and passed as both the input and the output, and the check that the call
changed no byte of the buffer outside them.

Each run gets its own copy (the input as the case gives it stays the reference's). The copies are views into
one uint8 buffer, :data:`GUARD_BYTES` of :data:`GUARD_BYTE` before, between and after the tensors: the call's
device writes reach host memory only through the output tensors (the emulator's GM guard faults a write
outside them), so a changed guard byte is a write beside the list that got through."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Bytes of guard before, between and after the tensors of an in-place list (a 32-byte block and more).
GUARD_BYTES = 64
#: The guard's byte value (no float of the lists' dtypes is made of it by chance in a kernel's write).
GUARD_BYTE = 0xA5


@dataclass(frozen=True)
class Guarded:
    """The copies of one in-place input: ``arrays`` (the value to pass: a tuple for a tensor list, else one
    array), ``buffer`` (the uint8 buffer they are views of) and ``tensors`` (each copy's ``(start, end)``
    bytes in it; every other byte is guard)."""

    arrays: Any
    buffer: np.ndarray
    tensors: tuple[tuple[int, int], ...]

    def touched(self) -> int:
        """Guard bytes whose value is no longer :data:`GUARD_BYTE` (0: nothing beside the tensors changed)."""
        mask = np.ones(self.buffer.size, bool)
        for start, end in self.tensors:
            mask[start:end] = False
        return int(np.count_nonzero(self.buffer[mask] != GUARD_BYTE))


def guarded_copy(value: Any) -> Guarded:
    """A copy of ``value`` (one contiguous array, or a tuple/list of them: a tensor list; None elements stay
    None) whose arrays are C-contiguous views of one guarded buffer (:class:`Guarded`)."""
    is_list = isinstance(value, (tuple, list))
    arrays = list(value) if is_list else [value]
    offsets: list[tuple[int, int]] = []
    at = GUARD_BYTES
    for a in arrays:
        n = 0 if a is None else int(np.asarray(a).nbytes)
        offsets.append((at, at + n))
        at += n + GUARD_BYTES
    buffer = np.full(at, GUARD_BYTE, np.uint8)
    copies: list[np.ndarray | None] = []
    for a, (start, end) in zip(arrays, offsets, strict=True):
        if a is None:
            copies.append(None)
            continue
        src = np.asarray(a)
        view = buffer[start:end].view(src.dtype).reshape(src.shape)
        view[...] = src
        copies.append(view)
    placed = tuple(copies) if is_list else copies[0]
    return Guarded(placed, buffer, tuple(o for o, a in zip(offsets, arrays, strict=True) if a is not None))


def in_place_params(
    params: Mapping[str, Any], pairs: tuple[tuple[str, str], ...]
) -> tuple[dict[str, Any], list[Guarded]]:
    """``params`` with each ``(output, input)`` of ``pairs`` given one guarded copy of the input's arrays as
    both, and the copies to check after the call (:meth:`Guarded.touched`)."""
    out = dict(params)
    guards = []
    for output, source in pairs:
        g = guarded_copy(params[source])
        out[source] = out[output] = g.arrays
        guards.append(g)
    return out, guards
