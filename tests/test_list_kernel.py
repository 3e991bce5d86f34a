"""The device side of a tensor list's split (templates/common/list_kernel.j2 ``ListUnary``) with the tiling's
``SplitList`` (templates/common/list_split.j2), compiled against the emulated AscendC and run on Ascend910B's
48 vector cores with Sqrt as the op: lists of one, two and many tensors with an empty and a 0-d one, sizes
that straddle the core split, FLOAT, FLOAT16 and BF16. Values are compared with NumPy's float64 square root
and, on one list, with ``torch._foreach_sqrt``; the emulator's DMA counters show each input element read once
and each output element written once, and its vector counters the share of each core."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from codegen.build.library import _runtime_objects, _tree_digest
from codegen.build.toolchain import BASE_FLAGS
from codegen.paths import project_paths
from codegen.render import make_environment

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime"

#: A kernel entry around ListUnary<T, C, SqrtOp> and a main that reads "dtype cores tileElements count..."
#: from argv, the inputs (raw element bits, list order) from stdin, splits the list with SplitList, launches
#: one kernel over the list and writes the outputs' bits to stdout, then per core "elements dmaBytes
#: vectorElements ubHighWater" to stderr after a line "ok" (or the fault).
PROGRAM = """
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"

using namespace AscendC;

{{ ls.split_list_function() }}

constexpr int64_t BLOCK_BYTES = 32;
constexpr int32_t LIST_BUFFERS = 2;  // the foreach kernel defines it per NpuArch (double buffering here)
{{ copies.copy_gm_to_ub("0") }}
{{ copies.copy_ub_to_gm("0") }}

{{ lk.list_unary_class() }}

struct SqrtOp {
  template <typename C>
  static __aicore__ inline void Apply(const LocalTensor<C> &dst, const LocalTensor<C> &src, int32_t count) {
    Sqrt(dst, src, count);
  }
};

constexpr int64_t kMaxTensors = 256;
constexpr int64_t kMaxCores = 64;
struct ListTiling {
  int64_t tileElements;
  int64_t counts[kMaxTensors];
  int64_t startTensor[kMaxCores];
  int64_t startOffset[kMaxCores];
  int64_t endTensor[kMaxCores];
  int64_t endOffset[kMaxCores];
};

template <typename T, typename C>
void Entry(uint8_t **args) {
  ListTiling t;  // GET_TILING_DATA's local copy
  std::memcpy(&t, args[2], sizeof(t));
  const int64_t b = GetBlockIdx();
  ListUnary<T, C, SqrtOp> op;
  op.Init(args[0], args[1], t.counts, t.startTensor[b], t.startOffset[b], t.endTensor[b], t.endOffset[b],
          t.tileElements);
  op.Process();
}

int main(int argc, char **argv) {
  th::UseProduct(th::Ascend910B());
  const int dtype = std::atoi(argv[1]);  // 0 float, 1 half, 2 bfloat16_t
  const int64_t coreCount = std::atoll(argv[2]);
  static ListTiling tiling;
  tiling.tileElements = std::atoll(argv[3]);
  const int64_t n = argc - 4;
  for (int64_t i = 0; i < n; ++i) {
    tiling.counts[i] = std::atoll(argv[4 + i]);
  }
  const int64_t bytes = dtype == 0 ? 4 : 2;
  const int64_t cores = SplitList(tiling.counts, n, 32 / bytes, coreCount, tiling.startTensor, tiling.startOffset,
                                  tiling.endTensor, tiling.endOffset);
  std::vector<std::vector<uint8_t>> x(n), y(n);
  std::vector<opgen_rt::ListElement> xe, ye;
  for (int64_t i = 0; i < n; ++i) {
    x[i].resize(static_cast<size_t>(tiling.counts[i] * bytes));
    y[i].assign(x[i].size(), 0xFF);
    if (!x[i].empty() && std::fread(x[i].data(), 1, x[i].size(), stdin) != x[i].size()) {
      return 3;
    }
    const uint64_t b = x[i].size();
    xe.push_back(opgen_rt::ListElement{b > 0 ? x[i].data() : nullptr, {tiling.counts[i]}, b});
    ye.push_back(opgen_rt::ListElement{b > 0 ? y[i].data() : nullptr, {tiling.counts[i]}, b});
  }
  opgen_rt::LaunchRequest req;
  req.kernelName = req.opType = "list_sqrt";
  req.entry = dtype == 0 ? Entry<float, float> : dtype == 1 ? Entry<half, half> : Entry<bfloat16_t, float>;
  req.blockDim = static_cast<uint32_t>(cores);
  std::vector<uint64_t> xDesc, yDesc;
  opgen_rt::AddListArgument(req, "input 0", "x", xe, false, xDesc);
  opgen_rt::AddListArgument(req, "output 0", "y", ye, true, yDesc);
  req.args.push_back(reinterpret_cast<uint8_t *>(&tiling));
  const opgen_rt::LaunchResult r = cores > 0 ? opgen_rt::RunKernel(req) : opgen_rt::LaunchResult{};
  for (const std::vector<uint8_t> &v : y) {
    std::fwrite(v.data(), 1, v.size(), stdout);
  }
  std::fprintf(stderr, "%s\\n", r.ok ? "ok" : r.fault.c_str());
  for (int64_t c = 0; c < cores; ++c) {
    int64_t elements = 0;
    for (int64_t t = tiling.startTensor[c]; t <= tiling.endTensor[c]; ++t) {
      elements += (t == tiling.endTensor[c] ? tiling.endOffset[c] : tiling.counts[t]) -
                  (t == tiling.startTensor[c] ? tiling.startOffset[c] : 0);
    }
    const opgen_rt::CoreStats &s = r.cores[static_cast<size_t>(c)];
    std::fprintf(stderr, "%lld %llu %llu %llu\\n", static_cast<long long>(elements),
                 static_cast<unsigned long long>(s.dmaBytes), static_cast<unsigned long long>(s.vectorElements),
                 static_cast<unsigned long long>(s.ubHighWaterBytes));
  }
  return 0;
}
"""

DTYPES = {"FLOAT": (0, np.float32), "FLOAT16": (1, np.float16), "BF16": (2, None)}

#: One ULP of the output dtype relative to the value (a Sqrt within 4 fp32 ULPs, then one rounding).
RTOL = {"FLOAT": 5 * 2.0**-24, "FLOAT16": 2.0**-10, "BF16": 2.0**-7}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled program: the rendered kernel and the device test harness (which defines the products),
    linked with the runtime objects every op library build shares (the build cache's; the C ABI unit, which
    needs an op's glue, left out)."""
    env = make_environment(ROOT / "templates")
    source = env.from_string(
        '{% import "common/list_split.j2" as ls %}{% import "common/list_kernel.j2" as lk %}'
        '{% import "common/kernel_copy.j2" as copies %}' + PROGRAM
    ).render()
    work = tmp_path_factory.mktemp("list_kernel")
    (work / "list_sqrt.cpp").write_text(source)
    paths = project_paths()
    digest = _tree_digest([paths.runtime / "include", paths.runtime / "src"])
    objects = [o for o in _runtime_objects(paths, list(BASE_FLAGS), digest, 2) if o.name != "host__c_api.o"]
    binary = work / "list_sqrt"
    includes = [f"-I{RUNTIME / 'include'}", f"-I{RUNTIME / 'tests_device'}"]
    sources = [work / "list_sqrt.cpp", RUNTIME / "tests_device" / "harness.cpp"]
    subprocess.run(
        ["g++", *BASE_FLAGS, "-O1", "-Werror", *includes, *map(str, [*sources, *objects]), "-o", str(binary), "-ldl"],
        check=True,
    )
    return binary


def _bits(values: np.ndarray, dtype: str) -> bytes:
    """The raw element bits of float64 ``values`` in ``dtype`` (BF16: the high half of the fp32 bits; the
    values are chosen exact in BF16)."""
    if dtype == "BF16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
    return values.astype(DTYPES[dtype][1]).tobytes()


def _values(raw: bytes, dtype: str) -> np.ndarray:
    """float64 values of raw element bits of ``dtype``."""
    if dtype == "BF16":
        return (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.frombuffer(raw, DTYPES[dtype][1]).astype(np.float64)


def _inputs(counts: list[int], dtype: str, seed: int) -> list[np.ndarray]:
    """Non-negative values exact in ``dtype`` (0 and 1 included), one array per tensor."""
    rng = np.random.default_rng(seed)
    out = []
    for n in counts:
        v = rng.uniform(0.0, 100.0, n)
        v[:2] = [0.0, 1.0][: min(n, 2)]
        out.append(_values(_bits(v, dtype), dtype))
    return out


def _run(
    program: Path, counts: list[int], dtype: str, cores: int, tile: int, xs: list[np.ndarray]
) -> tuple[list[np.ndarray], list[tuple[int, ...]]]:
    """Runs ``program`` on the list ``xs``: the outputs (float64) and per core (elements, DMA bytes, vector
    elements, UB high water)."""
    proc = subprocess.run(
        [str(program), str(DTYPES[dtype][0]), str(cores), str(tile), *map(str, counts)],
        input=b"".join(_bits(x, dtype) for x in xs),
        capture_output=True,
        check=True,
    )
    lines = proc.stderr.decode().splitlines()
    assert lines[0] == "ok", lines[0]
    itemsize = 4 if dtype == "FLOAT" else 2
    ys, at = [], 0
    for n in counts:
        ys.append(_values(proc.stdout[at : at + n * itemsize], dtype))
        at += n * itemsize
    stats = [tuple(int(v) for v in line.split()) for line in lines[1:]]
    return ys, stats


@pytest.mark.parametrize(
    ("counts", "dtype", "cores", "tile"),
    [
        ([37], "FLOAT", 48, 64),  # one tensor, a partial last block
        ([1000, 333], "FLOAT16", 48, 256),  # two tensors
        ([4096, 0, 1, 77, 3 * 1024 + 5, 8, 15, 129, 2000] + [17] * 30, "BF16", 48, 512),  # many, straddling
        ([8192, 1, 0, 8193], "FLOAT", 4, 1024),  # few cores: several tiles per core, cuts inside a tensor
    ],
)
def test_values_and_gm_traffic(program: Path, counts: list[int], dtype: str, cores: int, tile: int) -> None:
    """Every element is the square root (within one ULP of the output dtype, NumPy float64 reference); the
    DMA moved exactly each input's and each output's bytes once (no re-read, no rewrite, no padding), the
    vector unit worked on no element more than the op needs (1 per element, 3 with BF16's casts), and the
    largest core has no more than its whole blocks of the mean core's share rounded up."""
    xs = _inputs(counts, dtype, seed=len(counts))
    ys, stats = _run(program, counts, dtype, cores, tile, xs)
    for x, y in zip(xs, ys, strict=True):
        ref = np.sqrt(x)
        assert np.all(np.abs(y - ref) <= RTOL[dtype] * ref), (dtype, np.max(np.abs(y - ref) / np.maximum(ref, 1)))
    itemsize = 4 if dtype == "FLOAT" else 2
    total = sum(counts)
    assert sum(s[0] for s in stats) == total
    assert sum(s[1] for s in stats) == 2 * total * itemsize
    per_element = 3 if dtype == "BF16" else 1
    assert [s[2] for s in stats] == [per_element * s[0] for s in stats]
    assert all(s[3] <= (4 * itemsize + (4 if dtype == "BF16" else 0)) * tile for s in stats)
    block = 32 // itemsize  # every core has the same number of blocks, give or take one
    blocks = sum(-(-n // block) for n in counts)
    assert len(stats) == min(cores, blocks)
    assert max(s[0] for s in stats) <= -(-blocks // len(stats)) * block


def test_torch_foreach_sqrt_oracle(program: Path) -> None:
    """One FLOAT list (with a 0-d tensor's one element and an empty tensor) against ``torch._foreach_sqrt``."""
    counts = [300, 1, 0, 1025, 64]
    xs = _inputs(counts, "FLOAT", seed=9)
    ys, _ = _run(program, counts, "FLOAT", 48, 128, xs)
    want = torch._foreach_sqrt([torch.tensor(x, dtype=torch.float32) for x in xs])
    for y, w in zip(ys, want, strict=True):
        np.testing.assert_allclose(y, w.numpy().astype(np.float64), rtol=4 * 2.0**-24, atol=0)
