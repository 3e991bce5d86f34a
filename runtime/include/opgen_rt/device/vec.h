// ascend-opgen host emulation of the AscendC kernel API: vector instructions (count form), Axpy, Cast,
// Compare / CompareScalar / Compares, Select.
//
// Every instruction checks its operands (32-byte aligned UB addresses, inside their buffers, sources
// defined), computes element by element (half / bfloat16_t in float, rounded once to the element type,
// ties to even), marks the destination defined and counts one vector instruction. Dtypes that no product
// supports are compile-time errors; dtypes that only some products support are run-time faults.
// Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_VEC_H
#define OPGEN_RT_DEVICE_VEC_H

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "opgen_rt/device/tensor.h"

namespace AscendC {
namespace opgen_detail {

using opgen_rt::device::CalcType;
using opgen_rt::device::Core;
using opgen_rt::device::Rounding;

template <typename T>
constexpr bool kIsFloatVec = std::is_same<T, float>::value || std::is_same<T, half>::value ||
                             std::is_same<T, bfloat16_t>::value;
template <typename T>
constexpr bool kIsArithVec = kIsFloatVec<T> || std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value;
template <typename T>
constexpr bool kIsCastType = kIsFloatVec<T> || std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                             std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value ||
                             std::is_same<T, int64_t>::value;

// Functors that also work on GCC vector types (element-wise IEEE float ops) set kSimd: their fp32 loops
// then run four lanes at a time. Results are identical to the scalar loop (same operations, same order).
template <typename F, typename = void>
struct SimdOk : std::false_type {};
template <typename F>
struct SimdOk<F, std::void_t<decltype(F::kSimd)>> : std::integral_constant<bool, F::kSimd> {};
typedef float Float4 __attribute__((vector_size(16)));

template <typename T>
inline CalcType<T> Ld(const T &v) {
  return static_cast<CalcType<T>>(v);
}
template <typename T>
inline T St(const CalcType<T> &v) {
  return T(v);
}

template <typename C>
inline C WrapAdd(C a, C b) {
  using U = typename std::make_unsigned<C>::type;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename C>
inline C WrapSub(C a, C b) {
  using U = typename std::make_unsigned<C>::type;
  return static_cast<C>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename C>
inline C WrapMul(C a, C b) {
  using U = typename std::make_unsigned<C>::type;
  using W = typename std::conditional<(sizeof(U) < sizeof(unsigned)), unsigned, U>::type;
  return static_cast<C>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}

struct OpAdd {
  static constexpr bool kSimd = true;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};
struct OpSub {
  static constexpr bool kSimd = true;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return WrapSub(a, b);
    } else {
      return a - b;
    }
  }
};
struct OpMul {
  static constexpr bool kSimd = true;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return WrapMul(a, b);
    } else {
      return a * b;
    }
  }
};
struct OpDiv {
  static constexpr bool kSimd = true;
  template <typename C>
  C operator()(C a, C b) const {
    return a / b;
  }
};
struct OpRecip {
  static constexpr bool kSimd = true;
  template <typename C>
  C operator()(C x) const {
    return 1.0f / x;
  }
};
struct OpMax {
  template <typename C>
  C operator()(C a, C b) const {
    return a > b ? a : b;
  }
};
struct OpMin {
  template <typename C>
  C operator()(C a, C b) const {
    return a < b ? a : b;
  }
};

inline uint64_t CheckCount(Core *c, const char *op, int64_t count) {
  if (count < 0) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": count " + std::to_string(count) + " is negative");
  }
  return static_cast<uint64_t>(count);
}

template <typename T>
inline void CheckVecDtype(Core *c, const char *op) {
  if constexpr (std::is_same<T, bfloat16_t>::value) {
    c->CheckBf16Vector(op);
  } else {
    (void)c;
    (void)op;
  }
}

template <typename T, typename F>
inline void VecUnary(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, int64_t count, F f) {
  Core *c = dst.Bound();
  CheckVecDtype<T>(c, op);
  const uint64_t n = CheckCount(c, op, count);
  const uint64_t bytes = n * sizeof(T);
  c->CheckOperand(op, "dst", dst.ref_, bytes, true);
  c->CheckOperand(op, "src", src.ref_, bytes, true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src.ref_.off, bytes);
    c->PipeWrite(o, dst.ref_.off, bytes);
  }
  c->CheckDefined(op, "src", src.ref_.off, bytes);
  T *d = dst.Data();
  const T *s = reinterpret_cast<const T *>(c->ub + src.ref_.off);
  uint64_t i = c->probe ? n : 0;  // probe mode: the checks and counters only (the data is not the kernel's)
  if constexpr (std::is_same<T, float>::value && SimdOk<F>::value) {
    for (; i + 4 <= n; i += 4) {
      Float4 x;
      std::memcpy(&x, s + i, sizeof(x));
      const Float4 z = f(x);
      std::memcpy(d + i, &z, sizeof(z));
    }
  }
  for (; i < n; ++i) {
    d[i] = St<T>(f(Ld(s[i])));
  }
  c->MarkDefined(dst.ref_.off, bytes);
  c->CountVector(n, sizeof(T));
}

template <typename T, typename F>
inline void VecBinary(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                      const LocalTensor<T> &src1, int64_t count, F f) {
  Core *c = dst.Bound();
  CheckVecDtype<T>(c, op);
  const uint64_t n = CheckCount(c, op, count);
  const uint64_t bytes = n * sizeof(T);
  c->CheckOperand(op, "dst", dst.ref_, bytes, true);
  c->CheckOperand(op, "src0", src0.ref_, bytes, true);
  c->CheckOperand(op, "src1", src1.ref_, bytes, true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src0.ref_.off, bytes);
    c->PipeRead(o, src1.ref_.off, bytes);
    c->PipeWrite(o, dst.ref_.off, bytes);
  }
  c->CheckDefined(op, "src0", src0.ref_.off, bytes);
  c->CheckDefined(op, "src1", src1.ref_.off, bytes);
  T *d = dst.Data();
  const T *a = reinterpret_cast<const T *>(c->ub + src0.ref_.off);
  const T *b = reinterpret_cast<const T *>(c->ub + src1.ref_.off);
  uint64_t i = c->probe ? n : 0;  // probe mode: the checks and counters only (the data is not the kernel's)
  if constexpr (std::is_same<T, float>::value && SimdOk<F>::value) {
    for (; i + 4 <= n; i += 4) {
      Float4 x, y;
      std::memcpy(&x, a + i, sizeof(x));
      std::memcpy(&y, b + i, sizeof(y));
      const Float4 z = f(x, y);
      std::memcpy(d + i, &z, sizeof(z));
    }
  }
  for (; i < n; ++i) {
    d[i] = St<T>(f(Ld(a[i]), Ld(b[i])));
  }
  c->MarkDefined(dst.ref_.off, bytes);
  c->CountVector(n, sizeof(T));
}

// f(x, scalar) for every element; SIMD-capable when F is.
template <typename F, typename K>
struct BindScalar {
  static constexpr bool kSimd = SimdOk<F>::value;
  F f;
  K k;
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_same<C, Float4>::value) {
      return f(x, Float4{} + k);
    } else {
      return f(x, k);
    }
  }
};

template <typename T, typename F>
inline void VecScalar(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalar,
                      int64_t count, F f) {
  VecUnary(op, dst, src, count, BindScalar<F, CalcType<T>>{f, Ld(scalar)});
}

inline Rounding ToRounding(RoundMode m) {
  switch (m) {
    case RoundMode::CAST_FLOOR:
      return Rounding::kFloor;
    case RoundMode::CAST_CEIL:
      return Rounding::kCeil;
    case RoundMode::CAST_ROUND:
      return Rounding::kHalfAway;
    case RoundMode::CAST_TRUNC:
      return Rounding::kTrunc;
    case RoundMode::CAST_ODD:
      return Rounding::kOdd;
    case RoundMode::CAST_NONE:
    case RoundMode::CAST_RINT:
    default:
      return Rounding::kNearestEven;
  }
}

inline const char *RoundModeName(RoundMode m) {
  switch (m) {
    case RoundMode::CAST_NONE:
      return "CAST_NONE";
    case RoundMode::CAST_RINT:
      return "CAST_RINT";
    case RoundMode::CAST_FLOOR:
      return "CAST_FLOOR";
    case RoundMode::CAST_CEIL:
      return "CAST_CEIL";
    case RoundMode::CAST_ROUND:
      return "CAST_ROUND";
    case RoundMode::CAST_TRUNC:
      return "CAST_TRUNC";
    case RoundMode::CAST_ODD:
      return "CAST_ODD";
  }
  return "an unknown RoundMode";
}

template <typename S>
inline double ToDouble(const S &v) {
  if constexpr (opgen_rt::device::IsLowFloat<S>::value) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename D>
inline D SaturateFromDouble(double x) {
  if (std::isnan(x)) {
    return 0;
  }
  const double lo = static_cast<double>(std::numeric_limits<D>::min());
  const double hi = static_cast<double>(std::numeric_limits<D>::max());
  if (x <= lo) {
    return std::numeric_limits<D>::min();
  }
  if (x >= hi) {
    return std::numeric_limits<D>::max();
  }
  return static_cast<D>(x);
}

template <typename D, typename S>
inline D SaturateInt(S v) {
  if constexpr (std::is_signed<S>::value) {
    const int64_t x = static_cast<int64_t>(v);
    if constexpr (std::is_signed<D>::value) {
      if (x < static_cast<int64_t>(std::numeric_limits<D>::min())) {
        return std::numeric_limits<D>::min();
      }
      if (x > static_cast<int64_t>(std::numeric_limits<D>::max())) {
        return std::numeric_limits<D>::max();
      }
      return static_cast<D>(x);
    } else {
      if (x < 0) {
        return 0;
      }
      if (static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<D>::max())) {
        return std::numeric_limits<D>::max();
      }
      return static_cast<D>(x);
    }
  } else {
    const uint64_t x = static_cast<uint64_t>(v);
    if (x > static_cast<uint64_t>(std::numeric_limits<D>::max())) {
      return std::numeric_limits<D>::max();
    }
    return static_cast<D>(x);
  }
}

// One element of Cast<D, S> with rounding mode `m` (already validated for the pair).
template <typename D, typename S>
inline D ConvertElem(const S &v, RoundMode m) {
  const Rounding r = ToRounding(m);
  if constexpr (std::is_same<D, S>::value && kIsFloatVec<D>) {
    // Same floating type: CAST_NONE copies, the other modes round to an integral value.
    if (m == RoundMode::CAST_NONE) {
      return v;
    }
    return D(static_cast<float>(opgen_rt::device::RoundIntegral(ToDouble(v), r)));
  } else if constexpr (std::is_same<D, float>::value) {
    if (r == Rounding::kNearestEven) {
      if constexpr (opgen_rt::device::IsLowFloat<S>::value) {
        return static_cast<float>(v);
      } else {
        return static_cast<float>(v);  // int -> float: round to nearest even
      }
    }
    return static_cast<float>(opgen_rt::device::RoundToFormat(ToDouble(v), 24, -126, FLT_MAX, r));
  } else if constexpr (std::is_same<D, half>::value) {
    if constexpr (std::is_same<S, float>::value) {
      if (r == Rounding::kNearestEven) {
        return half::FromBits(opgen_rt::device::FloatToHalfBits(v));
      }
    }
    return half::FromBits(opgen_rt::device::DoubleToHalfBits(ToDouble(v), r));
  } else if constexpr (std::is_same<D, bfloat16_t>::value) {
    if constexpr (std::is_same<S, float>::value) {
      if (r == Rounding::kNearestEven) {
        return bfloat16_t::FromBits(opgen_rt::device::FloatToBf16Bits(v));
      }
    }
    return bfloat16_t::FromBits(opgen_rt::device::DoubleToBf16Bits(ToDouble(v), r));
  } else if constexpr (kIsFloatVec<S>) {
    // Floating -> integer: round to an integral value, saturate, NaN -> 0.
    return SaturateFromDouble<D>(opgen_rt::device::RoundIntegral(ToDouble(v), r));
  } else {
    return SaturateInt<D, S>(v);
  }
}

}  // namespace opgen_detail

// ---------------------------------------------------------------------------------------------------------
// Binary, scalar and unary instructions (asc-devkit Add doc: "half, int16_t, int32_t, float" on A2/A3).
// ---------------------------------------------------------------------------------------------------------

#define OPGEN_RT_BINARY(NAME, FUNCTOR, CHECK, WHAT)                                                          \
  template <typename T>                                                                                      \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,        \
                   const int32_t &count) {                                                                   \
    static_assert(CHECK, #NAME " supports " WHAT);                                                           \
    opgen_detail::VecBinary(#NAME, dst, src0, src1, count, opgen_detail::FUNCTOR{});                         \
  }

OPGEN_RT_BINARY(Add, OpAdd, opgen_detail::kIsArithVec<T>, "half, float, int16_t and int32_t")
OPGEN_RT_BINARY(Sub, OpSub, opgen_detail::kIsArithVec<T>, "half, float, int16_t and int32_t")
OPGEN_RT_BINARY(Mul, OpMul, opgen_detail::kIsArithVec<T>, "half, float, int16_t and int32_t")
OPGEN_RT_BINARY(Div, OpDiv, opgen_detail::kIsFloatVec<T>, "half and float")
OPGEN_RT_BINARY(Max, OpMax, opgen_detail::kIsArithVec<T>, "half, float, int16_t and int32_t")
OPGEN_RT_BINARY(Min, OpMin, opgen_detail::kIsArithVec<T>, "half, float, int16_t and int32_t")
#undef OPGEN_RT_BINARY

#define OPGEN_RT_SCALAR(NAME, FUNCTOR)                                                                       \
  template <typename T>                                                                                      \
  inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,               \
                   const int32_t &count) {                                                                   \
    static_assert(opgen_detail::kIsArithVec<T>, #NAME " supports half, float, int16_t and int32_t");         \
    opgen_detail::VecScalar(#NAME, dst, src, scalarValue, count, opgen_detail::FUNCTOR{});                   \
  }

OPGEN_RT_SCALAR(Adds, OpAdd)
OPGEN_RT_SCALAR(Muls, OpMul)
OPGEN_RT_SCALAR(Maxs, OpMax)
OPGEN_RT_SCALAR(Mins, OpMin)
#undef OPGEN_RT_SCALAR

// ---------------------------------------------------------------------------------------------------------
// Axpy, the count form (asc-devkit include/basic_api/kernel_operator_vec_ternary_scalar_intf.h, "Level 2"):
// dst[i] = src[i] * scalarValue + dst[i], dst read and written. Pairs (asc-devkit docs/api/context/Axpy.md,
// table 3, and AxpyIntrinsicsImpl of impl/basic_api/dav_c220/kernel_operator_vec_ternary_scalar_impl.h):
// half/half, float/float, and a half src (and half scalar) into a float dst, on every NpuArch (dav_c100, dav_m200,
// dav_c220, dav_3510 all implement it); bfloat16_t/bfloat16_t on NpuArch 3510 only (dav_3510's impl: a Mul then
// an Add in bfloat16_t; elsewhere a run-time fault, as the other vector instructions on bfloat16_t).
// Precision: CANN documents none for this instruction (the advanced-API Axpy of adv_api/math/axpy.h says it is
// "more precise" than this one for a half src because it casts to float, then runs Muls and Add; for a float
// src it calls this one). Assumed and emulated: the product rounded to the dst dtype, then the sum rounded to
// it (two roundings, as Muls then Add; dav_3510 computes the half-into-float pair exactly so: the product of two
// halves is exact in float). A fused multiply-add rounds once, which this model's error covers
// (docs/emulator.md). The cost model charges it as arithmetic (one repeat per 256 bytes of the wider operand).
// ---------------------------------------------------------------------------------------------------------

namespace opgen_detail {

template <typename T, typename U>
inline void AxpyImpl(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, int64_t count) {
  const char *op = "Axpy";
  Core *c = dst.Bound();
  CheckVecDtype<U>(c, op);
  const uint64_t n = CheckCount(c, op, count);
  const uint64_t dBytes = n * sizeof(T);
  const uint64_t sBytes = n * sizeof(U);
  c->CheckOperand(op, "dst", dst.ref_, dBytes, true);
  c->CheckOperand(op, "src", src.ref_, sBytes, true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src.ref_.off, sBytes);
    c->PipeRead(o, dst.ref_.off, dBytes);  // the addend
    c->PipeWrite(o, dst.ref_.off, dBytes);
  }
  c->CheckDefined(op, "src", src.ref_.off, sBytes);
  c->CheckDefined(op, "dst", dst.ref_.off, dBytes);
  T *d = dst.Data();
  const U *s = reinterpret_cast<const U *>(c->ub + src.ref_.off);
  std::vector<U> copy;
  const uint8_t *dLo = reinterpret_cast<const uint8_t *>(d);
  const uint8_t *sLo = reinterpret_cast<const uint8_t *>(s);
  if (dLo != sLo && dLo < sLo + sBytes && sLo < dLo + dBytes && n > 0) {
    copy.assign(s, s + n);  // partly overlapping operands: read every source element first
    s = copy.data();
  }
  const CalcType<U> k = Ld(scalarValue);
  for (uint64_t i = c->probe ? n : 0; i < n; ++i) {  // probe mode: the checks and counters only
    const T product = St<T>(static_cast<CalcType<T>>(Ld(s[i]) * k));  // rounded to T (exact for half into float)
    d[i] = St<T>(Ld(product) + Ld(d[i]));
  }
  c->MarkDefined(dst.ref_.off, dBytes);
  c->CountVector(n, sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
}

}  // namespace opgen_detail

template <typename T, typename U>
inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, const int32_t &count) {
  static_assert((std::is_same<T, U>::value && opgen_detail::kIsFloatVec<T>) ||
                    (std::is_same<T, float>::value && std::is_same<U, half>::value),
                "Axpy supports half/half, float/float and half into float (bfloat16_t/bfloat16_t on NpuArch 3510)");
  opgen_detail::AxpyImpl(dst, src, scalarValue, count);
}

template <typename T>
inline void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Exp supports half and float");
  opgen_detail::VecUnary("Exp", dst, src, count, [](opgen_rt::device::CalcType<T> x) { return std::exp(x); });
}

template <typename T>
inline void Ln(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Ln supports half and float");
  opgen_detail::VecUnary("Ln", dst, src, count, [](opgen_rt::device::CalcType<T> x) { return std::log(x); });
}

template <typename T>
inline void Abs(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Abs supports half and float");
  opgen_detail::VecUnary("Abs", dst, src, count, [](opgen_rt::device::CalcType<T> x) { return std::fabs(x); });
}

template <typename T>
inline void Reciprocal(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Reciprocal supports half and float");
  opgen_detail::VecUnary("Reciprocal", dst, src, count, opgen_detail::OpRecip{});
}

template <typename T>
inline void Sqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Sqrt supports half and float");
  opgen_detail::VecUnary("Sqrt", dst, src, count, [](opgen_rt::device::CalcType<T> x) { return std::sqrt(x); });
}

template <typename T>
inline void Rsqrt(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T>, "Rsqrt supports half and float");
  opgen_detail::VecUnary("Rsqrt", dst, src, count, [](opgen_rt::device::CalcType<T> x) {
    return opgen_rt::device::CalcType<T>(1) / std::sqrt(x);
  });
}

template <typename T>
inline void Relu(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {
  static_assert(opgen_detail::kIsFloatVec<T> || std::is_same<T, int32_t>::value,
                "Relu supports half, float and int32_t");
  opgen_detail::VecUnary("Relu", dst, src, count, [](opgen_rt::device::CalcType<T> x) {
    return x > opgen_rt::device::CalcType<T>(0) ? x : opgen_rt::device::CalcType<T>(0);
  });
}

template <typename T>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Duplicate supports 16-bit and 32-bit element types");
  opgen_rt::device::Core *c = dst.Bound();
  const uint64_t n = opgen_detail::CheckCount(c, "Duplicate", count);
  const uint64_t bytes = n * sizeof(T);
  c->CheckOperand("Duplicate", "dst", dst.ref_, bytes, true);
  c->PipeWrite(c->Issue(opgen_rt::device::kPipeV, "Duplicate"), dst.ref_.off, bytes);
  T *d = dst.Data();
  for (uint64_t i = c->probe ? n : 0; i < n; ++i) {  // probe mode: no data
    d[i] = scalarValue;
  }
  c->MarkDefined(dst.ref_.off, bytes);
  c->CountVector(n, sizeof(T));
}

// ---------------------------------------------------------------------------------------------------------
// Cast between float / half / bfloat16_t / int8_t / uint8_t / int16_t / int32_t / int64_t.
// Floating -> integer needs CAST_RINT/FLOOR/CEIL/ROUND/TRUNC; CAST_ODD exists only for float -> half;
// CAST_NONE means round-to-nearest-even where rounding is needed (ascend-platform.md: "fp16/bf16->fp32 uses
// CAST_NONE; fp32->fp16/bf16 uses CAST_RINT"). Integer results saturate; NaN converts to 0.
// ---------------------------------------------------------------------------------------------------------

template <typename D, typename S>
inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode,
                 const uint32_t count) {
  static_assert(opgen_detail::kIsCastType<D> && opgen_detail::kIsCastType<S>,
                "Cast supports float, half, bfloat16_t, int8_t, uint8_t, int16_t, int32_t and int64_t");
  // asc-devkit impl/basic_api/dav_{c100,m200,c220,3510}/kernel_operator_vec_vconv_impl.h: no conversion between
  // an 8-bit integer and float on any NpuArch of the catalogue (int8_t and uint8_t go through half)
  static_assert(!(std::is_same<D, float>::value && sizeof(S) == 1) &&
                    !(std::is_same<S, float>::value && sizeof(D) == 1),
                "Cast has no int8_t/uint8_t <-> float conversion; convert through half");
  opgen_rt::device::Core *c = dst.Bound();
  const char *op = "Cast";
  const uint64_t n = count;
  const uint64_t dBytes = n * sizeof(D);
  const uint64_t sBytes = n * sizeof(S);
  c->CheckOperand(op, "dst", dst.ref_, dBytes, true);
  c->CheckOperand(op, "src", src.ref_, sBytes, true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src.ref_.off, sBytes);
    c->PipeWrite(o, dst.ref_.off, dBytes);
  }
  c->CheckDefined(op, "src", src.ref_.off, sBytes);
  constexpr bool kDstInt = !opgen_detail::kIsFloatVec<D>;
  constexpr bool kSrcFloat = opgen_detail::kIsFloatVec<S>;
  if (std::is_same<D, bfloat16_t>::value || std::is_same<S, bfloat16_t>::value) {
    c->CheckBf16Supported(op);  // bfloat16_t conversions need a product with bf16
  }
  if (kDstInt && kSrcFloat && (roundMode == RoundMode::CAST_NONE || roundMode == RoundMode::CAST_ODD)) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string("Cast from ") + opgen_rt::device::DtypeOf<S>::name + " to " +
                 opgen_rt::device::DtypeOf<D>::name + " with " + opgen_detail::RoundModeName(roundMode) +
                 ": a floating-to-integer Cast needs CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or CAST_TRUNC");
  }
  // asc-devkit impl/basic_api/dav_c100 and dav_m200 (NpuArch 1001, 2002) kernel_operator_vec_vconv_impl.h:
  // int32_t -> float has CAST_NONE only (vconv_s322f32), half -> int8_t/uint8_t no CAST_RINT (no vconv_f162s8r)
  const bool oldArch = c->product != nullptr && (c->product->npuArch == 1001 || c->product->npuArch == 2002);
  if (oldArch && std::is_same<D, float>::value && std::is_same<S, int32_t>::value &&
      roundMode != RoundMode::CAST_NONE) {
    c->Fault(opgen_rt::device::rule::kVectorParams, std::string("Cast from int32_t to float with ") +
                                                        opgen_detail::RoundModeName(roundMode) +
                                                        ": this NpuArch converts int32_t to float with CAST_NONE only");
  }
  if (oldArch && sizeof(D) == 1 && std::is_same<S, half>::value && roundMode == RoundMode::CAST_RINT) {
    c->Fault(opgen_rt::device::rule::kVectorParams, std::string("Cast from half to ") +
                                                        opgen_rt::device::DtypeOf<D>::name +
                                                        " with CAST_RINT: this NpuArch has no such conversion");
  }
  if (roundMode == RoundMode::CAST_ODD && !(std::is_same<D, half>::value && std::is_same<S, float>::value)) {
    c->Fault(opgen_rt::device::rule::kVectorParams, std::string("Cast from ") + opgen_rt::device::DtypeOf<S>::name +
                                                        " to " + opgen_rt::device::DtypeOf<D>::name +
                                                        " with CAST_ODD: CAST_ODD exists only for float to half");
  }
  D *d = dst.Data();
  const S *s = reinterpret_cast<const S *>(c->ub + src.ref_.off);
  std::vector<S> copy;
  const uint8_t *dLo = reinterpret_cast<const uint8_t *>(d);
  const uint8_t *sLo = reinterpret_cast<const uint8_t *>(s);
  if (sizeof(D) != sizeof(S) && dLo < sLo + sBytes && sLo < dLo + dBytes && n > 0) {
    copy.assign(s, s + n);  // overlapping operands of different widths: read all sources first
    s = copy.data();
  }
  if (c->probe) {
    // probe mode: the checks and counters only (the data is not the kernel's)
  } else if constexpr (std::is_same<D, float>::value && opgen_rt::device::IsLowFloat<S>::value) {
    for (uint64_t i = 0; i < n; ++i) {
      d[i] = static_cast<float>(s[i]);  // exact widening
    }
  } else if constexpr (std::is_same<S, float>::value && opgen_rt::device::IsLowFloat<D>::value) {
    if (roundMode == RoundMode::CAST_NONE || roundMode == RoundMode::CAST_RINT) {
      for (uint64_t i = 0; i < n; ++i) {
        d[i] = D(s[i]);  // round to nearest even
      }
    } else {
      for (uint64_t i = 0; i < n; ++i) {
        d[i] = opgen_detail::ConvertElem<D, S>(s[i], roundMode);
      }
    }
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      d[i] = opgen_detail::ConvertElem<D, S>(s[i], roundMode);
    }
  }
  c->MarkDefined(dst.ref_.off, dBytes);
  c->CountVector(n, sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S));
}

// ---------------------------------------------------------------------------------------------------------
// Compare / CompareScalar (Compares in newer CANN): one result bit per element, little-endian bit order,
// into a uint8_t mask tensor. asc-devkit Compare/CompareScalar docs: half and float with every CMPMODE,
// int32_t with CMPMODE::EQ only; "count elements must occupy a multiple of 256 bytes" (the count form runs
// count * sizeof(T) / 256 whole repeats and silently skips a partial one: CompareCompute /
// CompareScalarCompute in impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h). Because that rule
// forces kernels to compare past the end of their data, the sources are NOT checked for defined bytes: a
// mask byte is marked defined when at least one of its eight source elements was defined.
// ---------------------------------------------------------------------------------------------------------

namespace opgen_detail {

// Calls fn with the comparison of `mode` (LT a < b, GT a > b, EQ, LE, GE, NE) as a function object, chosen once
// per instruction rather than per element.
template <typename Fn>
inline void WithCompare(CMPMODE mode, Fn &&fn) {
  switch (mode) {
    case CMPMODE::LT:
      fn(std::less<>{});
      return;
    case CMPMODE::GT:
      fn(std::greater<>{});
      return;
    case CMPMODE::EQ:
      fn(std::equal_to<>{});
      return;
    case CMPMODE::LE:
      fn(std::less_equal<>{});
      return;
    case CMPMODE::GE:
      fn(std::greater_equal<>{});
      return;
    case CMPMODE::NE:
      fn(std::not_equal_to<>{});
      return;
  }
  fn([](const auto &, const auto &) { return false; });
}

template <typename T, typename U>
inline Core *CompareCheck(const char *op, const LocalTensor<U> &dst, CMPMODE cmpMode, uint64_t n) {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value || std::is_same<T, int32_t>::value,
                "Compare supports half, float and int32_t sources");
  static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, int8_t>::value,
                "Compare writes its bit mask into a uint8_t or int8_t tensor");
  Core *c = dst.Bound();
  if ((n * sizeof(T)) % opgen_rt::device::kRepeatBytes != 0) {
    c->Fault(opgen_rt::device::rule::kVectorParams,
             std::string(op) + ": count " + std::to_string(n) + " elements (" + std::to_string(n * sizeof(T)) +
                 " bytes) is not a multiple of 256 bytes, as the count form requires");
  }
  if (std::is_same<T, int32_t>::value && cmpMode != CMPMODE::EQ) {
    c->Fault(opgen_rt::device::rule::kVectorDtype, std::string(op) + ": int32_t sources support CMPMODE::EQ only");
  }
  c->CheckOperand(op, "dst", dst.ref_, n / 8, true);
  return c;
}

// Mask shadow: byte j is defined if any of elements 8j..8j+7 had all source bytes defined.
template <typename T>
inline void CompareShadow(Core *c, uint64_t dstOff, uint64_t n, uint64_t s0, int64_t s1) {
  const uint64_t bytes = n * sizeof(T);
  uint8_t any = c->ShadowAny(s0, bytes);
  if (s1 >= 0) {
    any |= c->ShadowAny(static_cast<uint64_t>(s1), bytes);
  }
  if (any == 0) {
    c->MarkDefined(dstOff, n / 8);
    return;
  }
  for (uint64_t j = 0; j < n / 8; ++j) {
    bool someDefined = false;
    uint8_t codes = 0;
    for (uint64_t k = 0; k < 8; ++k) {
      const uint64_t e = j * 8 + k;
      uint8_t code = c->ShadowAny(s0 + e * sizeof(T), sizeof(T));
      if (s1 >= 0) {
        code |= c->ShadowAny(static_cast<uint64_t>(s1) + e * sizeof(T), sizeof(T));
      }
      someDefined = someDefined || code == 0;
      codes |= code;
    }
    c->shadow[dstOff + j] = someDefined ? opgen_rt::device::kShadowDefined : codes;
  }
}

}  // namespace opgen_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                    CMPMODE cmpMode, uint32_t count) {
  const char *op = "Compare";
  const uint64_t n = count;
  opgen_rt::device::Core *c = opgen_detail::CompareCheck<T>(op, dst, cmpMode, n);
  c->CheckOperand(op, "src0", src0.ref_, n * sizeof(T), true);
  c->CheckOperand(op, "src1", src1.ref_, n * sizeof(T), true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src0.ref_.off, n * sizeof(T));
    c->PipeRead(o, src1.ref_.off, n * sizeof(T));
    c->PipeWrite(o, dst.ref_.off, n / 8);
  }
  const T *a = reinterpret_cast<const T *>(c->ub + src0.ref_.off);
  const T *b = reinterpret_cast<const T *>(c->ub + src1.ref_.off);
  uint8_t *m = c->ub + dst.ref_.off;
  opgen_detail::WithCompare(cmpMode, [&](auto cmp) {
    for (uint64_t j = 0; j < n / 8; ++j) {
      uint8_t bits = 0;
      for (uint64_t k = 0; k < 8; ++k) {
        const uint64_t e = j * 8 + k;
        bits |= static_cast<uint8_t>(static_cast<uint8_t>(cmp(opgen_detail::Ld(a[e]), opgen_detail::Ld(b[e]))) << k);
      }
      m[j] = bits;
    }
  });
  opgen_detail::CompareShadow<T>(c, dst.ref_.off, n, src0.ref_.off, static_cast<int64_t>(src1.ref_.off));
  c->CountVector(n, sizeof(T));
}

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count) {
  // asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h (CheckVcmpvsDtype): the tensor-scalar
  // compare writes a uint8_t mask only (the tensor-tensor one also takes int8_t).
  static_assert(std::is_same<U, uint8_t>::value, "Compares / CompareScalar write their bit mask into a uint8_t tensor");
  const char *op = "CompareScalar";
  const uint64_t n = count;
  opgen_rt::device::Core *c = opgen_detail::CompareCheck<T>(op, dst, cmpMode, n);
  c->CheckOperand(op, "src0", src0.ref_, n * sizeof(T), true);
  {
    const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
    c->PipeRead(o, src0.ref_.off, n * sizeof(T));
    c->PipeWrite(o, dst.ref_.off, n / 8);
  }
  const T *a = reinterpret_cast<const T *>(c->ub + src0.ref_.off);
  const auto k1 = opgen_detail::Ld(src1Scalar);
  uint8_t *m = c->ub + dst.ref_.off;
  opgen_detail::WithCompare(cmpMode, [&](auto cmp) {
    for (uint64_t j = 0; j < n / 8; ++j) {
      uint8_t bits = 0;
      for (uint64_t k = 0; k < 8; ++k) {
        bits |= static_cast<uint8_t>(static_cast<uint8_t>(cmp(opgen_detail::Ld(a[j * 8 + k]), k1)) << k);
      }
      m[j] = bits;
    }
  });
  opgen_detail::CompareShadow<T>(c, dst.ref_.off, n, src0.ref_.off, -1);
  c->CountVector(n, sizeof(T));
}

// Newer CANN releases name the tensor-scalar compare Compares (same parameters).
template <typename T, typename U>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count) {
  CompareScalar(dst, src0, src1Scalar, cmpMode, count);
}

// ---------------------------------------------------------------------------------------------------------
// Select: dst[i] = bit i of selMask ? src0[i] : src1[i] (half and float; asc-devkit Select doc). Mode 2
// (VSEL_TENSOR_TENSOR_MODE) and mode 1 (VSEL_TENSOR_SCALAR_MODE, scalar src1) consume the mask bits
// continuously; mode 0 (VSEL_CMPMASK_SPR) reuses the first 256 / sizeof(T) bits in every repeat.
// ---------------------------------------------------------------------------------------------------------

namespace opgen_detail {

template <typename T, typename U>
inline void SelectImpl(const char *op, const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, const LocalTensor<T> *src1, const T &scalar, SELMODE mode,
                       uint64_t n) {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Select supports half and float");
  static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, uint16_t>::value ||
                    std::is_same<U, uint32_t>::value || std::is_same<U, uint64_t>::value,
                "Select reads its mask from a uint8_t, uint16_t, uint32_t or uint64_t tensor");
  Core *c = dst.Bound();
  const uint64_t bytes = n * sizeof(T);
  const uint64_t bitsPerRepeat = opgen_rt::device::kRepeatBytes / sizeof(T);
  const uint64_t maskBits = (mode == SELMODE::VSEL_CMPMASK_SPR) ? (n < bitsPerRepeat ? n : bitsPerRepeat) : n;
  const uint64_t maskBytes = (maskBits + 7) / 8;
  c->CheckOperand(op, "dst", dst.ref_, bytes, true);
  c->CheckOperand(op, "selMask", selMask.ref_, maskBytes, true);
  c->CheckOperand(op, "src0", src0.ref_, bytes, true);
  const opgen_rt::device::PipeOp o = c->Issue(opgen_rt::device::kPipeV, op);
  c->PipeRead(o, selMask.ref_.off, maskBytes);
  c->PipeRead(o, src0.ref_.off, bytes);
  c->CheckDefined(op, "selMask", selMask.ref_.off, maskBytes);
  c->CheckDefined(op, "src0", src0.ref_.off, bytes);
  const T *b = nullptr;
  if (src1 != nullptr) {
    c->CheckOperand(op, "src1", src1->ref_, bytes, true);
    c->PipeRead(o, src1->ref_.off, bytes);
    c->CheckDefined(op, "src1", src1->ref_.off, bytes);
    b = reinterpret_cast<const T *>(c->ub + src1->ref_.off);
  }
  c->PipeWrite(o, dst.ref_.off, bytes);
  const uint8_t *m = c->ub + selMask.ref_.off;
  // A bit copy of the chosen element, without a branch on the (data-dependent) mask bit: element i of the
  // result is the bits of src0[i] where the bit is set, else those of src1[i] (or the scalar's).
  using Bits = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
  static_assert(sizeof(Bits) == sizeof(T), "Select copies elements as raw bits");
  Bits scalarBits = 0;
  std::memcpy(&scalarBits, &scalar, sizeof(T));
  const uint8_t *a = c->ub + src0.ref_.off;
  const uint8_t *bb = reinterpret_cast<const uint8_t *>(b);
  uint8_t *d = c->ub + dst.ref_.off;
  const bool spr = mode == SELMODE::VSEL_CMPMASK_SPR;
  for (uint64_t i0 = 0; i0 < n; i0 += bitsPerRepeat) {
    const uint64_t end = n - i0 < bitsPerRepeat ? n : i0 + bitsPerRepeat;
    for (uint64_t i = i0; i < end; ++i) {
      const uint64_t bit = spr ? i - i0 : i;
      const Bits pick = static_cast<Bits>(0u - ((static_cast<uint32_t>(m[bit / 8]) >> (bit % 8)) & 1u));
      Bits x = 0, y = scalarBits;
      std::memcpy(&x, a + i * sizeof(T), sizeof(T));
      if (bb != nullptr) {
        std::memcpy(&y, bb + i * sizeof(T), sizeof(T));
      }
      const Bits r = static_cast<Bits>((x & pick) | (y & static_cast<Bits>(~pick)));
      std::memcpy(d + i * sizeof(T), &r, sizeof(T));
    }
  }
  c->MarkDefined(dst.ref_.off, bytes);
  c->CountVector(n, sizeof(T));
}

}  // namespace opgen_detail

template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE selMode, uint32_t count) {
  if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
    dst.Bound()->Fault(opgen_rt::device::rule::kVectorParams,
                       "Select with two source tensors needs SELMODE::VSEL_TENSOR_TENSOR_MODE or VSEL_CMPMASK_SPR, "
                       "got VSEL_TENSOR_SCALAR_MODE");
  }
  opgen_detail::SelectImpl("Select", dst, selMask, src0, &src1, T(), selMode, count);
}

template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
                   SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
    dst.Bound()->Fault(opgen_rt::device::rule::kVectorParams,
                       "Select with a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE");
  }
  opgen_detail::SelectImpl("Select", dst, selMask, src0, static_cast<const LocalTensor<T> *>(nullptr), src1, selMode,
                           count);
}

}  // namespace AscendC

#endif  // OPGEN_RT_DEVICE_VEC_H
