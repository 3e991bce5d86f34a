// ascend-opgen host emulation of CANN's opdev/data_type_utils.h: dtype predicates, names, sizes and the
// implicit type promotion of binary operations.
#ifndef OPGEN_OPDEV_DATA_TYPE_UTILS_H
#define OPGEN_OPDEV_DATA_TYPE_UTILS_H

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "acl/acl_base.h"
#include "graph/ascend_string.h"
#include "graph/types.h"
#include "opdev/common_types.h"

namespace op {

inline bool CheckType(const DataType dtype, const std::initializer_list<DataType> &valid_types) {
  return std::find(valid_types.begin(), valid_types.end(), dtype) != valid_types.end();
}

bool IsFloatingType(DataType dtype);  // FLOAT, FLOAT16, BF16, DOUBLE
bool IsComplexType(DataType dtype);   // COMPLEX32/64/128
bool IsIntegralType(DataType dtype);  // signed and unsigned integers (not BOOL)
bool IsIntegralType(DataType dtype, bool includeBool);
bool IsBasicType(DataType dtype);  // numeric types (no BOOL, STRING, ...)

// "DT_FLOAT", "DT_BF16", ...; "DT_UNDEFINED" for unknown values.
ge::AscendString ToString(DataType dataType);
// "[DT_FLOAT, DT_FLOAT16]".
ge::AscendString ToString(const std::initializer_list<DataType> &dataTypes);
// Parses "DT_FLOAT" (or "FLOAT"); DT_UNDEFINED when unknown.
DataType ToDataType(const std::string &dataTypeStr);

constexpr DataType ToOpDataType(aclDataType type) {
  return type == ACL_DT_UNDEFINED ? ge::DT_UNDEFINED : static_cast<DataType>(type);
}
aclDataType ToAclDataType(DataType type);

// Bytes of `size` elements of `dataType` (sub-byte types are not supported here: -1).
int64_t CalcShapeBytes(int64_t size, DataType dataType, bool ceil = false);

// The dtype a binary operation computes in (PyTorch-style promotion, as CANN's table):
// equal types stay; BOOL yields to anything; floating beats integral; DOUBLE > FLOAT > {FLOAT16, BF16};
// FLOAT16 with BF16 gives FLOAT; integers widen (INT8 with UINT8 gives INT16); UINT16/32/64 combine only
// with themselves. DT_UNDEFINED when there is no promotion.
DataType PromoteType(DataType typeA, DataType typeB);

}  // namespace op

#endif  // OPGEN_OPDEV_DATA_TYPE_UTILS_H
