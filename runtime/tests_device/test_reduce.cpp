// Tests of the emulated reduction instructions (runtime/include/opgen_rt/device/reduce.h): values against
// hand-computed results and an independent reference (recursive halving, a different structure from the
// emulation's adjacent-pair loop), the per-product summation order of ReduceSum, fp16 accumulation, the
// max index, NaN/inf, and one kernel per fault rule. Every case runs in all four core orders with two cores
// (each core reduces the same input and writes its own 2048-byte slice of "out").
// Hand-written test code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

enum Op { kSumCount, kMaxCount, kSumMask, kMaxMask, kWholeSum, kWholeMax, kBlockSum, kBlockMax };

// One case: the kernel loads `load` elements of x into UB (src), fills dst (2048 bytes) with 7, runs `op`
// and copies dst to out[core * 2048 bytes].
struct Cfg {
  Op op = kWholeSum;
  uint32_t load = 64;        // elements of x copied to UB (a multiple of 32 bytes)
  int32_t count = 64;        // count forms
  int32_t mask = 64;         // continuous mask (when !bits)
  bool bits = false;         // use mask[] = maskBits
  uint64_t maskBits[2] = {0, 0};
  int32_t repeat = 1;
  int32_t dstRep = 1;
  int32_t srcBlk = 1;
  int32_t srcRep = 8;
  ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX;
  bool calIndex = false;
  uint32_t tmpBytes = 32;    // sharedTmpBuffer size
  uint32_t srcOff = 0;       // the reduction's src = buffer[srcOff] (elements); the load fills buffer[0..load)
  uint32_t dstOff = 0;       // dst = buffer[dstOff] (elements)
  int32_t dstInSrc = -1;     // >= 0: dst = src[dstInSrc] (elements), an overlap
  bool tmpIsSrc = false;     // sharedTmpBuffer = src (reuse)
  bool noSync = false;       // no barrier between the load (MTE2) and the reduction (V)
  bool undefined = false;    // do not load: src is uninitialized
  bool dupSrc = false;       // fill src with Duplicate(1) instead of loading
  bool scalarRead = false;   // read dst[0] with GetValue right after the reduction, with no barrier
};

Cfg g_cfg;  // set before each launch, read by every core

template <typename T>
void Run(const Cfg &c, const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &tmp) {
  switch (c.op) {
    case kSumCount:
      ReduceSum(dst, src, tmp, c.count);
      break;
    case kMaxCount:
      ReduceMax(dst, src, tmp, c.count, c.calIndex);
      break;
    case kSumMask:
      if (c.bits) {
        ReduceSum(dst, src, tmp, c.maskBits, c.repeat, c.srcRep);
      } else {
        ReduceSum(dst, src, tmp, c.mask, c.repeat, c.srcRep);
      }
      break;
    case kMaxMask:
      if (c.bits) {
        ReduceMax(dst, src, tmp, c.maskBits, c.repeat, c.srcRep, c.calIndex);
      } else {
        ReduceMax(dst, src, tmp, c.mask, c.repeat, c.srcRep, c.calIndex);
      }
      break;
    case kWholeSum:
      if (c.bits) {
        WholeReduceSum(dst, src, c.maskBits, c.repeat, c.dstRep, c.srcBlk, c.srcRep);
      } else {
        WholeReduceSum(dst, src, c.mask, c.repeat, c.dstRep, c.srcBlk, c.srcRep);
      }
      break;
    case kWholeMax:
      if (c.bits) {
        WholeReduceMax(dst, src, c.maskBits, c.repeat, c.dstRep, c.srcBlk, c.srcRep, c.order);
      } else {
        WholeReduceMax(dst, src, c.mask, c.repeat, c.dstRep, c.srcBlk, c.srcRep, c.order);
      }
      break;
    case kBlockSum:
      if (c.bits) {
        BlockReduceSum(dst, src, c.repeat, c.maskBits, c.dstRep, c.srcBlk, c.srcRep);
      } else {
        BlockReduceSum(dst, src, c.repeat, c.mask, c.dstRep, c.srcBlk, c.srcRep);
      }
      break;
    case kBlockMax:
      if (c.bits) {
        BlockReduceMax(dst, src, c.repeat, c.maskBits, c.dstRep, c.srcBlk, c.srcRep);
      } else {
        BlockReduceMax(dst, src, c.repeat, c.mask, c.dstRep, c.srcBlk, c.srcRep);
      }
      break;
  }
}

constexpr uint32_t kOutBytes = 2048;

template <typename T>
void ReduceKernel(uint8_t **args) {
  const Cfg &c = g_cfg;
  const uint32_t srcElems = c.load + c.srcOff + 64;
  GlobalTensor<T> gx, gout;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[0]), c.dupSrc || c.undefined ? 16 : c.load);
  gout.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[1]) + GetBlockIdx() * (kOutBytes / sizeof(T)),
                       kOutBytes / sizeof(T));
  TPipe pipe;
  TBuf<> bsrc, bdst, btmp;
  pipe.InitBuffer(bsrc, srcElems * sizeof(T));
  pipe.InitBuffer(bdst, kOutBytes);
  pipe.InitBuffer(btmp, c.tmpBytes);
  LocalTensor<T> srcAll = bsrc.Get<T>(), dstAll = bdst.Get<T>();
  if (c.dupSrc) {
    Duplicate(srcAll, T(1.0f), static_cast<int32_t>(c.load));
  } else if (!c.undefined) {
    DataCopy(srcAll, gx, c.load);
  }
  const LocalTensor<T> src = srcAll[c.srcOff];
  if (!c.noSync) {
    PipeBarrier<PIPE_ALL>();
  }
  Duplicate(dstAll, T(7.0f), static_cast<int32_t>(kOutBytes / sizeof(T)));
  const LocalTensor<T> dst = c.dstInSrc >= 0 ? src[static_cast<uint32_t>(c.dstInSrc)] : dstAll[c.dstOff];
  const LocalTensor<T> tmp = c.tmpIsSrc ? src : btmp.Get<T>();
  Run<T>(c, dst, src, tmp);
  if (c.scalarRead) {
    (void)dst.GetValue(0);
  }
  PipeBarrier<PIPE_ALL>();
  DataCopy(gout, dstAll, kOutBytes / sizeof(T));
}

// ---- host side ----

template <typename T>
struct Result {
  opgen_rt::LaunchResult r[4];
  std::vector<T> out[4];  // core 0's slice per order (core 1's is checked equal)
};

template <typename T>
Result<T> Launch(const char *name, const Cfg &cfg, const std::vector<T> &x, const opgen_rt::ProductInfo &p) {
  Result<T> res;
  th::UseProduct(p);
  g_cfg = cfg;
  for (int k = 0; k < 4; ++k) {
    th::Gm gx(x.size() * sizeof(T) + 64, "x", false), out(2 * kOutBytes, "out");
    std::memcpy(gx.data(), x.data(), x.size() * sizeof(T));
    th::KernelLaunch l;
    l.name = name;
    l.entry = ReduceKernel<T>;
    l.args = {&gx, &out};
    l.blockDim = 2;
    res.r[k] = th::RunWithOrder(l, th::kAllOrders[k], 11);
    const T *o = out.as<T>();
    res.out[k].assign(o, o + kOutBytes / sizeof(T));
    if (res.r[k].ok) {
      TH_CHECK(std::memcmp(o, o + kOutBytes / sizeof(T), kOutBytes) == 0, "%s %s: cores 0 and 1 differ", name,
               th::OrderName(th::kAllOrders[k]));
    }
  }
  return res;
}

// Runs `cfg` and checks that it succeeds in every order; returns core 0's dst per order (all equal).
template <typename T>
std::vector<T> Ok(const char *name, const Cfg &cfg, const std::vector<T> &x, const opgen_rt::ProductInfo &p) {
  Result<T> res = Launch<T>(name, cfg, x, p);
  for (int k = 0; k < 4; ++k) {
    TH_CHECK(res.r[k].ok, "%s %s on %s: %s", name, th::OrderName(th::kAllOrders[k]), p.name,
             res.r[k].fault.c_str());
    TH_CHECK(std::memcmp(res.out[k].data(), res.out[0].data(), kOutBytes) == 0, "%s: %s differs from IN_ORDER",
             name, th::OrderName(th::kAllOrders[k]));
  }
  return res.out[0];
}

std::vector<std::string> g_rules;

template <typename T>
void Fault(const char *name, const Cfg &cfg, const std::vector<T> &x, const opgen_rt::ProductInfo &p,
           const char *rule, const char *detail) {
  Result<T> res = Launch<T>(name, cfg, x, p);
  for (int k = 0; k < 4; ++k) {
    const std::string where = std::string(name) + " " + th::OrderName(th::kAllOrders[k]);
    const int core = th::kAllOrders[k] == opgen_rt::CoreOrder::IN_ORDER ? 0 : -1;
    if (th::ExpectFault(res.r[k], rule, name, core, 2, where.c_str())) {
      TH_CHECK(th::Contains(res.r[k].fault, detail), "%s: fault lacks \"%s\": %s", where.c_str(), detail,
               res.r[k].fault.c_str());
    }
  }
  std::printf("  %-34s %s\n", name, res.r[0].fault.c_str());
  g_rules.push_back(rule);
}

float F(const std::vector<float> &v, size_t i) { return v[i]; }
float H(const std::vector<half> &v, size_t i) { return static_cast<float>(v[i]); }
uint16_t HBits(const std::vector<half> &v, size_t i) { return v[i].Bits(); }
uint32_t FBits(const std::vector<float> &v, size_t i) {
  uint32_t b;
  std::memcpy(&b, &v[i], 4);
  return b;
}

// Independent reference: the sum of lanes [lo, hi) (a power-of-two range) by recursive halving, each addition
// rounded to float; absent lanes pass the other side through.
struct Lane {
  float v;
  bool present;
};
Lane HalvingSum(const std::vector<Lane> &l, size_t lo, size_t hi) {
  if (hi - lo == 1) {
    return l[lo];
  }
  const size_t mid = lo + (hi - lo) / 2;
  const Lane a = HalvingSum(l, lo, mid), b = HalvingSum(l, mid, hi);
  if (!a.present) return b;
  if (!b.present) return a;
  return Lane{a.v + b.v, true};
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

void ValueTests() {
  const opgen_rt::ProductInfo &b = th::Ascend910B();
  // WholeReduceSum: the binary tree within a repeat, not a left-to-right sum. Lanes 1e8, 1, -1e8, 1: pairs
  // (1e8 + 1) = 1e8 and (-1e8 + 1) = -1e8 in float, then 0. Left to right would give 1.
  {
    std::vector<float> x(64, 0.0f);
    x[0] = 1e8f, x[1] = 1.0f, x[2] = -1e8f, x[3] = 1.0f;
    Cfg c;
    const std::vector<float> o = Ok<float>("whole_sum_tree", c, x, b);
    TH_CHECK(F(o, 0) == 0.0f, "whole_sum_tree: %g, want 0 (tree order)", static_cast<double>(F(o, 0)));
    TH_CHECK(F(o, 1) == 7.0f, "whole_sum_tree: dst[1] was written: %g", static_cast<double>(F(o, 1)));
  }
  // WholeReduceSum over 4 repeats with a 40-lane mask, dstRepStride 2 (results 2 floats apart), against the
  // halving reference on pseudo-random data of mixed magnitude.
  {
    std::vector<float> x(256);
    uint32_t s = 12345;
    for (float &v : x) {
      s = s * 1103515245u + 12345u;
      v = static_cast<float>(static_cast<int32_t>(s >> 8) % 200001) * ((s & 16u) ? 1e-3f : 3.7f);
    }
    Cfg c;
    c.load = 256, c.repeat = 4, c.mask = 40, c.dstRep = 2;
    const std::vector<float> o = Ok<float>("whole_sum_mask40", c, x, b);
    for (int r = 0; r < 4; ++r) {
      std::vector<Lane> l(64);
      for (int j = 0; j < 64; ++j) l[static_cast<size_t>(j)] = Lane{x[static_cast<size_t>(r * 64 + j)], j < 40};
      const float want = HalvingSum(l, 0, 64).v;
      TH_CHECK(F(o, static_cast<size_t>(2 * r)) == want, "whole_sum_mask40 repeat %d: %.9g, want %.9g", r,
               static_cast<double>(F(o, static_cast<size_t>(2 * r))), static_cast<double>(want));
      TH_CHECK(F(o, static_cast<size_t>(2 * r + 1)) == 7.0f, "whole_sum_mask40: gap %d written", r);
    }
  }
  // half accumulates in half: 2048 + 1 rounds to 2048 (ties to even), then + (1 + 0) = 2048 again; fp32
  // would give 2050. 65504 + 65504 overflows to inf (non-saturating mode).
  {
    std::vector<half> x(256, half(0.0f));
    x[0] = half(2048.0f), x[1] = half(1.0f), x[2] = half(1.0f);
    x[128] = half(65504.0f), x[129] = half(65504.0f);
    Cfg c;
    c.load = 256, c.repeat = 2, c.mask = 128;
    const std::vector<half> o = Ok<half>("whole_sum_half", c, x, b);
    TH_CHECK(H(o, 0) == 2048.0f, "whole_sum_half: %g, want 2048 (fp16 accumulation)", static_cast<double>(H(o, 0)));
    TH_CHECK(std::isinf(H(o, 1)) && H(o, 1) > 0, "whole_sum_half: %g, want +inf", static_cast<double>(H(o, 1)));
  }
  // NaN and inf: inf + -inf = NaN; a NaN lane makes the sum NaN.
  {
    std::vector<float> x(192, 1.0f);
    x[5] = kInf, x[70] = kInf, x[71] = -kInf, x[130] = kNaN;
    Cfg c;
    c.load = 192, c.repeat = 3;
    const std::vector<float> o = Ok<float>("whole_sum_nan_inf", c, x, b);
    TH_CHECK(std::isinf(F(o, 0)) && F(o, 0) > 0, "whole_sum_nan_inf r0: %g", static_cast<double>(F(o, 0)));
    TH_CHECK(std::isnan(F(o, 1)), "whole_sum_nan_inf r1: %g", static_cast<double>(F(o, 1)));
    TH_CHECK(std::isnan(F(o, 2)), "whole_sum_nan_inf r2: %g", static_cast<double>(F(o, 2)));
  }
  // In place: dst = src, results of repeat r land inside repeat 0's (already read) source: allowed.
  {
    std::vector<float> x(128);
    for (int i = 0; i < 128; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
    Cfg c;
    c.load = 128, c.repeat = 2, c.dstInSrc = 0;
    Ok<float>("whole_sum_in_place", c, x, b);
  }
  // WholeReduceMax, all four orders on float; ties give the smallest index; index bits as uint32_t.
  {
    std::vector<float> x(128, -5.0f);
    x[17] = 3.0f, x[40] = 3.0f, x[64 + 63] = -1.0f;
    Cfg c;
    c.op = kWholeMax, c.load = 128, c.repeat = 2;
    std::vector<float> o = Ok<float>("whole_max_value_index", c, x, b);
    TH_CHECK(F(o, 0) == 3.0f && FBits(o, 1) == 17u, "whole_max VALUE_INDEX r0: %g idx %u",
             static_cast<double>(F(o, 0)), FBits(o, 1));
    TH_CHECK(F(o, 2) == -1.0f && FBits(o, 3) == 63u, "whole_max VALUE_INDEX r1: %g idx %u",
             static_cast<double>(F(o, 2)), FBits(o, 3));
    c.order = ReduceOrder::ORDER_INDEX_VALUE;
    o = Ok<float>("whole_max_index_value", c, x, b);
    TH_CHECK(FBits(o, 0) == 17u && F(o, 1) == 3.0f, "whole_max INDEX_VALUE r0");
    c.order = ReduceOrder::ORDER_ONLY_VALUE;
    o = Ok<float>("whole_max_only_value", c, x, b);
    TH_CHECK(F(o, 0) == 3.0f && F(o, 1) == -1.0f && F(o, 2) == 7.0f, "whole_max ONLY_VALUE: %g %g %g",
             static_cast<double>(F(o, 0)), static_cast<double>(F(o, 1)), static_cast<double>(F(o, 2)));
    c.order = ReduceOrder::ORDER_ONLY_INDEX;
    o = Ok<float>("whole_max_only_index", c, x, b);
    TH_CHECK(FBits(o, 0) == 17u && FBits(o, 1) == 63u, "whole_max ONLY_INDEX: %u %u", FBits(o, 0), FBits(o, 1));
  }
  // WholeReduceMax on half with a bit mask that leaves out the true maximum (lane 100); -inf and NaN rows.
  {
    std::vector<half> x(384, half(0.5f));
    x[100] = half(9.0f), x[20] = half(2.0f);
    for (int j = 128; j < 256; ++j) x[static_cast<size_t>(j)] = half(-kInf);
    x[256 + 90] = half(kNaN);
    Cfg c;
    c.op = kWholeMax, c.load = 384, c.repeat = 3, c.bits = true, c.maskBits[0] = ~uint64_t{0}, c.maskBits[1] = 0xFFFFFFFFull;
    const std::vector<half> o = Ok<half>("whole_max_half_bits", c, x, b);
    TH_CHECK(H(o, 0) == 2.0f && HBits(o, 1) == 20u, "whole_max_half_bits r0: %g idx %u", static_cast<double>(H(o, 0)),
             HBits(o, 1));
    TH_CHECK(std::isinf(H(o, 2)) && H(o, 2) < 0 && HBits(o, 3) == 0u, "whole_max_half_bits r1: %g idx %u",
             static_cast<double>(H(o, 2)), HBits(o, 3));
    TH_CHECK(std::isnan(H(o, 4)) && HBits(o, 5) == 90u, "whole_max_half_bits r2: %g idx %u",
             static_cast<double>(H(o, 4)), HBits(o, 5));
  }
  // BlockReduceSum / BlockReduceMax: one result per 32-byte block; a block with no selected lane keeps dst.
  {
    std::vector<float> x(128);
    for (int i = 0; i < 128; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 8 + i / 8);
    Cfg c;
    c.op = kBlockSum, c.load = 128, c.repeat = 2, c.mask = 44;  // blocks 0..4 full, block 5 lanes 40..43
    std::vector<float> o = Ok<float>("block_sum", c, x, b);
    for (int r = 0; r < 2; ++r) {
      for (int k = 0; k < 8; ++k) {
        const int blk = r * 8 + k;
        float want = 7.0f;  // untouched
        if (k < 5) want = 28.0f + 8.0f * static_cast<float>(blk);           // sum of (j + blk), j = 0..7
        if (k == 5) want = 6.0f + 4.0f * static_cast<float>(blk);           // lanes 0..3 of the block
        TH_CHECK(F(o, static_cast<size_t>(blk)) == want, "block_sum r%d block %d: %g, want %g", r, k,
                 static_cast<double>(F(o, static_cast<size_t>(blk))), static_cast<double>(want));
      }
    }
    c.op = kBlockMax, c.mask = 64;
    o = Ok<float>("block_max", c, x, b);
    for (int blk = 0; blk < 16; ++blk) {
      TH_CHECK(F(o, static_cast<size_t>(blk)) == 7.0f + static_cast<float>(blk), "block_max block %d: %g", blk,
               static_cast<double>(F(o, static_cast<size_t>(blk))));
    }
  }
  // ReduceSum count form: repeat sums 1e8, 1, -1e8, 1 (lane 0 of each 64-float repeat). Atlas A2/A3 (2201)
  // accumulate the repeats in order: ((1e8 + 1) - 1e8) + 1 = 1; the other products reduce them by the tree:
  // (1e8 + 1) + (-1e8 + 1) = 0.
  {
    std::vector<float> x(256, 0.0f);
    x[0] = 1e8f, x[64] = 1.0f, x[128] = -1e8f, x[192] = 1.0f;
    Cfg c;
    c.op = kSumCount, c.load = 256, c.count = 256;
    std::vector<float> o = Ok<float>("reduce_sum_count_910b", c, x, b);
    TH_CHECK(F(o, 0) == 1.0f && F(o, 1) == 7.0f, "reduce_sum_count_910b: %g, want 1 (sequential repeats)",
             static_cast<double>(F(o, 0)));
    o = Ok<float>("reduce_sum_count_950", c, x, th::Ascend950());
    TH_CHECK(F(o, 0) == 0.0f, "reduce_sum_count_950: %g, want 0 (tree over repeats)", static_cast<double>(F(o, 0)));
    o = Ok<float>("reduce_sum_count_310p", c, x, th::Ascend310P());
    TH_CHECK(F(o, 0) == 0.0f, "reduce_sum_count_310p: %g, want 0", static_cast<double>(F(o, 0)));
    // Mask form: the tree over repeats on every product, also 2201.
    c.op = kSumMask, c.repeat = 4, c.mask = 64;
    o = Ok<float>("reduce_sum_mask_910b", c, x, b);
    TH_CHECK(F(o, 0) == 0.0f, "reduce_sum_mask_910b: %g, want 0", static_cast<double>(F(o, 0)));
  }
  // ReduceSum count form with a partial last repeat (count 300 = 4 x 64 + 44) of ones: exactly 300; half on
  // Ascend910 (the only type it reduces).
  {
    std::vector<float> x(320, 1.0f);
    x[300] = 1000.0f;  // beyond count: must not be added
    Cfg c;
    c.op = kSumCount, c.load = 320, c.count = 300, c.tmpBytes = 32;
    std::vector<float> o = Ok<float>("reduce_sum_count_tail", c, x, b);
    TH_CHECK(F(o, 0) == 300.0f, "reduce_sum_count_tail: %g", static_cast<double>(F(o, 0)));
    std::vector<half> xh(320, half(1.0f));
    xh[300] = half(1000.0f);
    const std::vector<half> oh = Ok<half>("reduce_sum_count_half_910", c, xh, th::Ascend910());
    TH_CHECK(H(oh, 0) == 300.0f, "reduce_sum_count_half_910: %g", static_cast<double>(H(oh, 0)));
  }
  // ReduceMax count form: the value, and with calIndex the first index of the maximum; NaN propagates.
  {
    std::vector<float> x(320);
    for (int i = 0; i < 320; ++i) x[static_cast<size_t>(i)] = -static_cast<float>((i * 37) % 101);
    x[217] = 50.0f, x[250] = 50.0f, x[310] = 99.0f;  // 310 is beyond count
    Cfg c;
    c.op = kMaxCount, c.load = 320, c.count = 300, c.calIndex = true, c.tmpBytes = 64;  // 16 floats
    std::vector<float> o = Ok<float>("reduce_max_count_index", c, x, b);
    TH_CHECK(F(o, 0) == 50.0f && FBits(o, 1) == 217u && F(o, 2) == 7.0f, "reduce_max_count_index: %g idx %u",
             static_cast<double>(F(o, 0)), FBits(o, 1));
    c.calIndex = false;
    o = Ok<float>("reduce_max_count_value", c, x, b);
    TH_CHECK(F(o, 0) == 50.0f && F(o, 1) == 7.0f, "reduce_max_count_value: %g %g", static_cast<double>(F(o, 0)),
             static_cast<double>(F(o, 1)));
    x[100] = kNaN;
    c.calIndex = true;
    o = Ok<float>("reduce_max_count_nan", c, x, b);
    TH_CHECK(std::isnan(F(o, 0)) && FBits(o, 1) == 100u, "reduce_max_count_nan: %g idx %u",
             static_cast<double>(F(o, 0)), FBits(o, 1));
  }
  // ReduceMax mask form with srcRepStride 16 (every other 256 bytes): the index counts src elements.
  {
    std::vector<half> x(1024, half(-1.0f));
    x[3 * 256 + 5] = half(4.0f);  // repeat 3 starts at element 3 * 16 * 16 = 768
    x[128] = half(100.0f);        // in a gap: not read
    Cfg c;
    c.op = kMaxMask, c.load = 1024, c.repeat = 4, c.mask = 128, c.srcRep = 16, c.calIndex = true, c.tmpBytes = 64;
    const std::vector<half> o = Ok<half>("reduce_max_mask_stride", c, x, b);
    TH_CHECK(H(o, 0) == 4.0f && HBits(o, 1) == 773u, "reduce_max_mask_stride: %g idx %u",
             static_cast<double>(H(o, 0)), HBits(o, 1));
  }
  // sharedTmpBuffer may reuse src (ReduceMax doc note).
  {
    std::vector<float> x(128, 2.0f);
    x[77] = 3.0f;
    Cfg c;
    c.op = kMaxCount, c.load = 128, c.count = 128, c.calIndex = true, c.tmpIsSrc = true;
    const std::vector<float> o = Ok<float>("reduce_max_tmp_is_src", c, x, b);
    TH_CHECK(F(o, 0) == 3.0f && FBits(o, 1) == 77u, "reduce_max_tmp_is_src: %g idx %u", static_cast<double>(F(o, 0)),
             FBits(o, 1));
  }
  // The whole-tensor forms hand the result over through the scalar unit with V_S / S_V / S_MTE3 flags inside
  // the call (dav_c220): a GetValue of dst right after it needs no synchronisation. (WholeReduceSum does not:
  // see whole_sum_scalar_read_race.)
  {
    std::vector<float> x(256, 0.5f);
    Cfg c;
    c.op = kSumCount, c.load = 256, c.count = 256, c.scalarRead = true;
    Ok<float>("reduce_sum_scalar_read", c, x, b);
    c.op = kMaxCount, c.tmpBytes = 64;
    Ok<float>("reduce_max_scalar_read", c, x, th::Ascend950());
  }
  // mask 0 and repeatTime 0 are no-ops: dst keeps its value.
  {
    std::vector<float> x(64, 1.0f);
    Cfg c;
    c.mask = 0;
    std::vector<float> o = Ok<float>("whole_sum_mask0", c, x, b);
    TH_CHECK(F(o, 0) == 7.0f, "whole_sum_mask0 wrote dst");
    c.mask = 64, c.repeat = 0;
    o = Ok<float>("whole_sum_repeat0", c, x, b);
    TH_CHECK(F(o, 0) == 7.0f, "whole_sum_repeat0 wrote dst");
  }
}

void FaultTests() {
  const opgen_rt::ProductInfo &b = th::Ascend910B();
  const std::vector<float> x(8192, 1.0f);
  const std::vector<half> xh(8192, half(1.0f));
  Cfg c;
  c = Cfg{}, c.load = 8192, c.repeat = 256;
  Fault<float>("whole_sum_repeat_256", c, x, b, "vector params", "WholeReduceSum: repeatTime 256 is outside [0, 255]");
  c = Cfg{}, c.mask = 65;
  Fault<float>("whole_sum_mask_65", c, x, b, "vector params", "WholeReduceSum: mask 65 is outside [0, 64]");
  c = Cfg{}, c.op = kBlockMax, c.bits = true, c.maskBits[0] = 1, c.maskBits[1] = 1;
  Fault<float>("block_max_mask_hi_float", c, x, b, "vector params", "mask[1] must be 0");
  c = Cfg{}, c.srcRep = 70000;
  Fault<float>("whole_sum_src_rep_stride", c, x, b, "vector params", "srcRepStride 70000 is outside [0, 65535]");
  c = Cfg{}, c.dstRep = 0;
  Fault<half>("whole_sum_dst_rep_0_910", c, xh, th::Ascend910(), "vector params",
              "dstRepStride 0 is not supported on Ascend910 (NpuArch 1001)");
  c = Cfg{}, c.op = kWholeMax, c.order = ReduceOrder::ORDER_ONLY_VALUE;
  Fault<half>("whole_max_order_910", c, xh, th::Ascend910(), "vector params",
              "ReduceOrder::ORDER_ONLY_VALUE is not supported on Ascend910");
  c = Cfg{}, c.op = kWholeMax, c.order = ReduceOrder::ORDER_ONLY_INDEX;
  Fault<float>("whole_max_order_310p", c, x, th::Ascend310P(), "vector params",
               "ReduceOrder::ORDER_ONLY_INDEX is not supported on Ascend310P");
  c = Cfg{}, c.op = kSumCount, c.load = 256, c.count = 256;
  Fault<float>("reduce_sum_float_910", c, x, th::Ascend910(), "vector dtype",
               "ReduceSum on float tensors is not supported on Ascend910 (NpuArch 1001)");
  c = Cfg{}, c.load = 128, c.srcOff = 4;
  Fault<float>("whole_sum_src_unaligned", c, x, b, "UB alignment", "src UB address 16 is not 32-byte aligned");
  c = Cfg{}, c.op = kWholeMax, c.dstOff = 1;
  Fault<float>("whole_max_dst_unaligned", c, x, b, "UB alignment", "WholeReduceMax: dst UB address 516 is not 8-byte aligned");
  c = Cfg{}, c.op = kBlockSum, c.dstOff = 4;
  Fault<float>("block_sum_dst_unaligned", c, x, b, "UB alignment", "BlockReduceSum: dst UB address 528 is not 32-byte aligned");
  // 9 repeats (576 floats) need 16 tmp floats (64 bytes) on a "method two" product; 32 given.
  c = Cfg{}, c.op = kSumCount, c.load = 576, c.count = 576, c.tmpBytes = 32;
  Fault<float>("reduce_sum_tmp_small_950", c, x, th::Ascend950(), "reduce work buffer",
               "sharedTmpBuffer holds 8 elements (32 bytes) but firstMaxRepeat 9 need 16 (64 bytes) on Ascend950");
  Ok<float>("reduce_sum_tmp_unused_910b", c, x, b);  // 2201 count form: the buffer is not used
  // ReduceMax with index, count 300: firstMaxRepeat = 300 / 64 = 4, iter1 8 -> 8, iter2 2 -> 8: 16 floats
  // (64 bytes); 32 given. 64 bytes pass.
  c = Cfg{}, c.op = kMaxCount, c.load = 320, c.count = 300, c.calIndex = true, c.tmpBytes = 32;
  Fault<float>("reduce_max_tmp_small", c, x, b, "reduce work buffer",
               "holds 8 elements (32 bytes) but firstMaxRepeat 4 with calIndex need 16 (64 bytes)");
  c.tmpBytes = 64;
  Ok<float>("reduce_max_tmp_exact", c, x, b);
  // Without the index: iter1 8 -> 8 floats (32 bytes) suffice.
  c.calIndex = false, c.tmpBytes = 32;
  Ok<float>("reduce_max_tmp_no_index", c, x, b);
  // Overlaps: repeat 0's result written over the source of repeat 1.
  c = Cfg{}, c.load = 128, c.repeat = 2, c.dstInSrc = 64;
  Fault<float>("whole_sum_overlap_later", c, x, b, "vector overlap",
               "the result of repeat 0 (UB bytes [256, 260)) overlaps the source of repeat 1");
  c = Cfg{}, c.dstInSrc = 8;
  Fault<float>("whole_sum_overlap_partial", c, x, b, "vector overlap", "without starting at the same address");
  c = Cfg{}, c.op = kSumCount, c.load = 256, c.count = 256, c.dstInSrc = 8;
  Fault<float>("reduce_sum_overlap", c, x, b, "vector overlap", "partially overlaps src");
  // half index limit.
  c = Cfg{}, c.op = kMaxCount, c.load = 65600, c.count = 65600, c.calIndex = true, c.tmpBytes = 4096, c.dupSrc = true;
  Fault<half>("reduce_max_half_index_limit", c, xh, b, "vector params", "exceed 65535");
  // The existing rules apply: uninitialized source, no sync between the load and the reduction.
  c = Cfg{}, c.undefined = true;
  Fault<float>("whole_sum_uninit", c, x, b, "UB uninitialized read", "WholeReduceSum: src reads");
  c = Cfg{}, c.scalarRead = true;
  Fault<float>("whole_sum_scalar_read_race", c, x, b, "pipe race",
               "LocalTensor::GetValue (PIPE_S) reads UB bytes");
  c = Cfg{}, c.noSync = true;
  Fault<float>("whole_sum_pipe_race", c, x, b, "pipe race",
               "WholeReduceSum (PIPE_V) reads UB bytes [0, 32) written by DataCopy GM->UB (PIPE_MTE2)");
  // The ReduceSum count form takes its whole range at once only when it is defined and race-free; otherwise
  // the per-lane checks report the first bad lane and block, as for every other form.
  c = Cfg{}, c.op = kSumCount, c.load = 256, c.count = 256, c.undefined = true;
  Fault<float>("reduce_sum_count_uninit", c, x, b, "UB uninitialized read",
               "ReduceSum: src reads 4 bytes at UB address 0;");
  c = Cfg{}, c.op = kSumCount, c.load = 200, c.count = 256;
  Fault<float>("reduce_sum_count_uninit_tail", c, x, b, "UB uninitialized read",
               "ReduceSum: src reads 4 bytes at UB address 800;");
  c = Cfg{}, c.op = kSumCount, c.load = 256, c.count = 250, c.noSync = true;
  Fault<float>("reduce_sum_count_pipe_race", c, x, b, "pipe race",
               "ReduceSum (PIPE_V) reads UB bytes [0, 32) written by DataCopy GM->UB (PIPE_MTE2)");
}

}  // namespace

int main() {
  ValueTests();
  FaultTests();
  for (const char *rule : {"vector params", "vector dtype", "UB alignment", "reduce work buffer", "vector overlap"}) {
    bool seen = false;
    for (const std::string &s : g_rules) seen = seen || s == rule;
    TH_CHECK(seen, "no case for rule [%s]", rule);
  }
  return th::Finish("reduce");
}
