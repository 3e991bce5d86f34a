// ascend-opgen host emulation: dtypes — sizes, names, promotion, and element conversions.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "acl/acl_base.h"
#include "dtype_convert.h"
#include "opdev/data_type_utils.h"

namespace {

struct DtypeEntry {
  ge::DataType type;
  const char *name;  // without the DT_ prefix
  size_t size;       // bytes per element; 0 when not whole bytes or not a fixed-size type
};

constexpr DtypeEntry kDtypes[] = {
    {ge::DT_FLOAT, "FLOAT", 4},
    {ge::DT_FLOAT16, "FLOAT16", 2},
    {ge::DT_INT8, "INT8", 1},
    {ge::DT_INT32, "INT32", 4},
    {ge::DT_UINT8, "UINT8", 1},
    {ge::DT_INT16, "INT16", 2},
    {ge::DT_UINT16, "UINT16", 2},
    {ge::DT_UINT32, "UINT32", 4},
    {ge::DT_INT64, "INT64", 8},
    {ge::DT_UINT64, "UINT64", 8},
    {ge::DT_DOUBLE, "DOUBLE", 8},
    {ge::DT_BOOL, "BOOL", 1},
    {ge::DT_STRING, "STRING", 0},
    {ge::DT_DUAL_SUB_INT8, "DUAL_SUB_INT8", 1},
    {ge::DT_DUAL_SUB_UINT8, "DUAL_SUB_UINT8", 1},
    {ge::DT_COMPLEX64, "COMPLEX64", 8},
    {ge::DT_COMPLEX128, "COMPLEX128", 16},
    {ge::DT_QINT8, "QINT8", 1},
    {ge::DT_QINT16, "QINT16", 2},
    {ge::DT_QINT32, "QINT32", 4},
    {ge::DT_QUINT8, "QUINT8", 1},
    {ge::DT_QUINT16, "QUINT16", 2},
    {ge::DT_RESOURCE, "RESOURCE", 8},
    {ge::DT_STRING_REF, "STRING_REF", 0},
    {ge::DT_DUAL, "DUAL", 5},
    {ge::DT_VARIANT, "VARIANT", 8},
    {ge::DT_BF16, "BF16", 2},
    {ge::DT_UNDEFINED, "UNDEFINED", 0},
    {ge::DT_INT4, "INT4", 0},
    {ge::DT_UINT1, "UINT1", 0},
    {ge::DT_INT2, "INT2", 0},
    {ge::DT_UINT2, "UINT2", 0},
    {ge::DT_COMPLEX32, "COMPLEX32", 4},
    {ge::DT_HIFLOAT8, "HIFLOAT8", 1},
    {ge::DT_FLOAT8_E5M2, "FLOAT8_E5M2", 1},
    {ge::DT_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", 1},
    {ge::DT_FLOAT8_E8M0, "FLOAT8_E8M0", 1},
    {ge::DT_FLOAT6_E3M2, "FLOAT6_E3M2", 0},
    {ge::DT_FLOAT6_E2M3, "FLOAT6_E2M3", 0},
    {ge::DT_FLOAT4_E2M1, "FLOAT4_E2M1", 0},
    {ge::DT_FLOAT4_E1M2, "FLOAT4_E1M2", 0},
};

const DtypeEntry *FindDtype(ge::DataType type) {
  for (const auto &e : kDtypes) {
    if (e.type == type) {
      return &e;
    }
  }
  return nullptr;
}

// Round a non-negative double below 2^53 to the nearest integer, ties to even.
uint64_t RoundHalfEven(double q) {
  const double fl = std::floor(q);
  const double diff = q - fl;
  auto n = static_cast<uint64_t>(fl);
  if (diff > 0.5 || (diff == 0.5 && (n & 1U) != 0)) {
    ++n;
  }
  return n;
}

// A binary floating format of 1 sign, expBits exponent and manBits mantissa bits (half: 5/10, bf16: 8/7).
uint16_t EncodeSmallFloat(double v, int expBits, int manBits) {
  const uint32_t expAllOnes = (1U << expBits) - 1U;
  const auto sign = static_cast<uint32_t>(std::signbit(v) ? 1U : 0U) << (expBits + manBits);
  if (std::isnan(v)) {
    return static_cast<uint16_t>(sign | (expAllOnes << manBits) | (1U << (manBits - 1)));
  }
  const double a = std::fabs(v);
  if (std::isinf(a)) {
    return static_cast<uint16_t>(sign | (expAllOnes << manBits));
  }
  if (a == 0.0) {
    return static_cast<uint16_t>(sign);
  }
  const int bias = (1 << (expBits - 1)) - 1;
  const int emin = 1 - bias;
  int e2 = 0;
  (void)std::frexp(a, &e2);
  int e = e2 - 1;  // a is in [2^e, 2^(e+1))
  if (e < emin) {
    // Subnormal: a count of 2^(emin - manBits). A count of 2^manBits is the smallest normal number, whose
    // encoding is the same integer.
    const uint64_t n = RoundHalfEven(std::ldexp(a, manBits - emin));
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(n));
  }
  uint64_t n = RoundHalfEven(std::ldexp(a, manBits - e));  // in [2^manBits, 2^(manBits+1)]
  if (n == (uint64_t{1} << (manBits + 1))) {
    n >>= 1U;
    ++e;
  }
  if (e > bias) {
    return static_cast<uint16_t>(sign | (expAllOnes << manBits));
  }
  const auto expField = static_cast<uint32_t>(e + bias);
  const auto mantissa = static_cast<uint32_t>(n - (uint64_t{1} << manBits));
  return static_cast<uint16_t>(sign | (expField << manBits) | mantissa);
}

double DecodeSmallFloat(uint16_t bits, int expBits, int manBits) {
  const uint32_t expAllOnes = (1U << expBits) - 1U;
  const bool negative = ((bits >> (expBits + manBits)) & 1U) != 0;
  const uint32_t expField = (static_cast<uint32_t>(bits) >> manBits) & expAllOnes;
  const uint32_t mantissa = static_cast<uint32_t>(bits) & ((1U << manBits) - 1U);
  const int bias = (1 << (expBits - 1)) - 1;
  double value = 0.0;
  if (expField == expAllOnes) {
    value = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (expField == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - bias - manBits);
  } else {
    value = std::ldexp(static_cast<double>(mantissa + (1U << manBits)), static_cast<int>(expField) - bias - manBits);
  }
  return negative ? -value : value;
}

template <typename T>
T LoadAs(const void *src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return v;
}

template <typename T>
void StoreAs(void *dst, T v) {
  std::memcpy(dst, &v, sizeof(T));
}

// Floating value to integer type T: truncation toward zero, saturating; NaN gives 0.
template <typename T>
T FloatToInt(double f) {
  if (std::isnan(f)) {
    return 0;
  }
  const double t = std::trunc(f);
  if (t <= static_cast<double>(std::numeric_limits<T>::min())) {
    return std::numeric_limits<T>::min();
  }
  // max() of 64-bit types is not representable; compare against 2^bits (exact) instead.
  const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (t >= limit) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(t);
}

template <typename T>
T ToInteger(const opgen_rt::ElementValue &v) {
  switch (v.kind) {
    case opgen_rt::ElementValue::Kind::FLOATING:
      return FloatToInt<T>(v.f);
    case opgen_rt::ElementValue::Kind::SIGNED:
      return static_cast<T>(v.i);
    case opgen_rt::ElementValue::Kind::UNSIGNED:
    default:
      return static_cast<T>(v.u);
  }
}

double ToDouble(const opgen_rt::ElementValue &v) {
  switch (v.kind) {
    case opgen_rt::ElementValue::Kind::FLOATING:
      return v.f;
    case opgen_rt::ElementValue::Kind::SIGNED:
      return static_cast<double>(v.i);
    case opgen_rt::ElementValue::Kind::UNSIGNED:
    default:
      return static_cast<double>(v.u);
  }
}

float ToFloat(const opgen_rt::ElementValue &v) {
  switch (v.kind) {
    case opgen_rt::ElementValue::Kind::FLOATING:
      return static_cast<float>(v.f);
    case opgen_rt::ElementValue::Kind::SIGNED:
      return static_cast<float>(v.i);
    case opgen_rt::ElementValue::Kind::UNSIGNED:
    default:
      return static_cast<float>(v.u);
  }
}

opgen_rt::ElementValue Floating(double f) {
  opgen_rt::ElementValue v;
  v.kind = opgen_rt::ElementValue::Kind::FLOATING;
  v.f = f;
  return v;
}
opgen_rt::ElementValue Signed(int64_t i) {
  opgen_rt::ElementValue v;
  v.kind = opgen_rt::ElementValue::Kind::SIGNED;
  v.i = i;
  return v;
}
opgen_rt::ElementValue Unsigned(uint64_t u) {
  opgen_rt::ElementValue v;
  v.kind = opgen_rt::ElementValue::Kind::UNSIGNED;
  v.u = u;
  return v;
}

enum class PromoteClass { BOOL, UNSIGNED_WIDE, INTEGER, HALF, BF16, FLOAT, DOUBLE, COMPLEX64, COMPLEX128, OTHER };

PromoteClass ClassOf(ge::DataType t) {
  switch (t) {
    case ge::DT_BOOL:
      return PromoteClass::BOOL;
    case ge::DT_UINT16:
    case ge::DT_UINT32:
    case ge::DT_UINT64:
      return PromoteClass::UNSIGNED_WIDE;
    case ge::DT_INT8:
    case ge::DT_UINT8:
    case ge::DT_INT16:
    case ge::DT_INT32:
    case ge::DT_INT64:
      return PromoteClass::INTEGER;
    case ge::DT_FLOAT16:
      return PromoteClass::HALF;
    case ge::DT_BF16:
      return PromoteClass::BF16;
    case ge::DT_FLOAT:
      return PromoteClass::FLOAT;
    case ge::DT_DOUBLE:
      return PromoteClass::DOUBLE;
    case ge::DT_COMPLEX64:
      return PromoteClass::COMPLEX64;
    case ge::DT_COMPLEX128:
      return PromoteClass::COMPLEX128;
    default:
      return PromoteClass::OTHER;
  }
}

// Promotion of two different integer types of {INT8, UINT8, INT16, INT32, INT64}.
ge::DataType PromoteIntegers(ge::DataType a, ge::DataType b) {
  auto bits = [](ge::DataType t) -> int {
    switch (t) {
      case ge::DT_INT8:
      case ge::DT_UINT8:
        return 8;
      case ge::DT_INT16:
        return 16;
      case ge::DT_INT32:
        return 32;
      default:
        return 64;
    }
  };
  if (a == ge::DT_UINT8 || b == ge::DT_UINT8) {
    const ge::DataType other = a == ge::DT_UINT8 ? b : a;
    return other == ge::DT_INT8 ? ge::DT_INT16 : other;  // uint8 fits in any wider signed type
  }
  return bits(a) >= bits(b) ? a : b;
}

}  // namespace

namespace op {

size_t TypeSize(DataType dataType) {
  const DtypeEntry *e = FindDtype(dataType);
  return e == nullptr ? 0 : e->size;
}

bool IsFloatingType(DataType dtype) {
  return dtype == ge::DT_FLOAT || dtype == ge::DT_FLOAT16 || dtype == ge::DT_BF16 || dtype == ge::DT_DOUBLE;
}

bool IsComplexType(DataType dtype) {
  return dtype == ge::DT_COMPLEX32 || dtype == ge::DT_COMPLEX64 || dtype == ge::DT_COMPLEX128;
}

bool IsIntegralType(DataType dtype) {
  switch (dtype) {
    case ge::DT_INT8:
    case ge::DT_UINT8:
    case ge::DT_INT16:
    case ge::DT_UINT16:
    case ge::DT_INT32:
    case ge::DT_UINT32:
    case ge::DT_INT64:
    case ge::DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool IsIntegralType(DataType dtype, bool includeBool) {
  return IsIntegralType(dtype) || (includeBool && dtype == ge::DT_BOOL);
}

bool IsBasicType(DataType dtype) {
  return IsFloatingType(dtype) || IsIntegralType(dtype) || IsComplexType(dtype);
}

ge::AscendString ToString(DataType dataType) {
  const DtypeEntry *e = FindDtype(dataType);
  return ge::AscendString(std::string("DT_") + (e == nullptr ? "UNDEFINED" : e->name));
}

ge::AscendString ToString(const std::initializer_list<DataType> &dataTypes) {
  std::string text = "[";
  bool first = true;
  for (DataType t : dataTypes) {
    if (!first) {
      text += ", ";
    }
    first = false;
    text += ToString(t).GetString();
  }
  text += "]";
  return ge::AscendString(text);
}

DataType ToDataType(const std::string &dataTypeStr) {
  std::string name = dataTypeStr;
  if (name.rfind("DT_", 0) == 0) {
    name = name.substr(3);
  }
  for (const auto &e : kDtypes) {
    if (name == e.name) {
      return e.type;
    }
  }
  return ge::DT_UNDEFINED;
}

aclDataType ToAclDataType(DataType type) {
  switch (type) {
    case ge::DT_FLOAT:
    case ge::DT_FLOAT16:
    case ge::DT_INT8:
    case ge::DT_INT32:
    case ge::DT_UINT8:
    case ge::DT_INT16:
    case ge::DT_UINT16:
    case ge::DT_UINT32:
    case ge::DT_INT64:
    case ge::DT_UINT64:
    case ge::DT_DOUBLE:
    case ge::DT_BOOL:
    case ge::DT_STRING:
    case ge::DT_COMPLEX64:
    case ge::DT_COMPLEX128:
    case ge::DT_BF16:
    case ge::DT_INT4:
    case ge::DT_UINT1:
    case ge::DT_COMPLEX32:
      return static_cast<aclDataType>(type);
    default:
      return ACL_DT_UNDEFINED;
  }
}

int64_t CalcShapeBytes(int64_t size, DataType dataType, bool ceil) {
  (void)ceil;
  const size_t elem = TypeSize(dataType);
  if (elem == 0 || size < 0) {
    return -1;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(size, static_cast<int64_t>(elem), &bytes)) {
    return -1;
  }
  return bytes;
}

DataType PromoteType(DataType typeA, DataType typeB) {
  if (typeA == typeB) {
    return ClassOf(typeA) == PromoteClass::OTHER ? ge::DT_UNDEFINED : typeA;
  }
  const PromoteClass a = ClassOf(typeA);
  const PromoteClass b = ClassOf(typeB);
  if (a == PromoteClass::OTHER || b == PromoteClass::OTHER || a == PromoteClass::UNSIGNED_WIDE ||
      b == PromoteClass::UNSIGNED_WIDE) {
    return ge::DT_UNDEFINED;
  }
  if (a == PromoteClass::BOOL) {
    return typeB;
  }
  if (b == PromoteClass::BOOL) {
    return typeA;
  }
  const bool complexA = a == PromoteClass::COMPLEX64 || a == PromoteClass::COMPLEX128;
  const bool complexB = b == PromoteClass::COMPLEX64 || b == PromoteClass::COMPLEX128;
  if (complexA || complexB) {
    const bool wide = a == PromoteClass::COMPLEX128 || b == PromoteClass::COMPLEX128 || a == PromoteClass::DOUBLE ||
                      b == PromoteClass::DOUBLE;
    return wide ? ge::DT_COMPLEX128 : ge::DT_COMPLEX64;
  }
  if (a == PromoteClass::INTEGER && b == PromoteClass::INTEGER) {
    return PromoteIntegers(typeA, typeB);
  }
  if (a == PromoteClass::INTEGER) {
    return typeB;  // floating beats integral
  }
  if (b == PromoteClass::INTEGER) {
    return typeA;
  }
  // Two different floating types.
  if (a == PromoteClass::DOUBLE || b == PromoteClass::DOUBLE) {
    return ge::DT_DOUBLE;
  }
  return ge::DT_FLOAT;  // FLOAT with a 16-bit type, or FLOAT16 with BF16
}

}  // namespace op

namespace opgen_rt {

bool IsConvertibleDtype(ge::DataType dtype) {
  switch (dtype) {
    case ge::DT_FLOAT:
    case ge::DT_FLOAT16:
    case ge::DT_BF16:
    case ge::DT_DOUBLE:
    case ge::DT_INT8:
    case ge::DT_INT16:
    case ge::DT_INT32:
    case ge::DT_INT64:
    case ge::DT_UINT8:
    case ge::DT_UINT16:
    case ge::DT_UINT32:
    case ge::DT_UINT64:
    case ge::DT_BOOL:
      return true;
    default:
      return false;
  }
}

ElementValue ReadElement(const void *src, ge::DataType dtype) {
  switch (dtype) {
    case ge::DT_FLOAT:
      return Floating(static_cast<double>(LoadAs<float>(src)));
    case ge::DT_FLOAT16:
      return Floating(HalfBitsToDouble(LoadAs<uint16_t>(src)));
    case ge::DT_BF16:
      return Floating(Bf16BitsToDouble(LoadAs<uint16_t>(src)));
    case ge::DT_DOUBLE:
      return Floating(LoadAs<double>(src));
    case ge::DT_INT8:
      return Signed(LoadAs<int8_t>(src));
    case ge::DT_INT16:
      return Signed(LoadAs<int16_t>(src));
    case ge::DT_INT32:
      return Signed(LoadAs<int32_t>(src));
    case ge::DT_INT64:
      return Signed(LoadAs<int64_t>(src));
    case ge::DT_UINT8:
      return Unsigned(LoadAs<uint8_t>(src));
    case ge::DT_UINT16:
      return Unsigned(LoadAs<uint16_t>(src));
    case ge::DT_UINT32:
      return Unsigned(LoadAs<uint32_t>(src));
    case ge::DT_UINT64:
      return Unsigned(LoadAs<uint64_t>(src));
    case ge::DT_BOOL:
      return Unsigned(LoadAs<uint8_t>(src) != 0 ? 1U : 0U);
    default:
      return Unsigned(0);
  }
}

void WriteElement(void *dst, ge::DataType dtype, const ElementValue &value) {
  switch (dtype) {
    case ge::DT_FLOAT:
      StoreAs<float>(dst, ToFloat(value));
      break;
    case ge::DT_FLOAT16:
      StoreAs<uint16_t>(dst, DoubleToHalfBits(ToDouble(value)));
      break;
    case ge::DT_BF16:
      StoreAs<uint16_t>(dst, DoubleToBf16Bits(ToDouble(value)));
      break;
    case ge::DT_DOUBLE:
      StoreAs<double>(dst, ToDouble(value));
      break;
    case ge::DT_INT8:
      StoreAs<int8_t>(dst, ToInteger<int8_t>(value));
      break;
    case ge::DT_INT16:
      StoreAs<int16_t>(dst, ToInteger<int16_t>(value));
      break;
    case ge::DT_INT32:
      StoreAs<int32_t>(dst, ToInteger<int32_t>(value));
      break;
    case ge::DT_INT64:
      StoreAs<int64_t>(dst, ToInteger<int64_t>(value));
      break;
    case ge::DT_UINT8:
      StoreAs<uint8_t>(dst, ToInteger<uint8_t>(value));
      break;
    case ge::DT_UINT16:
      StoreAs<uint16_t>(dst, ToInteger<uint16_t>(value));
      break;
    case ge::DT_UINT32:
      StoreAs<uint32_t>(dst, ToInteger<uint32_t>(value));
      break;
    case ge::DT_UINT64:
      StoreAs<uint64_t>(dst, ToInteger<uint64_t>(value));
      break;
    case ge::DT_BOOL: {
      bool truth = false;
      switch (value.kind) {
        case ElementValue::Kind::FLOATING:
          truth = value.f != 0.0 || std::isnan(value.f);
          break;
        case ElementValue::Kind::SIGNED:
          truth = value.i != 0;
          break;
        case ElementValue::Kind::UNSIGNED:
          truth = value.u != 0;
          break;
      }
      StoreAs<uint8_t>(dst, truth ? 1U : 0U);
      break;
    }
    default:
      break;
  }
}

uint16_t DoubleToHalfBits(double value) {
  return EncodeSmallFloat(value, 5, 10);
}
uint16_t DoubleToBf16Bits(double value) {
  return EncodeSmallFloat(value, 8, 7);
}
double HalfBitsToDouble(uint16_t bits) {
  return DecodeSmallFloat(bits, 5, 10);
}
double Bf16BitsToDouble(uint16_t bits) {
  return DecodeSmallFloat(bits, 8, 7);
}

}  // namespace opgen_rt

extern "C" {

size_t aclDataTypeSize(aclDataType dataType) {
  if (dataType == ACL_DT_UNDEFINED) {
    return 0;
  }
  return op::TypeSize(static_cast<ge::DataType>(dataType));
}

float aclFloat16ToFloat(aclFloat16 value) {
  return static_cast<float>(opgen_rt::HalfBitsToDouble(value));
}

aclFloat16 aclFloatToFloat16(float value) {
  return opgen_rt::DoubleToHalfBits(static_cast<double>(value));
}

}  // extern "C"
