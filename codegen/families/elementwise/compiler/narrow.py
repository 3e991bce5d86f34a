"""Native 16-bit selects: a 16-bit program whose result is a chain of ``Select`` over its inputs and literal
constants picks the inputs' own 16-bit elements, without widening them to fp32 and rounding the result back.

A ``Select`` copies the bits of the element it picks, so selecting among 16-bit input elements (and constants
that FLOAT16 and BF16 both hold exactly) gives bit for bit what the fp32 program gives after its final
``Cast`` ``CAST_RINT``: widening is exact and the chosen value is rounded back to itself. The masks are still
computed in fp32 (a comparison against a host value in 16-bit would need the host value rounded per direction
of the comparison); only the value path is narrow."""

from __future__ import annotations

import math
import struct

from codegen.families.elementwise.compiler.values import _Values

#: The marker of a per-core constant held in the input dtype ``T`` (its key in the variant's constant table).
NARROW_SUFFIX = "@T"

_Code = tuple[str, int, tuple[int, ...], str | None, str | None, str | None, float]


def exact_in_16bit(literal: str) -> bool:
    """Whether the C++ float literal ``literal`` (``0.0f``) is a finite value FLOAT16 and BF16 both hold
    exactly (so ``static_cast<T>`` of it is that value for either ``T``); False for a tiling field
    (``scalar0_``), whose value is known only per call."""
    if not literal.endswith("f"):
        return False
    try:
        value = float(literal[:-1])
    except ValueError:
        return False
    if not math.isfinite(value):
        return False
    try:
        as_half = struct.unpack("e", struct.pack("e", value))[0]
    except OverflowError:
        return False
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return as_half == value and bits & 0xFFFF == 0  # BF16 is the upper half of the fp32 bits


def narrow_selects(b: _Values, root: int) -> set[int]:
    """Rewrites ``b.code`` so that the chain of ``Select`` (tensor-tensor mode) ending at ``root`` picks the
    16-bit input elements themselves, and returns the registers of that chain (each is written into the
    output buffer; empty where the rule does not apply and ``b.code`` is unchanged).

    It applies to a 16-bit program (``b.cast_inputs``) whose root is a ``Select`` and whose every chain link
    takes, as each of its two sources, an input's widened value (its ``Cast`` ``CAST_NONE``), a ``Duplicate``
    of a literal :func:`exact_in_16bit` accepts (or, in ``VSEL_TENSOR_SCALAR_MODE``, such a literal as its
    scalar), or (for at most one of them) the next link, used by nothing else. The links then read the raw
    input buffers and per-core constants of dtype ``T`` in ``VSEL_TENSOR_TENSOR_MODE``; a widening ``Cast`` or
    ``Duplicate`` that nothing reads any more is dropped."""
    if not b.cast_inputs:
        return set()
    by_dst = {entry[1]: entry for entry in b.code}
    uses: dict[int, int] = {}
    for entry in b.code:
        for s in entry[2]:
            uses[s] = uses.get(s, 0) + 1
    raw_of = {dst: srcs[0] for op, dst, srcs, *_ in b.code if op == "Cast" and srcs and srcs[0] in b.reg_source}

    def plain(reg: int) -> bool:
        entry = by_dst.get(reg)
        if reg in raw_of:
            return True
        return entry is not None and entry[0] == "Duplicate" and entry[3] is not None and exact_in_16bit(entry[3])

    chain: list[int] = []
    reg = root
    while True:
        link = by_dst.get(reg)
        if link is None or link[0] != "Select":
            return set()
        entry = link
        if entry[5] == "VSEL_TENSOR_SCALAR_MODE":
            if entry[3] is None or not exact_in_16bit(entry[3]):
                return set()
        elif entry[5] != "VSEL_TENSOR_TENSOR_MODE":
            return set()
        chain.append(reg)
        links = [s for s in entry[2][1:] if not plain(s)]
        if not links:
            break
        if len(links) > 1 or uses.get(links[0], 0) != 1:
            return set()
        reg = links[0]
    narrow_const: dict[str, int] = {}  # literal -> the register of its constant in T

    def constant(literal: str) -> int:
        if literal not in narrow_const:
            narrow_const[literal] = b._new()
        return narrow_const[literal]

    code: list[_Code] = []
    for entry in b.code:
        op, dst, srcs, scalar, rm, mode, approx = entry
        if dst in chain:
            new_srcs = [srcs[0]]
            for s in srcs[1:]:
                if s in raw_of:
                    new_srcs.append(raw_of[s])
                elif s in chain:
                    new_srcs.append(s)
                else:
                    literal = by_dst[s][3]
                    assert literal is not None  # plain(s): a Duplicate of a literal
                    new_srcs.append(constant(literal))
            if mode == "VSEL_TENSOR_SCALAR_MODE":  # the scalar src1 becomes a constant tensor in T
                assert scalar is not None
                new_srcs.append(constant(scalar))
            entry = (op, dst, tuple(new_srcs), None, rm, "VSEL_TENSOR_TENSOR_MODE", approx)
        code.append(entry)
    fills: list[_Code] = [("Duplicate", t, (), literal, None, None, 0.0) for literal, t in narrow_const.items()]
    code = fills + code
    # drop what nothing reads any more (widening casts and fills the chain no longer reads), until none is left
    while True:
        read = {s for entry in code for s in entry[2]}
        dead = [e for e in code if e[1] not in read and e[1] != root and e[0] in ("Cast", "Duplicate")]
        if not dead:
            break
        code = [e for e in code if e not in dead]
    b.code = code
    b.narrow_consts = set(narrow_const.values())
    return set(chain)


#: ``CMPMODE`` -> the ``RoundMode`` that rounds a host value to the input dtype ``T`` without changing the
#: comparison's result on any value of ``T``: for a ``T`` value ``x`` and a real ``s``, ``x <= s`` iff
#: ``x <= floor_T(s)`` and ``x > s`` iff ``x > floor_T(s)`` (no ``T`` value lies in ``(floor_T(s), s]``);
#: ``x < s`` iff ``x < ceil_T(s)`` and ``x >= s`` iff ``x >= ceil_T(s)``. Past the largest finite ``T`` the
#: directed rounding gives that largest value or the infinity on its side, which keeps the equivalences; a
#: NaN stays NaN (every ordered comparison false on both sides). ``EQ``/``NE`` have no such rounding.
COMPARE_ROUNDING = {"LE": "CAST_FLOOR", "GT": "CAST_FLOOR", "LT": "CAST_CEIL", "GE": "CAST_CEIL"}
#: The instruction names of a comparison in the input dtype (:func:`narrow_compares`); the kernel's helpers
#: of these names run the 16-bit form on FLOAT16 and the fp32 form on BF16.
WIDEN_FOR_COMPARE = "CastElemsForCompare"
COMPARE_ELEMS = "CompareElems"


def narrow_compares(b: _Values) -> None:
    """Rewrites ``b.code`` so that a 16-bit input compared only with host values is compared in its own
    dtype where the hardware compares that dtype (FLOAT16; BF16 keeps the fp32 comparison).

    It applies to each widening ``Cast`` of an input (``b.cast_inputs``) whose every reader is a ``Compares``
    of it with a literal or host field in a mode of :data:`COMPARE_ROUNDING`. The ``Cast`` becomes
    :data:`WIDEN_FOR_COMPARE` (the kernel's helper: a ``Cast`` on BF16, nothing on FLOAT16) and each
    ``Compares`` becomes :data:`COMPARE_ELEMS` with sources (the widened register, the raw input, a per-core
    constant of the host value rounded to ``T`` by :data:`COMPARE_ROUNDING` of its mode), keeping its scalar
    and mode: on FLOAT16 the kernel compares the raw input with the constant (``Compare`` in half, whose
    result equals the fp32 ``Compares`` for every half value), on BF16 the widened register with the scalar.
    The constants are ``Duplicate`` entries with the ``RoundMode`` in their rounding field, registered in
    ``b.narrow_consts`` (one per scalar and rounding)."""
    if not b.cast_inputs:
        return
    readers: dict[int, list[int]] = {}
    for k, entry in enumerate(b.code):
        for s in entry[2]:
            readers.setdefault(s, []).append(k)
    rounded: dict[tuple[str, str], int] = {}
    fills: list[_Code] = []
    code = list(b.code)
    for k, (op, dst, srcs, _scalar, _rm, _mode, _approx) in enumerate(b.code):
        if op != "Cast" or not srcs or srcs[0] not in b.reg_source:
            continue
        uses = readers.get(dst, [])
        if not uses or not all(
            b.code[u][0] == "Compares" and b.code[u][3] is not None and b.code[u][5] in COMPARE_ROUNDING for u in uses
        ):
            continue
        code[k] = (WIDEN_FOR_COMPARE, *b.code[k][1:])
        for u in uses:
            _, c_dst, _, c_scalar, c_rm, c_mode, c_approx = b.code[u]
            assert c_scalar is not None and c_mode is not None
            key = (c_scalar, COMPARE_ROUNDING[c_mode])
            if key not in rounded:
                rounded[key] = b._new()
                fills.append(("Duplicate", rounded[key], (), c_scalar, key[1], None, 0.0))
            code[u] = (COMPARE_ELEMS, c_dst, (dst, srcs[0], rounded[key]), c_scalar, c_rm, c_mode, c_approx)
    if fills:
        b.code = fills + code
        b.narrow_consts = b.narrow_consts | set(rounded.values())
