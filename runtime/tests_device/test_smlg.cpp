// Runs the SoftMarginLossGrad kernel (the generator's contract kernel, or its variant with buffer counts
// from tiling) through opgen_rt::RunKernel on fp32 / fp16 / bf16 inputs, several sizes, core counts and
// every CoreOrder, and compares with a double-precision reference rounded to the dtype.
//
// Build-time configuration (run.sh):
//   SMLG_TILING    the tiling struct type (its header is force-included)
//   SMLG_BUFNUM    1 when the tiling struct has inBufferNum / outBufferNum
//   SMLG_PRODUCT   Ascend910B / Ascend910 / ...: the product to run on
//   SMLG_EXPECT_QUEUE_CAP  1 when the launch must fault with [queue buffer cap] instead
// Hand-written test code.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.h"
#include "opgen_rt/device/types.h"

extern "C" void soft_margin_loss_grad(uint8_t *gradOutput, uint8_t *self, uint8_t *target, uint8_t *out,
                                      uint8_t *workspace, uint8_t *tiling);

namespace {

void Entry(uint8_t **a) { soft_margin_loss_grad(a[0], a[1], a[2], a[3], a[4], a[5]); }

struct Choice {
  int64_t coreNum;
  int64_t minBytesPerCore;
  int64_t tileCap;  // 0: as large as UB allows
  int32_t inBufferNum;
  int32_t outBufferNum;
};

// The contract tiling function (op_host/soft_margin_loss_grad_tiling.cpp), with its constants as knobs.
SMLG_TILING MakeTiling(int64_t total, int64_t key, int64_t reduction, const opgen_rt::ProductInfo &p,
                       const Choice &ch, uint32_t *blockDim) {
  const int64_t elemBytes = key == 0 ? 4 : 2;
  const int64_t blockElems = 32 / elemBytes;
  const int64_t totalBlocks = (total + blockElems - 1) / blockElems;
  int64_t used = (total * elemBytes + ch.minBytesPerCore - 1) / ch.minBytesPerCore;
  used = std::max<int64_t>(1, std::min<int64_t>({used, ch.coreNum, totalBlocks}));
  const int64_t blocksPerCore = totalBlocks / used;
  const int64_t formerNum = totalBlocks % used;
  const int64_t perElem = elemBytes * (3 * ch.inBufferNum + ch.outBufferNum) + (key == 0 ? 0 : 8);
  int64_t tile = static_cast<int64_t>(p.ubBytes - p.ubReservedBytes) / perElem;
  tile = tile / 64 * 64;
  if (ch.tileCap > 0 && tile > ch.tileCap) {
    tile = ch.tileCap;
  }
  SMLG_TILING t;
  t.set_totalLength(total);
  t.set_formerNum(formerNum);
  t.set_formerLength((blocksPerCore + 1) * blockElems);
  t.set_tailLength(blocksPerCore * blockElems);
  t.set_tileLength(tile);
  t.set_scale0(static_cast<float>(-((reduction == 1) ? (1.0 / static_cast<double>(total)) : 1.0)));
#if SMLG_BUFNUM
  t.set_inBufferNum(ch.inBufferNum);
  t.set_outBufferNum(ch.outBufferNum);
#endif
  *blockDim = static_cast<uint32_t>(used);
  return t;
}

uint64_t g_lcg = 12345;
double Uniform(double lo, double hi) {
  g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * static_cast<double>(g_lcg >> 11) / 9007199254740992.0;
}

template <typename T>
void Store(uint8_t *p, int64_t i, double v) {
  const T x = T(static_cast<float>(v));
  std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &x, sizeof(T));
}
template <typename T>
double Load(const uint8_t *p, int64_t i) {
  T x;
  std::memcpy(&x, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<double>(static_cast<float>(x));
}

template <typename T>
double Round(double v) {
  return static_cast<double>(static_cast<float>(T(v)));
}

struct Outcome {
  bool ok = true;
  std::string fault;
  double maxErr = 0;
};

template <typename T>
Outcome RunCase(int64_t key, int64_t n, int64_t reduction, const Choice &ch, opgen_rt::CoreOrder order,
                uint64_t seed, double rtol, double atol, bool expectFault) {
  const opgen_rt::ProductInfo &p = opgen_rt::CurrentProduct();
  const uint64_t bytes = static_cast<uint64_t>(n) * sizeof(T);
  th::Gm g(bytes, "input 0 (gradOutput)", false), x(bytes, "input 1 (self)", false),
      t(bytes, "input 2 (target)", false), out(bytes, "output 0 (out)", true);
  for (int64_t i = 0; i < n; ++i) {
    Store<T>(g.data(), i, Uniform(-2, 2));
    Store<T>(x.data(), i, Uniform(-4, 4));
    Store<T>(t.data(), i, Uniform(0, 1) < 0.5 ? -1.0 : Uniform(-1.5, 1.5));
    Store<T>(out.data(), i, 12345.0);  // poison
  }
  uint32_t blockDim = 0;
  SMLG_TILING tiling = MakeTiling(n, key, reduction, p, ch, &blockDim);
  th::Gm tg(tiling.GetDataSize(), "tiling", false);
  tiling.SaveToBuffer(tg.data(), tg.bytes);
  th::KernelLaunch k;
  k.name = "soft_margin_loss_grad";
  k.entry = Entry;
  k.args = {&g, &x, &t, &out, nullptr, &tg};
  k.blockDim = blockDim;
  k.tilingKey = static_cast<uint64_t>(key);
  const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, seed);
  Outcome o;
  o.ok = r.ok;
  o.fault = r.fault;
  if (expectFault) {
    return o;
  }
  TH_CHECK(r.ok, "n=%lld key=%lld cores=%u order=%s: %s", static_cast<long long>(n), static_cast<long long>(key),
           blockDim, th::OrderName(order), r.fault.c_str());
  if (!r.ok) {
    return o;
  }
  const double scale = (reduction == 1) ? 1.0 / static_cast<double>(n) : 1.0;
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double gv = Load<T>(g.data(), i), xv = Load<T>(x.data(), i), tv = Load<T>(t.data(), i);
    const double want = Round<T>(-tv * gv / (1.0 + std::exp(tv * xv)) * scale);
    const double got = Load<T>(out.data(), i);
    const double err = std::fabs(got - want);
    o.maxErr = std::max(o.maxErr, err / (std::fabs(want) + atol));
    if (!(err <= atol + rtol * std::fabs(want))) {
      if (bad++ < 3) {
        TH_CHECK(false, "n=%lld key=%lld i=%lld: got %.9g want %.9g", static_cast<long long>(n),
                 static_cast<long long>(key), static_cast<long long>(i), got, want);
      }
    }
  }
  TH_CHECK(bad == 0, "n=%lld key=%lld cores=%u order=%s: %d mismatches", static_cast<long long>(n),
           static_cast<long long>(key), blockDim, th::OrderName(order), bad);
  // Counters: every input byte read once, every output byte written once, tiling read once per core.
  uint64_t rd = 0, wr = 0, at = 0, vec = 0, hw = 0;
  for (const auto &c : r.cores) {
    rd += c.gmBytesRead;
    wr += c.gmBytesWritten;
    at += c.gmBytesAtomicAdded;
    vec += c.vectorInstructions;
    hw = std::max<uint64_t>(hw, c.ubHighWaterBytes);
  }
  TH_CHECK(r.cores.size() == blockDim, "one CoreStats per core");
  TH_CHECK(rd == 3 * bytes + blockDim * tiling.GetDataSize(), "gm read %llu, want %llu",
           static_cast<unsigned long long>(rd),
           static_cast<unsigned long long>(3 * bytes + blockDim * tiling.GetDataSize()));
  TH_CHECK(wr == bytes, "gm written %llu, want %llu", static_cast<unsigned long long>(wr),
           static_cast<unsigned long long>(bytes));
  TH_CHECK(at == 0 && vec > 0 && hw > 0 && hw <= p.ubBytes, "atomic %llu vec %llu ub high water %llu",
           static_cast<unsigned long long>(at), static_cast<unsigned long long>(vec),
           static_cast<unsigned long long>(hw));
  return o;
}

template <typename T>
void Sweep(int64_t key, double rtol, double atol, const std::vector<Choice> &choices) {
  const int64_t sizes[] = {1, 7, 8, 9, 4096, 100003};
  for (int64_t n : sizes) {
    for (const Choice &ch : choices) {
      for (opgen_rt::CoreOrder order : th::kAllOrders) {
        for (int64_t reduction : {0, 1}) {
          if (reduction == 1 && n != 100003 && n != 9) {
            continue;
          }
          RunCase<T>(key, n, reduction, ch, order, static_cast<uint64_t>(n) * 7 + 1, rtol, atol, false);
        }
      }
    }
  }
}

}  // namespace

int main() {
  const std::string productName = SMLG_PRODUCT;
  const opgen_rt::ProductInfo *prod = &th::Ascend910B();
  if (productName == "Ascend910") {
    prod = &th::Ascend910();
  } else if (productName == "Ascend950") {
    prod = &th::Ascend950();
  }
  th::UseProduct(*prod);

#if SMLG_EXPECT_QUEUE_CAP
  // The contract kernel uses 2 buffers for each of its 3 VECIN queues: 6 > the product's 4 per position.
  const Choice ch{static_cast<int64_t>(prod->vectorCoreNum), 32768, 0, 2, 2};
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    const Outcome o = RunCase<float>(0, 4096, 0, ch, order, 1, 0, 0, true);
    th::ExpectFault(opgen_rt::LaunchResult{o.ok, o.fault, {}, {}, {}, {}}, "queue buffer cap", "soft_margin_loss_grad",
                    -1, 1, th::OrderName(order));
    TH_CHECK(th::Contains(o.fault, "exceed Ascend910's 4 queue buffers per position"), "%s", o.fault.c_str());
  }
  return th::Finish("smlg_queue_cap");
#else
  const int32_t inBuf = SMLG_BUFNUM ? (prod->queueBufferCap < 6 ? 1 : 2) : 2;
  const std::vector<Choice> choices = {
      {static_cast<int64_t>(prod->vectorCoreNum), 32768, 0, inBuf, 2},  // the contract's tiling
      {1, 32, 0, inBuf, 2},                                              // one core
      {3, 32, 64, inBuf, 2},                                             // 3 cores, 64-element tiles
      {static_cast<int64_t>(prod->vectorCoreNum), 32, 192, inBuf, 2},    // every core, many tiles
  };
  const double t0 = th::NowSeconds();
  Sweep<float>(0, 1e-5, 1e-30, choices);
  Sweep<half>(1, 1.0 / 512, 6e-8, choices);
  if (prod->bf16) {
    Sweep<bfloat16_t>(2, 1.0 / 64, 1e-30, choices);
  }
  std::printf("smlg sweep on %s: %.2f s\n", prod->name, th::NowSeconds() - t0);
  return th::Finish("smlg");
#endif
}
