"""NaN handling of the instruction builder: which operands' NaN a value carries anyway, and the
``Compare``/``Select`` that keeps a NaN operand's NaN where an instruction (``Max``/``Min``) would drop it."""

from __future__ import annotations

from codegen.families.elementwise.compiler.instructions import BINARY_INSTRUCTIONS, NAN_STRICT_FUNCTIONS
from codegen.families.elementwise.compiler.values import _Values
from codegen.spec.expr import Binary, Call, Expr, Unary


class _NanKeeping(_Values):
    """The NaN keeps of a program's builder (see :class:`.selection._Builder`)."""

    def keep_nan(self, operand: Expr, src: int, result: int) -> int:
        """``result`` where ``src`` (the register of ``operand``) is a number and ``src`` (its NaN) where it is
        NaN: a ``Compare`` of ``src`` with itself (``EQ``, false only at NaN) and a ``Select``. ``min``, ``max``
        and ``clamp`` carry a NaN operand this way, as NumPy and PyTorch do, whatever the vector ``Max``/``Min``
        return for it (the emulated ones return the other operand for a NaN first operand, like a ``>``
        comparison). No keep where the context carries ``operand``'s NaN (:attr:`covered`): there the
        result is NaN wherever ``operand`` is, whatever ``result`` holds."""
        if operand in self.covered:
            return result
        m = self.emit("Compare", (src, src), mode="EQ")
        return self.emit("Select", (m, result, src), mode="VSEL_TENSOR_TENSOR_MODE")

    def nan_sources(self, e: Expr) -> frozenset[Expr]:
        """Subexpressions whose NaN makes the compiled ``e`` NaN, whichever NaN keeps are dropped: ``e`` itself,
        and, through every instruction that turns a NaN operand into a NaN result (``+ - * /``, negation,
        :data:`NAN_STRICT_FUNCTIONS`), its operands' sources; through a ``where`` those of both branches. A
        ``min``/``max``/``relu`` passes on none of its operand's (a dropped keep loses them)."""
        if not self.ctx.is_tensor(e):
            return frozenset()
        if isinstance(e, Unary) and e.op == "-":
            return frozenset({e}) | self.nan_sources(e.operand)
        if isinstance(e, Binary) and e.op in BINARY_INSTRUCTIONS:
            return frozenset({e}) | self.nan_sources(e.left) | self.nan_sources(e.right)
        if isinstance(e, Call) and e.func in NAN_STRICT_FUNCTIONS:
            return frozenset({e}) | self.nan_sources(e.args[0])
        if isinstance(e, Call) and e.func == "where" and len(e.args) == 3:
            return frozenset({e}) | (self.nan_sources(e.args[1]) & self.nan_sources(e.args[2]))
        return frozenset({e})
