"""Virtual registers and value numbering of one program being built: the build context, host scalars and
float literals, and the register of each value (one per instruction, computed once)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from codegen.families.elementwise.compiler.instructions import COMMUTATIVE
from codegen.families.elementwise.compiler.program import HostScalar
from codegen.spec.errors import SourceLoc, SpecError
from codegen.spec.expr import Expr, Num, Unary, names


@dataclass
class _Ctx:
    tensors: frozenset[str]
    scalar_defs: dict[str, Expr]
    hoisted: list[HostScalar] = field(default_factory=list)
    loc: SourceLoc | None = None
    field: str = ""

    def is_tensor(self, e: Expr) -> bool:
        return bool(names(e) & self.tensors) or any(
            bool(names(self.scalar_defs[n]) & self.tensors) for n in names(e) if n in self.scalar_defs
        )


def _fp32(value: float) -> float:
    """``value`` rounded to the nearest fp32 (inf beyond its range)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _number(e: Expr) -> float | None:
    """The value of a numeric literal or a negated one; None for any other expression."""
    if isinstance(e, Num) and not isinstance(e.value, bool):
        return float(e.value)
    if isinstance(e, Unary) and e.op == "-":
        inner = _number(e.operand)
        return None if inner is None else -inner
    return None


def _plain_number(e: Expr) -> bool:
    """Whether ``e`` is a numeric literal (or a negated one) that is not NaN: a ``min``/``max`` bound that
    never gives NaN."""
    number = _number(e)
    return number is not None and not math.isnan(number)


def _f32(value: float) -> str:
    """A C++ float literal of ``value`` (the shortest repr of the double, suffixed ``f``)."""
    return f"{float(value)!r}f"


class _Values:
    """The registers of one program being built: emits instructions, numbering each value once; values are
    virtual registers later mapped onto buffers (:func:`.allocation._allocate`)."""

    def __init__(self, ctx: _Ctx, cast_inputs: bool, column: tuple[frozenset[str], bool] | None = None) -> None:
        self.ctx = ctx
        # cast_inputs: the one-dtype 16-bit program (every input cast, the result rounded once; the narrow
        # rewrites of :mod:`.narrow` apply); column: a program whose inputs have dtypes of their own
        # (:class:`.program.ColumnProgram`): the 16-bit inputs it names are cast, the others read in place
        self.cast_inputs = cast_inputs and column is None
        self.cast_names: frozenset[str] | None = column[0] if column is not None else None
        self.narrow_output = column[1] if column is not None else cast_inputs
        self.code: list[tuple[str, int, tuple[int, ...], str | None, str | None, str | None, float]] = []
        self.images: dict[int, tuple[str, int]] = {}  # register -> (function, operand index): Instruction.image
        self.leaf_reg: dict[str, int] = {}
        self.reg_source: dict[int, str] = {}  # register -> input name, for uncast fp32 leaves
        self.mask_regs: set[int] = set()  # registers holding uint8_t bit masks (Compare/Compares results)
        self.narrow_consts: set[int] = set()  # Duplicate registers of a per-core constant in the input dtype
        # each tensor subexpression is computed once per set of operands whose NaN the context carries
        self.memo: dict[tuple[Expr, frozenset[Expr]], int] = {}
        self.numbered: dict[tuple[object, ...], int] = {}  # value numbering: one register per instruction
        # where one of these is NaN the value being built does not matter: the enclosing result is NaN there
        # anyway (nan_sources), or a where takes its other branch there (guarded)
        self.covered: frozenset[Expr] = frozenset()
        self.literals: dict[float, str] = {}  # fp32 value -> its literal text (see literal)
        self.next_reg = 0

    def _new(self) -> int:
        self.next_reg += 1
        return self.next_reg - 1

    def scalar(self, e: Expr) -> str:
        number = _number(e)
        if number is not None:
            return self.literal(number)
        for hs in self.ctx.hoisted:
            if hs.expr == e:
                return f"{hs.field_name}_"
        hs = HostScalar(f"scalar{len(self.ctx.hoisted)}", e)
        self.ctx.hoisted.append(hs)
        return f"{hs.field_name}_"

    def emit(
        self,
        op: str,
        srcs: tuple[int, ...],
        scalar: str | None = None,
        rm: str | None = None,
        mode: str | None = None,
        approx: float = 0.0,
    ) -> int:
        key = (op, tuple(sorted(srcs)) if op in COMMUTATIVE else srcs, scalar, rm, mode, approx)
        if key in self.numbered:
            return self.numbered[key]
        dst = self._new()
        self.numbered[key] = dst
        self.code.append((op, dst, srcs, scalar, rm, mode, approx))
        if op in ("Compare", "Compares"):
            self.mask_regs.add(dst)
        return dst

    def error(self, text: str) -> SpecError:
        return SpecError(self.ctx.loc or SourceLoc("<formula>", 0), self.ctx.field, text)

    def leaf(self, name: str) -> int:
        if name not in self.leaf_reg:
            if self.is_cast(name):
                src = self._new()
                self.reg_source[src] = name
                self.leaf_reg[name] = self.emit("Cast", (src,), rm="CAST_NONE")
            else:
                reg = self._new()
                self.reg_source[reg] = name
                self.leaf_reg[name] = reg
        return self.leaf_reg[name]

    def is_cast(self, name: str) -> bool:
        """Whether input ``name`` arrives in a 16-bit dtype and is cast to fp32 at its first use."""
        return self.cast_inputs if self.cast_names is None else name in self.cast_names

    def value(self, e: Expr) -> int:
        """The register holding ``e``, computed once per set of covered operands (:attr:`covered`)."""
        key = (e, self.covered)
        if key not in self.memo:
            self.memo[key] = self._value(e)
        return self.memo[key]

    def value_in(self, e: Expr, carried: frozenset[Expr]) -> int:
        """The register of ``e`` where the enclosing result is also NaN wherever one of ``carried`` is NaN
        (a sibling operand carries their NaN): a NaN keep of one of them inside ``e`` is not needed."""
        saved = self.covered
        self.covered = saved | carried
        try:
            return self.value(e)
        finally:
            self.covered = saved

    def literal(self, value: float) -> str:
        """The C++ float literal of ``value``; values that round to the same fp32 share the first one's text
        (so their instructions are numbered as one; the kernel reads the same float)."""
        key = _fp32(value)
        if key not in self.literals:
            self.literals[key] = _f32(value)
        return self.literals[key]

    def _value(self, e: Expr) -> int:
        """The register computing ``e`` (instruction selection, :class:`.selection._Builder`)."""
        raise NotImplementedError
