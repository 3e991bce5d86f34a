// The whole-tensor sum of the loss forwards (issue 16, reduction mean/sum) as the family is to generate it,
// run on the emulator before the family exists: every core sums its contiguous share of (x - t)^2 in fp32
// in index order, writes that partial into its own 32-byte slot of the workspace, a barrier (hardware
// SyncAll, or the software SyncAll on products without it), then core 0 adds the partials in core order
// 0..n-1 and writes the result. The summation order depends on the core count only, so the result is
// bit-identical across core orders and runs. Two mutants show what the determinism and value checks catch:
// partials atomically added into the output (the order depends on core timing) and a partial added twice.
// The per-core partial is also built from vector instructions on Ascend910B (DataCopyPad, Cast, Sub, Mul,
// ReduceSum per tile), with fp16 input showing why the squares are summed in fp32.
// Hand-written test code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

enum class Combine { HW_SYNC_ALL, SOFT_SYNC_ALL, MUTANT_ATOMIC, MUTANT_TWICE };

Combine g_combine = Combine::HW_SYNC_ALL;
int64_t g_n = 0;        // elements of x and t
bool g_mean = false;    // reduction mean (else sum)
constexpr int64_t kSlotFloats = 8;  // one 32-byte block per core partial (no two cores share a block)

// args: x, t, out (8 floats; the result in out[0]), workspace (partials: blockDim slots; then the software
// SyncAll's blockDim * 32 bytes of int32 counters, zero at launch).
void WholeSumKernel(uint8_t **args) {
  const int64_t idx = GetBlockIdx();
  const int64_t num = GetBlockNum();
  const int64_t share = (g_n + num - 1) / num;
  const int64_t begin = idx * share < g_n ? idx * share : g_n;
  const int64_t end = begin + share < g_n ? begin + share : g_n;
  GlobalTensor<float> x, t, out, partials;
  GlobalTensor<int32_t> sync;
  x.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), static_cast<uint64_t>(g_n));
  t.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[1]), static_cast<uint64_t>(g_n));
  out.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[2]), kSlotFloats);
  partials.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[3]), static_cast<uint64_t>(num * kSlotFloats));
  sync.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[3] + num * kSlotFloats * sizeof(float)),
                       static_cast<uint64_t>(num * 8));
  float acc = 0.0f;
  for (int64_t i = begin; i < end; ++i) {
    const float d = x.GetValue(static_cast<uint64_t>(i)) - t.GetValue(static_cast<uint64_t>(i));
    acc += d * d;
  }
  TPipe pipe;
  if (g_combine == Combine::MUTANT_ATOMIC) {  // no barrier: each core adds its partial into out
    TQue<TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, kSlotFloats * sizeof(float));
    LocalTensor<float> slot = q.AllocTensor<float>();
    for (uint32_t k = 0; k < kSlotFloats; ++k) {
      slot.SetValue(k, k == 0 ? (g_mean ? acc / static_cast<float>(g_n) : acc) : 0.0f);
    }
    q.EnQue(slot);
    slot = q.DeQue<float>();
    SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
    SetAtomicAdd<float>();
    DataCopy(out, slot, kSlotFloats);
    SetAtomicNone();
    q.FreeTensor(slot);
    return;
  }
  partials.SetValue(static_cast<uint64_t>(idx * kSlotFloats), acc);
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(
      partials[static_cast<uint64_t>(idx * kSlotFloats)]);
  if (g_combine == Combine::SOFT_SYNC_ALL) {
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, static_cast<uint32_t>(num * 32));
    LocalTensor<int32_t> work = buf.Get<int32_t>();
    SyncAll(sync, work);
  } else {
    SyncAll();
  }
  if (idx != 0) {
    return;
  }
  float total = 0.0f;
  for (int64_t k = 0; k < num; ++k) {
    total += partials.GetValue(static_cast<uint64_t>(k * kSlotFloats));
  }
  if (g_combine == Combine::MUTANT_TWICE) {
    total += partials.GetValue(0);
  }
  // Empty input: sum 0, mean 0 / 0 = NaN (as PyTorch).
  out.SetValue(0, g_mean ? total / static_cast<float>(g_n) : total);
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(out[0]);
}

struct Outcome {
  bool ok;
  uint32_t bits;
  double value;
  std::string fault;
};

Outcome RunOnce(const std::vector<float> &xs, const std::vector<float> &ts, uint32_t cores, opgen_rt::CoreOrder order,
                uint64_t seed) {
  g_n = static_cast<int64_t>(xs.size());
  const uint64_t bytes = xs.empty() ? 32 : xs.size() * sizeof(float);
  th::Gm x(bytes, "x", false), t(bytes, "t", false), out(32, "out"), ws(cores * 32 * 2, "workspace");
  if (!xs.empty()) {
    std::memcpy(x.data(), xs.data(), xs.size() * sizeof(float));
    std::memcpy(t.data(), ts.data(), ts.size() * sizeof(float));
  }
  th::KernelLaunch k;
  k.name = "whole_sum";
  k.entry = WholeSumKernel;
  k.args = {&x, &t, &out, &ws};
  k.blockDim = cores;
  const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, seed);
  Outcome o{r.ok, 0, 0.0, r.fault};
  std::memcpy(&o.bits, out.data(), 4);
  o.value = static_cast<double>(out.as<float>()[0]);
  return o;
}

// Inputs with a large dynamic range: most squares near 1e-4, some near 1e6, so fp32 sums depend on order.
void Inputs(int64_t n, std::vector<float> &xs, std::vector<float> &ts) {
  std::mt19937 gen(16);
  std::normal_distribution<float> small(0.0f, 0.01f), big(0.0f, 1000.0f);
  xs.resize(static_cast<size_t>(n));
  ts.assign(static_cast<size_t>(n), 0.25f);
  for (int64_t i = 0; i < n; ++i) {
    xs[static_cast<size_t>(i)] = 0.25f + (i % 97 == 0 ? big(gen) : small(gen));
  }
}

double Exact(const std::vector<float> &xs, const std::vector<float> &ts) {
  double s = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double d = static_cast<double>(xs[i]) - static_cast<double>(ts[i]);
    s += d * d;
  }
  return s;
}

void CheckDeterministic(const opgen_rt::ProductInfo &product, Combine combine) {
  th::UseProduct(product);
  g_combine = combine;
  for (int64_t n : {1L, 47L, 48L, 49L, 4096L, 100003L}) {
    std::vector<float> xs, ts;
    Inputs(n, xs, ts);
    const double exact = Exact(xs, ts);
    for (uint32_t cores : {1u, 7u, 48u}) {
      for (bool mean : {false, true}) {
        g_mean = mean;
        std::set<uint32_t> seen;
        for (opgen_rt::CoreOrder order : th::kAllOrders) {
          for (uint64_t seed : {1ULL, 2ULL}) {
            const Outcome o = RunOnce(xs, ts, cores, order, seed);
            TH_CHECK(o.ok, "%s n=%lld cores=%u %s: %s", product.name, static_cast<long long>(n), cores,
                     th::OrderName(order), o.fault.c_str());
            seen.insert(o.bits);
            const double want = mean ? exact / static_cast<double>(n) : exact;
            // fp32 sequential sums: relative error below n * 2^-24 (partials of positive terms).
            TH_CHECK(std::fabs(o.value - want) <= want * static_cast<double>(n + cores) * 0x1p-24,
                     "%s n=%lld cores=%u: %.9g, exact %.9g", product.name, static_cast<long long>(n), cores,
                     o.value, want);
          }
        }
        TH_CHECK(seen.size() == 1, "%s n=%lld cores=%u mean=%d: %zu different results over the core orders",
                 product.name, static_cast<long long>(n), cores, mean ? 1 : 0, seen.size());
      }
    }
  }
}

void CheckEmptyMeanIsNanSumIsZero() {
  th::UseProduct(th::Ascend910B());
  g_combine = Combine::HW_SYNC_ALL;
  const std::vector<float> none;
  g_mean = true;
  TH_CHECK(std::isnan(RunOnce(none, none, 4, opgen_rt::CoreOrder::IN_ORDER, 0).value), "empty mean is NaN");
  g_mean = false;
  const Outcome o = RunOnce(none, none, 4, opgen_rt::CoreOrder::REVERSED, 0);
  TH_CHECK(o.ok && o.bits == 0, "empty sum is +0.0: %s", o.fault.c_str());
}

// The mutants: what `opgen check`'s determinism cases (all core orders, bit-identical) and value cases catch.
void CheckMutantsAreCaught() {
  std::vector<float> xs, ts;
  Inputs(100003, xs, ts);
  const double exact = Exact(xs, ts);
  th::UseProduct(th::Ascend910B());
  g_mean = false;
  g_combine = Combine::MUTANT_ATOMIC;
  std::set<uint32_t> seen;
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    for (uint64_t seed : {1ULL, 2ULL, 3ULL}) {
      const Outcome o = RunOnce(xs, ts, 48, order, seed);
      TH_CHECK(o.ok, "atomic mutant runs: %s", o.fault.c_str());
      seen.insert(o.bits);
    }
  }
  TH_CHECK(seen.size() > 1, "the atomic combine gives one result in every core order: the check would miss it");
  g_combine = Combine::MUTANT_TWICE;
  const Outcome twice = RunOnce(xs, ts, 48, opgen_rt::CoreOrder::IN_ORDER, 0);
  TH_CHECK(twice.ok && std::fabs(twice.value - exact) > exact * 1e-3,
           "a partial added twice stays within the value bound: %.9g vs %.9g", twice.value, exact);
  g_combine = Combine::HW_SYNC_ALL;
}

// The hardware barrier does not exist on Ascend910: that combine faults there, the software one runs.
void CheckHardwareBarrierRefusedOn910() {
  th::UseProduct(th::Ascend910());
  g_combine = Combine::HW_SYNC_ALL;
  std::vector<float> xs, ts;
  Inputs(64, xs, ts);
  const Outcome o = RunOnce(xs, ts, 4, opgen_rt::CoreOrder::IN_ORDER, 0);
  TH_CHECK(!o.ok && th::Contains(o.fault, "SyncAll unsupported"), "hw SyncAll on Ascend910: %s", o.fault.c_str());
}


// ---- the per-core partial with vector instructions (Ascend910B: DataCopyPad, fp32 ReduceSum) ----
// Each core streams its share through UB in tiles of kTile elements: GM -> UB, Cast to fp32 (16-bit input),
// Sub, Mul, ReduceSum (count form) of the tile, and adds the tile sum to its fp32 partial in tile order.
// g_accumulate16: the mutant that reduces the 16-bit squares without the Cast to fp32 (a 16-bit sum).
constexpr uint32_t kTile = 2048;
bool g_accumulate16 = false;

template <typename T>
void VecPartialKernel(uint8_t **args) {
  const int64_t idx = GetBlockIdx();
  const int64_t num = GetBlockNum();
  const int64_t share = (g_n + num - 1) / num;
  const int64_t begin = idx * share < g_n ? idx * share : g_n;
  const int64_t end = begin + share < g_n ? begin + share : g_n;
  GlobalTensor<T> x, t;
  GlobalTensor<float> out, partials;
  x.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[0]), static_cast<uint64_t>(g_n));
  t.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[1]), static_cast<uint64_t>(g_n));
  out.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[2]), kSlotFloats);
  partials.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[3]), static_cast<uint64_t>(num * kSlotFloats));
  TPipe pipe;
  TQue<TPosition::VECIN, 1> xq, tq;
  TBuf<TPosition::VECCALC> a, b, res, work;
  pipe.InitBuffer(xq, 1, kTile * sizeof(T));
  pipe.InitBuffer(tq, 1, kTile * sizeof(T));
  pipe.InitBuffer(a, kTile * sizeof(float));
  pipe.InitBuffer(b, kTile * sizeof(float));
  pipe.InitBuffer(res, 32);
  pipe.InitBuffer(work, kTile * sizeof(float));
  LocalTensor<float> af = a.Get<float>(), bf = b.Get<float>(), rf = res.Get<float>(), wf = work.Get<float>();
  float acc = 0.0f;
  for (int64_t done = begin; done < end; done += kTile) {
    const uint32_t count = static_cast<uint32_t>(end - done < kTile ? end - done : kTile);
    LocalTensor<T> xl = xq.AllocTensor<T>(), tl = tq.AllocTensor<T>();
    const DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
    DataCopyPad(xl, x[static_cast<uint64_t>(done)], params, DataCopyPadExtParams<T>{false, 0, 0, T(0.0f)});
    DataCopyPad(tl, t[static_cast<uint64_t>(done)], params, DataCopyPadExtParams<T>{false, 0, 0, T(0.0f)});
    xq.EnQue(xl);
    tq.EnQue(tl);
    xl = xq.DeQue<T>();
    tl = tq.DeQue<T>();
    if constexpr (IsSameType<T, float>::value) {
      Sub(af, xl, tl, static_cast<int32_t>(count));
      Mul(af, af, af, static_cast<int32_t>(count));
      ReduceSum(rf, af, wf, static_cast<int32_t>(count));
      acc += rf.GetValue(0);
    } else if (g_accumulate16) {
      LocalTensor<T> a16 = a.Get<T>(), r16 = res.Get<T>(), w16 = work.Get<T>();
      Sub(a16, xl, tl, static_cast<int32_t>(count));
      Mul(a16, a16, a16, static_cast<int32_t>(count));
      ReduceSum(r16, a16, w16, static_cast<int32_t>(count));
      acc += static_cast<float>(r16.GetValue(0));
    } else {
      Cast(af, xl, RoundMode::CAST_NONE, count);
      Cast(bf, tl, RoundMode::CAST_NONE, count);
      Sub(af, af, bf, static_cast<int32_t>(count));
      Mul(af, af, af, static_cast<int32_t>(count));
      ReduceSum(rf, af, wf, static_cast<int32_t>(count));
      acc += rf.GetValue(0);
    }
    // The scalar read of the tile sum must finish before the next tile's vector instructions rewrite it.
    SetFlag<HardEvent::S_V>(EVENT_ID0);
    WaitFlag<HardEvent::S_V>(EVENT_ID0);
    xq.FreeTensor(xl);
    tq.FreeTensor(tl);
  }
  partials.SetValue(static_cast<uint64_t>(idx * kSlotFloats), acc);
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(
      partials[static_cast<uint64_t>(idx * kSlotFloats)]);
  SyncAll();
  if (idx != 0) {
    return;
  }
  float total = 0.0f;
  for (int64_t k = 0; k < num; ++k) {
    total += partials.GetValue(static_cast<uint64_t>(k * kSlotFloats));
  }
  out.SetValue(0, g_mean ? total / static_cast<float>(g_n) : total);
  DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(out[0]);
}

template <typename T>
Outcome RunVec(const std::vector<T> &xs, const std::vector<T> &ts, uint32_t cores, opgen_rt::CoreOrder order,
               uint64_t seed) {
  g_n = static_cast<int64_t>(xs.size());
  const uint64_t bytes = xs.empty() ? 32 : (xs.size() * sizeof(T) + 31) / 32 * 32;
  th::Gm x(bytes, "x", false), t(bytes, "t", false), out(32, "out"), ws(cores * 32, "workspace");
  std::memcpy(x.data(), xs.data(), xs.size() * sizeof(T));
  std::memcpy(t.data(), ts.data(), ts.size() * sizeof(T));
  th::KernelLaunch k;
  k.name = "whole_sum_vec";
  k.entry = VecPartialKernel<T>;
  k.args = {&x, &t, &out, &ws};
  k.blockDim = cores;
  const opgen_rt::LaunchResult r = th::RunWithOrder(k, order, seed);
  Outcome o{r.ok, 0, 0.0, r.fault};
  std::memcpy(&o.bits, out.data(), 4);
  o.value = static_cast<double>(out.as<float>()[0]);
  return o;
}

// fp32 and fp16 inputs, sizes around the tile and the core count; the fp16 case has a large dynamic range
// (a few squares near 6e4, the rest near 1e-2): with fp32 accumulation the sum is within the fp32 bound and
// bit-identical over the core orders; the 16-bit-accumulation mutant is far off (its tile sums round to
// half precision, absorbing the small squares).
void CheckVectorPartials() {
  th::UseProduct(th::Ascend910B());
  g_mean = false;
  for (int64_t n : {1L, 2047L, 2048L, 2049L, 48L * 2048L + 5L}) {
    std::vector<float> xs, ts;
    Inputs(n, xs, ts);
    const double exact = Exact(xs, ts);
    std::set<uint32_t> seen;
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      const Outcome o = RunVec(xs, ts, 48, order, 4);
      TH_CHECK(o.ok, "vec fp32 n=%lld %s: %s", static_cast<long long>(n), th::OrderName(order), o.fault.c_str());
      TH_CHECK(std::fabs(o.value - exact) <= exact * static_cast<double>(n + 48) * 0x1p-24,
               "vec fp32 n=%lld: %.9g, exact %.9g", static_cast<long long>(n), o.value, exact);
      seen.insert(o.bits);
    }
    TH_CHECK(seen.size() == 1, "vec fp32 n=%lld: %zu different results over the core orders",
             static_cast<long long>(n), seen.size());
  }
  const int64_t n = 4 * 2048 + 3;
  std::vector<half> xh(static_cast<size_t>(n)), th16(static_cast<size_t>(n), half(0.0f));
  double exact = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = i % 1000 == 0 ? 240.0f : 0.1f;
    xh[static_cast<size_t>(i)] = half(v);
    const double d = static_cast<double>(static_cast<float>(xh[static_cast<size_t>(i)]));
    exact += d * d;
  }
  for (bool mutant : {false, true}) {
    g_accumulate16 = mutant;
    std::set<uint32_t> seen;
    double value = 0.0;
    for (opgen_rt::CoreOrder order : th::kAllOrders) {
      const Outcome o = RunVec(xh, th16, 3, order, 9);
      TH_CHECK(o.ok, "vec fp16 %s: %s", th::OrderName(order), o.fault.c_str());
      seen.insert(o.bits);
      value = o.value;
    }
    TH_CHECK(seen.size() == 1, "vec fp16: %zu different results over the core orders", seen.size());
    const bool close = std::fabs(value - exact) <= exact * static_cast<double>(n) * 0x1p-24;
    TH_CHECK(close != mutant, "vec fp16 %s: %.9g, exact %.9g", mutant ? "16-bit accumulation" : "fp32 accumulation",
             value, exact);
  }
  g_accumulate16 = false;
}

}  // namespace

int main() {
  CheckDeterministic(th::Ascend910B(), Combine::HW_SYNC_ALL);
  CheckDeterministic(th::Ascend910(), Combine::SOFT_SYNC_ALL);
  CheckEmptyMeanIsNanSumIsZero();
  CheckMutantsAreCaught();
  CheckHardwareBarrierRefusedOn910();
  CheckVectorPartials();
  return th::Finish("whole_sum");
}
