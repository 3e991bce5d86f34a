"""The emulated ``AscendC::Power`` with a scalar exponent (runtime/include/opgen_rt/device/power.h):
``dst[i] = src[i] ** exponent``, compiled against the emulated AscendC and run on one core, its values compared
with NumPy computed here (IEEE pow in float64 of the float operands, rounded to the element type; the
emulator's powf in float may differ by one ULP), for float and half on Ascend910B (NpuArch 2201: the
two-parameter template) and Ascend950 (3510: with PowerConfig); the special values bit for bit; and its part
in the emulator's checks: a source never written, a misaligned source; in the counters the 33 full-width
vector instructions of ``n`` elements the float composition issues on NpuArch 2201 (35 for half: its two
Casts)."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from codegen.build.library import _runtime_objects, _tree_digest
from codegen.build.toolchain import BASE_FLAGS
from codegen.paths import project_paths

RUNTIME = Path(__file__).resolve().parents[1] / "runtime"

#: argv: dtype (0 float, 1 half), mode (0 plain, 1 src never written, 2 src one element past its buffer's
#: start, 3 + k: the kernel's buffers leave k * 32 bytes of UB before PopStackBuffer's end), n, the exponent's
#: raw bits (hex, the dtype). stdin: src bits. stdout: the result's bits; stderr: "ok"
#: (or the fault), then "vectorInstructions vectorElements" of Power alone (the counters' difference from a
#: second launch of the same kernel without it). Compiled once per NpuArch (-D__NPU_ARCH__).
PROGRAM = r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {
int g_mode = 0;
int64_t g_n = 0;
uint32_t g_bits = 0;
bool g_withPower = true;

template <typename T>
void Entry(uint8_t **args) {
  GlobalTensor<T> gs, go;
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[0]), static_cast<uint64_t>(g_n));
  go.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[1]), static_cast<uint64_t>(g_n));
  TPipe pipe;
  TBuf<TPosition::VECCALC> bs, bd;
  const uint32_t bytes = static_cast<uint32_t>((g_n * static_cast<int64_t>(sizeof(T)) + 31) / 32 * 32 + 32);
  pipe.InitBuffer(bs, bytes);
  pipe.InitBuffer(bd, bytes);
  if (g_mode >= 3) {  // a buffer that leaves (g_mode - 3) * 32 bytes before PopStackBuffer's end address
    const opgen_rt::ProductInfo &p = __NPU_ARCH__ == 3510 ? th::Ascend950() : th::Ascend910B();
    const uint64_t end = __NPU_ARCH__ == 2201 ? p.ubBytes - 64 : p.ubBytes;
    const uint64_t left = static_cast<uint64_t>(g_mode - 3) * 32;
    static TBuf<TPosition::VECCALC> filler;
    pipe.InitBuffer(filler, static_cast<uint32_t>(end - 2 * uint64_t{bytes} - left));
  }
  LocalTensor<T> s = bs.Get<T>();
  LocalTensor<T> d = bd.Get<T>();
  if (g_mode != 1) {
    DataCopyPad(s, gs, DataCopyExtParams{1, static_cast<uint32_t>(g_n * sizeof(T)), 0, 0, 0},
                DataCopyPadExtParams<T>{false, 0, 0, T(0)});
  }
  PipeBarrier<PIPE_ALL>();
  T k;
  std::memcpy(&k, &g_bits, sizeof(T));
  Duplicate(d, T(0), static_cast<int32_t>(g_n));
  PipeBarrier<PIPE_V>();
  if (g_withPower) {
    Power(d, g_mode == 2 ? s[1] : s, k, static_cast<uint32_t>(g_n));
  }
  PipeBarrier<PIPE_ALL>();
  DataCopyPad(go, d, DataCopyExtParams{1, static_cast<uint32_t>(g_n * sizeof(T)), 0, 0, 0});
}

template <typename T>
int Main() {
  th::UseProduct(__NPU_ARCH__ == 3510 ? th::Ascend950() : th::Ascend910B());
  const uint64_t n = static_cast<uint64_t>(g_n);
  th::Gm src(n * sizeof(T), "src", false), out(n * sizeof(T), "out");
  if (std::fread(src.data(), 1, src.bytes, stdin) != src.bytes) {
    return 3;
  }
  th::KernelLaunch k;
  k.name = "power";
  k.entry = Entry<T>;
  k.args = {&src, &out};
  const opgen_rt::LaunchResult r = th::Run(k);
  std::fwrite(out.data(), 1, out.bytes, stdout);
  g_withPower = false;
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
  if (argc != 5) {
    return 2;
  }
  const int dtype = std::atoi(argv[1]);
  g_mode = std::atoi(argv[2]);
  g_n = std::atoll(argv[3]);
  g_bits = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 16));
  return dtype == 0 ? Main<float>() : Main<half>();
}
"""

#: The NpuArch of each product the test runs on.
ARCHS = {"Ascend910B": 2201, "Ascend950": 3510}
NP = {"float": np.float32, "half": np.float16}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The program compiled once per product's NpuArch with the device test harness and the runtime objects every
    op library build shares (the C ABI unit left out)."""
    work = tmp_path_factory.mktemp("power")
    (work / "power.cpp").write_text(PROGRAM)
    paths = project_paths()
    digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    objects = [o for o in _runtime_objects(paths, list(BASE_FLAGS), digest, 2) if o.name != "host__c_api.o"]
    includes = [f"-I{RUNTIME / 'include'}", f"-I{RUNTIME / 'tests_device'}"]
    sources = [work / "power.cpp", RUNTIME / "tests_device" / "harness.cpp"]
    out = {}
    for product, arch in ARCHS.items():
        binary = work / f"power_{arch}"
        flags = [*BASE_FLAGS, f"-D__NPU_ARCH__={arch}", "-O1", "-Werror", *includes]
        subprocess.run(["g++", *flags, *map(str, [*sources, *objects]), "-o", str(binary), "-ldl"], check=True)
        out[product] = binary
    return out


def _run(program: Path, dtype: str, mode: int, src: np.ndarray, k: float) -> tuple[np.ndarray, list[str]]:
    t = NP[dtype]
    bits = int(np.asarray(k, t).view(np.uint32 if t is np.float32 else np.uint16))
    proc = subprocess.run(
        [str(program), "0" if dtype == "float" else "1", str(mode), str(src.size), f"{bits:x}"],
        input=src.astype(t).tobytes(),
        capture_output=True,
        check=True,
    )
    return np.frombuffer(proc.stdout, t).astype(np.float64), proc.stderr.decode().splitlines()


def _ieee_pow(x: float, s: float) -> float:
    """IEEE pow of two float64 values (math.pow, with its raising cases given their IEEE results)."""
    if x == 0 and s < 0:
        odd = s.is_integer() and int(s) % 2 == 1
        return -math.inf if odd and math.copysign(1.0, x) < 0 else math.inf
    try:
        return math.pow(x, s)
    except ValueError:  # a negative finite base with a non-integer exponent
        return math.nan
    except OverflowError:
        return math.copysign(math.inf, x) if s.is_integer() and int(s) % 2 == 1 else math.inf


#: The special bases: zeros of both signs, infinities, NaN, 1, -1, negatives, a subnormal.
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, -2.0, -3.0, -0.5, 2.0, 1e-6]


@pytest.mark.parametrize("product", list(ARCHS))
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("k", [0.0, 0.5, 2.0, -1.0, 3.0, -1.7])
def test_values_against_numpy(programs: dict[str, Path], product: str, dtype: str, k: float) -> None:
    """Each element is IEEE pow of the float operands rounded to the dtype: within one ULP of the dtype for the
    random values of both signs, bit for bit (sign of zero included) for the special bases; 33 (float) or 35
    (half) vector instructions of ``n`` elements."""
    t = NP[dtype]
    rng = np.random.default_rng(7)
    rand = rng.uniform(-8.0, 8.0, 301)
    src = np.concatenate([np.asarray(SPECIAL), rand]).astype(t).astype(np.float64)
    kk = float(t(k))
    got, lines = _run(programs[product], dtype, 0, src, k)
    assert lines[0] == "ok", lines
    with np.errstate(all="ignore"):
        want = np.array([_ieee_pow(float(np.float32(x)), kk) for x in src]).astype(t).astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    n_special = len(SPECIAL)
    fin = ~np.isnan(want)
    head = fin[:n_special]
    assert np.array_equal(got[:n_special][head], want[:n_special][head])
    assert np.array_equal(np.signbit(got[:n_special][head]), np.signbit(want[:n_special][head]))
    tail_g, tail_w = got[n_special:][fin[n_special:]], want[n_special:][fin[n_special:]]
    finite = np.isfinite(tail_w)
    assert np.array_equal(tail_g[~finite], tail_w[~finite])
    ulp = np.spacing(np.abs(tail_w[finite]).astype(t)).astype(np.float64)
    assert np.all(np.abs(tail_g[finite] - tail_w[finite]) <= ulp)
    ops = 33 if dtype == "float" else 35  # the composition's full-width instructions (and half's two Casts)
    assert lines[1] == f"{ops} {ops * src.size}"


def test_known_values(programs: dict[str, Path]) -> None:
    """A few values by hand: (-2) ** 3 = -8, 4 ** 0.5 = 2, (-2) ** 0.5 = NaN, 0 ** -1 = inf, NaN ** 0 = 1."""
    for k, base, want in [(3.0, -2.0, -8.0), (0.5, 4.0, 2.0), (-1.0, 0.0, math.inf), (0.0, math.nan, 1.0)]:
        got, _ = _run(programs["Ascend910B"], "float", 0, np.array([base, base]), k)
        assert got[0] == want
    got, _ = _run(programs["Ascend910B"], "float", 0, np.array([-2.0]), 0.5)
    assert math.isnan(got[0])


@pytest.mark.parametrize(("mode", "fault"), [(1, "uninitialized read"), (2, "align")])
def test_operand_faults(programs: dict[str, Path], mode: int, fault: str) -> None:
    """A source never written and a source off a 32-byte boundary are faults of the launch, named by Power."""
    _, lines = _run(programs["Ascend910B"], "float", mode, np.arange(16.0), 2.0)
    assert lines[0] != "ok"
    assert "Power" in lines[0]
    assert fault in lines[0].lower(), lines[0]


@pytest.mark.parametrize(("dtype", "least"), [("float", 768), ("half", 1152)])
def test_power_needs_the_ub_its_stack_buffer_takes(programs: dict[str, Path], dtype: str, least: int) -> None:
    """On NpuArch 2201 the form without sharedTmpBuffer takes the UB the kernel's buffers leave (PopStackBuffer, up
    to 64 bytes before the end of UB) and needs more than a 256-byte repeat plus one 32-element block of each of
    its fp32 lines (4 for float, 7 for half: asc-devkit power_v220_impl.h, power_common_impl.h): ``least`` bytes
    run, 32 fewer are a UB capacity fault naming Power."""
    src = np.arange(16.0)
    got, lines = _run(programs["Ascend910B"], dtype, 3 + least // 32, src, 2.0)
    assert lines[0] == "ok", lines
    assert np.array_equal(got, src**2)
    _, lines = _run(programs["Ascend910B"], dtype, 3 + least // 32 - 1, src, 2.0)
    assert "UB capacity" in lines[0] and "Power without sharedTmpBuffer" in lines[0], lines
    assert f"needs at least {least} bytes there on NpuArch 2201; {least - 32} left" in lines[0], lines
