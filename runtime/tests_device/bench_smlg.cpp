// Emulator speed: a 2^24-element fp32 SoftMarginLossGrad (7 vector instructions per element, UB-sized
// tiles) on Ascend910B with the contract tiling, in IN_ORDER and CONCURRENT mode. Prints seconds per
// launch and fails when the IN_ORDER launch needs more than 1 s of CPU (the emulator's speed budget).
// Hand-written test code.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "harness.h"
#include "opgen_rt/device/types.h"

extern "C" void soft_margin_loss_grad(uint8_t *gradOutput, uint8_t *self, uint8_t *target, uint8_t *out,
                                      uint8_t *workspace, uint8_t *tiling);

namespace {
void Entry(uint8_t **a) { soft_margin_loss_grad(a[0], a[1], a[2], a[3], a[4], a[5]); }

template <typename T>
double Bench(int64_t key, opgen_rt::CoreOrder order, int repeats) {
  const int64_t n = int64_t{1} << 24;
  const uint64_t bytes = static_cast<uint64_t>(n) * sizeof(T);
  th::Gm g(bytes, "gradOutput", false), x(bytes, "self", false), t(bytes, "target", false), out(bytes, "out");
  for (int64_t i = 0; i < n; ++i) {
    const T gv = T(static_cast<float>((i % 17) * 0.125 - 1.0));
    const T xv = T(static_cast<float>((i % 29) * 0.25 - 3.5));
    const T tv = T((i % 3) == 0 ? -1.0f : 1.0f);
    std::memcpy(g.data() + i * sizeof(T), &gv, sizeof(T));
    std::memcpy(x.data() + i * sizeof(T), &xv, sizeof(T));
    std::memcpy(t.data() + i * sizeof(T), &tv, sizeof(T));
  }
  const opgen_rt::ProductInfo &p = opgen_rt::CurrentProduct();
  // The contract tiling: 32 KiB minimum per core, at most vectorCoreNum cores, UB-sized tiles.
  const int64_t elemBytes = sizeof(T);
  const int64_t blockElems = 32 / elemBytes;
  const int64_t totalBlocks = (n + blockElems - 1) / blockElems;
  int64_t used = (n * elemBytes + 32767) / 32768;
  used = std::max<int64_t>(1, std::min<int64_t>({used, static_cast<int64_t>(p.vectorCoreNum), totalBlocks}));
  const int64_t perElem = key == 0 ? 36 : 28;
  optiling::SoftMarginLossGradTilingData tiling;
  tiling.set_totalLength(n);
  tiling.set_formerNum(totalBlocks % used);
  tiling.set_formerLength((totalBlocks / used + 1) * blockElems);
  tiling.set_tailLength(totalBlocks / used * blockElems);
  tiling.set_tileLength(static_cast<int64_t>(p.ubBytes) / perElem / 64 * 64);
  tiling.set_scale0(-1.0f);
  th::Gm tg(tiling.GetDataSize(), "tiling", false);
  tiling.SaveToBuffer(tg.data(), tg.bytes);
  th::KernelLaunch k;
  k.name = "soft_margin_loss_grad";
  k.entry = Entry;
  k.args = {&g, &x, &t, &out, nullptr, &tg};
  k.blockDim = static_cast<uint32_t>(used);
  k.tilingKey = static_cast<uint64_t>(key);
  double best = 1e9;
  double bestCpu = 1e9;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = th::NowSeconds();
    const std::clock_t c0 = std::clock();
    const opgen_rt::LaunchResult res = th::RunWithOrder(k, order, 0);
    const double dt = th::NowSeconds() - t0;
    bestCpu = std::min(bestCpu, static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    best = std::min(best, dt);
    TH_CHECK(res.ok, "%s", res.fault.c_str());
  }
  // Spot-check a few outputs.
  for (int64_t i : {int64_t{0}, n / 3, n - 1}) {
    T gv, xv, tv, ov;
    std::memcpy(&gv, g.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&xv, x.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&tv, t.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&ov, out.data() + i * sizeof(T), sizeof(T));
    const double want = -static_cast<double>(static_cast<float>(tv)) * static_cast<float>(gv) /
                        (1.0 + std::exp(static_cast<double>(static_cast<float>(tv)) * static_cast<float>(xv)));
    TH_CHECK(std::fabs(static_cast<float>(ov) - want) <= 1e-2 * std::fabs(want) + 1e-6, "i=%lld got %g want %g",
             static_cast<long long>(i), static_cast<double>(static_cast<float>(ov)), want);
  }
  std::printf("bench: 2^24 %s elements, %lld cores, tile %lld, %s: %.3f s per launch (%.3f s CPU)\n",
              key == 0 ? "fp32" : "fp16", static_cast<long long>(used), static_cast<long long>(tiling.tileLength),
              th::OrderName(order), best, bestCpu);
  return order == opgen_rt::CoreOrder::IN_ORDER ? bestCpu : best;
}
}  // namespace

int main() {
  th::UseProduct(th::Ascend910B());
  const double a = Bench<float>(0, opgen_rt::CoreOrder::IN_ORDER, 3);
  const double b = Bench<float>(0, opgen_rt::CoreOrder::CONCURRENT, 3);
  Bench<half>(1, opgen_rt::CoreOrder::CONCURRENT, 1);
  // The budget is checked on the CPU time of the sequential run: wall times depend on the machine's load.
  TH_CHECK(a < 1.0, "2^24 fp32 IN_ORDER launch took %.3f s of CPU; budget 1 s", a);
  (void)b;
  return th::Finish("bench_smlg");
}
