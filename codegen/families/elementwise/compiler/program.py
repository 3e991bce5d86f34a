"""A compiled elementwise formula as plain data: its AscendC vector instructions over named UB buffers, the
temporaries and masks they need, and the host scalars they read."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.expr import Expr


@dataclass(frozen=True)
class Instruction:
    """One AscendC vector instruction of a compiled program.

    ``op`` is the AscendC function name (``Mul``, ``Adds``, ``Cast``, ...). ``dst`` and ``srcs`` are buffer
    names (see :class:`Program`); ``scalar`` is a C++ expression of type ``float`` (a literal such as
    ``1.0f`` or a tiling field such as ``scalar0_``) for the ``*s`` forms; ``round_mode`` is set for ``Cast``.
    ``mode`` is the ``CMPMODE`` of ``Compare``/``Compares`` (``LT``, ``LE``, ``GT``, ``GE``, ``EQ``, ``NE``;
    ``dst`` is then a ``uint8_t`` bit-mask buffer ``mask<k>``) or the ``SELMODE`` of ``Select``
    (``VSEL_TENSOR_TENSOR_MODE``: ``srcs`` = mask, src0, src1; ``VSEL_TENSOR_SCALAR_MODE``: ``srcs`` = mask,
    src0 and ``scalar`` is src1). ``Compare``/``Compares`` run on ``nCmp`` elements (``n`` rounded up to 256
    bytes of fp32, the granularity of their count form), every other instruction on ``n``. ``approx`` is
    the absolute error of a formula approximation whose last instruction this is (``erf``: 1.5e-7), added
    to the derived error bound; 0 for exact math. ``image`` is set on the last instruction of a rewritten
    function whose instruction sequence the interval model cannot follow (``log1p``: the quotient
    ``log(u) * x / (u - 1)`` is 0 / 0 over an interval of ``u`` holding 1): ``(function, k)`` says that
    ``dst`` holds that function of ``srcs[k]`` up to the function's stated error
    (:data:`codegen.families.elementwise.bound.IMAGES`).
    """

    op: str
    dst: str
    srcs: tuple[str, ...]
    scalar: str | None = None
    round_mode: str | None = None
    mode: str | None = None
    approx: float = 0.0
    image: tuple[str, int] | None = None


@dataclass(frozen=True)
class HostScalar:
    """A subexpression evaluated on the host; reaches the kernel as ``float`` tiling field ``field_name``."""

    field_name: str
    expr: Expr


@dataclass(frozen=True)
class Program:
    """A compiled elementwise formula for one class of input dtype.

    ``cast_inputs`` is False for fp32 (inputs are used in place) and True for 16-bit dtypes (each input is
    cast to fp32 at first use). ``temps`` is the number of fp32 temporaries ``tmp0``..``tmp{n-1}``, each of
    ``tileLength * 4`` bytes of UB. Buffer names in instructions: ``<input>Local`` (the input's queue tensor,
    type T), ``outLocal`` (the output queue tensor, type T), ``tmp<k>`` (fp32 temporaries), ``mask<k>``
    (``uint8_t`` bit masks of ``masks`` buffers, one bit per element, ``tileLength / 8`` bytes each),
    ``const<k>`` (fp32 buffers of ``tileLength`` elements that ``constants`` fill once per core, before the
    first tile: each a ``Duplicate`` of a host value, which ``instructions`` then read in every tile).
    ``narrow`` names the constant buffers that hold the input dtype ``T`` instead of fp32 (filled with
    ``static_cast<T>`` of a literal both 16-bit dtypes hold exactly): a 16-bit program whose result is a chain
    of ``Select`` among its inputs and such constants selects 16-bit elements (each ``Select`` writes
    ``outLocal`` and reads ``<input>Local`` and these buffers, all of type ``T``) and has no final ``Cast``.
    """

    cast_inputs: bool
    instructions: tuple[Instruction, ...]
    temps: int
    masks: int = 0
    constants: tuple[Instruction, ...] = ()
    narrow: tuple[str, ...] = ()

    @property
    def budget_temps(self) -> int:
        """fp32 buffers the UB budget counts per element: ``temps``, one per constant, plus one per started
        32 mask buffers (a mask takes ``tileLength / 8`` bytes, 1/32 of an fp32 temporary)."""
        return self.temps + len(self.constants) + -(-self.masks // 32)


@dataclass(frozen=True)
class ColumnDtypes:
    """The dtype classes of a mixed dtype column (an OpDef column whose tensors do not share one dtype):
    ``cast`` names the inputs that arrive in a 16-bit dtype (each cast to fp32 at its first use, on its own:
    the cast reads that input's buffer in that input's dtype), every other input is fp32 and read in place;
    ``narrow_output``: the output is 16-bit (the fp32 result is rounded into it once), else the result is
    written into the fp32 output buffer directly."""

    cast: frozenset[str]
    narrow_output: bool


@dataclass(frozen=True)
class HostCase:
    """The programs of one combination of host-condition values.

    A ``where(c, a, b)`` whose condition ``c`` reads host scalars only (attributes, ``compute.scalars``) and
    whose branches read tensors is decided once per call, not per element: ``c`` becomes a ``float`` host
    flag (``1.0`` true, ``0.0`` false; the tiling function evaluates it) and the formula is compiled once per
    combination of flag values, each program holding only its taken branches. ``guards`` holds, per flag, its
    field name and the value this case takes (empty for a formula without host conditions); the kernel runs
    the case whose guards all hold (a flag is true where it is not ``0.0f``), once per tile. ``columns`` holds
    one program per mixed dtype column the formula was compiled for (:class:`ColumnDtypes`, in their order):
    its 16-bit inputs cast, its fp32 inputs read in place, no narrow rewrite (those select or compare the
    elements of one dtype ``T``).
    """

    guards: tuple[tuple[str, bool], ...]
    fp32: Program
    cast16: Program
    columns: tuple[Program, ...] = ()


@dataclass(frozen=True)
class CompiledFormula:
    """The programs (fp32 and 16-bit, one pair per :class:`HostCase`) of one output formula, and the host
    scalars they read (the host flags among them). ``lowered`` is the lowered formula with its host
    conditions still in place."""

    output: str
    cases: tuple[HostCase, ...]
    scalars: tuple[HostScalar, ...]
    lowered: Expr

    def _only(self) -> HostCase:
        if len(self.cases) != 1:
            raise ValueError(
                f"{self.output}: the formula has {len(self.cases)} host cases; pick one (case_for, programs)"
            )
        return self.cases[0]

    @property
    def fp32(self) -> Program:
        """The fp32 program of a formula without host conditions.

        Raises:
            ValueError: the formula has more than one host case.
        """
        return self._only().fp32

    @property
    def cast16(self) -> Program:
        """The 16-bit program of a formula without host conditions.

        Raises:
            ValueError: the formula has more than one host case.
        """
        return self._only().cast16

    def programs(self, cast_inputs: bool) -> tuple[Program, ...]:
        """Every case's fp32 (``cast_inputs`` False) or 16-bit program, in case order."""
        return tuple(c.cast16 if cast_inputs else c.fp32 for c in self.cases)

    def case_for(self, flags: dict[str, float]) -> HostCase:
        """The case the kernel runs for host flag values ``flags`` (field name -> value; a flag is true where
        it is not 0, NaN included, as the kernel's ``!= 0.0f``).

        Raises:
            KeyError: a guard's flag is missing from ``flags``.
        """
        for case in self.cases:
            if all((flags[name] != 0.0) == value for name, value in case.guards):
                return case
        raise KeyError(f"{self.output}: no case for flags {flags}")
