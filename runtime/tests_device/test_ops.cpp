// Instruction-level tests of the host emulation: vector ops, Cast, Compare/Select, DataCopy forms,
// DataCopyPad layouts, tensors and buffers, tiling macros, counters. Kernels are captureless lambdas run
// through opgen_rt::RunKernel. Hand-written test code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"
#include "opgen_rt/tiling_meta.h"
#include "register/tilingdata_base.h"

using namespace AscendC;

namespace optiling {
BEGIN_TILING_DATA_DEF(InnerTiling)
TILING_DATA_FIELD_DEF(int32_t, a);
TILING_DATA_FIELD_DEF(int32_t, b);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(OpsTestTiling)
TILING_DATA_FIELD_DEF(int64_t, count);
TILING_DATA_FIELD_DEF(float, scalar);
TILING_DATA_FIELD_DEF_ARR(int32_t, 4, table);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(OpsTest, OpsTestTiling)
}  // namespace optiling

#define OPGEN_KERNEL_TILING_TYPE optiling::OpsTestTiling

namespace {

// ---------------------------------------------------------------------------------------------------------
// Element-wise instructions: GM a, b -> UB (DataCopyPad) -> op -> GM out, compared with a host reference
// computed in float (or the integer type) and rounded once to T.
// ---------------------------------------------------------------------------------------------------------

enum Op { kAdd, kSub, kMul, kDiv, kMax, kMin, kAdds, kMuls, kMaxs, kMins, kExp, kLn, kAbs, kRecip, kSqrt, kRsqrt,
          kRelu, kDup, kOpCount };
const char *kOpNames[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "Exp", "Ln",
                          "Abs", "Reciprocal", "Sqrt", "Rsqrt", "Relu", "Duplicate"};

constexpr int32_t kN = 203;  // not a multiple of any block

template <typename T>
bool Supported(int op) {
  if (std::is_integral<T>::value) {
    return op <= kAdds + 3 && op != kDiv ? true : (op == kRelu && std::is_same<T, int32_t>::value) || op == kDup;
  }
  return true;
}

template <typename T, int OP>
void ElementwiseKernel(uint8_t **args) {
  GlobalTensor<T> ga, gb, gout;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[0]), kN);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[1]), kN);
  gout.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(args[2]), kN);
  TPipe pipe;
  TBuf<TPosition::VECCALC> ba, bb, bo;
  pipe.InitBuffer(ba, kN * sizeof(T));
  pipe.InitBuffer(bb, kN * sizeof(T));
  pipe.InitBuffer(bo, kN * sizeof(T));
  LocalTensor<T> a = ba.Get<T>(), b = bb.Get<T>(), o = bo.Get<T>();
  DataCopyExtParams cp{1, static_cast<uint32_t>(kN * sizeof(T)), 0, 0, 0};
  DataCopyPad(a, ga, cp, DataCopyPadExtParams<T>{false, 0, 0, T(0)});
  DataCopyPad(b, gb, cp, DataCopyPadExtParams<T>{false, 0, 0, T(0)});
  PipeBarrier<PIPE_ALL>();  // TBuf tensors: no queue orders MTE2 before S and V
  const T k = b.GetValue(7);
  if constexpr (std::is_integral<T>::value || IsSameType<T, half>::value || IsSameType<T, float>::value) {
    if constexpr (OP == kAdd) Add(o, a, b, kN);
    if constexpr (OP == kSub) Sub(o, a, b, kN);
    if constexpr (OP == kMul) Mul(o, a, b, kN);
    if constexpr (OP == kMax) Max(o, a, b, kN);
    if constexpr (OP == kMin) Min(o, a, b, kN);
    if constexpr (OP == kAdds) Adds(o, a, k, kN);
    if constexpr (OP == kMuls) Muls(o, a, k, kN);
    if constexpr (OP == kMaxs) Maxs(o, a, k, kN);
    if constexpr (OP == kMins) Mins(o, a, k, kN);
    if constexpr (OP == kDup) Duplicate(o, k, kN);
  }
  if constexpr (!std::is_integral<T>::value) {
    if constexpr (OP == kDiv) Div(o, a, b, kN);
    if constexpr (OP == kExp) Exp(o, a, kN);
    if constexpr (OP == kLn) Ln(o, a, kN);
    if constexpr (OP == kAbs) Abs(o, a, kN);
    if constexpr (OP == kRecip) Reciprocal(o, a, kN);
    if constexpr (OP == kSqrt) Sqrt(o, a, kN);
    if constexpr (OP == kRsqrt) Rsqrt(o, a, kN);
  }
  if constexpr (!std::is_integral<T>::value || std::is_same<T, int32_t>::value) {
    if constexpr (OP == kRelu) Relu(o, a, kN);
  }
  PipeBarrier<PIPE_ALL>();
  DataCopyPad(gout, o, cp);
}

template <typename T>
double RefOp(int op, double a, double b, double k) {
  using C = opgen_rt::device::CalcType<T>;
  const C x = static_cast<C>(a), y = static_cast<C>(b), s = static_cast<C>(k);
  C r = 0;
  switch (op) {
    case kAdd: r = static_cast<C>(x + y); break;
    case kSub: r = static_cast<C>(x - y); break;
    case kMul: r = static_cast<C>(x * y); break;
    case kDiv: r = static_cast<C>(x / y); break;
    case kMax: r = x > y ? x : y; break;
    case kMin: r = x < y ? x : y; break;
    case kAdds: r = static_cast<C>(x + s); break;
    case kMuls: r = static_cast<C>(x * s); break;
    case kMaxs: r = x > s ? x : s; break;
    case kMins: r = x < s ? x : s; break;
    case kExp: r = static_cast<C>(std::exp(x)); break;
    case kLn: r = static_cast<C>(std::log(x)); break;
    case kAbs: r = static_cast<C>(std::fabs(x)); break;
    case kRecip: r = static_cast<C>(C(1) / x); break;
    case kSqrt: r = static_cast<C>(std::sqrt(x)); break;
    case kRsqrt: r = static_cast<C>(C(1) / std::sqrt(x)); break;
    case kRelu: r = x > C(0) ? x : C(0); break;
    case kDup: r = s; break;
    default: break;
  }
  return static_cast<double>(static_cast<float>(T(r)));
}

template <typename T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}

template <typename T, int OP>
void CheckElementwise() {
  if constexpr (OP < kOpCount) {
    if (Supported<T>(OP)) {
      th::Gm ga(kN * sizeof(T), "a", false), gb(kN * sizeof(T), "b", false), go(kN * sizeof(T), "out");
      T *a = ga.as<T>(), *b = gb.as<T>();
      for (int i = 0; i < kN; ++i) {
        const bool positive = OP == kLn || OP == kSqrt || OP == kRsqrt;
        const double av = std::is_integral<T>::value ? (i * 37 % 200) - 100 : (positive ? 0.05 + i * 0.031 : -3.0 + i * 0.029);
        const double bv = std::is_integral<T>::value ? (i * 11 % 50) - 25 : 0.5 + (i % 13) * 0.21;
        a[i] = T(static_cast<float>(av));
        b[i] = T(static_cast<float>(bv));
      }
      th::KernelLaunch k;
      k.name = std::string("elementwise_") + kOpNames[OP];
      k.entry = ElementwiseKernel<T, OP>;
      k.args = {&ga, &gb, &go};
      const opgen_rt::LaunchResult r = th::Run(k);
      TH_CHECK(r.ok, "%s: %s", k.name.c_str(), r.fault.c_str());
      int bad = 0;
      for (int i = 0; r.ok && i < kN; ++i) {
        const double want = RefOp<T>(OP, AsDouble(a[i]), AsDouble(b[i]), AsDouble(b[7]));
        const double got = AsDouble(go.as<T>()[i]);
        if (!(got == want || (std::isnan(got) && std::isnan(want)))) {
          if (bad++ < 3) {
            std::fprintf(stderr, "%s<%zu> i=%d: got %.9g want %.9g\n", kOpNames[OP], sizeof(T), i, got, want);
          }
        }
      }
      TH_CHECK(bad == 0, "%s on %zu-byte type: %d mismatches", kOpNames[OP], sizeof(T), bad);
      if (r.ok) {
        TH_CHECK(r.cores[0].vectorInstructions == 1 && r.cores[0].vectorElements == static_cast<uint64_t>(kN),
                 "%s counters: %llu instructions, %llu elements", kOpNames[OP],
                 static_cast<unsigned long long>(r.cores[0].vectorInstructions),
                 static_cast<unsigned long long>(r.cores[0].vectorElements));
      }
    }
    CheckElementwise<T, OP + 1>();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Cast
// ---------------------------------------------------------------------------------------------------------

constexpr int32_t kCastN = 64;

template <typename D, typename S, RoundMode M>
void CastKernel(uint8_t **args) {
  GlobalTensor<S> gs;
  GlobalTensor<D> gd;
  gs.SetGlobalBuffer(reinterpret_cast<__gm__ S *>(args[0]), kCastN);
  gd.SetGlobalBuffer(reinterpret_cast<__gm__ D *>(args[1]), kCastN);
  TPipe pipe;
  TBuf<> bs, bd;
  pipe.InitBuffer(bs, kCastN * sizeof(S));
  pipe.InitBuffer(bd, kCastN * sizeof(D));
  LocalTensor<S> s = bs.Get<S>();
  LocalTensor<D> d = bd.Get<D>();
  DataCopy(s, gs, kCastN);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Cast(d, s, M, kCastN);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
  DataCopy(gd, d, kCastN);
}

template <typename D, typename S, RoundMode M>
std::vector<D> RunCast(const std::vector<S> &in, opgen_rt::LaunchResult *res = nullptr) {
  th::Gm gs(kCastN * sizeof(S), "src", false), gd(kCastN * sizeof(D), "dst");
  for (int i = 0; i < kCastN; ++i) {
    gs.as<S>()[i] = in[static_cast<size_t>(i) % in.size()];
  }
  th::KernelLaunch k;
  k.name = "cast";
  k.entry = CastKernel<D, S, M>;
  k.args = {&gs, &gd};
  const opgen_rt::LaunchResult r = th::Run(k);
  if (res != nullptr) {
    *res = r;
  } else {
    TH_CHECK(r.ok, "cast: %s", r.fault.c_str());
  }
  return std::vector<D>(gd.as<D>(), gd.as<D>() + kCastN);
}

void CheckCasts() {
  const std::vector<float> f = {2.5f, -2.5f, 1.5f, -0.5f, 3.7f, -3.7f, 0.0f, 1e10f, -1e10f, NAN};
  auto rint = RunCast<int32_t, float, RoundMode::CAST_RINT>(f);
  auto flo = RunCast<int32_t, float, RoundMode::CAST_FLOOR>(f);
  auto cei = RunCast<int32_t, float, RoundMode::CAST_CEIL>(f);
  auto rnd = RunCast<int32_t, float, RoundMode::CAST_ROUND>(f);
  auto trc = RunCast<int32_t, float, RoundMode::CAST_TRUNC>(f);
  const int32_t wantRint[] = {2, -2, 2, 0, 4, -4, 0, INT32_MAX, INT32_MIN, 0};
  const int32_t wantFloor[] = {2, -3, 1, -1, 3, -4, 0, INT32_MAX, INT32_MIN, 0};
  const int32_t wantCeil[] = {3, -2, 2, 0, 4, -3, 0, INT32_MAX, INT32_MIN, 0};
  const int32_t wantRound[] = {3, -3, 2, -1, 4, -4, 0, INT32_MAX, INT32_MIN, 0};
  const int32_t wantTrunc[] = {2, -2, 1, 0, 3, -3, 0, INT32_MAX, INT32_MIN, 0};
  for (size_t i = 0; i < f.size(); ++i) {
    TH_CHECK(rint[i] == wantRint[i], "float->int32 RINT %g: %d", static_cast<double>(f[i]), rint[i]);
    TH_CHECK(flo[i] == wantFloor[i], "float->int32 FLOOR %g: %d", static_cast<double>(f[i]), flo[i]);
    TH_CHECK(cei[i] == wantCeil[i], "float->int32 CEIL %g: %d", static_cast<double>(f[i]), cei[i]);
    TH_CHECK(rnd[i] == wantRound[i], "float->int32 ROUND %g: %d", static_cast<double>(f[i]), rnd[i]);
    TH_CHECK(trc[i] == wantTrunc[i], "float->int32 TRUNC %g: %d", static_cast<double>(f[i]), trc[i]);
  }
  // float -> half in every mode against the (separately tested) reference encoder.
  std::vector<float> g;
  for (int i = 0; i < kCastN; ++i) {
    g.push_back(static_cast<float>((i - 32) * 0.0123456789 + (i % 5) * 1e-4));
  }
  g[3] = 70000.0f;
  g[4] = -70000.0f;
  auto h0 = RunCast<half, float, RoundMode::CAST_NONE>(g);
  auto h1 = RunCast<half, float, RoundMode::CAST_RINT>(g);
  auto h2 = RunCast<half, float, RoundMode::CAST_FLOOR>(g);
  auto h5 = RunCast<half, float, RoundMode::CAST_TRUNC>(g);
  auto h6 = RunCast<half, float, RoundMode::CAST_ODD>(g);
  using opgen_rt::device::DoubleToHalfBits;
  using opgen_rt::device::Rounding;
  for (int i = 0; i < kCastN; ++i) {
    const double x = g[static_cast<size_t>(i)];
    TH_CHECK(h0[i].Bits() == DoubleToHalfBits(x) && h1[i].Bits() == DoubleToHalfBits(x), "float->half RINT %g", x);
    TH_CHECK(h2[i].Bits() == DoubleToHalfBits(x, Rounding::kFloor), "float->half FLOOR %g", x);
    TH_CHECK(h5[i].Bits() == DoubleToHalfBits(x, Rounding::kTrunc), "float->half TRUNC %g", x);
    TH_CHECK(h6[i].Bits() == DoubleToHalfBits(x, Rounding::kOdd), "float->half ODD %g", x);
  }
  // Widening and integer conversions.
  auto back = RunCast<float, half, RoundMode::CAST_NONE>(h1);
  auto bf = RunCast<bfloat16_t, float, RoundMode::CAST_RINT>(g);
  auto bfBack = RunCast<float, bfloat16_t, RoundMode::CAST_NONE>(bf);
  for (int i = 0; i < kCastN; ++i) {
    TH_CHECK(back[i] == static_cast<float>(h1[i]), "half->float");
    TH_CHECK(bf[i].Bits() == opgen_rt::device::FloatToBf16Bits(g[static_cast<size_t>(i)]), "float->bf16");
    TH_CHECK(bfBack[i] == static_cast<float>(bf[i]), "bf16->float");
  }
  auto fl = RunCast<float, float, RoundMode::CAST_FLOOR>(f);
  TH_CHECK(fl[0] == 2.0f && fl[1] == -3.0f && fl[3] == -1.0f, "float->float FLOOR rounds to integral values");
  auto i16 = RunCast<int16_t, int32_t, RoundMode::CAST_NONE>(std::vector<int32_t>{40000, -40000, 7});
  TH_CHECK(i16[0] == 32767 && i16[1] == -32768 && i16[2] == 7, "int32->int16 saturates");
  auto i64 = RunCast<int64_t, int32_t, RoundMode::CAST_NONE>(std::vector<int32_t>{-5, 123456789});
  TH_CHECK(i64[0] == -5 && i64[1] == 123456789, "int32->int64");
  auto fi = RunCast<float, int32_t, RoundMode::CAST_NONE>(std::vector<int32_t>{16777217, -3});
  TH_CHECK(fi[0] == 16777216.0f && fi[1] == -3.0f, "int32->float rounds to nearest even");
  auto hi8 = RunCast<half, int8_t, RoundMode::CAST_NONE>(std::vector<int8_t>{-128, 127, 0, 5});
  TH_CHECK(static_cast<float>(hi8[0]) == -128.0f && static_cast<float>(hi8[1]) == 127.0f, "int8->half");
  auto u8 = RunCast<uint8_t, half, RoundMode::CAST_RINT>(std::vector<half>{half(300.0f), half(-4.0f), half(2.5f)});
  TH_CHECK(u8[0] == 255 && u8[1] == 0 && u8[2] == 2, "half->uint8 saturates");

  opgen_rt::LaunchResult r;
  RunCast<int32_t, float, RoundMode::CAST_NONE>(f, &r);
  th::ExpectFault(r, "vector params", "cast", 0, 1, "float->int32 with CAST_NONE");
  RunCast<half, half, RoundMode::CAST_ODD>(h1, &r);
  th::ExpectFault(r, "vector params", "cast", 0, 1, "CAST_ODD on half->half");
  th::UseProduct(th::Ascend910());
  RunCast<bfloat16_t, float, RoundMode::CAST_RINT>(g, &r);
  th::ExpectFault(r, "vector dtype", "cast", 0, 1, "bf16 Cast on a product without bf16");
  // NpuArch 1001 (and 2002): int32_t -> float with CAST_NONE only, no half -> 8-bit CAST_RINT
  RunCast<float, int32_t, RoundMode::CAST_CEIL>(std::vector<int32_t>{16777217, -3}, &r);
  th::ExpectFault(r, "vector params", "cast", 0, 1, "int32->float CAST_CEIL on NpuArch 1001");
  RunCast<int8_t, half, RoundMode::CAST_RINT>(std::vector<half>{half(2.0f), half(-4.0f)}, &r);
  th::ExpectFault(r, "vector params", "cast", 0, 1, "half->int8 CAST_RINT on NpuArch 1001");
  auto i8 = RunCast<int8_t, half, RoundMode::CAST_TRUNC>(std::vector<half>{half(2.0f), half(-4.0f)});
  TH_CHECK(i8[0] == 2 && i8[1] == -4, "half->int8 CAST_TRUNC on NpuArch 1001");
  th::UseProduct(th::Ascend910B());
  auto ceil = RunCast<float, int32_t, RoundMode::CAST_CEIL>(std::vector<int32_t>{16777217, -16777217});
  TH_CHECK(ceil[0] == 16777218.0f && ceil[1] == -16777216.0f, "int32->float CAST_CEIL on NpuArch 2201");
}

// ---------------------------------------------------------------------------------------------------------
// Compare / CompareScalar / Compares / Select, including the "compare past the data" pattern that the
// 256-byte count rule forces.
// ---------------------------------------------------------------------------------------------------------

constexpr int32_t kCmpN = 20;  // defined elements; Compare runs over 64 (256 bytes of float)

void CompareSelectKernel(uint8_t **args) {
  GlobalTensor<float> ga, gb, go;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), kCmpN);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[1]), kCmpN);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[2]), 4 * kCmpN);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qa, qb;
  TQue<TPosition::VECOUT, 1> qo;
  TBuf<> mask;
  pipe.InitBuffer(qa, 1, 64 * sizeof(float));
  pipe.InitBuffer(qb, 1, 64 * sizeof(float));
  pipe.InitBuffer(qo, 1, 4 * 64 * sizeof(float));
  pipe.InitBuffer(mask, 64);
  LocalTensor<float> a = qa.AllocTensor<float>();
  LocalTensor<float> b = qb.AllocTensor<float>();
  DataCopyExtParams cp{1, kCmpN * sizeof(float), 0, 0, 0};
  DataCopyPad(a, ga, cp, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
  DataCopyPad(b, gb, cp, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
  qa.EnQue(a);
  qb.EnQue(b);
  a = qa.DeQue<float>();
  b = qb.DeQue<float>();
  LocalTensor<float> o = qo.AllocTensor<float>();
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Compare(m, a, b, CMPMODE::LT, 64);                                         // o[0..20): a < b ? a : b
  Select(o, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, kCmpN);
  CompareScalar(m, a, 0.0f, CMPMODE::GE, 64);                                // o[64..84): a >= 0 ? a : -1
  Select(o[64], m, a, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kCmpN);
  Compares(m, b, 1.0f, CMPMODE::EQ, 64);                                     // o[128..148): b == 1 ? 5 : 6
  LocalTensor<float> five = o[192];
  Duplicate(five, 5.0f, kCmpN);
  Select(o[128], m, five, 6.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kCmpN);
  qo.EnQue(o);
  o = qo.DeQue<float>();
  for (int part = 0; part < 3; ++part) {
    DataCopyPad(go[part * kCmpN], o[part * 64], cp);
  }
  // The mask bits themselves (first 3 bytes of the EQ mask) into the last slot.
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  go.SetValue(3 * kCmpN, static_cast<float>(m.GetValue(0)));
  go.SetValue(3 * kCmpN + 1, static_cast<float>(m.GetValue(1)));
  go.SetValue(3 * kCmpN + 2, static_cast<float>(m.GetValue(2)));
  qa.FreeTensor(a);
  qb.FreeTensor(b);
  qo.FreeTensor(o);
}

void CompareBadCountKernel(uint8_t **args) {
  (void)args;
  TPipe pipe;
  TBuf<> buf, mask;
  pipe.InitBuffer(buf, 256);
  pipe.InitBuffer(mask, 32);
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 1.0f, 64);
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Compare(m, a, a, CMPMODE::EQ, 20);  // 80 bytes: not a multiple of 256
}

void CheckCompareSelect() {
  th::Gm ga(kCmpN * 4, "a", false), gb(kCmpN * 4, "b", false), go(4 * kCmpN * 4, "out");
  for (int i = 0; i < kCmpN; ++i) {
    ga.as<float>()[i] = static_cast<float>(i % 7) - 3.0f;
    gb.as<float>()[i] = (i % 3 == 0) ? 1.0f : static_cast<float>(i % 5) - 1.5f;
  }
  th::KernelLaunch k;
  k.name = "compare_select";
  k.entry = CompareSelectKernel;
  k.args = {&ga, &gb, &go};
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok, "compare_select: %s", r.fault.c_str());
  const float *a = ga.as<float>(), *b = gb.as<float>(), *o = go.as<float>();
  int bad = 0;
  uint32_t eqBits = 0;
  for (int i = 0; i < kCmpN; ++i) {
    bad += o[i] != (a[i] < b[i] ? a[i] : b[i]);
    bad += o[kCmpN + i] != (a[i] >= 0 ? a[i] : -1.0f);
    bad += o[2 * kCmpN + i] != (b[i] == 1.0f ? 5.0f : 6.0f);
    eqBits |= (b[i] == 1.0f ? 1u : 0u) << i;
  }
  TH_CHECK(bad == 0, "compare/select: %d wrong elements", bad);
  const uint32_t gotBits = static_cast<uint32_t>(o[3 * kCmpN]) | (static_cast<uint32_t>(o[3 * kCmpN + 1]) << 8) |
                           ((static_cast<uint32_t>(o[3 * kCmpN + 2]) & 0x0fu) << 16);
  TH_CHECK(gotBits == eqBits, "mask bits 0x%x, want 0x%x (little-endian bit order)", gotBits, eqBits);

  th::KernelLaunch bad256;
  bad256.name = "compare_bad_count";
  bad256.entry = CompareBadCountKernel;
  const opgen_rt::LaunchResult r2 = th::Run(bad256);
  if (th::ExpectFault(r2, "vector params", "compare_bad_count", 0, 1, "Compare count rule")) {
    TH_CHECK(th::Contains(r2.fault, "count 20 elements (80 bytes) is not a multiple of 256 bytes"), "%s",
             r2.fault.c_str());
  }
}

// ---------------------------------------------------------------------------------------------------------
// Compare / Compares / Select edge rules: NaN compares false except NE (IEEE, as the vector unit's compare),
// a mask buffer too small for count / 8 bytes, a mask that is not 32-byte aligned, a Select that reads more
// mask bits than its buffer holds. The formula compiler's where() relies on each of them.
// ---------------------------------------------------------------------------------------------------------

constexpr int32_t kNanN = 64;  // one 256-byte repeat of float

void CompareNanKernel(uint8_t **args) {
  if (GetBlockIdx() != 0) {
    return;  // one core computes; the launch runs two so that every core order is exercised
  }
  GlobalTensor<float> go;
  go.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), 6 * kNanN);
  TPipe pipe;
  TBuf<> bufA, bufB, bufOne, bufZero, mask;
  TQue<TPosition::VECOUT, 1> qo;
  pipe.InitBuffer(bufA, kNanN * sizeof(float));
  pipe.InitBuffer(bufB, kNanN * sizeof(float));
  pipe.InitBuffer(bufOne, kNanN * sizeof(float));
  pipe.InitBuffer(bufZero, kNanN * sizeof(float));
  pipe.InitBuffer(mask, kNanN / 8);
  pipe.InitBuffer(qo, 1, 6 * kNanN * sizeof(float));
  LocalTensor<float> a = bufA.Get<float>();
  LocalTensor<float> b = bufB.Get<float>();
  LocalTensor<float> one = bufOne.Get<float>();
  LocalTensor<float> zero = bufZero.Get<float>();
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int32_t i = 0; i < kNanN; ++i) {  // a: NaN at even i, i otherwise; b: 1 at every i
    a.SetValue(static_cast<uint32_t>(i), (i % 2 == 0) ? nan : static_cast<float>(i));
    b.SetValue(static_cast<uint32_t>(i), 1.0f);
  }
  SetFlag<HardEvent::S_V>(EVENT_ID0);
  WaitFlag<HardEvent::S_V>(EVENT_ID0);
  Duplicate(one, 1.0f, kNanN);
  Duplicate(zero, 0.0f, kNanN);
  LocalTensor<float> o = qo.AllocTensor<float>();
  const CMPMODE modes[6] = {CMPMODE::LT, CMPMODE::LE, CMPMODE::GT, CMPMODE::GE, CMPMODE::EQ, CMPMODE::NE};
  for (int32_t k = 0; k < 6; ++k) {
    if (k % 2 == 0) {
      Compare(m, a, b, modes[k], kNanN);  // tensor-tensor
    } else {
      Compares(m, a, 1.0f, modes[k], kNanN);  // tensor-scalar
    }
    Select(o[k * kNanN], m, one, zero, SELMODE::VSEL_TENSOR_TENSOR_MODE, kNanN);
  }
  qo.EnQue(o);
  o = qo.DeQue<float>();
  DataCopyPad(go, o, DataCopyExtParams{1, 6 * kNanN * sizeof(float), 0, 0, 0});
  qo.FreeTensor(o);
}

// A mask buffer of 32 bytes holds 256 bits; Compare of 512 floats writes 64 bytes.
void CompareMaskTooSmallKernel(uint8_t **args) {
  (void)args;
  TPipe pipe;
  TBuf<> buf, mask;
  pipe.InitBuffer(buf, 512 * sizeof(float));
  pipe.InitBuffer(mask, 32);
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 1.0f, 512);
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Compares(m, a, 0.0f, CMPMODE::GT, 512);
}

// The mask must start on a 32-byte boundary like every UB operand.
void CompareMaskMisalignedKernel(uint8_t **args) {
  (void)args;
  TPipe pipe;
  TBuf<> buf, mask;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  pipe.InitBuffer(mask, 64);
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 1.0f, 64);
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Compare(m[8], a, a, CMPMODE::EQ, 64);
}

// Select of 512 floats reads 64 mask bytes; the mask buffer holds 32.
void SelectMaskTooSmallKernel(uint8_t **args) {
  (void)args;
  TPipe pipe;
  TBuf<> buf, mask;
  pipe.InitBuffer(buf, 512 * sizeof(float));
  pipe.InitBuffer(mask, 32);
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 1.0f, 512);
  LocalTensor<uint8_t> m = mask.Get<uint8_t>();
  Duplicate(m.ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0xffff), 16);
  Select(a, m, a, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 512);
}

void CheckCompareSelectEdges() {
  for (opgen_rt::CoreOrder order : th::kAllOrders) {
    th::Gm go(6 * kNanN * 4, "out");
    th::KernelLaunch k;
    k.name = "compare_nan";
    k.entry = CompareNanKernel;
    k.args = {&go};
    k.blockDim = 2;  // core 1 returns at once; the orders schedule the two cores differently
    const opgen_rt::LaunchResult r = th::RunWithOrder(k, order);
    TH_CHECK(r.ok, "compare_nan (%s): %s", th::OrderName(order), r.fault.c_str());
    const float *o = go.as<float>();
    int bad = 0;
    for (int32_t i = 0; i < kNanN; ++i) {
      const bool isNan = i % 2 == 0;
      const float x = static_cast<float>(i);
      const bool want[6] = {!isNan && x < 1.0f, !isNan && x <= 1.0f, !isNan && x > 1.0f,
                            !isNan && x >= 1.0f, !isNan && x == 1.0f, isNan || x != 1.0f};
      for (int32_t k2 = 0; k2 < 6; ++k2) {
        bad += o[k2 * kNanN + i] != (want[k2] ? 1.0f : 0.0f);
      }
    }
    TH_CHECK(bad == 0, "compare with NaN (%s): %d wrong selections (NaN compares false except NE)",
             th::OrderName(order), bad);
  }

  th::KernelLaunch small;
  small.name = "compare_mask_too_small";
  small.entry = CompareMaskTooSmallKernel;
  const opgen_rt::LaunchResult r2 = th::Run(small);
  th::ExpectFault(r2, "UB bounds", "compare_mask_too_small", 0, 1, "Compares writes 64 mask bytes into 32");

  th::KernelLaunch mis;
  mis.name = "compare_mask_misaligned";
  mis.entry = CompareMaskMisalignedKernel;
  const opgen_rt::LaunchResult r3 = th::Run(mis);
  th::ExpectFault(r3, "UB alignment", "compare_mask_misaligned", 0, 1, "mask 8 bytes into its buffer");

  th::KernelLaunch sel;
  sel.name = "select_mask_too_small";
  sel.entry = SelectMaskTooSmallKernel;
  const opgen_rt::LaunchResult r4 = th::Run(sel);
  th::ExpectFault(r4, "UB bounds", "select_mask_too_small", 0, 1, "Select reads 64 mask bytes from 32");
}

// ---------------------------------------------------------------------------------------------------------
// DataCopyPad layouts, DataCopy with DataCopyParams, UB -> UB DataCopy, tensors and TBuf views.
// ---------------------------------------------------------------------------------------------------------

// GM src: 3 blocks of 5 floats, 1 float apart. UB rows: 1 pad + 5 data + 2 pad = 8 floats (32 bytes),
// 1 empty block between rows. Then the rows go back to GM whole (8 floats each, contiguous).
void PadLayoutKernel(uint8_t **args) {
  GlobalTensor<float> src, dst, dst2;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), 18);
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[1]), 24);
  dst2.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[2]), 24);
  TPipe pipe;
  TBuf<> buf, buf2;
  pipe.InitBuffer(buf, 6 * 32);
  pipe.InitBuffer(buf2, 6 * 32);
  LocalTensor<float> t = buf.Get<float>();
  DataCopyPad(t, src, DataCopyExtParams{3, 5 * sizeof(float), 1 * sizeof(float), 1, 0},
              DataCopyPadExtParams<float>{true, 1, 2, 7.0f});
  PipeBarrier<PIPE_ALL>();
  // Rows back to GM (32 bytes each, skipping the empty block between UB rows).
  DataCopyPad(dst, t, DataCopyExtParams{3, 32, 1, 0, 0});
  // The same through DataCopy with block units and a UB -> UB copy.
  LocalTensor<float> t2 = buf2.Get<float>();
  DataCopy(t2, t, DataCopyParams{3, 1, 1, 0});
  PipeBarrier<PIPE_ALL>();
  DataCopy(dst2, t2, 24);
  // Scalar access, views, sizes.
  const uint32_t size = t.GetSize();
  const uint64_t phy = t[8].GetPhyAddr();
  LocalTensor<int32_t> asInt = t.ReinterpretCast<int32_t>();
  dst2.SetValue(23, static_cast<float>(size) + static_cast<float>(phy - t.GetPhyAddr()) / 1000.0f +
                         static_cast<float>(asInt.GetValue(2) == 0x40000000 ? 0.5 : 0.0));
}

void CheckDataCopies() {
  th::Gm src(18 * 4, "src", false), dst(24 * 4, "dst"), dst2(24 * 4, "dst2");
  for (int i = 0; i < 18; ++i) {
    src.as<float>()[i] = static_cast<float>(i + 1);
  }
  th::KernelLaunch k;
  k.name = "pad_layout";
  k.entry = PadLayoutKernel;
  k.args = {&src, &dst, &dst2};
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok, "pad_layout: %s", r.fault.c_str());
  int bad = 0;
  for (int row = 0; row < 3; ++row) {
    for (int e = 0; e < 8; ++e) {
      float want = 7.0f;
      if (e >= 1 && e <= 5) {
        want = static_cast<float>(row * 6 + (e - 1) + 1);  // GM block `row` starts at float 6*row
      }
      bad += dst.as<float>()[row * 8 + e] != want;
      if (!(row == 2 && e == 7)) {
        bad += dst2.as<float>()[row * 8 + e] != want;
      }
    }
  }
  TH_CHECK(bad == 0, "DataCopyPad / DataCopyParams layout: %d wrong elements", bad);
  // size 48 floats, view [8] is 32 bytes further, t[2] holds 2.0f = 0x40000000.
  TH_CHECK(dst2.as<float>()[23] == 48.0f + 0.032f + 0.5f, "GetSize/GetPhyAddr/ReinterpretCast: %g",
           static_cast<double>(dst2.as<float>()[23]));
  const opgen_rt::CoreStats &s = r.cores[0];
  TH_CHECK(s.gmBytesRead == 60 && s.gmBytesWritten == 96 + 96 + 4 && s.ubHighWaterBytes == 384,
           "counters: read %llu written %llu ub %llu", static_cast<unsigned long long>(s.gmBytesRead),
           static_cast<unsigned long long>(s.gmBytesWritten), static_cast<unsigned long long>(s.ubHighWaterBytes));
}

// DataCopy GM -> UB of 7 floats (28 bytes) copies nothing; the same UB -> GM leaves GM untouched and
// records a note, without a fault.
void TruncatedOutKernel(uint8_t **args) {
  GlobalTensor<float> dst;
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(args[0]), 16);
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 64);
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 3.0f, 16);
  PipeBarrier<PIPE_ALL>();
  DataCopy(dst, t, 12);  // 48 bytes: 32 written, 16 dropped
}

void CheckTruncatedOut() {
  th::Gm dst(64, "out");
  th::KernelLaunch k;
  k.name = "truncated_out";
  k.entry = TruncatedOutKernel;
  k.args = {&dst};
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok, "truncated_out: %s", r.fault.c_str());
  TH_CHECK(dst.as<float>()[7] == 3.0f && dst.as<float>()[8] == 0.0f, "UB->GM DataCopy writes whole blocks only");
  TH_CHECK(r.cores[0].gmBytesTruncated == 16 && r.cores[0].gmBytesWritten == 32, "truncated %llu",
           static_cast<unsigned long long>(r.cores[0].gmBytesTruncated));
  TH_CHECK(r.notes.size() == 1 && th::Contains(r.notes[0], "asked to write 48 bytes, wrote 32"), "note: %s",
           r.notes.empty() ? "" : r.notes[0].c_str());
}

// GET_TILING_DATA / TILING_KEY_IS and the tiling macros.
void TilingKernel(uint8_t **args) {
  GET_TILING_DATA(t, args[1]);
  GlobalTensor<int32_t> out;
  out.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(args[0]), 8);
  out.SetValue(0, static_cast<int32_t>(t.count));
  out.SetValue(1, static_cast<int32_t>(t.scalar * 10));
  out.SetValue(2, t.table[3]);
  out.SetValue(3, t.inner.b);
  out.SetValue(4, TILING_KEY_IS(5) ? 1 : 0);
  out.SetValue(5, TILING_KEY_IS(4) ? 1 : 0);
  out.SetValue(6, static_cast<int32_t>(GetBlockNum()));
}

void CheckTiling() {
  optiling::OpsTestTiling t;
  t.set_count(1234);
  t.set_scalar(2.5f);
  int32_t table[4] = {1, 2, 3, 44};  // not const: metadef's TILING_DATA_FIELD_DEF_ARR setter takes arr_type *
  t.set_table(table);
  t.inner.set_b(-9);
  TH_CHECK(t.get_count() == 1234 && t.GetDataSize() == sizeof(t), "tiling getters");
  th::Gm tg(t.GetDataSize(), "tiling", false), out(32, "out");
  t.SaveToBuffer(tg.data(), tg.bytes);
  th::KernelLaunch k;
  k.name = "tiling";
  k.entry = TilingKernel;
  k.args = {&out, &tg};
  k.tilingKey = 5;
  k.blockDim = 1;
  const opgen_rt::LaunchResult r = th::Run(k);
  TH_CHECK(r.ok, "tiling: %s", r.fault.c_str());
  const int32_t *o = out.as<int32_t>();
  TH_CHECK(o[0] == 1234 && o[1] == 25 && o[2] == 44 && o[3] == -9 && o[4] == 1 && o[5] == 0 && o[6] == 1,
           "tiling values %d %d %d %d %d %d %d", o[0], o[1], o[2], o[3], o[4], o[5], o[6]);
  TH_CHECK(r.cores[0].gmBytesRead == t.GetDataSize(), "GET_TILING_DATA counts as a GM read");
  // REGISTER_TILING_DATA_CLASS described the fields to the host registry.
  const opgen_rt::TilingClassMeta *meta = opgen_rt::FindTilingClassMeta("OpsTest");
  TH_CHECK(meta != nullptr && meta->className == "OpsTestTiling" && meta->dataSize == sizeof(t) &&
               meta->fields.size() == 4,
           "tiling meta");
  if (meta != nullptr && meta->fields.size() == 4) {
    const auto &f = meta->fields;
    TH_CHECK(f[0].name == "count" && f[0].type == "int64_t" && f[0].offset == 0 && f[0].elemSize == 8, "field 0");
    TH_CHECK(f[1].name == "scalar" && f[1].type == "float" && f[1].offset == 8 && f[1].count == 1, "field 1");
    TH_CHECK(f[2].name == "table" && f[2].type == "int32_t" && f[2].offset == 12 && f[2].count == 4, "field 2");
    TH_CHECK(f[3].name == "inner" && f[3].offset == 28 && f[3].elemSize == 8, "field 3");
    const std::string json = opgen_rt::TilingDataToJson(meta, tg.data(), tg.bytes);
    TH_CHECK(th::Contains(json, "\"count\": 1234") || th::Contains(json, "\"count\":1234"), "json: %s",
             json.c_str());
  }
  // A tiling buffer shorter than the struct is a GM bounds fault.
  th::Gm shortTiling(8, "tiling", false);
  k.args = {&out, &shortTiling};
  th::ExpectFault(th::Run(k), "GM bounds", "tiling", 0, 1, "short tiling buffer");
}

}  // namespace

int main() {
  th::UseProduct(th::Ascend910B());
  CheckElementwise<float, 0>();
  CheckElementwise<half, 0>();
  CheckElementwise<int32_t, 0>();
  CheckElementwise<int16_t, 0>();
  CheckCasts();
  CheckCompareSelect();
  CheckCompareSelectEdges();
  CheckDataCopies();
  CheckTruncatedOut();
  CheckTiling();
  return th::Finish("ops");
}
