"""The compiled form of the floating comparison (``native_compare.cpp`` beside this file), built once into the
build cache (``<cache>/native/<key>/libopgen_compare.so``, the key covering the compiler, the flags and the
source) and loaded with ctypes.

:func:`codegen.check.compare.compare` uses it for FLOAT, FLOAT16 and BF16 outputs: one pass per element in
place of about fifty NumPy passes. The NumPy code in ``compare.py`` stays the statement of the rule and the
path taken when the library cannot be built or ``OPGEN_NO_NATIVE_COMPARE=1`` is set;
``tests/test_compare_native.py`` holds both to the same results bit for bit.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import threading
from pathlib import Path

import numpy as np

from codegen.build import BuildError, cache_dir
from codegen.build.cache import _building, _commit_locked, build_workdir
from codegen.build.toolchain import CXX, _run, compiler_version

#: The environment variable that turns the compiled comparison off (any non-empty value but ``0``).
DISABLE_ENV = "OPGEN_NO_NATIVE_COMPARE"

SOURCE = Path(__file__).with_name("native_compare.cpp")

#: Flags of the comparison library: no floating-point contraction or reassociation (the sums and products
#: must round as NumPy's do), warnings are errors.
FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-Wall", "-Wextra")

_LOCK = threading.Lock()
#: The loaded library of this process: unset, the library, or None when it cannot be had.
_LOADED: list[ctypes.CDLL | None] = []

_P = ctypes.c_void_p
_I64 = ctypes.c_int64
_INT = ctypes.c_int


def disabled() -> bool:
    """Whether ``OPGEN_NO_NATIVE_COMPARE`` asks for the NumPy comparison."""
    return os.environ.get(DISABLE_ENV, "") not in ("", "0")


def _build() -> Path:
    """The cached library, compiled on first use.

    Raises:
        BuildError: the compiler failed or warned.
        OSError: the cache cannot be written.
    """
    source = SOURCE.read_bytes()
    key = hashlib.sha256("\0".join([compiler_version(), CXX, *FLAGS]).encode() + b"\0" + source).hexdigest()[:24]
    cache = cache_dir()
    entry = cache / "native" / key / "libopgen_compare.so"
    with _building(entry) as cached:
        if not cached:
            work = build_workdir(cache)
            try:
                tmp = work / entry.name
                _run([CXX, *FLAGS, str(SOURCE), "-o", str(tmp)], "compiling the comparison library")
                _commit_locked(tmp, entry)
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return entry


def library() -> ctypes.CDLL | None:
    """The comparison library of this process (built and loaded on the first call), or None when
    :func:`disabled` or when it cannot be built or loaded (the caller then compares with NumPy)."""
    if disabled():
        return None
    with _LOCK:
        if not _LOADED:
            lib: ctypes.CDLL | None
            try:
                lib = ctypes.CDLL(str(_build()))
                fn = lib.opgen_compare_float
                fn.restype = _INT
                fn.argtypes = [_P, _P, _INT, _INT, _INT, _P, _I64, _P, _I64, _P, _I64, _INT, _P, _P, _P, _P]
                lib.opgen_round_to_bits.restype = None
                lib.opgen_round_to_bits.argtypes = [_P, _I64, _INT, _INT, _INT, _P]
            except (BuildError, OSError, AttributeError):
                lib = None
            _LOADED.append(lib)
        return _LOADED[0]


def round_bits(lib: ctypes.CDLL, values: np.ndarray, uint: np.dtype, nmant: int, bias: int) -> np.ndarray:
    """Float64 ``values`` (contiguous) rounded to nearest, ties to even, once, to the binary format of ``uint``'s
    width, ``nmant`` stored mantissa bits and exponent bias ``bias``: the bit patterns, as ``uint`` (the same
    values as :func:`codegen.check.compare.round_to_dtype`)."""
    out = np.empty(values.size, dtype=uint)
    lib.opgen_round_to_bits(_ptr(values), int(values.size), uint.itemsize * 8, nmant, bias, _ptr(out))
    return out


def _ptr(a: np.ndarray | None) -> int | None:
    return None if a is None else int(a.ctypes.data)


def compare_pass(
    lib: ctypes.CDLL,
    got_bits: np.ndarray,
    expected_bits: np.ndarray,
    nmant: int,
    bias: int,
    ref: np.ndarray,
    rtol: np.ndarray,
    atol: np.ndarray | None,
    lazy: int,
    lazy_atol: np.ndarray | None = None,
    need: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One call of ``opgen_compare_float`` (see native_compare.cpp) over ``n`` elements.

    Args:
        got_bits, expected_bits: the output and the reference rounded to the output dtype, as contiguous
            uint16 or uint32 bit patterns of ``n`` elements.
        nmant, bias: the output dtype's stored mantissa bits and exponent bias.
        ref: the float64 reference, contiguous, ``n`` elements.
        rtol, atol: float64, contiguous, ``n`` elements or one (broadcast); ``atol`` None with ``lazy`` 1 or 2.
        lazy: 0 (``atol`` given), 1 (list in ``need``, int64 of ``n``, the elements not accepted without an
            atol), 2 (``lazy_atol`` holds the atols of the elements pass 1 listed, in its order).

    Returns:
        ``(floats, ints)``: float64 ``[max_abs, bound_at_worst, max_ulp, bound_at_bad]`` and int64
        ``[worst, bad_count, first_bad, need_count]``.
    """
    n = int(ref.size)
    out_f = np.zeros(4)
    out_i = np.zeros(4, dtype=np.int64)
    bits = got_bits.dtype.itemsize * 8
    lib.opgen_compare_float(
        _ptr(got_bits),
        _ptr(expected_bits),
        bits,
        nmant,
        bias,
        _ptr(ref),
        n,
        _ptr(rtol),
        0 if rtol.size == 1 else 1,
        _ptr(atol),
        0 if atol is None or atol.size == 1 else 1,
        lazy,
        _ptr(lazy_atol),
        _ptr(need),
        _ptr(out_f),
        _ptr(out_i),
    )
    return out_f, out_i
