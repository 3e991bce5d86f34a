"""A compiled elementwise program run over float64 intervals, one ``[lo, hi]`` per element and buffer, that
contain every value the fp32 (or 16-bit) kernel can hold there (the model of
:func:`codegen.families.elementwise.bound.derived_bound`):

- inputs are exact (degenerate intervals); a scalar is the interval between its float64 value and that
  value rounded to fp32;
- ``Add Sub Mul Div Adds Muls Reciprocal Exp Ln Sqrt`` take the exact image of their operand intervals and
  widen it by their rounding: ``delta * |x| + tau`` at both ends, with ``delta`` =
  :data:`ROUNDING` [op] and ``tau`` = 2**-126 (a result in the subnormal range may be flushed to 0), never
  across 0 (rounding keeps a value's side of 0, so an exact 0 stays 0);
- ``Axpy`` (``dst = src * s + dst``, the addend read from its ``dst``) rounds twice: the product as ``Muls``,
  then the sum as ``Add`` (the emulation's assumption, docs/emulator.md; a fused multiply-add that rounds once
  lies inside);
- ``Abs Relu Max Min Maxs Mins`` and the widening ``Cast`` (and ``CastElemsForCompare``) are exact;
  ``Compare``/``Compares`` (and ``CompareElems``, as the ``Compares`` of its widened source) give a mask
  that is decided where the operand intervals decide the comparison (NaN compares false except ``NE``)
  and open otherwise, and ``Select`` gives the chosen operand, or the hull of both where the mask is open;
  ``Rsqrt`` rounds as ``Sqrt``; an approximation (``erf``) widens its last instruction by its stated
  absolute error; the ``log1p`` rewrite, whose quotient ``log(u) * x / (u - 1)`` interval arithmetic
  cannot bound where ``u`` may be 1 (the whole line, however close to 0 ``x`` is), gives ``log1p`` of its
  operand's interval widened by :data:`LOG1P_ERROR`; ``Cast`` ``CAST_RINT`` to FLOAT16
  / BF16 rounds both ends to the 16-bit type, to nearest (:func:`round16`: round to nearest is monotone,
  so the results lie between the rounded ends; an end that overflows may also saturate at the largest
  finite value, and a BF16 end in the subnormal range may be flushed to 0; FLOAT16 keeps subnormals), so
  a result one 16-bit ULP from the correct rounding (a truncating cast) is outside;
- a value beyond the largest finite number of its type may be an infinity (the interval end becomes
  ``inf``), and an operation whose result may be NaN (``inf - inf``, ``0 * inf``, a divisor interval
  holding 0, ``log`` of a negative) gives the interval ``[-inf, inf]``.

The relative errors of the instructions CANN does not document (``Div Reciprocal Exp Ln Sqrt``) are a stated
conservative figure, 4 fp32 ULPs (``4 * 2**-23``); correctly rounded arithmetic (``Add Sub Mul`` and their
scalar forms) is ``2**-24``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from codegen.families.elementwise.compiler import Instruction, Program
from codegen.families.elementwise.compiler.fusion import AXPY
from codegen.families.elementwise.compiler.narrow import COMPARE_ELEMS, WIDEN_FOR_COMPARE
from codegen.families.elementwise.intervals import (
    F64_SLACK,
    FP32_MAX,
    FP32_TINY,
    LIMIT16,
    Interval,
    _apply,
    _clean,
    _compare,
    _round,
    _select,
    round16,
)
from codegen.spec.model import DType

#: fp32 unit roundoff (half an ULP, relative).
FP32_U = 2.0**-24
#: The stated figure for instructions whose hardware error CANN does not document: 4 fp32 ULPs.
HARDWARE_ULPS = 4 * 2.0**-23
#: Relative rounding error of each fp32 vector instruction that rounds its result.
ROUNDING: dict[str, float] = {
    "Add": FP32_U,
    "Sub": FP32_U,
    "Mul": FP32_U,
    "Adds": FP32_U,
    "Muls": FP32_U,
    "Div": HARDWARE_ULPS,
    "Reciprocal": HARDWARE_ULPS,
    "Exp": HARDWARE_ULPS,
    "Ln": HARDWARE_ULPS,
    "Sqrt": HARDWARE_ULPS,
    "Rsqrt": HARDWARE_ULPS,
}
#: Relative error of the ``log1p`` rewrite (``codegen.families.elementwise.compiler._rewrite_function``: with
#: ``u = fl(1 + x)``, ``x`` where ``u == 1``, ``log(u) * x / (u - 1)`` where ``|x| < 0.5``, else ``log(u)``),
#: for any fp32 ``x >= -1``, against the exact ``log1p(x)``:
#:
#: - ``u == 1``: ``|x| <= 2**-24`` and ``|log1p(x) - x| <= x**2`` (relative ``2**-24``);
#: - Goldberg's form (What Every Computer Scientist Should Know About Floating-Point Arithmetic, 1991,
#:   theorem 4): ``u - 1 = x'`` is exact (Sterbenz) with ``|x' - x| <= 2**-24``, and the exact quotient
#:   is ``x * f(x')`` with ``f(t) = log1p(t) / t``, whose logarithmic derivative stays within 0.9 in
#:   magnitude on ``[-0.51, 0.51]``: relative ``0.9 * 2**-24``; then ``Ln`` and ``Div`` (``HARDWARE_ULPS``
#:   each) and ``Mul`` (``2**-24``): about ``17.9 * 2**-24`` in all;
#: - ``log(u)`` for ``|x| >= 0.5``: ``1 + x`` is exact below 0 and rounds by ``2**-24`` above, which moves
#:   the logarithm (at least 0.405 there) by at most ``2.5 * 2**-24`` relative, plus ``Ln``'s
#:   ``HARDWARE_ULPS``: ``10.5 * 2**-24``.
#:
#: The stated figure is 2 ``HARDWARE_ULPS`` + 4 ``2**-24`` (= ``20 * 2**-24``).
LOG1P_ERROR = 2 * HARDWARE_ULPS + 4 * FP32_U
#: Functions a program computes by a rewrite the interval model does not follow instruction by instruction
#: (``Instruction.image``): an increasing function over float64 and its relative error.
IMAGES: dict[str, tuple[Any, float]] = {"log1p": (np.log1p, LOG1P_ERROR)}


class ExactScalar(float):
    """A host scalar the kernel holds exactly: an expression without arithmetic (an attribute, a literal, a
    negation or a choice of them) whose value fp32 holds, so no float64 slack or rounding widens it and a
    comparison of an exact input with it is decided (``lo <= self`` at ``self == lo`` is true)."""


#: A host scalar's exact value (float64), or two of them (the scalar from the attributes as the call gives
#: them and from their fp32 values, as the device op receives them): the kernel's value is within the hull.
HostScalar = float | tuple[float, float]


def scalar_interval(value: float) -> Interval:
    """The values a host scalar of exact value ``value`` (float64) can have in the kernel: between it and its
    fp32 rounding (infinite beyond the fp32 range), widened by the float64 slack."""
    if math.isnan(value):
        return np.asarray(-np.inf), np.asarray(np.inf)
    with np.errstate(over="ignore"):
        f = float(np.float32(value))
    lo, hi = min(value, f), max(value, f)
    slack = F64_SLACK * abs(value)
    return np.asarray(lo - slack), np.asarray(hi + slack)


def _literal(text: str) -> float | None:
    """The value of a C++ float literal such as ``1.0f`` or ``-1e-12f``; None for a tiling field."""
    if text.endswith("f") and not text.endswith("_"):
        try:
            return float(text[:-1])
        except ValueError:
            return None
    return None


def program_interval(
    program: Program,
    inputs: Mapping[str, np.ndarray],
    scalars: Mapping[str, HostScalar],
    compute_dtype: DType,
    fp32_result: bool = False,
) -> Interval:
    """Runs ``program`` over intervals (see the module doc) and returns the interval of ``outLocal``; with
    ``fp32_result`` the interval of the fp32 value before a 16-bit program's final ``Cast`` (the value a
    reduce epilogue sums).

    Args:
        program: the compiled program the kernel runs for this call (its variant and dtype class).
        inputs: float64 values of the inputs present in the call, each broadcastable to the output shape.
        scalars: host scalar field name (``scalar0``) -> its exact (float64) value, or two (:data:`HostScalar`).
        compute_dtype: FLOAT, FLOAT16 or BF16: the dtype of the kernel's input and output tiles.

    Raises:
        ValueError: an instruction without an error model, or a scalar that is neither a literal nor a field.
    """
    buffers: dict[str, Interval] = {f"{n}Local": (v, v) for n, v in inputs.items()}
    instructions = program.instructions
    last = instructions[-1]
    if fp32_result and program.cast_inputs and last.op == "Cast" and last.dst == "outLocal":
        instructions = instructions[:-1]
        result = last.srcs[0]
    else:
        result = "outLocal"
    for ins in (*program.constants, *instructions):  # the per-core constants are filled before any tile
        buffers[ins.dst] = _step(ins, buffers, scalars, compute_dtype)
    return buffers[result]


def _step(ins: Instruction, buffers: dict[str, Interval], scalars: Mapping[str, HostScalar], dt: DType) -> Interval:
    scalar: Interval | None = None
    if ins.scalar is not None:
        literal = _literal(ins.scalar)
        if literal is not None and float(np.float32(literal)) == literal:
            # a float literal the compiler holds exactly (1.0f, 0.5f, -100.0f): one value, no slack, so a
            # comparison of an exact input with it is decided (self <= 1.0f on an exact 1.0 is true)
            held = np.asarray(literal)
            scalar = (held, held)
        elif literal is not None:
            scalar = scalar_interval(literal)
        elif ins.scalar.endswith("_") and ins.scalar[:-1] in scalars:
            value = scalars[ins.scalar[:-1]]
            if isinstance(value, ExactScalar):
                held = np.asarray(float(value))
                scalar = (held, held)
            elif isinstance(value, tuple):  # two exact values (from the attrs as given and as fp32): their hull
                (lo0, hi0), (lo1, hi1) = scalar_interval(value[0]), scalar_interval(value[1])
                scalar = (np.minimum(lo0, lo1), np.maximum(hi0, hi1))
            else:
                scalar = scalar_interval(value)
        else:
            raise ValueError(f"unknown scalar operand '{ins.scalar}' of {ins.op}")
    if ins.op == "Duplicate":
        assert scalar is not None
        return scalar
    srcs = [buffers[s] for s in ins.srcs]
    if ins.op == "Compare" and ins.srcs[0] == ins.srcs[1] and ins.mode in ("EQ", "NE"):
        # a value compared with itself (the compiler's NaN test, keep_nan): equal unless it is NaN, whatever
        # the width of its interval
        lo, hi = srcs[0]
        exact_nan = np.isnan(lo) & np.isnan(hi)
        maybe_nan = np.isnan(lo) | np.isnan(hi) | ((lo == -np.inf) & (hi == np.inf))
        equal_t, equal_f = ~exact_nan, maybe_nan
        return (equal_t, equal_f) if ins.mode == "EQ" else (equal_f, equal_t)
    if ins.op == COMPARE_ELEMS:
        # the comparison of the widened input (srcs[0]) with the host value: on FLOAT16 the kernel compares the
        # half elements with the value rounded per mode, which gives the same mask (narrow.COMPARE_ROUNDING)
        assert scalar is not None and ins.mode is not None
        return _compare(srcs[0], scalar, ins.mode)
    if ins.op in ("Compare", "Compares"):
        other = srcs[1] if ins.op == "Compare" else scalar
        assert other is not None and ins.mode is not None
        return _compare(srcs[0], other, ins.mode)
    if ins.image is not None:
        return _image(ins, buffers)
    if ins.op == "Select":
        mask = srcs[0]
        src1 = srcs[2] if ins.mode == "VSEL_TENSOR_TENSOR_MODE" else scalar
        assert src1 is not None
        return _select(mask, srcs[1], src1)
    if ins.op == WIDEN_FOR_COMPARE:
        return srcs[0]  # 16-bit -> fp32 widening is exact
    if ins.op == AXPY:
        # the product rounded (Muls), then the sum with the addend, the buffer's value before the instruction
        product = _round(_apply("Muls", srcs, scalar), ROUNDING["Muls"], FP32_TINY, FP32_MAX)
        return _round(_apply("Add", [buffers[ins.dst], product], None), ROUNDING["Add"], FP32_TINY, FP32_MAX)
    if ins.op == "Cast":
        (src,) = srcs
        if ins.round_mode == "CAST_RINT" and dt in LIMIT16:
            return round16(src, dt)
        return src  # 16-bit -> fp32 widening is exact
    exact = _apply(ins.op, srcs, scalar)
    if ins.op in ROUNDING:
        exact = _round(exact, ROUNDING[ins.op], FP32_TINY, FP32_MAX)
    if ins.approx:
        exact = _clean(exact[0] - ins.approx, exact[1] + ins.approx)
    return exact


def _image(ins: Instruction, buffers: dict[str, Interval]) -> Interval:
    """The interval of a rewritten function's result (``ins.image``): the function's exact image of its
    operand's interval, widened by the function's stated relative error and fp32's smallest normal."""
    assert ins.image is not None
    func, k = ins.image
    f, error = IMAGES[func]
    lo, hi = buffers[ins.srcs[k]]
    with np.errstate(all="ignore"):
        return _round(_clean(f(lo), f(hi)), error, FP32_TINY, FP32_MAX)
