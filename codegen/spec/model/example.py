"""A spec's worked example (:class:`Example`): the tensors and attr values of one call and its output."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.errors import NO_LOC, SourceLoc
from codegen.types import DType


@dataclass(frozen=True)
class ExampleTensor:
    """A tensor of a spec's worked example.

    Attributes:
        shape: dimensions (``()`` for a 0-d tensor).
        dtype: element type.
        values: the elements in row-major order (``prod(shape)`` of them), or None (outputs).
        loc: the entry.
    """

    shape: tuple[int, ...]
    dtype: DType
    values: tuple[float | int | bool, ...] | None
    loc: SourceLoc = NO_LOC


@dataclass(frozen=True)
class Example:
    """A spec's worked example, used by the generated doc and example program.

    Attributes:
        inputs: ``(input name, tensor)`` in the op's input order.
        attrs: ``(attr name, value)`` in the op's attr order (defaults filled in; an array attr's value is a
            tuple of ints or bools).
        output: the output tensor (values None unless the spec gives expected values).
        loc: the ``example`` entry.
    """

    inputs: tuple[tuple[str, ExampleTensor], ...]
    attrs: tuple[tuple[str, int | float | bool | tuple[int, ...] | tuple[bool, ...]], ...]
    output: ExampleTensor
    loc: SourceLoc = NO_LOC
