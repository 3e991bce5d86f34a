"""The example lines of the row-reduce API documentation: the spec's example inputs (dtype, shape, values)
and attrs."""

from __future__ import annotations

from codegen.spec.model import OpSpec


def example_lines(spec: OpSpec) -> list[str]:
    """The doc's example lines: each example input (dtype, shape, values) and attr of the spec's ``example``
    (none without one)."""
    lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            lines.append(f"`{name}` = {value}")
    return lines
