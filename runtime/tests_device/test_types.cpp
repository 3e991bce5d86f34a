// half / bfloat16_t conversions of the host emulation against an independent reference: the sorted list of
// all finite values of the format, searched for the neighbours of x. Hand-written test code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "harness.h"
#include "kernel_operator.h"

namespace {

using opgen_rt::device::Rounding;

struct Format {
  const char *name;
  std::vector<double> pos;  // all finite non-negative values, ascending, index = bit pattern
  double Value(uint16_t bits) const {
    const double v = pos[bits & 0x7fffu];
    return (bits & 0x8000u) ? -v : v;
  }
};

Format MakeHalf() {
  Format f{"half", {}};
  for (uint32_t b = 0; b <= 0x7bffu; ++b) {
    f.pos.push_back(static_cast<float>(half::FromBits(static_cast<uint16_t>(b))));
  }
  return f;
}

Format MakeBf16() {
  Format f{"bfloat16_t", {}};
  for (uint32_t b = 0; b <= 0x7f7fu; ++b) {
    f.pos.push_back(static_cast<float>(bfloat16_t::FromBits(static_cast<uint16_t>(b))));
  }
  return f;
}

// Reference rounding of x (finite) to the format: returns the bit pattern (0x7c00/0x7f80-style inf via
// `infBits`).
uint16_t RefRound(const Format &f, double x, Rounding mode, uint16_t infBits) {
  const bool neg = std::signbit(x);
  const double a = std::fabs(x);
  const uint16_t sign = neg ? 0x8000u : 0u;
  const size_t top = f.pos.size() - 1;
  const double maxv = f.pos[top];
  const double ulpTop = maxv - f.pos[top - 1];
  // Directions in terms of magnitude.
  bool towardZero = false, awayFromZero = false;
  switch (mode) {
    case Rounding::kTrunc:
      towardZero = true;
      break;
    case Rounding::kFloor:
      towardZero = !neg;
      awayFromZero = neg;
      break;
    case Rounding::kCeil:
      towardZero = neg;
      awayFromZero = !neg;
      break;
    default:
      break;
  }
  if (a > maxv) {
    if (towardZero || mode == Rounding::kOdd) {
      return static_cast<uint16_t>(sign | top);
    }
    if (awayFromZero) {
      return static_cast<uint16_t>(sign | infBits);
    }
    // nearest: the halfway point to the next (virtual) binade value rounds to infinity (even)
    return (a < maxv + ulpTop / 2) ? static_cast<uint16_t>(sign | top) : static_cast<uint16_t>(sign | infBits);
  }
  size_t lo = 0, hi = top;
  while (lo < hi) {  // largest index with pos <= a
    const size_t mid = (lo + hi + 1) / 2;
    if (f.pos[mid] <= a) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  if (f.pos[lo] == a) {
    return static_cast<uint16_t>(sign | lo);
  }
  const size_t up = lo + 1;
  size_t pick = lo;
  if (towardZero) {
    pick = lo;
  } else if (awayFromZero) {
    pick = up;
  } else if (mode == Rounding::kOdd) {
    pick = (lo & 1u) ? lo : up;
  } else {
    const double dl = a - f.pos[lo], du = f.pos[up] - a;
    if (dl < du) {
      pick = lo;
    } else if (du < dl) {
      pick = up;
    } else if (mode == Rounding::kHalfAway) {
      pick = up;
    } else {
      pick = (lo % 2 == 0) ? lo : up;
    }
  }
  return static_cast<uint16_t>(sign | pick);
}

uint64_t g_state = 88172645463325252ull;
uint64_t Next() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}

// Interesting doubles for a format: every value, every midpoint, and points just around them.
std::vector<double> Probes(const Format &f) {
  std::vector<double> v;
  for (size_t i = 0; i + 1 < f.pos.size(); i += (i < 2048 ? 1 : 7)) {
    const double a = f.pos[i], b = f.pos[i + 1];
    const double m = (a + b) / 2;
    for (double x : {a, m, std::nextafter(m, 0.0), std::nextafter(m, 1e300), a + (b - a) / 4}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  const double maxv = f.pos.back();
  const double ulp = maxv - f.pos[f.pos.size() - 2];
  for (double x : {maxv, maxv + ulp / 4, maxv + ulp / 2, std::nextafter(maxv + ulp / 2, 0.0), maxv + ulp, 1e300}) {
    v.push_back(x);
    v.push_back(-x);
  }
  for (int i = 0; i < 200000; ++i) {  // random floats over the whole float range
    const uint32_t bits = static_cast<uint32_t>(Next());
    const float x = opgen_rt::device::BitsToFloat(bits);
    if (std::isfinite(x)) {
      v.push_back(x);
    }
  }
  return v;
}

void CheckFormat(const Format &f, bool isHalf) {
  const uint16_t infBits = isHalf ? 0x7c00u : 0x7f80u;
  // Round trip of every bit pattern.
  int bad = 0;
  for (uint32_t b = 0; b <= 0xffffu; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float x = isHalf ? static_cast<float>(half::FromBits(bits)) : static_cast<float>(bfloat16_t::FromBits(bits));
    const uint16_t back = isHalf ? half(x).Bits() : bfloat16_t(x).Bits();
    if (std::isnan(x)) {
      const bool nanBack = isHalf ? ((back & 0x7c00u) == 0x7c00u && (back & 0x3ffu) != 0)
                                  : ((back & 0x7f80u) == 0x7f80u && (back & 0x7fu) != 0);
      bad += !nanBack;
    } else {
      bad += back != bits;
    }
  }
  TH_CHECK(bad == 0, "%s: %d bit patterns do not round-trip through float", f.name, bad);

  const std::vector<double> probes = Probes(f);
  // float -> format, round to nearest even (the constructors and the Cast fast path).
  bad = 0;
  for (double d : probes) {
    const float x = static_cast<float>(d);
    if (!std::isfinite(x)) {
      continue;
    }
    const uint16_t got = isHalf ? half(x).Bits() : bfloat16_t(x).Bits();
    const uint16_t want = RefRound(f, static_cast<double>(x), Rounding::kNearestEven, infBits);
    if (got != want && bad++ < 5) {
      std::fprintf(stderr, "%s(float %.9g): got 0x%04x want 0x%04x\n", f.name, static_cast<double>(x), got, want);
    }
  }
  TH_CHECK(bad == 0, "%s: %d float conversions differ from round-to-nearest-even", f.name, bad);

  // double -> format in every direction.
  const Rounding modes[] = {Rounding::kNearestEven, Rounding::kFloor, Rounding::kCeil,
                            Rounding::kHalfAway,    Rounding::kTrunc, Rounding::kOdd};
  for (Rounding m : modes) {
    bad = 0;
    for (double d : probes) {
      const uint16_t got =
          isHalf ? opgen_rt::device::DoubleToHalfBits(d, m) : opgen_rt::device::DoubleToBf16Bits(d, m);
      const uint16_t want = RefRound(f, d, m, infBits);
      if (got != want && bad++ < 5) {
        std::fprintf(stderr, "%s(double %.17g, mode %d): got 0x%04x want 0x%04x\n", f.name, d, static_cast<int>(m),
                     got, want);
      }
    }
    TH_CHECK(bad == 0, "%s: %d double conversions differ in rounding mode %d", f.name, bad, static_cast<int>(m));
  }
}

void CheckArithmetic() {
  half a = 1.5f;
  half b = 2;
  half c = a * b + 0.25f;  // computed in float, rounded once
  TH_CHECK(static_cast<float>(c) == 3.25f, "half arithmetic: %g", static_cast<double>(static_cast<float>(c)));
  c += 1.0f;
  TH_CHECK(static_cast<float>(c) == 4.25f, "half +=");
  half big = 65504.0f;
  half inf = static_cast<float>(big) * 2.0f;
  TH_CHECK(std::isinf(static_cast<float>(inf)), "half overflow to inf");
  bfloat16_t x = 1.0f / 3.0f;
  TH_CHECK(x.Bits() == 0x3eab, "bf16(1/3) bits 0x%04x", x.Bits());
  bfloat16_t y = static_cast<bfloat16_t>(0);
  TH_CHECK(y.Bits() == 0, "bf16 zero");
  half z = static_cast<half>(0);
  TH_CHECK(z.Bits() == 0, "half zero");
  TH_CHECK(half(-0.0f).Bits() == 0x8000, "half -0");
  TH_CHECK(half(5.960464477539063e-08f).Bits() == 0x0001, "smallest half subnormal");
  TH_CHECK(half(2.98023223876953125e-08f).Bits() == 0x0000, "half 2^-25 ties to even zero");
  TH_CHECK(half(65519.0f).Bits() == 0x7bff && half(65520.0f).Bits() == 0x7c00, "half overflow boundary");
  static_assert(AscendC::IsSameType<half, half>::value && !AscendC::IsSameType<half, float>::value, "IsSameType");
}

}  // namespace

int main() {
  CheckFormat(MakeHalf(), true);
  CheckFormat(MakeBf16(), false);
  CheckArithmetic();
  return th::Finish("types");
}
