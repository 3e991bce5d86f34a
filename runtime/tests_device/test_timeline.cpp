// The pipe timeline of the emulator (ProductInfo::cost): hand-written streaming kernels whose modelled
// figures are counted by hand here, and the model's consistency: a double-buffered kernel is never modelled
// slower than the same kernel single-buffered, a memory-bound kernel takes bytes / bandwidth within a few
// percent, a vector-bound one its vector work plus the per-instruction latency, and a product without a
// cost model keeps no timeline. Hand-written test code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

// Ascend910B's facts with the catalogue's cost model (specs/products.yaml, Ascend910B cost_model).
constexpr double kClockMhz = 1800;
constexpr double kChipBytesPerSecond = 1600e9;
constexpr double kCoreBytesPerCycle = 128;
constexpr double kDmaFixed = 50;
constexpr double kArithLatency = 7;
constexpr double kScalarAccess = 10;
constexpr double kScalarWait = 18;

const opgen_rt::ProductInfo &Ascend910BModelled() {
  using opgen_rt::DtypeId;
  static const opgen_rt::ProductInfo p{
      "Ascend910B", "ascend910b", 2, 2201, 196608, 0, 48, true, true,
      {DtypeId::INT8, DtypeId::INT16, DtypeId::FLOAT16, DtypeId::BF16, DtypeId::INT32, DtypeId::FLOAT}, 8, true,
      16777216, true,
      opgen_rt::CostModel{true, kClockMhz, kChipBytesPerSecond, kCoreBytesPerCycle, kDmaFixed, {1, 2, 1, 1, 1, 1, 2},
                          {kArithLatency, 13, 13, 7, 20, 7, 20}, kScalarAccess, kScalarWait}};
  return p;
}

constexpr int64_t kTile = 8192;  // fp32 elements per tile: 32 KiB, 128 repeats of 256 bytes
constexpr double kTileRepeats = kTile * 4 / 256.0;
int32_t g_bufNum = 2;  // buffers per queue
int32_t g_vops = 1;    // Adds per tile
int64_t g_tiles = 32;  // tiles per core

// args: x, y (g_tiles * kTile floats per core, core after core). y = x + g_vops.
void StreamKernel(uint8_t **args) {
  const int64_t per = g_tiles * kTile;
  GlobalTensor<float> x, y;
  x.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]) + GetBlockIdx() * per, static_cast<uint64_t>(per));
  y.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[1]) + GetBlockIdx() * per, static_cast<uint64_t>(per));
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qin;
  TQue<TPosition::VECOUT, 2> qout;
  pipe.InitBuffer(qin, g_bufNum, kTile * sizeof(float));
  pipe.InitBuffer(qout, g_bufNum, kTile * sizeof(float));
  for (int64_t t = 0; t < g_tiles; ++t) {
    LocalTensor<float> in = qin.AllocTensor<float>();
    DataCopy(in, x[static_cast<uint64_t>(t * kTile)], kTile);
    qin.EnQue(in);
    in = qin.DeQue<float>();
    LocalTensor<float> out = qout.AllocTensor<float>();
    Adds(out, in, 1.0f, kTile);
    for (int32_t k = 1; k < g_vops; ++k) {
      Adds(out, out, 1.0f, kTile);
    }
    qin.FreeTensor(in);
    qout.EnQue(out);
    out = qout.DeQue<float>();
    DataCopy(y[static_cast<uint64_t>(t * kTile)], out, kTile);
    qout.FreeTensor(out);
  }
}

struct Figures {
  bool ok = false;
  double modelled = 0;  // the slowest core's modelled cycles
  opgen_rt::CoreStats core0;
};

Figures RunStream(uint32_t cores, int32_t bufNum, int32_t vops) {
  g_bufNum = bufNum;
  g_vops = vops;
  const uint64_t n = static_cast<uint64_t>(cores) * static_cast<uint64_t>(g_tiles * kTile);
  th::Gm x(n * 4, "x", false), y(n * 4, "y");
  th::KernelLaunch k;
  k.name = "stream";
  k.entry = StreamKernel;
  k.args = {&x, &y};
  k.blockDim = cores;
  const opgen_rt::LaunchResult r = th::Run(k);
  Figures f;
  f.ok = r.ok;
  TH_CHECK(r.ok, "stream kernel faulted: %s", r.fault.c_str());
  if (!r.ok || r.cores.empty()) {
    return f;
  }
  f.core0 = r.cores[0];
  for (const opgen_rt::CoreStats &c : r.cores) {
    f.modelled = std::max(f.modelled, c.modelledCycles);
  }
  const float got = y.as<float>()[n - 1];
  TH_CHECK(got == x.as<float>()[n - 1] + static_cast<float>(vops), "y = x + %d, got %g", vops, got);
  return f;
}

// The vector pipe's busy time is exactly the instructions' repeats and latencies, counted by hand.
void TestVectorBusy() {
  const Figures f = RunStream(1, 2, 3);
  const double perInstr = kTileRepeats * 1 + kArithLatency;  // 128 repeats of arithmetic + its latency
  const double want = static_cast<double>(g_tiles) * 3 * perInstr;
  TH_CHECK(f.core0.pipeBusyCycles[1] == want, "V busy %g cycles, hand count %g", f.core0.pipeBusyCycles[1], want);
  TH_CHECK(f.core0.vectorWorkCycles == static_cast<double>(g_tiles) * 3 * kTileRepeats, "vector work %g",
           f.core0.vectorWorkCycles);
  // One core alone streams at its own 128 bytes per cycle (the chip's 888.9 per cycle is more): each copy of
  // a tile is at least its fixed cost plus 32768 / 128 = 256 cycles.
  TH_CHECK(f.core0.pipeBusyCycles[2] >= static_cast<double>(g_tiles) * (kDmaFixed + 256), "MTE2 busy %g",
           f.core0.pipeBusyCycles[2]);
  TH_CHECK(f.core0.pipeBusyCycles[0] == 0, "no scalar access, S busy %g", f.core0.pipeBusyCycles[0]);
  TH_CHECK(f.core0.copyHiddenCycles > 0 && f.core0.copyHiddenCycles <= f.core0.copyCycles,
           "copy hidden %g of %g", f.core0.copyHiddenCycles, f.core0.copyCycles);
}

// Memory-bound: 8 cores share the chip's bandwidth (1.6e12 / 1.8e9 / 8 = 111.1 bytes per cycle per core); one
// Adds per tile (135 cycles) against 2 x 32768 / 111.1 = 590 cycles of copies. The time is the core's bytes
// over its share within 3 percent.
void TestMemoryBound() {
  const uint32_t cores = 8;
  const Figures f = RunStream(cores, 2, 1);
  const double share = kChipBytesPerSecond / (kClockMhz * 1e6) / cores;
  const double bytes = static_cast<double>(g_tiles) * kTile * 4 * 2;
  const double bound = bytes / share;
  TH_CHECK(f.modelled >= bound && f.modelled <= 1.03 * bound, "memory-bound: modelled %g cycles, bytes / bandwidth %g",
           f.modelled, bound);
  // MTE2 is busier than V: the copies bound the time.
  TH_CHECK(f.core0.pipeBusyCycles[2] > f.core0.pipeBusyCycles[1], "MTE2 %g vs V %g", f.core0.pipeBusyCycles[2],
           f.core0.pipeBusyCycles[1]);
}

// Vector-bound: 16 Adds per tile (2160 cycles) against 590 cycles of copies: the time is the vector pipe's
// busy time plus one tile's copy in and one copy out, at most; the vector work alone (element-ops over
// throughput) is within the arithmetic latency's share (7 / 128) plus that.
void TestVectorBound() {
  const uint32_t cores = 8;
  const Figures f = RunStream(cores, 2, 16);
  const double vbusy = static_cast<double>(g_tiles) * 16 * (kTileRepeats + kArithLatency);
  const double share = kChipBytesPerSecond / (kClockMhz * 1e6) / cores;
  const double oneCopy = kDmaFixed + kTile * 4 / share;
  TH_CHECK(f.modelled >= vbusy && f.modelled <= vbusy + 2 * oneCopy + 1, "vector-bound: modelled %g, V busy %g",
           f.modelled, vbusy);
  TH_CHECK(f.modelled <= 1.08 * f.core0.vectorWorkCycles, "vector-bound: modelled %g, vector work %g", f.modelled,
           f.core0.vectorWorkCycles);
  TH_CHECK(f.core0.copyHiddenCycles >= 0.9 * f.core0.copyCycles, "copies hide behind V: %g of %g",
           f.core0.copyHiddenCycles, f.core0.copyCycles);
}

// Double buffering never makes the model slower, at any balance of copies and vector work; where the two
// balance it is clearly faster (single-buffered, a tile's copies and its compute add up).
void TestDoubleBuffering() {
  for (int32_t vops : {1, 4, 16}) {
    const Figures one = RunStream(8, 1, vops);
    const Figures two = RunStream(8, 2, vops);
    TH_CHECK(two.modelled <= one.modelled, "vops %d: double-buffered %g > single-buffered %g", vops, two.modelled,
             one.modelled);
    if (vops == 4) {
      TH_CHECK(two.modelled < 0.8 * one.modelled, "vops 4: double-buffered %g, single-buffered %g", two.modelled,
               one.modelled);
    }
  }
}

// A vector-to-scalar round trip: the scalar unit waits for V's end plus the wait cost, then reads.
void ScalarWaitKernel(uint8_t **args) {
  GlobalTensor<float> y;
  y.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), 8);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, kTile * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 2.0f, static_cast<int32_t>(kTile));
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  y.SetValue(0, t.GetValue(0));
}

void TestScalarWait() {
  th::Gm y(32, "y");
  th::KernelLaunch k;
  k.name = "scalar_wait";
  k.entry = ScalarWaitKernel;
  k.args = {&y};
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok, "scalar_wait faulted: %s", r.fault.c_str());
  if (!r.ok) {
    return;
  }
  const opgen_rt::CoreStats &c = r.cores[0];
  // V: 128 repeats + 7; then the wait (18), then two scalar accesses of 10 cycles each.
  const double want = kTileRepeats + kArithLatency + kScalarWait + 2 * kScalarAccess;
  TH_CHECK(c.modelledCycles == want, "modelled %g cycles, hand count %g", c.modelledCycles, want);
  TH_CHECK(c.scalarWaits == 1, "scalar waits %llu", static_cast<unsigned long long>(c.scalarWaits));
  TH_CHECK(c.pipeBusyCycles[0] == 2 * kScalarAccess, "S busy %g", c.pipeBusyCycles[0]);
}

// The sort class (cost_model.vector.sort: 2 cycles per 256 bytes of proposals written, latency 20): Sort32 of
// 4 repeats writes 128 proposals (1024 bytes: 4 repeats), MrgSort of 4 queues of 32 writes the same; the
// Duplicates that fill the inputs are arithmetic (128 floats: 2 repeats each).
void SortKernel(uint8_t **) {
  TPipe pipe;
  TBuf<> bs, bi, bw, bd;
  pipe.InitBuffer(bs, 512);
  pipe.InitBuffer(bi, 512);
  pipe.InitBuffer(bw, 1024);
  pipe.InitBuffer(bd, 1024);
  LocalTensor<float> scores = bs.Get<float>(), work = bw.Get<float>(), dst = bd.Get<float>();
  LocalTensor<uint32_t> index = bi.Get<uint32_t>();
  Duplicate(scores, 1.0f, 128);
  Duplicate(index, 7u, 128);
  PipeBarrier<PIPE_V>();
  Sort32(work, scores, index, 4);
  PipeBarrier<PIPE_V>();
  const uint16_t lengths[4] = {32, 32, 32, 32};
  MrgSort(dst, MrgSortSrcList<float>(work[0], work[64], work[128], work[192]), MrgSort4Info(lengths, false, 15, 1));
}

void TestSortClass() {
  th::KernelLaunch k;
  k.name = "sort";
  k.entry = SortKernel;
  k.blockDim = 1;
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok && !r.cores.empty(), "sort kernel faulted: %s", r.fault.c_str());
  if (!r.ok || r.cores.empty()) {
    return;
  }
  const double want = 2 * (2 * 1 + kArithLatency) + 2 * (4 * 2 + 20);
  TH_CHECK(r.cores[0].pipeBusyCycles[1] == want, "V busy %g cycles, hand count %g", r.cores[0].pipeBusyCycles[1],
           want);
}

// Without a cost model the counters stay and the timeline is empty.
void TestNoModel() {
  th::UseProduct(th::Ascend910B());
  const Figures f = RunStream(2, 2, 1);
  TH_CHECK(f.ok && f.modelled == 0 && f.core0.pipeBusyCycles[1] == 0, "no model: modelled %g", f.modelled);
  TH_CHECK(f.core0.vectorElements == static_cast<uint64_t>(g_tiles * kTile), "vector elements %llu",
           static_cast<unsigned long long>(f.core0.vectorElements));
  th::UseProduct(Ascend910BModelled());
}

// Instruction names map to the catalogue's classes (specs/products.yaml cost_model.vector).
void TestClasses() {
  using opgen_rt::device::Core;
  const struct {
    const char *name;
    uint8_t cls;
  } cases[] = {{"Add", opgen_rt::device::kOpOther},         {"Axpy", opgen_rt::device::kOpOther},
               {"Exp", opgen_rt::kVecTranscendental},
               {"Ln", opgen_rt::kVecTranscendental},        {"Sqrt", opgen_rt::kVecTranscendental},
               {"Div", opgen_rt::kVecDivision},             {"Reciprocal", opgen_rt::kVecDivision},
               {"Rsqrt", opgen_rt::kVecDivision},           {"Cast", opgen_rt::kVecCast},
               {"ReduceSum", opgen_rt::kVecReduction},      {"WholeReduceSum", opgen_rt::kVecReduction},
               {"BlockReduceMax", opgen_rt::kVecReduction}, {"Compare", opgen_rt::kVecCompareSelect},
               {"CompareScalar", opgen_rt::kVecCompareSelect}, {"Select", opgen_rt::kVecCompareSelect},
               {"Sort32", opgen_rt::kVecSort},              {"MrgSort", opgen_rt::kVecSort},
               {"Extract", opgen_rt::device::kOpOther},     {"SetFlag", opgen_rt::device::kOpSync},      {"DeQue", opgen_rt::device::kOpSync},
               {"Duplicate", opgen_rt::device::kOpOther},   {"GetValue", opgen_rt::device::kOpOther}};
  for (const auto &c : cases) {
    TH_CHECK(Core::ClassifyOp(c.name) == c.cls, "%s: class %d, want %d", c.name, Core::ClassifyOp(c.name), c.cls);
  }
}

}  // namespace

int main() {
  th::UseProduct(Ascend910BModelled());
  TestClasses();
  TestVectorBusy();
  TestMemoryBound();
  TestVectorBound();
  TestDoubleBuffering();
  TestScalarWait();
  TestSortClass();
  TestNoModel();
  return th::Finish("test_timeline");
}
