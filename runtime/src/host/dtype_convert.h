// ascend-opgen host emulation, internal: element conversions between dtypes (host tasks, AllocHostTensor).
#ifndef OPGEN_RT_HOST_DTYPE_CONVERT_H
#define OPGEN_RT_HOST_DTYPE_CONVERT_H

#include <cstdint>

#include "graph/types.h"

namespace opgen_rt {

// One element value in a dtype-neutral form.
struct ElementValue {
  enum class Kind { FLOATING, SIGNED, UNSIGNED };
  Kind kind = Kind::FLOATING;
  double f = 0.0;
  int64_t i = 0;
  uint64_t u = 0;
};

// True for the dtypes host tasks convert: FLOAT, FLOAT16, BF16, DOUBLE, INT8/16/32/64, UINT8/16/32/64, BOOL.
bool IsConvertibleDtype(ge::DataType dtype);
ElementValue ReadElement(const void *src, ge::DataType dtype);
void WriteElement(void *dst, ge::DataType dtype, const ElementValue &value);

// IEEE binary16 / bfloat16 encodings of a double, rounded to nearest even (NaN stays NaN, overflow gives
// infinity), and their exact values.
uint16_t DoubleToHalfBits(double value);
uint16_t DoubleToBf16Bits(double value);
double HalfBitsToDouble(uint16_t bits);
double Bf16BitsToDouble(uint16_t bits);

}  // namespace opgen_rt

#endif  // OPGEN_RT_HOST_DTYPE_CONVERT_H
