// The floating comparison of codegen/check/compare.py in one pass per element (compiled by
// codegen/check/native.py into the build cache and called through ctypes). compare.py's NumPy code is the
// statement of the rule; this file computes the same quantities, in the same order of floating-point
// operations, so that the results are bit for bit those of the NumPy path (tests/test_compare_native.py
// holds the two to that).
//
// Per element i of the output (C order): g = got, e = the reference rounded to the output dtype (both given
// as their bit patterns, 16 or 32 bits, decoded to double exactly), r = the float64 reference.
//   half  = half an ULP of the output dtype at e (at r where e is not finite; at the smallest subnormal
//           spacing where r is NaN, infinite or 0)
//   err   = |g - r|, rel = rtol*|r|
//   bound = (atol + rel) + half, or with a lazy atol rel + half, and where that does not accept the element
//           (rel + atol) + half with the atol the caller supplies for it (in index order)
//   ok    = err <= bound, or g and r both NaN, or g the infinity e is with r's sign; where r is infinite
//           only g == r
//   the shown error is err (infinite where NaN, 0 where the NaN/infinity was accepted), and the ULP
//   distance is |ordered(g) - ordered(e)| with compare.py's treatment of subnormal and non-finite e
//   (infinite where one side is NaN or they are different infinities).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

struct Format {
  int bits;   // 16 or 32
  int nmant;  // stored mantissa bits
  int bias;   // exponent bias (minimum normal exponent is 1 - bias)
};

inline uint32_t BitsAt(const void *p, int64_t i, int bits) {
  if (bits == 16) {
    uint16_t v;
    std::memcpy(&v, static_cast<const uint8_t *>(p) + 2 * i, 2);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, static_cast<const uint8_t *>(p) + 4 * i, 4);
  return v;
}

// 2**k as a double for k in the normal range of double.
inline double Pow2(int k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

// The exact double value of the bit pattern `b` of format `f` (integer operations: no table, no libm).
inline double Decode(uint32_t b, const Format &f) {
  if (f.bits == 32) {
    float v;
    std::memcpy(&v, &b, 4);
    return static_cast<double>(v);
  }
  const uint32_t mantMask = (uint32_t{1} << f.nmant) - 1;
  const uint32_t expField = (b >> f.nmant) & ((uint32_t{1} << (f.bits - 1 - f.nmant)) - 1);
  const uint32_t expAllOnes = (uint32_t{1} << (f.bits - 1 - f.nmant)) - 1;
  const uint32_t m = b & mantMask;
  const bool negative = (b >> (f.bits - 1)) != 0;
  double v;
  if (expField == expAllOnes) {
    v = m != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (expField == 0) {
    v = static_cast<double>(m) * Pow2(1 - f.bias - f.nmant);  // subnormal: exact (a power-of-two scaling)
  } else {
    const uint64_t bits = (static_cast<uint64_t>(static_cast<int>(expField) - f.bias + 1023) << 52) |
                          (static_cast<uint64_t>(m) << (52 - f.nmant));
    std::memcpy(&v, &bits, 8);
  }
  return negative ? -v : v;
}

// The bits ordered like the values (-0 and +0 both 0): compare.py's _ordered.
inline int64_t Ordered(uint32_t b, int bits) {
  const int64_t s =
      bits == 16 ? static_cast<int64_t>(static_cast<int16_t>(b)) : static_cast<int64_t>(static_cast<int32_t>(b));
  const int64_t magnitude = (int64_t{1} << (bits - 1)) - 1;
  const int64_t m = s < 0 ? -1 : 0;
  return ((m & magnitude) ^ s) - m;
}

// The bits of `x` rounded to nearest, ties to even, in the format `f` (a single rounding from double, in
// integer operations; an overflow is infinity, an underflow below half the smallest subnormal a signed zero,
// NaN a quiet NaN).
inline uint32_t RoundBits(double x, const Format &f) {
  uint64_t xb;
  std::memcpy(&xb, &x, 8);
  const uint32_t sign = (xb >> 63) != 0 ? uint32_t{1} << (f.bits - 1) : 0;
  const uint32_t expAll = ((uint32_t{1} << (f.bits - 1)) - 1) & ~((uint32_t{1} << f.nmant) - 1);
  const int biasedE = static_cast<int>((xb >> 52) & 0x7ff);
  const uint64_t frac = xb & ((uint64_t{1} << 52) - 1);
  if (biasedE == 0x7ff) {
    return frac != 0 ? sign | expAll | (uint32_t{1} << (f.nmant - 1)) : sign | expAll;
  }
  if (biasedE == 0) {
    return sign;  // zero, or a double subnormal: far below half of the format's smallest subnormal
  }
  const int lead = biasedE - 1023;  // floor(log2 |x|)
  const int emin = 1 - f.bias;
  if (lead > f.bias + 1) {
    return sign | expAll;  // at least twice the largest binade: overflows
  }
  const uint64_t significand = frac | (uint64_t{1} << 52);  // |x| = significand * 2**(lead - 52)
  int q = (lead > emin ? lead : emin) - f.nmant;            // the exponent of one unit in the last place
  const int drop = q - (lead - 52);                         // low bits below that unit: at least 52 - nmant
  uint64_t n = 0;
  if (drop < 64) {
    n = significand >> drop;
    const uint64_t rest = significand & ((uint64_t{1} << drop) - 1);
    const uint64_t half = uint64_t{1} << (drop - 1);
    if (rest > half || (rest == half && (n & 1) != 0)) {
      ++n;
    }
  }
  if ((n >> (f.nmant + 1)) != 0) {  // rounded up into the next binade
    n >>= 1;
    ++q;
  }
  if (n < (uint64_t{1} << f.nmant)) {  // subnormal (or zero)
    return sign | static_cast<uint32_t>(n);
  }
  const int biased = q + f.nmant + f.bias;
  if (biased >= (1 << (f.bits - 1 - f.nmant)) - 1) {
    return sign | expAll;
  }
  return sign | (static_cast<uint32_t>(biased) << f.nmant) | static_cast<uint32_t>(n - (uint64_t{1} << f.nmant));
}

}  // namespace

extern "C" {

// `n` doubles rounded to the format of `bits` (16 or 32), `nmant` stored mantissa bits and exponent bias
// `bias`, written as bit patterns (uint16 or uint32) to `out`.
void opgen_round_to_bits(const double *x, int64_t n, int bits, int nmant, int bias, void *out) {
  const Format f{bits, nmant, bias};
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t b = RoundBits(x[i], f);
    if (bits == 16) {
      const uint16_t v = static_cast<uint16_t>(b);
      std::memcpy(static_cast<uint8_t *>(out) + 2 * i, &v, 2);
    } else {
      std::memcpy(static_cast<uint8_t *>(out) + 4 * i, &b, 4);
    }
  }
}

// out_f: [0] max_abs (-1 when n == 0), [1] bound at the worst element, [2] max ULP distance, [3] bound at the
// first failing element. out_i: [0] worst element, [1] failing count, [2] first failing element (-1: none),
// [3] elements needing a lazy atol (pass with lazy = 1: their indices are written to need[]).
// lazy: 0 = atol given (atol, atol_step); 1 = first pass of a lazy atol (no atol; writes need[]); 2 = second
// pass (lazy_atol[k] is the atol of the k-th element the first pass listed).
int opgen_compare_float(const void *got, const void *expected, int bits, int nmant, int bias, const double *ref,
                        int64_t n, const double *rtol, int64_t rtol_step, const double *atol, int64_t atol_step,
                        int lazy, const double *lazy_atol, int64_t *need, double *out_f, int64_t *out_i) {
  const Format f{bits, nmant, bias};
  const uint32_t expMask = ((uint32_t{1} << (bits - 1)) - 1) & ~((uint32_t{1} << nmant) - 1);
  const int minexp = 1 - bias;
  const double smallestNormal = Pow2(minexp);
  double maxAbs = -1.0, boundAtWorst = 0.0, maxUlpF = 0.0, boundAtBad = 0.0;
  int64_t worstAt = -1, badCount = 0, firstBad = -1, needCount = 0, maxDist = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t gb = BitsAt(got, i, bits);
    const uint32_t eb = BitsAt(expected, i, bits);
    const double g = Decode(gb, f);
    const double e = Decode(eb, f);
    const double r = ref[i];
    const bool eNonfinite = (eb & expMask) == expMask;
    const bool gNonfinite = (gb & expMask) == expMask;
    int ex;
    if (!eNonfinite) {
      int biased = static_cast<int>((eb & expMask) >> nmant);
      ex = (biased < 1 ? 1 : biased) - bias;
    } else if (std::isfinite(r) && r != 0.0) {
      int fe;
      (void)std::frexp(r, &fe);
      ex = fe - 1 < minexp ? minexp : fe - 1;
    } else {
      ex = minexp;
    }
    const double half = Pow2(ex - nmant - 1);
    double err = std::fabs(g - r);
    const double rel = rtol[i * rtol_step] * std::fabs(r);
    double bound;
    bool ok;
    if (lazy == 0) {
      bound = atol[i * atol_step] + rel;
      bound = bound + half;
      ok = err <= bound;
    } else {
      bound = rel + half;
      ok = err <= bound;
      if (!ok) {
        if (lazy == 1) {
          need[needCount] = i;
        } else {
          double b = rel + lazy_atol[needCount];
          b += half;
          bound = b;
          ok = err <= b;
        }
        ++needCount;
      }
    }
    bool special = false;
    if (gNonfinite) {
      const bool nanOk = std::isnan(g) && std::isnan(r);
      const bool infOk = std::isinf(g) && std::isinf(e) && std::signbit(g) == std::signbit(r) && !std::isnan(r);
      special = nanOk || infOk;
      ok = ok || special;
    }
    if (std::isinf(r)) {
      ok = ok && g == r;
    }
    if (std::isnan(err)) {
      err = INFINITY;
    }
    // an accepted NaN or infinity is never the worst element: its bound (rtol * |NaN or inf|) says nothing
    if (!special && err > maxAbs) {
      maxAbs = err;
      boundAtWorst = bound;
      worstAt = i;
    }
    // the ULP distance
    if (!special) {
      const bool tiny = (eb & expMask) == 0;
      const bool nonfinite = eNonfinite || gNonfinite;
      if (tiny) {
        const double d = std::fabs(g - e);
        if (!std::isnan(d)) {
          const double w = d / smallestNormal;
          if (w > maxUlpF) {
            maxUlpF = w;
          }
        }
      }
      if (nonfinite) {
        // infinitely far, except the same infinity on both sides (g - e is NaN): a NaN against a number is
        // infinitely far too
        if (!std::isnan(g - e) || std::isnan(g) != std::isnan(e)) {
          maxUlpF = INFINITY;
        }
      }
      if (!tiny && !nonfinite) {
        int64_t dist = Ordered(gb, bits) - Ordered(eb, bits);
        dist = dist < 0 ? -dist : dist;
        if (dist > maxDist) {
          maxDist = dist;
        }
      }
    }
    if (!ok) {
      if (firstBad < 0) {
        firstBad = i;
        boundAtBad = bound;
      }
      ++badCount;
    }
  }
  const double distF = static_cast<double>(maxDist);
  out_f[0] = maxAbs;
  out_f[1] = boundAtWorst;
  out_f[2] = maxUlpF > distF ? maxUlpF : distF;
  out_f[3] = boundAtBad;
  out_i[0] = worstAt;
  out_i[1] = badCount;
  out_i[2] = firstBad;
  out_i[3] = needCount;
  return 0;
}

}  // extern "C"
