"""A dtype's entry in a kernel's tiling key: the number the key carries for it and what the tiling function
and the kernel's branch on that key need to know of the dtype."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from codegen.plan.products import arch_condition
from codegen.spec.model import DType, Product

K = TypeVar("K", bound="DtypeKey")


@dataclass(frozen=True)
class DtypeKey:
    """A dtype of the tiling key: its number ``key`` (a digit or position the family's key formula combines),
    the spec ``dtype`` name, ``ge_name`` (``DT_*``), the AscendC ``kernel_type``, ``bytes`` per element and the
    preprocessor ``guard`` that leaves the kernel's branch out on the NpuArchs lacking the dtype ("": always
    compiled, :func:`bf16_guard`). A family needing more of a key subclasses it with defaulted fields."""

    key: int
    dtype: str
    ge_name: str
    kernel_type: str
    bytes: int
    guard: str

    @classmethod
    def of(cls: type[K], key: int, dtype: DType, guard: str) -> K:
        """The entry of ``dtype`` numbered ``key`` with ``guard`` (the subclass's own fields at their defaults;
        set them with :func:`dataclasses.replace`)."""
        return cls(
            key=key,
            dtype=dtype.name,
            ge_name=dtype.ge_name,
            kernel_type=dtype.kernel_type,
            bytes=dtype.itemsize,
            guard=guard,
        )


def bf16_guard(products: list[Product], uses_bf16: bool) -> str:
    """The preprocessor guard of a kernel branch: for a branch that ``uses_bf16``, the condition true on the
    NpuArchs of ``products`` without bf16 (:func:`codegen.plan.products.arch_condition`); "" for a branch
    without bf16 or when every product has it (the branch is always compiled)."""
    no_bf16 = arch_condition(products, "bf16")
    return no_bf16 if uses_bf16 and no_bf16 != "0" else ""
