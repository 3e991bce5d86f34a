// ascend-opgen host emulation of the AscendC kernel API: scalar types.
//
// `half` (IEEE 754 binary16) and `bfloat16_t` (the upper 16 bits of a binary32) are real types on the NPU
// (AscendC kernels use them as builtin scalar types). On the host they are 16-bit classes that convert to
// and from float with round-to-nearest-even, so that arithmetic written in kernel code as `a * b` happens in
// float (implicit conversion) and is rounded once when stored back. Hand-written runtime code; not generated.
#ifndef OPGEN_RT_DEVICE_TYPES_H
#define OPGEN_RT_DEVICE_TYPES_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace opgen_rt {
namespace device {

// Rounding directions used by conversions (AscendC RoundMode maps onto these; see ascend-platform.md,
// "Cast ... RoundMode CAST_NONE 0, CAST_RINT 1, CAST_FLOOR 2, CAST_CEIL 3, CAST_ROUND 4, CAST_TRUNC 5,
// CAST_ODD 6").
enum class Rounding : int32_t {
  kNearestEven = 0,  // CAST_RINT (and CAST_NONE where the conversion needs rounding)
  kFloor = 1,        // CAST_FLOOR: toward -inf
  kCeil = 2,         // CAST_CEIL: toward +inf
  kHalfAway = 3,     // CAST_ROUND: to nearest, ties away from zero
  kTrunc = 4,        // CAST_TRUNC: toward zero
  kOdd = 5,          // CAST_ODD: toward zero, then set the last bit when inexact (von Neumann rounding)
};

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// Rounds a finite double `r` to an integer-valued double with the given direction.
inline double RoundIntegral(double r, Rounding mode) {
  switch (mode) {
    case Rounding::kFloor:
      return std::floor(r);
    case Rounding::kCeil:
      return std::ceil(r);
    case Rounding::kHalfAway:
      return std::round(r);
    case Rounding::kTrunc:
      return std::trunc(r);
    case Rounding::kOdd: {
      const double t = std::trunc(r);
      if (t == r) {
        return t;
      }
      // Inexact: keep the truncated value if it is odd, else step away from zero to the odd neighbour.
      const bool odd = std::fmod(std::fabs(t), 2.0) == 1.0;
      return odd ? t : t + (r > 0 ? 1.0 : -1.0);
    }
    case Rounding::kNearestEven:
    default: {
      const double f = std::floor(r);
      const double diff = r - f;
      if (diff < 0.5) {
        return f;
      }
      if (diff > 0.5) {
        return f + 1.0;
      }
      return (std::fmod(f, 2.0) == 0.0) ? f : f + 1.0;
    }
  }
}

// Rounds `x` to a binary floating-point format with `precision` significand bits (including the hidden
// bit), minimum normal exponent `emin` and largest finite value `maxFinite`, in direction `mode`. The result
// is returned as a double holding exactly the representable value (or +-inf on overflow).
inline double RoundToFormat(double x, int precision, int emin, double maxFinite, Rounding mode) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) {
    return x;
  }
  int e = 0;
  (void)std::frexp(x, &e);  // x = m * 2^e, |m| in [0.5, 1): the unbiased exponent of x is e - 1
  const int expo = (e - 1 < emin) ? emin : e - 1;
  const int quantumExp = expo - (precision - 1);
  const double scaled = std::ldexp(x, -quantumExp);  // exact: a power-of-two scaling
  const double rounded = std::copysign(std::ldexp(RoundIntegral(scaled, mode), quantumExp), x);  // keep -0
  if (std::fabs(rounded) > maxFinite) {
    // Overflow: directions that never round away from zero saturate at the largest finite value.
    const bool towardZero = mode == Rounding::kTrunc || mode == Rounding::kOdd ||
                            (mode == Rounding::kFloor && x > 0) || (mode == Rounding::kCeil && x < 0);
    if (towardZero) {
      return x > 0 ? maxFinite : -maxFinite;
    }
    return x > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return rounded;
}

// IEEE binary16 from binary32, round to nearest, ties to even (fast path used by every Cast).
inline uint16_t FloatToHalfBits(float f) {
  const uint32_t x = FloatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or NaN (NaN stays quiet NaN)
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? (0x0200u | ((ax >> 13) & 0x03ffu)) : 0u));
  }
  if (ax >= 0x477ff000u) {  // >= 65520: the midpoint above 65504 rounds (ties to even) to infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  const int32_t e = static_cast<int32_t>(ax >> 23) - 127;
  if (e >= -14) {  // normal binary16
    const uint32_t mant = ax & 0x7fffffu;
    uint32_t h = (static_cast<uint32_t>(e + 15) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) {
      ++h;  // a carry out of the mantissa correctly bumps the exponent
    }
    return static_cast<uint16_t>(sign | h);
  }
  if (e < -25) {  // below half of the smallest subnormal (2^-24): rounds to zero
    return static_cast<uint16_t>(sign);
  }
  // Subnormal result: units of 2^-24. value = sig * 2^(e-23); value / 2^-24 = sig * 2^(e+1).
  const uint32_t sig = (ax & 0x7fffffu) | 0x800000u;
  const uint32_t shift = static_cast<uint32_t>(-(e + 1));  // 14..24
  uint32_t q = sig >> shift;
  const uint32_t rest = sig & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (q & 1u))) {
    ++q;
  }
  return static_cast<uint16_t>(sign | q);
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float mag = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return (sign != 0u) ? -mag : mag;
  }
  if (exp == 31) {
    return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  }
  return BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

// bfloat16 from binary32, round to nearest, ties to even.
inline uint16_t FloatToBf16Bits(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  }
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float Bf16BitsToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

constexpr double kHalfMax = 65504.0;
constexpr double kBf16Max = 3.38953138925153547590470800371487866880e+38;  // 0x7f7f

// binary16 / bfloat16 from double in any direction: round once to the target format, then encode the
// (exactly representable) result through the float encoders, which are exact for representable values.
inline uint16_t DoubleToHalfBits(double d, Rounding mode = Rounding::kNearestEven) {
  return FloatToHalfBits(static_cast<float>(RoundToFormat(d, 11, -14, kHalfMax, mode)));
}

inline uint16_t DoubleToBf16Bits(double d, Rounding mode = Rounding::kNearestEven) {
  if (std::isnan(d)) {
    return 0x7fc0u;
  }
  return FloatToBf16Bits(static_cast<float>(RoundToFormat(d, 8, -126, kBf16Max, mode)));
}

}  // namespace device
}  // namespace opgen_rt

// IEEE 754 binary16. Conversions from arithmetic types round to nearest even; conversion to float is exact.
// There are deliberately no arithmetic operators: `a + b` converts both to float, adds in float, and the
// result is rounded once when assigned to a half.
struct half {
  uint16_t bits_;

  half() = default;
  half(float v) : bits_(opgen_rt::device::FloatToHalfBits(v)) {}  // NOLINT: implicit like the device type
  half(double v) : bits_(opgen_rt::device::DoubleToHalfBits(v)) {}  // NOLINT
  template <typename U, typename std::enable_if<std::is_integral<U>::value, int>::type = 0>
  half(U v) : bits_(opgen_rt::device::DoubleToHalfBits(static_cast<double>(v))) {}  // NOLINT

  operator float() const { return opgen_rt::device::HalfBitsToFloat(bits_); }  // NOLINT

  static half FromBits(uint16_t b) {
    half h;
    h.bits_ = b;
    return h;
  }
  uint16_t Bits() const { return bits_; }

  half &operator+=(float v) { return *this = half(static_cast<float>(*this) + v); }
  half &operator-=(float v) { return *this = half(static_cast<float>(*this) - v); }
  half &operator*=(float v) { return *this = half(static_cast<float>(*this) * v); }
  half &operator/=(float v) { return *this = half(static_cast<float>(*this) / v); }
};

// bfloat16 (8 exponent bits, 7 stored mantissa bits). Same conversion rules as half.
struct bfloat16_t {
  uint16_t bits_;

  bfloat16_t() = default;
  bfloat16_t(float v) : bits_(opgen_rt::device::FloatToBf16Bits(v)) {}  // NOLINT
  bfloat16_t(double v) : bits_(opgen_rt::device::DoubleToBf16Bits(v)) {}  // NOLINT
  template <typename U, typename std::enable_if<std::is_integral<U>::value, int>::type = 0>
  bfloat16_t(U v) : bits_(opgen_rt::device::DoubleToBf16Bits(static_cast<double>(v))) {}  // NOLINT

  operator float() const { return opgen_rt::device::Bf16BitsToFloat(bits_); }  // NOLINT

  static bfloat16_t FromBits(uint16_t b) {
    bfloat16_t h;
    h.bits_ = b;
    return h;
  }
  uint16_t Bits() const { return bits_; }

  bfloat16_t &operator+=(float v) { return *this = bfloat16_t(static_cast<float>(*this) + v); }
  bfloat16_t &operator-=(float v) { return *this = bfloat16_t(static_cast<float>(*this) - v); }
  bfloat16_t &operator*=(float v) { return *this = bfloat16_t(static_cast<float>(*this) * v); }
  bfloat16_t &operator/=(float v) { return *this = bfloat16_t(static_cast<float>(*this) / v); }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half must be a 16-bit POD");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value,
              "bfloat16_t must be a 16-bit POD");

namespace opgen_rt {
namespace device {

template <typename T>
struct IsLowFloat : std::integral_constant<bool, std::is_same<T, half>::value ||
                                                     std::is_same<T, bfloat16_t>::value> {};

// The type a vector instruction computes in: float for half/bfloat16_t (rounded once on store), else T.
template <typename T>
using CalcType = typename std::conditional<IsLowFloat<T>::value, float, T>::type;

}  // namespace device
}  // namespace opgen_rt

#endif  // OPGEN_RT_DEVICE_TYPES_H
