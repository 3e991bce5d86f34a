// ascend-opgen host emulation: one operator attribute as handed to a tiling function.
// Hand-written runtime code; not a CANN header. An attribute set from C++ (OP_ATTR) or from JSON keeps every
// representation a tiling may ask for (GetAttrPointer<int64_t>, <bool>, <float>, ...), so the
// tiling reads it in whatever type its OpDef declares.
#ifndef OPGEN_RT_ATTR_VALUE_H
#define OPGEN_RT_ATTR_VALUE_H

#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"

namespace opgen_rt {

struct AttrValue {
  enum class Kind { INT, UINT, BOOL, FLOAT, DOUBLE, STRING, LIST_INT, LIST_FLOAT, LIST_BOOL };

  Kind kind = Kind::INT;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  int32_t i32 = 0;
  uint32_t u32 = 0;
  bool b = false;
  float f = 0.0F;
  double d = 0.0;
  std::string s;
  gert::TypedContinuousVector<int64_t> listInt;
  gert::TypedContinuousVector<float> listFloat;
  gert::TypedContinuousVector<bool> listBool;

  static AttrValue FromInt(int64_t v);
  static AttrValue FromUint(uint64_t v);
  static AttrValue FromBool(bool v);
  static AttrValue FromFloat(float v);
  static AttrValue FromDouble(double v);
  static AttrValue FromString(const std::string &v);
  static AttrValue FromListInt(const std::vector<int64_t> &v);
  static AttrValue FromListFloat(const std::vector<float> &v);
  static AttrValue FromListBool(const std::vector<bool> &v);

  // "int", "uint", "bool", "float", "double", "string", "list_int", "list_float", "list_bool".
  const char *KindName() const;
};

}  // namespace opgen_rt

#endif  // OPGEN_RT_ATTR_VALUE_H
