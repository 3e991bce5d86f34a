"""The emulated ``AscendC::Axpy`` (runtime/include/opgen_rt/device/vec.h): ``dst[i] = src[i] * scalar + dst[i]``
compiled against the emulated AscendC and run on one core, its values compared with NumPy computed here
(the product rounded to the dst dtype, then the sum: the documented assumption of docs/emulator.md), for
float/float, half/half and half into float on Ascend910B and bfloat16_t/bfloat16_t on Ascend950; and its part in
the emulator's checks: an undefined dst (it is read), a misaligned src, a dst copied in with no
synchronisation (a pipe race on the read of dst), bfloat16_t off Ascend950; one vector instruction of ``n``
elements in the counters."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from codegen.build.library import _runtime_objects, _tree_digest
from codegen.build.toolchain import BASE_FLAGS
from codegen.paths import project_paths

RUNTIME = Path(__file__).resolve().parents[1] / "runtime"

#: argv: pair (0 float/float, 1 half/half, 2 half into float, 3 bfloat16_t/bfloat16_t), product (0 Ascend910B,
#: 1 Ascend950), mode (0 plain, 1 dst never written, 2 src one element past its buffer's start, 3 dst copied in
#: with no barrier before Axpy), n, the scalar's raw bits (hex, the src dtype). stdin: src bits, then dst bits.
#: stdout: the result's bits; stderr: "ok" (or the fault), then "vectorInstructions vectorElements" of the
#: Axpy alone (the counters' difference from a second launch of the same kernel without it).
PROGRAM = r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {
int g_mode = 0;
int64_t g_n = 0;
uint32_t g_scalarBits = 0;
bool g_withAxpy = true;

template <typename T>
uint32_t Padded(int64_t n) {
  return static_cast<uint32_t>((n * static_cast<int64_t>(sizeof(T)) + 31) / 32 * 32 + 32);
}

template <typename T, typename U>
void Entry(uint8_t **args) {
  GlobalTensor<U> gs;
  GlobalTensor<T> gd, go;
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ U *>(args[0]), static_cast<uint64_t>(g_n));
  gd.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[1]), static_cast<uint64_t>(g_n));
  go.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[2]), static_cast<uint64_t>(g_n));
  TPipe pipe;
  TBuf<TPosition::VECCALC> bs, bd;
  pipe.InitBuffer(bs, Padded<U>(g_n));
  pipe.InitBuffer(bd, Padded<T>(g_n));
  LocalTensor<U> s = bs.Get<U>();
  LocalTensor<T> d = bd.Get<T>();
  DataCopyPad(s, gs, DataCopyExtParams{1, static_cast<uint32_t>(g_n * sizeof(U)), 0, 0, 0},
              DataCopyPadExtParams<U>{false, 0, 0, U(0)});
  PipeBarrier<PIPE_ALL>();
  if (g_mode != 1) {
    DataCopyPad(d, gd, DataCopyExtParams{1, static_cast<uint32_t>(g_n * sizeof(T)), 0, 0, 0},
                DataCopyPadExtParams<T>{false, 0, 0, T(0)});
  }
  if (g_mode != 3) {
    PipeBarrier<PIPE_ALL>();
  }
  U k;
  std::memcpy(&k, &g_scalarBits, sizeof(U));
  if (g_withAxpy) {
    Axpy(d, g_mode == 2 ? s[1] : s, k, static_cast<int32_t>(g_n));
  }
  PipeBarrier<PIPE_ALL>();
  DataCopyPad(go, d, DataCopyExtParams{1, static_cast<uint32_t>(g_n * sizeof(T)), 0, 0, 0});
}

template <typename T, typename U>
int Main(int product) {
  th::UseProduct(product == 0 ? th::Ascend910B() : th::Ascend950());
  const uint64_t n = static_cast<uint64_t>(g_n);
  th::Gm src(n * sizeof(U), "src", false), dst(n * sizeof(T), "dst", false), out(n * sizeof(T), "out");
  if (std::fread(src.data(), 1, src.bytes, stdin) != src.bytes ||
      std::fread(dst.data(), 1, dst.bytes, stdin) != dst.bytes) {
    return 3;
  }
  th::KernelLaunch k;
  k.name = "axpy";
  k.entry = Entry<T, U>;
  k.args = {&src, &dst, &out};
  const opgen_rt::LaunchResult r = th::Run(k);
  std::fwrite(out.data(), 1, out.bytes, stdout);
  g_withAxpy = false;
  const opgen_rt::LaunchResult base = th::Run(k);
  std::fprintf(stderr, "%s\n", r.ok ? "ok" : r.fault.c_str());
  if (r.ok && base.ok) {
    std::fprintf(stderr, "%llu %llu\n",
                 static_cast<unsigned long long>(r.cores[0].vectorInstructions - base.cores[0].vectorInstructions),
                 static_cast<unsigned long long>(r.cores[0].vectorElements - base.cores[0].vectorElements));
  }
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  if (argc != 6) {
    return 2;
  }
  const int pair = std::atoi(argv[1]);
  const int product = std::atoi(argv[2]);
  g_mode = std::atoi(argv[3]);
  g_n = std::atoll(argv[4]);
  g_scalarBits = static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 16));
  switch (pair) {
    case 0:
      return Main<float, float>(product);
    case 1:
      return Main<half, half>(product);
    case 2:
      return Main<float, half>(product);
    default:
      return Main<bfloat16_t, bfloat16_t>(product);
  }
}
"""

#: The pairs (dst dtype, src dtype) by the program's code.
PAIRS = {"float/float": 0, "half/half": 1, "half->float": 2, "bf16/bf16": 3}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program compiled with the device test harness (which defines the products) and the runtime objects
    every op library build shares (the C ABI unit left out)."""
    work = tmp_path_factory.mktemp("axpy")
    (work / "axpy.cpp").write_text(PROGRAM)
    paths = project_paths()
    digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    objects = [o for o in _runtime_objects(paths, list(BASE_FLAGS), digest, 2) if o.name != "host__c_api.o"]
    binary = work / "axpy"
    includes = [f"-I{RUNTIME / 'include'}", f"-I{RUNTIME / 'tests_device'}"]
    sources = [work / "axpy.cpp", RUNTIME / "tests_device" / "harness.cpp"]
    subprocess.run(
        ["g++", *BASE_FLAGS, "-O1", "-Werror", *includes, *map(str, [*sources, *objects]), "-o", str(binary), "-ldl"],
        check=True,
    )
    return binary


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 ``x`` rounded to bfloat16 (to nearest even), as its 16 bits."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _round(x: np.ndarray, dtype: str) -> np.ndarray:
    """float64 ``x`` rounded once to ``dtype`` (``float``, ``half``, ``bf16``; from float64 directly)."""
    if dtype == "float":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "half":
        return x.astype(np.float16).astype(np.float64)
    # bfloat16: round the float64 to 8 significant bits directly (no detour through float32)
    m, e = np.frexp(x)
    return np.ldexp(np.round(m * 256.0) / 256.0, e)


def _encode(x: np.ndarray, dtype: str) -> bytes:
    if dtype == "float":
        return x.astype(np.float32).tobytes()
    if dtype == "half":
        return x.astype(np.float16).tobytes()
    return _bf16_bits(x.astype(np.float32)).tobytes()


def _decode(raw: bytes, dtype: str) -> np.ndarray:
    if dtype == "float":
        return np.frombuffer(raw, np.float32).astype(np.float64)
    if dtype == "half":
        return np.frombuffer(raw, np.float16).astype(np.float64)
    return _bf16_value(np.frombuffer(raw, np.uint16)).astype(np.float64)


def _scalar_hex(value: float, dtype: str) -> str:
    if dtype == "float":
        return f"{int(np.float32(value).view(np.uint32)):x}"
    if dtype == "half":
        return f"{int(np.float16(value).view(np.uint16)):x}"
    return f"{int(_bf16_bits(np.asarray([value], dtype=np.float32))[0]):x}"


def _run(
    program: Path, pair: str, product: int, mode: int, src: np.ndarray, dst: np.ndarray, k: float
) -> tuple[np.ndarray, list[str]]:
    d_dtype, s_dtype = {"float/float": ("float", "float"), "half/half": ("half", "half"),
                        "half->float": ("float", "half"), "bf16/bf16": ("bf16", "bf16")}[pair]  # fmt: skip
    proc = subprocess.run(
        [str(program), str(PAIRS[pair]), str(product), str(mode), str(src.size), _scalar_hex(k, s_dtype)],
        input=_encode(src, s_dtype) + _encode(dst, d_dtype),
        capture_output=True,
        check=True,
    )
    return _decode(proc.stdout, d_dtype), proc.stderr.decode().splitlines()


def _operands(n: int, s_dtype: str, d_dtype: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Values exact in their dtypes, of either sign, with magnitudes in [2**-5, 2**5) (so the float sum of two
    of them, or of a product and one, is exact and the emulator's float arithmetic rounds only where NumPy's
    reference does), zeros of both signs, an infinity and a NaN; most products and sums round."""
    rng = np.random.default_rng(seed)

    def draw() -> np.ndarray:
        return rng.choice([-1.0, 1.0], n) * rng.uniform(1.0, 2.0, n) * np.exp2(rng.integers(-5, 5, n))

    src, dst = draw(), draw()
    src[:6] = [0.0, -0.0, 1.0, np.inf, np.nan, 3.0]
    dst[:6] = [-0.0, 0.0, -1.0, 1.0, 2.0, np.inf]
    return _round(src, s_dtype), _round(dst, d_dtype)


@pytest.mark.parametrize(
    ("pair", "product", "k"),
    [
        ("float/float", 0, 0.1),
        ("float/float", 0, -3.0),
        ("half/half", 0, 0.3),
        ("half->float", 0, -0.7),
        ("bf16/bf16", 1, 1.7),
    ],
)
def test_values_against_numpy(program: Path, pair: str, product: int, k: float) -> None:
    """Every element is NumPy's ``round(round(src * k) + dst)`` in the dst dtype (the product computed in
    float64, exact for these operands, rounded once to the dst dtype; then the sum likewise), bit for bit, NaN
    where NumPy has NaN; the counters show one vector instruction of ``n`` elements."""
    d_dtype, s_dtype = {"float/float": ("float", "float"), "half/half": ("half", "half"),
                        "half->float": ("float", "half"), "bf16/bf16": ("bf16", "bf16")}[pair]  # fmt: skip
    n = 1000
    src, dst = _operands(n, s_dtype, d_dtype, seed=PAIRS[pair])
    kk = float(_round(np.asarray([k]), s_dtype)[0])
    got, lines = _run(program, pair, product, 0, src, dst, k)
    assert lines[0] == "ok", lines
    with np.errstate(invalid="ignore", over="ignore"):
        want = _round(_round(src * kk, d_dtype) + dst, d_dtype)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    fin = ~np.isnan(want)
    assert np.array_equal(got[fin], want[fin]), np.flatnonzero(got[fin] != want[fin])[:5]
    assert np.array_equal(np.signbit(got[fin]), np.signbit(want[fin]))
    assert lines[1] == f"1 {n}"


def test_two_roundings_not_one(program: Path) -> None:
    """The product is rounded before the sum (float/float): 1 + 2**-23 times itself is 1 + 2**-22 + 2**-46,
    which rounds to 1 + 2**-22; minus (1 + 2**-22) that is 0, where one rounding of the fused value would
    keep 2**-46."""
    x = 1.0 + 2.0**-23
    src = np.full(64, x)
    dst = np.full(64, -(1.0 + 2.0**-22))
    got, lines = _run(program, "float/float", 0, 0, src, dst, x)
    assert lines[0] == "ok", lines
    assert np.all(got == 0.0)


@pytest.mark.parametrize(
    ("pair", "product", "mode", "rule", "text"),
    [
        ("float/float", 0, 1, "UB uninitialized read", "Axpy"),  # dst is an operand: read before written
        ("half/half", 0, 2, "UB alignment", "Axpy: src UB address"),
        ("float/float", 0, 3, "pipe race", "Axpy (PIPE_V) reads UB bytes"),  # the read of dst, before its write
        ("bf16/bf16", 0, 0, "vector dtype", "Axpy on bfloat16_t tensors is not supported on Ascend910B"),
    ],
)
def test_faults(program: Path, pair: str, product: int, mode: int, rule: str, text: str) -> None:
    """Axpy takes part in the emulator's checks like every vector instruction."""
    s_dtype = "half" if pair == "half/half" else "bf16" if pair == "bf16/bf16" else "float"
    src, dst = _operands(64, s_dtype, s_dtype, seed=5)
    _, lines = _run(program, pair, product, mode, src, dst, 2.0)
    assert f"kernel fault [{rule}]" in lines[0] and text in lines[0], lines[0]
