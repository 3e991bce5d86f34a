"""Lines of the API document (``docs/<aclnn>.md``) every family writes the same way: the example section's
lines and the head of a product's line in the tiling section."""

from __future__ import annotations

from codegen.spec.model import OpSpec, Product


def example_lines(spec: OpSpec, *, c_bools: bool = False) -> list[str]:
    """The example section: one line per input of the spec's ``example`` (its dtype, shape and values, in the
    example's order), then one per attr (``name = value``); none when the spec has no example.

    ``c_bools``: a bool attr is written as C++ spells it (``true``/``false``) rather than as Python prints it
    (``True``/``False``). An array attr is written as a list (``[2, 2]``, ``[true, false]`` with
    ``c_bools``).
    """

    def text_of(value: object) -> str:
        if isinstance(value, tuple):
            return f"[{', '.join(text_of(v) for v in value)}]"
        return str(value).lower() if c_bools and isinstance(value, bool) else str(value)

    lines = []
    if spec.example is not None:
        for name, et in spec.example.inputs:
            lines.append(f"`{name}`: {et.dtype.name} {list(et.shape)} = {list(et.values or [])}")
        for name, value in spec.example.attrs:
            lines.append(f"`{name}` = {text_of(value)}")
    return lines


def product_tiling_line(product: Product, detail: str) -> str:
    """A product's line in the tiling section: its name, UB size (bytes) and vector core count, then
    ``detail`` (what the family's tiling gives there), ending with a full stop."""
    return f"{product.name}: UB {product.ub_bytes} bytes, {product.vector_core_num} cores, {detail}."
