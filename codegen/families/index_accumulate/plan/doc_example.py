"""The example section of the API documentation: the spec's example inputs and attrs as lines."""

from __future__ import annotations

from codegen.spec.model import OpSpec


def doc_example_lines(spec: OpSpec) -> list[str]:
    """One line per example input (dtype, shape, values) and per example attr (booleans in C++ spelling);
    none when the spec has no example."""
    example_lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            example_lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            example_lines.append(f"`{name}` = {str(value).lower() if isinstance(value, bool) else value}")
    return example_lines
